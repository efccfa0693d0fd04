//! What the command line prints: how a command ended ([`Exit`], [`Failure`]), each error worded
//! once in the user's language, and the text and JSON forms of links, pending rows, profiles
//! and the day report. `--json` output carries response content only: never a PAN, CVV or
//! secret.

use std::io::Write;

use rust_decimal::Decimal;
use serde::Serialize;

use super::text::CliText;
use crate::api::wire::format_time;
use crate::domain::Link;
use crate::domain::errors::FieldErrors;
use crate::domain::money::format_amount;
use crate::lang::Lang;
use crate::service::shop::ShopError;
use crate::service::{CreateError, DeskError};
use crate::service::{DayReport, JournalRow, JournalState, Profile, StoreError};

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done.
    Ok = 0,
    /// A local failure (database, keyring, file).
    Failure = 1,
    /// Invalid input: nothing was sent.
    Invalid = 3,
    /// The server refused.
    Rejected = 4,
    /// The outcome is unknown; the journal keeps the request.
    Unknown = 5,
    /// `audit verify`: the chain is broken or misses the given head.
    Broken = 6,
    /// Ctrl+C at a hidden prompt: nothing was sent (128 + SIGINT, as a shell reports it).
    Interrupted = 130,
}

/// What went wrong, already worded for the user.
pub(super) struct Failure {
    pub(super) exit: Exit,
    pub(super) lines: Vec<String>,
}

impl Failure {
    pub(super) fn new(exit: Exit, line: impl Into<String>) -> Self {
        Self {
            exit,
            lines: vec![line.into()],
        }
    }
}

pub(super) type Outcome = Result<(), Failure>;

impl Exit {
    /// The more serious of two outcomes (unknown over rejected over invalid).
    pub(super) fn max_code(self, other: Exit) -> Exit {
        if (other as i32) > (self as i32) {
            other
        } else {
            self
        }
    }
}

/// A desk error as the user sees it: the exit code its outcome means, and its sentence
/// (after the server's key when the server refused).
pub(super) fn from_desk(lang: Lang) -> impl Fn(DeskError) -> Failure {
    move |e| {
        if e.is_unknown_outcome() {
            return Failure::new(Exit::Unknown, e.sentence(lang));
        }
        if matches!(
            e,
            DeskError::SignInFirst
                | DeskError::NeedsManager(_)
                | DeskError::Store(StoreError::Staff(_))
        ) {
            // Refused before anything was sent.
            return Failure::new(Exit::Invalid, e.sentence(lang));
        }
        if let DeskError::Call(crate::api::client::CallError::Api(api)) = &e {
            // Rejected by the server: the key (or the status), then the sentence.
            let key = api
                .key
                .clone()
                .unwrap_or_else(|| format!("HTTP {}", api.status));
            return Failure {
                exit: Exit::Rejected,
                lines: vec![key, e.sentence(lang)],
            };
        }
        Failure::new(Exit::Failure, e.sentence(lang))
    }
}

pub(super) fn print_json<T: Serialize + ?Sized>(value: &T) -> Outcome {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
    println!("{text}");
    Ok(())
}

pub(super) fn invalid(errors: &FieldErrors, lang: Lang) -> Failure {
    Failure {
        exit: Exit::Invalid,
        lines: errors.messages(lang),
    }
}

/// A failed secret read as the user sees it: Ctrl+C is exit 130 with a short line.
pub(super) fn read_failure(e: &std::io::Error, lang: Lang) -> Failure {
    if e.kind() == std::io::ErrorKind::Interrupted {
        return Failure::new(Exit::Interrupted, CliText::Stopped.get(lang));
    }
    Failure::new(Exit::Failure, e.to_string())
}

/// A shop error as the CLI ends with it.
pub(super) fn shop_failure(e: &ShopError, lang: Lang) -> Failure {
    let exit = if e.is_wrong_input() {
        Exit::Invalid
    } else if e.is_no_answer() {
        Exit::Unknown
    } else if e.is_refusal() {
        Exit::Rejected
    } else {
        Exit::Failure
    };
    Failure::new(exit, e.sentence(lang))
}

pub(super) fn create_failure(e: &CreateError, lang: Lang) -> Failure {
    let exit = match e {
        // The server may hold the link: the journal keeps the row, `pending` finishes it.
        CreateError::Unknown { .. }
        | CreateError::InProgress { .. }
        | CreateError::Stale { .. } => Exit::Unknown,
        CreateError::Rejected(_)
        | CreateError::AlreadyHasLink(_)
        | CreateError::Conflict { .. } => Exit::Rejected,
        CreateError::NotFound(_) => Exit::Invalid,
        CreateError::Desk(d) if d.is_unknown_outcome() => Exit::Unknown,
        CreateError::Desk(_) => Exit::Failure,
    };
    let mut lines = Vec::new();
    if let CreateError::Rejected(api) = e {
        lines.push(
            api.key
                .clone()
                .unwrap_or_else(|| format!("HTTP {}", api.status)),
        );
    }
    lines.push(e.sentence(lang));
    Failure { exit, lines }
}

