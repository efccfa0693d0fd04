//! The app's logic: turns commands into background jobs and background results into view
//! state. Nothing here draws, and nothing here blocks: every network, `SQLite` and keyring call
//! runs on the worker, and its answer comes back as a [`Msg`].

use crate::ui::problem::{Explain, Note, Problem};
use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::NaiveDate;

use super::errors::JobError;
use super::{App, Command, Connection, View};
use crate::api::error::{Disposition, Prior};
use crate::api::wire::{InstallmentList, PaymentLink, SavedCard};
use crate::board::{Alert, Next};
use crate::clock::Zone;
use crate::domain::CatalogVariant;
use crate::lang::Lang;
use crate::printer::{Delivered, SlipSink};
use crate::secrets::SecretError;
use crate::service::{CreateError, Desk, DeskError, SANDBOX_PROFILE, Services};
use crate::slip::{Paper, Slip};
use crate::store::{
    CsvImport, CsvParsed, DayReport, JournalRow, JournalState, LinkCursor, LinkQuery, LinkTotals,
    Profile, StoredLink, TimeRange,
};
use crate::ui::board::notice_for;
use crate::ui::card::CardOutcome;
use crate::ui::catalog::CsvOutcome;
use crate::ui::history::{HistoryFilter, HistoryRow, PAGE};
use crate::ui::installments::InstallmentOutcome;
use crate::ui::link_result::{Origin, ShownLink};
use crate::ui::new_link::SendNote;
use crate::ui::settings::SecretStatus;
use crate::ui::text::T;
use crate::worker::Polled;

/// The gap between two requests of "Refresh statuses": at most one a second.
pub const STATUS_REFRESH_GAP: Duration = Duration::from_secs(1);

/// What the worker opened for a profile.
pub struct Boot {
    services: Arc<Services>,
    desk: Desk,
    order_number: Option<String>,
    catalog: HashMap<String, CatalogVariant>,
    profiles: Vec<Profile>,
    pending: Vec<JournalRow>,
    /// The profile asked for could not be opened; the sandbox was opened instead.
    fallback: Option<JobError>,
}

impl std::fmt::Debug for Boot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Boot")
            .field("desk", &self.desk)
            .field("fallback", &self.fallback)
            .finish_non_exhaustive()
    }
}

/// Each re-sent row's key and outcome.
pub type RowOutcomes = Vec<(String, Result<PaymentLink, CreateError>)>;

/// A background result.
pub enum Msg {
    /// A profile was opened (start-up or switch).
    Booted(Result<Box<Boot>, JobError>),
    /// A link creation ended.
    Created {
        /// The outcome.
        result: Result<PaymentLink, CreateError>,
        /// The journal's open rows after it.
        pending: Option<Vec<JournalRow>>,
    },
    /// The next order number.
    OrderNumber(Result<String, DeskError>),
    /// A link's detail (the background refresh, or the clerk's Refresh), with its request
    /// number.
    Detail(String, u64, Result<PaymentLink, DeskError>),
    /// A cancel's answer.
    Cancelled(String, u64, Result<PaymentLink, DeskError>),
    /// A card save's answer.
    CardSaved(Result<SavedCard, DeskError>),
    /// Installment options.
    Installments(Result<InstallmentList, DeskError>),
    /// A page of history.
    History {
        /// The filter it answers.
        filter: HistoryFilter,
        /// Whether it is the first page.
        first: bool,
        /// The links (display rows) and where the next page starts.
        result: Result<(Vec<HistoryRow>, Option<LinkCursor>), DeskError>,
        /// How many links the profile has in all (with the first page of an unfiltered list).
        total: Option<usize>,
    },
    /// A link of history, to show.
    HistoryLink(Result<StoredLink, DeskError>),
    /// The totals of a history filter.
    HistoryTotals(HistoryFilter, Result<LinkTotals, DeskError>),
    /// One link's answer to "Refresh statuses".
    StatusRefreshed(String, Result<PaymentLink, DeskError>),
    /// A CSV export ended: (links, path) or why not.
    Exported(Result<(usize, PathBuf), JobError>),
    /// A day report.
    Report((NaiveDate, NaiveDate), Result<DayReport, DeskError>),
    /// The journal's open rows.
    PendingRows(Result<Vec<JournalRow>, DeskError>),
    /// A Retry ended.
    Retried(
        String,
        Result<PaymentLink, CreateError>,
        Option<Vec<JournalRow>>,
    ),
    /// An Abandon ended.
    Abandoned(String, Result<Vec<JournalRow>, DeskError>),
    /// A re-send of every pending row ended (start-up, the connection back, or a probe while
    /// it is down).
    Resumed {
        /// The profile whose rows were sent (a switch meanwhile drops the answer).
        profile: String,
        /// Each row's key and outcome.
        result: Result<RowOutcomes, DeskError>,
        /// The journal's open rows after it.
        rows: Option<Vec<JournalRow>>,
    },
    /// A CSV preview or import ended (with the catalog after an import), or the file could not
    /// be read or the store failed.
    Csv(Result<(CsvOutcome, Option<HashMap<String, CatalogVariant>>), JobError>),
    /// A barcode edit of the Catalog view ended: the variant id, and the catalog after it or
    /// why it was not saved.
    BarcodeSaved(String, Result<HashMap<String, CatalogVariant>, JobError>),
    /// The QR PNG was written (or not).
    QrSaved(Result<PathBuf, JobError>),
    /// A link's slip (the link id first) was printed, saved for want of a printer, or neither
    /// (the reason).
    SlipPrinted(String, Result<Delivered, JobError>),
    /// Profiles changed (or a change failed).
    Profiles(Result<Vec<Profile>, JobError>),
    /// Whether a profile's secret is stored (or why that could not be told).
    Secret(String, Result<SecretStatus, JobError>),
    /// The open-links board's rows, read from the store.
    BoardRows {
        /// The profile they belong to (a switch meanwhile drops them).
        profile: String,
        /// The rows, newest first.
        result: Result<Vec<StoredLink>, DeskError>,
    },
    /// A paid alert went to the notifier (shown or not: the notifier logs a failure).
    Notified,
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Msg::Booted(_) => "Booted",
            Msg::Created { .. } => "Created",
            Msg::OrderNumber(_) => "OrderNumber",
            Msg::Detail(..) => "Detail",
            Msg::Cancelled(..) => "Cancelled",
            Msg::CardSaved(_) => "CardSaved",
            Msg::Installments(_) => "Installments",
            Msg::History { .. } => "History",
            Msg::HistoryLink(_) => "HistoryLink",
            Msg::HistoryTotals(..) => "HistoryTotals",
            Msg::StatusRefreshed(..) => "StatusRefreshed",
            Msg::Exported(_) => "Exported",
            Msg::Report(..) => "Report",
            Msg::PendingRows(_) => "PendingRows",
            Msg::Retried(..) => "Retried",
            Msg::Abandoned(..) => "Abandoned",
            Msg::Resumed { .. } => "Resumed",
            Msg::Csv(..) => "Csv",
            Msg::BarcodeSaved(..) => "BarcodeSaved",
            Msg::QrSaved(_) => "QrSaved",
            Msg::SlipPrinted(..) => "SlipPrinted",
            Msg::Profiles(_) => "Profiles",
            Msg::Secret(..) => "Secret",
            Msg::BoardRows { .. } => "BoardRows",
            Msg::Notified => "Notified",
        };
        f.write_str(name)
    }
}

