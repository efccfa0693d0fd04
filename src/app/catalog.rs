//! The local catalog: CSV preview and import, and barcode edits.

use super::errors::JobError;
use super::msg::{CatalogResult, Duty, Msg};
use super::{App, Command};
use crate::service::DeskError;
use crate::service::StoreError;
use crate::ui::CatalogCommand;
use crate::ui::catalog::CsvOutcome;

impl App {
    /// Runs a catalog command.
    pub(crate) fn run_catalog(&mut self, command: CatalogCommand, duty: &Duty) {
        match command {
            CatalogCommand::Preview { path } => {
                if self.desk_for(duty).is_some() {
                    self.catalog_csv(path, false, duty);
                }
            }
            CatalogCommand::Import { path } => {
                if self.desk_for(duty).is_some() {
                    self.catalog_csv(path, true, duty);
                }
            }
            CatalogCommand::Choose => {
                let dialogs = self.options.file_dialogs.clone();
                let title = crate::ui::text::UiText::ChooseCatalogTitle
                    .get(self.lang())
                    .to_owned();
                let dir = crate::printer::save_folder();
                self.spawn(duty, async move {
                    let choice = dialogs
                        .open(super::files::FileKind::Csv, &title, dir.as_deref())
                        .await;
                    Msg::Catalog(CatalogResult::Chosen { choice })
                });
            }
            CatalogCommand::Edit { edit } => {
                let Some(services) = self.holds.services.clone() else {
                    self.views.catalog.on_edit_not_sent();
                    return;
                };
                let actor = duty.actor.clone();
                self.spawn(duty, async move {
                    let result = services
                        .catalog_edit(&actor, &edit)
                        .await
                        .map_err(JobError::from);
                    Msg::Catalog(CatalogResult::Edited { result })
                });
            }
            CatalogCommand::SaveSample => {
                let dialogs = self.options.file_dialogs.clone();
                let title = crate::ui::text::UiText::SampleWhere
                    .get(self.lang())
                    .to_owned();
                let dir = self.export_dir.clone();
                self.spawn(duty, async move {
                    let name = "paydesk-catalog-sample.csv";
                    let result = match dialogs
                        .save_path(super::files::FileKind::Csv, &title, dir, name)
                        .await
                    {
                        Ok(Some((path, by_dialog))) => {
                            match crate::service::write_catalog_sample(&path) {
                                Ok(items) => Ok(Some((items, path, by_dialog))),
                                Err(e) => Err(JobError::file(&path)(e)),
                            }
                        }
                        Ok(None) => Ok(None),
                        Err(e) => Err(e),
                    };
                    Msg::Catalog(CatalogResult::SampleSaved { result })
                });
            }
            CatalogCommand::SetBarcode {
                variant_id,
                barcode,
            } => {
                let Some(services) = self.holds.services.clone() else {
                    self.views.catalog.on_barcode_not_sent(&variant_id);
                    return;
                };
                let actor = duty.actor.clone();
                self.spawn(duty, async move {
                    let id = variant_id.clone();
                    let result = services
                        .catalog_set_barcode(&actor, &variant_id, barcode.as_ref())
                        .await
                        .map_err(JobError::from);
                    Msg::Catalog(CatalogResult::BarcodeSaved {
                        variant_id: id,
                        result,
                    })
                });
            }
        }
    }

    fn catalog_csv(&mut self, path: String, import: bool, duty: &Duty) {
        let Some(services) = self.holds.services.clone() else {
            self.views.catalog.on_csv_not_sent();
            return;
        };
        let actor = duty.actor.clone();
        self.spawn(duty, async move {
            let csv = |result| Msg::Catalog(CatalogResult::Csv { result });
            // At most the catalog limit, read before the store is locked.
            let bytes = match crate::service::read_catalog_file(std::path::Path::new(&path)) {
                Ok(b) => b,
                Err(DeskError::Store(StoreError::Io { source, .. })) => {
                    return csv(Err(JobError::file(&path)(source)));
                }
                Err(e) => return csv(Err(JobError::from(e))),
            };
            let r = if import {
                services
                    .catalog_import_csv(&actor, &bytes)
                    .await
                    .map(|(done, map)| (CsvOutcome::Imported(done), Some(map)))
            } else {
                services
                    .catalog_preview_csv(&bytes)
                    .map(|parsed| (CsvOutcome::Preview(parsed), None))
            };
            csv(r.map_err(JobError::from))
        });
    }

