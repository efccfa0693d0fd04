//! The payment link form: the draft as staff fill it in ([`LinkDraft`]), its validation into
//! the one value that can be sent ([`LinkRequest`]), and the live figures the form shows while
//! typing ([`LinkFigures`]).
//!
//! The form never lets staff send what the server would reject when the app can know it
//! (docs/design.md §5). The rules, from the spec and docs/design.md, and where the spec is silent our
//! decisions:
//!
//! - `amount`: required, parsed by [`parse_amount`], greater than zero, at most the API key's
//!   amount bound when known ([`KeyLimits::amount_limit`], compared as a number: the spec
//!   does not say in which currency a key's bound is kept).
//! - `cartAmount`: optional, same rules as the amount but no bound; empty means "equal to
//!   the amount" and nothing is sent. It is not compared with the amount (the spec gives no
//!   rule).
//! - `currency`: a [`Currency`], TRY by default; always sent.
//! - `description`: optional, trimmed, at most [`MAX_TEXT_CHARS`] characters (our assumption;
//!   the spec gives no bound), omitted when empty.
//! - `orderNumber`: **required** (docs/design.md §1: without it a payment cannot be matched),
//!   trimmed, 1 to [`MAX_ORDER_NUMBER_CHARS`] characters of `A–Z a–z 0–9 - _ . /` (our
//!   assumption: safe in an idempotency key, a URL and a search field).
//! - `expiryDate`: optional; it must be later than `now` (equal to now counts as past, since it
//!   is already over when the server sees it). Sent as ISO-8601 UTC with `Z`.
//! - `enableInstallment`: default true. `availableInstallments` is read only when it is on:
//!   comma-separated whole numbers from 1 to [`MAX_INSTALLMENT_COUNT`] (the spec only shows
//!   the shape `1,3,6,12`; staff pick from 1–12, the Turkish market's usual range), blanks
//!   and empty entries tolerated, sent sorted and without repeats (`6, 3,3,1` → `1,3,6`);
//!   empty means no restriction and nothing is sent.
//! - `contactRequired`, `allowPartialPayment`: default false.
//! - Booleans are always sent explicitly, so a server with other defaults cannot surprise us.
//! - `email`: optional; one `@`, a non-empty local part, a dotted domain, no blanks, at most
//!   254 characters.
//! - `phoneCountryCode` + `phoneNumber`: optional as a pair; one without the other is an
//!   error on the missing one. The code is 1–3 digits, `+` or `00` in front tolerated and
//!   removed (`+90` → `90`). The number keeps its digits after removing spaces, dashes and
//!   parentheses, and must have 4 to 15 of them (E.164's bound). A leading 0 is kept as typed.
//! - `items`: the rules of [`super::items`]; their number (rows, not quantities: the spec's
//!   `link.max_items` is an item count) must be at most [`KeyLimits::max_items`] when known.
//!   When every line total is known, their sum must equal the amount exactly; with a catalog
//!   variant the local catalog does not know, that check is left to the server.

use std::fmt;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::catalog::CatalogLookup;
use super::codes::Currency;
use super::email::is_email;
use super::errors::{Field, FieldError, FieldErrors, FieldProblem, ItemField};
use super::items::{ItemDraft, ItemKind, LinkItem, MAX_TEXT_CHARS};
use super::messages::DomainMessage;
use super::money::{AmountError, format_plain, parse_amount};
use crate::lang::Lang;

/// The largest installment count accepted in `availableInstallments`.
pub const MAX_INSTALLMENT_COUNT: u32 = 12;
/// The most characters of an order number.
pub const MAX_ORDER_NUMBER_CHARS: usize = 64;
/// The most characters of an e-mail address (RFC 5321's path limit).
pub use super::email::MAX_EMAIL_CHARS;

/// The link form as staff fill it in: text as typed.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LinkDraft {
    /// Amount to collect.
    pub amount: String,
    /// Cart amount; empty means equal to the amount.
    pub cart_amount: String,
    /// Currency.
    pub currency: Currency,
    /// Link description.
    pub description: String,
    /// The shop's order number.
    pub order_number: String,
    /// Last valid moment of the link.
    pub expiry: Option<DateTime<Utc>>,
    /// Installments on or off.
    pub enable_installment: bool,
    /// Allowed installment counts, `1,3,6`.
    pub installments: String,
    /// Whether the payment page asks for contact data.
    pub contact_required: bool,
    /// Whether several payments may add up to the total.
    pub allow_partial_payment: bool,
    /// Payer e-mail.
    pub email: String,
    /// Payer phone country code.
    pub phone_country_code: String,
    /// Payer phone number.
    pub phone_number: String,
    /// Cart items.
    pub items: Vec<ItemDraft>,
    /// The items' total as the server priced them, set by [`LinkDraft::expected_amount_fix`]
    /// and used only while the items are the ones it priced. Only that call makes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_priced: Option<ServerPriced>,
}

/// The total the server computed for a list of items (its `items.total.mismatch` answer).
///
/// The server is the price authority for catalog variants (a catalog row sends no price), so
/// a local catalog that is behind it must not refuse the server's own figure: while the items
/// are exactly these, the draft's items total is this one, and the form's "items match the
/// amount" check passes with the amount the server expects. Any change to the items drops it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerPriced {
    items: Vec<ItemDraft>,
    total: Decimal,
}

impl Default for LinkDraft {
    /// TRY, installments enabled, everything else empty or off.
    fn default() -> Self {
        LinkDraft {
            amount: String::new(),
            cart_amount: String::new(),
            currency: Currency::Try,
            description: String::new(),
            order_number: String::new(),
            expiry: None,
            enable_installment: true,
            installments: String::new(),
            contact_required: false,
            allow_partial_payment: false,
            email: String::new(),
            phone_country_code: String::new(),
            phone_number: String::new(),
            items: Vec::new(),
            server_priced: None,
        }
    }
}

/// Shows a personal-data field only as "given" or "empty".
fn redacted(text: &str) -> &'static str {
    if text.trim().is_empty() {
        ""
    } else {
        "<redacted>"
    }
}

impl fmt::Debug for LinkDraft {
    /// Payer e-mail and phone are personal data: never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LinkDraft")
            .field("amount", &self.amount)
            .field("cart_amount", &self.cart_amount)
            .field("currency", &self.currency)
            .field("description", &self.description)
            .field("order_number", &self.order_number)
            .field("expiry", &self.expiry)
            .field("enable_installment", &self.enable_installment)
            .field("installments", &self.installments)
            .field("contact_required", &self.contact_required)
            .field("allow_partial_payment", &self.allow_partial_payment)
            .field("email", &redacted(&self.email))
            .field("phone_country_code", &self.phone_country_code)
            .field("phone_number", &redacted(&self.phone_number))
            .field("items", &self.items)
            .field("server_priced", &self.server_priced)
            .finish()
    }
}

