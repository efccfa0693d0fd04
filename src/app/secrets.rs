//! The app's secret store: the OS keyring, and when there is none, this run's memory.
//!
//! docs/design.md §3: with no keyring the app says so and keeps the secret for this run only; it
//! never falls back to a file. This wrapper tries the keyring first; when the keyring reports
//! itself unavailable, the secret goes to an in-memory store and the reason is remembered, so
//! the settings can show "no keyring available" next to the profile.

use std::sync::Mutex;

use zeroize::Zeroizing;

use crate::secrets::{KeyringStore, MemoryStore, SecretError, SecretStore};

/// Keyring first, this run's memory when no keyring is available.
#[derive(Debug)]
pub struct AppSecrets {
    keyring: Option<KeyringStore>,
    session: MemoryStore,
    unavailable: Mutex<Option<String>>,
}

impl AppSecrets {
    /// The platform keyring, if this build has one, with the memory fallback.
    pub fn new() -> Self {
        match KeyringStore::new() {
            Ok(k) => Self::with(Some(k)),
            Err(e) => {
                let s = Self::with(None);
                s.note_unavailable(&e);
                s
            }
        }
    }

    /// Memory only (tests; or when the caller knows there is no keyring).
    pub fn memory_only(reason: &str) -> Self {
        let s = Self::with(None);
        *s.reason_slot() = Some(reason.to_owned());
        s
    }

    fn with(keyring: Option<KeyringStore>) -> Self {
        Self {
            keyring,
            session: MemoryStore::new(),
            unavailable: Mutex::new(None),
        }
    }

    fn reason_slot(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.unavailable
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn note_unavailable(&self, e: &SecretError) {
        *self.reason_slot() = Some(e.to_string());
    }

    /// Why the keyring cannot be used, once that is known.
    pub fn unavailable(&self) -> Option<String> {
        self.reason_slot().clone()
    }
}

impl Default for AppSecrets {
    fn default() -> Self {
        Self::new()
    }
}

impl SecretStore for AppSecrets {
    fn get(&self, profile: &str, api_key: &str) -> Result<Option<Zeroizing<String>>, SecretError> {
        if let Some(k) = &self.keyring {
            match k.get(profile, api_key) {
                Ok(Some(s)) => return Ok(Some(s)),
                Ok(None) => {}
                Err(e @ SecretError::Unavailable(_)) => self.note_unavailable(&e),
                Err(e) => return Err(e),
            }
        }
        self.session.get(profile, api_key)
    }

    fn set(&self, profile: &str, api_key: &str, secret: &str) -> Result<(), SecretError> {
        if let Some(k) = &self.keyring {
            match k.set(profile, api_key, secret) {
                Ok(()) => return Ok(()),
                Err(e @ SecretError::Unavailable(_)) => self.note_unavailable(&e),
                Err(e) => return Err(e),
            }
        }
        self.session.set(profile, api_key, secret)
    }

    fn delete(&self, profile: &str, api_key: &str) -> Result<(), SecretError> {
        if let Some(k) = &self.keyring {
            match k.delete(profile, api_key) {
                Ok(()) | Err(SecretError::Unavailable(_)) => {}
                Err(e) => return Err(e),
            }
        }
        self.session.delete(profile, api_key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_keyring_secrets_live_in_memory_and_the_reason_is_kept() {
        let s = AppSecrets::memory_only("no keyring available: test");
        assert_eq!(s.get("shop", "pk_1").unwrap(), None);
        s.set("shop", "pk_1", "sk_live_x").unwrap();
        assert_eq!(
            s.get("shop", "pk_1")
                .unwrap()
                .as_deref()
                .map(String::as_str),
            Some("sk_live_x")
        );
        assert_eq!(
            s.unavailable().as_deref(),
            Some("no keyring available: test")
        );
        s.delete("shop", "pk_1").unwrap();
        assert_eq!(s.get("shop", "pk_1").unwrap(), None);
        assert!(!format!("{s:?}").contains("sk_live_x"));
    }
}
