//! "Send a new link" (issue 30, docs/design.md §"Sent, reminded, renewed"): an expired or
//! cancelled link that nobody paid, made again as a new link with the same amount, items,
//! currency, installments, partial payment and payer, a new expiry, and the order number of
//! its chain's first link with the next free suffix (`REM-2` renews as `REM-2-2`, that one as
//! `REM-2-3`).
//!
//! A renewal is a link creation like any other: its journal row and its key come first, so
//! exactly-once holds across a lost answer (the retry sends the same bytes under the same
//! key). What this module adds is the claim: one renewal per link, recorded in this desk's
//! file before the journal row (`store::renewals`) and, on a desk that joined a shop, in the
//! shop before that (`paydesk_claim_renewal`): a second desk that tries is told the first
//! one's order number and sends nothing. A joined desk whose shop does not answer does not
//! renew: it cannot know whether another desk did.

use chrono::{DateTime, TimeDelta, Utc};
use rust_decimal::Decimal;

use super::messages::ServiceMessage;
use super::{CreateError, Desk, DeskError, StoredLink};
use crate::domain::errors::FieldErrors;
use crate::domain::link::{LinkContext, LinkDraft, LinkRequest, MAX_ORDER_NUMBER_CHARS};
use crate::domain::share::SendMark;
use crate::domain::{ItemDraft, Link, LinkStatus};
use crate::lang::Lang;
use crate::store::{Renewal, RenewalClaim};

/// How long a renewed link lasts when its original's life is not known (it had an expiry but
/// no creation time): a day.
pub const RENEWAL_DEFAULT_LIFE: TimeDelta = TimeDelta::hours(24);

/// The shortest life a renewed link gets: a quarter of an hour.
pub const RENEWAL_MIN_LIFE: TimeDelta = TimeDelta::minutes(15);

/// The most suffixes tried for a free order number.
const SUFFIX_TRIES: u32 = 100;

