//! Asking about a link's status when the desk has joined a shop: one poller per link for the
//! whole shop, within the shop's one budget (docs/design.md §8, "One poller per link").
//!
//! A joined desk calls [`poll_in_shop`] where a lone desk calls [`Desk::poll_link`]: it asks
//! the shop first ([`lease::ask`]); only when the shop grants the lease and a token does it ask
//! the API (the answer goes into the outbox, which the session, or the CLI, pushes). Otherwise
//! it reads what the shop knows of the link, and asks nothing. Day close's Refresh calls
//! [`refresh_for_day_close`], which spends the same budget.
//!
//! The shop's connection comes from a [`ShopReader`] and is borrowed for one question at a
//! time, within the reader's query limit, never across the server's answer: a push or another
//! read waits no longer than one query.
//!
//! A granted desk asks the API for its own link as any refresh (history, then the outbox), and
//! for a link another desk made on the same account ([`Maker::Other`]: that desk stopped, so
//! its lease ran out) into the outbox only, under its maker ([`Desk::poll_foreign`]). A desk
//! that reads the shop's answer for its own link takes it into history when it is newer
//! ([`Desk::take_shared`]). An answer that turns a link paid in full has its automatic receipt
//! claimed in the shop first (`service::receipt::receipt_in_shop`): one per link across the
//! shop, from the maker or from the desk that took over its polling.
//!
//! # Who calls these
//!
//! - **The board** (`app/board.rs`): [`poll_in_shop`] through `service::shared::
//!   poll_through_lease` for every link of the profile's account on the shop's board
//!   (`fresh_for` the refresher's interval for the link); an alert is the maker's only.
//! - **Day close's Refresh** (`app/report.rs`): [`refresh_for_day_close`] for each open link,
//!   one after the other (the shop's budget spaces them).
//! - **Leaving or shutting down** (`shop leave`, the app closing): `lease::release_all(&shop,
//!   &device_id)` before the session ends, so the next desk takes over at once instead of
//!   after [`lease::LEASE`].

use std::time::{Duration, Instant};

use super::receipt::{Heard, receipt_in_shop};
use super::{Desk, DeskError};
use crate::domain::Link;
use crate::lang::Lang;
use crate::shop::confirm;
use crate::shop::lease::{self, Account, Ask, LinkKey};
use crate::shop::read::{self, ShopLink};
use crate::shop::session::ShopReader;
use crate::shop::{Shop, ShopError};

/// How long the board's ask waits for the shop's budget (several desks want the same token)
/// before it gives up for this turn.
pub const BUDGET_PATIENCE: Duration = Duration::from_secs(2);

/// How long one Day close refresh waits for the shop's budget: the desks' boards spend it
/// too, and Refresh asks about its links one after the other.
pub const DAY_CLOSE_PATIENCE: Duration = Duration::from_secs(30);

/// What asking about a link in a shop did.
#[derive(Debug)]
pub enum Polled {
    /// This desk asked the API: the answer, stored on the desk and waiting in the outbox
    /// for the next push.
    Asked {
        /// The link as the server answered.
        link: Link,
    },
    /// Another desk holds the link's lease, or asked about it less than `fresh_for` ago:
    /// nothing was asked; here is what the shop knows.
    Shared {
        /// The desk that polls it.
        by: String,
        /// Whether that desk holds the lease now (else its answer was fresh enough).
        held: bool,
        /// The shop's last answer for the link (`None`: nobody pushed it yet).
        known: Option<Link>,
    },
    /// The shop's budget stayed spent for the whole patience: nothing was asked.
    BudgetSpent {
        /// When the next token is due.
        retry_after: Duration,
    },
    /// The link is not of this desk's profile's account (another account, or another desk's
    /// built-in sandbox): never asked from this desk.
    Foreign,
}

impl Polled {
    /// Whether this desk asked the API.
    pub fn asked(&self) -> bool {
        matches!(self, Polled::Asked { .. })
    }

    /// The link as this call learnt it: the server's answer, or the shop's.
    pub fn link(&self) -> Option<&Link> {
        match self {
            Polled::Asked { link, .. } => Some(link),
            Polled::Shared { known, .. } => known.as_ref(),
            Polled::BudgetSpent { .. } | Polled::Foreign => None,
        }
    }
}

