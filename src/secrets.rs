//! Where API secrets live: the OS keyring, or this process's memory, never a file.
//!
//! docs/design.md §3: the secret that signs requests is kept only in the OS keyring (service
//! [`SERVICE`], one entry per profile and API key, user `{profile}:{api_key}`). Scripts and CI
//! pass it in `PAYDESK_API_SECRET` instead ([`resolve_secret`]), and it is never written
//! anywhere from there. When no keyring is available the caller gets a clear
//! [`SecretError::Unavailable`] and may keep the secret for this run only in a
//! [`MemoryStore`]; there is no file fallback on purpose.
//!
//! Every secret handed out is a [`Zeroizing`] buffer, and nothing here prints one in `Debug`.
//!
//! # Threads and tokio
//!
//! On Linux the keyring is the Secret Service over D-Bus. With keyring's features
//! `async-secret-service` and `tokio`, its blocking `Entry` API runs the D-Bus future on an internal tokio
//! runtime (`zbus`'s `block_on`), which panics ("cannot start a runtime from within a
//! runtime") when called from a thread that is already driving a tokio runtime. Callers
//! should call [`KeyringStore`] from a plain thread (`tokio::task::spawn_blocking` is one);
//! as a safety net, a call made from inside a runtime is moved to a short-lived scoped thread,
//! so it blocks that worker for the duration of the D-Bus round trip but never panics.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use keyring::credential::{CredentialBuilder, CredentialPersistence};
use zeroize::Zeroizing;

/// The keyring service name of every paydesk entry.
pub const SERVICE: &str = "paydesk";

/// The environment variable that carries the API secret for scripts and CI.
pub const SECRET_ENV: &str = "PAYDESK_API_SECRET";

/// The environment variable that carries a staff member's PIN for scripts (`--as NAME`); read
/// once and removed as [`SECRET_ENV`] is.
pub const STAFF_PIN_ENV: &str = "PAYDESK_STAFF_PIN";

/// The environment variable that gives the shop's password on every run where no keyring
/// runs (read once and wiped from the environment by `main`, as [`SECRET_ENV`] is).
pub const SHOP_PASSWORD_ENV: &str = "PAYDESK_SHOP_PASSWORD";

/// The environment variable that gives the SMTP account's password where no keyring runs
/// (read once and wiped from the environment by `main`, as [`SECRET_ENV`] is).
pub const SMTP_PASSWORD_ENV: &str = "PAYDESK_SMTP_PASSWORD";

/// The variables no program paydesk starts may inherit (`main` removes them from the process
/// too; a child's command removes them again, so a test can see it).
pub const CHILD_FREE: [&str; 4] = [
    SECRET_ENV,
    STAFF_PIN_ENV,
    SHOP_PASSWORD_ENV,
    SMTP_PASSWORD_ENV,
];

/// `PAYDESK_API_SECRET` as read once when paydesk starts (`main` then removes the variable
/// from the process, so nothing paydesk starts inherits it). Zeroized on drop; `Debug` says
/// only whether it is set.
#[derive(Clone, Default)]
pub struct EnvSecret(Option<Zeroizing<String>>);

impl EnvSecret {
    /// The variable's value now; unset, empty or not UTF-8 is no secret.
    pub fn from_env() -> Self {
        Self::from_var(SECRET_ENV)
    }

    /// Another variable read the same way (`PAYDESK_STAFF_PIN`).
    pub fn from_var(name: &str) -> Self {
        Self(
            std::env::var(name)
                .ok()
                .filter(|s| !s.is_empty())
                .map(Zeroizing::new),
        )
    }

    /// A secret given directly (tests, or a caller that read it elsewhere).
    pub fn new(secret: Option<Zeroizing<String>>) -> Self {
        Self(secret.filter(|s| !s.is_empty()))
    }

    /// A copy of the secret, `None` when there is none.
    pub fn value(&self) -> Option<Zeroizing<String>> {
        self.0.clone()
    }
}

