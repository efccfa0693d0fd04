//! The Audit view (managers): who did what and when at this desk, filtered by member and
//! action, exported as CSV, with a warning when the record's chain is broken.

use std::path::PathBuf;

use egui::{RichText, Ui};

use crate::lang::Lang;
use crate::store::{AuditAction, AuditFilter, AuditRow, ChainCheck};
use crate::ui::ViewCtx;
use crate::ui::command::{Command, StaffCommand};
use crate::ui::problem::{Explain, Note, Problem, note_ui, problem_ui, warning_ui};
use crate::ui::table::{self, Align, Table};
use crate::ui::text::UiText;
use crate::ui::theme;
use crate::ui::widgets;

/// The most rows the view reads at once (newest first); the CSV export has them all.
pub const AUDIT_ROWS: usize = 500;

/// The Audit view's state.
#[derive(Debug, Default)]
pub struct AuditView {
    /// The rows shown, newest first.
    rows: Vec<AuditRow>,
    /// What the last walk of the chain found.
    check: Option<ChainCheck>,
    /// Only this member.
    staff: Option<String>,
    /// Only this action.
    action: Option<AuditAction>,
    /// The filter of the rows shown (`None`: not read yet, or to read again).
    loaded: Option<(Option<String>, Option<AuditAction>)>,
    /// A read is out.
    loading: bool,
    /// An export is out.
    exporting: bool,
    /// Why the last read failed.
    error: Option<Problem>,
    /// What the last export did.
    note: Option<Note>,
    /// On a joined desk, the head of the shop's own chain when the rows were read.
    shop_head: Option<String>,
    /// The actions the rows record (what the Action column is measured by), kept with them.
    actions: Vec<AuditAction>,
}

/// One chain's head: what it is, then the hash in small monospace (a manager compares it with
/// one noted earlier, as `audit verify --head` does).
fn head_ui(ui: &mut Ui, cx: &ViewCtx<'_>, what: &str, head: &str) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(what).color(cx.palette.muted));
        ui.label(
            RichText::new(head)
                .monospace()
                .small()
                .color(cx.palette.muted),
        );
    });
}

impl AuditView {
    /// The filter as the store takes it.
    pub fn filter(&self, limit: Option<usize>) -> AuditFilter {
        AuditFilter {
            staff: self.staff.clone(),
            action: self.action.map(|a| a.as_str().to_owned()),
            limit,
            ..AuditFilter::default()
        }
    }

    /// Read the rows again when the view is next drawn.
    pub fn invalidate(&mut self) {
        self.loaded = None;
    }

    /// The read was abandoned (no desk, a lost worker).
    pub fn abort_busy(&mut self) {
        self.loading = false;
        self.exporting = false;
    }

    /// The rows shown, newest first.
    pub fn rows(&self) -> &[AuditRow] {
        &self.rows
    }

    /// What the chain's walk found.
    pub fn check(&self) -> Option<&ChainCheck> {
        self.check.as_ref()
    }

    /// Whether the rows are being read.
    pub fn is_loading(&self) -> bool {
        self.loading
    }

    /// Whether an export is being written.
    pub fn is_exporting(&self) -> bool {
        self.exporting
    }

    /// Why the last read failed.
    pub fn error(&self) -> Option<&Problem> {
        self.error.as_ref()
    }

    /// What the last export did.
    pub fn note(&self) -> Option<&Note> {
        self.note.as_ref()
    }

    /// The read was sent.
    pub fn on_load_sent(&mut self) {
        self.loading = true;
    }

    /// The rows and the chain's walk arrived, or why they could not be read.
    pub fn on_audit(
        &mut self,
        result: Result<(Vec<AuditRow>, ChainCheck), impl Explain>,
        shop_head: Option<String>,
        lang: Lang,
    ) {
        self.loading = false;
        self.shop_head = shop_head;
        match result {
            Ok((rows, check)) => {
                self.actions = AuditAction::ALL
                    .into_iter()
                    .filter(|a| rows.iter().any(|r| r.action == a.as_str()))
                    .collect();
                self.rows = rows;
                self.check = Some(check);
                self.error = None;
            }
            Err(e) => self.error = Some(e.problem(lang)),
        }
    }

