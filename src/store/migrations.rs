//! The schema, as a list of versioned steps.
//!
//! Why versioned steps: a file written by an older paydesk must open in a newer one with its
//! history and pending journal intact. `PRAGMA user_version` records how many steps a file has
//! had; opening applies the missing ones in order, each in its own `BEGIN IMMEDIATE`
//! transaction together with the version bump, so a crash mid-way leaves a file at a clean
//! earlier version, and two processes opening the same old file at once do not apply a step
//! twice. Steps are append-only: never edit a released step, add a new one.

use rusqlite::{Connection, TransactionBehavior};

use super::StoreError;

/// Version 1: profiles, order counters, the journal, link history, saved cards, the catalog.
const V1: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TABLE profiles (
    name         TEXT PRIMARY KEY,
    base_url     TEXT NOT NULL,
    api_key      TEXT NOT NULL,
    amount_limit TEXT,
    max_items    INTEGER,
    order_prefix TEXT NOT NULL,
    is_sandbox   INTEGER NOT NULL DEFAULT 0 CHECK (is_sandbox IN (0, 1)),
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
) STRICT;

CREATE TABLE order_counters (
    profile TEXT NOT NULL REFERENCES profiles (name) ON DELETE CASCADE,
    day     TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    PRIMARY KEY (profile, day)
) STRICT, WITHOUT ROWID;

CREATE TABLE journal (
    id           INTEGER PRIMARY KEY,
    profile      TEXT NOT NULL,
    endpoint     TEXT NOT NULL,
    idem_key     TEXT NOT NULL,
    body         BLOB NOT NULL,
    order_number TEXT,
    amount       TEXT,
    currency     TEXT,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    state        TEXT NOT NULL CHECK (state IN
                   ('pending', 'completed', 'failed', 'conflict', 'stale', 'abandoned')),
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    link_id      TEXT,
    UNIQUE (profile, endpoint, idem_key)
) STRICT;
CREATE INDEX journal_by_state ON journal (state, profile, created_at);
CREATE INDEX journal_by_order ON journal (profile, order_number);

CREATE TABLE links (
    seq                    INTEGER PRIMARY KEY,
    profile                TEXT NOT NULL,
    id                     TEXT NOT NULL,
    reference_number       TEXT COLLATE NOCASE,
    order_number           TEXT COLLATE NOCASE,
    payment_url            TEXT,
    transaction_ref        TEXT,
    amount                 TEXT,
    paid_amount            TEXT,
    remaining_amount       TEXT,
    currency               TEXT,
    status                 TEXT,
    description            TEXT,
    allow_partial_payment  INTEGER,
    enable_installment     INTEGER,
    available_installments TEXT,
    email                  TEXT,
    phone_country_code     TEXT,
    phone_number           TEXT,
    expiry_date            TEXT,
    completed_date         TEXT,
    created_date           TEXT,
    created_at             INTEGER NOT NULL,
    updated_at             INTEGER NOT NULL,
    UNIQUE (profile, id)
) STRICT;
-- The time indexes also cover the prefix columns: a search that walks them newest first
-- tests each row without reading it.
CREATE INDEX links_recent       ON links (profile, created_at, id, order_number, reference_number);
-- Covering (created_at, id, status too): a search by prefix ranks its matches without
-- reading the rows.
CREATE INDEX links_by_order     ON links (profile, order_number, created_at, id, status);
CREATE INDEX links_by_reference ON links (profile, reference_number, created_at, id, status);
CREATE INDEX links_by_status    ON links (profile, status, created_at, id, order_number,
                                          reference_number);

CREATE TABLE saved_cards (
    profile          TEXT NOT NULL,
    id               TEXT NOT NULL,
    masked_pan       TEXT,
    alias            TEXT,
    card_holder_name TEXT,
    brand            TEXT,
    bank_name        TEXT,
    card_type        TEXT,
    expiry_month     TEXT,
    expiry_year      TEXT,
    usage            TEXT,
    status           TEXT,
    is_default       INTEGER,
    customer_id      TEXT,
    created_date     TEXT,
    stored_at        INTEGER NOT NULL,
    PRIMARY KEY (profile, id)
) STRICT;

CREATE TABLE catalog_variants (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    unit_price TEXT NOT NULL,
    currency   TEXT NOT NULL
) STRICT;
";