impl fmt::Debug for EnvSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Some(_) => "EnvSecret(<redacted>)",
            None => "EnvSecret(none)",
        })
    }
}

/// A value that `Debug` never shows: it prints `<redacted>`, so a struct holding a secret can
/// derive `Debug` and still never leak it into a log or a panic message. `Deref` hands the
/// value to the code that needs it (signing).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Redacted<T>(pub T);

impl<T> fmt::Debug for Redacted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl<T> std::ops::Deref for Redacted<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Redacted<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// The keyring user name of a profile's API key: `{profile}:{api_key}`.
///
/// Profile names cannot contain `:` (the store refuses them), so the pair is unambiguous.
pub fn keyring_user(profile: &str, api_key: &str) -> String {
    format!("{profile}:{api_key}")
}

/// Why a secret could not be read, stored or deleted.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// There is no usable OS keyring (no Secret Service, locked, or none for this platform).
    #[error("no keyring available: {0}")]
    Unavailable(String),
    /// The keyring holds several entries for one user; paydesk will not guess which is right.
    #[error(
        "the keyring holds {count} secrets for {user} in service {SERVICE}; remove the extra ones with your keyring tool"
    )]
    Ambiguous {
        /// The keyring user (`{profile}:{api_key}`).
        user: String,
        /// How many entries match.
        count: usize,
    },
    /// The stored value is not UTF-8 text (the bytes are wiped, never shown).
    #[error("the keyring entry for {user} does not hold text; set the secret again")]
    NotText {
        /// The keyring user.
        user: String,
    },
    /// The keyring rejected the entry's name (too long or invalid).
    #[error("the keyring refuses the entry {user}: {reason}")]
    BadEntry {
        /// The keyring user.
        user: String,
        /// The keyring's reason.
        reason: String,
    },
    /// An empty secret cannot be stored.
    #[error("an empty API secret cannot be stored")]
    Empty,
}

/// A place API secrets are kept, one per (profile, API key id).
pub trait SecretStore: Send + Sync + fmt::Debug {
    /// The secret, or `None` when none is stored.
    fn get(&self, profile: &str, api_key: &str) -> Result<Option<Zeroizing<String>>, SecretError>;
    /// Stores (or replaces) the secret.
    fn set(&self, profile: &str, api_key: &str, secret: &str) -> Result<(), SecretError>;
    /// Removes the secret; removing a missing one is not an error.
    fn delete(&self, profile: &str, api_key: &str) -> Result<(), SecretError>;
    /// Why secrets are kept for this run only (no keyring), once that is known.
    fn unavailable(&self) -> Option<String> {
        None
    }
}

/// The OS keyring (Secret Service on Linux), through the `keyring` crate.
///
/// Safe to call from any thread; see the module docs about tokio.
pub struct KeyringStore {
    builder: Box<CredentialBuilder>,
}

impl fmt::Debug for KeyringStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyringStore")
            .field("service", &SERVICE)
            .finish_non_exhaustive()
    }
}

impl KeyringStore {
    /// The platform's keyring. Fails with [`SecretError::Unavailable`] when this build has no
    /// persistent keyring for the platform (keyring's in-memory mock would silently lose the
    /// secret). Whether a Secret Service is actually running shows on the first call.
    pub fn new() -> Result<Self, SecretError> {
        let builder = keyring::default::default_credential_builder();
        match builder.persistence() {
            CredentialPersistence::EntryOnly | CredentialPersistence::ProcessOnly => {
                Err(SecretError::Unavailable(
                    "this build of paydesk has no OS keyring for this platform".to_owned(),
                ))
            }
            _ => Ok(Self { builder }),
        }
    }

    fn entry(&self, user: &str) -> Result<keyring::Entry, SecretError> {
        self.builder
            .build(None, SERVICE, user)
            .map(keyring::Entry::new_with_credential)
            .map_err(|e| map_error(e, user))
    }
}

