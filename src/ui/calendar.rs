//! A month calendar for picking a day: the month and year with previous and next buttons, the
//! weekday names from Monday (as Turkish and most European calendars start), and one button
//! per day. Days before the earliest allowed day cannot be picked. Names are in the app's
//! language; the date picker of `egui_extras` is English only, so paydesk draws its own.
//!
//! [`date_field_ui`] is a day field as History and Day close use it: the label above, the day
//! typed as people write it in the app's language (`28.11.2026`, `28 Nov 2026`; ISO is read
//! too, see [`words::parse_day`]), and a calendar button beside it whose pick lands in the
//! field.

use chrono::{Datelike, Months, NaiveDate};
use egui::{Button, Ui, Vec2, WidgetInfo};

use crate::lang::Lang;
use crate::ui::text::UiText;
use crate::ui::theme;
use crate::ui::words;

/// One day's button in the calendar.
const DAY_CELL: Vec2 = Vec2::new(38.0, 26.0);
/// The gap between two days.
const DAY_GAP: f32 = 2.0;
/// The width of a typed day (`28 Nov 2026` and a little air), in characters.
const DAY_FIELD_CHARS: usize = 12;

const MONTHS_TR: [&str; 12] = [
    "Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim",
    "Kasım", "Aralık",
];
const MONTHS_EN: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS_TR: [&str; 7] = ["Pzt", "Sal", "Çar", "Per", "Cum", "Cmt", "Paz"];
const WEEKDAYS_EN: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// The month of `day` in weeks from Monday; `None` pads the first and the last week.
pub fn month_weeks(day: NaiveDate) -> Vec<[Option<NaiveDate>; 7]> {
    let first = day.with_day(1).unwrap_or(day);
    let mut weeks = Vec::with_capacity(6);
    let mut week = [None; 7];
    let mut column = first.weekday().num_days_from_monday() as usize;
    for d in first.iter_days().take_while(|d| d.month() == first.month()) {
        week[column] = Some(d);
        column += 1;
        if column == 7 {
            weeks.push(week);
            week = [None; 7];
            column = 0;
        }
    }
    if column > 0 {
        weeks.push(week);
    }
    weeks
}

/// "Kasım 2026" / "November 2026".
pub fn month_title(day: NaiveDate, lang: Lang) -> String {
    let names = match lang {
        Lang::Tr => MONTHS_TR,
        Lang::En => MONTHS_EN,
    };
    format!("{} {}", names[day.month0() as usize], day.year())
}

/// Draws the calendar of the month of `shown` (which the caller keeps between frames and the
/// arrows move); `selected` is highlighted, days before `earliest` are disabled. Returns the day
/// clicked, if any.
pub fn calendar_ui(
    ui: &mut Ui,
    shown: &mut NaiveDate,
    selected: Option<NaiveDate>,
    earliest: NaiveDate,
    lang: Lang,
) -> Option<NaiveDate> {
    let mut picked = None;
    let first = shown.with_day(1).unwrap_or(*shown);
    let can_go_back = first > earliest;
    ui.horizontal(|ui| {
        if arrow_ui(ui, "◀", UiText::PreviousMonth.get(lang), can_go_back).clicked()
            && let Some(d) = first.checked_sub_months(Months::new(1))
        {
            *shown = d;
        }
        ui.strong(month_title(first, lang));
        if arrow_ui(ui, "▶", UiText::NextMonth.get(lang), true).clicked()
            && let Some(d) = first.checked_add_months(Months::new(1))
        {
            *shown = d;
        }
    });
    let weekdays = match lang {
        Lang::Tr => WEEKDAYS_TR,
        Lang::En => WEEKDAYS_EN,
    };
    let cell = DAY_CELL;
    egui::Grid::new(("calendar", first))
        .spacing([DAY_GAP, DAY_GAP])
        .show(ui, |ui| {
            for name in weekdays {
                ui.add_sized(cell, egui::Label::new(name));
            }
            ui.end_row();
            for week in month_weeks(first) {
                for day in week {
                    match day {
                        Some(day) => {
                            let button =
                                Button::selectable(selected == Some(day), day.day().to_string())
                                    .min_size(cell);
                            if ui.add_enabled(day >= earliest, button).clicked() {
                                picked = Some(day);
                            }
                        }
                        None => {
                            ui.allocate_space(cell);
                        }
                    }
                }
                ui.end_row();
            }
        });
    picked
}

