//! The local catalog (the mirror of the business's product variants the New link form prices
//! catalog items with) and its CSV import: a preview first, with an error per bad line, then
//! the import.

use std::collections::HashMap;

use egui::{RichText, Ui};

use crate::app::Command;
use crate::domain::{CatalogVariant, format_amount};
use crate::store::{CsvImport, CsvParsed};
use crate::ui::ViewCtx;
use crate::ui::text::T;
use crate::ui::widgets;

/// What the last CSV action gave.
#[derive(Debug, Clone)]
pub enum CsvOutcome {
    /// A preview: what would be imported, and the bad lines.
    Preview(CsvParsed),
    /// An import's result.
    Imported(CsvImport),
    /// The file could not be read, or the store failed.
    Error(String),
}

/// The state of the Catalog view.
#[derive(Debug, Default)]
pub struct CatalogView {
    /// Path of the CSV file.
    pub path: String,
    /// A preview or import is out.
    pub busy: bool,
    /// The last outcome.
    pub outcome: Option<CsvOutcome>,
}

impl CatalogView {
    /// Draws the view.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        catalog: &HashMap<String, CatalogVariant>,
    ) {
        let lang = cx.lang;
        ui.heading(T::NavCatalog.get(lang));
        ui.horizontal(|ui| {
            let l = ui.label(T::CsvPath.get(lang));
            ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(360.0))
                .labelled_by(l.id);
            let has_path = !self.path.trim().is_empty() && !self.busy;
            if ui
                .add_enabled(has_path, egui::Button::new(T::Preview.get(lang)))
                .clicked()
            {
                self.busy = true;
                cx.emit(Command::CatalogPreview(self.path.trim().to_owned()));
            }
            let can_import = has_path
                && matches!(&self.outcome, Some(CsvOutcome::Preview(p)) if !p.variants.is_empty());
            if ui
                .add_enabled(can_import, egui::Button::new(T::Import.get(lang)))
                .clicked()
            {
                self.busy = true;
                cx.emit(Command::CatalogImport(self.path.trim().to_owned()));
            }
        });
        widgets::hint_ui(ui, &cx.palette, T::CsvHelp.get(lang));
        match &self.outcome {
            Some(CsvOutcome::Preview(p)) => {
                ui.label(format!("{}: {}", T::WillImport.get(lang), p.variants.len()));
                variants_grid_ui(ui, "csv-preview", p.variants.iter(), lang);
                line_errors_ui(ui, cx, &p.errors);
            }
            Some(CsvOutcome::Imported(i)) => {
                ui.label(
                    RichText::new(format!("{}: {}", T::Imported.get(lang), i.imported))
                        .color(cx.palette.ok),
                );
                line_errors_ui(ui, cx, &i.errors);
            }
            Some(CsvOutcome::Error(e)) => {
                widgets::error_text_ui(ui, &cx.palette, e.as_str());
            }
            None => {}
        }
        ui.separator();
        ui.label(RichText::new(T::CatalogList.get(lang)).strong());
        if catalog.is_empty() {
            widgets::hint_ui(ui, &cx.palette, T::CatalogEmpty.get(lang));
            return;
        }
        let mut all: Vec<&CatalogVariant> = catalog.values().collect();
        all.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
        egui::ScrollArea::vertical()
            .id_salt("catalog-list")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                variants_grid_ui(ui, "catalog-grid", all.into_iter(), lang);
            });
    }
}

fn variants_grid_ui<'a>(
    ui: &mut Ui,
    id: &str,
    variants: impl Iterator<Item = &'a CatalogVariant>,
    lang: crate::lang::Lang,
) {
    egui::Grid::new(id)
        .striped(true)
        .num_columns(4)
        .show(ui, |ui| {
            for h in [T::Id, T::Name, T::Price, T::Currency] {
                ui.label(RichText::new(h.get(lang)).strong());
            }
            ui.end_row();
            for v in variants {
                ui.label(&v.id);
                ui.label(&v.name);
                ui.label(format_amount(v.unit_price, v.currency, lang));
                ui.label(v.currency.as_str());
                ui.end_row();
            }
        });
}

fn line_errors_ui(ui: &mut Ui, cx: &ViewCtx<'_>, errors: &[crate::store::CsvLineError]) {
    if errors.is_empty() {
        return;
    }
    let lang = cx.lang;
    ui.label(
        RichText::new(format!("{}: {}", T::LineErrors.get(lang), errors.len()))
            .color(cx.palette.error),
    );
    egui::Grid::new("csv-errors").num_columns(2).show(ui, |ui| {
        ui.label(RichText::new(T::Line.get(lang)).strong());
        ui.label(RichText::new(T::Problem.get(lang)).strong());
        ui.end_row();
        for e in errors {
            ui.label(e.line.to_string());
            ui.label(RichText::new(&e.message).color(cx.palette.error));
            ui.end_row();
        }
    });
}