impl App {
    /// Queues a background job whose result is a [`Msg`].
    pub(crate) fn spawn(&mut self, job: impl Future<Output = Msg> + Send + 'static) {
        let pending = self.worker.spawn(job);
        self.jobs.push(pending);
    }

    /// Opens the profile (start-up and switches), in the background.
    pub(crate) fn boot(&mut self) {
        self.connection = Connection::Connecting;
        let options = self.options.clone();
        let wanted = self.profile_name();
        let services = self.services.clone().or_else(|| options.services.clone());
        self.spawn(async move {
            let result =
                tokio::task::spawn_blocking(move || open_profile(&options, services, &wanted))
                    .await
                    .map_err(JobError::from)
                    .and_then(|r| r);
            Msg::Booted(result.map(Box::new))
        });
    }

    /// Counts the shown History filter's links again (after statuses changed).
    pub(crate) fn history_totals(&mut self) {
        let (Some(desk), Some(filter)) = (self.desk.clone(), self.history.loaded_filter.clone())
        else {
            return;
        };
        let zone = self.history.zone;
        self.spawn(async move {
            let (query, range) = history_query(&filter, zone);
            let r = desk.history_totals(&query, range);
            Msg::HistoryTotals(filter, r)
        });
    }

    /// Takes every result that has arrived.
    pub(crate) fn drain(&mut self) {
        let mut arrived = Vec::new();
        let mut lost = false;
        self.jobs.retain_mut(|p| match p.poll() {
            Polled::Ready(m) => {
                arrived.push(m);
                false
            }
            Polled::Running => true,
            Polled::Idle => false,
            Polled::Lost => {
                lost = true;
                false
            }
        });
        for m in arrived {
            self.on_msg(m);
        }
        if lost {
            let text = T::WorkerLost.get(self.saved.lang).to_owned();
            self.clear_busy();
            self.new_link.note = Some(SendNote::Error(Problem::plain(text.clone())));
            self.settings.busy = false;
            self.resend.running = false;
            self.refresher.lost();
            if let Some(s) = &mut self.shown {
                s.cancelling = false;
                s.polling = None;
                s.printing = false;
            }
            self.connection = Connection::Disconnected(text);
        }
    }

    fn lang(&self) -> Lang {
        self.saved.lang
    }

    /// Undoes the busy marks of the views whose jobs need the profile's desk or the store:
    /// when there is no desk to run them, and when the worker is lost.
    fn clear_busy(&mut self) {
        self.new_link.abort_busy();
        self.card.abort_busy();
        self.installments.abort_busy();
        self.history.abort_busy();
        self.report.abort_busy();
        self.catalog_view.abort_busy();
        self.pending.abort_busy();
        self.board.abort_busy();
    }

    fn note_call(&mut self, e: Option<&DeskError>) {
        // An answer of any kind (even a refusal) means the server is reachable.
        match e {
            Some(e) if e.is_unknown_outcome() => {
                self.connection = Connection::Disconnected(e.sentence(self.lang()));
            }
            _ => self.set_connected(),
        }
    }

    /// The server answered. Coming back from "not connected", the pending rows are sent again
    /// at the end of this frame.
    fn set_connected(&mut self) {
        if matches!(self.connection, Connection::Disconnected(_)) {
            self.resend.due = true;
        }
        self.connection = Connection::Connected;
    }

    /// What a link creation's outcome says about the connection.
    fn note_create(&mut self, result: &Result<PaymentLink, CreateError>) {
        match server_answered(result) {
            Some(true) => self.set_connected(),
            Some(false) => {
                if let Err(CreateError::Unknown { error, .. }) = result {
                    self.connection = Connection::Disconnected(error.sentence(self.lang()));
                }
            }
            None => {}
        }
    }

    /// The key of the request the New link form sent, while the form still shows its order.
    fn form_key(&self) -> Option<&str> {
        let key = self.new_link.sent_key.as_deref()?;
        (key.strip_prefix("link-") == Some(self.new_link.draft.order_number.trim())).then_some(key)
    }

    /// The outcome of the form's request, however it was sent (Create, Send again, Retry in
    /// Pending, or the background re-send): a link opens the result view with its QR, a
    /// refusal is said under the form (whose row is then failed, so the form is editable
    /// again), an unknown outcome keeps the form locked.
    fn form_answer(&mut self, result: Result<PaymentLink, CreateError>) {
        let lang = self.lang();
        self.new_link.sending = false;
        match result {
            Ok(link) => {
                self.new_link.server_expected = None;
                self.new_link.note = None;
                self.show_link(link, Origin::Created);
                self.history.invalidate();
                self.report.invalidate();
                // The customer waits for this QR: from Pending (where the clerk may have gone
                // to look), show it; other work in progress is not interrupted.
                if self.view == View::Pending {
                    self.view = View::NewLink;
                }
            }
            Err(CreateError::Rejected(e)) => {
                self.new_link.server_expected = e.expected_amount();
                self.new_link.note = Some(SendNote::Error(e.problem(lang)));
            }
            Err(CreateError::Unknown { error, .. }) => {
                self.new_link.note = Some(SendNote::Unknown(error.problem(lang)));
            }
            Err(CreateError::InProgress { .. }) => {
                self.new_link.note = Some(SendNote::AlreadyPending);
            }
            Err(e) => {
                self.new_link.note = Some(SendNote::Error(e.problem(lang)));
            }
        }
    }

