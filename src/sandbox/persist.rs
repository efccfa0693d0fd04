//! The `--state FILE`: links, saved cards and completed idempotency keys in `SQLite`, so that
//! a restarted sandbox still knows them. Records are stored as JSON text (the same shape the
//! admin routes show); nothing here ever receives a PAN or a CVV.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, OptionalExtension, params};

use super::error::SandboxError;
use super::idempotency::{self, Record, Scope, StoredResponse};
use super::records::{CardRecord, LinkRecord};
use crate::store::{private_dir, private_sqlite_file};

/// The state file.
#[derive(Debug)]
pub struct Db {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS links (id TEXT PRIMARY KEY, business TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cards (id TEXT PRIMARY KEY, business TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS idempotency (
    business TEXT NOT NULL, endpoint TEXT NOT NULL, key TEXT NOT NULL,
    body_digest BLOB NOT NULL, created_ms INTEGER NOT NULL,
    status INTEGER NOT NULL, response BLOB NOT NULL,
    PRIMARY KEY (business, endpoint, key)
);
";

/// The schema version this code writes.
const VERSION: &str = "1";

fn to_sql_err(e: serde_json::Error) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(e))
}

impl Db {
    /// Opens (or creates) the state file, private to the user like the app's own database: a
    /// missing folder is created 0700, the file is created 0600 before `SQLite` opens it and an
    /// existing one is set to 0600 (Unix). An existing folder is left as it is: `--state` may
    /// point anywhere, e.g. into the current directory.
    pub fn open(path: &Path) -> Result<Db, SandboxError> {
        let io = |source| SandboxError::StateFile {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
            && !parent.exists()
        {
            private_dir(parent).map_err(io)?;
        }
        private_sqlite_file(path).map_err(io)?;
        Ok(Self::open_sqlite(path)?)
    }

    fn open_sqlite(path: &Path) -> rusqlite::Result<Db> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(SCHEMA)?;
        let version: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE name = 'version'", [], |r| {
                r.get(0)
            })
            .optional()?;
        match version.as_deref() {
            None => {
                conn.execute(
                    "INSERT INTO meta (name, value) VALUES ('version', ?1)",
                    [VERSION],
                )?;
            }
            Some(VERSION) => {}
            Some(other) => {
                return Err(rusqlite::Error::InvalidParameterName(format!(
                    "state file has schema version {other}; this sandbox writes {VERSION}"
                )));
            }
        }
        Ok(Db {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes a link.
    pub fn put_link(&self, link: &LinkRecord) -> rusqlite::Result<()> {
        let json = serde_json::to_string(link).map_err(to_sql_err)?;
        self.conn().execute(
            "INSERT OR REPLACE INTO links (id, business, record) VALUES (?1, ?2, ?3)",
            params![link.id, link.business, json],
        )?;
        Ok(())
    }

    /// Writes a card.
    pub fn put_card(&self, card: &CardRecord) -> rusqlite::Result<()> {
        let json = serde_json::to_string(card).map_err(to_sql_err)?;
        self.conn().execute(
            "INSERT OR REPLACE INTO cards (id, business, record) VALUES (?1, ?2, ?3)",
            params![card.id, card.business, json],
        )?;
        Ok(())
    }

    /// Every link.
    pub fn links(&self) -> rusqlite::Result<Vec<LinkRecord>> {
        self.records("SELECT record FROM links ORDER BY rowid")
    }

    /// Every card.
    pub fn cards(&self) -> rusqlite::Result<Vec<CardRecord>> {
        self.records("SELECT record FROM cards ORDER BY rowid")
    }

    fn records<T: serde::de::DeserializeOwned>(&self, sql: &str) -> rusqlite::Result<Vec<T>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.map(|text| {
            let text = text?;
            serde_json::from_str(&text).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    0,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })
        })
        .collect()
    }

    /// Completed idempotency keys created after `since_ms`; older ones are deleted.
    pub fn idempotency(&self, since_ms: i64) -> rusqlite::Result<Vec<Record>> {
        let conn = self.conn();
        conn.execute("DELETE FROM idempotency WHERE created_ms <= ?1", [since_ms])?;
        let mut stmt = conn.prepare(
            "SELECT business, endpoint, key, body_digest, created_ms, status, response
             FROM idempotency ORDER BY created_ms",
        )?;
        let rows = stmt.query_map([], |r| {
            let digest: Vec<u8> = r.get(3)?;
            let response: Vec<u8> = r.get(6)?;
            Ok(Record {
                scope: Scope {
                    business: r.get(0)?,
                    endpoint: r.get(1)?,
                    key: r.get(2)?,
                },
                body_digest: digest.try_into().unwrap_or([0; 32]),
                created_ms: r.get(4)?,
                response: StoredResponse {
                    status: r.get(5)?,
                    body: Arc::from(response),
                },
            })
        })?;
        rows.collect()
    }
}

impl idempotency::Sink for Db {
    fn completed(&self, r: &Record) {
        let result = self.conn().execute(
            "INSERT OR REPLACE INTO idempotency
             (business, endpoint, key, body_digest, created_ms, status, response)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                r.scope.business,
                r.scope.endpoint,
                r.scope.key,
                &r.body_digest[..],
                r.created_ms,
                r.response.status,
                &r.response.body[..]
            ],
        );
        if let Err(e) = result {
            tracing::warn!("cannot persist idempotency key: {e}");
        }
    }
}