/// What the API key is known to allow (from the profile); `None` means unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyLimits {
    /// The key's amount upper bound.
    pub amount_limit: Option<Decimal>,
    /// The key's `link.max_items`.
    pub max_items: Option<u32>,
}

/// What validation needs besides the draft.
#[derive(Clone, Copy)]
pub struct LinkContext<'a> {
    /// The current moment (expiry must be later).
    pub now: DateTime<Utc>,
    /// The local catalog mirror.
    pub catalog: &'a dyn CatalogLookup,
    /// The key's known limits.
    pub limits: KeyLimits,
}

impl fmt::Debug for LinkContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LinkContext")
            .field("now", &self.now)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// A validated link create request: only [`LinkDraft::validate`] builds one. Serializes to
/// the exact wire body.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkRequest {
    #[serde(with = "crate::domain::wire_format::amount")]
    amount: Decimal,
    #[serde(
        with = "crate::domain::wire_format::amount_opt",
        skip_serializing_if = "Option::is_none"
    )]
    cart_amount: Option<Decimal>,
    currency: Currency,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    order_number: String,
    #[serde(
        with = "crate::domain::wire_format::time_opt",
        skip_serializing_if = "Option::is_none"
    )]
    expiry_date: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    items: Vec<LinkItem>,
    enable_installment: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    available_installments: Option<String>,
    contact_required: bool,
    allow_partial_payment: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phone_country_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phone_number: Option<String>,
}

impl fmt::Debug for LinkRequest {
    /// Payer e-mail and phone number are personal data: never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hide = |o: &Option<String>| o.as_ref().map(|_| "<redacted>");
        f.debug_struct("LinkRequest")
            .field("amount", &self.amount)
            .field("cart_amount", &self.cart_amount)
            .field("currency", &self.currency)
            .field("description", &self.description)
            .field("order_number", &self.order_number)
            .field("expiry_date", &self.expiry_date)
            .field("items", &self.items)
            .field("enable_installment", &self.enable_installment)
            .field("available_installments", &self.available_installments)
            .field("contact_required", &self.contact_required)
            .field("allow_partial_payment", &self.allow_partial_payment)
            .field("email", &hide(&self.email))
            .field("phone_country_code", &self.phone_country_code)
            .field("phone_number", &hide(&self.phone_number))
            .finish()
    }
}

impl LinkRequest {
    /// `amount`, at the currency's scale.
    pub fn amount(&self) -> Decimal {
        self.amount
    }

    /// `cartAmount`, when sent.
    pub fn cart_amount(&self) -> Option<Decimal> {
        self.cart_amount
    }

    /// `currency`.
    pub fn currency(&self) -> Currency {
        self.currency
    }

    /// `orderNumber`.
    pub fn order_number(&self) -> &str {
        &self.order_number
    }

    /// `description`, when sent.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// `expiryDate`, when sent.
    pub fn expiry_date(&self) -> Option<DateTime<Utc>> {
        self.expiry_date
    }

    /// `enableInstallment`.
    pub fn enable_installment(&self) -> bool {
        self.enable_installment
    }

    /// `availableInstallments`, normalised, when sent.
    pub fn available_installments(&self) -> Option<&str> {
        self.available_installments.as_deref()
    }

    /// `contactRequired`.
    pub fn contact_required(&self) -> bool {
        self.contact_required
    }

    /// `allowPartialPayment`.
    pub fn allow_partial_payment(&self) -> bool {
        self.allow_partial_payment
    }

    /// `email`, when sent.
    pub fn email(&self) -> Option<&str> {
        self.email.as_deref()
    }

    /// `phoneCountryCode` and `phoneNumber`, when sent.
    pub fn phone(&self) -> Option<(&str, &str)> {
        self.phone_country_code
            .as_deref()
            .zip(self.phone_number.as_deref())
    }

    /// The items.
    pub fn items(&self) -> &[LinkItem] {
        &self.items
    }

    /// Number of item rows.
    pub fn item_count(&self) -> usize {
        self.items.len()
    }

    /// The exact body bytes. Build them once and sign and send those very bytes.
    pub fn body_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self)
            .expect("a LinkRequest is strings, decimal numbers and booleans: it always serializes")
    }

    /// The idempotency key for this request, `link-{orderNumber}` (docs/design.md §2).
    pub fn idempotency_key(&self) -> String {
        format!("link-{}", self.order_number)
    }
}

/// A named check the form shows next to the send button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Check {
    /// The amount is a valid number greater than zero.
    AmountValid,
    /// The items add up to the amount exactly.
    ItemsMatchAmount,
    /// Every catalog item is priced in the link currency.
    CatalogCurrency,
    /// The expiry is in the future.
    ExpiryInFuture,
    /// The installment counts have the right shape.
    InstallmentsShape,
    /// The amount is within the API key's bound.
    WithinAmountLimit,
    /// The item rows are within the API key's ceiling.
    WithinItemLimit,
}

impl Check {
    /// Every check, in the order the form lists them.
    pub const ALL: [Check; 7] = [
        Check::AmountValid,
        Check::ItemsMatchAmount,
        Check::CatalogCurrency,
        Check::ExpiryInFuture,
        Check::InstallmentsShape,
        Check::WithinAmountLimit,
        Check::WithinItemLimit,
    ];

    /// What the check asks, as the form lists it.
    pub fn label(self, lang: Lang) -> &'static str {
        let m = match self {
            Check::AmountValid => DomainMessage::CheckAmountValid,
            Check::ItemsMatchAmount => DomainMessage::CheckItemsMatchAmount,
            Check::CatalogCurrency => DomainMessage::CheckCatalogCurrency,
            Check::ExpiryInFuture => DomainMessage::CheckExpiryInFuture,
            Check::InstallmentsShape => DomainMessage::CheckInstallmentsShape,
            Check::WithinAmountLimit => DomainMessage::CheckWithinAmountLimit,
            Check::WithinItemLimit => DomainMessage::CheckWithinItemLimit,
        };
        m.get(lang)
    }
}

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckStatus {
    /// Satisfied.
    Pass,
    /// Violated: sending would be refused.
    Fail,
    /// Does not apply (nothing to check, or not enough known to check it).
    NotApplicable,
}

