//! The shop when it answers, else this desk (docs/design.md §8): the board, History's pages
//! and totals, the day close and the poll lease of a desk online in a shop, read through the
//! session's reader on the worker. Each read borrows the shop's connection for its query only,
//! within the reader's limit, and gives `None` when the shop does not answer in time: the
//! caller then reads this desk's own file, and the top bar already says the desk is offline.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use chrono::NaiveDate;

use super::poll::{BUDGET_PATIENCE, PollError, Polled, poll_in_shop, refresh_for_day_close};
use super::receipt::receipt_in_shop;
use super::renew::{RenewError, RenewalMarks, Renewed, renewal_number};
use super::{DayReport, Desk, DeskError, LinkTotals, StoredLink};
use crate::clock::Zone;
use crate::domain::Link;
use crate::domain::share::SendMark;
use crate::shop::lease::LinkKey;
use crate::shop::outreach;
use crate::shop::read::{self, Account, ShopLink, ShopQuery};
use crate::shop::report::{self as shop_report, ReportScope};
use crate::shop::session::ShopReader;
use crate::shop::{Shop, ShopError};

/// What asking about a link through the shop's lease gave (docs/design.md §8, "One poller
/// per link").
#[derive(Debug)]
pub enum LeaseAnswer {
    /// The shop granted this desk the link and a token of its budget: the server's answer,
    /// as any refresh (stored, so in the outbox, which the session pushes).
    Asked(Result<Link, DeskError>),
    /// Another desk polls it, or did within this link's interval: the shop's answer.
    Shared(Option<Link>),
    /// Nothing this turn: the shop's budget stayed spent, the link is not of this profile's
    /// account, or the shop did not answer in time.
    Nothing,
}

/// Asks about link `id` through the shop's lease ([`poll_in_shop`], waiting up to
/// [`BUDGET_PATIENCE`] for a token), as the board's refresh takes it.
pub async fn poll_through_lease(
    reader: ShopReader,
    desk: &Desk,
    desk_id: &str,
    id: &str,
    fresh_for: Duration,
) -> LeaseAnswer {
    let key = LinkKey::new(Account::of_profile(desk.profile(), desk_id), id);
    LeaseAnswer::from(poll_in_shop(&reader, desk, &key, fresh_for, BUDGET_PATIENCE).await)
}

/// Day close's Refresh of link `id` on a desk online in a shop ([`refresh_for_day_close`]):
/// `Ok` when this desk asked the API or the shop knows the link's status; [`DeskError::ShopBusy`]
/// when the shop's budget or connection stayed busy.
async fn refresh_in_shop(
    reader: &ShopReader,
    desk: &Desk,
    desk_id: &str,
    id: &str,
) -> Result<(), DeskError> {
    let key = LinkKey::new(Account::of_profile(desk.profile(), desk_id), id);
    match refresh_for_day_close(reader, desk, &key).await {
        Ok(Polled::Asked { .. } | Polled::Shared { .. }) => Ok(()),
        Ok(Polled::BudgetSpent { .. } | Polled::Foreign) | Err(PollError::Unanswered) => {
            Err(DeskError::ShopBusy)
        }
        Err(PollError::Desk(e)) => Err(e),
        Err(PollError::Shop(e)) => {
            tracing::warn!(error = %e, "Day close's refresh through the shop");
            Err(DeskError::ShopBusy)
        }
    }
}

impl From<Result<Polled, PollError>> for LeaseAnswer {
    fn from(polled: Result<Polled, PollError>) -> Self {
        match polled {
            Ok(Polled::Asked { link }) => LeaseAnswer::Asked(Ok(link)),
            Ok(Polled::Shared { known, .. }) => LeaseAnswer::Shared(known),
            Err(PollError::Desk(e)) => LeaseAnswer::Asked(Err(e)),
            Ok(Polled::BudgetSpent { .. } | Polled::Foreign) | Err(PollError::Unanswered) => {
                LeaseAnswer::Nothing
            }
            Err(PollError::Shop(e)) => {
                tracing::warn!(error = %e, "the shop's poll lease could not be asked");
                LeaseAnswer::Nothing
            }
        }
    }
}

