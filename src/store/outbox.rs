//! The shop outbox (docs/design.md §8): what this desk still has to tell the shop.
//!
//! While the desk has joined a shop, every link it creates, refreshes or cancels gets one row
//! here **in the same transaction** as the change, holding the link as it is after the change
//! (with its items, the staff member, the cancel mark): nothing committed locally can miss the
//! outbox, and nothing reaches the outbox that did not commit. `seq` only grows. The pusher
//! (`shop::push`) sends rows in `seq` order and deletes them once PostgreSQL has committed them
//! ([`Store::outbox_acknowledge`]). A desk that has not joined writes no rows.
//!
//! Each row has a kind: `link` (the rows above), `catalog` (the catalog changed: the pusher
//! sends the whole catalog as it is when it pushes, one snapshot; at most one such row waits),
//! `staff` (a member as a change left them, PIN hash included) and `pin` (a PIN tried on this
//! desk, right or wrong, merged into the shop's count). `store::mirror` reads the shared kinds
//! for the pusher and writes what the desk pulls from the shop.
//!
//! The outbox sits below every family whose changes it carries: a unit of work reads its
//! change through its own repository and hands this module the finished row, so no file of
//! `store/` that the outbox imports imports it back.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension as _, Transaction, params};
use serde::{Deserialize, Serialize};

use super::repo::{Write, repository};
use super::shop::Shop;
use super::{Profile, Store, StoreError, StoredLink, from_millis, to_millis, write_tx};
use crate::api::wire::PaymentLink;

/// The account a link was made on, or a desk's profile reaches: the profile's base URL and
/// API key id, and for a desk's built-in sandbox (whose URL and key every desk shares) that
/// desk's id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    /// The API's base URL (`''` for the built-in sandbox).
    pub base_url: String,
    /// The API key id (`''` for the built-in sandbox).
    pub api_key_id: String,
    /// The desk whose built-in sandbox it is; `''` for a real account.
    pub sandbox_desk: String,
}

impl Account {
    /// The account as the shop's report totals key it (`paydesk_account` in schema step 2):
    /// the three parts joined by U+001F, which none of them holds.
    pub fn key(&self) -> String {
        format!(
            "{}\u{1f}{}\u{1f}{}",
            self.base_url, self.api_key_id, self.sandbox_desk
        )
    }

    /// The account of `key` ([`Account::key`]'s three parts); `None` when it has not three.
    pub fn from_key(key: &str) -> Option<Account> {
        let mut parts = key.split('\u{1f}');
        let account = Account {
            base_url: parts.next()?.to_owned(),
            api_key_id: parts.next()?.to_owned(),
            sandbox_desk: parts.next()?.to_owned(),
        };
        parts.next().is_none().then_some(account)
    }

    /// The account `profile` of desk `desk_id` reaches, as the outbox records its links
    /// (this module): a sandbox profile's links are that desk's own.
    pub fn of_profile(profile: &Profile, desk_id: &str) -> Account {
        Account {
            base_url: profile.base_url.clone(),
            api_key_id: profile.api_key.clone(),
            sandbox_desk: if profile.is_sandbox {
                desk_id.to_owned()
            } else {
                String::new()
            },
        }
    }
}

/// A link as one outbox row carries it to the shop: everything `shop.links` and
/// `shop.link_items` hold. Amounts are exact decimal strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkPush {
    /// The account it was made on (its three fields at the top level of the JSON).
    #[serde(flatten)]
    pub account: Account,
    /// The link's id.
    pub link_id: String,
    /// The desk that made it: this one, or the maker of a link this desk asked the server
    /// about for it ([`Store::enqueue_observed`]).
    pub desk_id: String,
    /// The member who began it.
    pub staff: Option<String>,
    /// Its order number.
    pub order_number: Option<String>,
    /// Its status as the desk reads it.
    pub status: String,
    /// Its currency.
    pub currency: String,
    /// Its amount, when the server gave one.
    pub amount: Option<String>,
    /// What was paid (0 when the server said nothing).
    pub paid_amount: String,
    /// The first cancel through paydesk.
    pub cancelled_at: Option<DateTime<Utc>>,
    /// When this desk first stored it.
    pub stored_at: DateTime<Utc>,
    /// When this desk last stored an answer for it.
    pub observed_at: DateTime<Utc>,
    /// The answer, every field kept.
    pub answer: serde_json::Value,
    /// The items the create sent.
    pub items: Vec<ItemPush>,
}