/// One check and its outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CheckResult {
    /// The check.
    pub check: Check,
    /// Its outcome.
    pub status: CheckStatus,
}

impl CheckResult {
    /// Whether it did not fail.
    pub fn passed(&self) -> bool {
        self.status != CheckStatus::Fail
    }
}

/// The live figures of a draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFigures {
    /// The amount, when it parses.
    pub amount: Option<Decimal>,
    /// Per row: the line total when the row is valid and its price known.
    pub line_totals: Vec<Option<Decimal>>,
    /// Sum of the lines; `None` with no items or any line unknown.
    pub items_total: Option<Decimal>,
    /// `items_total − amount`, when both are known.
    pub difference: Option<Decimal>,
    /// Whether both are known and equal.
    pub totals_match: bool,
    /// Every check of [`Check::ALL`], in that order.
    pub checks: Vec<CheckResult>,
}

impl LinkFigures {
    /// The outcome of one check.
    pub fn status(&self, check: Check) -> CheckStatus {
        self.checks
            .iter()
            .find(|r| r.check == check)
            .map_or(CheckStatus::NotApplicable, |r| r.status)
    }

    /// The checks that failed, in form order.
    pub fn failed(&self) -> impl Iterator<Item = Check> + '_ {
        self.checks.iter().filter(|r| !r.passed()).map(|r| r.check)
    }
}

impl LinkDraft {
    /// Validates the whole draft, returning the wire request or every problem found.
    pub fn validate(&self, ctx: &LinkContext<'_>) -> Result<LinkRequest, FieldErrors> {
        let mut errors = FieldErrors::default();
        let currency = self.currency;

        let amount = positive_amount(&self.amount, currency, Field::Amount, true, &mut errors);
        if let (Some(a), Some(limit)) = (amount, ctx.limits.amount_limit)
            && a > limit
        {
            errors.push(Field::Amount, FieldProblem::OverLimit { limit, currency });
        }
        let cart_amount = positive_amount(
            &self.cart_amount,
            currency,
            Field::CartAmount,
            false,
            &mut errors,
        );

        let description = self.description.trim();
        if description.chars().count() > MAX_TEXT_CHARS {
            errors.push(
                Field::Description,
                FieldProblem::TooLong {
                    max: MAX_TEXT_CHARS,
                },
            );
        }

        let order_number = self.order_number.trim();
        if order_number.is_empty() {
            errors.push(Field::OrderNumber, FieldProblem::Required);
        } else {
            if !order_number
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
            {
                errors.push(Field::OrderNumber, FieldProblem::BadOrderNumber);
            }
            if order_number.chars().count() > MAX_ORDER_NUMBER_CHARS {
                errors.push(
                    Field::OrderNumber,
                    FieldProblem::TooLong {
                        max: MAX_ORDER_NUMBER_CHARS,
                    },
                );
            }
        }

        if let Some(expiry) = self.expiry
            && expiry <= ctx.now
        {
            errors.push(Field::ExpiryDate, FieldProblem::InPast);
        }

        let available_installments = if self.enable_installment {
            normalize_installments(&self.installments)
                .map_err(|p| errors.push(Field::AvailableInstallments, p))
                .ok()
                .flatten()
        } else {
            None
        };

        let email = self.email.trim();
        if !email.is_empty() && !is_email(email) {
            errors.push(Field::Email, FieldProblem::BadEmail);
        }
        let phone = self.phone(&mut errors);

        let items = self.validate_items(ctx, amount, &mut errors);

        match (amount, items) {
            (Some(amount), Some(items)) if errors.is_empty() => {
                let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
                let (phone_country_code, phone_number) = phone.unzip();
                Ok(LinkRequest {
                    amount,
                    cart_amount,
                    currency,
                    description: some(description),
                    order_number: order_number.to_owned(),
                    expiry_date: self.expiry,
                    items,
                    enable_installment: self.enable_installment,
                    available_installments,
                    contact_required: self.contact_required,
                    allow_partial_payment: self.allow_partial_payment,
                    email: some(email),
                    phone_country_code,
                    phone_number,
                })
            }
            _ => Err(errors),
        }
    }

    /// The items, their count against the key's ceiling, and their total against the amount.
    /// `None` when any row is invalid.
    fn validate_items(
        &self,
        ctx: &LinkContext<'_>,
        amount: Option<Decimal>,
        errors: &mut FieldErrors,
    ) -> Option<Vec<LinkItem>> {
        if let Some(max) = ctx.limits.max_items
            && self.items.len() > max as usize
        {
            errors.push(Field::Items, FieldProblem::TooManyItems { max });
        }
        let mut items = Vec::with_capacity(self.items.len());
        let mut total = Some(Decimal::ZERO);
        let mut all_valid = true;
        for (row, draft) in self.items.iter().enumerate() {
            match draft.validate(row, self.currency, ctx.catalog) {
                Ok(v) => {
                    total = total.zip(v.line_total).and_then(|(t, l)| t.checked_add(l));
                    items.push(v.item);
                }
                Err(row_errors) => {
                    all_valid = false;
                    errors.0.extend(row_errors);
                }
            }
        }
        if !all_valid {
            return None;
        }
        let total = self.server_total().or(total);
        if let (false, Some(items_total), Some(amount)) = (items.is_empty(), total, amount)
            && items_total != amount
        {
            errors.push(
                Field::Items,
                FieldProblem::TotalMismatch {
                    items_total,
                    amount,
                    currency: self.currency,
                },
            );
        }
        Some(items)
    }