/// The board of the whole shop, as read from it.
#[derive(Debug)]
pub struct ShopBoard {
    /// The rows, newest first.
    pub rows: Vec<StoredLink>,
    /// The links of this desk's account: asked about through the lease.
    pub polled: HashSet<String>,
    /// Of those, the ones other desks made.
    pub elsewhere: HashSet<String>,
    /// Every desk's sends of the board's week, oldest first.
    pub sends: Vec<SendMark>,
    /// The rows other desks made (of any account).
    pub foreign: HashSet<String>,
}

/// The board of the whole shop: the shop's rows (a link of another desk names that desk
/// beside its clerk), with this desk's rows not pushed yet; `None` when the shop did not
/// answer in time (the desk's own rows are shown instead).
async fn shop_board(
    reader: ShopReader,
    desk: &Desk,
    desk_id: &str,
    zone: Zone,
) -> Option<ShopBoard> {
    let now = desk.now();
    let today = crate::board::local_day_start(now, zone);
    let week = now - chrono::Duration::days(crate::board::PENDING_DAYS);
    let (links, sends) = {
        let shop = reader.connection().await?;
        let read = async {
            let links = read::board(&shop, today, week, crate::board::MAX_ROWS).await?;
            let sends = outreach::sends_since(&shop, week).await?;
            Ok::<_, ShopError>((links, sends))
        };
        match tokio::time::timeout(reader.query_limit(), read).await {
            Ok(Ok(read)) => read,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "the shop's board could not be read");
                return None;
            }
            Err(_) => return None,
        }
    };
    let profile = desk.profile();
    let own = Account::of_profile(profile, desk_id);
    let mut polled = HashSet::new();
    let mut elsewhere = HashSet::new();
    let mut foreign = HashSet::new();
    let mut rows: Vec<StoredLink> = links
        .into_iter()
        .map(|l| {
            // Every desk of an account follows its links, each ask through the shop's lease
            // within the shop's one budget: the maker asks while it runs, and when it stops
            // its lease runs out and another desk asks for it. Another account's links, and
            // another desk's built-in sandbox's, are never asked about from here.
            if l.account == own {
                polled.insert(l.link.id.clone());
                if l.desk_id != desk_id {
                    elsewhere.insert(l.link.id.clone());
                }
            }
            let mut row = l.stored(&profile.name, desk_id);
            if l.desk_id != desk_id {
                foreign.insert(l.link.id.clone());
                row.staff = Some(match &l.staff {
                    Some(member) => format!("{} · {member}", l.desk_name),
                    None => l.desk_name.clone(),
                });
            }
            row
        })
        .collect();
    // This desk's links still in its outbox are on its board all the same.
    let known: HashSet<String> = rows.iter().map(|r| r.link.id.clone()).collect();
    if let Ok(own_rows) = desk.board_links_in(zone) {
        for r in own_rows.into_iter().filter(|r| !known.contains(&r.link.id)) {
            polled.insert(r.link.id.clone());
            rows.push(r);
        }
    }
    rows.sort_by(|a, b| (b.created_at, &b.link.id).cmp(&(a.created_at, &a.link.id)));
    rows.truncate(crate::board::MAX_ROWS);
    Some(ShopBoard {
        rows,
        polled,
        elsewhere,
        sends,
        foreign,
    })
}

/// One page of the shop's links for `query`; `None` when the shop did not answer in time.
async fn shop_page(reader: &ShopReader, query: &ShopQuery) -> Option<Vec<ShopLink>> {
    let shop = reader.connection().await?;
    tokio::time::timeout(reader.query_limit(), read::page(&shop, query))
        .await
        .ok()?
        .inspect_err(|e| tracing::warn!(error = %e, "History read from the shop's PostgreSQL"))
        .ok()
}

