//! Reading the whole shop from PostgreSQL (docs/design.md §8): the board's rows, History's
//! pages and the links changed since a desk's last read, every link with the desk that made it.
//!
//! A row of the shop becomes the desk's read model through the same conversion as a row of the
//! desk's own history (`api/read.rs`): the shop keeps the server's answer whole (`answer`), so
//! a link reads the same on every desk. Every statement is one range of an index of step 1 or
//! 2 of the schema (`links_by_time`, `links_open`, `links_by_status`, `links_by_staff`,
//! `links_by_desk`, `links_by_rev`); the bench in `tests/benches/shop_read.rs` holds them to the
//! issue's 10 ms over a million links.

use chrono::{DateTime, Utc};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::{Shop, ShopError};
use crate::api::wire::PaymentLink;
use crate::domain::Currency;
use crate::domain::{Link, LinkStatus};
use crate::store::{LinkCursor, LinkPush, LinkTotals, StoreError, StoredLink, TimeRange, Total};

/// The account a link was made on (the lease's, `shop::lease`): the profile's server and API
/// key id, and for a desk's built-in sandbox the desk.
pub use super::lease::Account;

/// A link of the shop, with the desk that made it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShopLink {
    /// Where it was made.
    pub account: Account,
    /// The link as every desk reads it.
    pub link: Link,
    /// The desk that made it (its device id).
    pub desk_id: String,
    /// That desk's shown name.
    pub desk_name: String,
    /// The member who began it.
    pub staff: Option<String>,
    /// When its desk first stored it (History's order, the day it belongs to).
    pub stored_at: DateTime<Utc>,
    /// When the status kept was observed, by the observing desk's clock (shown, not compared).
    pub observed_at: DateTime<Utc>,
    /// The first cancel through paydesk.
    pub cancelled_at: Option<DateTime<Utc>>,
    /// The revision of its last change in the shop.
    pub rev: i64,
    /// The desk whose observation set the status kept (`None`: held before confirmations).
    pub claim_desk: Option<String>,
    /// While the status kept is a payment only one desk has seen: the last status and paid
    /// amount a second desk's own call confirmed (`None`: the status kept is confirmed).
    pub last_confirmed: Option<(LinkStatus, rust_decimal::Decimal)>,
}

impl ShopLink {
    /// Whether the status kept is a claim of payment no second desk's own call to the
    /// payment API has confirmed yet (docs/design.md §8 "Paid only from the payment API").
    pub fn unconfirmed(&self) -> bool {
        self.last_confirmed.is_some()
    }

    /// Whether desk `desk_id` should confirm this link's claim with a call of its own: it is
    /// unconfirmed and another desk claimed it.
    pub fn to_confirm_by(&self, desk_id: &str) -> bool {
        self.unconfirmed() && self.claim_desk.as_deref() != Some(desk_id)
    }

    /// The link as the desk's views hold a row of history, under `profile` (the desk's
    /// profile when the link is of its account, else a name the views show as they are), as
    /// desk `viewer` reads it: another desk's unconfirmed claim of payment shows the last
    /// confirmed status, the claim kept in `unconfirmed` (`viewer` `""`: whoever claimed it).
    pub fn stored(&self, profile: &str, viewer: &str) -> StoredLink {
        let mut link = self.link.clone();
        let mut unconfirmed = None;
        if let Some((status, paid)) = &self.last_confirmed
            && self.claim_desk.as_deref() != Some(viewer)
        {
            unconfirmed = Some(std::mem::replace(&mut link.status, status.clone()));
            link.paid = Some(*paid);
        }
        StoredLink {
            profile: profile.to_owned(),
            link,
            created_at: self.stored_at,
            updated_at: self.observed_at,
            cancelled_at: self.cancelled_at,
            staff: self.staff.clone(),
            unconfirmed,
        }
    }