    /// The phone pair, each half checked; `None` when not given or wrong.
    fn phone(&self, errors: &mut FieldErrors) -> Option<(String, String)> {
        let code = self.phone_country_code.trim();
        let number = self.phone_number.trim();
        let code = match code {
            "" => None,
            c => {
                let digits = c
                    .strip_prefix('+')
                    .or_else(|| c.strip_prefix("00"))
                    .unwrap_or(c)
                    .trim_start();
                if (1..=3).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
                    Some(Ok(digits.to_owned()))
                } else {
                    errors.push(Field::PhoneCountryCode, FieldProblem::BadCountryCode);
                    Some(Err(()))
                }
            }
        };
        let number = match number {
            "" => None,
            n => {
                let digits: String = n
                    .chars()
                    .filter(|c| !matches!(c, ' ' | '-' | '(' | ')'))
                    .collect();
                if (4..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
                    Some(Ok(digits))
                } else {
                    errors.push(Field::PhoneNumber, FieldProblem::BadPhone);
                    Some(Err(()))
                }
            }
        };
        match (code, number) {
            (Some(Ok(c)), Some(Ok(n))) => Some((c, n)),
            (Some(_), None) => {
                errors.push(Field::PhoneNumber, FieldProblem::PhoneIncomplete);
                None
            }
            (None, Some(_)) => {
                errors.push(Field::PhoneCountryCode, FieldProblem::PhoneIncomplete);
                None
            }
            _ => None,
        }
    }

    /// The live figures and checks of the draft (never fails; shows what is known).
    pub fn figures(&self, ctx: &LinkContext<'_>) -> LinkFigures {
        use CheckStatus::{Fail, NotApplicable, Pass};
        let pass_if = |ok: bool| if ok { Pass } else { Fail };
        let currency = self.currency;

        let amount = parse_amount(&self.amount, currency).ok();
        let line_totals: Vec<Option<Decimal>> = self
            .items
            .iter()
            .map(|i| i.line_total(currency, ctx.catalog))
            .collect();
        let items_total = if line_totals.is_empty() {
            None
        } else {
            self.server_total().or_else(|| {
                line_totals
                    .iter()
                    .try_fold(Decimal::ZERO, |sum, l| l.and_then(|l| sum.checked_add(l)))
            })
        };
        let difference = items_total.zip(amount).map(|(t, a)| t - a);
        let totals_match = difference.is_some_and(|d| d.is_zero());

        let catalog_currency = {
            let mut status = NotApplicable;
            for item in &self.items {
                if let ItemKind::Catalog { variant_id } = &item.kind
                    && let Some(v) = ctx.catalog.variant(variant_id.trim())
                {
                    if v.currency != currency {
                        status = Fail;
                        break;
                    }
                    status = Pass;
                }
            }
            status
        };
        let installments = if !self.enable_installment || self.installments.trim().is_empty() {
            NotApplicable
        } else {
            pass_if(normalize_installments(&self.installments).is_ok())
        };

        let checks = Check::ALL
            .iter()
            .map(|&check| {
                let status = match check {
                    Check::AmountValid => pass_if(amount.is_some_and(|a| a > Decimal::ZERO)),
                    Check::ItemsMatchAmount => {
                        difference.map_or(NotApplicable, |d| pass_if(d.is_zero()))
                    }
                    Check::CatalogCurrency => catalog_currency,
                    Check::ExpiryInFuture => {
                        self.expiry.map_or(NotApplicable, |e| pass_if(e > ctx.now))
                    }
                    Check::InstallmentsShape => installments,
                    Check::WithinAmountLimit => match (amount, ctx.limits.amount_limit) {
                        (Some(a), Some(limit)) => pass_if(a <= limit),
                        _ => NotApplicable,
                    },
                    Check::WithinItemLimit => ctx.limits.max_items.map_or(NotApplicable, |max| {
                        pass_if(self.items.len() <= max as usize)
                    }),
                };
                CheckResult { check, status }
            })
            .collect();

        LinkFigures {
            amount,
            line_totals,
            items_total,
            difference,
            totals_match,
            checks,
        }
    }

    /// Sets the amount to the items total when every line total is known. Returns whether
    /// it did.
    pub fn use_items_total_as_amount(&mut self, ctx: &LinkContext<'_>) -> bool {
        match self.figures(ctx).items_total {
            Some(total) => {
                self.amount = format_plain(total, self.currency);
                true
            }
            None => false,
        }
    }

    /// One more unit of a catalog variant, as a barcode scan adds it: 1 more on the last row of
    /// that variant, else a new row with quantity 1 at the end. Returns the row's index.
    ///
    /// The amount follows the items total while it is empty or equal to it (a clerk scanning
    /// a basket gets the sum without a click); an amount typed otherwise is left as it is, and
    /// the form's "items total vs amount" check and its one-click fix apply as for any row.
    ///
    /// A row of that variant whose quantity cannot be read (or would pass `u32::MAX`) is an
    /// error naming the row, and nothing changes: the clerk's text is never overwritten.
    pub fn add_catalog_unit(
        &mut self,
        variant_id: &str,
        ctx: &LinkContext<'_>,
    ) -> Result<usize, FieldError> {
        let before = self.figures(ctx);
        let follow = self.amount.trim().is_empty() || before.totals_match;
        let existing = self.items.iter().rposition(
            |i| matches!(&i.kind, ItemKind::Catalog { variant_id: v } if v.trim() == variant_id),
        );
        let row = if let Some(row) = existing {
            let item = &mut self.items[row];
            let at = Field::Item {
                row,
                field: ItemField::Quantity,
            };
            let quantity = item.parse_quantity().map_err(|p| FieldError::new(at, p))?;
            let more = quantity
                .checked_add(1)
                .ok_or_else(|| FieldError::new(at, FieldProblem::TooLarge))?;
            item.quantity = more.to_string();
            row
        } else {
            self.items.push(ItemDraft::catalog(variant_id, "1"));
            self.items.len() - 1
        };
        if follow {
            self.use_items_total_as_amount(ctx);
        }
        Ok(row)
    }

    /// Sets the amount to the value the server expects (its `items.total.mismatch` answer),
    /// and takes it as these items' total for as long as they stay as they are (see
    /// [`ServerPriced`]).
    pub fn expected_amount_fix(&mut self, expected: Decimal) {
        self.amount = format_plain(expected, self.currency);
        self.server_priced = (!self.items.is_empty()).then(|| ServerPriced {
            items: self.items.clone(),
            total: expected,
        });
    }

    /// The server's total for the items, while they are the ones it priced.
    fn server_total(&self) -> Option<Decimal> {
        self.server_priced
            .as_ref()
            .filter(|p| p.items == self.items)
            .map(|p| p.total)
    }
}

/// An amount field: parsed, greater than zero. Empty is `Required` when `required`, else
/// simply absent.
fn positive_amount(
    text: &str,
    currency: Currency,
    field: Field,
    required: bool,
    errors: &mut FieldErrors,
) -> Option<Decimal> {
    match parse_amount(text, currency) {
        Err(AmountError::Empty) if !required => None,
        Err(AmountError::Empty) => {
            errors.push(field, FieldProblem::Required);
            None
        }
        Err(e) => {
            errors.push(field, e);
            None
        }
        Ok(a) if a.is_zero() => {
            errors.push(field, FieldProblem::NotPositive);
            None
        }
        Ok(a) => Some(a),
    }
}

