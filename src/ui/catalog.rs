//! The local catalog (the mirror of the business's product variants the New link form prices
//! catalog items with) and its CSV import: a preview first, with an error per bad line, then
//! the import.
//!
//! Each item's barcode is editable in the list: typed, or scanned straight into its field
//! (the scanner ends with Enter). Enter or leaving the field checks it here (check digit, not
//! another item's) and sends it to the worker ([`CatalogCommand::SetBarcode`]); until the store has
//! it, the field keeps what was typed, with the reason when it was refused.

use std::collections::{HashMap, HashSet};

use egui::{RichText, Ui};

use crate::domain::{Barcode, CatalogVariant, format_amount};
use crate::lang::Lang;
use crate::store::{CsvImport, CsvParsed};
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::command::CatalogCommand;
use crate::ui::problem::Explain;
use crate::ui::table::{Align, Table};
use crate::ui::text::UiText;
use crate::ui::theme::{self, icon};
use crate::ui::widgets;

/// The characters a barcode field shows: the longest code, a GTIN-14.
const BARCODE_CHARS: usize = 14;

/// What the last CSV action gave.
#[derive(Debug, Clone)]
pub enum CsvOutcome {
    /// A preview: what would be imported, and the bad lines.
    Preview(CsvParsed),
    /// An import's result.
    Imported(CsvImport),
    /// The file could not be read, or the store failed.
    Error(crate::ui::problem::Problem),
}

/// The state of the Catalog view.
#[derive(Debug, Default)]
pub struct CatalogView {
    /// Path of the CSV file.
    path: String,
    /// A preview or import is out.
    busy: bool,
    /// The last outcome.
    outcome: Option<CsvOutcome>,
    /// Barcodes as typed, by variant id, while they differ from the stored one.
    barcode_edits: HashMap<String, String>,
    /// Why an item's typed barcode was not saved, by variant id.
    barcode_errors: HashMap<String, String>,
    /// Items whose barcode is being saved.
    barcode_saving: HashSet<String>,
    /// "Choose file…" found no file dialog on this desktop: the path is typed.
    no_dialog: bool,
    /// What "Save a sample file" said last.
    sample_note: Option<crate::ui::problem::Note>,
    /// The item being added or edited, while its editor is open.
    editor: Option<ItemEditor>,
}

/// The item editor's state: a new item of the shop's own (`id` empty), or an item of the
/// catalog. A server variant's price and currency are shown, not edited (the server is the
/// price authority).
#[derive(Debug, Clone, Default)]
pub struct ItemEditor {
    /// The item's id; empty for a new one.
    id: String,
    /// Whether the price is the shop's (a new item, or one the shop added).
    own: bool,
    /// The name as typed.
    name: String,
    /// The unit price as typed.
    price: String,
    /// The currency.
    currency: crate::domain::Currency,
    /// The barcode as typed.
    barcode: String,
    /// The change is out.
    saving: bool,
    /// "Remove item" was pressed: its confirmation is open.
    confirm_remove: bool,
    /// Why the last try was refused.
    error: Option<String>,
}

impl ItemEditor {
    /// The editor of a new item of the shop's own.
    fn new_own() -> Self {
        Self {
            own: true,
            ..Self::default()
        }
    }

    /// The editor of catalog item `v`.
    fn of(v: &CatalogVariant) -> Self {
        Self {
            id: v.id.clone(),
            own: v.is_own(),
            name: v.name.clone(),
            price: crate::domain::format_plain(v.unit_price, v.currency),
            currency: v.currency,
            barcode: v
                .barcode
                .as_ref()
                .map(|b| b.as_str().to_owned())
                .unwrap_or_default(),
            ..Self::default()
        }
    }
}

impl CatalogView {
    /// The item editor, while it is open.
    pub fn editor(&self) -> Option<&ItemEditor> {
        self.editor.as_ref()
    }

    /// The item's change is made: the editor closes.
    pub fn on_edited(&mut self) {
        self.editor = None;
    }

    /// The item's change was refused: why, in the editor.
    pub fn on_edit_refused(&mut self, error: &impl Explain, lang: Lang) {
        if let Some(e) = &mut self.editor {
            e.saving = false;
            e.confirm_remove = false;
            e.error = Some(error.problem(lang).sentence);
        }
    }