    /// This link as the server answered it to a desk that polls it for its maker
    /// (`answer`, seen at `now`), on its way to the shop: the maker, the member, the time it
    /// was stored and the cancel mark stay the shop's; the shop takes the status and paid
    /// amount only if they are newer (`schema::PUSH_LINK`). No items: the maker sent them.
    pub fn observed(
        &self,
        answer: &PaymentLink,
        now: DateTime<Utc>,
    ) -> Result<LinkPush, StoreError> {
        let link = Link::from(answer.clone());
        Ok(LinkPush {
            account: self.account.clone(),
            link_id: self.link.id.clone(),
            desk_id: self.desk_id.clone(),
            staff: self.staff.clone(),
            order_number: link
                .order_number
                .clone()
                .or_else(|| self.link.order_number.clone()),
            status: link.status.as_str().to_owned(),
            currency: link.currency.as_str().to_owned(),
            amount: link.amount.map(|a| a.to_string()),
            paid_amount: link.paid.unwrap_or_default().to_string(),
            cancelled_at: self.cancelled_at,
            stored_at: self.stored_at,
            observed_at: now,
            answer: serde_json::to_value(answer).map_err(|e| StoreError::Corrupt {
                what: "link answer",
                value: e.to_string(),
            })?,
            items: Vec::new(),
        })
    }

    /// The cursor that pages past this link.
    pub fn cursor(&self) -> LinkCursor {
        LinkCursor {
            created_at: self.stored_at,
            id: self.link.id.clone(),
        }
    }
}

/// The columns every read selects, in [`from_row`]'s order.
const COLUMNS: &str = "l.base_url, l.api_key_id, l.sandbox_desk, l.link_id, l.desk_id,
    coalesce(d.name, l.desk_id), l.staff, l.stored_at, l.observed_at, l.cancelled_at,
    l.answer::text, l.rev, l.claim_desk, l.confirmed_status, l.confirmed_paid";

/// A row of [`COLUMNS`] as a link.
fn from_row(r: &Row) -> Result<ShopLink, ShopError> {
    let answer: String = r.get(10);
    let link_id: String = r.get(3);
    let wire: PaymentLink = serde_json::from_str(&answer)
        .map_err(|e| ShopError::Unreadable(format!("link {link_id}: {e}")))?;
    let mut link = Link::from(wire);
    if link.id.is_empty() {
        link.id.clone_from(&link_id);
    }
    Ok(ShopLink {
        account: Account {
            base_url: r.get(0),
            api_key_id: r.get(1),
            sandbox_desk: r.get(2),
        },
        link,
        desk_id: r.get(4),
        desk_name: r.get(5),
        staff: r.get(6),
        stored_at: r.get(7),
        observed_at: r.get(8),
        cancelled_at: r.get(9),
        rev: r.get(11),
        claim_desk: r.get(12),
        last_confirmed: r.get::<_, Option<String>>(13).map(|s| {
            (
                LinkStatus::from_wire(&s),
                r.get::<_, Option<rust_decimal::Decimal>>(14)
                    .unwrap_or_default(),
            )
        }),
    })
}

fn rows(rows: &[Row]) -> Result<Vec<ShopLink>, ShopError> {
    rows.iter().map(from_row).collect()
}

fn limit_of(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// The board of the whole shop, newest first: every link stored since `today` (the local
/// day's start), then every link still open (pending or under review) stored since
/// `open_since`; at most `limit` rows. Two index ranges, no sort of the table.
pub async fn board(
    shop: &Shop,
    today: DateTime<Utc>,
    open_since: DateTime<Utc>,
    limit: usize,
) -> Result<Vec<ShopLink>, ShopError> {
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(e, shop.url());
    let today_sql = format!(
        "SELECT {COLUMNS} FROM links AS l LEFT JOIN desks AS d USING (desk_id)
         WHERE l.stored_at >= $1 ORDER BY l.stored_at DESC, l.link_id DESC LIMIT $2"
    );
    let mut links = rows(
        &shop
            .client()
            .query(&today_sql, &[&today, &limit_of(limit)])
            .await
            .map_err(pg)?,
    )?;
    if links.len() < limit && open_since < today {
        let open_sql = format!(
            "SELECT {COLUMNS} FROM links AS l LEFT JOIN desks AS d USING (desk_id)
             WHERE paydesk_status_rank(l.status) < 2 AND l.stored_at >= $1 AND l.stored_at < $2
             ORDER BY l.stored_at DESC, l.link_id DESC LIMIT $3"
        );
        links.extend(rows(
            &shop
                .client()
                .query(
                    &open_sql,
                    &[&open_since, &today, &limit_of(limit - links.len())],
                )
                .await
                .map_err(pg)?,
        )?);
    }
    Ok(links)
}

/// A History query over the whole shop.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShopQuery {
    /// An order-number prefix or words of the description (any case). Blank means none.
    pub text: Option<String>,
    /// Only links with this status.
    pub status: Option<LinkStatus>,
    /// Only links this member began.
    pub staff: Option<String>,
    /// Only links this desk made (its device id).
    pub desk: Option<String>,
    /// Only links stored in this window.
    pub range: Option<TimeRange>,
    /// Start after this link.
    pub before: Option<LinkCursor>,
    /// At most this many (0: 50).
    pub limit: usize,
    /// The desk reading (its device id): another desk's unconfirmed claim of payment is
    /// filtered and added up by its last confirmed status and paid amount, as
    /// [`ShopLink::stored`] shows it to this desk (`""`: no desk's claim is believed).
    pub viewer: String,
}