/// Why asking in a shop failed.
#[derive(Debug, thiserror::Error)]
pub enum PollError {
    /// The shop failed (before anything was asked of the API).
    #[error(transparent)]
    Shop(#[from] ShopError),
    /// The shop's connection stayed busy, or a question went unanswered, for the reader's
    /// query limit (nothing was asked of the API).
    #[error("the shop did not answer in time")]
    Unanswered,
    /// The desk failed: its file, or the API's answer.
    #[error(transparent)]
    Desk(#[from] DeskError),
}

impl PollError {
    /// A sentence for the user.
    pub fn sentence(&self, lang: Lang) -> String {
        match self {
            PollError::Shop(e) => e.sentence(lang),
            PollError::Unanswered => DeskError::ShopBusy.sentence(lang),
            PollError::Desk(e) => e.sentence(lang),
        }
    }
}

impl Desk {
    /// The account this desk's profile reaches, as the shop keys links: the profile's base URL
    /// and API key id, and this desk's id for its built-in sandbox.
    pub fn shop_account(&self) -> Result<Account, DeskError> {
        let desk_id = self.with_store(|s| s.profiles().device_id())?;
        Ok(Account::of_profile(self.profile(), &desk_id))
    }

    /// The shop's key of the link `id` of this desk's profile.
    pub fn shop_key(&self, id: &str) -> Result<LinkKey, DeskError> {
        Ok(LinkKey::new(self.shop_account()?, id))
    }
}

/// Whose link a granted lease is for: this desk's own, or the row of the desk that made it.
#[derive(Debug)]
pub enum Maker {
    /// This desk made it (or the shop does not have it yet: only its maker can know it).
    Own,
    /// Another desk made it on this desk's account: the shop's row.
    Other(Box<ShopLink>),
}

/// Whose the link `key` is, as the shop says, for desk `desk_id`.
pub async fn maker_of(shop: &Shop, desk_id: &str, key: &LinkKey) -> Result<Maker, ShopError> {
    Ok(match read::link_of(shop, key).await? {
        Some(row) if row.desk_id != desk_id => Maker::Other(Box::new(row)),
        _ => Maker::Own,
    })
}

impl Desk {
    /// Asks the server about the link `id` this desk holds the lease of: its own link as any
    /// refresh (history, then the outbox), another desk's for the shop only
    /// ([`Desk::poll_foreign`]). The receipt the answer may call for is the caller's, claimed
    /// in the shop (`service::receipt::receipt_in_shop`).
    pub async fn poll_granted(&self, id: &str, maker: &Maker) -> Result<Heard, DeskError> {
        match maker {
            Maker::Own => self.poll_heard(id).await,
            Maker::Other(row) => self.poll_foreign(row).await,
        }
    }
}

/// What the shop said before anything is asked of the server.
enum Turn {
    /// Granted: ask, then hand the answer to the shop as a confirmation when the shop's row
    /// is another desk's unconfirmed claim of payment.
    Ask(Maker, Option<Box<ShopLink>>),
    Shared {
        by: String,
        held: bool,
        known: Box<Option<ShopLink>>,
    },
    Wait(Duration),
}

/// One question to the shop, within the reader's limit.
async fn within<T>(
    limit: Duration,
    question: impl Future<Output = Result<T, ShopError>>,
) -> Result<T, PollError> {
    tokio::time::timeout(limit, question)
        .await
        .map_err(|_| PollError::Unanswered)?
        .map_err(PollError::Shop)
}

/// Asks about the link `key` through `desk` when the desk has joined the shop of `reader`:
/// asks the API only when the shop grants this desk the link's lease and a token of its
/// budget (waiting up to `patience` for a token); else returns what the shop knows, taken
/// into history when the link is the desk's own and the shop's answer is newer (another desk
/// polled it meanwhile). `fresh_for`: an answer of another desk younger than this is taken as
/// this desk's.
pub async fn poll_in_shop(
    reader: &ShopReader,
    desk: &Desk,
    key: &LinkKey,
    fresh_for: Duration,
    patience: Duration,
) -> Result<Polled, PollError> {
    let desk_id = desk.with_store(|s| s.profiles().device_id())?;
    let through = Account::of_profile(desk.profile(), &desk_id);
    let deadline = Instant::now() + patience;
    let limit = reader.query_limit();
    loop {
        let turn = {
            let shop = reader.connection().await.ok_or(PollError::Unanswered)?;
            let asked = lease::ask(&shop, &desk_id, key, &through, fresh_for);
            match within(limit, asked).await? {
                Ask::Granted { .. } => {
                    let row = within(limit, read::link_of(&shop, key)).await?;
                    let maker = match &row {
                        Some(r) if r.desk_id != desk_id => Maker::Other(Box::new(r.clone())),
                        _ => Maker::Own,
                    };
                    Turn::Ask(
                        maker,
                        row.filter(|r| r.to_confirm_by(&desk_id)).map(Box::new),
                    )
                }
                Ask::Held { by, .. } => Turn::Shared {
                    by,
                    held: true,
                    known: Box::new(within(limit, read::link_of(&shop, key)).await?),
                },
                Ask::Fresh { by, .. } => Turn::Shared {
                    by,
                    held: false,
                    known: Box::new(within(limit, read::link_of(&shop, key)).await?),
                },
                Ask::Spent { retry_after } => Turn::Wait(retry_after),
                Ask::Foreign => return Ok(Polled::Foreign),
            }
        };
        match turn {
            Turn::Ask(maker, claim) => {
                let heard = desk.poll_granted(&key.link_id, &maker).await?;
                if let Some(claimed) = &claim {
                    confirm_with(reader, desk, (&desk_id, key), claimed, &heard.link).await;
                }
                receipt_in_shop(reader, desk, (&desk_id, key), &heard).await;
                return Ok(Polled::Asked { link: heard.link });
            }
            Turn::Shared { by, held, known } => {
                let known = *known;
                if let Some(row) = &known
                    && row.to_confirm_by(&desk_id)
                    && let Some(link) =
                        confirm_claim(reader, desk, &desk_id, key, row, deadline).await?
                {
                    return Ok(Polled::Asked { link });
                }
                let known = known.map(|row| row.link);
                if let Some(link) = &known
                    && let Err(e) = desk.take_shared(link)
                {
                    tracing::warn!(error = %e, "the shop's answer could not be kept");
                }
                return Ok(Polled::Shared { by, held, known });
            }
            Turn::Wait(retry_after) => {
                if retry_after > deadline.saturating_duration_since(Instant::now()) {
                    return Ok(Polled::BudgetSpent { retry_after });
                }
                tokio::time::sleep(retry_after).await;
            }
        }
    }
}

/// Another desk's unconfirmed claim of payment on the link `key` (`row`), confirmed or
/// contradicted by this desk's own call to the payment API, within the shop's one budget
/// (a token by `deadline`; no lease: the claiming desk may hold it): the answer, or `None`
/// when no token came in time. This desk's own link is asked as any refresh (into history);
/// another desk's is only handed to the shop.
async fn confirm_claim(
    reader: &ShopReader,
    desk: &Desk,
    desk_id: &str,
    key: &LinkKey,
    row: &ShopLink,
    deadline: Instant,
) -> Result<Option<Link>, PollError> {
    let limit = reader.query_limit();
    loop {
        let wait = {
            let shop = reader.connection().await.ok_or(PollError::Unanswered)?;
            within(limit, confirm::budget_token(&shop)).await?
        };
        match wait {
            None => break,
            Some(w) if w <= deadline.saturating_duration_since(Instant::now()) => {
                tokio::time::sleep(w).await;
            }
            Some(_) => return Ok(None),
        }
    }
    let heard = if row.desk_id == desk_id {
        desk.poll_heard(&key.link_id).await?
    } else {
        desk.poll_foreign(row).await?
    };
    confirm_with(reader, desk, (desk_id, key), row, &heard.link).await;
    receipt_in_shop(reader, desk, (desk_id, key), &heard).await;
    Ok(Some(heard.link))
}

/// Hands this desk's own answer `link` about `key` to the shop as a confirmation of the claim
/// `claimed` (the shop's row); a contradiction is written to this desk's audit. A failure is
/// logged (the answer stays this desk's, and its outbox may still carry it).
async fn confirm_with(
    reader: &ShopReader,
    desk: &Desk,
    (desk_id, key): (&str, &LinkKey),
    claimed: &ShopLink,
    link: &Link,
) {
    let answer = crate::api::wire::PaymentLink::from(link);
    let Some(shop) = reader.connection().await else {
        return;
    };
    let confirmed = confirm::confirm(&shop, desk_id, key, &answer, desk.now());
    match tokio::time::timeout(reader.query_limit(), confirmed).await {
        Ok(Ok(outcome)) => {
            tracing::info!(link = %key.link_id, ?outcome, "a claim of payment was checked");
            if outcome == confirm::Confirmed::Contradicted {
                let by = claimed.claim_desk.as_deref().unwrap_or(&claimed.desk_id);
                let claim = (&claimed.link.status, claimed.link.paid.unwrap_or_default());
                if let Err(e) = desk.record_contradiction(link, claim, by) {
                    tracing::warn!(error = %e, "a contradicted payment was not written to the audit");
                }
            }
        }
        Ok(Err(e)) => tracing::warn!(error = %e, "a confirmation did not reach the shop"),
        Err(_) => tracing::warn!("a confirmation did not reach the shop in time"),
    }
}

/// Day close's Refresh of the link `key` in a shop: as [`poll_in_shop`] with no answer taken
/// as fresh (the clerk asked for now) and [`DAY_CLOSE_PATIENCE`] for a token of the shop's one
/// budget. A link another desk polls is read from the shop.
pub async fn refresh_for_day_close(
    reader: &ShopReader,
    desk: &Desk,
    key: &LinkKey,
) -> Result<Polled, PollError> {
    poll_in_shop(reader, desk, key, Duration::ZERO, DAY_CLOSE_PATIENCE).await
}