/// How many of the shop's links match `query`, and their sums; `None` when the shop's
/// connection stayed busy. PostgreSQL ends the count after the reader's limit.
async fn shop_totals(
    reader: &ShopReader,
    query: &ShopQuery,
) -> Option<Result<LinkTotals, ShopError>> {
    let limit = reader.query_limit();
    let mut shop = reader.connection().await?;
    let counted = tokio::time::timeout(limit * 2, read::totals(&mut shop, query, limit))
        .await
        .ok()?;
    if let Err(e) = &counted {
        tracing::warn!(error = %e, "History's totals read from the shop's PostgreSQL");
    }
    Some(counted)
}

/// The shop's day close of local days `from..=to` (of this desk only with `this_desk`), with
/// this desk's audit head; `None` when the shop did not answer in time.
async fn shop_day_report(
    reader: &ShopReader,
    desk: &Desk,
    desk_id: &str,
    (from, to): (NaiveDate, NaiveDate),
    zone: Zone,
    this_desk: bool,
) -> Option<DayReport> {
    let head = desk.audit_head().ok()?;
    let account = Account::of_profile(desk.profile(), desk_id).key();
    let scope = ReportScope {
        from,
        to,
        zone,
        now: desk.now(),
        desk: this_desk.then_some(desk_id),
        account: &account,
        viewer: desk_id,
    };
    confirm_before_close(reader, desk, desk_id, &scope).await;
    let mut shop = reader.connection().await?;
    tokio::time::timeout(
        reader.query_limit(),
        shop_report::day_report(&mut shop, &scope, head),
    )
    .await
    .ok()?
    .inspect_err(|e| tracing::warn!(error = %e, "Day close read from the shop's PostgreSQL"))
    .ok()
}

/// How many other desks' unconfirmed payments a day close asks the payment API about before
/// it is read (each takes a token of the shop's one budget, a second apart); the rest stay
/// counted apart until the board or Day close's Refresh confirms them.
const CONFIRM_BEFORE_CLOSE: usize = 10;

/// Before a day close is read: the payments other desks claim in its days that no second desk
/// confirmed, asked about with this desk's own calls (`poll::poll_in_shop` confirms or
/// contradicts each), so that desks whose payments are real close the same day. A claim that
/// cannot be asked about (another desk's built-in sandbox, no token in time) stays apart.
async fn confirm_before_close(
    reader: &ShopReader,
    desk: &Desk,
    desk_id: &str,
    scope: &ReportScope<'_>,
) {
    let ids = {
        let Some(shop) = reader.connection().await else {
            return;
        };
        let listed = shop_report::claims_of_others(&shop, scope, CONFIRM_BEFORE_CLOSE);
        match tokio::time::timeout(reader.query_limit(), listed).await {
            Ok(Ok(ids)) => ids,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "the claims to confirm before Day close");
                return;
            }
            Err(_) => return,
        }
    };
    let account = Account::of_profile(desk.profile(), desk_id);
    for id in ids {
        let key = LinkKey::new(account.clone(), id);
        if let Err(e) = poll_in_shop(reader, desk, &key, Duration::ZERO, BUDGET_PATIENCE).await {
            tracing::warn!(error = ?e, "a claim asked about before Day close");
        }
    }
}

/// A link of any desk, read from the shop as desk `viewer` sees it (`None`: no answer in time,
/// or no such link).
async fn shop_link(reader: &ShopReader, id: &str, viewer: &str) -> Option<StoredLink> {
    let shop = reader.connection().await?;
    tokio::time::timeout(reader.query_limit(), read::link(&shop, id))
        .await
        .ok()?
        .inspect_err(|e| tracing::warn!(error = %e, "a link read from the shop"))
        .ok()
        .flatten()
        .map(|l| l.stored("", viewer))
}

/// Where a read was answered from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The shop's PostgreSQL: every desk's links.
    Shop,
    /// This desk's own file: no shop joined, offline, or no answer in time.
    Desk,
}

