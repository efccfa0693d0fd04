//! Fault injection for reliability tests: per endpoint, a delay, a 500 before anything is
//! done, a lost response (the work is committed, then the connection is dropped without an
//! answer), a stalled answer (the work is committed, then the answer waits), or a 429. Each
//! rule fires for the next N requests or with a probability drawn from the sandbox's seeded
//! generator, so a run with `--seed` is reproducible.
//!
//! Rules come from the config / `--fault` flags at start and from `POST /sandbox/faults`. A
//! delay or stall is at most [`MAX_DELAY_MS`] and at most [`MAX_RULES`] rules are active at
//! once, so no rule can overflow a duration or grow the board without bound.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::api::endpoints;

/// The longest delay or stall a rule may ask for: 60 s.
pub const MAX_DELAY_MS: u64 = 60_000;

/// The most rules active at once.
pub const MAX_RULES: usize = 100;

/// What a rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Waits `delayMs` after authentication and the idempotency claim, before the work.
    Delay,
    /// Answers 500 before anything is done.
    Error500,
    /// Does the work, then drops the connection without answering.
    Lost,
    /// Answers 429 before anything is done.
    RateLimit,
    /// Does the work and commits it (its idempotency key included), then holds the answer
    /// for `delayMs`: a client that gives up or dies meanwhile never learns what the server
    /// already holds.
    Stall,
}

impl FaultKind {
    fn name(self) -> &'static str {
        match self {
            FaultKind::Delay => "delay",
            FaultKind::Error500 => "error500",
            FaultKind::Lost => "lost",
            FaultKind::RateLimit => "rate_limit",
            FaultKind::Stall => "stall",
        }
    }
}

/// One fault rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaultRule {
    /// Endpoint name (`link.create`, `link.detail`, `link.cancel`, `card.save`,
    /// `installment.list`) or `*` for all.
    pub endpoint: String,
    /// What happens.
    pub kind: FaultKind,
    /// Milliseconds to wait (delay and stall only; at most [`MAX_DELAY_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Fires for the next N matching requests, then the rule is spent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<u32>,
    /// Otherwise fires with this probability (0..=1; absent = always).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
}

/// A rule that does not make sense.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad fault rule `{rule}`: {reason}")]
pub struct FaultError {
    /// The rule as given.
    pub rule: String,
    /// Why it is refused.
    pub reason: String,
}

impl FaultRule {
    /// Checks the endpoint name, the delay and the trigger.
    pub fn validate(&self) -> Result<(), FaultError> {
        let fail = |reason: &str| {
            Err(FaultError {
                rule: self.to_string(),
                reason: reason.to_owned(),
            })
        };
        if self.endpoint != "*" && !endpoints::ALL.iter().any(|e| e.name == self.endpoint) {
            return fail(
                "unknown endpoint; use link.create, link.detail, link.cancel, card.save, installment.list or *",
            );
        }
        let waits = matches!(self.kind, FaultKind::Delay | FaultKind::Stall);
        match (waits, self.delay_ms) {
            (true, None | Some(0)) => return fail("a delay or a stall needs delayMs > 0"),
            (true, Some(ms)) if ms > MAX_DELAY_MS => {
                return fail("a delay or a stall is at most 60000 ms (60 s)");
            }
            (true, _) | (false, None) => {}
            (false, Some(_)) => return fail("delayMs belongs to a delay or a stall rule only"),
        }
        if self.next.is_some() && self.probability.is_some() {
            return fail("give either next or probability, not both");
        }
        if self.next == Some(0) {
            return fail("next must be at least 1");
        }
        if self.probability.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
            return fail("probability must be between 0 and 1");
        }
        Ok(())
    }
}

impl fmt::Display for FaultRule {
    /// The `--fault` syntax: `ENDPOINT:KIND[=MS][@next=N|@p=P]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.endpoint, self.kind.name())?;
        if let Some(ms) = self.delay_ms {
            write!(f, "={ms}")?;
        }
        if let Some(n) = self.next {
            write!(f, "@next={n}")?;
        }
        if let Some(p) = self.probability {
            write!(f, "@p={p}")?;
        }
        Ok(())
    }
}

impl FromStr for FaultRule {
    type Err = FaultError;