/// Runs `f` on the current thread, or on a scoped plain thread when the current thread is
/// inside a tokio runtime (where keyring's blocking calls would panic).
fn off_runtime<T: Send>(
    f: impl FnOnce() -> Result<T, SecretError> + Send,
) -> Result<T, SecretError> {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|s| {
        s.spawn(f).join().unwrap_or_else(|_| {
            Err(SecretError::Unavailable(
                "the keyring call failed unexpectedly (its thread panicked)".to_owned(),
            ))
        })
    })
}

/// Maps a keyring error to ours, dropping (and wiping) any secret bytes it carries.
fn map_error(e: keyring::Error, user: &str) -> SecretError {
    match e {
        keyring::Error::PlatformFailure(inner) | keyring::Error::NoStorageAccess(inner) => {
            SecretError::Unavailable(format!(
                "{inner} (is a Secret Service such as gnome-keyring running and unlocked?)"
            ))
        }
        keyring::Error::BadEncoding(bytes) => {
            drop(Zeroizing::new(bytes));
            SecretError::NotText {
                user: user.to_owned(),
            }
        }
        keyring::Error::Ambiguous(items) => SecretError::Ambiguous {
            user: user.to_owned(),
            count: items.len(),
        },
        keyring::Error::TooLong(attr, limit) => SecretError::BadEntry {
            user: user.to_owned(),
            reason: format!("{attr} is longer than {limit}"),
        },
        keyring::Error::Invalid(attr, reason) => SecretError::BadEntry {
            user: user.to_owned(),
            reason: format!("{attr}: {reason}"),
        },
        // `NoEntry` is handled by the callers; anything newer is reported as it comes.
        other => SecretError::Unavailable(other.to_string()),
    }
}

impl SecretStore for KeyringStore {
    fn get(&self, profile: &str, api_key: &str) -> Result<Option<Zeroizing<String>>, SecretError> {
        let user = keyring_user(profile, api_key);
        off_runtime(|| match self.entry(&user)?.get_password() {
            Ok(secret) => Ok(Some(Zeroizing::new(secret))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(map_error(e, &user)),
        })
    }

    fn set(&self, profile: &str, api_key: &str, secret: &str) -> Result<(), SecretError> {
        if secret.is_empty() {
            return Err(SecretError::Empty);
        }
        let user = keyring_user(profile, api_key);
        off_runtime(|| {
            self.entry(&user)?
                .set_password(secret)
                .map_err(|e| map_error(e, &user))
        })
    }

    fn delete(&self, profile: &str, api_key: &str) -> Result<(), SecretError> {
        let user = keyring_user(profile, api_key);
        off_runtime(|| match self.entry(&user)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(map_error(e, &user)),
        })
    }
}