pub(super) fn link_line(l: &Link, lang: Lang) -> String {
    let amount = l
        .amount
        .map(|a| format_amount(a, l.currency, lang))
        .unwrap_or_default();
    format!(
        "{}\t{}\t{}\t{}\t{}",
        l.id,
        l.order_text(),
        amount,
        l.status.as_str(),
        l.created.map(format_time).unwrap_or_default()
    )
}

pub(super) fn print_link(l: &Link, lang: Lang) -> Outcome {
    let mut out = std::io::stdout().lock();
    let money = |d: Option<rust_decimal::Decimal>| {
        d.map(|a| format_amount(a, l.currency, lang))
            .unwrap_or_default()
    };
    let text = |t: &Option<String>| t.clone().unwrap_or_default();
    let rows = [
        ("id", l.id.clone()),
        (CliText::Order.get(lang), text(&l.order_number)),
        (CliText::Reference.get(lang), text(&l.reference_number)),
        (CliText::Status.get(lang), l.status.to_string()),
        (CliText::Amount.get(lang), money(l.amount)),
        (CliText::Paid.get(lang), money(l.paid)),
        (CliText::Remaining.get(lang), money(l.remaining)),
        ("url", l.url().to_owned()),
        (
            CliText::Expires.get(lang),
            l.expiry.map(format_time).unwrap_or_default(),
        ),
    ];
    for (k, v) in rows {
        writeln!(out, "{k:<16}{v}").map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
    }
    Ok(())
}

/// A pending row as printed: no body (it may hold payer contact data).
#[derive(Serialize)]
pub(super) struct PendingView {
    key: String,
    order_number: String,
    state: String,
    amount: String,
    currency: String,
    attempts: u32,
    last_error: Option<String>,
    created_at: String,
}

impl PendingView {
    /// The row as one tab-separated line of `pending list`.
    pub(super) fn line(self) -> String {
        format!(
            "{}\t{}\t{} {}\t{}\t{}\t{}",
            self.key,
            self.state,
            self.amount,
            self.currency,
            self.attempts,
            self.created_at,
            self.last_error.unwrap_or_default()
        )
    }
}

impl From<&JournalRow> for PendingView {
    fn from(r: &JournalRow) -> Self {
        Self {
            key: r.begun.key.key.clone(),
            order_number: r.begun.order_number.clone().unwrap_or_default(),
            state: match r.state {
                JournalState::Stale => {
                    "stale (23 h or older: check the server, then retry with --force)".to_owned()
                }
                s => s.as_str().to_owned(),
            },
            amount: r.begun.amount.map(|a| a.to_string()).unwrap_or_default(),
            currency: r.begun.currency.map(|c| c.to_string()).unwrap_or_default(),
            attempts: r.attempts,
            last_error: r.last_error.clone(),
            created_at: format_time(r.begun.now),
        }
    }
}

/// A profile as listed: never a secret (the profile holds none).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ProfileView {
    name: String,
    base_url: String,
    api_key: String,
    amount_limit: Option<String>,
    max_items: Option<u32>,
    order_prefix: String,
    sandbox: bool,
}

impl From<&Profile> for ProfileView {
    fn from(p: &Profile) -> Self {
        Self {
            name: p.name.clone(),
            base_url: p.base_url.clone(),
            api_key: p.api_key.clone(),
            amount_limit: p.amount_limit.map(|a| a.to_string()),
            max_items: p.max_items,
            order_prefix: p.order_prefix.clone(),
            sandbox: p.is_sandbox,
        }
    }
}