/// Version 2: word search in link descriptions (FTS5 with prefix indexes for 1 to 3
/// characters, kept in step by triggers; existing links are indexed by the `rebuild`).
const V2: &str = "
CREATE VIRTUAL TABLE links_fts USING fts5(
    description,
    content = 'links',
    content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '1 2 3'
);
INSERT INTO links_fts (links_fts) VALUES ('rebuild');
CREATE TRIGGER links_fts_insert AFTER INSERT ON links BEGIN
    INSERT INTO links_fts (rowid, description) VALUES (new.seq, new.description);
END;
CREATE TRIGGER links_fts_delete AFTER DELETE ON links BEGIN
    INSERT INTO links_fts (links_fts, rowid, description) VALUES ('delete', old.seq, old.description);
END;
CREATE TRIGGER links_fts_update AFTER UPDATE OF description ON links
WHEN old.description IS NOT new.description BEGIN
    INSERT INTO links_fts (links_fts, rowid, description) VALUES ('delete', old.seq, old.description);
    INSERT INTO links_fts (rowid, description) VALUES (new.seq, new.description);
END;
";

/// Version 3: an optional barcode per catalog variant (canonical digits, see
/// `domain::barcode`). The partial unique index keeps a barcode on one variant at most and is
/// the index a lookup by barcode uses; variants without one are not in it.
const V3: &str = "
ALTER TABLE catalog_variants ADD COLUMN barcode TEXT;
CREATE UNIQUE INDEX catalog_by_barcode ON catalog_variants (barcode) WHERE barcode IS NOT NULL;
";

/// Version 4: the day report's inputs. `cancelled_at` records a cancel made through paydesk
/// (the server answers a cancel with EXPIRED, so the status alone cannot tell); `link_items`
/// keeps the items of each link this install created, taken from the journaled request body
/// when the link completes (the link answer carries no items).
const V4: &str = "
ALTER TABLE links ADD COLUMN cancelled_at INTEGER;
CREATE TABLE link_items (
    profile    TEXT NOT NULL,
    link_id    TEXT NOT NULL,
    position   INTEGER NOT NULL,
    name       TEXT,
    variant_id TEXT,
    unit_price TEXT,
    quantity   INTEGER NOT NULL,
    PRIMARY KEY (profile, link_id, position)
) STRICT, WITHOUT ROWID;
";