/// Secrets kept in this process's memory only: the "this run only" store when no keyring is
/// available (docs/design.md §3), and the fake in tests. Values are wiped when dropped.
#[derive(Default)]
pub struct MemoryStore {
    secrets: Mutex<HashMap<String, Zeroizing<String>>>,
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.secrets.lock().map_or(0, |m| m.len());
        f.debug_struct("MemoryStore")
            .field("entries", &count)
            .finish_non_exhaustive()
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Zeroizing<String>>> {
        // A panic while holding the lock cannot leave the map half-updated (each operation is
        // one insert/remove/clone), so a poisoned lock is still safe to use.
        self.secrets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl SecretStore for MemoryStore {
    fn get(&self, profile: &str, api_key: &str) -> Result<Option<Zeroizing<String>>, SecretError> {
        Ok(self.map().get(&keyring_user(profile, api_key)).cloned())
    }

    fn set(&self, profile: &str, api_key: &str, secret: &str) -> Result<(), SecretError> {
        if secret.is_empty() {
            return Err(SecretError::Empty);
        }
        self.map().insert(
            keyring_user(profile, api_key),
            Zeroizing::new(secret.to_owned()),
        );
        Ok(())
    }

    fn delete(&self, profile: &str, api_key: &str) -> Result<(), SecretError> {
        self.map().remove(&keyring_user(profile, api_key));
        Ok(())
    }
}

/// Where a resolved secret came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretSource {
    /// The `PAYDESK_API_SECRET` environment variable.
    Environment,
    /// The secret store (keyring or memory).
    Store,
}

/// An API secret ready to sign with. `Debug` shows only where it came from.
#[derive(Debug)]
pub struct ResolvedSecret {
    /// The secret itself.
    pub secret: Redacted<Zeroizing<String>>,
    /// Where it came from.
    pub source: SecretSource,
}

/// The secret for (profile, API key): the `PAYDESK_API_SECRET` value first (passed in by the
/// caller, who reads the environment; an empty value counts as unset), then the store.
/// `Ok(None)` when neither has one. The store is not asked when the environment answers, so
/// scripts and CI need no keyring.
pub fn resolve_secret(
    env_value: Option<&str>,
    store: &dyn SecretStore,
    profile: &str,
    api_key: &str,
) -> Result<Option<ResolvedSecret>, SecretError> {
    if let Some(value) = env_value.filter(|v| !v.is_empty()) {
        return Ok(Some(ResolvedSecret {
            secret: Redacted(Zeroizing::new(value.to_owned())),
            source: SecretSource::Environment,
        }));
    }
    Ok(store.get(profile, api_key)?.map(|secret| ResolvedSecret {
        secret: Redacted(secret),
        source: SecretSource::Store,
    }))
}

/// What an [`OsSecrets`] does when the platform has no usable keyring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WithoutKeyring {
    /// Every call fails with [`SecretError::Unavailable`] (the CLI: a secret kept in the
    /// memory of a process that ends with the command would be lost without a word).
    Refuse,
    /// Secrets are kept in this run's memory and the reason is remembered (the app: the
    /// settings say "no keyring available" and the secret lasts until the app closes).
    ThisRunOnly,
}

/// The secret store every paydesk front end opens: the OS keyring, and when there is none,
/// what [`WithoutKeyring`] says. Never a file.
#[derive(Debug)]
pub struct OsSecrets {
    keyring: Option<KeyringStore>,
    without: WithoutKeyring,
    session: MemoryStore,
    unavailable: Mutex<Option<String>>,
}

impl OsSecrets {
    /// The platform keyring, if this build has one; `without` decides what happens when there
    /// is none (now, or when a call finds the Secret Service gone).
    pub fn open(without: WithoutKeyring) -> Self {
        match KeyringStore::new() {
            Ok(k) => Self::with(Some(k), without),
            Err(e) => {
                let s = Self::with(None, without);
                s.note_unavailable(&e);
                s
            }
        }
    }

    /// A store with no keyring behind it (tests, or a caller that knows there is none).
    pub fn without_keyring(without: WithoutKeyring, reason: &str) -> Self {
        let s = Self::with(None, without);
        *s.reason_slot() = Some(reason.to_owned());
        s
    }

