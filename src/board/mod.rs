//! The open-links board without a window: which links it holds, when the app asks the server
//! about each one again, and what an answer means for the clerk (a "paid" alert).
//!
//! The board lists every link stored today and every link still `PENDING` from the last
//! [`PENDING_DAYS`] days. Its open links are refreshed in the background through link detail,
//! within a budget, because a counter may hold dozens of open links and the server is shared
//! with every other counter of the shop:
//!
//! - each link has its own interval: [`Budget::board`] starts at 5 s and doubles up to 60 s
//!   while the answers do not change, and goes back to the start when one does;
//! - the link on screen in the result view (the clerk is waiting for it) runs on the shorter
//!   [`Budget::focused`] pace, but through the same state: one schedule per link, so the view's
//!   poll and the board never both ask about one link;
//! - one request is out at a time and two requests are at least [`Budget::gap`] apart (1 s),
//!   whatever the number of links;
//! - a link in a final state (paid, expired, rejected, cancelled) or past its `expiryDate` is
//!   never asked about again.
//!
//! [`Refresher`] holds that state. It does no I/O and reads no clock: every call takes `now`,
//! and [`Refresher::next`] says which link to ask about now, or when to look again, so the app
//! can sleep until then (`request_repaint_after`) instead of polling each frame. Every answer
//! goes back through [`Refresher::answered`] (or [`Refresher::observe`] for answers from
//! elsewhere: a create, a cancel), which compares it with what was known and returns an
//! [`Alert`] when the link turned paid or a partial payment arrived. Answers carry the number
//! of their request (the app numbers requests as it sends them), so an answer older than the
//! one already learnt (a refresh sent before a cancel, answered after it) changes nothing.
//!
//! How long ago and how long left, as the board shows them, are in `span` ([`Span`], [`age`],
//! [`countdown`]).

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use rust_decimal::Decimal;

use crate::clock::Zone;
use crate::domain::Link;
use crate::domain::{Currency, LinkStatus};

mod span;

pub use span::{Span, age, age_changes_at, countdown, countdown_changes_at};

/// How many days back a `PENDING` link stays on the board.
pub const PENDING_DAYS: i64 = 7;

/// The most rows the board loads (the newest).
pub const MAX_ROWS: usize = 500;

/// The start of the local day `now` falls in, in `zone`, as a UTC instant (the board's
/// "today"), read the one way local days are read everywhere ([`Zone`]).
pub fn local_day_start(now: DateTime<Utc>, zone: Zone) -> DateTime<Utc> {
    zone.start_of(zone.date_of(now))
}

/// How often one link is asked about: `first` after a change, doubling to `max` while
/// nothing changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// The interval after the link is first seen or changed.
    pub first: Duration,
    /// The longest interval.
    pub max: Duration,
}

/// The refresh budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// The pace of the links on the board.
    pub board: Pace,
    /// The pace of the link shown in the result view.
    pub focused: Pace,
    /// The shortest time between two requests, of any links.
    pub gap: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            board: Pace {
                first: Duration::from_secs(5),
                max: Duration::from_mins(1),
            },
            focused: Pace {
                first: Duration::from_secs(2),
                max: Duration::from_secs(15),
            },
            gap: Duration::from_secs(1),
        }
    }
}

/// What a paid alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertKind {
    /// The link turned `COMPLETED`.
    Paid,
    /// A part of the amount was paid; the link is still open.
    Partial,
}

/// A link turned paid, or received a partial payment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    /// Which.
    pub kind: AlertKind,
    /// The link id.
    pub id: String,
    /// Its order number.
    pub order_number: Option<String>,
    /// Its currency.
    pub currency: Currency,
    /// The link's amount.
    pub amount: Option<Decimal>,
    /// What arrived with this change (the paid amount's increase).
    pub received: Decimal,
    /// What is left to pay, as the server said.
    pub remaining: Option<Decimal>,
}

/// What the board knows of a link: the fields a change is judged on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Known {
    status: LinkStatus,
    paid: Decimal,
    expiry: Option<DateTime<Utc>>,
}

impl Known {
    fn of(link: &Link) -> Self {
        Self {
            status: link.status.clone(),
            paid: link.paid_so_far(),
            expiry: link.expiry,
        }
    }

    /// Whether the server may still change this link and the board may still ask.
    fn open_at(&self, at: DateTime<Utc>) -> bool {
        !self.status.is_final() && self.expiry.is_none_or(|e| at < e)
    }
}