/// Why a link was not renewed.
#[derive(Debug, thiserror::Error)]
pub enum RenewError {
    /// Only an expired or cancelled link with nothing paid can be renewed.
    #[error("link {0} is not an expired or cancelled link with nothing paid")]
    NotRenewable(String),
    /// The link was renewed before, as this order number (from this desk or another).
    #[error("the link was renewed before as {order}")]
    AlreadyRenewed {
        /// The renewal's order number.
        order: String,
    },
    /// A joined desk whose shop does not answer cannot know whether another desk renewed it.
    #[error("the shop does not answer; a link is renewed once across the shop")]
    ShopUnreachable,
    /// No free order number within 100 suffixes.
    #[error("no free order number after {0}")]
    NoFreeOrder(String),
    /// The new request does not validate (a catalog item gone, an order number too odd).
    #[error("the renewal does not validate")]
    Invalid(FieldErrors),
    /// The creation itself.
    #[error(transparent)]
    Create(#[from] CreateError),
    /// The desk.
    #[error(transparent)]
    Desk(#[from] DeskError),
}

impl RenewError {
    /// The error as a sentence in `lang`.
    pub fn sentence(&self, lang: Lang) -> String {
        match self {
            RenewError::NotRenewable(_) => ServiceMessage::RenewNotRenewable.get(lang).to_owned(),
            RenewError::AlreadyRenewed { order } => {
                ServiceMessage::RenewAlready.fill(lang, &[("order", order)])
            }
            RenewError::ShopUnreachable => ServiceMessage::RenewShopDown.get(lang).to_owned(),
            RenewError::NoFreeOrder(order) => {
                ServiceMessage::RenewNoFreeOrder.fill(lang, &[("order", order)])
            }
            RenewError::Invalid(errors) => errors.messages(lang).join(" "),
            RenewError::Create(e) => e.sentence(lang),
            RenewError::Desk(e) => e.sentence(lang),
        }
    }
}

/// What History and `link list --json` say of a link's renewals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenewalMarks {
    /// The link this one renews: its order number and id.
    pub renews: Option<(String, String)>,
    /// This link's renewal: its order number, and its id once made.
    pub renewed_as: Option<(String, Option<String>)>,
}

/// A renewal made.
#[derive(Debug, Clone)]
pub struct Renewed {
    /// The new link.
    pub link: Link,
    /// The link renewed.
    pub original: Link,
    /// How the link renewed was last sent to its payer, if it was: the new one goes the same
    /// way.
    pub last_sent: Option<SendMark>,
}

/// Where a renewal starts ([`Desk::renewal_start`]).
#[derive(Debug)]
pub(super) struct RenewalPlan {
    /// The link renewed.
    pub stored: StoredLink,
    /// The order number of its chain's first link.
    pub root: String,
    /// The number the renewal takes at least.
    pub number: u32,
    /// This desk's own earlier claim's order number, which the renewal takes again.
    pub order: Option<String>,
}

/// The order number of renewal `number` of a chain whose first order number is `root`: the
/// root with `-{number}`, the root shortened (by characters) so that the whole stays within
/// the order number's 64 characters.
pub fn renewal_order(root: &str, number: u32) -> String {
    let suffix = format!("-{number}");
    let kept = MAX_ORDER_NUMBER_CHARS.saturating_sub(suffix.chars().count());
    let base: String = root.chars().take(kept).collect();
    format!("{base}{suffix}")
}

/// The number of the renewal of `root`'s chain whose order number is `order` (the inverse of
/// [`renewal_order`]), when it is one.
pub fn renewal_number(root: &str, order: &str) -> Option<u32> {
    (2..2 + SUFFIX_TRIES * 10).find(|n| renewal_order(root, *n) == order)
}

/// Whether `link` (as stored, `cancelled` when paydesk cancelled it) may be renewed at `now`:
/// nothing paid, and expired (by the server's word, or past its expiry) or cancelled.
pub fn renewable(link: &Link, cancelled: bool, now: DateTime<Utc>) -> bool {
    let nothing_paid = link.paid_so_far() == Decimal::ZERO;
    let over = match link.status {
        LinkStatus::Expired => true,
        LinkStatus::Pending => cancelled || link.expiry.is_some_and(|e| e <= now),
        _ => false,
    };
    nothing_paid && over
}

/// The expiry a renewal of `original` gets at `now`: as long a life as the original had
/// (at least [`RENEWAL_MIN_LIFE`]), none when it had none.
pub fn renewal_expiry(original: &Link, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let expiry = original.expiry?;
    let life = original
        .created
        .map_or(RENEWAL_DEFAULT_LIFE, |created| expiry - created)
        .max(RENEWAL_MIN_LIFE);
    Some(now + life)
}

impl Desk {
    /// Whether this desk joined a shop.
    pub fn joined(&self) -> Result<bool, DeskError> {
        Ok(self.with_store(|s| s.shop().desk())?.shop_url.is_some())
    }

    /// The link `id` of this desk's history, checked renewable, with where its chain starts:
    /// the first link's order number and the number the next renewal takes at least; and the
    /// order number of this desk's own earlier claim that made no link yet (a refused or
    /// interrupted renewal is tried again under its number, whose claim it already holds).
    pub(super) fn renewal_start(&self, id: &str) -> Result<RenewalPlan, RenewError> {
        let stored = self.history_entry(id)?;
        if !renewable(&stored.link, stored.cancelled_at.is_some(), self.now()) {
            return Err(RenewError::NotRenewable(id.to_owned()));
        }
        let earlier = self.with_store(|s| s.renewals().of(self.profile_name(), id))?;
        if let Some(standing) = &earlier
            && standing.renewed_as.is_some()
        {
            return Err(RenewError::AlreadyRenewed {
                order: standing.order_id.clone(),
            });
        }
        if let Some(own) = earlier {
            return Ok(RenewalPlan {
                stored,
                root: own.root_order,
                number: own.number,
                order: Some(own.order_id),
            });
        }
        let made_by = self.with_store(|s| s.renewals().making(self.profile_name(), id))?;
        let (root, number) = match made_by {
            Some(r) => (r.root_order, r.number + 1),
            None => (stored.link.order_or_id().to_owned(), 2),
        };
        Ok(RenewalPlan {
            stored,
            root,
            number,
            order: None,
        })
    }