/// The desk that made a link read from the shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MadeBy {
    /// Its device id.
    pub id: String,
    /// Its shown name.
    pub name: String,
    /// Another desk than this one.
    pub elsewhere: bool,
}

/// A link as History and `link list` list it: the row, and the desk that made it when the
/// shop answered.
#[derive(Debug, Clone)]
pub struct Listed {
    /// The link as stored.
    pub stored: StoredLink,
    /// The desk that made it; `None` when read from this desk's own file.
    pub desk: Option<MadeBy>,
}

/// One page of links, newest first.
#[derive(Debug)]
pub struct ListedPage {
    /// The links.
    pub rows: Vec<Listed>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<super::LinkCursor>,
    /// Where it was read.
    pub source: Source,
}

/// The board's rows, with the lease's sets when the shop answered.
#[derive(Debug)]
pub struct BoardRead {
    /// The rows, newest first.
    pub rows: Vec<StoredLink>,
    /// The links asked about through the shop's lease; `None`: every row (the desk's own).
    pub polled: Option<HashSet<String>>,
    /// Of those, the ones other desks made.
    pub elsewhere: HashSet<String>,
    /// The last send of each row's link to its payer (every desk's when the shop answered),
    /// by link id.
    pub sends: HashMap<String, SendMark>,
    /// The links reminded (every desk's while the shop answers).
    pub reminded: HashSet<String>,
    /// When a reminder is due.
    pub sending: super::SendingSettings,
    /// This desk's e-mails still in its queue (waiting, or refused for good), by link id.
    pub mail: HashMap<String, crate::domain::share::MailState>,
    /// The rows other desks made: sent and reminded from their own desks.
    pub foreign: HashSet<String>,
}

/// Runs `ask` on the shop's connection within the reader's limit; a shop that is busy past
/// it, silent or refusing is [`RenewError::ShopUnreachable`] (its words logged here).
async fn in_shop<T>(
    reader: &ShopReader,
    ask: impl AsyncFnOnce(&Shop) -> Result<T, ShopError>,
) -> Result<T, RenewError> {
    let conn = reader
        .connection()
        .await
        .ok_or(RenewError::ShopUnreachable)?;
    match tokio::time::timeout(reader.query_limit(), ask(&conn)).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the shop did not answer the renewal");
            Err(RenewError::ShopUnreachable)
        }
        Err(_) => Err(RenewError::ShopUnreachable),
    }
}

/// The last send of each link among `sends` (oldest first), this desk's not pushed yet
/// included.
fn last_sends(sends: impl IntoIterator<Item = SendMark>) -> HashMap<String, SendMark> {
    let mut last: HashMap<String, SendMark> = HashMap::new();
    for mark in sends {
        match last.get(&mark.link_id) {
            Some(known) if known.at > mark.at => {}
            _ => {
                last.insert(mark.link_id.clone(), mark);
            }
        }
    }
    last
}

/// The one place that decides between the shop and this desk (docs/design.md §8): each read
/// of the board, History's pages and totals, a link, the day close and a CSV export is
/// answered by the shop while it answers within the reader's limit, else by this desk's own
/// file; a status poll goes through the shop's lease while joined, else straight to the API.
/// The window and the terminal both read through it. A shop that fails a read is logged here
/// once; the caller learns only where the answer came from ([`Source`]).
#[derive(Debug, Clone)]
pub struct Reads {
    desk: Desk,
    shop: Option<(ShopReader, String)>,
}

impl Reads {
    /// Reads for `desk`, through `shop` (the session's or a connection's own reader, and this
    /// desk's id) when the desk is joined and online.
    pub fn new(desk: Desk, shop: Option<(ShopReader, String)>) -> Reads {
        Reads { desk, shop }
    }

    /// Whether a shop is asked first.
    pub fn through_shop(&self) -> bool {
        self.shop.is_some()
    }