/// Version 5: history search that stops at the page.
///
/// `late` marks a link stored with a (`created_at`, `id`) older than a link of its profile
/// stored before it (a clock set back, an import of old links). Every other link is newer than
/// every link stored before it, so among them the `seq` order *is* the history order, and a
/// full-text index whose rowid is `seq`, read by descending rowid, yields the newest matches
/// first and stops after a page. The few late links are found through their own partial index.
///
/// `links_words` (the description) and `links_codes` (order and reference numbers) replace
/// `links_fts`: contentless, each with a `tags` column holding the profile (`p` + hex), the
/// status (`s` + hex) and `late`, so a profile, a status and "not late" are parts of the
/// full-text query instead of a row lookup per match. Prefix indexes up to 6 characters make a
/// typed word or code part one ready list, read newest first without merging.
const V5: &str = "
DROP TRIGGER links_fts_insert;
DROP TRIGGER links_fts_delete;
DROP TRIGGER links_fts_update;
DROP TABLE links_fts;
ALTER TABLE links ADD COLUMN late INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1));
UPDATE links SET late = 1 WHERE seq IN (
    SELECT seq FROM (
        SELECT seq, printf('%020d %s', created_at, id) AS k,
            max(printf('%020d %s', created_at, id)) OVER (
                PARTITION BY profile ORDER BY seq
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
        FROM links)
    WHERE k < before);
CREATE INDEX links_late ON links (profile, created_at, id) WHERE late = 1;
CREATE VIRTUAL TABLE links_words USING fts5(
    description, tags,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '1 2 3 4 5 6'
);
CREATE VIRTUAL TABLE links_codes USING fts5(
    order_number, reference_number, tags,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '1 2 3 4 5 6'
);
CREATE VIEW links_tags AS SELECT seq, description, order_number, reference_number,
    'p' || hex(profile) || ' s' || hex(coalesce(status, '')) || iif(late, ' late', '') AS tags
    FROM links;
INSERT INTO links_words (rowid, description, tags) SELECT seq, description, tags FROM links_tags;
INSERT INTO links_codes (rowid, order_number, reference_number, tags)
    SELECT seq, order_number, reference_number, tags FROM links_tags;
CREATE TRIGGER links_search_insert AFTER INSERT ON links BEGIN
    INSERT INTO links_words (rowid, description, tags)
        SELECT seq, description, tags FROM links_tags WHERE seq = new.seq;
    INSERT INTO links_codes (rowid, order_number, reference_number, tags)
        SELECT seq, order_number, reference_number, tags FROM links_tags WHERE seq = new.seq;
END;
CREATE TRIGGER links_search_delete AFTER DELETE ON links BEGIN
    DELETE FROM links_words WHERE rowid = old.seq;
    DELETE FROM links_codes WHERE rowid = old.seq;
END;
CREATE TRIGGER links_search_update AFTER UPDATE OF description, order_number, reference_number,
    status ON links
WHEN old.description IS NOT new.description OR old.order_number IS NOT new.order_number
    OR old.reference_number IS NOT new.reference_number OR old.status IS NOT new.status BEGIN
    DELETE FROM links_words WHERE rowid = old.seq;
    DELETE FROM links_codes WHERE rowid = old.seq;
    INSERT INTO links_words (rowid, description, tags)
        SELECT seq, description, tags FROM links_tags WHERE seq = new.seq;
    INSERT INTO links_codes (rowid, order_number, reference_number, tags)
        SELECT seq, order_number, reference_number, tags FROM links_tags WHERE seq = new.seq;
END;
";

/// The trigger `report_totals_NAME` that marks the kept totals stale after an `EVENT` on
/// `TABLE` (`SQLite`'s triggers name one event each).
macro_rules! marks_totals_stale {
    ($name:literal, $event:literal, $table:literal) => {
        concat!(
            "CREATE TRIGGER report_totals_",
            $name,
            " AFTER ",
            $event,
            " ON ",
            $table,
            " BEGIN\n    UPDATE meta SET value = 'stale' WHERE key = 'report_totals';\nEND;\n"
        )
    };
}

/// Version 6: report totals kept as links are stored (see `store::tallies`), so that a report
/// over a month, or History's totals line over a million links, reads totals instead of every
/// link. Sums are exact decimals as text.
///
/// `meta.report_totals` says whether the totals can be trusted: every write to `links` or
/// `link_items` sets it to `stale` through the triggers below, and paydesk's own writes, which
/// keep the totals as they go, set it back to `fresh` in the same transaction when it was fresh
/// before them. So a write paydesk did not make (an older paydesk still running during an
/// upgrade, a hand edit) leaves it `stale`: reports then read the links until the next open
/// computes the totals again. The step leaves it `stale`, so the first open fills them.
const V6: &str = concat!(
    "
CREATE TABLE report_cells (
    profile    TEXT NOT NULL,
    span       INTEGER NOT NULL,
    bucket     INTEGER NOT NULL,
    currency   TEXT NOT NULL,
    kind       INTEGER NOT NULL,
    status     TEXT NOT NULL,
    at         INTEGER NOT NULL,
    links      INTEGER NOT NULL,
    amount     TEXT NOT NULL,
    paid       TEXT NOT NULL,
    expiry_min INTEGER,
    expiry_max INTEGER,
    by_quarter TEXT,
    PRIMARY KEY (profile, span, bucket, currency, kind, status, at)
) STRICT, WITHOUT ROWID;
CREATE TABLE report_items (
    profile    TEXT NOT NULL,
    span       INTEGER NOT NULL,
    bucket     INTEGER NOT NULL,
    currency   TEXT NOT NULL,
    item       TEXT NOT NULL,
    lines      INTEGER NOT NULL,
    quantity   INTEGER NOT NULL,
    sum        TEXT NOT NULL,
    unpriced   INTEGER NOT NULL,
    variant_id TEXT,
    name       TEXT,
    PRIMARY KEY (profile, span, bucket, currency, item)
) STRICT, WITHOUT ROWID;
INSERT OR REPLACE INTO meta (key, value) VALUES ('report_totals', 'stale');
",
    marks_totals_stale!("links_insert", "INSERT", "links"),
    marks_totals_stale!("links_update", "UPDATE", "links"),
    marks_totals_stale!("links_delete", "DELETE", "links"),
    marks_totals_stale!("items_insert", "INSERT", "link_items"),
    marks_totals_stale!("items_update", "UPDATE", "link_items"),
    marks_totals_stale!("items_delete", "DELETE", "link_items"),
);

/// Version 7: the finished journal rows that still hold their request body, by when they
/// finished, so that `journal_prune` (which clears a body a week after its row finished and
/// keeps the row) finds them without reading every row the journal ever had. Its `WHERE` is the
/// prune's; a cleared body is empty (`x''`), so the row leaves the index.
const V7: &str = "
CREATE INDEX journal_bodies_kept ON journal (updated_at)
    WHERE state IN ('completed', 'failed', 'conflict', 'abandoned') AND length(body) > 0;
";

/// Version 8: staff and the audit record (docs/design.md §7), and the kept report totals by
/// staff member. A staff member's PIN is
/// kept only as an Argon2id hash (a PHC string with its own salt); `misses` and `locked_until`
/// carry the lock-out across restarts. The journal row and the link remember who began the
/// link (`NULL`: before staff existed). The audit table is append-only: triggers refuse an
/// `UPDATE` or `DELETE`, and each row's `hash` chains it to the previous one.
const V8: &str = "
CREATE TABLE staff (
    name         TEXT PRIMARY KEY COLLATE NOCASE,
    role         TEXT NOT NULL CHECK (role IN ('counter', 'manager')),
    pin_hash     TEXT NOT NULL,
    active       INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    misses       INTEGER NOT NULL DEFAULT 0,
    locked_until INTEGER,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
) STRICT;

ALTER TABLE journal ADD COLUMN began_by TEXT;
ALTER TABLE links ADD COLUMN staff TEXT;
CREATE INDEX links_by_staff ON links (profile, staff, created_at, id);

CREATE TABLE audit (
    seq         INTEGER PRIMARY KEY,
    at          INTEGER NOT NULL,
    staff       TEXT,
    approved_by TEXT,
    action      TEXT NOT NULL,
    subject     TEXT NOT NULL,
    prev_hash   TEXT NOT NULL,
    hash        TEXT NOT NULL
) STRICT;
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN
    SELECT RAISE(ABORT, 'the audit record is append-only: rows cannot be changed');
END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN
    SELECT RAISE(ABORT, 'the audit record is append-only: rows cannot be removed');
END;

-- The kept report totals get the staff member as one more part of a cell's key (the day
-- close's table per member), so they are computed again on the next open.
DROP TABLE report_cells;
CREATE TABLE report_cells (
    profile    TEXT NOT NULL,
    span       INTEGER NOT NULL,
    bucket     INTEGER NOT NULL,
    currency   TEXT NOT NULL,
    kind       INTEGER NOT NULL,
    status     TEXT NOT NULL,
    at         INTEGER NOT NULL,
    staff      TEXT NOT NULL,
    links      INTEGER NOT NULL,
    amount     TEXT NOT NULL,
    paid       TEXT NOT NULL,
    expiry_min INTEGER,
    expiry_max INTEGER,
    by_quarter TEXT,
    PRIMARY KEY (profile, span, bucket, currency, kind, status, at, staff)
) STRICT, WITHOUT ROWID;
INSERT OR REPLACE INTO meta (key, value) VALUES ('report_totals', 'stale');
";

/// Step 9: the desk in a shop (docs/design.md §8). One row: the desk's shown name (`NULL`: the
/// host name) and the shop it joined (`NULL`: none), as a URL that never holds a password;
/// when it joined and when it last pushed. The password is in the keyring, never here.
const V9: &str = "
CREATE TABLE shop_desk (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    name         TEXT CHECK (name IS NULL OR length(name) BETWEEN 1 AND 40),
    shop_url     TEXT,
    joined_at    INTEGER,
    last_push_at INTEGER
) STRICT;
INSERT INTO shop_desk (id) VALUES (1);
";

/// Step 10: the shop outbox (docs/design.md §8): one row per change of a link made while the
/// desk has joined a shop, written in the change's transaction, deleted once the shop has it.
/// `AUTOINCREMENT`: a sequence number is never handed out twice, even after deletes.
const V10: &str = "
CREATE TABLE shop_outbox (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    at      INTEGER NOT NULL,
    payload TEXT NOT NULL
) STRICT;
";

/// Step 11: the shop-wide catalog and staff (docs/design.md §8). An outbox row gets a `kind`:
/// `link` (every row before this step), `catalog` (the catalog as it is when pushed: a whole
/// snapshot, no copy kept here), `staff` (a member as changed) and `pin` (a wrong or right PIN
/// tried on this desk, merged into the shop's count); no `CHECK` on it, so a later kind needs
/// no rebuild of the table (the pusher reads only the kinds it knows). `shop_desk` remembers
/// which catalog snapshot of the shop the desk mirrors and the highest staff version it has
/// read.
const V11: &str = "
ALTER TABLE shop_outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'link';
CREATE INDEX shop_outbox_by_kind ON shop_outbox (kind, seq);
ALTER TABLE shop_desk ADD COLUMN catalog_snapshot INTEGER;
ALTER TABLE shop_desk ADD COLUMN staff_version INTEGER;
";

/// Step 12: the mail queue (docs/design.md §"The mail queue"): payment links waiting to be
/// e-mailed, each with the `Message-ID` fixed when it was queued. `to_address` is the only
/// place the payer's whole address is kept, and only until a week after sending (`wiped_at`:
/// when it was replaced by its mask). The partial indexes hold only what the sender and the
/// wipe look for: the unsent rows by due time, and the sent rows not wiped yet.
const V12: &str = "
CREATE TABLE mail_queue (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id  TEXT NOT NULL UNIQUE,
    link_id     TEXT NOT NULL,
    to_address  TEXT NOT NULL,
    subject     TEXT NOT NULL,
    text_body   TEXT NOT NULL,
    html_body   TEXT NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    queued_at   INTEGER NOT NULL,
    next_try_at INTEGER NOT NULL,
    sent_at     INTEGER,
    last_error  TEXT,
    wiped_at    INTEGER
) STRICT;
CREATE INDEX mail_queue_due ON mail_queue (next_try_at, id) WHERE sent_at IS NULL;
CREATE INDEX mail_queue_to_wipe ON mail_queue (sent_at) WHERE sent_at IS NOT NULL AND wiped_at IS NULL;
";

/// Step 13 (issue 30): a message the SMTP server refused permanently (a 5xx) is kept with the
/// server's words and never tried again: `refused_at` says when, and such a row is never due.
const V13: &str = "
ALTER TABLE mail_queue ADD COLUMN refused_at INTEGER;
DROP INDEX mail_queue_due;
CREATE INDEX mail_queue_due ON mail_queue (next_try_at, id)
    WHERE sent_at IS NULL AND refused_at IS NULL;
";

/// Step 14 (issue 30): `mail flush` sends what waits whatever its backoff, but never a message
/// another sender is sending right now: a claim is kept apart from a backoff in `claimed_until`
/// (when the claim ends; cleared by a failed attempt).
const V14: &str = "
ALTER TABLE mail_queue ADD COLUMN claimed_until INTEGER;
";

/// Step 15 (issue 30): a queued message may carry parts beyond its text and HTML: the link's
/// QR code as an inline image (`content_id` set, referenced by the HTML as `cid:`), a receipt's
/// PDF as an attachment (`content_id` NULL), written in the transaction of the queue row and
/// deleted with its address a week after sending. `kind` tells a link's message from a
/// receipt; a receipt queued because this desk heard a link paid (`auto-receipt`) is one per
/// link (the unique partial index), so a second answer saying paid queues nothing.
const V15: &str = "
ALTER TABLE mail_queue ADD COLUMN kind TEXT NOT NULL DEFAULT 'link'
    CHECK (kind IN ('link', 'receipt', 'auto-receipt'));
CREATE UNIQUE INDEX mail_queue_one_auto_receipt ON mail_queue (link_id)
    WHERE kind = 'auto-receipt';
CREATE TABLE mail_parts (
    mail_id      INTEGER NOT NULL REFERENCES mail_queue (id),
    seq          INTEGER NOT NULL,
    name         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    content_id   TEXT,
    bytes        BLOB NOT NULL,
    PRIMARY KEY (mail_id, seq)
) STRICT;
";

/// Step 16 (issue 30): the sends the board shows ("Sent by WhatsApp 10:42 · Ayşe") are read
/// from the audit's `link.send` rows by time, through a partial index of those rows only; and
/// the renewals: one row per link renewed ("Send a new link"), keyed by the profile and the
/// link renewed, so a link is renewed at most once from this file. `order_id` is the new
/// link's order number, `root_order` the order number of the chain's first link and `number`
/// the suffix (`REM-2` renews as `REM-2-2`, number 2; that one as `REM-2-3`); the new link's
/// journal key follows from its order number (`link-{order}`), fixed before the request goes,
/// so a lost answer is retried under the same key; `renewed_as` is the new link's id once the
/// server made it (set by "a link was created").
const V16: &str = "
CREATE INDEX audit_link_sends ON audit (at) WHERE action = 'link.send';
CREATE TABLE renewals (
    profile        TEXT NOT NULL,
    original_id    TEXT NOT NULL,
    original_order TEXT NOT NULL,
    root_order     TEXT NOT NULL,
    number         INTEGER NOT NULL,
    order_id       TEXT NOT NULL,
    renewed_as     TEXT,
    at             INTEGER NOT NULL,
    staff          TEXT,
    PRIMARY KEY (profile, original_id),
    UNIQUE (profile, order_id)
);
CREATE INDEX renewals_by_new_link ON renewals (profile, renewed_as);
";

/// Step 17 (issue 30): the one reminder of a link sent and not paid: which link, by which
/// channel (`e-mail`, `whatsapp`), when and by whom; written in the transaction that queues or
/// records it, so a link is reminded at most once from this file.
const V17: &str = "
CREATE TABLE reminders (
    link_id TEXT PRIMARY KEY,
    channel TEXT NOT NULL CHECK (channel IN ('e-mail', 'whatsapp')),
    at      INTEGER NOT NULL,
    staff   TEXT
) STRICT;
CREATE INDEX reminders_by_time ON reminders (at);
";

/// Every step, in order; step `i` brings a file to version `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16, V17,
];