/// Reads `availableInstallments`: comma-separated whole numbers from 1 to
/// [`MAX_INSTALLMENT_COUNT`], blanks and empty entries tolerated. Returns them sorted and
/// without repeats (`6, 3,3,1` → `1,3,6`), or `None` when there are none.
pub fn normalize_installments(text: &str) -> Result<Option<String>, FieldProblem> {
    let mut counts = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let count = entry
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_INSTALLMENT_COUNT).contains(n) && !entry.starts_with('+'))
            .ok_or_else(|| FieldProblem::BadInstallments {
                entry: entry.to_owned(),
                max: MAX_INSTALLMENT_COUNT,
            })?;
        counts.push(count);
    }
    counts.sort_unstable();
    counts.dedup();
    if counts.is_empty() {
        return Ok(None);
    }
    let texts: Vec<String> = counts.iter().map(u32::to_string).collect();
    Ok(Some(texts.join(",")))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::str::FromStr;

    use chrono::TimeZone;

    use super::*;
    use crate::domain::catalog::CatalogVariant;
    use crate::domain::errors::{FieldError, ItemField};

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap()
    }

    fn catalog() -> HashMap<String, CatalogVariant> {
        [
            ("v-latte", "85.50", Currency::Try),
            ("v-mug", "12.00", Currency::Eur),
        ]
        .into_iter()
        .map(|(id, price, currency)| {
            let v = CatalogVariant {
                id: id.into(),
                name: id.into(),
                unit_price: dec(price),
                currency,
                barcode: None,
            };
            (v.id.clone(), v)
        })
        .collect()
    }

    fn ctx(catalog: &HashMap<String, CatalogVariant>) -> LinkContext<'_> {
        LinkContext {
            now: now(),
            catalog,
            limits: KeyLimits::default(),
        }
    }

    fn base() -> LinkDraft {
        LinkDraft {
            amount: "150".into(),
            order_number: "PD-20261122-0001".into(),
            ..LinkDraft::default()
        }
    }

    /// A named edit of the base draft and the exact errors it must give.
    type RuleCase = (&'static str, fn(&mut LinkDraft), Vec<(Field, FieldProblem)>);

    const VECTOR_1_BODY: &str = r#"{"amount":150.00,"currency":"TRY","orderNumber":"PD-20261122-0001","items":[{"name":"Filter coffee","unitPrice":75.00,"quantity":2}]}"#;

    #[test]
    fn the_first_signature_vector_draft_gives_its_body_plus_explicit_booleans() {
        let cat = catalog();
        let draft = LinkDraft {
            items: vec![ItemDraft::free("Filter coffee", "75", "2")],
            ..base()
        };
        let req = draft.validate(&ctx(&cat)).unwrap();
        let body = String::from_utf8(req.body_bytes()).unwrap();
        assert_eq!(
            body,
            r#"{"amount":150.00,"currency":"TRY","orderNumber":"PD-20261122-0001","items":[{"name":"Filter coffee","unitPrice":75.00,"quantity":2}],"enableInstallment":true,"contactRequired":false,"allowPartialPayment":false}"#
        );
        // The vector's body is ours without the three booleans, which carry the spec defaults.
        let ours: serde_json::Value = serde_json::from_str(&body).unwrap();
        let mut ours = ours.as_object().unwrap().clone();
        for (key, default) in [
            ("enableInstallment", true),
            ("contactRequired", false),
            ("allowPartialPayment", false),
        ] {
            assert_eq!(ours.remove(key), Some(serde_json::Value::Bool(default)));
        }
        let vector: serde_json::Value = serde_json::from_str(VECTOR_1_BODY).unwrap();
        assert_eq!(serde_json::Value::Object(ours), vector);
        // Byte for byte: the vector's body, then the three booleans before the closing brace.
        let prefix = VECTOR_1_BODY.strip_suffix('}').unwrap();
        assert_eq!(
            body,
            format!(
                "{prefix},\"enableInstallment\":true,\"contactRequired\":false,\"allowPartialPayment\":false}}"
            )
        );
        assert_eq!(req.idempotency_key(), "link-PD-20261122-0001");
        assert_eq!(req.amount().to_string(), "150.00");
        assert_eq!(req.currency(), Currency::Try);
        assert_eq!(req.order_number(), "PD-20261122-0001");
        assert_eq!(req.description(), None);
        assert_eq!(req.item_count(), 1);
    }

    #[test]
    fn every_field_filled_gives_the_full_body() {
        let cat = catalog();
        let draft = LinkDraft {
            amount: "1.234,50".into(),
            cart_amount: "1300".into(),
            currency: Currency::Try,
            description: "  Kasım siparişi ".into(),
            order_number: " PD-7/a_b.c ".into(),
            expiry: Some(Utc.with_ymd_and_hms(2026, 11, 23, 10, 0, 0).unwrap()),
            enable_installment: true,
            installments: "6, 3,3,1,".into(),
            contact_required: true,
            allow_partial_payment: true,
            email: " ayse@example.com.tr ".into(),
            phone_country_code: "+90".into(),
            phone_number: "532 123-45 67".into(),
            items: vec![
                ItemDraft::catalog("v-latte", "3"),
                ItemDraft::free("Cake", "978", "1").with_note("no nuts"),
            ],
            server_priced: None,
        };
        let req = draft.validate(&ctx(&cat)).unwrap();
        assert_eq!(
            String::from_utf8(req.body_bytes()).unwrap(),
            concat!(
                r#"{"amount":1234.50,"cartAmount":1300.00,"currency":"TRY","#,
                r#""description":"Kasım siparişi","orderNumber":"PD-7/a_b.c","#,
                r#""expiryDate":"2026-11-23T10:00:00Z","#,
                r#""items":[{"productVariantId":"v-latte","quantity":3},"#,
                r#"{"name":"Cake","unitPrice":978.00,"quantity":1,"specialNote":"no nuts"}],"#,
                r#""enableInstallment":true,"availableInstallments":"1,3,6","#,
                r#""contactRequired":true,"allowPartialPayment":true,"#,
                r#""email":"ayse@example.com.tr","phoneCountryCode":"90","phoneNumber":"5321234567"}"#
            )
        );
        assert_eq!(req.phone(), Some(("90", "5321234567")));
        let debug = format!("{req:?}");
        assert!(
            !debug.contains("ayse@") && !debug.contains("5321234567"),
            "{debug}"
        );
        assert!(!format!("{draft:?}").contains("ayse@"));
    }

    #[test]
    fn disabled_installments_ignore_the_counts_and_send_false() {
        let cat = catalog();
        let draft = LinkDraft {
            enable_installment: false,
            installments: "garbage, 99".into(),
            currency: Currency::Jpy,
            amount: "1,500".into(),
            ..base()
        };
        let body = String::from_utf8(draft.validate(&ctx(&cat)).unwrap().body_bytes()).unwrap();
        assert_eq!(
            body,
            r#"{"amount":1500,"currency":"JPY","orderNumber":"PD-20261122-0001","enableInstallment":false,"contactRequired":false,"allowPartialPayment":false}"#
        );
    }

    #[test]
    // Long on purpose: one table case per rule, so the rules covered read in one place.
    #[allow(clippy::too_many_lines)]
    fn each_rule_reports_its_exact_field_and_problem() {
        let cat = catalog();
        let at = |row, field| Field::Item { row, field };
        let cases: Vec<RuleCase> = vec![
            (
                "amount empty",
                |d| d.amount = " ".into(),
                vec![(Field::Amount, FieldProblem::Required)],
            ),
            (
                "amount zero",
                |d| d.amount = "0,00".into(),
                vec![(Field::Amount, FieldProblem::NotPositive)],
            ),
            (
                "amount negative",
                |d| d.amount = "-5".into(),
                vec![(Field::Amount, FieldProblem::Amount(AmountError::Negative))],
            ),
            (
                "amount scale",
                |d| d.amount = "10.1234".into(),
                vec![(
                    Field::Amount,
                    FieldProblem::Amount(AmountError::TooManyDecimals { max: 2 }),
                )],
            ),
            (
                "amount JPY scale",
                |d| {
                    d.currency = Currency::Jpy;
                    d.amount = "10.5".into();
                },
                vec![(
                    Field::Amount,
                    FieldProblem::Amount(AmountError::TooManyDecimals { max: 0 }),
                )],
            ),
            (
                "cart zero",
                |d| d.cart_amount = "0".into(),
                vec![(Field::CartAmount, FieldProblem::NotPositive)],
            ),
            (
                "cart garbage",
                |d| d.cart_amount = "x".into(),
                vec![(
                    Field::CartAmount,
                    FieldProblem::Amount(AmountError::NotANumber),
                )],
            ),
            (
                "description long",
                |d| d.description = "a".repeat(256),
                vec![(Field::Description, FieldProblem::TooLong { max: 255 })],
            ),
            (
                "order missing",
                |d| d.order_number = "  ".into(),
                vec![(Field::OrderNumber, FieldProblem::Required)],
            ),
            (
                "order chars",
                |d| d.order_number = "PD 1".into(),
                vec![(Field::OrderNumber, FieldProblem::BadOrderNumber)],
            ),
            (
                "order Turkish",
                |d| d.order_number = "SİP-1".into(),
                vec![(Field::OrderNumber, FieldProblem::BadOrderNumber)],
            ),
            (
                "order long",
                |d| d.order_number = "A".repeat(65),
                vec![(Field::OrderNumber, FieldProblem::TooLong { max: 64 })],
            ),
            (
                "expiry past",
                |d| d.expiry = Some(now() - chrono::Duration::seconds(1)),
                vec![(Field::ExpiryDate, FieldProblem::InPast)],
            ),
            (
                "expiry now",
                |d| d.expiry = Some(now()),
                vec![(Field::ExpiryDate, FieldProblem::InPast)],
            ),
            (
                "installment 13",
                |d| d.installments = "1,13".into(),
                vec![(
                    Field::AvailableInstallments,
                    FieldProblem::BadInstallments {
                        entry: "13".into(),
                        max: 12,
                    },
                )],
            ),
            (
                "installment 0",
                |d| d.installments = "0".into(),
                vec![(
                    Field::AvailableInstallments,
                    FieldProblem::BadInstallments {
                        entry: "0".into(),
                        max: 12,
                    },
                )],
            ),
            (
                "installment word",
                |d| d.installments = "3;6".into(),
                vec![(
                    Field::AvailableInstallments,
                    FieldProblem::BadInstallments {
                        entry: "3;6".into(),
                        max: 12,
                    },
                )],
            ),
            (
                "installment sign",
                |d| d.installments = "+3".into(),
                vec![(
                    Field::AvailableInstallments,
                    FieldProblem::BadInstallments {
                        entry: "+3".into(),
                        max: 12,
                    },
                )],
            ),
            (
                "email no at",
                |d| d.email = "ayse.example.com".into(),
                vec![(Field::Email, FieldProblem::BadEmail)],
            ),
            (
                "email no dot",
                |d| d.email = "ayse@example".into(),
                vec![(Field::Email, FieldProblem::BadEmail)],
            ),
            (
                "email two at",
                |d| d.email = "a@b@c.com".into(),
                vec![(Field::Email, FieldProblem::BadEmail)],
            ),
            (
                "email blank",
                |d| d.email = "a yse@b.com".into(),
                vec![(Field::Email, FieldProblem::BadEmail)],
            ),
            (
                "email empty label",
                |d| d.email = "a@b..com".into(),
                vec![(Field::Email, FieldProblem::BadEmail)],
            ),
            (
                "phone letters",
                |d| {
                    d.phone_country_code = "90".into();
                    d.phone_number = "532 ABC".into();
                },
                vec![(Field::PhoneNumber, FieldProblem::BadPhone)],
            ),
            (
                "phone short",
                |d| {
                    d.phone_country_code = "90".into();
                    d.phone_number = "12".into();
                },
                vec![(Field::PhoneNumber, FieldProblem::BadPhone)],
            ),
            (
                "country code bad",
                |d| {
                    d.phone_country_code = "+9000".into();
                    d.phone_number = "5321234567".into();
                },
                vec![(Field::PhoneCountryCode, FieldProblem::BadCountryCode)],
            ),
            (
                "code without number",
                |d| d.phone_country_code = "+90".into(),
                vec![(Field::PhoneNumber, FieldProblem::PhoneIncomplete)],
            ),
            (
                "number without code",
                |d| d.phone_number = "5321234567".into(),
                vec![(Field::PhoneCountryCode, FieldProblem::PhoneIncomplete)],
            ),
            (
                "items mismatch",
                |d| d.items = vec![ItemDraft::free("Tea", "70", "2")],
                vec![(
                    Field::Items,
                    FieldProblem::TotalMismatch {
                        items_total: dec("140.00"),
                        amount: dec("150.00"),
                        currency: Currency::Try,
                    },
                )],
            ),
            (
                "catalog currency",
                |d| d.items = vec![ItemDraft::catalog("v-mug", "1")],
                vec![(
                    at(0, ItemField::Variant),
                    FieldProblem::CurrencyMismatch {
                        item: Currency::Eur,
                        link: Currency::Try,
                    },
                )],
            ),
            (
                "item rules",
                |d| {
                    d.items = vec![
                        ItemDraft::free("Tea", "75", "2"),
                        ItemDraft::free("", "0", "0"),
                    ];
                },
                vec![
                    (at(1, ItemField::Quantity), FieldProblem::QuantityBelowOne),
                    (at(1, ItemField::Name), FieldProblem::Required),
                    (at(1, ItemField::UnitPrice), FieldProblem::NotPositive),
                ],
            ),
        ];
        for (name, edit, want) in cases {
            let mut draft = base();
            edit(&mut draft);
            let got = draft.validate(&ctx(&cat)).expect_err(name);
            let want: Vec<_> = want
                .into_iter()
                .map(|(f, p)| FieldError::new(f, p))
                .collect();
            assert_eq!(got.0, want, "{name}");
        }
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let cat = catalog();
        let draft = LinkDraft {
            amount: String::new(),
            order_number: String::new(),
            expiry: Some(now()),
            email: "nope".into(),
            ..LinkDraft::default()
        };
        let fields: Vec<Field> = draft
            .validate(&ctx(&cat))
            .unwrap_err()
            .iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(
            fields,
            [
                Field::Amount,
                Field::OrderNumber,
                Field::ExpiryDate,
                Field::Email
            ]
        );
    }

    #[test]
    fn key_limits_bound_amount_and_item_rows() {
        let cat = catalog();
        let limited = |amount: &str, max_items| {
            let c = LinkContext {
                limits: KeyLimits {
                    amount_limit: Some(dec("1000.00")),
                    max_items: Some(max_items),
                },
                ..ctx(&cat)
            };
            let draft = LinkDraft {
                amount: amount.into(),
                items: vec![
                    ItemDraft::catalog("v-unknown-1", "5"),
                    ItemDraft::catalog("v-unknown-2", ""),
                ],
                ..base()
            };
            (draft.validate(&c), draft.figures(&c))
        };
        // Two rows (five of one and one of another): the ceiling counts rows.
        let (ok, f) = limited("1000", 2);
        assert_eq!(ok.unwrap().item_count(), 2);
        assert_eq!(f.status(Check::WithinItemLimit), CheckStatus::Pass);
        assert_eq!(f.status(Check::WithinAmountLimit), CheckStatus::Pass);
        let (err, f) = limited("1000,01", 1);
        assert_eq!(
            err.unwrap_err().0,
            [
                FieldError::new(
                    Field::Amount,
                    FieldProblem::OverLimit {
                        limit: dec("1000.00"),
                        currency: Currency::Try
                    }
                ),
                FieldError::new(Field::Items, FieldProblem::TooManyItems { max: 1 }),
            ]
        );
        assert_eq!(
            f.failed().collect::<Vec<_>>(),
            [Check::WithinAmountLimit, Check::WithinItemLimit]
        );
    }

    #[test]
    fn unknown_catalog_prices_leave_the_total_to_the_server() {
        let cat = catalog();
        let draft = LinkDraft {
            amount: "99".into(),
            items: vec![
                ItemDraft::catalog("v-latte", "1"),
                ItemDraft::catalog("v-elsewhere", "1"),
            ],
            ..base()
        };
        assert!(draft.validate(&ctx(&cat)).is_ok());
        let f = draft.figures(&ctx(&cat));
        assert_eq!(f.line_totals, [Some(dec("85.50")), None]);
        assert_eq!(f.items_total, None);
        assert_eq!(f.difference, None);
        assert!(!f.totals_match);
        assert_eq!(
            f.status(Check::ItemsMatchAmount),
            CheckStatus::NotApplicable
        );
        assert_eq!(f.status(Check::CatalogCurrency), CheckStatus::Pass);
    }

    #[test]
    fn installment_text_is_normalised() {
        let cases: &[(&str, Option<&str>)] = &[
            ("", None),
            (" , ,", None),
            ("1,3,6,12", Some("1,3,6,12")),
            ("6, 3,3,1", Some("1,3,6")),
            (" 12 ,1, ", Some("1,12")),
            ("03", Some("3")),
        ];
        for (text, want) in cases {
            assert_eq!(
                normalize_installments(text),
                Ok(want.map(str::to_owned)),
                "{text:?}"
            );
        }
    }

    #[test]
    fn figures_show_totals_difference_and_checks() {
        let cat = catalog();
        let draft = LinkDraft {
            amount: "150".into(),
            expiry: Some(now() + chrono::Duration::hours(1)),
            installments: "1,3,x".into(),
            items: vec![
                ItemDraft::free("Tea", "75", "2"),
                ItemDraft::catalog("v-latte", "1"),
            ],
            ..base()
        };
        let f = draft.figures(&ctx(&cat));
        assert_eq!(f.amount, Some(dec("150.00")));
        assert_eq!(f.line_totals, [Some(dec("150.00")), Some(dec("85.50"))]);
        assert_eq!(f.items_total, Some(dec("235.50")));
        assert_eq!(f.difference, Some(dec("85.50")));
        assert!(!f.totals_match);
        let statuses: Vec<_> = f.checks.iter().map(|r| (r.check, r.status)).collect();
        assert_eq!(
            statuses,
            [
                (Check::AmountValid, CheckStatus::Pass),
                (Check::ItemsMatchAmount, CheckStatus::Fail),
                (Check::CatalogCurrency, CheckStatus::Pass),
                (Check::ExpiryInFuture, CheckStatus::Pass),
                (Check::InstallmentsShape, CheckStatus::Fail),
                (Check::WithinAmountLimit, CheckStatus::NotApplicable),
                (Check::WithinItemLimit, CheckStatus::NotApplicable),
            ]
        );

        let mut fixed = draft.clone();
        fixed.installments.clear();
        assert!(fixed.use_items_total_as_amount(&ctx(&cat)));
        assert_eq!(fixed.amount, "235.50");
        let f = fixed.figures(&ctx(&cat));
        assert!(f.totals_match);
        assert_eq!(f.difference, Some(Decimal::ZERO));
        assert_eq!(f.failed().count(), 0);
        assert_eq!(fixed.validate(&ctx(&cat)).unwrap().amount(), dec("235.50"));
    }

    #[test]
    fn figures_flag_wrong_currency_past_expiry_and_bad_amount() {
        let cat = catalog();
        let draft = LinkDraft {
            amount: "abc".into(),
            expiry: Some(now()),
            items: vec![ItemDraft::catalog("v-mug", "1")],
            ..base()
        };
        let f = draft.figures(&ctx(&cat));
        assert_eq!(f.amount, None);
        assert_eq!(f.line_totals, [None]);
        assert_eq!(
            f.failed().collect::<Vec<_>>(),
            [
                Check::AmountValid,
                Check::CatalogCurrency,
                Check::ExpiryInFuture
            ]
        );
        let mut unfixable = draft.clone();
        assert!(!unfixable.use_items_total_as_amount(&ctx(&cat)));
        assert_eq!(unfixable.amount, "abc");
        let empty = LinkDraft::default().figures(&ctx(&cat));
        assert_eq!(empty.items_total, None);
        assert_eq!(empty.failed().collect::<Vec<_>>(), [Check::AmountValid]);
    }

    #[test]
    fn the_servers_expected_amount_is_taken_as_typed_text() {
        let mut draft = LinkDraft {
            amount: "140".into(),
            ..base()
        };
        draft.expected_amount_fix(dec("1234.5"));
        assert_eq!(draft.amount, "1234.50");
        draft.currency = Currency::Jpy;
        draft.expected_amount_fix(dec("1500"));
        assert_eq!(draft.amount, "1500");
        assert_eq!(parse_amount(&draft.amount, Currency::Jpy), Ok(dec("1500")));
    }

    #[test]
    fn the_servers_price_for_catalog_items_stands_until_the_items_change() {
        // The local catalog says 85.50 a latte; the server prices it at 90.00.
        let cat = catalog();
        let mut draft = LinkDraft {
            amount: "171.00".into(),
            items: vec![ItemDraft::catalog("v-latte", "2")],
            ..base()
        };
        assert!(draft.validate(&ctx(&cat)).is_ok());
        draft.expected_amount_fix(dec("180"));
        assert_eq!(draft.amount, "180.00");
        let f = draft.figures(&ctx(&cat));
        assert_eq!(f.items_total, Some(dec("180")));
        assert_eq!(f.status(Check::ItemsMatchAmount), CheckStatus::Pass);
        let request = draft
            .validate(&ctx(&cat))
            .expect("the server's figure is accepted");
        assert_eq!(request.amount(), dec("180.00"));
        // The follow-the-items rule keeps the server's figure too.
        assert!(draft.use_items_total_as_amount(&ctx(&cat)));
        assert_eq!(draft.amount, "180.00");

        // A third latte: the server's figure was for two, so the local price counts again.
        draft.items[0].quantity = "3".into();
        assert_eq!(draft.figures(&ctx(&cat)).items_total, Some(dec("256.50")));
        assert_eq!(
            draft.figures(&ctx(&cat)).status(Check::ItemsMatchAmount),
            CheckStatus::Fail
        );
        assert!(draft.validate(&ctx(&cat)).is_err());
        // Back to two: the same items as the server priced, its figure again.
        draft.items[0].quantity = "2".into();
        assert!(draft.validate(&ctx(&cat)).is_ok());

        // Without items there is nothing for the server's figure to price.
        let mut bare = base();
        bare.expected_amount_fix(dec("99"));
        assert_eq!(bare.server_priced, None);
    }

    #[test]
    fn defaults_match_the_spec() {
        let d = LinkDraft::default();
        assert_eq!(d.currency, Currency::Try);
        assert!(d.enable_installment);
        assert!(!d.contact_required && !d.allow_partial_payment);
        assert!(d.amount.is_empty() && d.items.is_empty() && d.expiry.is_none());
        let restored: LinkDraft = serde_json::from_str(r#"{"amount":"5"}"#).unwrap();
        assert!(restored.enable_installment);
        assert_eq!(restored.amount, "5");
    }

    #[test]
    fn check_labels_are_distinct_in_both_languages() {
        let mut seen = std::collections::HashSet::new();
        for c in Check::ALL {
            for lang in Lang::ALL {
                assert!(seen.insert(c.label(lang)), "{c:?} {lang:?}");
            }
        }
    }

    #[test]
    fn a_scanned_unit_adds_a_row_then_adds_to_its_quantity_and_the_amount_follows() {
        let cat = catalog();
        let cx = ctx(&cat);
        let mut d = LinkDraft::default();
        assert_eq!(d.add_catalog_unit("v-latte", &cx), Ok(0));
        assert_eq!(d.items, [ItemDraft::catalog("v-latte", "1")]);
        assert_eq!(d.amount, "85.50", "an empty amount takes the items total");
        assert_eq!(d.add_catalog_unit("v-latte", &cx), Ok(0));
        assert_eq!(d.items, [ItemDraft::catalog("v-latte", "2")]);
        assert_eq!(
            d.amount, "171.00",
            "an amount equal to the total follows it"
        );

        // A free row after it; the next scan of the latte still goes to its row.
        d.items.push(ItemDraft::free("Cookie", "10", ""));
        d.amount = "181.00".into();
        assert_eq!(d.add_catalog_unit("v-latte", &cx), Ok(0));
        assert_eq!(d.items[0].quantity, "3");
        assert_eq!(d.amount, "266.50");

        // An amount typed otherwise is the clerk's: it stays, and the check shows the gap.
        d.amount = "300".into();
        assert_eq!(d.add_catalog_unit("v-latte", &cx), Ok(0));
        assert_eq!(d.amount, "300");
        assert_eq!(d.figures(&cx).difference, Some(dec("52.00")));

        // An empty quantity means 1, so the next unit makes 2.
        d.items[0].quantity = String::new();
        assert_eq!(d.add_catalog_unit("v-latte", &cx), Ok(0));
        assert_eq!(d.items[0].quantity, "2");
    }

    #[test]
    fn a_scanned_unit_never_overwrites_a_quantity_it_cannot_read() {
        let cat = catalog();
        let cx = ctx(&cat);
        let mut d = LinkDraft {
            items: vec![
                ItemDraft::catalog("v-latte", "iki"),
                ItemDraft::catalog("v-mug", "4294967295"),
            ],
            ..LinkDraft::default()
        };
        let before = d.clone();
        let at = |row| Field::Item {
            row,
            field: ItemField::Quantity,
        };
        assert_eq!(
            d.add_catalog_unit("v-latte", &cx),
            Err(FieldError::new(at(0), FieldProblem::NotAnInteger))
        );
        assert_eq!(
            d.add_catalog_unit("v-mug", &cx),
            Err(FieldError::new(at(1), FieldProblem::TooLarge))
        );
        assert!(d == before, "nothing changed");
    }
}