    fn on_msg(&mut self, msg: Msg) {
        let lang = self.lang();
        match msg {
            Msg::Booted(Ok(boot)) => {
                let boot = *boot;
                self.saved.last_profile = Some(boot.desk.profile().name.clone());
                self.limits = boot.desk.limits();
                self.services = Some(boot.services);
                self.desk = Some(boot.desk);
                self.connection = match boot.fallback {
                    Some(e) => {
                        let problem = e.problem(lang);
                        let why = problem.sentence.clone();
                        // Said where the user asked for the profile, not only in a tooltip.
                        self.settings.note = Some(Note::Failed(problem));
                        Connection::Disconnected(why)
                    }
                    None => Connection::Connected,
                };
                self.set_catalog(boot.catalog);
                self.settings.profiles = boot.profiles.clone();
                self.profiles = boot.profiles;
                self.pending.rows = boot.pending;
                if let Some(order) = boot.order_number {
                    self.new_link.draft.order_number = order;
                }
                self.history.reset_keeping_filter();
                self.report.report = None;
                self.report.invalidate();
                // Resume the journal's pending rows of this profile.
                self.start_resend();
            }
            Msg::Booted(Err(e)) => {
                let why = e.problem(lang).sentence;
                self.connection =
                    Connection::Disconnected(format!("{}: {why}", T::StartFailed.get(lang)));
            }
            Msg::Created { result, pending } => {
                if let Some(rows) = pending {
                    self.pending.rows = rows;
                }
                if matches!(
                    result,
                    Err(CreateError::InProgress { .. }
                        | CreateError::Stale { .. }
                        | CreateError::AlreadyHasLink(_))
                ) {
                    // Nothing was journaled by this send: an open row of this order is not
                    // the form's to re-send.
                    self.new_link.sent_key = None;
                }
                self.note_create(&result);
                if let Ok(link) = &result {
                    self.link_made(link);
                }
                self.form_answer(result);
            }
            Msg::OrderNumber(Ok(n)) => self.new_link.draft.order_number = n,
            Msg::OrderNumber(Err(e)) => {
                self.new_link.note = Some(SendNote::Error(e.problem(lang)));
            }
            Msg::Detail(id, seq, result) => {
                self.note_call(result.as_ref().err());
                let now = self.options.clock.now();
                let heard = self.refresher.answered(&id, seq, result.as_ref().ok(), now);
                self.link_answered(&id, seq, result, heard.applied, false);
                if let Some(alert) = heard.alert {
                    self.alert(&alert);
                }
            }
            Msg::Cancelled(id, seq, result) => {
                self.note_call(result.as_ref().err());
                let now = self.options.clock.now();
                let heard = match &result {
                    Ok(link) => self.refresher.observe(link, seq, now),
                    Err(_) => crate::board::Heard::default(),
                };
                self.link_answered(&id, seq, result, heard.applied, true);
                if let Some(alert) = heard.alert {
                    self.alert(&alert);
                }
            }
            Msg::CardSaved(result) => {
                self.note_call(result.as_ref().err());
                self.card.sending = false;
                self.card.outcome = Some(match result {
                    Ok(card) => CardOutcome::Saved(Box::new(card)),
                    Err(e) if e.is_unknown_outcome() => CardOutcome::Unknown(e.problem(lang)),
                    Err(e) => CardOutcome::Error(e.problem(lang)),
                });
            }
            Msg::Installments(result) => {
                self.note_call(result.as_ref().err());
                self.installments.loading = false;
                self.installments.outcome = Some(match result {
                    Ok(list) => InstallmentOutcome::List(Box::new(list)),
                    Err(e) => InstallmentOutcome::Error(e.problem(lang)),
                });
            }
            Msg::History {
                filter,
                first,
                result,
                total,
            } => match result {
                Ok((rows, next)) => {
                    let exhausted = next.is_none();
                    self.history_next = next;
                    if first {
                        self.history.set_first_page(filter, rows, exhausted);
                        self.history.total = total;
                    } else if self.history.loaded_filter.as_ref() == Some(&filter) {
                        self.history.append_page(rows, exhausted);
                    } else {
                        self.history.loading = false;
                    }
                }
                Err(e) => {
                    self.history.loading = false;
                    self.history.loaded_filter = Some(filter);
                    self.history.error = Some(e.problem(lang));
                }
            },
            Msg::HistoryLink(Ok(stored)) => {
                self.show_link(stored.link, Origin::History);
                // A link cancelled here reads "Cancelled" when opened again, not "Expired".
                if let Some(shown) = &mut self.shown {
                    shown.cancelled = stored.cancelled_at.is_some();
                }
                self.view = View::History;
            }
            Msg::HistoryLink(Err(e)) => self.history.error = Some(e.problem(lang)),
            Msg::HistoryTotals(filter, result) => {
                self.history.totals = Some((filter, result.map_err(|e| e.problem(lang))));
            }
            Msg::StatusRefreshed(id, result) => {
                self.note_call(result.as_ref().err());
                let now = self.options.clock.now();
                let over =
                    self.history
                        .refreshed(&id, result.map_err(|e| e.problem(lang)), now, lang);
                if over {
                    // Paid amounts may have changed: count the filtered set again.
                    self.history_totals();
                    self.report.invalidate();
                }
            }
            Msg::Exported(result) => {
                self.history.exporting = false;
                self.history.note = Some(match result {
                    Ok((rows, path)) => Note::Done(format!(
                        "{rows} {} {}",
                        T::ExportedTo.get(lang),
                        path.display()
                    )),
                    Err(e) => Note::Failed(e.problem(lang)),
                });
            }
            Msg::Report(days, result) => {
                self.report
                    .set_report(days, result.map_err(|e| e.problem(lang)));
            }
            Msg::PendingRows(Ok(rows)) => self.pending.rows = rows,
            Msg::PendingRows(Err(e)) => self.pending.note = Some(Note::Failed(e.problem(lang))),
            Msg::Retried(key, result, rows) => {
                self.pending.busy.retain(|k| *k != key);
                if let Some(rows) = rows {
                    self.pending.rows = rows;
                }
                self.note_create(&result);
                if let Ok(link) = &result {
                    self.link_made(link);
                }
                self.pending.note = Some(match &result {
                    Ok(link) => {
                        self.history.invalidate();
                        let order = link.order_number.clone().unwrap_or_else(|| link.id.clone());
                        Note::Done(format!("{order}: {}", T::StateCompleted.get(lang)))
                    }
                    Err(e) => Note::Failed(e.problem(lang)),
                });
                if self.form_key() == Some(key.as_str()) {
                    self.form_answer(result);
                }
            }
            Msg::Abandoned(key, result) => {
                self.pending.busy.retain(|k| *k != key);
                match result {
                    Ok(rows) => self.pending.rows = rows,
                    Err(e) => self.pending.note = Some(Note::Failed(e.problem(lang))),
                }
            }
            Msg::Resumed {
                profile,
                result,
                rows,
            } => self.resumed(&profile, result, rows),
            Msg::Csv(result) => {
                self.catalog_view.busy = false;
                match result {
                    Ok((outcome, catalog)) => {
                        self.catalog_view.outcome = Some(outcome);
                        if let Some(c) = catalog {
                            self.set_catalog(c);
                        }
                    }
                    Err(e) => {
                        self.catalog_view.outcome = Some(CsvOutcome::Error(e.problem(lang)));
                    }
                }
            }
            Msg::BarcodeSaved(id, result) => {
                self.catalog_view.barcode_saving.remove(&id);
                match result {
                    Ok(catalog) => {
                        self.catalog_view.barcode_edits.remove(&id);
                        self.catalog_view.barcode_errors.remove(&id);
                        self.set_catalog(catalog);
                    }
                    Err(e) => {
                        let why = e.problem(lang).sentence;
                        self.catalog_view.barcode_errors.insert(id, why);
                    }
                }
            }
            Msg::QrSaved(result) => {
                if let Some(s) = &mut self.shown {
                    s.note = Some(match result {
                        Ok(path) => {
                            Note::Done(format!("{} {}", T::SavedTo.get(lang), path.display()))
                        }
                        Err(e) => Note::Failed(e.problem(lang)),
                    });
                }
            }
            Msg::SlipPrinted(id, result) => {
                if let Some(s) = self.shown.as_mut().filter(|s| s.link.id == id) {
                    s.printing = false;
                    s.note = Some(match result {
                        Ok(Delivered::Printed { printer }) => {
                            Note::Done(format!("{} {printer}", T::SlipPrinted.get(lang)))
                        }
                        Ok(Delivered::Saved(path)) => {
                            Note::Done(format!("{} {}", T::SlipSaved.get(lang), path.display()))
                        }
                        Err(e) => Note::Failed(e.problem(lang)),
                    });
                }
            }
            Msg::Profiles(result) => {
                self.settings.busy = false;
                match result {
                    Ok(list) => {
                        self.settings.profiles = list.clone();
                        self.profiles = list;
                        self.settings.form = None;
                        self.settings.note = Some(Note::Done(T::Saved.get(lang).to_owned()));
                    }
                    Err(e) => self.settings.note = Some(Note::Failed(e.problem(lang))),
                }
            }
            Msg::Secret(profile, status) => {
                self.settings.busy = false;
                let status =
                    status.unwrap_or_else(|e| SecretStatus::Failed(e.problem(lang).sentence));
                self.settings.secrets.insert(profile, status);
            }
            Msg::BoardRows { profile, result } => self.board_rows(&profile, result),
            Msg::Notified => {}
        }
    }

