//! The payer's page behind `paymentUrl`: `GET /pay/{id}` shows the link (Turkish and
//! English, no JavaScript) with the test card prefilled; `POST /pay/{id}` (a plain form)
//! pays in full or, when the link allows partial payment, the amount typed in. The card
//! fields are checked (Luhn) and then forgotten: nothing of them is kept. When the link has
//! `contactRequired`, the page also asks for the payer's first name, last name and phone
//! (mandatory) and e-mail (optional), as the spec says, and never for an address; these are
//! checked and not kept either (the link has no field for a name).
//!
//! Every word of the page comes from the sandbox's catalogue ([`super::messages`]), shown in
//! both languages at once.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Form, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use zeroize::Zeroize;

use super::body::exact_decimal;
use super::cards::luhn_ok;
use super::links;
use super::messages::SandboxMessage;
use super::records::LinkRecord;
use super::shared::Shared;
use crate::api::wire::format_time;
use crate::domain::LinkStatus;
use crate::lang::Lang;

/// Escapes text for HTML (the one escaping of paydesk's HTML, shared with the link's e-mail).
pub use crate::domain::share::escape_html as escape;

/// A label in both languages, the English side set off in grey: `Ödendi <span>· Paid</span>`.
fn both_html(m: SandboxMessage) -> String {
    format!(
        "{} <span class=\"en\">· {}</span>",
        escape(m.get(Lang::Tr)),
        escape(m.get(Lang::En))
    )
}

fn status_words(status: &LinkStatus) -> SandboxMessage {
    match status {
        LinkStatus::Pending => SandboxMessage::StatusPending,
        LinkStatus::Completed => SandboxMessage::StatusCompleted,
        LinkStatus::Expired => SandboxMessage::StatusExpired,
        LinkStatus::Rejected => SandboxMessage::StatusRejected,
        LinkStatus::UnderReview => SandboxMessage::StatusUnderReview,
        LinkStatus::Other(_) => SandboxMessage::StatusOther,
    }
}

/// The payer's contact data as typed on the page (prefilled from the link on first show).
#[derive(Debug, Default)]
struct Contact {
    first_name: String,
    last_name: String,
    phone: String,
    email: String,
}

impl Contact {
    fn from_link(link: &LinkRecord) -> Self {
        let phone = match (&link.phone_country_code, &link.phone_number) {
            (Some(cc), Some(n)) => format!("+{} {n}", cc.trim_start_matches('+')),
            (None, Some(n)) => n.clone(),
            _ => String::new(),
        };
        Self {
            phone,
            email: link.email.clone().unwrap_or_default(),
            ..Self::default()
        }
    }

    fn from_form(form: &HashMap<String, String>) -> Self {
        let field = |name: &str| {
            form.get(name)
                .map(|v| v.trim().to_owned())
                .unwrap_or_default()
        };
        Self {
            first_name: field("firstName"),
            last_name: field("lastName"),
            phone: field("phone"),
            email: field("email"),
        }
    }

    /// What is missing or wrong, one sentence per field.
    fn errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        if self.first_name.is_empty() {
            errors.push(SandboxMessage::FirstNameRequired.both());
        }
        if self.last_name.is_empty() {
            errors.push(SandboxMessage::LastNameRequired.both());
        }
        let digits = self.phone.chars().filter(char::is_ascii_digit).count();
        let phone_chars = self
            .phone
            .chars()
            .all(|c| c.is_ascii_digit() || " +-()".contains(c));
        if !phone_chars || !(7..=15).contains(&digits) {
            errors.push(SandboxMessage::PhoneRequired.both());
        }
        let email_ok = self.email.is_empty()
            || self.email.split_once('@').is_some_and(|(user, host)| {
                !user.is_empty() && host.contains('.') && !host.starts_with('.')
            });
        if !email_ok {
            errors.push(SandboxMessage::EmailInvalid.both());
        }
        errors
    }
}