/// The alert an answer makes, compared with what was known before: the status turned
/// `COMPLETED`, or the paid amount grew (a partial payment).
fn alert_for(before: &Known, link: &Link) -> Option<Alert> {
    let after = Known::of(link);
    let kind = if after.status == LinkStatus::Completed && before.status != LinkStatus::Completed {
        AlertKind::Paid
    } else if after.paid > before.paid && before.status != LinkStatus::Completed {
        AlertKind::Partial
    } else {
        return None;
    };
    let received = if after.paid > before.paid {
        after.paid - before.paid
    } else {
        // A server that says COMPLETED without a paid amount: the rest of the amount came.
        link.amount_or_zero() - before.paid
    };
    Some(Alert {
        kind,
        id: link.id.clone(),
        order_number: link.order_number.clone(),
        currency: link.currency,
        amount: link.amount,
        received,
        remaining: link.remaining,
    })
}

/// One link the refresher follows.
#[derive(Debug, Clone)]
struct Tracked {
    known: Known,
    /// When `known` was learnt (to tell a newer store row from an older one).
    known_at: DateTime<Utc>,
    /// The number of the request whose answer `known` is (0: none yet).
    known_seq: u64,
    interval: Duration,
    due: DateTime<Utc>,
    /// On the board's rows (else followed only because it is shown).
    on_board: bool,
}

/// What an answer did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Heard {
    /// The link turned paid or received a partial payment.
    pub alert: Option<Alert>,
    /// The answer was taken (it is newer than what was known): the board's row may show it.
    pub applied: bool,
}

/// What to do now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Ask the server about this link now (it is marked as asked).
    Ask(String),
    /// Nothing to send before this moment; look again then.
    At(DateTime<Utc>),
    /// A request is out; its answer comes first.
    Waiting,
    /// No open link: nothing to wake up for.
    Idle,
}