    /// Sends every pending row of the profile again, in the background (the desk's resume:
    /// the retry policy's backoff per row; a row another request is driving is skipped).
    pub(crate) fn start_resend(&mut self) {
        let Some(desk) = self.desk.clone() else {
            return;
        };
        self.resend.running = true;
        self.resend.due = false;
        self.resend.next = None;
        let profile = desk.profile().name.clone();
        self.spawn(async move {
            let result = desk.resume_pending().await;
            let rows = desk.pending().ok();
            Msg::Resumed {
                profile,
                result,
                rows,
            }
        });
    }

    /// A background re-send ended: each row's outcome goes where it belongs (the form's order
    /// to the form), and the connection and the next try follow from whether anything answered.
    fn resumed(
        &mut self,
        profile: &str,
        result: Result<RowOutcomes, DeskError>,
        rows: Option<Vec<JournalRow>>,
    ) {
        if self.desk.as_ref().map(|d| d.profile().name.as_str()) != Some(profile) {
            return;
        }
        let lang = self.lang();
        self.resend.running = false;
        if let Some(rows) = rows {
            self.pending.rows = rows;
        }
        let outcomes = match result {
            Ok(outcomes) => outcomes,
            Err(e) => {
                self.pending.note = Some(Note::Failed(e.problem(lang)));
                self.resend_later();
                return;
            }
        };
        let mut silent = None;
        let mut answered = false;
        for (key, outcome) in outcomes {
            // Another request of this app is sending the row; its own answer will come.
            if matches!(outcome, Err(CreateError::InProgress { .. })) {
                continue;
            }
            match (server_answered(&outcome), &outcome) {
                (Some(false), Err(CreateError::Unknown { error, .. })) => {
                    silent = Some(error.sentence(lang));
                }
                (Some(true), _) => answered = true,
                _ => {}
            }
            if let Ok(link) = &outcome {
                self.link_made(link);
                self.history.invalidate();
                let order = link.order_number.clone().unwrap_or_else(|| link.id.clone());
                self.pending.note = Some(Note::Done(format!(
                    "{order}: {}",
                    T::StateCompleted.get(lang)
                )));
            }
            if self.form_key() == Some(key.as_str()) {
                self.form_answer(outcome);
            }
        }
        // Set directly: this answer must not count as "the connection came back" and start
        // another re-send at once.
        if let Some(why) = silent {
            self.connection = Connection::Disconnected(why);
            self.resend_later();
        } else {
            if answered {
                self.connection = Connection::Connected;
            }
            self.resend.interval = self.options.resend_first;
            self.resend.next = None;
        }
    }