// Long on purpose: one HTML page written top to bottom; pieces would scatter the markup.
#[allow(clippy::too_many_lines)]
fn page(shared: &Shared, link: &LinkRecord, contact: &Contact, errors: &[String]) -> String {
    let now = shared.clock.now();
    let status = link.status_at(now);
    let symbol = link.currency.symbol();
    let business = shared
        .index
        .business_name(&link.business)
        .unwrap_or(&link.business);
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html><html lang=\"tr\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} — {business}</title>\
         <style>body{{font-family:sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}}\
         .amount{{font-size:2.2rem;font-weight:bold}} .en{{color:#555}} \
         .error{{background:#fde8e8;padding:.6rem;border-radius:.3rem}} \
         label{{display:block;margin:.5rem 0}} input{{font-size:1rem;padding:.3rem}} \
         button{{font-size:1.05rem;padding:.5rem 1rem;margin:.4rem .4rem 0 0}}</style></head><body>\
         <p><strong>{business}</strong> · paydesk sandbox</p>\
         <p class=\"amount\" id=\"amount\">{symbol}{amount} <small>{currency}</small></p>\
         <p id=\"status\" data-status=\"{code}\">{words}</p>",
        title = escape(&SandboxMessage::Payment.both()),
        words = both_html(status_words(&status)),
        business = escape(business),
        amount = link.amount,
        currency = link.currency,
        code = status,
    );
    if let Some(d) = &link.description {
        let _ = write!(html, "<p>{}</p>", escape(d));
    }
    if let Some(o) = &link.order_number {
        let _ = write!(
            html,
            "<p>{}: {}</p>",
            both_html(SandboxMessage::OrderNumber),
            escape(o)
        );
    }
    let _ = write!(
        html,
        "<p>{paid_label}: {symbol}{paid} — {left_label}: {symbol}{left}</p>",
        paid_label = both_html(SandboxMessage::Paid),
        left_label = both_html(SandboxMessage::Remaining),
        paid = link.paid_amount,
        left = link.remaining(),
    );
    if let Some(expiry) = link.expiry_date {
        let _ = write!(
            html,
            "<p>{}: {} UTC</p>",
            both_html(SandboxMessage::ValidUntil),
            escape(&format_time(expiry))
        );
    }
    for e in errors {
        let _ = write!(html, "<p class=\"error\" role=\"alert\">{}</p>", escape(e));
    }
    if status == LinkStatus::Pending {
        let card = shared.index.test_card();
        let v =
            |f: fn(&super::fixture::TestCard) -> &str| card.map(f).unwrap_or_default().to_owned();
        let _ = write!(
            html,
            "<form method=\"post\" action=\"/pay/{id}\">\
             <p>{test_card}: {label}</p>\
             <label>{card_number}<br>\
             <input name=\"cardNumber\" value=\"{number}\" autocomplete=\"off\" inputmode=\"numeric\"></label>\
             <label>{expiry}<br>\
             <input name=\"expiryMonth\" value=\"{month}\" size=\"2\"> / <input name=\"expiryYear\" value=\"{year}\" size=\"4\"></label>\
             <label>CVV<br><input name=\"cvv\" value=\"{cvv}\" size=\"4\" autocomplete=\"off\"></label>",
            id = escape(&link.id),
            test_card = both_html(SandboxMessage::TestCard),
            card_number = both_html(SandboxMessage::CardNumber),
            expiry = both_html(SandboxMessage::Expiry),
            label = escape(&v(|c| c.label.as_str())),
            number = escape(&v(|c| c.number.as_str())),
            month = escape(&v(|c| c.expiry_month.as_str())),
            year = escape(&v(|c| c.expiry_year.as_str())),
            cvv = escape(&v(|c| c.cvv.as_str())),
        );
        if link.contact_required {
            let _ = write!(
                html,
                "<fieldset><legend>{contact_label}</legend>\
                 <label>{first_label}<br>\
                 <input name=\"firstName\" value=\"{first}\" autocomplete=\"given-name\"></label>\
                 <label>{last_label}<br>\
                 <input name=\"lastName\" value=\"{last}\" autocomplete=\"family-name\"></label>\
                 <label>{phone_label}<br>\
                 <input name=\"phone\" value=\"{phone}\" type=\"tel\" autocomplete=\"tel\"></label>\
                 <label>{email_label}<br>\
                 <input name=\"email\" value=\"{email}\" type=\"email\" autocomplete=\"email\"></label>\
                 </fieldset>",
                contact_label = both_html(SandboxMessage::Contact),
                first_label = both_html(SandboxMessage::FirstName),
                last_label = both_html(SandboxMessage::LastName),
                phone_label = both_html(SandboxMessage::Phone),
                email_label = both_html(SandboxMessage::Email),
                first = escape(&contact.first_name),
                last = escape(&contact.last_name),
                phone = escape(&contact.phone),
                email = escape(&contact.email),
            );
        }
        if link.allow_partial_payment {
            let _ = write!(
                html,
                "<label>{amount_label} ({currency})<br>\
                 <input name=\"amount\" value=\"{left}\" inputmode=\"decimal\"></label>\
                 <button type=\"submit\" name=\"pay\" value=\"partial\">{pay_this}</button>",
                amount_label = both_html(SandboxMessage::Amount),
                pay_this = escape(&SandboxMessage::PayThisAmount.both()),
                currency = link.currency,
                left = link.remaining(),
            );
        }
        let _ = write!(
            html,
            "<button type=\"submit\" name=\"pay\" value=\"full\">{pay_full} ({symbol}{left})</button></form>",
            pay_full = escape(&SandboxMessage::PayInFull.both()),
            left = link.remaining(),
        );
    }
    html.push_str("</body></html>");
    html
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        Html(format!(
            "<!DOCTYPE html><html><body><p>{}</p></body></html>",
            escape(&SandboxMessage::LinkNotFound.both())
        )),
    )
        .into_response()
}

