//! The API's values in the shop's words.
//!
//! The server speaks in enumerations (`DEFAULT`, `PHYSICAL`, `SOFTWALLET`, `CREDIT`,
//! `MASTERCARD`, `POS_PAYMENT`); staff read Turkish or English. Each value a view shows goes
//! through one function here and comes back as a [`Word`]: the words to show, and the value as
//! the server spelled it, which the view puts in a tooltip ([`word_ui`]) for whoever has to
//! call the provider. A value this version does not know is still shown, title-cased
//! (`NEW_WALLET` → "New wallet"), with the raw value in the tooltip too.
//!
//! Where a profile points is said the same way: "built-in sandbox", "this computer" for a
//! loopback address, else the host alone; never a URL with its port.
//!
//! So are times, the same in every view: a day as people write it in the app's language
//! ([`day_text`]: Turkish `28.11.2026`, English `28 Nov 2026`), a moment in the desk's zone
//! ([`moment_text`]: `28.11.2026 14:05`, `28 Nov 2026, 14:05`), a span (`3 h 5 min`, Turkish
//! `3 sa 5 dk`) and an age ("just now", "3 min ago"). A typed day is read back by
//! [`parse_day`], in either language's form or ISO (`2026-11-28`). Files, JSON and the CLI keep
//! ISO; only the window speaks like this.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, Utc};
use egui::{Response, Ui};

use crate::board::{self, Span};
use crate::clock::Zone;
use crate::lang::Lang;
use crate::ui::text::UiText;

/// A value as staff read it, and as the server sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// What is shown.
    pub text: String,
    /// The value as the server spelled it (the tooltip).
    pub raw: String,
}

impl Word {
    fn known(text: UiText, raw: &str, lang: Lang) -> Self {
        Self {
            text: text.get(lang).to_owned(),
            raw: raw.to_owned(),
        }
    }

    fn unknown(raw: &str) -> Self {
        Self {
            text: title_case(raw),
            raw: raw.to_owned(),
        }
    }
}