    /// Parses `ENDPOINT:KIND[=MS][@next=N|@p=P]`, e.g. `link.create:delay=1500@next=1`,
    /// `card.save:error500@p=0.25`, `*:rate_limit@next=3`, `link.create:lost`,
    /// `link.create:stall=5000@next=1`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |reason: &str| FaultError {
            rule: s.to_owned(),
            reason: reason.to_owned(),
        };
        let (endpoint, rest) = s
            .split_once(':')
            .ok_or_else(|| fail("expected ENDPOINT:KIND"))?;
        let (what, trigger) = match rest.split_once('@') {
            Some((w, t)) => (w, Some(t)),
            None => (rest, None),
        };
        let (kind, delay) = match what.split_once('=') {
            Some((k, ms)) => (
                k,
                Some(
                    ms.trim()
                        .parse::<u64>()
                        .map_err(|_| fail("delay must be whole milliseconds (at most 60000)"))?,
                ),
            ),
            None => (what, None),
        };
        let kind = match kind.trim() {
            "delay" => FaultKind::Delay,
            "error500" | "500" => FaultKind::Error500,
            "lost" => FaultKind::Lost,
            "rate_limit" | "429" => FaultKind::RateLimit,
            "stall" => FaultKind::Stall,
            _ => {
                return Err(fail(
                    "kind must be delay, error500, lost, rate_limit or stall",
                ));
            }
        };
        let mut rule = FaultRule {
            endpoint: endpoint.trim().to_owned(),
            kind,
            delay_ms: delay,
            next: None,
            probability: None,
        };
        if let Some(t) = trigger {
            match t.trim().split_once('=') {
                Some(("next", n)) => {
                    rule.next = Some(n.parse().map_err(|_| fail("next must be a count"))?);
                }
                Some(("p", p)) => {
                    rule.probability =
                        Some(p.parse().map_err(|_| fail("p must be a probability"))?);
                }
                _ => return Err(fail("trigger must be @next=N or @p=P")),
            }
        }
        rule.validate()?;
        Ok(rule)
    }
}

/// Checks `new` as rules added to `active` ones: each must be valid, and all of them at most
/// [`MAX_RULES`].
pub fn check_rules(active: usize, new: &[FaultRule]) -> Result<(), FaultError> {
    for r in new {
        r.validate()?;
    }
    match new.get(MAX_RULES.saturating_sub(active)) {
        Some(extra) => Err(FaultError {
            rule: extra.to_string(),
            reason: format!(
                "at most {MAX_RULES} fault rules may be active at once ({active} already are, \
                 {} more were given)",
                new.len()
            ),
        }),
        None => Ok(()),
    }
}

/// What the faults decided for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Plan {
    /// Wait this long before the work.
    pub delay: Duration,
    /// Answer this instead of doing anything (500 or 429).
    pub early: Option<FaultKind>,
    /// Drop the connection after the work.
    pub lost: bool,
    /// Hold the answer this long after the work.
    pub stall: Duration,
}

/// The active rules and the seeded generator.
#[derive(Debug)]
pub struct Board {
    any: AtomicBool,
    rules: Mutex<Vec<FaultRule>>,
    rng: Mutex<StdRng>,
}

impl Board {
    /// A board with `rules`, drawing from a generator seeded with `seed`.
    pub fn new(rules: Vec<FaultRule>, seed: u64) -> Result<Board, FaultError> {
        let board = Board {
            any: AtomicBool::new(false),
            rules: Mutex::new(Vec::new()),
            rng: Mutex::new(StdRng::seed_from_u64(seed)),
        };
        board.add_all(rules)?;
        Ok(board)
    }

    /// Adds a rule.
    pub fn add(&self, rule: FaultRule) -> Result<(), FaultError> {
        self.add_all(vec![rule])
    }

    /// Adds every rule of `new`, or none when one is refused or they would make more than
    /// [`MAX_RULES`].
    pub fn add_all(&self, new: Vec<FaultRule>) -> Result<(), FaultError> {
        let mut rules = self.rules.lock().unwrap_or_else(PoisonError::into_inner);
        check_rules(rules.len(), &new)?;
        rules.extend(new);
        self.any.store(!rules.is_empty(), Ordering::Release);
        Ok(())
    }

    /// Removes every rule.
    pub fn clear(&self) {
        let mut rules = self.rules.lock().unwrap_or_else(PoisonError::into_inner);
        rules.clear();
        self.any.store(false, Ordering::Release);
    }