async fn show(State(s): State<Arc<Shared>>, Path(id): Path<String>) -> Response {
    match s.store.link(&id) {
        Some(link) => {
            let mut r = Html(page(&s, &link, &Contact::from_link(&link), &[])).into_response();
            r.headers_mut().insert(
                header::CACHE_CONTROL,
                header::HeaderValue::from_static("no-store"),
            );
            r
        }
        None => not_found(),
    }
}

async fn submit(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    Form(mut form): Form<HashMap<String, String>>,
) -> Response {
    let Some(link) = s.store.link(&id) else {
        return not_found();
    };
    let card_ok = form.get("cardNumber").is_some_and(|n| {
        let digits: String = n.chars().filter(|c| !c.is_whitespace()).collect();
        (12..=19).contains(&digits.len())
            && digits.bytes().all(|c| c.is_ascii_digit())
            && luhn_ok(digits.as_bytes())
    });
    let amount = match form.get("pay").map(String::as_str) {
        Some("partial") => form
            .get("amount")
            .map(|a| a.trim().replace(',', "."))
            .and_then(|a| exact_decimal(&a).ok())
            .map(Some),
        _ => Some(None),
    };
    let contact = Contact::from_form(&form);
    for value in form.values_mut() {
        value.zeroize();
    }
    let mut errors = if link.contact_required {
        contact.errors()
    } else {
        Vec::new()
    };
    if !card_ok {
        errors.push(SandboxMessage::CardInvalid.both());
    }
    if errors.is_empty() {
        match amount {
            None => errors.push(SandboxMessage::AmountInvalid.both()),
            Some(amount) => match links::pay(&s, &id, amount) {
                Ok(_) => return Redirect::to(&format!("/pay/{id}")).into_response(),
                Err(e) => errors.push(format!("{} ({})", e.message, e.key)),
            },
        }
    }
    let current = s.store.link(&id).unwrap_or(link);
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        Html(page(&s, &current, &contact, &errors)),
    )
        .into_response()
}

/// The pay page routes.
pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new().route("/pay/{id}", get(show).post(submit))
}