/// A value in shouting snake case (`NEW_WALLET`) as words ("New wallet"); anything already
/// in mixed case (`CardFinans`, `Bonus`) is the provider's own name and stays as it is.
pub fn title_case(raw: &str) -> String {
    let raw = raw.trim();
    if raw.chars().any(char::is_lowercase) {
        return raw.to_owned();
    }
    let lower = raw.replace(['_', '-'], " ").to_lowercase();
    let mut chars = lower.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn upper(raw: &str) -> String {
    raw.trim().to_ascii_uppercase()
}

/// A POS type (`posType` of an installment option): `VIRTUAL` → "Online (virtual POS)".
pub fn pos_type(raw: &str, lang: Lang) -> Word {
    let text = match upper(raw).as_str() {
        "DEFAULT" => UiText::PosDefault,
        "VIRTUAL" => UiText::PosVirtual,
        "PHYSICAL" => UiText::PosPhysical,
        "SOFTWALLET" => UiText::PosSoftwallet,
        "LOYALTY" => UiText::PosLoyalty,
        _ => return Word::unknown(raw),
    };
    Word::known(text, raw, lang)
}

/// A POS sub-type (`posSubType`): `FOOD` → "Food", `DEFAULT` → "Standard".
pub fn pos_sub_type(raw: &str, lang: Lang) -> Word {
    let text = match upper(raw).as_str() {
        "DEFAULT" => UiText::PosDefault,
        "BASIC" => UiText::PosSubBasic,
        "STREAMING" => UiText::PosSubStreaming,
        "CHARITY" => UiText::PosSubCharity,
        "FOOD" => UiText::PosSubFood,
        "FUEL" => UiText::PosSubFuel,
        _ => return Word::unknown(raw),
    };
    Word::known(text, raw, lang)
}

/// A card type (`cardType`): `CREDIT` → "Credit card", `DEBIT` → "Debit card".
pub fn card_type(raw: &str, lang: Lang) -> Word {
    let text = match upper(raw).as_str() {
        "CREDIT" => UiText::CardTypeCredit,
        "DEBIT" => UiText::CardTypeDebit,
        "PREPAID" => UiText::CardTypePrepaid,
        _ => return Word::unknown(raw),
    };
    Word::known(text, raw, lang)
}

/// American Express's name, the same in every language (no sentence to translate).
const AMEX: &str = "American Express";

/// A card brand (`brand`, `cardBrand`): `MASTERCARD` → "Mastercard", `AMEX` → "American
/// Express"; the schemes' own names, the same in both languages (`_lang` for the call's
/// shape, like the other families).
pub fn card_brand(raw: &str, _lang: Lang) -> Word {
    match upper(raw).replace([' ', '_'], "").as_str() {
        "AMEX" | "AMERICANEXPRESS" => Word {
            text: AMEX.to_owned(),
            raw: raw.to_owned(),
        },
        _ => Word::unknown(raw),
    }
}

/// A card family, the bank's programme (`cardFamily`): "Bonus", "World", `AXESS` → "Axess".
pub fn card_family(raw: &str) -> Word {
    Word::unknown(raw)
}

/// What a saved card may be used for (`usage`): `POS_PAYMENT` → "Payments at the till".
pub fn card_usage(raw: &str, lang: Lang) -> Word {
    let text = match upper(raw).as_str() {
        "POS_PAYMENT" => UiText::UsagePosPayment,
        "WALLET_TOPUP" => UiText::UsageWalletTopup,
        "BOTH" => UiText::UsageBoth,
        _ => return Word::unknown(raw),
    };
    Word::known(text, raw, lang)
}

/// A saved card's status (`status`): `ACTIVE` → "Active".
pub fn card_status(raw: &str, lang: Lang) -> Word {
    let text = match upper(raw).as_str() {
        "ACTIVE" => UiText::CardActive,
        "EXPIRED" => UiText::CardExpired,
        "REVOKED" => UiText::CardRevoked,
        "SUSPENDED" => UiText::CardSuspended,
        _ => return Word::unknown(raw),
    };
    Word::known(text, raw, lang)
}

/// Shows a word, the server's spelling in its tooltip.
pub fn word_ui(ui: &mut Ui, word: &Word) -> Response {
    ui.label(word.text.as_str())
        .on_hover_text(word.raw.as_str())
}

/// Where a profile points, in words: the built-in sandbox, "this computer" for a loopback
/// address, else the server's host alone (no scheme, port or path).
pub fn server_place(base_url: &str, sandbox: bool, lang: Lang) -> String {
    if sandbox {
        return UiText::PlaceSandbox.get(lang).to_owned();
    }
    let Ok(url) = url::Url::parse(base_url.trim()) else {
        return base_url.trim().to_owned();
    };
    match url.host() {
        Some(url::Host::Ipv4(ip)) if ip.is_loopback() => UiText::PlaceThisComputer.get(lang),
        Some(url::Host::Ipv6(ip)) if ip.is_loopback() => UiText::PlaceThisComputer.get(lang),
        Some(url::Host::Domain(d)) if d.eq_ignore_ascii_case("localhost") => {
            UiText::PlaceThisComputer.get(lang)
        }
        Some(host) => return host.to_string(),
        None => return base_url.trim().to_owned(),
    }
    .to_owned()
}

/// English month names as a date shows them (`28 Nov 2026`).
const MONTHS_EN: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
/// Turkish month names as a typed day may hold them (`28 Kas 2026`, `28 Kasım 2026`).
const MONTHS_TR: [&str; 12] = [
    "oca", "şub", "mar", "nis", "may", "haz", "tem", "ağu", "eyl", "eki", "kas", "ara",
];

/// A day as people write it: Turkish `28.11.2026`, English `28 Nov 2026`.
pub fn day_text(day: NaiveDate, lang: Lang) -> String {
    match lang {
        Lang::Tr => day.format("%d.%m.%Y").to_string(),
        Lang::En => format!(
            "{} {} {}",
            day.day(),
            MONTHS_EN[day.month0() as usize],
            day.year()
        ),
    }
}

/// A local moment as people write it: Turkish `28.11.2026 14:05`, English
/// `28 Nov 2026, 14:05`.
pub fn moment_text(local: NaiveDateTime, lang: Lang) -> String {
    let day = day_text(local.date(), lang);
    let time = local.format("%H:%M");
    match lang {
        Lang::Tr => format!("{day} {time}"),
        Lang::En => format!("{day}, {time}"),
    }
}

/// A typed day, in either language's form (`28.11.2026`, `28/11/2026`, `28 Nov 2026`,
/// `28 Kasım 2026`) or ISO (`2026-11-28`); `None` when it names no day.
pub fn parse_day(typed: &str) -> Option<NaiveDate> {
    let t = typed.trim().trim_end_matches(',');
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return Some(d);
    }
    let numeric: Vec<&str> = t.split(['.', '/', '-']).map(str::trim).collect();
    if let [d, m, y] = numeric.as_slice()
        && let (Ok(d), Ok(m), Ok(y)) = (d.parse::<u32>(), m.parse::<u32>(), y.parse::<i32>())
        && y >= 1000
    {
        return NaiveDate::from_ymd_opt(y, m, d);
    }
    let words: Vec<&str> = t.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let [d, month, y] = words.as_slice() else {
        return None;
    };
    let month = month.trim_end_matches('.').to_lowercase();
    let named = |names: &[&str; 12]| {
        names.iter().position(|n| {
            let n = n.to_lowercase();
            month.starts_with(&n) || (month.chars().count() >= 3 && n.starts_with(&month))
        })
    };
    let m = named(&MONTHS_EN).or_else(|| named(&MONTHS_TR))?;
    let y = y.parse::<i32>().ok().filter(|y| *y >= 1000)?;
    NaiveDate::from_ymd_opt(y, u32::try_from(m).ok()? + 1, d.parse().ok()?)
}

