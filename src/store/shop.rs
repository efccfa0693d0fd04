//! This desk in a shop (docs/design.md §8): its shown name and the shop it joined, one row of
//! `shop_desk`. The shop's URL is stored as `ShopUrl` writes it, which never holds a password;
//! the password lives in the keyring (or `PAYDESK_SHOP_PASSWORD`), never in this file.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension as _, params};

use super::repo::{Write, repository};
use super::{Store, StoreError, from_millis, to_millis, write_tx};

/// What this file knows of the desk's place in a shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShopDesk {
    /// The name given with `shop name` (`None`: the host name is shown).
    pub name: Option<String>,
    /// The shop's URL (canonical, without a password), when joined.
    pub shop_url: Option<String>,
    /// When the desk joined.
    pub joined_at: Option<DateTime<Utc>>,
    /// When the desk last pushed its outbox to the shop.
    pub last_push_at: Option<DateTime<Utc>>,
}

/// The longest desk name, in characters.
pub const DESK_NAME_MAX: usize = 40;

repository!(
    /// This desk's place in a shop: the one row of `shop_desk`.
    Shop
);

impl<A> Shop<'_, A> {
    /// The desk's row.
    pub fn desk(&self) -> Result<ShopDesk, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT name, shop_url, joined_at, last_push_at FROM shop_desk WHERE id = 1",
                [],
                |r| {
                    Ok((
                        r.get::<_, Option<String>>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, Option<i64>>(2)?,
                        r.get::<_, Option<i64>>(3)?,
                    ))
                },
            )
            .optional()?;
        let Some((name, shop_url, joined, pushed)) = row else {
            return Ok(ShopDesk {
                name: None,
                shop_url: None,
                joined_at: None,
                last_push_at: None,
            });
        };
        Ok(ShopDesk {
            name,
            shop_url,
            joined_at: joined.map(from_millis).transpose()?,
            last_push_at: pushed.map(from_millis).transpose()?,
        })
    }

    /// The shop revision this desk last read up to (`shop sync`), 0 before the first read.
    pub fn read_rev(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'shop_read_rev'",
                [],
                |r| r.get::<_, String>(0),
            )
            .optional()?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0))
    }

    /// The shop's catalog snapshot this desk mirrors (`None`: none yet).
    pub fn catalog_snapshot(&self) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT catalog_snapshot FROM shop_desk WHERE id = 1",
                [],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// The highest staff version of the shop this desk has mirrored (`None`: none yet).
    pub fn staff_version(&self) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT staff_version FROM shop_desk WHERE id = 1",
                [],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// Whether the desk has joined a shop (only then is there an outbox to write).
    pub(super) fn joined(&self) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT shop_url IS NOT NULL FROM shop_desk WHERE id = 1",
                [],
                |r| r.get::<_, bool>(0),
            )
            .optional()?
            .unwrap_or(false))
    }
}

impl Shop<'_, Write> {
    /// Notes the shop's catalog `snapshot` this desk mirrors (`None`: none) and `at` as the
    /// last push.
    pub(super) fn catalog_pushed(
        &self,
        snapshot: Option<i64>,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE shop_desk SET catalog_snapshot = ?1, last_push_at = ?2 WHERE id = 1",
            params![snapshot, to_millis(at)],
        )?;
        Ok(())
    }

    /// Notes the shop's catalog `snapshot` this desk mirrors.
    pub(super) fn set_catalog_snapshot(&self, snapshot: i64) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE shop_desk SET catalog_snapshot = ?1 WHERE id = 1",
            [snapshot],
        )?;
        Ok(())
    }

    /// Notes the shop's staff `version` this desk mirrors.
    pub(super) fn set_staff_version(&self, version: i64) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE shop_desk SET staff_version = ?1 WHERE id = 1",
            [version],
        )?;
        Ok(())
    }

    /// Notes `at` as the desk's last push to the shop.
    pub(super) fn pushed_at(&self, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE shop_desk SET last_push_at = ?1 WHERE id = 1",
            [to_millis(at)],
        )?;
        Ok(())
    }
}

impl Shop<'_, Write> {
    /// Sets the desk's name (`None`: back to the host name).
    fn set_name(&self, name: Option<&str>) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO shop_desk (id, name) VALUES (1, ?1)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name",
            params![name],
        )?;
        Ok(())
    }

    /// Notes the shop `url` joined at `at`; what was mirrored of another shop is forgotten.
    pub(super) fn join(&self, url: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO shop_desk (id, shop_url, joined_at, last_push_at) VALUES (1, ?1, ?2, NULL)
             ON CONFLICT (id) DO UPDATE SET shop_url = excluded.shop_url,
                 joined_at = excluded.joined_at, last_push_at = NULL,
                 catalog_snapshot = NULL, staff_version = NULL",
            params![url, to_millis(at)],
        )?;
        Ok(())
    }

    /// Forgets the shop (the desk's name stays).
    fn leave(&self) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE shop_desk SET shop_url = NULL, joined_at = NULL, last_push_at = NULL,
                 catalog_snapshot = NULL, staff_version = NULL
             WHERE id = 1",
            [],
        )?;
        Ok(())
    }

    /// Notes the shop revision this desk has read up to.
    fn set_read_rev(&self, rev: i64) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES ('shop_read_rev', ?1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [rev.to_string()],
        )?;
        Ok(())
    }
}

impl Store {
    /// This desk's place in a shop: its row, its mirrors' versions, the revision read.
    pub fn shop(&self) -> Shop<'_> {
        Shop::read(&self.conn)
    }

    /// Names the desk (`None`: back to the host name). The caller checks the name's shape
    /// (1 to [`DESK_NAME_MAX`] printable characters); the table refuses other lengths.
    pub fn set_desk_name(&mut self, name: Option<&str>) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        Shop::write(&tx).set_name(name)?;
        tx.commit()?;
        Ok(())
    }

    /// Forgets the shop (the desk's name stays).
    pub fn leave_shop(&mut self) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        Shop::write(&tx).leave()?;
        tx.commit()?;
        Ok(())
    }

    /// Records the shop revision this desk has read up to.
    pub fn set_shop_read_rev(&mut self, rev: i64) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        Shop::write(&tx).set_read_rev(rev)?;
        tx.commit()?;
        Ok(())
    }
}