/// One item of a pushed link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemPush {
    /// Its place in the request.
    pub position: i32,
    /// A typed-in item's name, or the catalog's name then.
    pub name: Option<String>,
    /// A catalog item's variant id.
    pub variant_id: Option<String>,
    /// The unit price (exact decimal), when known.
    pub unit_price: Option<String>,
    /// How many.
    pub quantity: i64,
}

/// One row of the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxRow {
    /// Its place in the order of changes (only grows).
    pub seq: i64,
    /// When the change was made.
    pub at: DateTime<Utc>,
    /// The link as it was after the change.
    pub link: LinkPush,
}

impl LinkPush {
    /// The link `stored` as the shop takes it, made on `account` by the desk `desk_id`, with
    /// its `items`.
    pub(super) fn of(
        account: Account,
        desk_id: String,
        stored: &StoredLink,
        items: Vec<ItemPush>,
    ) -> Result<LinkPush, StoreError> {
        let link = &stored.link;
        Ok(LinkPush {
            account,
            link_id: link.id.clone(),
            desk_id,
            staff: stored.staff.clone(),
            order_number: link.order_number.clone(),
            status: link.status.as_str().to_owned(),
            currency: link.currency.as_str().to_owned(),
            amount: link.amount.map(|a| a.to_string()),
            paid_amount: link.paid.unwrap_or_default().to_string(),
            cancelled_at: stored.cancelled_at,
            stored_at: stored.created_at,
            observed_at: stored.updated_at,
            answer: serde_json::to_value(PaymentLink::from(link)).map_err(|e| {
                StoreError::Corrupt {
                    what: "link answer",
                    value: e.to_string(),
                }
            })?,
            items,
        })
    }
}

/// A barcode set (or cleared) on one variant by this desk, owed to the shop as that change
/// alone: applied on top of the shop's current catalog, whatever another desk imported since.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BarcodeEdit {
    /// The variant.
    pub id: String,
    /// Its new barcode; `None` clears it.
    pub barcode: Option<String>,
}

/// A catalog change, as the outbox records it.
#[derive(Debug, Clone, Copy)]
pub(super) enum CatalogChange<'a> {
    /// An import: the shop is owed this desk's whole catalog (an import replaces the shop's).
    Whole,
    /// A barcode edit of one variant.
    Barcode(&'a str, Option<&'a str>),
}

/// Records, in the transaction `conn` of a catalog change, what the shop is owed; nothing
/// when the desk has not joined. One row waits at most (its `seq` the newest change's, so a
/// push in flight acknowledges only what it sent), its payload what it owes:
///
/// - `''`: the whole catalog as it is when pushed (after an import; an edit made after one
///   is in the catalog it sends);
/// - a JSON list of [`BarcodeEdit`]s, in the order made: only edits since the last push, each
///   applied on top of the shop's current catalog, so an import another desk made meanwhile
///   is not undone by this desk's older copy.
pub(super) fn enqueue_catalog(
    tx: &Transaction<'_>,
    change: CatalogChange<'_>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    if !Shop::read(tx).joined()? {
        return Ok(());
    }
    let outbox = Outbox::write(tx);
    let waiting = outbox.waiting_catalog()?;
    let payload = match (change, waiting) {
        (CatalogChange::Whole, _) => String::new(),
        (CatalogChange::Barcode(..), Some(whole)) if whole.is_empty() => whole,
        (CatalogChange::Barcode(id, barcode), waiting) => {
            let mut edits: Vec<BarcodeEdit> = match waiting {
                Some(text) => serde_json::from_str(&text).map_err(|e| StoreError::Corrupt {
                    what: "catalog outbox row",
                    value: e.to_string(),
                })?,
                None => Vec::new(),
            };
            edits.push(BarcodeEdit {
                id: id.to_owned(),
                barcode: barcode.map(str::to_owned),
            });
            serde_json::to_string(&edits).map_err(|e| StoreError::Corrupt {
                what: "catalog outbox row",
                value: e.to_string(),
            })?
        }
    };
    outbox.replace_catalog(&payload, now)
}