    /// The shop's query of a desk's query, after `query.before`; this desk's links only with
    /// `this_desk`.
    fn shop_query(
        query: &super::LinkQuery,
        range: Option<super::TimeRange>,
        (desk, viewer): (Option<&str>, &str),
    ) -> ShopQuery {
        ShopQuery {
            text: query.text.clone(),
            status: query.status.clone(),
            staff: query.staff.clone(),
            desk: desk.map(str::to_owned),
            range,
            before: query.before.clone(),
            limit: query.limit,
            viewer: viewer.to_owned(),
        }
    }

    /// One page of links matching `query` in `range` (of this desk only with `this_desk`).
    pub async fn page(
        &self,
        query: &super::LinkQuery,
        range: Option<super::TimeRange>,
        this_desk: bool,
    ) -> Result<ListedPage, DeskError> {
        if let Some((reader, desk_id)) = &self.shop {
            let shop_query =
                Self::shop_query(query, range, (this_desk.then_some(desk_id), desk_id));
            if let Some(links) = shop_page(reader, &shop_query).await {
                let limit = if query.limit == 0 { 50 } else { query.limit };
                let next = (links.len() == limit)
                    .then(|| links.last().map(ShopLink::cursor))
                    .flatten();
                let rows = links
                    .iter()
                    .map(|l| Listed {
                        stored: l.stored("", desk_id),
                        desk: Some(MadeBy {
                            id: l.desk_id.clone(),
                            name: l.desk_name.clone(),
                            elsewhere: l.desk_id != *desk_id,
                        }),
                    })
                    .collect();
                return Ok(ListedPage {
                    rows,
                    next,
                    source: Source::Shop,
                });
            }
        }
        let page = self.desk.history_in(query, range)?;
        Ok(ListedPage {
            rows: page
                .links
                .into_iter()
                .map(|stored| Listed { stored, desk: None })
                .collect(),
            next: page.next,
            source: Source::Desk,
        })
    }

    /// How many links match `query` in `range`, and their sums. The shop's count while its
    /// connection is free (a count the shop ended after its limit is an error, not the desk's
    /// smaller count), else the desk's own.
    pub async fn totals(
        &self,
        query: &super::LinkQuery,
        range: Option<super::TimeRange>,
    ) -> Result<(LinkTotals, Source), DeskError> {
        if let Some((reader, desk_id)) = &self.shop
            && let Some(counted) =
                shop_totals(reader, &Self::shop_query(query, range, (None, desk_id))).await
        {
            return Ok((counted?, Source::Shop));
        }
        Ok((self.desk.history_totals(query, range)?, Source::Desk))
    }

    /// A link: this desk's own, else another desk's from the shop.
    pub async fn link(&self, id: &str) -> Result<StoredLink, DeskError> {
        match self.desk.history_entry(id) {
            Err(DeskError::NoLink(_)) if self.shop.is_some() => {
                let (reader, desk_id) = self.shop.as_ref().expect("checked: a shop");
                shop_link(reader, id, desk_id)
                    .await
                    .ok_or_else(|| DeskError::NoLink(id.to_owned()))
            }
            other => other,
        }
    }

    /// Where each of links `ids` was sent, oldest first: every desk's sends from the shop
    /// while it answers, with this desk's own it has not pushed yet; else this desk's own.
    pub async fn sends_of(
        &self,
        ids: &[String],
    ) -> Result<HashMap<String, Vec<SendMark>>, DeskError> {
        let mut by_link: HashMap<String, Vec<SendMark>> = HashMap::new();
        if let Some((reader, _)) = &self.shop
            && let Some(shop) = reader.connection().await
            && let Ok(Ok(sends)) =
                tokio::time::timeout(reader.query_limit(), outreach::sends_of(&shop, ids)).await
        {
            for mark in sends {
                by_link.entry(mark.link_id.clone()).or_default().push(mark);
            }
        }
        // This desk's own sends the shop does not hold yet (its audit not pushed) too.
        for id in ids {
            let known = by_link.entry(id.clone()).or_default();
            for mark in self.desk.link_sends(id)? {
                if !known
                    .iter()
                    .any(|k| k.at == mark.at && k.channel == mark.channel)
                {
                    known.push(mark);
                }
            }
            known.sort_by_key(|m| m.at);
        }
        Ok(by_link)
    }