    /// The board's rows arrived: the refresh follows their open links (a row the store
    /// changed since, say by the command line, may alert), the view shows them.
    fn board_rows(&mut self, profile: &str, result: Result<Vec<StoredLink>, DeskError>) {
        let now = self.options.clock.now();
        if self.desk.as_ref().map(|d| d.profile().name.as_str()) != Some(profile) {
            self.board.loading = false;
            return;
        }
        match result {
            Ok(rows) => {
                let alerts = self
                    .refresher
                    .sync_board(rows.iter().map(|s| (&s.link, s.updated_at)), now);
                self.board.set_rows(profile, rows, now);
                for alert in alerts {
                    self.alert(&alert);
                }
            }
            Err(e) => {
                self.board.loading = false;
                self.board.loaded_at = Some(now);
                self.board.error = Some(e.problem(self.lang()));
            }
        }
    }

    /// The server still does not answer: try again after twice the last wait (capped).
    fn resend_later(&mut self) {
        self.resend.interval = (self.resend.interval * 2).min(self.options.resend_max);
        self.resend.next = Some(Instant::now() + self.resend.interval);
    }

    /// Starts a background re-send when one is due: at once when the connection has come back,
    /// on the backoff while it is down. Asks for a repaint when the next one will be due, so an
    /// idle window wakes for it and for nothing else.
    pub(crate) fn schedule_resend(&mut self) {
        if self.resend.running
            || self.desk.is_none()
            || self.new_link.sending
            || !self.pending.busy.is_empty()
        {
            return;
        }
        let now = self.options.clock.now();
        let open = self
            .pending
            .rows
            .iter()
            .any(|r| r.state == JournalState::Pending && !r.is_stale_at(now));
        if !open {
            self.resend.due = false;
            self.resend.next = None;
            self.resend.interval = self.options.resend_first;
            return;
        }
        if self.resend.due {
            self.start_resend();
            return;
        }
        if !matches!(self.connection, Connection::Disconnected(_)) {
            self.resend.next = None;
            return;
        }
        let at = Instant::now();
        if self.resend.next.is_none() {
            self.resend.next = Some(at + self.resend.interval);
            // Draw the planned time now rather than when it is due.
            self.ctx.request_repaint();
        }
        let next = self.resend.next.unwrap_or(at);
        if next <= at {
            self.start_resend();
        } else {
            self.ctx.request_repaint_after(next - at);
        }
    }

    /// Shows a link in the result view. Its refresh is the background refresh's, on the
    /// shown link's pace (see `schedule_board`).
    fn show_link(&mut self, link: PaymentLink, origin: Origin) {
        self.shown = Some(ShownLink::new(link, origin));
    }

    /// Numbers a link-detail or cancel request.
    fn next_seq(&mut self) -> u64 {
        self.request_seq += 1;
        self.request_seq
    }

    /// A link was made (a create, a retry, a background re-send): the refresh follows it and
    /// the board reads its rows again.
    fn link_made(&mut self, link: &PaymentLink) {
        let now = self.options.clock.now();
        let seq = self.next_seq();
        if let Some(alert) = self.refresher.observe(link, seq, now).alert {
            self.alert(&alert);
        }
        self.board.stale = true;
    }

    /// A detail or cancel answer (request number `seq`) about a link: into the board's row
    /// when the refresher took it as the newest (`applied`), and into the result view when it
    /// shows that link.
    fn link_answered(
        &mut self,
        id: &str,
        seq: u64,
        result: Result<PaymentLink, DeskError>,
        applied: bool,
        cancel: bool,
    ) {
        let lang = self.lang();
        if let Ok(link) = &result
            && applied
            && self.board.apply(link)
        {
            self.history.invalidate();
        }
        let Some(shown) = &mut self.shown else {
            return;
        };
        if shown.link.id != id {
            return;
        }
        let link = match result {
            Ok(link) => Some(link),
            Err(e) => {
                shown.note = Some(Note::Failed(e.problem(lang)));
                None
            }
        };
        if shown.take_answer(seq, cancel, link).changed {
            self.history.invalidate();
        }
    }

    /// Sends a paid alert to the desktop, off the UI thread. A missing notification service
    /// is the notifier's to log; the board shows the payment either way.
    fn alert(&mut self, alert: &Alert) {
        tracing::info!(link = %alert.id, kind = ?alert.kind, "payment alert");
        let notice = notice_for(alert, self.lang(), self.saved.alert_sound);
        let notifier = Arc::clone(&self.options.notifier);
        self.spawn(async move {
            let _ = tokio::task::spawn_blocking(move || notifier.notify(&notice)).await;
            Msg::Notified
        });
    }

    /// The background refresh, after each frame: reads the board's rows again when they are
    /// out of date, sends the one link-detail request the refresher says is due (one at a
    /// time, at most one a second), and asks for a repaint when the next one or the next
    /// change of a figure on screen is due. Nothing due, nothing open: no repaint at all.
    pub(crate) fn schedule_board(&mut self) {
        let Some(desk) = self.desk.clone() else {
            return;
        };
        let now = self.options.clock.now();
        let profile = desk.profile().name.clone();
        let shown = self.shown.as_ref().map(|s| &s.link);
        if self.refresher.focused() != shown.map(|l| l.id.as_str()) {
            self.refresher.focus(shown, now);
        }
        if self.board.needs_reload(&profile, now) {
            self.board.stale = false;
            self.board.loading = true;
            let reader = desk.clone();
            self.spawn(async move {
                let result = reader.board_links();
                Msg::BoardRows { profile, result }
            });
        }
        let mut wake = self.board.next_change;
        match self.refresher.next(now) {
            Next::Ask(id) => {
                let seq = self.next_seq();
                if let Some(shown) = &mut self.shown
                    && shown.link.id == id
                {
                    shown.polling = Some(seq);
                }
                self.spawn(async move {
                    let r = desk.poll_link(&id).await;
                    Msg::Detail(id, seq, r)
                });
            }
            Next::At(at) => wake = Some(wake.map_or(at, |w| w.min(at))),
            Next::Waiting | Next::Idle => {}
        }
        if let Some(at) = wake {
            self.ctx
                .request_repaint_after((at - now).to_std().unwrap_or_default());
        }
    }