/// A statement's parameters, each boxed with its value.
type Args = Vec<Box<dyn ToSql + Sync + Send>>;

/// The `WHERE` clause of `query` (empty for none) and its parameters; with `cursor`, also
/// after `query.before`.
fn filter_of(query: &ShopQuery, cursor: bool) -> (String, Args) {
    let mut filters: Vec<String> = Vec::new();
    let mut args: Args = Vec::new();
    let mut arg = |value: Box<dyn ToSql + Sync + Send>| {
        args.push(value);
        format!("${}", args.len())
    };
    if let Some(status) = &query.status {
        let status = arg(Box::new(status.as_str().to_owned()));
        let viewer = arg(Box::new(query.viewer.clone()));
        filters.push(format!(
            "((l.status = {status} AND (l.confirmed_status IS NULL OR l.claim_desk = {viewer}))
              OR (l.confirmed_status = {status} AND l.claim_desk IS DISTINCT FROM {viewer}))"
        ));
    }
    if let Some(staff) = &query.staff {
        filters.push(format!("l.staff = {}", arg(Box::new(staff.clone()))));
    }
    if let Some(desk) = &query.desk {
        filters.push(format!("l.desk_id = {}", arg(Box::new(desk.clone()))));
    }
    if let Some(range) = &query.range {
        filters.push(format!("l.stored_at >= {}", arg(Box::new(range.from))));
        filters.push(format!("l.stored_at < {}", arg(Box::new(range.to))));
    }
    if let Some(before) = query.before.as_ref().filter(|_| cursor) {
        let at = arg(Box::new(before.created_at));
        let id = arg(Box::new(before.id.clone()));
        filters.push(format!("(l.stored_at, l.link_id) < ({at}, {id})"));
    }
    if let Some(text) = query
        .text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        // LIKE's own characters are taken as they are.
        let escaped = text
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let prefix = arg(Box::new(format!("{escaped}%")));
        let words = arg(Box::new(format!("%{escaped}%")));
        filters.push(format!(
            "(l.order_number ILIKE {prefix} OR l.link_id ILIKE {prefix}
              OR l.answer->>'description' ILIKE {words})"
        ));
    }
    let filter = if filters.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", filters.join(" AND "))
    };
    (filter, args)
}