    /// [`Reads::renewal_marks`] of a page's rows.
    pub async fn renewal_marks_of(
        &self,
        rows: &[Listed],
    ) -> Result<HashMap<String, RenewalMarks>, DeskError> {
        let ids: Vec<String> = rows.iter().map(|l| l.stored.link.id.clone()).collect();
        let orders: Vec<String> = rows
            .iter()
            .map(|l| l.stored.link.order_or_id().to_owned())
            .collect();
        self.renewal_marks(&ids, &orders).await
    }

    /// What History and `link list` mark of each of links `ids` (with their order numbers
    /// `orders`): the shop's renewals, every desk's, while it answers, else this desk's own.
    pub async fn renewal_marks(
        &self,
        ids: &[String],
        orders: &[String],
    ) -> Result<HashMap<String, RenewalMarks>, DeskError> {
        let mut marks: HashMap<String, RenewalMarks> = HashMap::new();
        if let Some((reader, _)) = &self.shop
            && let Some(shop) = reader.connection().await
            && let Ok(Ok(renewals)) = tokio::time::timeout(
                reader.query_limit(),
                outreach::renewals_of(&shop, ids, orders),
            )
            .await
        {
            for r in renewals {
                marks.entry(r.original_id.clone()).or_default().renewed_as =
                    Some((r.order_id.clone(), r.renewed_as.clone()));
                if let Some(new) = r.renewed_as {
                    marks.entry(new).or_default().renews = Some((r.original_order, r.original_id));
                }
            }
            return Ok(marks);
        }
        for id in ids {
            let mark = self.desk.renewal_marks(id)?;
            if mark != RenewalMarks::default() {
                marks.insert(id.clone(), mark);
            }
        }
        Ok(marks)
    }

    /// Queues the e-mail reminders due now (`service::remind`), from `from` in `lang` with
    /// `shop_name`: on a joined desk each claimed in the shop first, once across the shop (a
    /// link another desk reminded is passed by); when the shop does not answer, this desk, whose
    /// history holds the link, sends it. Returns how many were queued.
    pub async fn queue_due_reminders(
        &self,
        services: &super::Services,
        from: &crate::domain::EmailAddress,
        (shop_name, lang): (&str, crate::lang::Lang),
        zone: Zone,
    ) -> Result<usize, DeskError> {
        let settings = services.sending_settings()?;
        let mut queued = 0;
        for (link, to) in self.desk.email_reminders_due(&settings)? {
            if !self.claim_reminder(&link.id).await {
                continue;
            }
            // One link's failure (the file busy) leaves the others' reminders to go; this
            // desk's claim stays its own, so the next pass tries again.
            match self
                .desk
                .queue_reminder(services, (&link, &to), from, (shop_name, lang), zone)
            {
                Ok(made) => queued += usize::from(made.is_some()),
                Err(e) => tracing::warn!(link = %link.id, error = %e, "a reminder was not queued"),
            }
        }
        Ok(queued)
    }

    /// Claims the one reminder of link `id` across the shop: `true` when this desk may send
    /// it (it claimed it, or no shop answers), `false` when another desk claimed it.
    pub async fn claim_reminder(&self, id: &str) -> bool {
        let Some((reader, desk_id)) = &self.shop else {
            return true;
        };
        let account = Account::of_profile(self.desk.profile(), desk_id).key();
        let claim = in_shop(reader, async |conn| {
            outreach::claim_mail(conn, desk_id, &account, id, outreach::MailClaim::Reminder).await
        });
        claim.await.unwrap_or(true)
    }