    /// The first order number of `root`'s chain from `number` on that this file does not know
    /// and `taken_elsewhere` does not say is taken; with its number.
    pub(super) async fn free_renewal_order<F, Fut>(
        &self,
        root: &str,
        number: u32,
        taken_elsewhere: F,
    ) -> Result<(String, u32), RenewError>
    where
        F: Fn(String) -> Fut,
        Fut: std::future::Future<Output = Result<bool, RenewError>>,
    {
        for n in number..number + SUFFIX_TRIES {
            let order = renewal_order(root, n);
            let here =
                self.with_store(|s| s.renewals().order_taken(self.profile_name(), &order))?;
            if !here && !taken_elsewhere(order.clone()).await? {
                return Ok((order, n));
            }
        }
        Err(RenewError::NoFreeOrder(root.to_owned()))
    }

    /// The request that renews `original` as order `order`: its amount, currency, items
    /// (catalog lines by their variant, priced again by the server), installments, partial
    /// payment and payer; a new expiry ([`renewal_expiry`]).
    pub(super) fn renewal_request(
        &self,
        original: &Link,
        order: &str,
    ) -> Result<LinkRequest, RenewError> {
        let now = self.now();
        let items = self.with_store(|s| s.items().of_link(self.profile_name(), &original.id))?;
        let items = items
            .into_iter()
            .map(|i| {
                let quantity = i.quantity.to_string();
                match i.variant_id {
                    Some(variant) => ItemDraft::catalog(variant, quantity),
                    None => ItemDraft::free(
                        i.name.unwrap_or_default(),
                        i.unit_price.unwrap_or_default(),
                        quantity,
                    ),
                }
            })
            .collect();
        let draft = LinkDraft {
            amount: original.amount.map(|a| a.to_string()).unwrap_or_default(),
            currency: original.currency,
            description: original.description.clone().unwrap_or_default(),
            order_number: order.to_owned(),
            expiry: renewal_expiry(original, now),
            enable_installment: original.enable_installment,
            installments: original.available_installments.clone().unwrap_or_default(),
            allow_partial_payment: original.allow_partial_payment,
            email: original.email.clone().unwrap_or_default(),
            phone_country_code: original.phone_country_code.clone().unwrap_or_default(),
            phone_number: original.phone_number.clone().unwrap_or_default(),
            items,
            ..LinkDraft::default()
        };
        let catalog = self.catalog()?;
        let ctx = LinkContext {
            now,
            catalog: &catalog,
            limits: self.limits(),
        };
        draft.validate(&ctx).map_err(RenewError::Invalid)
    }

    /// Claims the renewal in this desk's file and creates the new link (journal first).
    pub(super) async fn renew_claimed(
        &self,
        stored: &StoredLink,
        (root, number, order): (&str, u32, &str),
        request: &LinkRequest,
    ) -> Result<Renewed, RenewError> {
        let renewal = Renewal {
            original_id: stored.link.id.clone(),
            original_order: stored.link.order_or_id().to_owned(),
            root_order: root.to_owned(),
            number,
            order_id: order.to_owned(),
            renewed_as: None,
            at: self.now(),
            staff: self.actor().member.as_ref().map(|m| m.name.clone()),
        };
        let claim = self.with_store(|s| s.renewal_claim(self.profile_name(), &renewal))?;
        // This desk's own claim of the same number stands while its request is pending: the
        // creation below then says so (and sends nothing), as for any pending order.
        if let RenewalClaim::Standing(standing) = claim
            && (standing.order_id != order || standing.renewed_as.is_some())
        {
            return Err(RenewError::AlreadyRenewed {
                order: standing.order_id,
            });
        }
        // A renewal a manager gave up on (abandoned: whether the server made it is unknown)
        // is never sent again under its key with a new body.
        let key = request.idempotency_key();
        let abandoned = self
            .with_store(|s| s.journal().find(self.profile_name(), &key))?
            .iter()
            .any(|row| row.state == crate::store::JournalState::Abandoned);
        if abandoned {
            return Err(RenewError::AlreadyRenewed {
                order: order.to_owned(),
            });
        }
        let link = self.create_link(request).await?;
        let last_sent = self.link_sends(&stored.link.id)?.pop();
        Ok(Renewed {
            link,
            original: stored.link.clone(),
            last_sent,
        })
    }