    /// The CSV export ended: how many rows went where, nothing when the dialog was closed, or
    /// why it failed.
    pub fn on_exported(
        &mut self,
        result: Result<Option<(usize, PathBuf, bool)>, impl Explain>,
        lang: Lang,
    ) {
        self.exporting = false;
        self.note = Note::of_export(result, lang, |count, path| {
            UiText::AuditExported.fill(
                lang,
                &[
                    ("count", &count.to_string()),
                    ("path", &path.display().to_string()),
                ],
            )
        });
    }

    /// Test set-up: an export is being written, as after Export CSV.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_exporting(&mut self) {
        self.exporting = true;
    }

    /// Draws the view; `members` are the names the filter offers.
    pub fn audit_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, members: &[String]) {
        let lang = cx.lang;
        let wanted = (self.staff.clone(), self.action);
        if self.loaded.as_ref() != Some(&wanted) && !self.loading {
            self.loading = true;
            self.loaded = Some(wanted);
            cx.emit(Command::Staff(StaffCommand::LoadAudit {
                filter: self.filter(Some(AUDIT_ROWS)),
            }));
        }
        widgets::page_header_ui(
            ui,
            UiText::NavAudit.get(lang),
            UiText::AuditHelp.get(lang),
            |ui| {
                let export = widgets::Action::secondary(UiText::ExportCsv.get(lang))
                    .icon(theme::icon::DOWNLOAD)
                    .enabled(!self.exporting)
                    .show_ui(ui);
                if export.clicked() {
                    self.exporting = true;
                    self.note = None;
                    cx.emit(Command::Staff(StaffCommand::ExportAudit {
                        filter: self.filter(None),
                    }));
                }
                if self.exporting {
                    ui.spinner();
                }
            },
        );
        self.chain_ui(ui, cx);
        ui.add_space(theme::SPACE_S);
        self.filter_ui(ui, lang, members);
        if let Some(note) = &self.note {
            note_ui(ui, cx, note);
        }
        if let Some(e) = &self.error {
            problem_ui(ui, cx, e);
        }
        ui.add_space(theme::SPACE_S);
        self.rows_ui(ui, cx, members);
    }

    fn chain_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        match &self.check {
            Some(ChainCheck::Broken { seq, why }) => {
                let sentence = UiText::AuditBroken.fill(lang, &[("seq", &seq.to_string())]);
                warning_ui(ui, cx, &Problem::with_detail(sentence, *why));
            }
            Some(ChainCheck::Whole { rows, head }) => {
                ui.label(
                    RichText::new(UiText::AuditWhole.fill(lang, &[("rows", &rows.to_string())]))
                        .color(cx.palette.ok),
                );
                head_ui(ui, cx, UiText::AuditDeskHead.get(lang), head);
            }
            Some(ChainCheck::HeadNotFound { .. }) | None => {}
        }
        if let Some(head) = &self.shop_head {
            head_ui(ui, cx, UiText::AuditShopHead.get(lang), head);
        }
    }

    fn filter_ui(&mut self, ui: &mut Ui, lang: Lang, members: &[String]) {
        ui.horizontal(|ui| {
            ui.vertical(|ui| {
                let l = ui.label(UiText::AuditStaff.get(lang));
                let everyone = UiText::AuditEveryone.get(lang);
                let r = egui::ComboBox::from_id_salt("audit-staff")
                    .selected_text(self.staff.as_deref().unwrap_or(everyone))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut self.staff, None, everyone);
                        for m in members {
                            ui.selectable_value(&mut self.staff, Some(m.clone()), m.as_str());
                        }
                    });
                let _ = r.response.labelled_by(l.id);
            });
            ui.add_space(theme::SPACE_M);
            ui.vertical(|ui| {
                let l = ui.label(UiText::AuditAction.get(lang));
                let all = UiText::AuditAllActions.get(lang);
                let r = egui::ComboBox::from_id_salt("audit-action")
                    .selected_text(self.action.map_or(all, |a| action_text(a).get(lang)))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut self.action, None, all);
                        for a in AuditAction::ALL {
                            ui.selectable_value(
                                &mut self.action,
                                Some(a),
                                action_text(a).get(lang),
                            );
                        }
                    });
                let _ = r.response.labelled_by(l.id);
            });
        });
    }

    fn rows_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>, members: &[String]) {
        let lang = cx.lang;
        if self.rows.is_empty() {
            if self.loading {
                widgets::hint_ui(ui, &cx.palette, UiText::Loading.get(lang));
            } else {
                widgets::empty_state_ui(
                    ui,
                    theme::icon::AUDIT,
                    UiText::AuditEmpty.get(lang),
                    UiText::AuditEmptyHelp.get(lang),
                );
            }
            return;
        }
        ui.label(
            RichText::new(
                UiText::AuditShown.fill(lang, &[("count", &self.rows.len().to_string())]),
            )
            .color(cx.palette.muted),
        );
        let nobody = UiText::AuditNobody.get(lang);
        let when = |r: &AuditRow| crate::ui::words::local_time(r.at, cx.zone, lang);
        let first = self.rows.first().map(when).unwrap_or_default();
        let names: Vec<&str> = members.iter().map(String::as_str).chain([nobody]).collect();
        let actions: Vec<&str> = self
            .actions
            .iter()
            .map(|a| action_text(*a).get(lang))
            .collect();
        let mut table = Table::new()
            .read_only()
            .column(
                ui,
                UiText::AuditWhen.get(lang),
                Align::Left,
                [first.as_str()],
            )
            .column(
                ui,
                UiText::AuditStaff.get(lang),
                Align::Left,
                names.iter().copied(),
            )
            .column(
                ui,
                UiText::AuditApprovedBy.get(lang),
                Align::Left,
                names.iter().copied(),
            )
            .column(ui, UiText::AuditAction.get(lang), Align::Left, actions)
            .fill(ui, UiText::AuditSubject.get(lang), theme::NAME_BUTTON_WIDTH);
        table.header_ui(ui);
        let rows = &self.rows;
        let height = table::one_line_row(ui);
        table.rows_ui(
            ui,
            "audit-rows",
            (height, rows.len()),
            |row, i| {
                let r = &rows[i];
                let at = when(r);
                let staff = r.staff.as_deref().unwrap_or(nobody);
                let approved = r.approved_by.as_deref().unwrap_or(nobody);
                let action = AuditAction::parse(&r.action)
                    .map_or(r.action.as_str(), |a| action_text(a).get(lang));
                let subject = subject_text(r, lang);
                row.text(0, &at);
                row.text(1, staff);
                row.text(2, approved);
                row.text(3, action);
                row.text(4, &subject);
                // The stored forms on hover (and in the CSV), never on the row.
                row.hover(3, &r.action);
                if subject != r.subject {
                    row.hover(4, &r.subject);
                }
                format!("{at} · {staff} · {approved} · {action} · {subject}")
            },
            |_, _| {},
        );
    }
}