/// A UTC moment in `zone`'s local time, as the views show it ([`moment_text`]).
pub fn local_time(at: DateTime<Utc>, zone: Zone, lang: Lang) -> String {
    moment_text(zone.local(at).naive_local(), lang)
}

/// A span in the app's language: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h` (Turkish `45 sn`,
/// `12 dk`, `3 sa 5 dk`, `2 gün 4 sa`).
pub fn span_text(span: Span, lang: Lang) -> String {
    let (sec, min, hour, day) = (
        UiText::UnitSeconds.get(lang),
        UiText::UnitMinutes.get(lang),
        UiText::UnitHours.get(lang),
        UiText::UnitDays.get(lang),
    );
    match span {
        Span::Seconds(n) => format!("{n} {sec}"),
        Span::Minutes(n) => format!("{n} {min}"),
        Span::HoursMinutes(hours, 0) => format!("{hours} {hour}"),
        Span::HoursMinutes(hours, mins) => format!("{hours} {hour} {mins} {min}"),
        Span::DaysHours(days, 0) => format!("{days} {day}"),
        Span::DaysHours(days, hours) => format!("{days} {day} {hours} {hour}"),
    }
}

/// How long ago `since` was, as a sentence part: "3 min ago", or "just now" under a minute.
pub fn ago_text(since: DateTime<Utc>, now: DateTime<Utc>, lang: Lang) -> String {
    match board::age(since, now) {
        Span::Seconds(_) => UiText::JustNow.get(lang).to_owned(),
        span => format!("{} {}", span_text(span, lang), UiText::Ago.get(lang)),
    }
}

/// How old a link is, as the board says it ("just now" under a minute).
pub fn age_text(since: DateTime<Utc>, now: DateTime<Utc>, lang: Lang) -> String {
    match board::age(since, now) {
        Span::Seconds(_) => UiText::JustNow.get(lang).to_owned(),
        span => span_text(span, lang),
    }
}