    /// What this desk's file says of link `id`'s renewals.
    pub fn renewal_marks(&self, id: &str) -> Result<RenewalMarks, DeskError> {
        self.with_store(|s| {
            let renewals = s.renewals();
            let profile = self.profile_name();
            Ok(RenewalMarks {
                renews: renewals
                    .making(profile, id)?
                    .map(|r| (r.original_order, r.original_id)),
                renewed_as: renewals
                    .of(profile, id)?
                    .map(|r| (r.order_id, r.renewed_as)),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renewal_takes_the_chains_first_number_with_a_suffix_within_64_characters() {
        assert_eq!(renewal_order("REM-2", 2), "REM-2-2");
        assert_eq!(renewal_order("REM-2", 3), "REM-2-3");
        let long = "A".repeat(64);
        let renewed = renewal_order(&long, 12);
        assert_eq!(renewed.chars().count(), 64);
        assert!(renewed.ends_with("A-12"));
        // Characters, not bytes: a Turkish letter is never cut in half.
        let turkish = "Ş".repeat(63);
        assert_eq!(renewal_order(&turkish, 2), format!("{}-2", "Ş".repeat(62)));
    }

    #[test]
    fn a_renewal_lasts_as_long_as_its_original_did() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let mut link = Link::from(
            serde_json::from_value::<crate::api::wire::PaymentLink>(
                serde_json::json!({"id": "l", "status": "EXPIRED"}),
            )
            .unwrap(),
        );
        assert_eq!(renewal_expiry(&link, now), None, "no expiry, none again");
        link.created = Some(now - TimeDelta::hours(5));
        link.expiry = Some(now - TimeDelta::hours(3));
        assert_eq!(renewal_expiry(&link, now), Some(now + TimeDelta::hours(2)));
        link.expiry = Some(now - TimeDelta::hours(5) + TimeDelta::minutes(1));
        assert_eq!(renewal_expiry(&link, now), Some(now + RENEWAL_MIN_LIFE));
        link.created = None;
        assert_eq!(renewal_expiry(&link, now), Some(now + RENEWAL_DEFAULT_LIFE));
    }

    #[test]
    fn only_an_expired_or_cancelled_link_with_nothing_paid_is_renewable() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let link = |json| {
            Link::from(serde_json::from_value::<crate::api::wire::PaymentLink>(json).unwrap())
        };
        let expired = link(serde_json::json!({"id": "l", "status": "EXPIRED"}));
        assert!(renewable(&expired, false, now));
        let part_paid = link(
            serde_json::json!({"id": "l", "status": "EXPIRED", "amount": "10", "paidAmount": "4"}),
        );
        assert!(!renewable(&part_paid, false, now));
        let open = link(serde_json::json!({"id": "l", "status": "PENDING"}));
        assert!(!renewable(&open, false, now));
        assert!(renewable(&open, true, now), "cancelled through paydesk");
        let mut lapsed = open.clone();
        lapsed.expiry = Some(now - TimeDelta::seconds(1));
        assert!(renewable(&lapsed, false, now), "past its expiry");
        let paid = link(serde_json::json!({"id": "l", "status": "COMPLETED"}));
        assert!(!renewable(&paid, false, now));
    }
}