    /// Runs the commands the views emitted this frame.
    pub(crate) fn run_commands(&mut self) {
        for command in std::mem::take(&mut self.commands) {
            self.run(command);
        }
    }

    fn run(&mut self, command: Command) {
        tracing::debug!(command = command.name(), "command");
        let lang = self.lang();
        match command {
            Command::Navigate(v) => {
                // Links may have changed since the report was made.
                if v == View::Report && self.view != View::Report {
                    self.report.invalidate();
                }
                // Opening the board reads its rows again (links the command line made).
                if v == View::Board {
                    self.board.stale = true;
                }
                self.view = v;
            }
            Command::ShowBoardLink(id) => {
                if let Some(row) = self.board.rows.iter().find(|r| r.link.id == id) {
                    let link = row.link.clone();
                    self.show_link(link, Origin::Board);
                    self.view = View::Board;
                }
            }
            Command::CopyText(text) => self.ctx.copy_text(text),
            Command::OpenUrl(url) => self.ctx.open_url(egui::OpenUrl::new_tab(url)),
            Command::CustomerDisplay { open, fullscreen } => {
                self.customer.open = open;
                self.customer.fullscreen = open && fullscreen;
            }
            Command::CloseShownLink => {
                self.shown = None;
                self.customer.open = false;
            }
            Command::SaveQrPng { url, name } => {
                self.spawn(async move {
                    let r = tokio::task::spawn_blocking(move || save_qr_png(&url, &name))
                        .await
                        .map_err(JobError::from)
                        .and_then(|r| r);
                    Msg::QrSaved(r)
                });
            }
            Command::PrintSlip(link) => {
                let id = link.id.clone();
                let Some(slip) = Slip::of_link(&link, &self.saved.merchant_name, lang) else {
                    return;
                };
                if let Some(s) = self.shown.as_mut().filter(|s| s.link.id == id) {
                    s.printing = true;
                    s.note = Some(Note::Done(T::Printing.get(lang).to_owned()));
                }
                let paper = self.saved.slip_paper;
                let sink = self.options.slip_sink.clone();
                self.spawn(async move {
                    let r = tokio::task::spawn_blocking(move || print_slip(&slip, paper, &sink))
                        .await
                        .map_err(JobError::from)
                        .and_then(|r| r);
                    Msg::SlipPrinted(id, r)
                });
            }
            Command::SetBarcode {
                variant_id,
                barcode,
            } => {
                let Some(services) = self.services.clone() else {
                    self.catalog_view.barcode_saving.remove(&variant_id);
                    return;
                };
                self.spawn(async move {
                    let id = variant_id.clone();
                    let saved = tokio::task::spawn_blocking(move || {
                        services
                            .with_store_locked(|s| {
                                s.catalog_set_barcode(&variant_id, barcode.as_ref())?;
                                s.catalog_map()
                            })
                            .map_err(JobError::from)
                    })
                    .await
                    .map_err(JobError::from)
                    .and_then(|r| r);
                    Msg::BarcodeSaved(id, saved)
                });
            }
            Command::SwitchProfile(name) => {
                self.options.profile = Some(name);
                self.desk = None;
                self.resend = super::Resend {
                    running: false,
                    due: false,
                    next: None,
                    interval: self.options.resend_first,
                };
                self.new_link.sent_key = None;
                self.shown = None;
                self.customer.open = false;
                self.view = View::NewLink;
                self.refresher.reset();
                self.board.clear();
                self.boot();
            }
            Command::SaveProfile { profile, existing } => {
                let Some(services) = self.services.clone() else {
                    return;
                };
                self.spawn(async move {
                    let now = services.clock().now();
                    let r = services
                        .with_store_locked(|s| {
                            if existing {
                                s.profile_update(&profile, now)?;
                            } else {
                                s.profile_add(&profile, now)?;
                            }
                            s.profile_list()
                        })
                        .map_err(JobError::from);
                    Msg::Profiles(r)
                });
            }
            Command::RemoveProfile(name) => {
                let Some(services) = self.services.clone() else {
                    return;
                };
                self.spawn(async move {
                    let r = services
                        .with_store_locked(|s| {
                            s.profile_remove(&name)?;
                            s.profile_list()
                        })
                        .map_err(JobError::from);
                    Msg::Profiles(r)
                });
            }
            Command::StoreSecret {
                profile,
                api_key,
                secret,
            } => {
                let secrets = Arc::clone(&self.options.secrets);
                self.spawn(async move {
                    let name = profile.clone();
                    let status = tokio::task::spawn_blocking(move || {
                        let r = crate::secrets::SecretStore::set(
                            &*secrets, &profile, &api_key, &secret,
                        );
                        drop(secret);
                        secret_status(r.map(|()| true), secrets.unavailable())
                    })
                    .await
                    .map_err(JobError::from)
                    .and_then(|r| r);
                    Msg::Secret(name, status)
                });
            }
            Command::CheckSecret { profile, api_key } => {
                let secrets = Arc::clone(&self.options.secrets);
                self.settings
                    .secrets
                    .insert(profile.clone(), crate::ui::settings::SecretStatus::Checking);
                self.spawn(async move {
                    let name = profile.clone();
                    let status = tokio::task::spawn_blocking(move || {
                        let r = crate::secrets::SecretStore::get(&*secrets, &profile, &api_key)
                            .map(|s| s.is_some());
                        secret_status(r, secrets.unavailable())
                    })
                    .await
                    .map_err(JobError::from)
                    .and_then(|r| r);
                    Msg::Secret(name, status)
                });
            }
            other => self.run_desk(other),
        }
    }