fn params(args: &Args) -> Vec<&(dyn ToSql + Sync)> {
    args.iter()
        .map(|a| a.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

/// One page of the shop's History, newest first, after `query.before`.
pub async fn page(shop: &Shop, query: &ShopQuery) -> Result<Vec<ShopLink>, ShopError> {
    let (filter, mut args) = filter_of(query, true);
    let limit = if query.limit == 0 { 50 } else { query.limit };
    args.push(Box::new(limit_of(limit)));
    let sql = format!(
        "SELECT {COLUMNS} FROM links AS l LEFT JOIN desks AS d USING (desk_id) {filter}
         ORDER BY l.stored_at DESC, l.link_id DESC LIMIT ${}",
        args.len()
    );
    rows(
        &shop
            .client()
            .query(&sql, &params(&args))
            .await
            .map_err(|e| ShopError::from_pg(e, shop.url()))?,
    )
}

/// How many links of the shop `query` matches and what they add up to, per currency (its
/// `before` and `limit` are ignored; another desk's unconfirmed payment adds its last confirmed
/// paid amount): History's totals line over the shop's rows. One
/// aggregate over the matching links, in a read-only transaction that PostgreSQL itself ends
/// after `limit` (`statement_timeout`), so a slow count never holds the desk's connection
/// longer than a read may.
pub async fn totals(
    shop: &mut Shop,
    query: &ShopQuery,
    limit: std::time::Duration,
) -> Result<LinkTotals, ShopError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(e, &url);
    let (filter, mut args) = filter_of(query, false);
    args.push(Box::new(query.viewer.clone()));
    let sql = format!(
        "SELECT l.currency, count(*), sum(coalesce(l.amount, 0))::text,
             sum(CASE WHEN l.confirmed_status IS NOT NULL AND l.claim_desk IS DISTINCT FROM ${}
                 THEN l.confirmed_paid ELSE l.paid_amount END)::text
         FROM links AS l {filter} GROUP BY l.currency",
        args.len()
    );
    let tx = shop.snapshot().await.map_err(pg)?;
    tx.batch_execute(&format!(
        "SET LOCAL statement_timeout = {}",
        limit.as_millis().max(1)
    ))
    .await
    .map_err(pg)?;
    let rows = tx.query(&sql, &params(&args)).await.map_err(pg)?;
    tx.commit().await.map_err(pg)?;
    let mut totals = LinkTotals::default();
    for r in rows {
        let code: String = r.get(0);
        let currency: Currency = code
            .parse()
            .map_err(|_| ShopError::Unreadable(format!("currency `{code}`")))?;
        totals.add_many(
            currency,
            usize::try_from(r.get::<_, i64>(1)).unwrap_or(0),
            Total::of_sum(r.get(2)),
            Total::of_sum(r.get(3)),
        );
    }
    Ok(totals)
}

/// The links changed in the shop after revision `after`, oldest change first, at most
/// `limit`: what `shop sync` reads back. A write still uncommitted when this reads may hold a
/// lower revision than one read here; the board and History read the shop afresh, so this is
/// only what moved, never the only way to see a link.
pub async fn changed_since(
    shop: &Shop,
    after: i64,
    limit: usize,
) -> Result<Vec<ShopLink>, ShopError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM links AS l LEFT JOIN desks AS d USING (desk_id)
         WHERE l.rev > $1 ORDER BY l.rev LIMIT $2"
    );
    rows(
        &shop
            .client()
            .query(&sql, &[&after, &limit_of(limit)])
            .await
            .map_err(|e| ShopError::from_pg(e, shop.url()))?,
    )
}

/// The link `link_id` of any desk (the newest when two accounts have one of that id).
pub async fn link(shop: &Shop, link_id: &str) -> Result<Option<ShopLink>, ShopError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM links AS l LEFT JOIN desks AS d USING (desk_id)
         WHERE l.link_id = $1 ORDER BY l.stored_at DESC LIMIT 1"
    );
    shop.client()
        .query_opt(&sql, &[&link_id])
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?
        .as_ref()
        .map(from_row)
        .transpose()
}

/// The link of `key` (its account and id), with the desk that made it.
pub async fn link_of(
    shop: &Shop,
    key: &super::lease::LinkKey,
) -> Result<Option<ShopLink>, ShopError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM links AS l LEFT JOIN desks AS d USING (desk_id)
         WHERE l.base_url = $1 AND l.api_key_id = $2 AND l.sandbox_desk = $3 AND l.link_id = $4"
    );
    let a = &key.account;
    shop.client()
        .query_opt(
            &sql,
            &[&a.base_url, &a.api_key_id, &a.sandbox_desk, &key.link_id],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?
        .as_ref()
        .map(from_row)
        .transpose()
}

/// The desks of the shop, by name: (device id, name).
pub async fn desks(shop: &Shop) -> Result<Vec<(String, String)>, ShopError> {
    Ok(shop
        .client()
        .query(
            "SELECT desk_id, name FROM desks ORDER BY name, desk_id",
            &[],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect())
}