    /// Renews link `id` of this desk's history ("Send a new link", `service::renew`): while
    /// the desk is joined, the order number is free in the shop too and the renewal is
    /// claimed there first, once across the shop; a joined desk whose shop does not answer
    /// does not renew.
    pub async fn renew(&self, id: &str) -> Result<Renewed, RenewError> {
        let desk = &self.desk;
        // The server's word first: a link paid just before it expired is not renewed.
        desk.link_detail(id).await?;
        let plan = desk.renewal_start(id)?;
        let shop = match &self.shop {
            Some((reader, desk_id)) => Some((reader, desk_id.as_str())),
            None if desk.joined()? => return Err(RenewError::ShopUnreachable),
            None => None,
        };
        let account = shop.map(|(_, desk_id)| Account::of_profile(desk.profile(), desk_id).key());
        // A renewal this desk claimed in the shop whose local record was lost (a crash, an
        // answer lost after the shop committed) is taken up again under its number.
        let own = match (shop, &account) {
            (Some((reader, desk_id)), Some(account)) => {
                let claimed = in_shop(reader, async |conn| {
                    outreach::renewal_claimed(conn, account, id).await
                })
                .await?;
                match claimed {
                    Some((order, by)) if by == desk_id => Some(order),
                    Some((order, _)) => return Err(RenewError::AlreadyRenewed { order }),
                    None => None,
                }
            }
            _ => None,
        };
        let (order, number) = if let Some(order) = plan.order.clone().or(own) {
            let number = renewal_number(&plan.root, &order).unwrap_or(plan.number);
            (order, number)
        } else {
            let taken = |order: String| async move {
                match shop {
                    Some((reader, _)) => {
                        in_shop(reader, async |conn| {
                            outreach::order_taken(conn, &order).await
                        })
                        .await
                    }
                    None => Ok(false),
                }
            };
            desk.free_renewal_order(&plan.root, plan.number, taken)
                .await?
        };
        let request = desk.renewal_request(&plan.stored.link, &order)?;
        if let (Some((reader, desk_id)), Some(account)) = (shop, &account) {
            let staff = desk.actor().member.as_ref().map(|m| m.name.clone());
            let original = (account.as_str(), id, plan.stored.link.order_or_id());
            let (standing, _) = in_shop(reader, async |conn| {
                outreach::claim_renewal(conn, desk_id, original, &order, staff.as_deref()).await
            })
            .await?;
            if standing != order {
                return Err(RenewError::AlreadyRenewed { order: standing });
            }
        }
        desk.renew_claimed(&plan.stored, (&plan.root, number, &order), &request)
            .await
    }

    /// The day close of local days `from..=to` in `zone` (of this desk only with
    /// `this_desk`), with this desk's audit head.
    pub async fn day_report(
        &self,
        (from, to): (NaiveDate, NaiveDate),
        zone: Zone,
        this_desk: bool,
    ) -> Result<(DayReport, Source), DeskError> {
        if let Some((reader, desk_id)) = &self.shop
            && let Some(report) =
                shop_day_report(reader, &self.desk, desk_id, (from, to), zone, this_desk).await
        {
            return Ok((report, Source::Shop));
        }
        Ok((self.desk.day_report(from, to, zone)?, Source::Desk))
    }

    /// The board's rows of `zone`'s day (and the week's unpaid).
    pub async fn board(&self, zone: Zone) -> Result<BoardRead, DeskError> {
        let week = self.desk.now() - chrono::Duration::days(crate::board::PENDING_DAYS);
        let own_sends = self.desk.sends_since(week)?;
        let mail = self.desk.mail_states()?;
        let mut reminded = self.desk.reminded_since(week)?;
        let sending = self.desk.sending_settings()?;
        if let Some((reader, _)) = &self.shop
            && let Ok(shop_reminded) = in_shop(reader, async |conn| {
                outreach::reminded_since(conn, week).await
            })
            .await
        {
            reminded.extend(shop_reminded);
        }
        if let Some((reader, desk_id)) = &self.shop
            && let Some(board) = shop_board(reader.clone(), &self.desk, desk_id, zone).await
        {
            return Ok(BoardRead {
                rows: board.rows,
                polled: Some(board.polled),
                elsewhere: board.elsewhere,
                sends: last_sends(board.sends.into_iter().chain(own_sends)),
                reminded,
                sending,
                mail,
                foreign: board.foreign,
            });
        }
        Ok(BoardRead {
            rows: self.desk.board_links_in(zone)?,
            polled: None,
            elsewhere: HashSet::new(),
            sends: last_sends(own_sends),
            reminded,
            sending,
            mail,
            foreign: HashSet::new(),
        })
    }