    /// Commands that need the profile's desk.
    fn run_desk(&mut self, command: Command) {
        let Some(desk) = self.desk.clone() else {
            // Not connected yet: undo the views' busy marks so the user can try again.
            self.clear_busy();
            return;
        };
        let command_name = command.name();
        let lang = self.lang();
        match command {
            Command::CreateLink(request) => {
                self.spawn(async move {
                    let result = desk.create_link(&request).await;
                    let pending = desk.pending().ok();
                    Msg::Created { result, pending }
                });
            }
            Command::NewLink => {
                // No order number until the next one arrives: the last one may be pending.
                self.new_link.reset(String::new());
                self.shown = None;
                self.customer.open = false;
                self.spawn(async move { Msg::OrderNumber(desk.next_order_number()) });
            }
            Command::RefreshLink(id) => {
                // Through the refresh's schedule: due now, still one request at a time.
                self.refresher.hurry(&id, self.options.clock.now());
            }
            Command::CancelLink(id) => {
                let seq = self.next_seq();
                let Some(shown) = &mut self.shown else {
                    return;
                };
                shown.cancelling = true;
                self.spawn(async move {
                    let r = desk.cancel_link(&id).await;
                    Msg::Cancelled(id, seq, r)
                });
            }
            Command::SaveCard(request) => {
                self.spawn(async move {
                    let r = desk.save_card(&request).await;
                    drop(request);
                    Msg::CardSaved(r)
                });
            }
            Command::ListInstallments(query) => {
                self.spawn(async move { Msg::Installments(desk.installments(&query).await) });
            }
            Command::SearchHistory(filter) => {
                self.history_next = None;
                let services = self.services.clone();
                let zone = self.history.zone;
                self.history.totals = None;
                let totals_desk = desk.clone();
                let totals_filter = filter.clone();
                self.spawn(async move {
                    let (query, range) = history_query(&totals_filter, zone);
                    let r = totals_desk.history_totals(&query, range);
                    Msg::HistoryTotals(totals_filter, r)
                });
                self.spawn(async move {
                    let mut msg = history_page(&desk, filter, None, zone, lang);
                    if let (Msg::History { filter, total, .. }, Some(services)) =
                        (&mut msg, services)
                        && *filter == HistoryFilter::default()
                    {
                        let profile = desk.profile().name.clone();
                        *total = services.with_store_locked(|s| s.count_links(&profile)).ok();
                    }
                    msg
                });
            }
            Command::MoreHistory => {
                let (Some(filter), Some(next)) = (
                    self.history.loaded_filter.clone(),
                    self.history_next.clone(),
                ) else {
                    self.history.loading = false;
                    return;
                };
                let zone = self.history.zone;
                self.spawn(async move { history_page(&desk, filter, Some(next), zone, lang) });
            }
            Command::ShowHistoryLink(id) => {
                self.spawn(async move { Msg::HistoryLink(desk.history_entry(&id)) });
            }
            Command::RefreshStatuses(ids) => {
                // One detail request a second at most: the n-th waits n seconds, then asks.
                for (i, id) in ids.into_iter().enumerate() {
                    let desk = desk.clone();
                    let wait = STATUS_REFRESH_GAP * u32::try_from(i).unwrap_or(u32::MAX);
                    self.spawn(async move {
                        tokio::time::sleep(wait).await;
                        let r = desk.link_detail(&id).await;
                        Msg::StatusRefreshed(id, r)
                    });
                }
            }
            Command::ExportHistory(filter) => {
                let zone = self.history.zone;
                let dir = self.export_dir.clone();
                let now = self.options.clock.now();
                self.spawn(async move {
                    let r = tokio::task::spawn_blocking(move || {
                        export_history(&desk, &filter, zone, dir, now)
                    })
                    .await
                    .map_err(JobError::from)
                    .and_then(|r| r);
                    Msg::Exported(r)
                });
            }
            Command::LoadReport { first, last, zone } => {
                self.spawn(async move {
                    let r = tokio::task::spawn_blocking(move || desk.day_report(first, last, zone))
                        .await
                        .unwrap_or_else(|e| Err(DeskError::Sandbox(e.to_string())));
                    Msg::Report((first, last), r)
                });
            }
            Command::RetryPending { key, force } => {
                self.spawn(async move {
                    let r = desk.retry_pending(&key, force).await;
                    let rows = desk.pending().ok();
                    Msg::Retried(key, r, rows)
                });
            }
            Command::AbandonPending(key) => {
                self.spawn(async move {
                    let r = desk.abandon_pending(&key).and_then(|()| desk.pending());
                    Msg::Abandoned(key, r)
                });
            }
            Command::CatalogPreview(path) => self.catalog_csv(path, false),
            Command::CatalogImport(path) => self.catalog_csv(path, true),
            // Run by `run` without a desk; listed so that a new command cannot fall through.
            Command::Navigate(_)
            | Command::ShowBoardLink(_)
            | Command::CopyText(_)
            | Command::OpenUrl(_)
            | Command::CustomerDisplay { .. }
            | Command::CloseShownLink
            | Command::SaveQrPng { .. }
            | Command::PrintSlip(_)
            | Command::SetBarcode { .. }
            | Command::SwitchProfile(_)
            | Command::SaveProfile { .. }
            | Command::RemoveProfile(_)
            | Command::StoreSecret { .. }
            | Command::CheckSecret { .. } => {
                tracing::warn!(command = command_name, "not a desk command");
            }
        }
    }