/// The schema version this build writes.
pub fn latest_version() -> u32 {
    u32::try_from(MIGRATIONS.len()).expect("fewer than 4 billion migrations")
}

/// The file's schema version (`PRAGMA user_version`).
pub fn schema_version(conn: &Connection) -> Result<u32, StoreError> {
    let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    u32::try_from(v).map_err(|_| StoreError::Corrupt {
        what: "schema version",
        value: v.to_string(),
    })
}

/// Brings the file to the latest version; returns how many steps were applied.
pub fn migrate(conn: &mut Connection) -> Result<u32, StoreError> {
    migrate_to(conn, latest_version())
}

/// Brings the file to version `target` (used by tests to make an old file).
pub fn migrate_to(conn: &mut Connection, target: u32) -> Result<u32, StoreError> {
    let found = schema_version(conn)?;
    if found > latest_version() {
        return Err(StoreError::TooNew {
            found,
            known: latest_version(),
        });
    }
    let mut applied = 0;
    for (index, step) in MIGRATIONS.iter().enumerate() {
        let version = u32::try_from(index + 1).expect("few migrations");
        if version > target {
            break;
        }
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Read again under the write lock: another process may have migrated meanwhile.
        if schema_version(&tx)? >= version {
            continue;
        }
        tx.execute_batch(step)?;
        tx.pragma_update(None, "user_version", version)?;
        tx.commit()?;
        applied += 1;
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, StoreError};

    fn table_names(conn: &Connection) -> Vec<String> {
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn an_old_version_file_is_migrated_and_keeps_its_links() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut conn = Connection::open(dir.path().join(crate::store::DB_FILE)).unwrap();
            assert_eq!(migrate_to(&mut conn, 1).unwrap(), 1);
            assert_eq!(schema_version(&conn).unwrap(), 1);
            assert!(!table_names(&conn).contains(&"links_fts".to_owned()));
            conn.execute(
                "INSERT INTO links (profile, id, description, created_at, updated_at)
                 VALUES ('sandbox', 'lnk_old', 'Kırmızı kazak, iade', 1, 1)",
                [],
            )
            .unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.schema_version().unwrap(), latest_version());
        // The link written at version 1 is found by a word of its description (version 2).
        let hits: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM links_words WHERE links_words MATCH 'kazak'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(hits, 1);
    }

    #[test]
    fn migrating_twice_is_a_no_op() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&mut conn).unwrap(), latest_version());
        let before = table_names(&conn);
        assert_eq!(migrate(&mut conn).unwrap(), 0);
        assert_eq!(table_names(&conn), before);
        assert_eq!(schema_version(&conn).unwrap(), latest_version());
    }

    #[test]
    fn reopening_a_file_applies_nothing() {
        let dir = tempfile::tempdir().unwrap();
        drop(Store::open(dir.path()).unwrap());
        let mut conn = Connection::open(dir.path().join(crate::store::DB_FILE)).unwrap();
        assert_eq!(migrate(&mut conn).unwrap(), 0);
        drop(conn);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.schema_version().unwrap(), latest_version());
    }

    #[test]
    fn a_newer_file_is_refused_not_damaged() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", latest_version() + 1)
            .unwrap();
        let err = migrate(&mut conn).unwrap_err();
        assert!(
            matches!(err, StoreError::TooNew { found, known } if found == latest_version() + 1 && known == latest_version()),
            "{err}"
        );
        assert!(table_names(&conn).is_empty());
    }
}