/// The day report as text: a small table per currency, the hours with money, the top items.
pub(super) fn write_report(out: &mut impl Write, r: &DayReport, lang: Lang) -> std::io::Result<()> {
    let days = if r.from == r.to {
        r.from.to_string()
    } else {
        format!("{} – {}", r.from, r.to)
    };
    writeln!(
        out,
        "{}",
        CliText::DayClose.fill(lang, &[("days", &days), ("offset", &r.utc_offset)])
    )?;
    if r.currencies.is_empty() {
        writeln!(out, "{}", CliText::NoLinksOnDays.get(lang))?;
        return Ok(());
    }
    for c in &r.currencies {
        let money = |d: Decimal| format_amount(d, c.currency, lang);
        writeln!(out)?;
        writeln!(out, "{}", c.currency)?;
        let mut rows = vec![
            (CliText::LinksCreated.get(lang), c.created, None),
            (
                CliText::PaidInFull.get(lang),
                c.paid.count,
                Some(c.paid.sum),
            ),
            (
                CliText::PartiallyPaid.get(lang),
                c.partially_paid.count,
                Some(c.partially_paid.sum),
            ),
            (CliText::StillPending.get(lang), c.pending, None),
            (CliText::Expired.get(lang), c.expired, None),
            (CliText::Cancelled.get(lang), c.cancelled, None),
        ];
        if c.other > 0 {
            rows.push((CliText::OtherStatuses.get(lang), c.other, None));
        }
        for (label, count, sum) in rows {
            let sum = sum.map(|t| t.show(lang, money)).unwrap_or_default();
            let line = format!("  {label:<32}{count:>6}  {sum:>16}");
            writeln!(out, "{}", line.trim_end())?;
        }
        for (label, total) in [
            (CliText::Collected, c.collected),
            (CliText::Issued, c.issued),
            (CliText::Outstanding, c.outstanding),
        ] {
            writeln!(
                out,
                "  {:<32}{:>6}  {:>16}",
                label.get(lang),
                "",
                total.show(lang, money)
            )?;
        }
        if c.unconfirmed.count > 0 {
            writeln!(
                out,
                "  {:<32}{:>6}  {:>16}",
                CliText::UnconfirmedPaid.get(lang),
                c.unconfirmed.count,
                c.unconfirmed.sum.show(lang, money)
            )?;
        }
        let hours: Vec<String> = c
            .collected_by_hour
            .iter()
            .enumerate()
            .filter(|(_, d)| !d.is_zero())
            .map(|(h, d)| format!("{h:02}:00 {}", d.show(lang, money)))
            .collect();
        if !hours.is_empty() {
            writeln!(
                out,
                "  {}",
                CliText::CollectedPerHour.fill(lang, &[("hours", &hours.join(" · "))])
            )?;
        }
    }
    writeln!(out)?;
    if r.sent.links > 0 {
        writeln!(
            out,
            "{}",
            CliText::SentLine.fill(lang, &[("n", &r.sent.links), ("paid", &r.sent.paid_after)])
        )?;
        writeln!(out)?;
    }
    if r.top_items.is_empty() {
        writeln!(out, "{}", CliText::NoItemsOnPaid.get(lang))?;
        return write_staff_table(out, r, lang);
    }
    writeln!(out, "{}", CliText::BestSelling.get(lang))?;
    for i in &r.top_items {
        let sum = i.sum.map_or_else(
            || "—".to_owned(),
            |t| t.show(lang, |d| format_amount(d, i.currency, lang)),
        );
        writeln!(out, "  {:<28}{:>6}  {sum:>16}", i.name, i.quantity)?;
    }
    write_staff_table(out, r, lang)
}

/// A shop's payments counted apart, one line each, with the contradiction when one came.
fn write_claims_apart(out: &mut impl Write, r: &DayReport, lang: Lang) -> std::io::Result<()> {
    if r.claims_apart.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "{}", CliText::ClaimsApart.get(lang))?;
    for c in &r.claims_apart {
        let money = |d: Decimal| format_amount(d, c.currency, lang);
        let mut line = CliText::ClaimLine.fill(
            lang,
            &[
                ("order", &c.order_number.as_deref().unwrap_or(&c.link_id)),
                ("desk", &c.claimed_by),
                ("claimed", &c.claimed_paid.show(lang, money)),
                ("counted", &c.confirmed_paid.show(lang, money)),
            ],
        );
        if let Some(x) = &c.contradicted {
            let seen = x.paid.show(lang, money);
            line = format!(
                "{line} · {}",
                CliText::ClaimContradicted.fill(lang, &[("desk", &x.by), ("seen", &seen)])
            );
        }
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// The day close per staff member (when any link has a known member), then the audit head.
fn write_staff_table(out: &mut impl Write, r: &DayReport, lang: Lang) -> std::io::Result<()> {
    if r.by_staff.iter().any(|m| m.name.is_some()) {
        writeln!(out)?;
        writeln!(out, "{}", CliText::ByStaff.get(lang))?;
        for m in &r.by_staff {
            let name = m
                .name
                .clone()
                .unwrap_or_else(|| CliText::NoStaffKnown.get(lang).to_owned());
            for c in &m.currencies {
                let money = |d: Decimal| format_amount(d, c.currency, lang);
                let line = CliText::StaffLine.fill(
                    lang,
                    &[
                        ("created", &c.created),
                        ("paid", &c.paid.count),
                        ("collected", &c.collected.show(lang, money)),
                    ],
                );
                writeln!(out, "  {name:<20} {:<4} {line}", c.currency)?;
            }
        }
    }
    if !r.by_desk.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", CliText::ByDesk.get(lang))?;
        for d in &r.by_desk {
            for c in &d.currencies {
                let money = |v: Decimal| format_amount(v, c.currency, lang);
                let line = CliText::StaffLine.fill(
                    lang,
                    &[
                        ("created", &c.created),
                        ("paid", &c.paid.count),
                        ("collected", &c.collected.show(lang, money)),
                    ],
                );
                writeln!(out, "  {:<20} {:<4} {line}", d.name, c.currency)?;
            }
        }
    }
    write_claims_apart(out, r, lang)?;
    writeln!(out)?;
    writeln!(
        out,
        "{}",
        CliText::AuditHead.fill(lang, &[("head", &r.audit_head)])
    )?;
    if let Some(head) = &r.shop_audit_head {
        writeln!(
            out,
            "{}",
            CliText::ShopAuditHead.fill(lang, &[("head", head)])
        )?;
    }
    Ok(())
}