    /// The item's change could not be sent (no desk open).
    pub fn on_edit_not_sent(&mut self) {
        if let Some(e) = &mut self.editor {
            e.saving = false;
        }
    }

    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.busy = false;
        self.barcode_saving.clear();
    }

    /// The path of the CSV file, as typed or chosen.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Whether a preview or import is out.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// The last CSV outcome.
    pub fn outcome(&self) -> Option<&CsvOutcome> {
        self.outcome.as_ref()
    }

    /// Barcodes as typed, by variant id, while they differ from the stored one.
    pub fn barcode_edits(&self) -> &HashMap<String, String> {
        &self.barcode_edits
    }

    /// Why an item's typed barcode was not saved, by variant id.
    pub fn barcode_errors(&self) -> &HashMap<String, String> {
        &self.barcode_errors
    }

    /// Items whose barcode is being saved.
    pub fn barcode_saving(&self) -> &HashSet<String> {
        &self.barcode_saving
    }

    /// A preview or import ended: what it gave, or why the file could not be read.
    pub fn on_import(&mut self, result: Result<CsvOutcome, impl Explain>, lang: Lang) {
        self.busy = false;
        self.outcome = Some(match result {
            Ok(outcome) => outcome,
            Err(e) => CsvOutcome::Error(e.problem(lang)),
        });
    }

    /// "Save a sample file" answered: written (how many items, where), the dialog closed, or
    /// why it failed.
    pub fn on_sample_saved(
        &mut self,
        result: Result<Option<(usize, std::path::PathBuf, bool)>, impl Explain>,
        lang: Lang,
    ) {
        self.sample_note = crate::ui::problem::Note::of_export(result, lang, |_, path| {
            UiText::SampleSaved.fill(lang, &[("path", &path.display())])
        });
    }

    /// What "Save a sample file" said last.
    pub fn sample_note(&self) -> Option<&crate::ui::problem::Note> {
        self.sample_note.as_ref()
    }

    /// The preview or import asked for could not be sent (no desk open).
    pub fn on_csv_not_sent(&mut self) {
        self.busy = false;
    }

    /// The file dialog gave a file: it is the path now, and its preview is on its way.
    pub fn on_file_picked(&mut self, path: &str) {
        path.clone_into(&mut self.path);
        self.no_dialog = false;
        self.busy = true;
    }

    /// The file dialog was closed without a file.
    pub fn on_choice_cancelled(&mut self) {
        self.busy = false;
    }

    /// No file dialog opens on this desktop: the path is typed.
    pub fn on_no_dialog(&mut self) {
        self.busy = false;
        self.no_dialog = true;
    }

    /// The item's barcode was saved: the typed one is the stored one now.
    pub fn on_barcode_saved(&mut self, variant_id: &str) {
        self.barcode_saving.remove(variant_id);
        self.barcode_edits.remove(variant_id);
        self.barcode_errors.remove(variant_id);
    }

    /// The item's barcode was refused: the reason is said beside what was typed.
    pub fn on_barcode_refused(&mut self, variant_id: String, error: &impl Explain, lang: Lang) {
        self.barcode_saving.remove(&variant_id);
        self.barcode_errors
            .insert(variant_id, error.problem(lang).sentence);
    }

    /// The item's barcode could not be sent (no desk open).
    pub fn on_barcode_not_sent(&mut self, variant_id: &str) {
        self.barcode_saving.remove(variant_id);
    }

    /// Test set-up: a preview or import is out, as after its button.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_busy(&mut self) {
        self.busy = true;
    }

    /// Test set-up: the item's barcode is being saved, as after Enter in its field.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_barcode_saving(&mut self, variant_id: &str) {
        self.barcode_saving.insert(variant_id.to_owned());
    }

    /// Test set-up: a barcode typed into the item's field, not yet saved.
    #[cfg(any(test, feature = "inspect"))]
    pub fn type_barcode(&mut self, variant_id: &str, text: &str) {
        self.barcode_edits
            .insert(variant_id.to_owned(), text.to_owned());
    }

    /// Draws the view.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        catalog: &HashMap<String, CatalogVariant>,
    ) {
        let lang = cx.lang;
        widgets::page_header_ui(
            ui,
            UiText::NavCatalog.get(lang),
            UiText::CatalogHelp.get(lang),
            |_| {},
        );
        let l = ui.label(UiText::CsvPath.get(lang));
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(360.0))
                .labelled_by(l.id);
            // The desktop's file dialog (app::files), else the path typed.
            if widgets::Action::secondary(UiText::ChooseFile.get(lang))
                .icon(crate::ui::theme::icon::UPLOAD)
                .enabled(!self.busy && !self.no_dialog)
                .show_ui(ui)
                .clicked()
            {
                self.busy = true;
                cx.emit(Command::Catalog(CatalogCommand::Choose));
            }
            let has_path = !self.path.trim().is_empty() && !self.busy;
            if widgets::Action::secondary(UiText::Preview.get(lang))
                .enabled(has_path)
                .show_ui(ui)
                .clicked()
            {
                self.busy = true;
                cx.emit(Command::Catalog(CatalogCommand::Preview {
                    path: self.path.trim().to_owned(),
                }));
            }
            let can_import = has_path
                && matches!(&self.outcome, Some(CsvOutcome::Preview(p)) if !p.variants.is_empty());
            if widgets::Action::secondary(UiText::Import.get(lang))
                .icon(crate::ui::theme::icon::DOWNLOAD)
                .enabled(can_import)
                .show_ui(ui)
                .clicked()
            {
                self.busy = true;
                cx.emit(Command::Catalog(CatalogCommand::Import {
                    path: self.path.trim().to_owned(),
                }));
            }
        });
        if self.no_dialog {
            ui.label(UiText::NoFileDialog.get(lang));
        }
        // One sentence, and a file to start from rather than the raw header (issue 29).
        ui.horizontal_wrapped(|ui| {
            widgets::hint_ui(ui, &cx.palette, UiText::CsvHelp.get(lang));
            if widgets::Action::secondary(UiText::SaveSample.get(lang))
                .icon(crate::ui::theme::icon::DOWNLOAD)
                .show_ui(ui)
                .clicked()
            {
                self.sample_note = None;
                cx.emit(Command::Catalog(CatalogCommand::SaveSample));
            }
        });
        if let Some(note) = &self.sample_note {
            crate::ui::problem::note_ui(ui, cx, note);
        }
        match &self.outcome {
            Some(CsvOutcome::Preview(p)) => {
                ui.label(format!(
                    "{}: {}",
                    UiText::WillImport.get(lang),
                    p.variants.len()
                ));
                let widest = p
                    .variants
                    .iter()
                    .filter_map(|v| v.barcode.as_ref().map(Barcode::as_str))
                    .map(|b| widgets::text_width(ui, b))
                    .fold(0.0, f32::max);
                variants_grid_ui(
                    ui,
                    "csv-preview",
                    p.variants.iter(),
                    (lang, widest),
                    |ui, v| {
                        ui.label(v.barcode.as_ref().map_or("–", Barcode::as_str));
                    },
                );
                line_errors_ui(ui, cx, &p.errors);
            }
            Some(CsvOutcome::Imported(i)) => {
                ui.label(
                    RichText::new(format!("{}: {}", UiText::Imported.get(lang), i.imported))
                        .color(cx.palette.ok),
                );
                line_errors_ui(ui, cx, &i.errors);
            }
            Some(CsvOutcome::Error(e)) => {
                crate::ui::problem::problem_ui(ui, cx, e);
            }
            None => {}
        }
        ui.separator();
        if self.editor.is_none()
            && widgets::Action::secondary(UiText::AddCatalogOwn.get(lang))
                .icon(icon::NEW_LINK)
                .show_ui(ui)
                .clicked()
        {
            self.editor = Some(ItemEditor::new_own());
        }
        if self.editor.is_some() {
            self.editor_ui(ui, cx);
            ui.separator();
        }
        self.list_ui(ui, cx, catalog);
    }

    /// The catalog's items, each with its barcode field and Edit; or the empty state.
    fn list_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        catalog: &HashMap<String, CatalogVariant>,
    ) {
        let lang = cx.lang;
        if catalog.is_empty() {
            widgets::empty_state_ui(
                ui,
                icon::CATALOG,
                UiText::CatalogEmptyTitle.get(lang),
                UiText::CatalogEmptyHelp.get(lang),
            );
            return;
        }
        ui.label(
            RichText::new(format!(
                "{} · {}",
                UiText::CatalogList.get(lang),
                catalog.len()
            ))
            .strong(),
        );
        widgets::hint_ui(ui, &cx.palette, UiText::BarcodeEditHelp.get(lang));
        let mut all: Vec<&CatalogVariant> = catalog.values().collect();
        all.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
        egui::ScrollArea::vertical()
            .id_salt("catalog-list")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                // The field, then Edit beside it.
                let edit = widgets::text_width(ui, UiText::EditItem.get(lang))
                    + 2.0 * ui.spacing().button_padding.x;
                let barcode_width =
                    theme::field_width_ui(ui, BARCODE_CHARS) + ui.spacing().item_spacing.x + edit;
                variants_grid_ui(ui, "catalog-grid", all, (lang, barcode_width), |ui, v| {
                    // (The cell lays out left to right, centred: no row of its own.)
                    self.barcode_cell_ui(ui, cx, catalog, v);
                    let open = self.editor.as_ref().is_some_and(|e| e.id == v.id);
                    if !open
                        && widgets::Action::quiet(UiText::EditItem.get(lang))
                            .show_ui(ui)
                            // Named with its item: a list of "Edit" says nothing.
                            .accessible_name(format!("{} {}", UiText::EditItem.get(lang), v.name))
                            .on_hover_text(&v.name)
                            .clicked()
                    {
                        self.editor = Some(ItemEditor::of(v));
                    }
                });
            });
    }

    /// The item editor: name, unit price and currency (the shop's own items only: a server
    /// variant's price is the server's, shown and not edited), barcode; Save, Cancel, and for
    /// an item of the catalog Remove, confirmed.
    // One form's fields and buttons, in reading order.
    #[allow(clippy::too_many_lines)]
    fn editor_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let palette = cx.palette;
        let Some(e) = &mut self.editor else {
            return;
        };
        let mut close = false;
        let mut send = None;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            let title = match (e.id.is_empty(), e.own) {
                (true, _) => UiText::NewCatalogItem,
                (false, true) => UiText::EditOwnItem,
                (false, false) => UiText::EditCatalogItem,
            };
            ui.label(RichText::new(title.get(lang)).strong());
            ui.add_enabled_ui(!e.saving, |ui| {
                ui.horizontal_top(|ui| {
                    ui.vertical(|ui| {
                        widgets::labelled_text_width_ui(
                            ui,
                            UiText::CatalogItemName.get(lang),
                            &mut e.name,
                            theme::field_width_ui(ui, 28),
                        );
                    });
                    ui.vertical(|ui| {
                        let l = ui.label(UiText::UnitPrice.get(lang));
                        if e.own {
                            ui.horizontal(|ui| {
                                ui.add(
                                    egui::TextEdit::singleline(&mut e.price)
                                        .desired_width(theme::field_width_ui(ui, 10))
                                        .align(egui::Align2::RIGHT_CENTER),
                                )
                                .labelled_by(l.id);
                                let currency =
                                    egui::ComboBox::from_id_salt("catalog-item-currency")
                                        .selected_text(e.currency.as_str())
                                        .show_ui(ui, |ui| {
                                            for c in crate::domain::Currency::ALL {
                                                ui.selectable_value(
                                                    &mut e.currency,
                                                    *c,
                                                    c.as_str(),
                                                );
                                            }
                                        });
                                let _ = currency
                                    .response
                                    .accessible_name(crate::domain::Field::Currency.label(lang));
                            });
                        } else {
                            let shown = crate::domain::parse_amount(&e.price, e.currency)
                                .map_or_else(
                                    |_| e.price.clone(),
                                    |p| format_amount(p, e.currency, lang),
                                );
                            ui.label(shown).labelled_by(l.id);
                            widgets::hint_ui(ui, &palette, UiText::PriceFromServer.get(lang));
                        }
                    });
                    ui.vertical(|ui| {
                        widgets::labelled_text_width_ui(
                            ui,
                            UiText::Barcode.get(lang),
                            &mut e.barcode,
                            theme::field_width_ui(ui, BARCODE_CHARS),
                        );
                    });
                });
            });
            if let Some(why) = &e.error {
                widgets::error_text_ui(ui, &palette, why.as_str());
            }
            if e.saving {
                widgets::hint_ui(ui, &palette, UiText::Working.get(lang));
            }
            ui.horizontal(|ui| {
                if widgets::Action::secondary(UiText::SaveItem.get(lang))
                    .icon(icon::SAVE)
                    .enabled(!e.saving)
                    .show_ui(ui)
                    .clicked()
                {
                    match item_of(e, lang) {
                        Ok(item) => send = Some(crate::service::CatalogEdit::Put(item)),
                        Err(why) => e.error = Some(why),
                    }
                }
                if widgets::Action::quiet(UiText::CancelDialog.get(lang))
                    .enabled(!e.saving)
                    .show_ui(ui)
                    .clicked()
                {
                    close = true;
                }
                if !e.id.is_empty() && !e.confirm_remove {
                    if widgets::Action::quiet(UiText::RemoveItem.get(lang))
                        .icon(icon::CANCEL)
                        .enabled(!e.saving)
                        .show_ui(ui)
                        .clicked()
                    {
                        e.confirm_remove = true;
                    }
                } else if e.confirm_remove {
                    ui.label(UiText::RemoveItemConfirm.get(lang));
                    if widgets::Action::destructive(icon::CANCEL, UiText::RemoveItem.get(lang))
                        .enabled(!e.saving)
                        .show_ui(ui)
                        .clicked()
                    {
                        send = Some(crate::service::CatalogEdit::Remove(e.id.clone()));
                    }
                    if widgets::Action::secondary(UiText::KeepItem.get(lang))
                        .show_ui(ui)
                        .clicked()
                    {
                        e.confirm_remove = false;
                    }
                }
            });
        });
        if let Some(edit) = send {
            e.saving = true;
            e.error = None;
            cx.emit(Command::Catalog(CatalogCommand::Edit { edit }));
        }
        if close {
            self.editor = None;
        }
    }

    /// An item's barcode field, with the reason under it when the typed text was refused.
    fn barcode_cell_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        catalog: &HashMap<String, CatalogVariant>,
        v: &CatalogVariant,
    ) {
        let lang = cx.lang;
        let stored = v.barcode.as_ref().map_or("", Barcode::as_str);
        let saving = self.barcode_saving.contains(&v.id);
        let mut text = self
            .barcode_edits
            .get(&v.id)
            .cloned()
            .unwrap_or_else(|| stored.to_owned());
        // The field on the row's centre line with the name and Edit, a note (saving, a
        // refusal) under it. (Always a column: a layout that changed with the note would
        // lose the field's focus.)
        let pad = ((ui.available_height() - theme::BUTTON_HEIGHT) / 2.0).max(0.0);
        ui.vertical(|ui| {
            ui.add_space(pad);
            let r = ui
                .add_enabled(
                    !saving,
                    egui::TextEdit::singleline(&mut text)
                        // Tied to the item, not to its place in the sorted list.
                        .id_salt(("catalog-barcode", v.id.as_str()))
                        .desired_width(theme::field_width_ui(ui, BARCODE_CHARS))
                        // As tall as Edit beside it, so the two sit on one line.
                        .min_size(egui::vec2(0.0, theme::BUTTON_HEIGHT))
                        .align(egui::Align2::LEFT_CENTER)
                        .char_limit(32),
                )
                .accessible_name(format!("{}: {}", UiText::Barcode.get(lang), v.name));
            if r.changed() {
                if text == stored {
                    self.barcode_edits.remove(&v.id);
                } else {
                    self.barcode_edits.insert(v.id.clone(), text.clone());
                }
                self.barcode_errors.remove(&v.id);
            }
            if r.lost_focus() && self.barcode_edits.contains_key(&v.id) {
                self.commit_barcode(cx, catalog, v, &text);
            }
            if saving {
                widgets::hint_ui(ui, &cx.palette, UiText::Working.get(lang));
            }
            if let Some(why) = self.barcode_errors.get(&v.id) {
                widgets::error_lines_ui(ui, &cx.palette, [why.as_str()]);
            }
        });
    }

    /// Checks a typed barcode and, when it is new and valid, asks the worker to save it.
    fn commit_barcode(
        &mut self,
        cx: &mut ViewCtx<'_>,
        catalog: &HashMap<String, CatalogVariant>,
        v: &CatalogVariant,
        text: &str,
    ) {
        let lang = cx.lang;
        let typed = text.trim();
        let code = if typed.is_empty() {
            None
        } else {
            match Barcode::parse(typed) {
                Ok(code) => Some(code),
                Err(e) => {
                    let why = format!("{} {typed}: {}", UiText::Barcode.get(lang), e.message(lang));
                    self.barcode_errors.insert(v.id.clone(), why);
                    return;
                }
            }
        };
        if code == v.barcode {
            // The same code in another form (leading zeros, spaces): nothing to save.
            self.barcode_edits.remove(&v.id);
            return;
        }
        if let Some(other) = code
            .as_ref()
            .and_then(|c| cx.barcodes.variant_id(c))
            .filter(|other| *other != v.id)
        {
            let name = catalog.get(other).map_or(other, |o| o.name.as_str());
            let why = format!("{} {name}.", UiText::BarcodeTakenBy.get(lang));
            self.barcode_errors.insert(v.id.clone(), why);
            return;
        }
        self.barcode_saving.insert(v.id.clone());
        cx.emit(Command::Catalog(CatalogCommand::SetBarcode {
            variant_id: v.id.clone(),
            barcode: code,
        }));
    }
}