/// A staff member as a change left them, on its way to the shop. The PIN hash never shows in
/// `Debug`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaffPush {
    /// The member's name as written.
    pub name: String,
    /// `counter` or `manager`.
    pub role: String,
    /// The Argon2id PHC string.
    pub pin_hash: String,
    /// Whether the member may sign in.
    pub active: bool,
}

impl std::fmt::Debug for StaffPush {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaffPush")
            .field("name", &self.name)
            .field("role", &self.role)
            .field("pin_hash", &"<hidden>")
            .field("active", &self.active)
            .finish()
    }
}

/// A PIN tried on this desk: counted in the shop's wrong-PIN count (or clearing it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinPush {
    /// The member's name as stored.
    pub name: String,
    /// A right PIN (clears the count) or a wrong one (counts one).
    pub right: bool,
}

/// Records, in the transaction `tx` of a staff change, the member as the change left them
/// (`None`: no such member); nothing when the desk has not joined.
pub(super) fn enqueue_staff(
    tx: &Transaction<'_>,
    push: Option<StaffPush>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let Some(push) = push else {
        return Ok(());
    };
    if !Shop::read(tx).joined()? {
        return Ok(());
    }
    Outbox::write(tx).push("staff", &push, now)
}

/// Records, in the transaction `conn` that counted it, a PIN tried for `name`; nothing when
/// the desk has not joined.
pub(super) fn enqueue_pin(
    tx: &Transaction<'_>,
    name: &str,
    right: bool,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    if !Shop::read(tx).joined()? {
        return Ok(());
    }
    let push = PinPush {
        name: name.to_owned(),
        right,
    };
    Outbox::write(tx).push("pin", &push, now)
}

/// A saved card as the shop keeps it: its mask and what the server said of its kind, never a
/// holder's name, a customer id or anything a number could be rebuilt from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardPush {
    /// The account it was saved on (its three fields at the top level of the JSON).
    #[serde(flatten)]
    pub account: Account,
    /// The card's id (the server's token for it).
    pub card_id: String,
    /// The masked number, masked again here.
    pub masked_pan: Option<String>,
    /// Its brand.
    pub brand: Option<String>,
    /// Its card type.
    pub card_type: Option<String>,
    /// Its bank.
    pub bank_name: Option<String>,
    /// When this desk stored it.
    pub stored_at: DateTime<Utc>,
}

/// One card row of the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardRow {
    /// Its place in the order of changes.
    pub seq: i64,
    /// The card.
    pub card: CardPush,
}

/// A staff change or a PIN try waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StaffChange {
    /// A member as a change left them.
    Member(StaffPush),
    /// A PIN tried.
    Pin(PinPush),
}

/// One `staff` or `pin` row of the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaffRow {
    /// Its place in the order of changes.
    pub seq: i64,
    /// When the change was made (this desk's clock).
    pub at: DateTime<Utc>,
    /// What changed.
    pub change: StaffChange,
}

impl StaffRow {
    /// The member's name the row is about.
    pub fn name(&self) -> &str {
        match &self.change {
            StaffChange::Member(m) => &m.name,
            StaffChange::Pin(p) => &p.name,
        }
    }
}

repository!(
    /// The `shop_outbox` table: what this desk still owes the shop, in `seq` order.
    Outbox
);