/// A row's subject as a clerk reads it: where a sign-in happened, a link by its order
/// number, a member's role in words; the stored text stays in the tooltip and the CSV.
pub fn subject_text(row: &AuditRow, lang: Lang) -> String {
    let subject = row.subject.as_str();
    match AuditAction::parse(&row.action) {
        Some(AuditAction::SignIn) => match subject.strip_prefix("cli: ") {
            Some(command) => UiText::SubjectCli.fill(lang, &[("command", &command)]),
            None if subject == "app" => UiText::SubjectApp.get(lang).to_owned(),
            None => subject.to_owned(),
        },
        // `ID ORDER`: the order number is what the shop knows the link by.
        Some(AuditAction::LinkCreate | AuditAction::LinkCancel) => subject
            .split_once(' ')
            .map_or(subject, |(_, order)| order)
            .to_owned(),
        // `CancelLink ID ORDER`, or another command's name.
        Some(AuditAction::Approve) => {
            let mut words = subject.split(' ');
            match (words.next(), words.next(), words.next()) {
                (Some("CancelLink"), Some(id), order) => {
                    UiText::WhatCancelLink.fill(lang, &[("order", &order.unwrap_or(id))])
                }
                (Some(command), None, None) => {
                    let what = crate::ui::staff::what_of(command);
                    if what == UiText::WhatOther {
                        subject.to_owned()
                    } else {
                        what.get(lang).to_owned()
                    }
                }
                _ => subject.to_owned(),
            }
        }
        Some(AuditAction::StaffAdd) => {
            for role in [crate::domain::Role::Counter, crate::domain::Role::Manager] {
                if let Some(name) = subject.strip_suffix(&format!(" ({})", role.as_str())) {
                    let role = crate::ui::staff::role_text(role).get(lang);
                    return format!("{name} ({role})");
                }
            }
            subject.to_owned()
        }
        // `N items`: the count in the shop's words (issue 29: no English in Turkish rows).
        Some(AuditAction::CatalogImport) => subject
            .strip_suffix(" items")
            .or_else(|| subject.strip_suffix(" item"))
            .and_then(|n| n.parse::<usize>().ok())
            .map_or_else(
                || subject.to_owned(),
                |n| UiText::SubjectItems.fill(lang, &[("n", &n)]),
            ),
        // `NAME URL KEY_ID`: the profile and where it points, in words; no address, no key.
        Some(AuditAction::ProfileSave) => {
            let mut words = subject.split(' ');
            match (words.next(), words.next()) {
                (Some(name), Some(url)) if url.contains("://") => format!(
                    "{name} · {}",
                    crate::ui::words::server_place(url, false, lang)
                ),
                _ => subject.to_owned(),
            }
        }
        _ => subject.to_owned(),
    }
}

