//! The barcode scan field of New link. A barcode scanner that types like a keyboard (digits,
//! then Enter) fills it, the first thing in the items area (F2 goes there): a known barcode
//! adds its catalog item, or 1 to that item's row, from the catalog in memory; anything else is
//! said next to the field, which keeps the text selected and the focus, and nothing else
//! changes.

use egui::{Key, RichText, Ui};

use crate::domain::link::LinkContext;
use crate::domain::{Barcode, BarcodeError, FieldError};
use crate::ui::ViewCtx;
use crate::ui::text::UiText;
use crate::ui::{theme, widgets};

use super::NewLinkForm;

/// What the last scan did, shown next to the scan field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanNote {
    /// The item was added, or 1 added to its row.
    Added {
        /// The item's name.
        name: String,
        /// Its row's quantity now.
        quantity: String,
    },
    /// A valid barcode no catalog item has.
    Unknown(Barcode),
    /// The text is not a barcode.
    Invalid {
        /// What was scanned or typed.
        text: String,
        /// Why.
        error: BarcodeError,
    },
    /// The item's row has a quantity that cannot be read, so 1 cannot be added to it.
    Quantity(FieldError),
}

impl NewLinkForm {
    /// The scan field and what the last scan did. The scanner's Enter is read here rather than
    /// by the field (which would give up the focus), so the focus stays for the next scan.
    pub(super) fn scan_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        // The label above its field, as everywhere else.
        let label = ui.label(UiText::ScanBarcode.get(lang));
        ui.horizontal_wrapped(|ui| {
            let mut output = egui::TextEdit::singleline(&mut self.scan)
                .desired_width(theme::field_width_ui(ui, 20))
                .min_size(egui::vec2(0.0, theme::TOUCH_HEIGHT))
                .align(egui::Align2::LEFT_CENTER)
                .char_limit(32)
                .hint_text("F2")
                .return_key(None)
                .show(ui);
            let response = output.response.response.labelled_by(label.id);
            if self.focus_scan {
                response.request_focus();
                response.scroll_to_me(None);
                self.focus_scan = false;
            }
            let entered = response.has_focus()
                && ui.input(|i| i.key_pressed(Key::Enter) && !i.modifiers.command);
            if entered && !self.scanned(cx) {
                // Kept, selected: the next scan replaces it.
                output
                    .state
                    .cursor
                    .set_char_range(Some(egui::text::CCursorRange::select_all_str(&self.scan)));
                output.state.store(ui.ctx(), response.id);
            }
            if entered {
                // The totals above were drawn before the scan.
                ui.ctx().request_repaint();
            }
            widgets::hint_ui(ui, &cx.palette, UiText::ScanHint.get(lang));
        });
        match &self.scan_note {
            Some(ScanNote::Added { name, quantity }) => {
                ui.label(
                    RichText::new(format!(
                        "✓ {} {name} · {} {quantity}",
                        UiText::ScanAdded.get(lang),
                        UiText::Quantity.get(lang)
                    ))
                    .color(cx.palette.ok),
                );
            }
            Some(ScanNote::Unknown(code)) => {
                widgets::error_text_ui(
                    ui,
                    &cx.palette,
                    format!("{} {code}", UiText::ScanUnknown.get(lang)),
                );
                widgets::hint_ui(ui, &cx.palette, UiText::ScanUnknownHint.get(lang));
            }
            Some(ScanNote::Invalid { text, error }) => {
                widgets::error_text_ui(
                    ui,
                    &cx.palette,
                    format!(
                        "{} {text}: {}",
                        UiText::Barcode.get(lang),
                        error.message(lang)
                    ),
                );
            }
            Some(ScanNote::Quantity(e)) => {
                widgets::error_text_ui(
                    ui,
                    &cx.palette,
                    format!("{} {}", e.message(lang), UiText::ScanFixFirst.get(lang)),
                );
            }
            None => {}
        }
    }

    /// A scan ended with Enter: adds the item (or 1 to its row) and clears the field. Returns
    /// `false` when nothing was added (the note says why; the field keeps its text).
    fn scanned(&mut self, cx: &ViewCtx<'_>) -> bool {
        let text = self.scan.trim().to_owned();
        if text.is_empty() {
            self.scan_note = None;
            return true;
        }
        let code = match Barcode::parse(&text) {
            Ok(code) => code,
            Err(error) => {
                self.scan_note = Some(ScanNote::Invalid { text, error });
                return false;
            }
        };
        let Some(id) = cx.barcodes.variant_id(&code).map(str::to_owned) else {
            self.scan_note = Some(ScanNote::Unknown(code));
            return false;
        };
        let ctx = LinkContext {
            now: cx.now,
            catalog: cx.catalog,
            limits: cx.limits,
        };
        match self.draft.add_catalog_unit(&id, &ctx) {
            Ok(row) => {
                let name = cx.catalog.get(&id).map_or(id, |v| v.name.clone());
                self.scan_note = Some(ScanNote::Added {
                    name,
                    quantity: self.draft.items[row].quantity.clone(),
                });
                self.scan.clear();
                true
            }
            Err(e) => {
                self.scan_note = Some(ScanNote::Quantity(e));
                false
            }
        }
    }
}