impl<A> Outbox<'_, A> {
    /// The oldest `limit` card rows of the outbox, in order.
    pub fn cards(&self, limit: usize) -> Result<Vec<CardRow>, StoreError> {
        self.rows(&["card"], limit)?
            .into_iter()
            .map(|r| {
                Ok(CardRow {
                    seq: r.seq,
                    card: r.decode()?,
                })
            })
            .collect()
    }

    /// The last sequence number the outbox handed out (0 before the first): it only grows,
    /// also when rows are pushed and deleted, so a change is seen as a new number.
    pub fn last_seq(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT seq FROM sqlite_sequence WHERE name = 'shop_outbox'",
                [],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0))
    }

    /// How many changes wait in the outbox.
    pub fn count(&self) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM shop_outbox", [], |r| r.get(0))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// The oldest `limit` link rows of the outbox, in order (the shared kinds are read by
    /// `store::mirror`).
    pub fn batch(&self, limit: usize) -> Result<Vec<OutboxRow>, StoreError> {
        self.rows(&["link"], limit)?
            .into_iter()
            .map(|r| {
                Ok(OutboxRow {
                    seq: r.seq,
                    at: from_millis(r.at)?,
                    link: r.decode()?,
                })
            })
            .collect()
    }

    /// The oldest `limit` rows of the kinds `kinds`, in order, as stored.
    pub(super) fn rows(
        &self,
        kinds: &[&'static str],
        limit: usize,
    ) -> Result<Vec<StoredRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT seq, at, kind, payload FROM shop_outbox WHERE kind IN ({})
             ORDER BY seq LIMIT ?1",
            kind_list(kinds)
        ))?;
        let rows = stmt
            .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
                Ok(StoredRow {
                    seq: r.get(0)?,
                    at: r.get(1)?,
                    kind: r.get(2)?,
                    payload: r.get(3)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The oldest `limit` staff and PIN rows of the outbox, in order.
    pub fn staff_rows(&self, limit: usize) -> Result<Vec<StaffRow>, StoreError> {
        self.rows(&["staff", "pin"], limit)?
            .into_iter()
            .map(|r| {
                let change = if r.kind == "staff" {
                    StaffChange::Member(r.decode()?)
                } else {
                    StaffChange::Pin(r.decode()?)
                };
                Ok(StaffRow {
                    seq: r.seq,
                    at: from_millis(r.at)?,
                    change,
                })
            })
            .collect()
    }

    /// The payloads of the staff and PIN rows waiting.
    pub(super) fn staff_payloads(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT payload FROM shop_outbox WHERE kind IN ('staff', 'pin')")?;
        Ok(stmt
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<Result<_, _>>()?)
    }

    /// Whether a catalog change waits.
    pub(super) fn catalog_waits(&self) -> Result<bool, StoreError> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM shop_outbox WHERE kind = 'catalog')",
            [],
            |r| r.get(0),
        )?)
    }

    /// The waiting catalog row's `seq`, time and payload, if one waits.
    pub(super) fn waiting_catalog_row(&self) -> Result<Option<(i64, i64, String)>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT seq, at, payload FROM shop_outbox WHERE kind = 'catalog'
                 ORDER BY seq DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?)
    }

    /// The payload of the waiting catalog row, if one waits.
    fn waiting_catalog(&self) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT payload FROM shop_outbox WHERE kind = 'catalog' ORDER BY seq DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?)
    }
}

impl Outbox<'_, Write> {
    /// Adds a row of `kind` holding `value` as JSON.
    pub(super) fn push(
        &self,
        kind: &str,
        value: &impl Serialize,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let payload = serde_json::to_string(value).map_err(|e| StoreError::Corrupt {
            what: "outbox row",
            value: e.to_string(),
        })?;
        self.conn.execute(
            "INSERT INTO shop_outbox (at, kind, payload) VALUES (?1, ?2, ?3)",
            params![to_millis(now), kind, payload],
        )?;
        Ok(())
    }

    /// Makes `payload` the one waiting catalog row, with a new `seq`.
    fn replace_catalog(&self, payload: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM shop_outbox WHERE kind = 'catalog'", [])?;
        self.conn.execute(
            "INSERT INTO shop_outbox (at, kind, payload) VALUES (?1, 'catalog', ?2)",
            params![to_millis(now), payload],
        )?;
        Ok(())
    }

    /// Deletes the rows of the kinds `kinds` up to `seq`.
    pub(super) fn delete_through(
        &self,
        kinds: &[&'static str],
        seq: i64,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            &format!(
                "DELETE FROM shop_outbox WHERE kind IN ({}) AND seq <= ?1",
                kind_list(kinds)
            ),
            [seq],
        )?;
        Ok(())
    }
}