    /// Asks about link `id`: through the shop's lease while joined ([`poll_through_lease`]),
    /// else the API straight away (one attempt, as any refresh).
    pub async fn poll(&self, id: &str, fresh_for: Duration) -> LeaseAnswer {
        match &self.shop {
            Some((reader, desk_id)) => {
                poll_through_lease(reader.clone(), &self.desk, desk_id, id, fresh_for).await
            }
            None => LeaseAnswer::Asked(self.desk.poll_link(id).await),
        }
    }

    /// Asks the API about link `id` (History's Refresh statuses, `link show --refresh`) and
    /// stores the answer in history; a link it turns paid in full gets its automatic receipt
    /// claimed in the shop first while joined and online (`service::receipt`), else as a desk
    /// without its shop.
    pub async fn link_detail(&self, id: &str) -> Result<Link, DeskError> {
        let heard = self.desk.detail_heard(id).await?;
        match &self.shop {
            Some((reader, desk_id)) => {
                let key = LinkKey::new(Account::of_profile(self.desk.profile(), desk_id), id);
                receipt_in_shop(reader, &self.desk, (desk_id, &key), &heard).await;
            }
            None => self.desk.receipt_without_shop(&heard),
        }
        Ok(heard.link)
    }

    /// Day close's Refresh of link `id`: through the shop's lease and its one budget while
    /// joined (`service::poll::refresh_for_day_close`), else the API's link detail, stored as any
    /// refresh.
    pub async fn refresh_for_day_close(&self, id: &str) -> Result<(), DeskError> {
        match &self.shop {
            Some((reader, desk_id)) => refresh_in_shop(reader, &self.desk, desk_id, id).await,
            None => self.desk.link_detail(id).await.map(|_| ()),
        }
    }

    /// Writes the links matching `query` in `range` (of this desk only with `this_desk`) to
    /// `out` as CSV, every one of them, and says how many and from where: the shop's a page at
    /// a time with the desk column (a shop that stops answering midway fails the export
    /// rather than mixing in this desk's rows), else this desk's own in one pass.
    pub async fn export_csv<W: std::io::Write>(
        &self,
        query: &super::LinkQuery,
        range: Option<super::TimeRange>,
        this_desk: bool,
        zone: Zone,
        out: W,
    ) -> Result<(usize, Source), DeskError> {
        let mut shop_query = None;
        let mut first = None;
        if let Some((reader, desk_id)) = &self.shop {
            let mut q = Self::shop_query(query, range, (this_desk.then_some(desk_id), desk_id));
            q.limit = EXPORT_PAGE;
            first = shop_page(reader, &q).await;
            shop_query = Some((reader, q));
        }
        let (Some(mut page), Some((reader, mut shop_query))) = (first, shop_query) else {
            let rows = self.desk.export_history_csv(query, range, zone, out)?;
            return Ok((rows, Source::Desk));
        };
        let mut writer = super::LinkCsvWriter::new_with_desk(out, zone)?;
        loop {
            for l in &page {
                writer.write_with_desk(&l.stored("", &shop_query.viewer), &l.desk_name)?;
            }
            match page.last() {
                Some(last) if page.len() == EXPORT_PAGE => shop_query.before = Some(last.cursor()),
                _ => break,
            }
            page = shop_page(reader, &shop_query)
                .await
                .ok_or(DeskError::ShopStopped)?;
        }
        let rows = writer.rows();
        writer.finish()?;
        Ok((rows, Source::Shop))
    }
}

/// The links a CSV export reads from the shop at a time.
const EXPORT_PAGE: usize = 1_000;
