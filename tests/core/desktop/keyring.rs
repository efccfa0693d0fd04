//! The keyring implementation against a real Secret Service (gnome-keyring on a private D-Bus
//! session), not a fake: keyring's own mock loses entries between `Entry` values, so only a
//! real service shows that a secret set by one `KeyringStore` is readable by another, and
//! `secret-tool` shows that it is really in the keyring under the attributes we document.
//!
//! Run by `.ci/keyring-test.sh`, which starts the session and the daemon.

use std::process::Command;

use paydesk::secrets::{KeyringStore, SERVICE, SecretStore, keyring_user};

/// What `secret-tool` finds under keyring's attributes (`service`, `username`), if anything.
fn lookup(user: &str) -> Option<String> {
    let out = Command::new("secret-tool")
        .args(["lookup", "service", SERVICE, "username", user])
        .output()
        .expect("secret-tool runs (apt-get install libsecret-tools)");
    out.status
        .success()
        .then(|| String::from_utf8(out.stdout).expect("the secret is UTF-8"))
}

#[test]
#[ignore = "needs a Secret Service; .ci/keyring-test.sh runs it"]
fn a_secret_set_through_the_keyring_store_is_really_in_the_keyring() {
    let profile = format!("kr-test-{}", std::process::id());
    let api_key = "pk_test_1";
    let user = keyring_user(&profile, api_key);
    let secret = "s3cret-ğüşİ-value";

    let store = KeyringStore::new().expect("this platform has a keyring");
    assert!(store.get(&profile, api_key).unwrap().is_none());
    assert_eq!(lookup(&user), None);

    store.set(&profile, api_key, secret).unwrap();

    // A new store (a new `Entry` underneath) reads it back: it is not held in memory.
    let fresh = KeyringStore::new().unwrap();
    assert_eq!(
        fresh
            .get(&profile, api_key)
            .unwrap()
            .as_deref()
            .map(String::as_str),
        Some(secret)
    );
    assert_eq!(lookup(&user).as_deref(), Some(secret));

    // Setting again replaces the value (one entry, not two).
    store.set(&profile, api_key, "second-secret").unwrap();
    assert_eq!(lookup(&user).as_deref(), Some("second-secret"));
    assert_eq!(
        fresh
            .get(&profile, api_key)
            .unwrap()
            .as_deref()
            .map(String::as_str),
        Some("second-secret")
    );

    // Called from inside a tokio runtime (where keyring's blocking call would panic), the
    // store still answers.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let inside = rt.block_on(async { fresh.get(&profile, api_key) }).unwrap();
    assert_eq!(inside.as_deref().map(String::as_str), Some("second-secret"));

    fresh.delete(&profile, api_key).unwrap();
    assert_eq!(lookup(&user), None);
    assert!(store.get(&profile, api_key).unwrap().is_none());
    // Deleting what is not there is fine.
    store.delete(&profile, api_key).unwrap();
}
