//! Library-level services for a test server, set up the way the CLI and the app set them up:
//! the demo key in a profile, the demo secret given as the environment secret.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use paydesk::clock::SystemClock;
use paydesk::domain::Link;
use paydesk::sandbox::{DEMO_API_KEY, DEMO_API_SECRET};
use paydesk::secrets::{MemoryStore, SecretStore};
use paydesk::service::{Desk, Services};
use paydesk::store::{JournalKey, JournalRow, LinkQuery, Profile, Store};
use zeroize::Zeroizing;

use super::policy::FAST_POLICY;

/// The profile `name` for the server at `base_url`, with the demo key.
pub fn demo_profile(name: &str, base_url: &str) -> Profile {
    Profile::new(name, base_url, DEMO_API_KEY)
}

/// Services over `store` for profile `test` pointing at `base_url` (the demo secret given as
/// the environment secret, nothing in the keyring), with the fast retry policy and the given
/// total timeout. A store reopened from its file keeps the profile it already has.
pub fn library_services(store: Store, base_url: &str, total_timeout: Duration) -> Services {
    let mut store = store;
    let known = store
        .profiles()
        .get("test")
        .expect("the profiles read")
        .is_some_and(|p| p.base_url == base_url);
    if !known {
        store
            .profile_add(&demo_profile("test", base_url), chrono::Utc::now())
            .expect("the profile is stored");
    }
    Services::with_store(
        store,
        None,
        Arc::new(MemoryStore::new()),
        Arc::new(SystemClock),
        Some(Zeroizing::new(DEMO_API_SECRET.to_owned())),
    )
    .with_retry_policy(FAST_POLICY)
    .with_timeouts(Duration::from_secs(2), total_timeout)
}

/// Services opened on the data folder `dir` as the front ends open them (the system clock, the
/// demo secret as the environment secret, `secrets` as the keyring, the default retry policy),
/// with profile `profile` for the server at `base_url`.
pub fn open_on_disk(
    dir: &Path,
    secrets: Arc<dyn SecretStore>,
    profile: &str,
    base_url: &str,
) -> Services {
    let services = Services::open(
        dir,
        secrets,
        Arc::new(SystemClock),
        Some(Zeroizing::new(DEMO_API_SECRET.to_owned())),
    )
    .expect("the store opens");
    services
        .inspect(|s| s.profile_add(&demo_profile(profile, base_url), chrono::Utc::now()))
        .expect("the profile is stored");
    services
}

/// The journal row of the link create for `order` on profile `test`, if there is one.
pub fn create_row(services: &Services, order: &str) -> Option<JournalRow> {
    services
        .inspect(|s| {
            s.journal().get(&JournalKey::new(
                "test",
                "link.create",
                format!("link-{order}"),
            ))
        })
        .expect("the journal reads")
}

/// Every link of the profile in the local history, by order number.
pub fn history_orders(desk: &Desk) -> HashMap<String, Vec<Link>> {
    let mut by_order: HashMap<String, Vec<Link>> = HashMap::new();
    let mut before = None;
    loop {
        let page = desk
            .history(&LinkQuery {
                text: None,
                status: None,
                limit: 500,
                before,
                staff: None,
            })
            .expect("history reads");
        for stored in page.links {
            by_order
                .entry(stored.link.order_number.clone().unwrap_or_default())
                .or_default()
                .push(stored.link);
        }
        match page.next {
            Some(cursor) => before = Some(cursor),
            None => return by_order,
        }
    }
}