    /// Takes a catalog result into the state.
    pub(crate) fn apply_catalog(&mut self, result: CatalogResult) {
        let lang = self.lang();
        match result {
            CatalogResult::Csv { result } => {
                let (result, catalog) = match result {
                    Ok((outcome, catalog)) => (Ok(outcome), catalog),
                    Err(e) => (Err(e), None),
                };
                if matches!(result, Ok(CsvOutcome::Imported(_))) {
                    // The approved import is done: the next one asks again.
                    self.staff.import_approval = None;
                }
                self.views.catalog.on_import(result, lang);
                if let Some(c) = catalog {
                    self.set_catalog(c);
                }
            }
            CatalogResult::Chosen { choice } => {
                match choice {
                    super::files::Choice::Picked(path) => {
                        let path = path.display().to_string();
                        self.import_file_picked(&path);
                        // The file is previewed at once: the Preview command, under the
                        // approval the import carries (its duty checked on the worker).
                        self.views.catalog.on_file_picked(&path);
                        self.run(Command::Catalog(CatalogCommand::Preview { path }));
                    }
                    super::files::Choice::NoDialog => self.views.catalog.on_no_dialog(),
                    super::files::Choice::Cancelled => self.views.catalog.on_choice_cancelled(),
                }
            }
            CatalogResult::Edited { result } => match result {
                Ok(catalog) => {
                    self.views.catalog.on_edited();
                    self.set_catalog(catalog);
                }
                Err(e) => self.views.catalog.on_edit_refused(&e, lang),
            },
            CatalogResult::SampleSaved { result } => {
                self.views.catalog.on_sample_saved(result, lang);
            }
            CatalogResult::BarcodeSaved { variant_id, result } => match result {
                Ok(catalog) => {
                    self.views.catalog.on_barcode_saved(&variant_id);
                    self.set_catalog(catalog);
                }
                Err(e) => self.views.catalog.on_barcode_refused(variant_id, &e, lang),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Command;
    use crate::app::testing::{app, only, run};
    use crate::domain::Barcode;

    const CSV: &str =
        "id,name,unit_price,currency\nV-1,Filtre kahve,85.00,TRY\nV-2,Simit,15.50,TRY\n";

    fn csv_file() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.csv");
        std::fs::write(&path, CSV).unwrap();
        (dir, path.display().to_string())
    }

    fn import(app: &mut App) {
        let (_dir, path) = csv_file();
        let answer = only(run(app, Command::Catalog(CatalogCommand::Import { path })));
        app.on_msg(answer);
    }

    #[test]
    fn preview_parses_the_file_without_writing() {
        let mut app = app();
        let (_dir, path) = csv_file();
        app.views.catalog.set_busy();
        let answer = only(run(
            &mut app,
            Command::Catalog(CatalogCommand::Preview { path }),
        ));
        assert!(matches!(
            &answer,
            Msg::Catalog(CatalogResult::Csv { result: Ok((CsvOutcome::Preview(p), None)) })
                if p.variants.len() == 2
        ));
        app.on_msg(answer);
        assert!(!app.views.catalog.is_busy());
        assert!(matches!(
            app.views.catalog.outcome(),
            Some(CsvOutcome::Preview(_))
        ));
        assert!(app.holds.catalog.is_empty(), "nothing imported");
    }

    #[test]
    fn import_writes_the_catalog_and_the_app_holds_it() {
        let mut app = app();
        let (_dir, path) = csv_file();
        app.views.catalog.set_busy();
        let answer = only(run(
            &mut app,
            Command::Catalog(CatalogCommand::Import { path }),
        ));
        app.on_msg(answer);
        assert!(!app.views.catalog.is_busy());
        assert!(matches!(
            &app.views.catalog.outcome(),
            Some(CsvOutcome::Imported(done)) if done.imported == 2
        ));
        assert_eq!(app.holds.catalog.len(), 2);
        assert!(app.holds.catalog.contains_key("V-1"));
    }

    #[test]
    fn a_file_that_cannot_be_read_is_said() {
        let mut app = app();
        let answer = only(run(
            &mut app,
            Command::Catalog(CatalogCommand::Preview {
                path: "/nonexistent/catalog.csv".into(),
            }),
        ));
        app.on_msg(answer);
        assert!(matches!(
            app.views.catalog.outcome(),
            Some(CsvOutcome::Error(_))
        ));
    }

    #[test]
    fn set_barcode_saves_it_and_the_scan_finds_the_item() {
        let mut app = app();
        import(&mut app);
        let barcode = Barcode::parse("4006381333931").unwrap();
        app.views.catalog.set_barcode_saving("V-1");
        app.views.catalog.type_barcode("V-1", "4006381333931");
        let answer = only(run(
            &mut app,
            Command::Catalog(CatalogCommand::SetBarcode {
                variant_id: "V-1".into(),
                barcode: Some(barcode.clone()),
            }),
        ));
        assert!(matches!(
            &answer,
            Msg::Catalog(CatalogResult::BarcodeSaved { variant_id, result: Ok(_) }) if variant_id == "V-1"
        ));
        app.on_msg(answer);
        assert!(app.views.catalog.barcode_saving().is_empty());
        assert!(app.views.catalog.barcode_edits().is_empty());
        assert_eq!(
            app.holds.catalog.get("V-1").and_then(|v| v.barcode.clone()),
            Some(barcode)
        );
    }

    #[test]
    fn a_barcode_that_was_not_saved_is_said_beside_the_item() {
        let mut app = app();
        app.views.catalog.set_barcode_saving("V-1");
        app.apply_catalog(CatalogResult::BarcodeSaved {
            variant_id: "V-1".into(),
            result: Err(JobError::NoSaveFolder),
        });
        assert!(app.views.catalog.barcode_saving().is_empty());
        assert!(app.views.catalog.barcode_errors().contains_key("V-1"));
    }

    #[test]
    fn the_sample_file_is_written_and_previews_as_three_items_without_errors() {
        let mut app = app();
        let dir = tempfile::tempdir().unwrap();
        app.export_dir = Some(dir.path().to_owned());
        let answer = only(run(&mut app, Command::Catalog(CatalogCommand::SaveSample)));
        let Msg::Catalog(CatalogResult::SampleSaved {
            result: Ok(Some((items, path, false))),
        }) = &answer
        else {
            panic!("{answer:?}");
        };
        assert_eq!(*items, 3);
        assert!(path.starts_with(dir.path()));
        // What it holds is what an import reads: previewed, three items and no error.
        let path = path.display().to_string();
        app.on_msg(answer);
        assert!(matches!(
            app.views.catalog.sample_note(),
            Some(crate::ui::problem::Note::Done(text)) if text.contains(&path)
        ));
        let preview = only(run(
            &mut app,
            Command::Catalog(CatalogCommand::Preview { path }),
        ));
        let Msg::Catalog(CatalogResult::Csv {
            result: Ok((CsvOutcome::Preview(parsed), None)),
        }) = &preview
        else {
            panic!("{preview:?}");
        };
        assert_eq!(parsed.variants.len(), 3);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    }
}