/// An action in plain words.
pub fn action_text(a: AuditAction) -> UiText {
    match a {
        AuditAction::LinkCreate => UiText::ActLinkCreate,
        AuditAction::LinkCancel => UiText::ActLinkCancel,
        AuditAction::LinkSend => UiText::ActLinkSend,
        AuditAction::MailSettings => UiText::ActMailSettings,
        AuditAction::CardSave => UiText::ActCardSave,
        AuditAction::CatalogImport => UiText::ActCatalogImport,
        AuditAction::CatalogEdit => UiText::ActCatalogEdit,
        AuditAction::ProfileSave => UiText::ActProfileSave,
        AuditAction::ProfileRemove => UiText::ActProfileRemove,
        AuditAction::SecretStore => UiText::ActSecretStore,
        AuditAction::StaffAdd => UiText::ActStaffAdd,
        AuditAction::StaffDisable => UiText::ActStaffDisable,
        AuditAction::StaffEnable => UiText::ActStaffEnable,
        AuditAction::StaffResetPin => UiText::ActStaffResetPin,
        AuditAction::Approve => UiText::ActApprove,
        AuditAction::SignIn => UiText::ActSignIn,
        AuditAction::Lockout => UiText::ActLockout,
        AuditAction::LinkContradicted => UiText::ActLinkContradicted,
        AuditAction::LinkReceipt => UiText::ActLinkReceipt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(action: AuditAction, subject: &str) -> AuditRow {
        AuditRow {
            seq: 1,
            at: chrono::Utc::now(),
            staff: None,
            approved_by: None,
            action: action.as_str().to_owned(),
            subject: subject.to_owned(),
            prev_hash: String::new(),
            hash: String::new(),
        }
    }

    #[test]
    fn subjects_read_in_the_shops_words() {
        let en = Lang::En;
        assert_eq!(
            subject_text(&row(AuditAction::SignIn, "app"), en),
            "in the app"
        );
        assert_eq!(
            subject_text(&row(AuditAction::SignIn, "cli: report"), Lang::Tr),
            "komut satırında: report"
        );
        assert_eq!(
            subject_text(&row(AuditAction::LinkCancel, "lnk_1 KDK-0001"), en),
            "KDK-0001"
        );
        assert_eq!(
            subject_text(&row(AuditAction::StaffAdd, "Ayşe (counter)"), en),
            "Ayşe (Counter clerk)"
        );
        assert_eq!(
            subject_text(&row(AuditAction::CatalogImport, "3 items"), en),
            "3 items"
        );
        // No English inside a Turkish row; plurals right in both (issue 29).
        assert_eq!(
            subject_text(&row(AuditAction::CatalogImport, "3 items"), Lang::Tr),
            "3 ürün"
        );
        assert_eq!(
            subject_text(&row(AuditAction::CatalogImport, "1 items"), en),
            "1 item"
        );
        assert_eq!(
            subject_text(
                &row(
                    AuditAction::ProfileSave,
                    "kadikoy http://127.0.0.1:47291 pk_test_paydesk_demo"
                ),
                Lang::Tr
            ),
            "kadikoy · bu bilgisayar"
        );
    }
}