/// The item the editor holds, checked here (a name, a price above zero in its currency, a
/// valid barcode); or why not, in a sentence.
fn item_of(e: &ItemEditor, lang: Lang) -> Result<CatalogVariant, String> {
    let name = e.name.trim();
    let price = crate::domain::parse_amount(&e.price, e.currency).ok();
    let Some(price) = price.filter(|p| *p > rust_decimal::Decimal::ZERO && !name.is_empty()) else {
        return Err(UiText::ItemNeedsNamePrice.get(lang).to_owned());
    };
    let typed = e.barcode.trim();
    let barcode = if typed.is_empty() {
        None
    } else {
        Some(Barcode::parse(typed).map_err(|err| {
            format!(
                "{} {typed}: {}",
                UiText::Barcode.get(lang),
                err.message(lang)
            )
        })?)
    };
    Ok(CatalogVariant {
        id: e.id.clone(),
        name: name.to_owned(),
        unit_price: price,
        currency: e.currency,
        barcode,
    })
}

/// A table of catalog items in the one table of paydesk ([`Table`]): name (the catalog id in
/// its tooltip, never a column of its own), price (right-aligned, with its currency), and the
/// barcode cell `barcode_ui` draws in `barcode_width` (plain text in a preview, an editable
/// field with its Edit in the catalog).
fn variants_grid_ui<'a>(
    ui: &mut Ui,
    id: &str,
    variants: impl IntoIterator<Item = &'a CatalogVariant>,
    (lang, barcode_width): (crate::lang::Lang, f32),
    mut barcode_ui: impl FnMut(&mut Ui, &'a CatalogVariant),
) {
    let variants: Vec<&CatalogVariant> = variants.into_iter().collect();
    let prices: Vec<String> = variants
        .iter()
        .map(|v| format_amount(v.unit_price, v.currency, lang))
        .collect();
    let mut table = Table::new()
        .column(
            ui,
            UiText::Name.get(lang),
            Align::Left,
            variants.iter().map(|v| v.name.as_str()),
        )
        .column(
            ui,
            UiText::Price.get(lang),
            Align::Right,
            prices.iter().map(String::as_str),
        )
        .fixed(ui, UiText::Barcode.get(lang), Align::Left, barcode_width)
        .rows_at_least(theme::BUTTON_HEIGHT);
    table.widget_rows_ui(ui, id, |t| {
        for (v, price) in variants.into_iter().zip(&prices) {
            t.cell(|ui| {
                // The row's main text, as the board's description is.
                ui.add(egui::Label::new(RichText::new(&v.name).strong()).truncate())
                    .on_hover_text(UiText::CatalogIdTip.fill(lang, &[("id", &v.id)]));
            });
            t.text(price.as_str());
            t.cell(|ui| barcode_ui(ui, v));
            t.end_row();
        }
    });
}

fn line_errors_ui(ui: &mut Ui, cx: &ViewCtx<'_>, errors: &[crate::store::CsvLineError]) {
    if errors.is_empty() {
        return;
    }
    let lang = cx.lang;
    ui.label(
        RichText::new(format!(
            "{}: {}",
            UiText::LineErrors.get(lang),
            errors.len()
        ))
        .color(cx.palette.error),
    );
    egui::Grid::new("csv-errors").num_columns(2).show(ui, |ui| {
        ui.label(RichText::new(UiText::Line.get(lang)).strong());
        ui.label(RichText::new(UiText::Problem.get(lang)).strong());
        ui.end_row();
        for e in errors {
            ui.label(e.line.to_string());
            ui.label(RichText::new(e.message(lang)).color(cx.palette.error));
            ui.end_row();
        }
    });
}