    fn with(keyring: Option<KeyringStore>, without: WithoutKeyring) -> Self {
        Self {
            keyring,
            without,
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
        let reason = match e {
            SecretError::Unavailable(why) => why.clone(),
            other => other.to_string(),
        };
        *self.reason_slot() = Some(reason);
    }

    /// The store to use now that the keyring is out: this run's memory, or a refusal.
    fn fallback(&self) -> Result<&MemoryStore, SecretError> {
        match self.without {
            WithoutKeyring::ThisRunOnly => Ok(&self.session),
            WithoutKeyring::Refuse => Err(SecretError::Unavailable(
                self.unavailable()
                    .unwrap_or_else(|| "no keyring".to_owned()),
            )),
        }
    }

    /// `call` on the keyring: `None` when there is no keyring or it was found unavailable
    /// (the reason is kept), so the caller turns to [`Self::fallback`].
    fn through<T>(
        &self,
        call: impl FnOnce(&dyn SecretStore) -> Result<T, SecretError>,
    ) -> Result<Option<T>, SecretError> {
        let Some(k) = &self.keyring else {
            return Ok(None);
        };
        match call(k) {
            Ok(v) => Ok(Some(v)),
            Err(e @ SecretError::Unavailable(_)) => {
                self.note_unavailable(&e);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

impl SecretStore for OsSecrets {
    fn get(&self, profile: &str, api_key: &str) -> Result<Option<Zeroizing<String>>, SecretError> {
        match self.through(|k| k.get(profile, api_key))? {
            Some(Some(s)) => Ok(Some(s)),
            // Found nothing in a working keyring: a secret of this run may still be in memory.
            Some(None) if self.without == WithoutKeyring::ThisRunOnly => {
                self.session.get(profile, api_key)
            }
            Some(None) => Ok(None),
            None => self.fallback()?.get(profile, api_key),
        }
    }

    fn set(&self, profile: &str, api_key: &str, secret: &str) -> Result<(), SecretError> {
        match self.through(|k| k.set(profile, api_key, secret))? {
            Some(()) => Ok(()),
            None => self.fallback()?.set(profile, api_key, secret),
        }
    }

    fn delete(&self, profile: &str, api_key: &str) -> Result<(), SecretError> {
        let in_keyring = self.through(|k| k.delete(profile, api_key))?;
        match self.fallback() {
            Ok(memory) => memory.delete(profile, api_key),
            Err(_) if in_keyring.is_some() => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn unavailable(&self) -> Option<String> {
        self.reason_slot().clone()
    }
}

/// Reads a secret variable (`PAYDESK_API_SECRET`, `PAYDESK_STAFF_PIN`,
/// `PAYDESK_SHOP_PASSWORD`) once and removes it from
/// this process's environment: every process paydesk starts (the browser or mail client through
/// `xdg-open`, a print command) gets a copy of the environment, and none of them needs it. On Linux its bytes
/// are also overwritten where the kernel shows them (`/proc/PID/environ` reads the block the
/// process started with, which removing the variable leaves as it was).
///
/// # Safety
///
/// Changing the environment is unsound while another thread may read it: call it before any
/// thread is started (the first statements of `main`).
#[allow(unsafe_code)]
pub unsafe fn take_env_secret(name: &str) -> EnvSecret {
    let secret = EnvSecret::from_var(name);
    #[cfg(target_os = "linux")]
    wipe_original_value(name);
    // SAFETY: no other thread exists yet (this function's contract).
    unsafe { std::env::remove_var(name) };
    secret
}

/// Overwrites with NUL bytes, in place, the value of every `name=value` entry of the C
/// environment: the strings the process started with, which `/proc/PID/environ` shows for the
/// process's whole life. The entry then reads `name=` until it is removed.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn wipe_original_value(name: &str) {
    unsafe extern "C" {
        static environ: *const *mut std::ffi::c_char;
    }
    // SAFETY: as in `take_env_secret`, no other thread exists yet (its caller's contract), so nothing reads or changes
    // the environment meanwhile. `environ` is libc's NULL-terminated array of pointers to
    // NUL-terminated strings (NULL itself when the environment is empty); each string is
    // writable memory owned by the process (the initial stack block, or libc's copy). Only
    // bytes before each string's terminating NUL are written, so every string stays a valid C
    // string and every pointer stays valid.
    unsafe {
        let mut entry = environ;
        while !entry.is_null() && !(*entry).is_null() {
            // The borrow of the string ends before it is written.
            let value_len = {
                let text = std::ffi::CStr::from_ptr(*entry).to_bytes();
                let ours = text.len() > name.len()
                    && text.starts_with(name.as_bytes())
                    && text[name.len()] == b'=';
                ours.then(|| text.len() - name.len() - 1)
            };
            if let Some(len) = value_len {
                std::ptr::write_bytes((*entry).add(name.len() + 1), 0, len);
            }
            entry = entry.add(1);
        }
    }
}

#[cfg(all(test, unix))]
mod env_tests {
    use std::process::Command;

    use super::*;

    /// Set by the test below for the run of this binary it starts: the secret to expect.
    const EXPECT: &str = "PAYDESK_TEST_EXPECT_SECRET";

    /// `take_env_secret` is checked in a fresh run of this test binary started with the
    /// secret in its environment, as a real start would be: changing the environment of the
    /// test runner itself, whose other tests run on other threads, is what the SAFETY note
    /// rules out.
    #[test]
    fn the_secret_is_read_once_and_nothing_paydesk_starts_inherits_it() {
        let exe = std::env::current_exe().expect("the test binary's path");
        let out = Command::new(exe)
            .args([
                "--exact",
                "secrets::env_tests::started_with_the_secret_in_the_environment",
                "--include-ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SECRET_ENV, "sk_test_only_for_this_check")
            .env(EXPECT, "sk_test_only_for_this_check")
            .output()
            .expect("the test binary runs again");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(
            stdout.contains("child saw: <absent>") && stdout.contains("1 passed"),
            "the check ran: {stdout}"
        );
    }

    #[test]
    #[ignore = "run by the test above, with the secret in its environment"]
    fn started_with_the_secret_in_the_environment() {
        let Ok(expected) = std::env::var(EXPECT) else {
            return;
        };
        // SAFETY: this run of the test binary runs this one test on one thread
        // (`--test-threads=1`), and the harness reads no variable meanwhile.
        #[allow(unsafe_code)]
        let secret = unsafe { take_env_secret(SECRET_ENV) };
        assert_eq!(
            secret.value().as_deref().map(String::as_str),
            Some(expected.as_str()),
            "the secret is still there for the app and the CLI"
        );
        assert!(std::env::var_os(SECRET_ENV).is_none());
        let child = Command::new("sh")
            .args(["-c", "printf '%s' \"${PAYDESK_API_SECRET-<absent>}\""])
            .output()
            .expect("sh runs");
        let seen = String::from_utf8_lossy(&child.stdout);
        println!("child saw: {seen}");
        assert_eq!(seen, "<absent>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store that has no keyring behind it, to check that errors pass through.
    fn no_keyring() -> OsSecrets {
        OsSecrets::without_keyring(WithoutKeyring::Refuse, "no D-Bus session")
    }

    #[test]
    fn the_environment_secret_is_redacted_in_debug_and_empty_is_none() {
        let set = EnvSecret::new(Some(Zeroizing::new("sk_live_visible".to_owned())));
        assert_eq!(format!("{set:?}"), "EnvSecret(<redacted>)");
        assert_eq!(
            set.value().as_deref().map(String::as_str),
            Some("sk_live_visible")
        );
        let empty = EnvSecret::new(Some(Zeroizing::new(String::new())));
        assert_eq!(format!("{empty:?}"), "EnvSecret(none)");
        assert!(empty.value().is_none());
    }

    #[test]
    fn memory_store_keeps_one_secret_per_profile_and_key() {
        let s = MemoryStore::new();
        s.set("shop", "key1", "s3cret-one").unwrap();
        s.set("shop", "key2", "s3cret-two").unwrap();
        s.set("other", "key1", "s3cret-three").unwrap();
        assert_eq!(
            s.get("shop", "key1").unwrap().unwrap().as_str(),
            "s3cret-one"
        );
        assert_eq!(
            s.get("shop", "key2").unwrap().unwrap().as_str(),
            "s3cret-two"
        );
        assert_eq!(
            s.get("other", "key1").unwrap().unwrap().as_str(),
            "s3cret-three"
        );
        s.set("shop", "key1", "replaced").unwrap();
        assert_eq!(s.get("shop", "key1").unwrap().unwrap().as_str(), "replaced");
        s.delete("shop", "key1").unwrap();
        assert!(s.get("shop", "key1").unwrap().is_none());
        s.delete("shop", "key1").unwrap();
        assert!(matches!(s.set("shop", "k", ""), Err(SecretError::Empty)));
    }

    #[test]
    fn resolution_order_is_environment_then_store() {
        type Case<'a> = (
            Option<&'a str>,
            &'a dyn SecretStore,
            Option<(&'a str, SecretSource)>,
        );
        let store = MemoryStore::new();
        store.set("shop", "key1", "from-keyring").unwrap();
        let table: [Case<'_>; 6] = [
            (
                Some("from-env"),
                &store,
                Some(("from-env", SecretSource::Environment)),
            ),
            (None, &store, Some(("from-keyring", SecretSource::Store))),
            (
                Some(""),
                &store,
                Some(("from-keyring", SecretSource::Store)),
            ),
            // The environment answers without touching an unusable keyring.
            (
                Some("from-env"),
                &no_keyring(),
                Some(("from-env", SecretSource::Environment)),
            ),
            (None, &MemoryStore::new(), None),
            (Some(""), &MemoryStore::new(), None),
        ];
        for (env, s, want) in table {
            let got = resolve_secret(env, s, "shop", "key1").unwrap();
            let got = got.as_ref().map(|r| (r.secret.as_str(), r.source));
            assert_eq!(got, want, "env {env:?}");
        }
        let err = resolve_secret(None, &no_keyring(), "shop", "key1").unwrap_err();
        assert_eq!(err.to_string(), "no keyring available: no D-Bus session");
    }

    #[test]
    fn debug_never_shows_a_secret() {
        let store = MemoryStore::new();
        store.set("shop", "key1", "hunter2-very-secret").unwrap();
        let resolved = resolve_secret(None, &store, "shop", "key1")
            .unwrap()
            .unwrap();
        for text in [format!("{store:?}"), format!("{resolved:?}")] {
            assert!(!text.contains("hunter2"), "{text}");
        }
        assert_eq!(
            format!("{resolved:?}"),
            "ResolvedSecret { secret: <redacted>, source: Store }"
        );
    }

    #[test]
    fn keyring_errors_never_carry_the_secret_bytes() {
        let e = map_error(
            keyring::Error::BadEncoding(b"hunter2\xff".to_vec()),
            "shop:key1",
        );
        let text = format!("{e} {e:?}");
        assert!(!text.contains("hunter2"), "{text}");
        assert!(matches!(e, SecretError::NotText { .. }));
        let e = map_error(
            keyring::Error::NoStorageAccess("locked".into()),
            "shop:key1",
        );
        assert!(
            e.to_string().starts_with("no keyring available: locked"),
            "{e}"
        );
    }

    #[test]
    fn keyring_user_joins_profile_and_key() {
        assert_eq!(keyring_user("shop", "pk_live_1"), "shop:pk_live_1");
    }
    #[test]
    fn without_a_keyring_secrets_live_in_memory_and_the_reason_is_kept() {
        let s = OsSecrets::without_keyring(WithoutKeyring::ThisRunOnly, "test");
        assert_eq!(s.get("shop", "pk_1").unwrap(), None);
        s.set("shop", "pk_1", "sk_live_x").unwrap();
        assert_eq!(
            s.get("shop", "pk_1")
                .unwrap()
                .as_deref()
                .map(String::as_str),
            Some("sk_live_x")
        );
        assert_eq!(s.unavailable().as_deref(), Some("test"));
        s.delete("shop", "pk_1").unwrap();
        assert_eq!(s.get("shop", "pk_1").unwrap(), None);
        assert!(!format!("{s:?}").contains("sk_live_x"));
    }

    #[test]
    fn refusing_without_a_keyring_keeps_nothing_anywhere() {
        let s = no_keyring();
        for e in [
            s.set("shop", "pk_1", "sk_live_x").unwrap_err(),
            s.get("shop", "pk_1").unwrap_err(),
            s.delete("shop", "pk_1").unwrap_err(),
        ] {
            assert!(matches!(e, SecretError::Unavailable(_)), "{e}");
        }
    }
}
