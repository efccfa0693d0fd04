//! Opening the store: the durability settings the journal relies on (read back with PRAGMAs),
//! the private data folder, the rows every install has, and the data-directory override.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a failed unwrap is a failed test with its location"
)]

use paydesk::store::{DB_FILE, Pragmas, SANDBOX_PROFILE, Store, data_dir_from};

#[test]
fn a_file_store_is_wal_with_full_sync_foreign_keys_and_a_busy_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("nested/data")).unwrap();
    assert_eq!(
        store.pragmas().unwrap(),
        Pragmas {
            journal_mode: "wal".into(),
            synchronous: 2,
            foreign_keys: 1,
            busy_timeout_ms: 5000,
        }
    );
    assert_eq!(
        store.path(),
        Some(dir.path().join("nested/data").join(DB_FILE).as_path())
    );
    // A second connection to the same file gets the same settings.
    let second = Store::open(&dir.path().join("nested/data")).unwrap();
    assert_eq!(second.pragmas().unwrap(), store.pragmas().unwrap());
}

#[test]
fn an_in_memory_store_keeps_the_other_settings() {
    let p = Store::open_in_memory().unwrap().pragmas().unwrap();
    assert_eq!(p.journal_mode, "memory");
    assert_eq!((p.synchronous, p.foreign_keys), (2, 1));
}

#[cfg(unix)]
#[test]
fn the_data_folder_and_file_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("paydesk");
    drop(Store::open(&data).unwrap());
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join(DB_FILE)), 0o600);
}

#[test]
fn every_install_has_the_sandbox_profile_and_a_lasting_device_id() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let profiles = store.profiles().list().unwrap();
    assert_eq!(profiles.len(), 1);
    let sandbox = &profiles[0];
    assert_eq!(sandbox.name, SANDBOX_PROFILE);
    assert!(sandbox.is_sandbox);
    assert_eq!(sandbox.base_url, "");
    assert_eq!(sandbox.order_prefix, "PD");
    let device = store.profiles().device_id().unwrap();
    assert_eq!(device.len(), 4);
    drop(store);
    let reopened = Store::open(dir.path()).unwrap();
    assert_eq!(reopened.profiles().device_id().unwrap(), device);
    assert_eq!(reopened.profiles().list().unwrap().len(), 1);
}

#[test]
fn an_unusable_data_dir_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, b"x").unwrap();
    let err = Store::open(&file.join("data")).unwrap_err();
    assert!(err.to_string().starts_with("cannot use "), "{err}");
}

#[test]
fn the_data_dir_override_is_taken_as_given() {
    assert_eq!(
        data_dir_from(Some("/srv/paydesk".into())).unwrap(),
        std::path::PathBuf::from("/srv/paydesk")
    );
}

#[test]
fn a_version_2_file_gains_the_barcode_column_and_keeps_its_catalog() {
    use paydesk::store::migrations::{latest_version, migrate_to, schema_version};
    let dir = tempfile::tempdir().unwrap();
    {
        let mut conn = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
        assert_eq!(migrate_to(&mut conn, 2).unwrap(), 2);
        conn.execute(
            "INSERT INTO catalog_variants (id, name, unit_price, currency)
             VALUES ('var_simit', 'Susamlı Simit', '25.00', 'TRY')",
            [],
        )
        .unwrap();
        assert_eq!(schema_version(&conn).unwrap(), 2);
    }
    let mut store = Store::open(dir.path()).unwrap();
    assert_eq!(store.schema_version().unwrap(), latest_version());
    assert!(latest_version() >= 3);
    let list = store.catalog().list().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(
        (list[0].name.as_str(), list[0].barcode.as_ref()),
        ("Susamlı Simit", None)
    );
    let code: paydesk::domain::Barcode = "8690000000005".parse().unwrap();
    store.catalog_set_barcode("var_simit", Some(&code)).unwrap();
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        store.catalog().by_barcode(&code).unwrap().map(|v| v.id),
        Some("var_simit".to_owned())
    );
    drop(store);
    // The lookup goes through the unique index, not a scan of the table.
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
    let plan: String = conn
        .query_row(
            "EXPLAIN QUERY PLAN SELECT id FROM catalog_variants WHERE barcode = '8690000000005'",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("catalog_by_barcode"), "{plan}");
    let err = conn
        .execute(
            "INSERT INTO catalog_variants (id, name, unit_price, currency, barcode)
             VALUES ('other', 'Other', '1', 'TRY', '8690000000005')",
            [],
        )
        .unwrap_err();
    assert!(err.to_string().contains("UNIQUE"), "{err}");
}

/// Migration 5 marks `late` every link stored with a (`created_at`, `id`) older than a link of
/// its own profile stored before it, and only those; the searches that rely on it then return
/// an old file's links newest first, late ones in their place.
#[test]
fn migration_5_marks_the_links_stored_out_of_order_as_late() {
    use paydesk::store::LinkQuery;
    use paydesk::store::migrations::{latest_version, migrate_to};
    let dir = tempfile::tempdir().unwrap();
    // (seq, profile, id, created_at, late after the migration), in the order stored.
    let rows: [(i64, &str, &str, i64, bool); 9] = [
        (1, "shop", "a", 100_000, false),
        (2, "shop", "b", 50_000, true),   // older than a
        (3, "shop", "c", 200_000, false), // newest so far
        (4, "shop", "bb", 200_000, true), // same millisecond as c, lower id
        (5, "shop", "d", 200_000, false), // same millisecond as c, higher id
        (6, "shop", "z", 150_000, true),  // older than c and d
        (7, "other", "x", 10_000, false), // another profile: its own order
        (8, "other", "a", 20_000, false),
        (9, "shop", "e", 300_000, false),
    ];
    {
        let mut conn = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
        assert_eq!(migrate_to(&mut conn, 4).unwrap(), 4);
        for (seq, profile, id, at, _) in rows {
            conn.execute(
                "INSERT INTO links (seq, profile, id, order_number, description, status,
                     created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 'kazak mont', 'PENDING', ?5, ?5)",
                rusqlite::params![seq, profile, id, format!("PD-{seq}"), at],
            )
            .unwrap();
        }
    }
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.schema_version().unwrap(), latest_version());
    drop(store);
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
    let late: Vec<(String, bool)> = conn
        .prepare("SELECT profile || '/' || id, late FROM links ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let expected: Vec<(String, bool)> = rows
        .iter()
        .map(|(_, p, id, _, late)| (format!("{p}/{id}"), *late))
        .collect();
    assert_eq!(late, expected);
    drop(conn);
    // Word, order-prefix and unfiltered pages all list the shop's links newest first.
    let store = Store::open(dir.path()).unwrap();
    let newest_first = ["e", "d", "c", "bb", "z", "a", "b"];
    for text in [None, Some("kazak"), Some("mont kaz"), Some("PD-")] {
        let page = store
            .history()
            .search_links(
                "shop",
                &LinkQuery {
                    text: text.map(str::to_owned),
                    ..LinkQuery::default()
                },
            )
            .unwrap();
        let ids: Vec<&str> = page.links.iter().map(|l| l.link.id.as_str()).collect();
        assert_eq!(ids, newest_first, "{text:?}");
    }
}