/// A day field: `label` above, the day typed into `text` (as [`words::day_text`] writes it), and a calendar button
/// beside it (heard as "Calendar: `label`") that opens the month of the typed day (else of
/// `today`); a day picked there is written into the field and the calendar closes. Returns the
/// text field's response.
pub fn date_field_ui(
    ui: &mut Ui,
    label: &str,
    text: &mut String,
    today: NaiveDate,
    lang: Lang,
) -> egui::Response {
    ui.vertical(|ui| {
        let l = ui.label(label);
        ui.horizontal(|ui| {
            let width = theme::field_width_ui(ui, DAY_FIELD_CHARS);
            let field = ui
                .add(egui::TextEdit::singleline(text).desired_width(width))
                .labelled_by(l.id);
            let typed = words::parse_day(text);
            let button_label = UiText::CalendarFor.fill(lang, &[("field", &label)]);
            let button = ui
                .add(Button::new(theme::icon::DATE.rich_text()))
                .on_hover_text(&button_label);
            button.widget_info(|| WidgetInfo::labeled(egui::Role::Button, true, &button_label));
            let month_id = button.id.with("month");
            if button.clicked() {
                ui.data_mut(|d| d.insert_temp(month_id, typed.unwrap_or(today)));
            }
            let popup = egui::Popup::from_toggle_button_response(&button)
                .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
            let popup_id = popup.get_id();
            let picked = popup
                .show(|ui| {
                    let mut month = ui
                        .data(|d| d.get_temp::<NaiveDate>(month_id))
                        .unwrap_or(today);
                    let picked = calendar_ui(ui, &mut month, typed, NaiveDate::MIN, lang);
                    ui.data_mut(|d| d.insert_temp(month_id, month));
                    picked
                })
                .and_then(|inner| inner.inner);
            if let Some(day) = picked {
                *text = words::day_text(day, lang);
                egui::Popup::close_id(ui.ctx(), popup_id);
            }
            field
        })
        .inner
    })
    .inner
}

/// A small arrow button whose accessible name is `label`.
fn arrow_ui(ui: &mut Ui, symbol: &str, label: &str, enabled: bool) -> egui::Response {
    let response = ui
        .add_enabled(enabled, Button::new(symbol))
        .on_hover_text(label);
    response.widget_info(|| WidgetInfo::labeled(egui::Role::Button, enabled, label));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn weeks_start_on_monday_and_hold_every_day_once() {
        // 1 November 2026 is a Sunday.
        let weeks = month_weeks(date(2026, 11, 22));
        assert_eq!(weeks.len(), 6);
        assert_eq!(
            weeks[0],
            [None, None, None, None, None, None, Some(date(2026, 11, 1))]
        );
        assert_eq!(weeks[1][0], Some(date(2026, 11, 2)));
        assert_eq!(weeks[5][0], Some(date(2026, 11, 30)));
        assert_eq!(weeks[5][1..], [None; 6]);
        let days: Vec<_> = weeks.iter().flatten().flatten().copied().collect();
        assert_eq!(days.len(), 30);
        assert!(days.windows(2).all(|w| w[1] == w[0].succ_opt().unwrap()));
    }

    #[test]
    fn a_february_starting_on_monday_fills_exactly_four_weeks() {
        // 1 February 2027 is a Monday; 2027 is not a leap year.
        let weeks = month_weeks(date(2027, 2, 14));
        assert_eq!(weeks.len(), 4);
        assert!(weeks.iter().flatten().all(Option::is_some));
        // A leap February has its 29th.
        let leap = month_weeks(date(2028, 2, 1));
        assert_eq!(
            leap.iter().flatten().flatten().last(),
            Some(&date(2028, 2, 29))
        );
    }

    #[test]
    fn titles_are_in_the_language_of_the_app() {
        assert_eq!(month_title(date(2026, 8, 3), Lang::Tr), "Ağustos 2026");
        assert_eq!(month_title(date(2026, 8, 3), Lang::En), "August 2026");
    }
}