    fn catalog_csv(&mut self, path: String, import: bool) {
        let Some(services) = self.services.clone() else {
            self.catalog_view.busy = false;
            return;
        };
        self.spawn(async move {
            // At most the catalog limit, read before the store is locked.
            let bytes = match crate::store::read_catalog_file(std::path::Path::new(&path)) {
                Ok(b) => b,
                Err(crate::store::StoreError::Io { source, .. }) => {
                    return Msg::Csv(Err(JobError::file(&path)(source)));
                }
                Err(e) => return Msg::Csv(Err(JobError::from(DeskError::from(e)))),
            };
            let r = if import {
                services.with_store_locked(|s| {
                    let done: CsvImport = s.catalog_import_csv(&bytes[..])?;
                    let map = s.catalog_map()?;
                    Ok((CsvOutcome::Imported(done), Some(map)))
                })
            } else {
                services.with_store_locked(|s| {
                    let parsed: CsvParsed = s.catalog_preview_csv(&bytes[..])?;
                    Ok((CsvOutcome::Preview(parsed), None))
                })
            };
            Msg::Csv(r.map_err(JobError::from))
        });
    }
}

/// Opens the services (once) and the desk of `wanted`; falls back to the sandbox when the
/// profile cannot be opened (no secret, bad URL), saying why.
fn open_profile(
    options: &super::AppOptions,
    services: Option<Arc<Services>>,
    wanted: &str,
) -> Result<Boot, JobError> {
    let services = if let Some(s) = services {
        s
    } else {
        let dir = options
            .data_dir
            .clone()
            .or_else(crate::store::default_data_dir)
            .ok_or(JobError::NoDataFolder)?;
        let env = options.env_secret.value();
        let secrets = Arc::clone(&options.secrets);
        std::fs::create_dir_all(&dir).map_err(JobError::file(&dir))?;
        Arc::new(Services::open(
            &dir,
            secrets,
            Arc::clone(&options.clock),
            env,
        )?)
    };
    let (desk, fallback) = match services.desk(wanted) {
        Ok(d) => (d, None),
        Err(e) if wanted != SANDBOX_PROFILE => (services.desk(SANDBOX_PROFILE)?, Some(e.into())),
        Err(e) => return Err(e.into()),
    };
    let order_number = desk.next_order_number().ok();
    let catalog = desk.catalog().unwrap_or_default();
    let profiles = services
        .with_store_locked(|s| s.profile_list())
        .unwrap_or_default();
    let pending = desk.pending().unwrap_or_default();
    Ok(Boot {
        services,
        desk,
        order_number,
        catalog,
        profiles,
        pending,
        fallback,
    })
}

/// Whether the server answered a link creation: `Some(true)` for a link or any answer (a
/// refusal, a conflict, an answer after an earlier unknown attempt), `Some(false)` for no
/// answer at all, `None` when the outcome was decided locally (nothing sent).
fn server_answered(result: &Result<PaymentLink, CreateError>) -> Option<bool> {
    match result {
        Ok(_) | Err(CreateError::Rejected(_) | CreateError::Conflict { .. }) => Some(true),
        Err(CreateError::Unknown { error, .. }) => {
            // An answer that left the row pending (a 401 after a lost one, a redirect) is still
            // an answer; no answer at all, a 5xx or a 429 is not.
            Some(error.disposition(Prior::AfterUnknown) != Disposition::Unknown)
        }
        Err(_) => None,
    }
}

/// The store's query and date range of a History filter.
fn history_query(filter: &HistoryFilter, zone: Zone) -> (LinkQuery, Option<TimeRange>) {
    let query = LinkQuery {
        text: Some(filter.text.trim().to_owned()).filter(|t| !t.is_empty()),
        status: filter.status.clone(),
        limit: PAGE,
        before: None,
    };
    (query, TimeRange::between(filter.from, filter.to, zone))
}

fn history_page(
    desk: &Desk,
    filter: HistoryFilter,
    before: Option<LinkCursor>,
    zone: Zone,
    lang: Lang,
) -> Msg {
    let first = before.is_none();
    let (mut query, range) = history_query(&filter, zone);
    query.before = before;
    let result = desk.history_in(&query, range).map(|page| {
        let rows = page
            .links
            .iter()
            .map(|l| HistoryRow::of_stored(l, lang))
            .collect();
        (rows, page.next)
    });
    Msg::History {
        filter,
        first,
        result,
        total: None,
    }
}

/// What the settings show for a secret: stored, missing, or kept for this run only because
/// there is no keyring; a keyring that failed otherwise is the job's error.
fn secret_status(
    r: Result<bool, SecretError>,
    unavailable: Option<String>,
) -> Result<SecretStatus, JobError> {
    match (r, unavailable) {
        (Ok(_), Some(why)) | (Err(SecretError::Unavailable(why)), _) => {
            Ok(SecretStatus::NoKeyring(why))
        }
        (Ok(true), None) => Ok(SecretStatus::Stored),
        (Ok(false), None) => Ok(SecretStatus::Missing),
        (Err(e), _) => Err(e.into()),
    }
}

/// Lays out the slip and prints it on the default printer, else saves it beside the PNGs.
fn print_slip(slip: &Slip, paper: Paper, sink: &SlipSink) -> Result<Delivered, JobError> {
    let pdf = crate::slip::render(slip, paper)?;
    Ok(sink.deliver(&pdf, &slip.order_number)?)
}

/// Writes the History links matching `filter` as CSV into `dir` (else where QR PNGs go),
/// named after the local time; returns how many links and the path.
fn export_history(
    desk: &Desk,
    filter: &HistoryFilter,
    zone: Zone,
    dir: Option<PathBuf>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(usize, PathBuf), JobError> {
    let dir = match dir {
        Some(d) => d,
        None => crate::printer::save_folder().ok_or(JobError::NoSaveFolder)?,
    };
    let stamp = zone.local(now).format("%Y%m%d-%H%M%S");
    let path = dir.join(format!("paydesk-history-{stamp}.csv"));
    let file = crate::store::create_private_file(&path).map_err(JobError::file(&path))?;
    let (query, range) = history_query(filter, zone);
    let rows = desk.export_history_csv(&query, range, zone, file)?;
    Ok((rows, path))
}

/// Writes the QR of `url` as a PNG in the user's Downloads (or home) folder.
fn save_qr_png(url: &str, name: &str) -> Result<PathBuf, JobError> {
    let dir = crate::printer::save_folder().ok_or(JobError::NoSaveFolder)?;
    let path = dir.join(format!(
        "paydesk-qr-{}.png",
        crate::printer::file_safe(name)
    ));
    crate::qr::write_png(url, &path)?;
    Ok(path)
}