fn after(at: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    TimeDelta::from_std(d)
        .ok()
        .and_then(|d| at.checked_add_signed(d))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The refresh schedule of the board's open links (see the module docs).
#[derive(Debug, Clone)]
pub struct Refresher {
    budget: Budget,
    links: BTreeMap<String, Tracked>,
    focus: Option<String>,
    in_flight: Option<String>,
    last_sent: Option<DateTime<Utc>>,
}

impl Refresher {
    /// An empty schedule.
    pub fn new(budget: Budget) -> Self {
        Self {
            budget,
            links: BTreeMap::new(),
            focus: None,
            in_flight: None,
            last_sent: None,
        }
    }

    /// The budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Forgets everything but the budget (another profile).
    pub fn reset(&mut self) {
        *self = Self::new(self.budget);
    }

    fn pace(&self, id: &str) -> Pace {
        if self.focus.as_deref() == Some(id) {
            self.budget.focused
        } else {
            self.budget.board
        }
    }

    fn track(&mut self, link: &Link, now: DateTime<Utc>, on_board: bool, seq: u64) {
        let first = self.pace(&link.id).first;
        self.links.insert(
            link.id.clone(),
            Tracked {
                known: Known::of(link),
                known_at: now,
                known_seq: seq,
                interval: first,
                due: after(now, first),
                on_board,
            },
        );
    }

    /// Takes the board's rows as the store holds them (`link`, when the store last changed
    /// it). A link not seen before is followed from now (first asked after the pace's first
    /// interval). A row the store changed after the refresher last learnt about the link (a
    /// refresh by the command line, say) counts as an answer and may alert. Links no longer on
    /// the board are let go, unless the result view shows them.
    pub fn sync_board(
        &mut self,
        rows: impl IntoIterator<Item = (Link, DateTime<Utc>)>,
        now: DateTime<Utc>,
    ) -> Vec<Alert> {
        let mut alerts = Vec::new();
        for t in self.links.values_mut() {
            t.on_board = false;
        }
        for (link, updated_at) in rows {
            let newer = if let Some(t) = self.links.get_mut(&link.id) {
                t.on_board = true;
                updated_at > t.known_at
            } else {
                self.track(&link, now, true, 0);
                false
            };
            if newer {
                alerts.extend(self.learn(&link, now, None).alert);
            }
        }
        let focus = self.focus.clone();
        let in_flight = self.in_flight.clone();
        self.links.retain(|id, t| {
            t.on_board || Some(id) == focus.as_ref() || Some(id) == in_flight.as_ref()
        });
        alerts
    }

    /// A link as the answer to request `seq` gave it, outside the refresh (a create, a
    /// cancel): follows it if it is new, else compares it with what was known.
    pub fn observe(&mut self, link: &Link, seq: u64, now: DateTime<Utc>) -> Heard {
        if self.links.contains_key(&link.id) {
            self.learn(link, now, Some(seq))
        } else {
            self.track(link, now, false, seq);
            Heard {
                alert: None,
                applied: true,
            }
        }
    }

    /// Updates a followed link from an answer (to request `seq`, or read from the store); a
    /// change brings its interval back to the start.
    fn learn(&mut self, link: &Link, now: DateTime<Utc>, seq: Option<u64>) -> Heard {
        let pace = self.pace(&link.id);
        let Some(t) = self.links.get_mut(&link.id) else {
            return Heard::default();
        };
        if let Some(seq) = seq {
            if seq < t.known_seq {
                return Heard::default();
            }
            t.known_seq = seq;
        }
        let alert = alert_for(&t.known, link);
        let known = Known::of(link);
        if known.status != t.known.status || known.paid != t.known.paid {
            t.interval = pace.first;
            t.due = after(now, pace.first);
        }
        t.known = known;
        t.known_at = now;
        Heard {
            alert,
            applied: true,
        }
    }

    /// The result view shows `link` (`None`: it shows none). The shown link runs on the
    /// focused pace, and is followed even when it is not on the board (an old link opened
    /// from History) until the view closes.
    pub fn focus(&mut self, link: Option<&Link>, now: DateTime<Utc>) {
        let old = std::mem::replace(&mut self.focus, link.map(|l| l.id.clone()));
        if let Some(old) = old.filter(|o| Some(o) != self.focus.as_ref()) {
            let board = self.budget.board;
            if let Some(t) = self.links.get_mut(&old) {
                if t.on_board {
                    t.interval = t.interval.clamp(board.first, board.max);
                } else if self.in_flight.as_ref() != Some(&old) {
                    self.links.remove(&old);
                }
            }
        }
        let Some(link) = link else {
            return;
        };
        if !self.links.contains_key(&link.id) {
            self.track(link, now, false, 0);
        }
        let focused = self.budget.focused;
        if let Some(t) = self.links.get_mut(&link.id) {
            t.interval = t.interval.clamp(focused.first, focused.max);
            t.due = t.due.min(after(now, focused.first));
        }
    }

    /// The clerk asked for a refresh: the link is due now (still within the budget).
    pub fn hurry(&mut self, id: &str, now: DateTime<Utc>) {
        let first = self.pace(id).first;
        if let Some(t) = self.links.get_mut(id) {
            t.interval = first;
            t.due = now;
        }
    }

    /// Which link to ask about now, or when to look again. An `Ask` marks the link as asked:
    /// its answer must come back through [`Refresher::answered`] (or [`Refresher::lost`]).
    pub fn next(&mut self, now: DateTime<Utc>) -> Next {
        if self.in_flight.is_some() {
            return Next::Waiting;
        }
        // Open links that will still be open when due; the shown one first among those due.
        let focus = self.focus.as_deref();
        let pick = self
            .links
            .iter()
            .filter(|(_, t)| t.known.open_at(now) && t.known.open_at(t.due))
            .min_by_key(|(id, t)| {
                let waiting_shown = Some(id.as_str()) == focus && t.due <= now;
                (!waiting_shown, t.due)
            });
        let Some((id, t)) = pick else {
            return Next::Idle;
        };
        let gate = self
            .last_sent
            .map_or(t.due, |s| after(s, self.budget.gap).max(t.due));
        if gate > now {
            return Next::At(gate);
        }
        let id = id.clone();
        self.in_flight = Some(id.clone());
        self.last_sent = Some(now);
        Next::Ask(id)
    }

    /// The answer to request `seq` about `id` (`None`: it failed). Backs the link off: its
    /// interval doubles (to the pace's max) when nothing changed or nothing came, and starts
    /// over on a change.
    pub fn answered(
        &mut self,
        id: &str,
        seq: u64,
        answer: Option<&Link>,
        now: DateTime<Utc>,
    ) -> Heard {
        if self.in_flight.as_deref() == Some(id) {
            self.in_flight = None;
        }
        let pace = self.pace(id);
        let Some(before) = self.links.get(id).map(|t| t.known.clone()) else {
            return Heard::default();
        };
        let heard = answer
            .map(|link| self.learn(link, now, Some(seq)))
            .unwrap_or_default();
        let Some(t) = self.links.get_mut(id) else {
            return heard;
        };
        let changed = t.known.status != before.status || t.known.paid != before.paid;
        if !changed {
            t.interval = (t.interval * 2).clamp(pace.first, pace.max);
        }
        t.due = after(now, t.interval);
        if !t.on_board && self.focus.as_deref() != Some(id) {
            self.links.remove(id);
        }
        heard
    }

    /// The request that was out ended without an answer of any kind (the job was lost).
    pub fn lost(&mut self) {
        self.in_flight = None;
    }

    /// The link the result view shows (on the focused pace).
    pub fn focused(&self) -> Option<&str> {
        self.focus.as_deref()
    }

    /// The link a request is out for.
    pub fn asking(&self) -> Option<&str> {
        self.in_flight.as_deref()
    }

    /// How many links are followed, and how many of them are open at `now`.
    pub fn counts(&self, now: DateTime<Utc>) -> (usize, usize) {
        let open = self.links.values().filter(|t| t.known.open_at(now)).count();
        (self.links.len(), open)
    }

    /// The interval a followed link is at (tests and the board's tooltip).
    pub fn interval_of(&self, id: &str) -> Option<Duration> {
        self.links.get(id).map(|t| t.interval)
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::clock::{Clock, ManualClock};

    fn t0() -> DateTime<Utc> {
        DateTime::from_timestamp(1_795_435_200, 0).unwrap()
    }

    fn link(id: &str, status: &str, paid: &str) -> Link {
        serde_json::from_value::<crate::api::wire::PaymentLink>(serde_json::json!({
            "id": id,
            "orderNumber": format!("PD-{id}"),
            "amount": "150.00",
            "paidAmount": paid,
            "remainingAmount": (Decimal::from_str("150.00").unwrap() - Decimal::from_str(paid).unwrap()).to_string(),
            "currency": "TRY",
            "status": status,
        }))
        .map(Link::from)
        .unwrap()
    }

    fn expiring(id: &str, at: DateTime<Utc>) -> Link {
        let mut l = link(id, "PENDING", "0");
        l.expiry = Some(at);
        l
    }

    fn budget() -> Budget {
        Budget::default()
    }

    /// Drives the refresher like the app does, with a server that answers at once: every
    /// 100 ms of the manual clock, ask what is due and answer with `server(id, now)`.
    /// Returns every request as (time, id).
    fn run(
        r: &mut Refresher,
        clock: &ManualClock,
        until: DateTime<Utc>,
        mut server: impl FnMut(&str, DateTime<Utc>) -> Link,
    ) -> (Vec<(DateTime<Utc>, String)>, Vec<Alert>) {
        let mut asked = Vec::new();
        let mut alerts = Vec::new();
        let mut seq = 1000;
        while clock.now() < until {
            let now = clock.now();
            if let Next::Ask(id) = r.next(now) {
                let answer = server(&id, now);
                seq += 1;
                alerts.extend(r.answered(&id, seq, Some(&answer), now).alert);
                asked.push((now, id));
            }
            clock.advance(TimeDelta::milliseconds(100));
        }
        (asked, alerts)
    }

    #[test]
    fn never_more_than_one_request_a_second_in_all() {
        let clock = ManualClock::new(t0());
        let mut r = Refresher::new(budget());
        let links: Vec<_> = (0..40)
            .map(|i| link(&format!("l{i:02}"), "PENDING", "0"))
            .collect();
        r.sync_board(links.iter().map(|l| (l.clone(), t0())), t0());
        let (asked, _) = run(&mut r, &clock, t0() + TimeDelta::minutes(5), |id, _| {
            link(id, "PENDING", "0")
        });
        assert!(asked.len() > 200, "{}", asked.len());
        for pair in asked.windows(2) {
            assert!(pair[1].0 - pair[0].0 >= TimeDelta::seconds(1), "{pair:?}");
        }
    }

    #[test]
    fn one_link_backs_off_from_5_s_to_60_s_while_nothing_changes_and_starts_over_on_a_change() {
        let clock = ManualClock::new(t0());
        let mut r = Refresher::new(budget());
        let l = link("a", "PENDING", "0");
        r.sync_board([(l.clone(), t0())], t0());
        let mut calls = 0;
        let (asked, alerts) = run(&mut r, &clock, t0() + TimeDelta::seconds(400), |id, _| {
            calls += 1;
            // The 6th answer brings a partial payment.
            if calls >= 6 {
                link(id, "PENDING", "50.00")
            } else {
                link(id, "PENDING", "0")
            }
        });
        let gaps: Vec<i64> = asked
            .windows(2)
            .map(|p| (p[1].0 - p[0].0).num_seconds())
            .collect();
        assert_eq!((asked[0].0 - t0()).num_seconds(), 5);
        // 10, 20, 40, 60, 60, then the change: 5, 10, 20, ...
        assert_eq!(&gaps[..8], &[10, 20, 40, 60, 60, 5, 10, 20], "{gaps:?}");
        assert_eq!(alerts.len(), 1);
        assert_eq!(alerts[0].kind, AlertKind::Partial);
        assert_eq!(alerts[0].received, Decimal::from_str("50.00").unwrap());
        assert_eq!(
            alerts[0].remaining,
            Some(Decimal::from_str("100.00").unwrap())
        );
    }

    #[test]
    fn a_paid_link_is_asked_about_no_more_and_alerts_once() {
        let clock = ManualClock::new(t0());
        let mut r = Refresher::new(budget());
        let (a, b) = (link("a", "PENDING", "0"), link("b", "PENDING", "0"));
        r.sync_board([(a.clone(), t0()), (b.clone(), t0())], t0());
        let paid_at = t0() + TimeDelta::seconds(30);
        let (asked, alerts) = run(&mut r, &clock, t0() + TimeDelta::minutes(10), |id, now| {
            if id == "a" && now >= paid_at {
                link(id, "COMPLETED", "150.00")
            } else {
                link(id, "PENDING", "0")
            }
        });
        let after_paid: Vec<_> = asked
            .iter()
            .filter(|(at, id)| id == "a" && *at >= paid_at)
            .collect();
        assert_eq!(
            after_paid.len(),
            1,
            "only the answer that said paid: {after_paid:?}"
        );
        assert!(asked.iter().filter(|(_, id)| id == "b").count() > 5);
        assert_eq!(alerts.len(), 1);
        let alert = &alerts[0];
        assert_eq!(alert.kind, AlertKind::Paid);
        assert_eq!(alert.order_number.as_deref(), Some("PD-a"));
        assert_eq!(alert.received, Decimal::from_str("150.00").unwrap());
        // The row from the store, older than what the answer taught, changes nothing.
        assert!(
            r.sync_board([(a.clone(), paid_at), (b.clone(), t0())], clock.now())
                .is_empty()
        );
        assert_eq!(r.counts(clock.now()), (2, 1));
    }

    #[test]
    fn final_states_and_links_past_expiry_are_never_asked_about() {
        let clock = ManualClock::new(t0());
        let mut r = Refresher::new(budget());
        let expiry = t0() + TimeDelta::seconds(50);
        let rows = [
            link("done", "COMPLETED", "150.00"),
            link("gone", "EXPIRED", "0"),
            link("no", "REJECTED", "0"),
            expiring("soon", expiry),
        ];
        r.sync_board(rows.iter().map(|l| (l.clone(), t0())), t0());
        let (asked, _) = run(&mut r, &clock, t0() + TimeDelta::minutes(10), |id, _| {
            // The server still says PENDING after the expiry: the rule is ours, not its.
            expiring(id, expiry)
        });
        assert!(asked.iter().all(|(_, id)| id == "soon"), "{asked:?}");
        assert!(asked.iter().all(|(at, _)| *at < expiry), "{asked:?}");
        assert!(!asked.is_empty());
        assert_eq!(r.next(clock.now()), Next::Idle);
    }

    #[test]
    fn the_shown_link_goes_first_on_its_own_pace_and_is_never_asked_twice_at_once() {
        let clock = ManualClock::new(t0());
        let mut r = Refresher::new(budget());
        let rows: Vec<_> = (0..5)
            .map(|i| link(&format!("l{i}"), "PENDING", "0"))
            .collect();
        r.sync_board(rows.iter().map(|l| (l.clone(), t0())), t0());
        // An old link opened from History: not on the board, followed while shown.
        let old = link("old", "PENDING", "0");
        r.focus(Some(&old), t0());
        let (asked, _) = run(&mut r, &clock, t0() + TimeDelta::seconds(60), |id, _| {
            link(id, "PENDING", "0")
        });
        let shown: Vec<_> = asked.iter().filter(|(_, id)| id == "old").collect();
        assert_eq!((shown[0].0 - t0()).num_seconds(), 2);
        let gaps: Vec<i64> = shown
            .windows(2)
            .map(|p| (p[1].0 - p[0].0).num_seconds())
            .collect();
        assert_eq!(&gaps[..3], &[4, 8, 15], "{gaps:?}");
        // While a request is out, nothing else is sent.
        let now = clock.now() + TimeDelta::minutes(5);
        let Next::Ask(id) = r.next(now) else {
            panic!("something is due")
        };
        assert_eq!(id, "old");
        assert_eq!(r.next(now + TimeDelta::seconds(10)), Next::Waiting);
        r.answered(&id, 1, None, now + TimeDelta::seconds(10));
        // The view closes: the old link is let go, the board's stay.
        r.focus(None, now);
        assert_eq!(r.counts(now), (5, 5));
    }

    #[test]
    fn refresh_makes_the_link_due_now_but_keeps_the_gap() {
        let mut r = Refresher::new(budget());
        let (a, b) = (link("a", "PENDING", "0"), link("b", "PENDING", "0"));
        r.sync_board([(a.clone(), t0()), (b.clone(), t0())], t0());
        let now = t0() + TimeDelta::seconds(5);
        assert_eq!(r.next(now), Next::Ask("a".into()));
        r.answered("a", 1, Some(&a), now);
        r.hurry("a", now);
        // b was due too, but a was hurried: a goes next, one gap later.
        assert_eq!(r.next(now), Next::At(now + TimeDelta::seconds(1)));
        let later = now + TimeDelta::seconds(1);
        assert!(matches!(r.next(later), Next::Ask(_)));
    }

    #[test]
    fn a_change_seen_in_the_store_alerts_but_a_first_sight_does_not() {
        let mut r = Refresher::new(budget());
        let paid = link("a", "COMPLETED", "150.00");
        // First seen already paid (a start-up, say): no alert.
        assert!(r.sync_board([(paid.clone(), t0())], t0()).is_empty());
        let b = link("b", "PENDING", "0");
        assert_eq!(r.observe(&b, 1, t0()).alert, None);
        let b_paid = link("b", "COMPLETED", "150.00");
        let later = t0() + TimeDelta::seconds(3);
        let alerts = r.sync_board([(paid.clone(), t0()), (b_paid.clone(), later)], later);
        assert_eq!(alerts.len(), 1);
        assert_eq!(alerts[0].id, "b");
        // The same row again: nothing new.
        assert!(r.sync_board([(b_paid.clone(), later)], later).is_empty());
    }

    #[test]
    fn a_partial_payment_then_the_rest_make_two_alerts() {
        let mut r = Refresher::new(budget());
        r.observe(&link("a", "PENDING", "0"), 1, t0());
        let first = r
            .observe(&link("a", "PENDING", "40.00"), 2, t0())
            .alert
            .unwrap();
        assert_eq!(first.kind, AlertKind::Partial);
        let second = r
            .observe(&link("a", "COMPLETED", "150.00"), 3, t0())
            .alert
            .unwrap();
        assert_eq!(second.kind, AlertKind::Paid);
        assert_eq!(second.received, Decimal::from_str("110.00").unwrap());
        assert_eq!(
            r.observe(&link("a", "COMPLETED", "150.00"), 4, t0()).alert,
            None
        );
    }

    #[test]
    fn an_answer_older_than_the_one_learnt_changes_nothing() {
        let mut r = Refresher::new(budget());
        let a = link("a", "PENDING", "0");
        r.sync_board([(a.clone(), t0())], t0());
        let now = t0() + TimeDelta::seconds(5);
        assert_eq!(r.next(now), Next::Ask("a".into()));
        // The clerk cancels while the refresh (request 1) is out; the cancel (2) answers first.
        let cancelled = r.observe(&link("a", "EXPIRED", "0"), 2, now);
        assert!(cancelled.applied && cancelled.alert.is_none());
        // The refresh read the link before the cancel: it must not make it open again.
        let late = r.answered("a", 1, Some(&a), now + TimeDelta::seconds(1));
        assert!(!late.applied);
        assert_eq!(r.counts(now), (1, 0));
        assert_eq!(r.next(now + TimeDelta::minutes(5)), Next::Idle);
    }

    #[test]
    fn the_day_starts_at_local_midnight() {
        let now = t0() + TimeDelta::hours(5);
        for zone in [Zone::Local, Zone::hours(3), Zone::hours(-5)] {
            let start = local_day_start(now, zone);
            assert!(start <= now && now - start < TimeDelta::hours(25));
            assert_eq!(zone.local(start).time(), chrono::NaiveTime::MIN);
            assert_eq!(zone.date_of(start), zone.date_of(now));
            assert_eq!(local_day_start(start, zone), start);
        }
    }
}