impl Store {
    /// The outbox's reads.
    pub fn outbox(&self) -> Outbox<'_> {
        Outbox::read(&self.conn)
    }

    /// Queues `push`, another desk's link as this desk saw the server answer it (a desk that
    /// polls the links of a desk that stopped, docs/design.md §8 "One poller per link"), for
    /// the shop; nothing else changes: the link stays out of this desk's history and day close.
    /// Returns whether a row was written (only while the desk has joined a shop).
    pub fn enqueue_observed(
        &mut self,
        push: &LinkPush,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        if !Shop::read(&tx).joined()? {
            return Ok(false);
        }
        Outbox::write(&tx).push("link", push, now)?;
        tx.commit()?;
        Ok(true)
    }

    /// The shop committed every card row up to `seq`: they leave the outbox.
    pub fn cards_pushed(&mut self, seq: i64, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.outbox_done(&["card"], seq, at)
    }

    /// PostgreSQL committed every link row up to `seq`: they leave the outbox, and `at` is the
    /// last push.
    pub fn outbox_acknowledge(&mut self, seq: i64, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.outbox_done(&["link"], seq, at)
    }

    /// The shop committed every row of the kinds `kinds` up to `seq`: they leave the outbox,
    /// and `at` is the last push.
    pub(super) fn outbox_done(
        &mut self,
        kinds: &[&'static str],
        seq: i64,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        Outbox::write(&tx).delete_through(kinds, seq)?;
        Shop::write(&tx).pushed_at(at)?;
        tx.commit()?;
        Ok(())
    }
}

/// An outbox row as stored, before its payload is read.
pub(super) struct StoredRow {
    /// Its place in the order of changes.
    pub(super) seq: i64,
    /// When the change was made (Unix ms).
    pub(super) at: i64,
    /// What it is (`link`, `catalog`, `staff`, `pin`, `card`).
    pub(super) kind: String,
    /// The change, as JSON.
    pub(super) payload: String,
}

impl StoredRow {
    /// The payload read back.
    pub(super) fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, StoreError> {
        serde_json::from_str(&self.payload).map_err(|e| StoreError::Corrupt {
            what: "outbox row",
            value: format!("{}: {e}", self.seq),
        })
    }
}

/// `'a', 'b'` for SQL: the kinds are this module's constants, never input.
fn kind_list(kinds: &[&'static str]) -> String {
    kinds
        .iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row queued by an older paydesk (the account's three fields at the top level) reads
    /// back whole, and a row queued now is written the same way.
    #[test]
    fn a_card_row_keeps_the_accounts_fields_at_the_top_level_of_its_json() {
        let older = r#"{"baseUrl":"https://api.example","apiKeyId":"key-1","sandboxDesk":"",
            "cardId":"card_1","maskedPan":"411111******1111","brand":"VISA","cardType":null,
            "bankName":null,"storedAt":"2026-11-28T09:00:00Z"}"#;
        let card: CardPush = serde_json::from_str(older).expect("an older row reads");
        assert_eq!(
            card.account,
            Account {
                base_url: "https://api.example".into(),
                api_key_id: "key-1".into(),
                sandbox_desk: String::new(),
            }
        );
        let written = serde_json::to_value(&card).expect("it writes");
        for key in ["baseUrl", "apiKeyId", "sandboxDesk", "cardId"] {
            assert!(
                written.get(key).is_some(),
                "{key} at the top level: {written}"
            );
        }
        assert!(written.get("account").is_none(), "{written}");
    }

    #[test]
    fn a_sandbox_profile_reaches_only_its_own_desks_links() {
        let sandbox = Profile {
            is_sandbox: true,
            ..Profile::new("sandbox", "", "")
        };
        let real = Profile::new("shop", "https://api.example", "key-1");
        let a = Account::of_profile(&sandbox, "AAAA");
        let b = Account::of_profile(&sandbox, "BBBB");
        assert_ne!(
            a, b,
            "every desk's sandbox has the same URL and key, not the same links"
        );
        assert_eq!(a.sandbox_desk, "AAAA");
        let on_a = Account::of_profile(&real, "AAAA");
        let on_b = Account::of_profile(&real, "BBBB");
        assert_eq!(on_a, on_b, "a real account is the same from every desk");
        assert_eq!(on_a.sandbox_desk, "");
    }
}