    /// The active rules.
    pub fn rules(&self) -> Vec<FaultRule> {
        self.rules
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Decides the faults of one request to `endpoint` (consumes `next` counts).
    pub fn plan(&self, endpoint: &str) -> Plan {
        let mut plan = Plan::default();
        if !self.any.load(Ordering::Acquire) {
            return plan;
        }
        let mut rules = self.rules.lock().unwrap_or_else(PoisonError::into_inner);
        let mut rng = self.rng.lock().unwrap_or_else(PoisonError::into_inner);
        for rule in rules.iter_mut() {
            if rule.endpoint != "*" && rule.endpoint != endpoint {
                continue;
            }
            let fires = match (rule.next.as_mut(), rule.probability) {
                (Some(n), _) => {
                    *n = n.saturating_sub(1);
                    true
                }
                (None, Some(p)) => rng.random_bool(p),
                (None, None) => true,
            };
            if !fires {
                continue;
            }
            match rule.kind {
                FaultKind::Delay => {
                    plan.delay = plan
                        .delay
                        .saturating_add(Duration::from_millis(rule.delay_ms.unwrap_or(0)));
                }
                FaultKind::Stall => {
                    plan.stall = plan
                        .stall
                        .saturating_add(Duration::from_millis(rule.delay_ms.unwrap_or(0)));
                }
                FaultKind::Lost => plan.lost = true,
                kind @ (FaultKind::Error500 | FaultKind::RateLimit) => {
                    plan.early.get_or_insert(kind);
                }
            }
        }
        rules.retain(|r| r.next != Some(0));
        self.any.store(!rules.is_empty(), Ordering::Release);
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_syntax_round_trips_and_bad_rules_say_why() {
        for text in [
            "link.create:delay=1500@next=1",
            "card.save:error500@p=0.25",
            "*:rate_limit@next=3",
            "link.create:lost",
            "link.create:stall=60000@next=1",
        ] {
            let rule: FaultRule = text.parse().unwrap();
            assert_eq!(rule.to_string(), text);
        }
        let table = [
            ("nowhere:lost", "unknown endpoint"),
            ("link.create:delay", "delayMs > 0"),
            ("link.create:lost=5", "delay or a stall rule only"),
            ("link.create:stall", "delayMs > 0"),
            ("link.create:delay=60001", "at most 60000 ms"),
            ("link.create:stall=99999999999999", "at most 60000 ms"),
            (
                "link.create:delay=99999999999999999999999",
                "whole milliseconds",
            ),
            ("link.create:boom", "kind must be"),
            ("link.create:lost@p=2", "between 0 and 1"),
            ("link.create:lost@next=0", "at least 1"),
            ("link.create", "ENDPOINT:KIND"),
        ];
        for (text, reason) in table {
            let err = text.parse::<FaultRule>().unwrap_err();
            assert!(err.reason.contains(reason), "{text}: {err}");
        }
    }

    #[test]
    fn next_n_fires_n_times_then_the_rule_is_spent() {
        let board = Board::new(vec!["link.create:error500@next=2".parse().unwrap()], 1).unwrap();
        assert_eq!(board.plan("card.save").early, None);
        assert_eq!(board.plan("link.create").early, Some(FaultKind::Error500));
        assert_eq!(board.plan("link.create").early, Some(FaultKind::Error500));
        assert_eq!(board.plan("link.create").early, None);
        assert!(board.rules().is_empty());
    }

    #[test]
    fn probabilities_are_reproducible_with_a_seed() {
        let run = |seed| {
            let board = Board::new(vec!["*:lost@p=0.5".parse().unwrap()], seed).unwrap();
            (0..64)
                .map(|_| board.plan("link.create").lost)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let fired = run(7).iter().filter(|l| **l).count();
        assert!((16..=48).contains(&fired), "{fired}");
    }
}

#[cfg(test)]
mod limits {
    use super::*;

    fn lost() -> FaultRule {
        "link.create:lost".parse().expect("a valid rule")
    }

    #[test]
    fn a_rule_over_60_s_is_refused_wherever_it_comes_from() {
        let huge = FaultRule {
            endpoint: "link.create".into(),
            kind: FaultKind::Delay,
            delay_ms: Some(u64::MAX - 1),
            next: None,
            probability: None,
        };
        assert!(huge.validate().is_err());
        assert!(Board::new(vec![huge.clone()], 1).is_err());
        let board = Board::new(Vec::new(), 1).expect("an empty board");
        assert!(board.add(huge).is_err());
        assert!(board.rules().is_empty());
        // At the limit, a hundred of them add up without overflowing.
        let longest: FaultRule = "*:delay=60000".parse().expect("a valid rule");
        let board = Board::new(vec![longest; MAX_RULES], 1).expect("a full board");
        assert_eq!(board.plan("link.create").delay, Duration::from_mins(100));
    }

    #[test]
    fn at_most_100_rules_and_a_refused_batch_adds_none() {
        assert!(Board::new(vec![lost(); MAX_RULES + 1], 1).is_err());
        let board = Board::new(vec![lost(); MAX_RULES - 2], 1).expect("98 rules");
        let refused = board
            .add_all(vec![lost(); 3])
            .expect_err("101 rules are refused");
        assert!(refused.reason.contains("at most 100"), "{refused}");
        assert_eq!(board.rules().len(), MAX_RULES - 2);
        board.add_all(vec![lost(); 2]).expect("100 rules fit");
        assert!(board.add(lost()).is_err());
        assert_eq!(board.rules().len(), MAX_RULES);
    }

    #[test]
    fn a_stall_plans_its_hold_and_nothing_else() {
        let board = Board::new(
            vec!["link.create:stall=250@next=1".parse().expect("a rule")],
            1,
        )
        .expect("a board");
        let plan = board.plan("link.create");
        assert_eq!(plan.stall, Duration::from_millis(250));
        assert_eq!(
            (plan.delay, plan.early, plan.lost),
            (Duration::ZERO, None, false)
        );
        assert_eq!(board.plan("link.create"), Plan::default());
    }
}