/// A moment as the top bar and Settings give it (the shop's reach, a desk's joining): the time alone today, else with the day.
pub fn clock_time(at: DateTime<Utc>, now: DateTime<Utc>, zone: Zone, lang: Lang) -> String {
    let local = zone.local(at);
    if local.date_naive() == zone.date_of(now) {
        local.format("%H:%M").to_string()
    } else {
        moment_text(local.naive_local(), lang)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of `values` reads as words in both languages (no underscore, not all
    /// capitals), and keeps its spelling for the tooltip.
    fn all_plain(values: &[&str], word: impl Fn(&str, Lang) -> Word) {
        for raw in values {
            for lang in [Lang::En, Lang::Tr] {
                let w = word(raw, lang);
                assert_eq!(w.raw, *raw);
                assert!(!w.text.contains('_'), "{raw} → {}", w.text);
                assert_ne!(w.text, w.text.to_uppercase(), "{raw} → {}", w.text);
            }
        }
    }

    #[test]
    fn pos_types_and_sub_types_read_as_words() {
        let types: Vec<&str> = crate::domain::PosType::ALL
            .iter()
            .map(|t| t.as_str())
            .collect();
        all_plain(&types, pos_type);
        let subs: Vec<&str> = crate::domain::PosSubType::ALL
            .iter()
            .map(|t| t.as_str())
            .collect();
        all_plain(&subs, pos_sub_type);
        assert_eq!(pos_type("PHYSICAL", Lang::En).text, "Card terminal");
        assert_eq!(pos_type("SOFTWALLET", Lang::Tr).text, "Dijital cüzdan");
        assert_eq!(pos_sub_type("FOOD", Lang::Tr).text, "Yemek");
        assert_eq!(pos_type("DEFAULT", Lang::En).text, "Standard");
    }

    #[test]
    fn card_types_brands_and_families_read_as_words() {
        all_plain(&["CREDIT", "DEBIT", "PREPAID"], card_type);
        assert_eq!(card_type("CREDIT", Lang::En).text, "Credit card");
        assert_eq!(card_type("DEBIT", Lang::Tr).text, "Banka kartı");
        all_plain(&["MASTERCARD", "VISA", "TROY", "AMEX"], card_brand);
        assert_eq!(card_brand("MASTERCARD", Lang::Tr).text, "Mastercard");
        assert_eq!(card_brand("AMEX", Lang::En).text, "American Express");
        // A programme's own spelling stays; one sent in capitals is title-cased.
        assert_eq!(card_family("CardFinans").text, "CardFinans");
        assert_eq!(card_family("AXESS").text, "Axess");
    }

    #[test]
    fn card_usages_and_statuses_read_as_words() {
        let usages: Vec<&str> = crate::domain::CardUsage::ALL
            .iter()
            .map(|u| u.as_str())
            .collect();
        all_plain(&usages, card_usage);
        assert_eq!(
            card_usage("POS_PAYMENT", Lang::En).text,
            "Payments at the till"
        );
        assert_eq!(card_usage("WALLET_TOPUP", Lang::Tr).text, "Cüzdana yükleme");
        all_plain(&["ACTIVE", "EXPIRED", "REVOKED", "SUSPENDED"], card_status);
    }

    #[test]
    fn an_unknown_value_is_title_cased_and_keeps_its_spelling() {
        for word in [
            pos_type("NEW_WALLET", Lang::En),
            pos_sub_type("NEW_WALLET", Lang::En),
            card_type("NEW_WALLET", Lang::Tr),
            card_usage("NEW_WALLET", Lang::En),
            card_status("NEW_WALLET", Lang::Tr),
        ] {
            assert_eq!(word.text, "New wallet");
            assert_eq!(word.raw, "NEW_WALLET");
        }
    }

    #[test]
    fn a_profile_points_to_the_sandbox_this_computer_or_a_host_never_a_port() {
        assert_eq!(
            server_place("http://127.0.0.1:47312", true, Lang::En),
            "built-in sandbox"
        );
        for url in [
            "http://127.0.0.1:47312",
            "http://localhost:8080/api",
            "http://[::1]:9000",
        ] {
            assert_eq!(server_place(url, false, Lang::En), "this computer");
            assert_eq!(server_place(url, false, Lang::Tr), "bu bilgisayar");
        }
        assert_eq!(
            server_place("https://api.example.com:8443/v1", false, Lang::En),
            "api.example.com"
        );
    }

    #[test]
    fn days_and_moments_read_as_people_write_them() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 28).unwrap();
        assert_eq!(day_text(day, Lang::Tr), "28.11.2026");
        assert_eq!(day_text(day, Lang::En), "28 Nov 2026");
        let early = NaiveDate::from_ymd_opt(2026, 3, 5).unwrap();
        assert_eq!(day_text(early, Lang::Tr), "05.03.2026");
        assert_eq!(day_text(early, Lang::En), "5 Mar 2026");
        let at = day.and_hms_opt(14, 5, 9).unwrap();
        assert_eq!(moment_text(at, Lang::Tr), "28.11.2026 14:05");
        assert_eq!(moment_text(at, Lang::En), "28 Nov 2026, 14:05");
        let utc = DateTime::parse_from_rfc3339("2026-11-28T11:05:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            local_time(utc, Zone::hours(3), Lang::Tr),
            "28.11.2026 14:05"
        );
        assert_eq!(
            clock_time(utc, utc, Zone::hours(3), Lang::En),
            "14:05",
            "today: the time alone"
        );
        let later = utc + chrono::TimeDelta::days(2);
        assert_eq!(
            clock_time(utc, later, Zone::hours(3), Lang::En),
            "28 Nov 2026, 14:05"
        );
    }

    #[test]
    fn a_typed_day_is_read_in_either_language_or_iso() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 28);
        for typed in [
            "28.11.2026",
            " 28/11/2026 ",
            "28-11-2026",
            "2026-11-28",
            "28 Nov 2026",
            "28 November 2026",
            "28 nov 2026,",
            "28 Kas 2026",
            "28 Kasım 2026",
        ] {
            assert_eq!(parse_day(typed), day, "{typed}");
        }
        for lang in [Lang::Tr, Lang::En] {
            let d = NaiveDate::from_ymd_opt(2027, 2, 3).unwrap();
            assert_eq!(parse_day(&day_text(d, lang)), Some(d), "{lang:?}");
        }
        for typed in [
            "",
            "31.02.2026",
            "28.11.26",
            "28 Foo 2026",
            "2026",
            "tomorrow",
        ] {
            assert_eq!(parse_day(typed), None, "{typed}");
        }
    }

    #[test]
    fn spans_read_in_the_apps_language() {
        let cases = [
            (Span::Seconds(45), "45 s", "45 sn"),
            (Span::Minutes(12), "12 min", "12 dk"),
            (Span::HoursMinutes(3, 5), "3 h 5 min", "3 sa 5 dk"),
            (Span::HoursMinutes(2, 0), "2 h", "2 sa"),
            (Span::DaysHours(2, 4), "2 d 4 h", "2 gün 4 sa"),
        ];
        for (span, en, tr) in cases {
            assert_eq!(span_text(span, Lang::En), en);
            assert_eq!(span_text(span, Lang::Tr), tr);
        }
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        assert_eq!(
            age_text(now - chrono::TimeDelta::seconds(20), now, Lang::Tr),
            "az önce"
        );
    }
}
