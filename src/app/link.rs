//! A link: creating it from the New link form, the result view's actions (copy, QR file,
//! slip, share, refresh, cancel, customer display), and the answers about one link (its
//! detail from the background refresh, a cancel, a paid alert).

use std::sync::Arc;

use super::errors::JobError;
use super::msg::{Duty, LinkResult, Msg};
use super::{App, Connection, View};
use crate::api::error::{Disposition, Prior};
use crate::board::Alert;
use crate::domain::Link;
use crate::printer::{Delivered, SlipSink};
use crate::service::{CreateError, DeskError};
use crate::slip::{Paper, Slip};
use crate::ui::LinkCommand;
use crate::ui::board::notice_for;
use crate::ui::link_result::{Channel, Origin, ShownLink};
use crate::ui::problem::{Explain, Note};
use crate::ui::text::UiText;

impl App {
    /// Runs a link command.
    pub(crate) fn run_link(&mut self, command: LinkCommand, duty: &Duty) {
        let lang = self.lang();
        match command {
            LinkCommand::CopyText { text } => self.ctx.copy_text(text),
            LinkCommand::OpenUrl { url } => {
                let opener = self.options.opener.clone();
                self.spawn(duty, async move {
                    let result = tokio::task::spawn_blocking(move || opener.open(&url))
                        .await
                        .map_err(|e| e.to_string())
                        .and_then(|r| r.map_err(|e| e.to_string()));
                    Msg::Link(LinkResult::Opened { result })
                });
            }
            LinkCommand::CustomerDisplay { open, fullscreen } => {
                self.views.customer.on_asked(open, fullscreen);
            }
            LinkCommand::Send {
                id,
                via,
                lang: message_lang,
                reminder,
            } => self.send_link(id, via, (message_lang, reminder), duty),
            LinkCommand::Renew { id } => self.renew(id, duty),
            LinkCommand::Close => self.put_shown_away(),
            LinkCommand::SaveQrPng { url, name } => {
                let dialogs = self.options.file_dialogs.clone();
                let title = UiText::SaveQr.get(lang).to_owned();
                self.spawn(duty, async move {
                    let result = super::files::save_qr_png(&dialogs, &title, url, &name).await;
                    Msg::Link(LinkResult::QrSaved { result })
                });
            }
            LinkCommand::PrintSlip { link } => {
                let id = link.id.clone();
                let Some(slip) =
                    Slip::of_link_in(&link, &self.saved.merchant_name, lang, self.zone)
                else {
                    return;
                };
                if let Some(s) = self.views.shown.as_mut().filter(|s| s.link().id == id) {
                    s.on_printing(lang);
                }
                let paper = self.saved.slip_paper;
                let sink = self.options.slip_sink.clone();
                self.spawn(duty, async move {
                    let result =
                        tokio::task::spawn_blocking(move || print_slip(&slip, paper, &sink))
                            .await
                            .map_err(JobError::from)
                            .and_then(|r| r);
                    Msg::Link(LinkResult::SlipPrinted { id, result })
                });
            }
            LinkCommand::Create { request } => {
                let Some(desk) = self.desk_for(duty) else {
                    return;
                };
                self.perf_sent();
                self.spawn(duty, async move {
                    let result = desk.create_link(&request).await;
                    let pending = desk.pending().ok();
                    Msg::Link(LinkResult::Created { result, pending })
                });
            }
            LinkCommand::New => {
                if self.desk_for(duty).is_none() {
                    return;
                }
                self.put_shown_away();
                self.new_sale();
            }
            LinkCommand::Refresh { id } => {
                if self.desk_for(duty).is_none() {
                    return;
                }
                // Through the refresh's schedule: due now, still one request at a time.
                self.refresher.hurry(&id, self.options.clock.now());
            }
            LinkCommand::Cancel { id } => {
                let Some(desk) = self.desk_for(duty) else {
                    return;
                };
                let seq = self.next_seq();
                let Some(shown) = &mut self.views.shown else {
                    return;
                };
                shown.on_cancel_sent();
                self.spawn(duty, async move {
                    let result = desk.cancel_link(&id).await;
                    Msg::Link(LinkResult::Cancelled { id, seq, result })
                });
            }
        }
    }

    /// Takes a link result into the state.
    pub(crate) fn apply_link(&mut self, result: LinkResult) {
        let lang = self.lang();
        match result {
            LinkResult::Created { result, pending } => {
                self.perf_answered();
                if let Some(rows) = pending {
                    self.views.pending.on_rows(rows);
                }
                if matches!(
                    result,
                    Err(CreateError::InProgress { .. }
                        | CreateError::Stale { .. }
                        | CreateError::AlreadyHasLink(_))
                ) {
                    // Nothing was journaled by this send: an open row of this order is not
                    // the form's to re-send.
                    self.views.new_link.on_send_not_journaled();
                }
                self.note_create(&result);
                if let Ok(link) = &result {
                    self.link_made(link);
                }
                self.form_answer(result);
            }
            LinkResult::OrderNumber { result: Ok(n) } => self.views.new_link.on_order_number(n),
            LinkResult::OrderNumber { result: Err(e) } => {
                self.views.new_link.on_order_number_failed(&e, lang);
            }
            LinkResult::Detail { id, seq, result } => {
                self.note_call(result.as_ref().err());
                let now = self.options.clock.now();
                let heard = self.refresher.answered(&id, seq, result.as_ref().ok(), now);
                self.link_answered(&id, seq, result, heard.applied, false);
                if let Some(alert) = heard.alert {
                    self.alert(&alert);
                }
            }
            LinkResult::Cancelled {
                id,
                result: Err(DeskError::NeedsManager(_)),
                ..
            } => {
                // Not this clerk's own unpaid link: a manager's PIN may still cancel it.
                if let Some(s) = self.views.shown.as_mut().filter(|s| s.link().id == id) {
                    s.on_cancel_held();
                }
                self.hold(crate::app::Command::Link(LinkCommand::Cancel { id }));
            }
            LinkResult::Cancelled { id, seq, result } => {
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
            LinkResult::QrSaved { result } => {
                if let Some(s) = &mut self.views.shown {
                    s.on_qr_saved(match result {
                        Ok(Some((path, by_dialog))) => {
                            Some(Note::Done(super::files::saved_note(&path, by_dialog, lang)))
                        }
                        Ok(None) => None,
                        Err(e) => Some(Note::Failed(e.problem(lang))),
                    });
                }
            }
            LinkResult::SlipPrinted { id, result } => {
                if let Some(s) = self.views.shown.as_mut().filter(|s| s.link().id == id) {
                    s.on_printed(result, lang);
                }
            }
            LinkResult::Notified | LinkResult::Opened { result: Ok(()) } => {}
            LinkResult::MailPassed => self.on_mail_passed(),
            LinkResult::Sent { id, result } => {
                let words = result.map(|sent| match sent {
                    super::msg::Sent::Copy { text } => {
                        self.ctx.copy_text(text);
                        UiText::SentCopied.get(lang).to_owned()
                    }
                    super::msg::Sent::WhatsApp { to } => {
                        UiText::SentWhatsApp.fill(lang, &[("to", &to)])
                    }
                    super::msg::Sent::Email { to, waiting: None } => {
                        UiText::SentEmail.fill(lang, &[("to", &to)])
                    }
                    super::msg::Sent::Email {
                        to,
                        waiting: Some(why),
                    } => UiText::SentEmailWaiting.fill(lang, &[("to", &to), ("why", &why)]),
                });
                if let Some(s) = self.views.shown.as_mut().filter(|s| s.link().id == id) {
                    s.on_sent(words);
                }
            }
            LinkResult::Renewed { id, result } => self.renewed(&id, result),
            LinkResult::RenewalKnown { id, renewed_as } => {
                if let Some(s) = self.views.shown.as_mut().filter(|s| s.link().id == id) {
                    s.on_renewal_known(renewed_as);
                }
            }
            LinkResult::Opened {
                result: Err(detail),
            } => {
                tracing::warn!(%detail, "the desktop's opener did not take the address");
                if let Some(s) = &mut self.views.shown {
                    s.on_open_failed(detail, lang);
                }
            }
        }
    }

    /// Empties the form for the next sale (keeping its currency) and asks for the next order
    /// number. No order number until it arrives: the last one may be pending.
    pub(crate) fn new_sale(&mut self) {
        self.views.new_link.reset(String::new());
        let duty = self.own_duty();
        let Some(desk) = self.desk_for(&duty) else {
            return;
        };
        self.spawn(&duty, async move {
            Msg::Link(LinkResult::OrderNumber {
                result: desk.next_order_number(),
            })
        });
    }

    /// Puts the shown link away, and the customer display with it.
    pub(crate) fn put_shown_away(&mut self) {
        self.views.shown = None;
        self.views.customer.close();
    }

    /// What a link creation's outcome says about the connection.
    pub(crate) fn note_create(&mut self, result: &Result<Link, CreateError>) {
        match server_answered(result) {
            Some(true) => self.set_connected(),
            Some(false) => {
                if let Err(CreateError::Unknown { error, .. }) = result {
                    self.holds.connection = Connection::Disconnected(error.sentence(self.lang()));
                }
            }
            None => {}
        }
    }

    /// The key of the request the New link form sent, while the form still shows its order.
    pub(crate) fn form_key(&self) -> Option<&str> {
        self.views.new_link.sent_key()
    }

    /// The outcome of the form's request, however it was sent (Create, Send again, Retry in
    /// Pending, or the background re-send): a link opens the result view with its QR, a
    /// refusal is said under the form (whose row is then failed, so the form is editable
    /// again), an unknown outcome keeps the form locked.
    pub(crate) fn form_answer(&mut self, result: Result<Link, CreateError>) {
        let lang = self.lang();
        self.views.new_link.on_created(&result, lang);
        if let Ok(link) = result {
            self.show_link(link, Origin::Created);
            // The sale is made: however the clerk comes back to New link (the sidebar,
            // Open links, History, a sign-in), the form is the next sale's, never this
            // one's again with Create enabled.
            self.new_sale();
            self.views.history.invalidate();
            self.views.report.invalidate();
            // The customer waits for this QR: from Pending (where the clerk may have gone
            // to look), show it; other work in progress is not interrupted.
            if self.view == View::Pending {
                self.view = View::NewLink;
            }
        }
    }

    /// Shows a link in the result view. Its refresh is the background refresh's, on the
    /// shown link's pace (see `schedule_board`).
    /// A link that can no longer be paid and took nothing may have been renewed: its renewal
    /// is read (the shop's while joined) so the view says "Renewed as …" instead of offering
    /// "Send a new link" again.
    pub(crate) fn show_link(&mut self, link: Link, origin: Origin) {
        let over =
            link.status.is_final() || link.expiry.is_some_and(|e| e <= self.options.clock.now());
        let ask = over && link.paid_so_far().is_zero();
        let (id, order) = (link.id.clone(), link.order_or_id().to_owned());
        self.views.shown = Some(ShownLink::new(link, origin));
        if let (true, Some(desk)) = (ask, self.holds.desk.clone()) {
            let reads = self.reads(desk);
            let duty = self.own_duty();
            self.spawn(&duty, async move {
                let marks = reads
                    .renewal_marks(std::slice::from_ref(&id), &[order])
                    .await
                    .inspect_err(|e| tracing::warn!(error = %e, "a link's renewal was not read"))
                    .unwrap_or_default();
                let renewed_as = marks
                    .get(&id)
                    .and_then(|m| m.renewed_as.clone())
                    .map(|(o, _)| o);
                Msg::Link(LinkResult::RenewalKnown { id, renewed_as })
            });
        }
    }

    /// Numbers a link-detail or cancel request.
    pub(crate) fn next_seq(&mut self) -> u64 {
        self.request_seq += 1;
        self.request_seq
    }

    /// Sends link `id`'s message (its reminder with `reminder`) `via`, in `message_lang`, on
    /// the worker ([`super::send::SendJob`]).
    fn send_link(
        &mut self,
        id: String,
        via: crate::ui::command::SendVia,
        (message_lang, reminder): (crate::lang::Lang, bool),
        duty: &Duty,
    ) {
        let (Some(desk), Some(services)) = (self.desk_for(duty), self.holds.services.clone())
        else {
            return;
        };
        let job = super::send::SendJob {
            reads: self.reads(desk.clone()),
            desk,
            services,
            actor: duty.actor.clone(),
            shop_name: self.saved.merchant_name.trim().to_owned(),
            zone: self.zone,
            opener: self.options.opener.clone(),
            env_smtp: self.options.env_smtp.value(),
            ui_lang: self.lang(),
        };
        self.spawn(duty, async move {
            let result = job.run(&id, via, message_lang, reminder).await;
            Msg::Link(LinkResult::Sent { id, result })
        });
    }

    /// "Send a new link": the renewal on the worker (through the shop's claim while joined).
    fn renew(&mut self, id: String, duty: &Duty) {
        let Some(desk) = self.desk_for(duty) else {
            return;
        };
        if let Some(s) = self.views.shown.as_mut().filter(|s| s.link().id == id) {
            s.on_renew_sent();
        }
        let lang = self.lang();
        let reads = self.reads(desk);
        self.spawn(duty, async move {
            let result = reads
                .renew(&id)
                .await
                .map(Box::new)
                .map_err(|e| e.sentence(lang));
            Msg::Link(LinkResult::Renewed { id, result })
        });
    }

    /// "Send a new link" ended: the new link shown where the old one was (from the same
    /// place), its Send form open on the channel the old one last went by; or why not, under
    /// the old one.
    fn renewed(&mut self, id: &str, result: Result<Box<crate::service::renew::Renewed>, String>) {
        let lang = self.lang();
        match result {
            Ok(renewed) => {
                let origin = self
                    .views
                    .shown
                    .as_ref()
                    .map_or(Origin::Board, ShownLink::origin);
                self.link_made(&renewed.link);
                let words = UiText::RenewedFrom.fill(
                    lang,
                    &[
                        ("order", &renewed.link.order_or_id()),
                        ("old", &renewed.original.order_or_id()),
                    ],
                );
                self.show_link(renewed.link, origin);
                if let Some(shown) = self.views.shown.as_mut() {
                    shown.note_done(words);
                    if let Some(last) = &renewed.last_sent {
                        let channel = match last.channel {
                            crate::service::SendChannel::Email => Channel::Email,
                            crate::service::SendChannel::WhatsApp => Channel::WhatsApp,
                        };
                        shown.open_send_by(channel, lang);
                    }
                }
                self.views.history.invalidate();
            }
            Err(sentence) => {
                if let Some(s) = self.views.shown.as_mut().filter(|s| s.link().id == id) {
                    s.on_renew_failed(sentence);
                }
            }
        }
    }

    /// A link was made (a create, a retry, a background re-send): the refresh follows it and
    /// the board reads its rows again.
    pub(crate) fn link_made(&mut self, link: &Link) {
        let now = self.options.clock.now();
        let seq = self.next_seq();
        if let Some(alert) = self.refresher.observe(link, seq, now).alert {
            self.alert(&alert);
        }
        self.views.board.read_again();
    }

    /// A detail or cancel answer (request number `seq`) about a link: into the board's row
    /// when the refresher took it as the newest (`applied`), and into the result view when it
    /// shows that link.
    pub(crate) fn link_answered(
        &mut self,
        id: &str,
        seq: u64,
        result: Result<Link, DeskError>,
        applied: bool,
        cancel: bool,
    ) {
        let lang = self.lang();
        if let Ok(link) = &result
            && applied
            && self.views.board.on_link(link)
        {
            self.views.history.invalidate();
        }
        let Some(shown) = &mut self.views.shown else {
            return;
        };
        if shown.link().id != id {
            return;
        }
        let link = match result {
            Ok(link) => Some(link),
            Err(e) => {
                shown.on_request_failed(e.problem(lang));
                None
            }
        };
        if shown.take_answer(seq, cancel, link).changed {
            self.views.history.invalidate();
        }
    }

    /// Sends a paid alert to the desktop, off the UI thread. A missing notification service
    /// is the notifier's to log; the board shows the payment either way.
    pub(crate) fn alert(&mut self, alert: &Alert) {
        if self.shop.made_elsewhere.contains(&alert.id) {
            return;
        }
        tracing::info!(link = %alert.id, kind = ?alert.kind, "payment alert");
        let notice = notice_for(alert, self.lang(), self.saved.alert_sound);
        let notifier = Arc::clone(&self.options.notifier);
        let duty = self.own_duty();
        self.spawn(&duty, async move {
            let _ = tokio::task::spawn_blocking(move || notifier.notify(&notice)).await;
            Msg::Link(LinkResult::Notified)
        });
    }

    /// The worker is gone: the result view's marks of requests out are undone.
    pub(crate) fn link_lost(&mut self, text: &str) {
        self.views.new_link.on_worker_lost(text);
        if let Some(s) = &mut self.views.shown {
            s.on_worker_lost();
        }
    }
}

/// Whether the server answered a link creation: `Some(true)` for a link or any answer (a
/// refusal, a conflict, an answer after an earlier unknown attempt), `Some(false)` for no
/// answer at all, `None` when the outcome was decided locally (nothing sent).
pub(crate) fn server_answered(result: &Result<Link, CreateError>) -> Option<bool> {
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

/// Lays out the slip and prints it on the default printer, else saves it beside the PNGs.
fn print_slip(slip: &Slip, paper: Paper, sink: &SlipSink) -> Result<Delivered, JobError> {
    let pdf = crate::slip::render(slip, paper)?;
    Ok(sink.deliver(&pdf, &slip.order_number)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Command;
    use crate::app::testing::{answers, app, link_request, make_link, only, run, settle};
    use crate::board::{AlertKind, Next};
    use crate::domain::{Currency, LinkStatus};
    use crate::notify::RecordingNotifier;
    use crate::ui::new_link::SendNote;
    use std::path::PathBuf;

    #[test]
    fn create_sends_the_request_and_its_link_opens_the_result_view() {
        let mut app = app();
        app.views.new_link.set_sending();
        let answer = only(run(
            &mut app,
            Command::Link(LinkCommand::Create {
                request: link_request("A-1", "125.50"),
            }),
        ));
        let Msg::Link(LinkResult::Created {
            result: Ok(link),
            pending,
        }) = &answer
        else {
            panic!("the sandbox makes the link: {answer:?}");
        };
        assert_eq!(link.order_number.as_deref(), Some("A-1"));
        assert_eq!(pending.as_ref().map(Vec::len), Some(0), "nothing left open");
        app.views.board.set_stale(false);
        app.on_msg(answer);
        assert!(!app.views.new_link.is_sending());
        let shown = app.views.shown.as_ref().expect("the result view shows it");
        assert_eq!(shown.origin(), Origin::Created);
        assert!(app.views.board.is_stale(), "the board reads its rows again");
    }

    #[test]
    fn new_clears_the_form_and_its_answer_is_the_next_order_number() {
        let mut app = app();
        make_link(&mut app, "A-1");
        app.views.customer.on_asked(true, false);
        let answer = only(run(&mut app, Command::Link(LinkCommand::New)));
        assert!(app.views.shown.is_none());
        assert!(!app.views.customer.is_open());
        assert_eq!(
            app.views.new_link.draft().order_number,
            "",
            "none until it arrives"
        );
        let Msg::Link(LinkResult::OrderNumber { result: Ok(next) }) = &answer else {
            panic!("a number: {answer:?}");
        };
        let next = next.clone();
        app.on_msg(answer);
        assert_eq!(app.views.new_link.draft().order_number, next);
    }

    #[test]
    fn new_link_in_the_sidebar_keeps_a_waiting_sale_and_leaves_one_that_is_over() {
        let mut app = app();
        make_link(&mut app, "A-1");
        app.run(Command::Navigate {
            view: crate::app::View::History,
        });
        app.run(Command::Navigate {
            view: crate::app::View::NewLink,
        });
        assert!(
            app.views.shown.is_some(),
            "a sale waiting for payment keeps its QR in front"
        );
        app.views.shown.as_mut().unwrap().link_mut().status = LinkStatus::Completed;
        app.views.customer.on_asked(true, false);
        app.run(Command::Navigate {
            view: crate::app::View::NewLink,
        });
        assert!(app.views.shown.is_none(), "a paid sale is not brought back");
        assert!(!app.views.customer.is_open());
        assert!(app.views.new_link.draft().amount.is_empty());
    }

    #[test]
    fn an_order_number_that_cannot_be_read_is_said_under_the_form() {
        let mut app = app();
        app.apply_link(LinkResult::OrderNumber {
            result: Err(DeskError::NoProfile("x".into())),
        });
        assert!(matches!(
            app.views.new_link.note(),
            Some(SendNote::Error(_))
        ));
    }

    #[test]
    fn copy_text_goes_to_the_window_system() {
        let mut app = app();
        app.run(Command::Link(LinkCommand::CopyText {
            text: "https://pay.example/l/1".into(),
        }));
        let commands = app.ctx.output(|o| o.commands.clone());
        assert!(
            commands.contains(&egui::OutputCommand::CopyText(
                "https://pay.example/l/1".into()
            )),
            "{commands:?}"
        );
        assert!(app.jobs.is_empty(), "no background work");
    }

    #[cfg(unix)]
    #[test]
    fn the_mail_share_goes_to_the_desktops_opener_and_a_failure_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let mut app = app();
        let (fake_xdg_open, record) = crate::opener::fake(dir.path(), 0);
        app.options.opener = fake_xdg_open;
        let link = make_link(&mut app, "A-1");
        let url = crate::ui::link_result::mailto(&link, crate::lang::Lang::En);
        let answer = only(run(
            &mut app,
            Command::Link(LinkCommand::OpenUrl { url: url.clone() }),
        ));
        app.on_msg(answer);
        let opened = std::fs::read_to_string(record).unwrap();
        assert_eq!(
            opened,
            format!("{url}\n"),
            "the opener got the whole mailto address"
        );
        assert!(app.views.shown.as_ref().unwrap().note().is_none());

        // No mail program: the clerk is told to copy the address instead.
        app.options.opener = crate::opener::fake(dir.path(), 3).0;
        let answer = only(run(&mut app, Command::Link(LinkCommand::OpenUrl { url })));
        app.on_msg(answer);
        let Some(Note::Failed(problem)) = &app.views.shown.as_ref().unwrap().note() else {
            panic!("the failure is said");
        };
        assert!(problem.sentence.contains("copy it"), "{problem:?}");
    }

    /// Sends link `id`'s message `via` in Turkish and applies the answer; the note it left.
    fn send(app: &mut App, id: &str, via: crate::ui::command::SendVia) -> Note {
        let answer = only(run(
            app,
            Command::Link(LinkCommand::Send {
                id: id.to_owned(),
                via,
                lang: crate::lang::Lang::Tr,
                reminder: false,
            }),
        ));
        app.on_msg(answer);
        app.views
            .shown
            .as_ref()
            .and_then(|s| s.note().cloned())
            .expect("the send is said")
    }

    #[cfg(unix)]
    #[test]
    fn whatsapp_opens_wa_me_with_the_message_and_audits_the_masked_number() {
        use crate::ui::command::SendVia;
        let dir = tempfile::tempdir().unwrap();
        let mut app = app();
        let (fake_xdg_open, record) = crate::opener::fake(dir.path(), 0);
        app.options.opener = fake_xdg_open;
        app.saved.merchant_name = "Kahve Dünyası".into();
        let link = make_link(&mut app, "A-1");
        let url = link.payment_url.clone().expect("a payment URL");

        // A number that is no mobile: refused naming the field; nothing opened or recorded.
        let refused = send(
            &mut app,
            &link.id,
            SendVia::WhatsApp {
                phone: "0212 123 45 67".into(),
            },
        );
        let Note::Failed(problem) = refused else {
            panic!("{refused:?}");
        };
        assert!(problem.sentence.starts_with("Phone number:"), "{problem:?}");
        assert!(!record.exists());

        let done = send(
            &mut app,
            &link.id,
            SendVia::WhatsApp {
                phone: "0532 123 45 67".into(),
            },
        );
        assert!(
            matches!(&done, Note::Done(words) if words.contains("0532 *** ** 67")),
            "{done:?}"
        );
        let opened = std::fs::read_to_string(&record).unwrap();
        assert!(
            opened.starts_with("https://wa.me/905321234567?text="),
            "{opened}"
        );
        assert!(
            opened.contains(&crate::domain::wire_format::percent_encode(&url)),
            "the exact payment URL travels in the message: {opened}"
        );
        assert!(
            !opened.contains("PAYDESK_"),
            "no secret reaches the opener: {opened}"
        );
        let services = app.holds.services.clone().expect("services");
        let audit = services
            .audit_list(&crate::service::AuditFilter {
                action: Some("link.send".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(audit.len(), 1, "{audit:?}");
        assert!(
            audit[0].subject.contains("whatsapp 0532 *** ** 67"),
            "{audit:?}"
        );
    }

    #[test]
    fn copy_message_puts_the_turkish_message_on_the_clipboard_and_email_needs_setting_up() {
        use crate::ui::command::SendVia;
        let mut app = app();
        app.saved.merchant_name = "Kahve Dünyası".into();
        let link = make_link(&mut app, "A-1");
        let done = send(&mut app, &link.id, SendVia::Copy);
        assert!(matches!(done, Note::Done(_)), "{done:?}");
        let copied = app.ctx.output(|o| o.commands.clone());
        let text = copied
            .iter()
            .find_map(|c| match c {
                egui::OutputCommand::CopyText(t) => Some(t.clone()),
                _ => None,
            })
            .expect("copied");
        assert!(text.starts_with("Kahve Dünyası"), "{text}");
        assert!(text.contains("125,50"), "{text}");
        assert!(text.contains(&link.payment_url.clone().unwrap()), "{text}");

        // No address on the link and none typed; then no account on this desk.
        let none = send(&mut app, &link.id, SendVia::Email { to: String::new() });
        assert!(
            matches!(&none, Note::Failed(p) if p.sentence.starts_with("E-mail address:")),
            "{none:?}"
        );
        let unset = send(
            &mut app,
            &link.id,
            SendVia::Email {
                to: "ayse@example.com".into(),
            },
        );
        assert!(
            matches!(&unset, Note::Failed(p) if p.sentence.contains("not set up")),
            "{unset:?}"
        );
    }

    #[test]
    fn save_qr_png_writes_the_file_and_says_where() {
        let mut app = app();
        make_link(&mut app, "A-1");
        let name = format!("handler-test-{}", std::process::id());
        let answer = only(run(
            &mut app,
            Command::Link(LinkCommand::SaveQrPng {
                url: "https://pay.example/l/1".into(),
                name,
            }),
        ));
        let Msg::Link(LinkResult::QrSaved { result }) = &answer else {
            panic!("{answer:?}");
        };
        if let Ok(Some((path, by_dialog))) = result {
            assert!(!by_dialog, "the handler tests have no dialog");
            assert!(path.exists());
            std::fs::remove_file(path).unwrap();
        }
        let ok = result.is_ok();
        app.on_msg(answer);
        let note = app.views.shown.as_ref().and_then(|s| s.note().cloned());
        assert_eq!(matches!(note, Some(Note::Done(_))), ok, "{note:?}");
        assert!(note.is_some());
    }

    #[test]
    fn print_slip_saves_the_slip_without_a_printer_and_says_where() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        let dir = tempfile::tempdir().unwrap();
        app.options.slip_sink = SlipSink {
            lpstat: "/nonexistent/lpstat".into(),
            lp: "/nonexistent/lp".into(),
            folder: Some(dir.path().to_owned()),
        };
        app.run(Command::Link(LinkCommand::PrintSlip {
            link: Box::new(link),
        }));
        assert!(app.views.shown.as_ref().unwrap().is_printing());
        let answer = only(answers(&mut app));
        let Msg::Link(LinkResult::SlipPrinted {
            result: Ok(Delivered::Saved(path)),
            ..
        }) = &answer
        else {
            panic!("saved for want of a printer: {answer:?}");
        };
        let path = path.clone();
        assert!(path.starts_with(dir.path()) && path.exists());
        app.on_msg(answer);
        let shown = app.views.shown.as_ref().unwrap();
        assert!(!shown.is_printing());
        assert!(
            matches!(&shown.note(), Some(Note::Done(t)) if t.contains(&path.display().to_string()))
        );
    }

    #[test]
    fn refresh_makes_the_shown_link_due_now() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        app.schedule_board();
        settle(&mut app);
        app.run(Command::Link(LinkCommand::Refresh {
            id: link.id.clone(),
        }));
        let now = app.options.clock.now();
        assert_eq!(app.refresher.next(now), Next::Ask(link.id));
    }

    #[test]
    fn cancel_sends_it_and_its_answer_shows_the_link_cancelled() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        app.run(Command::Link(LinkCommand::Cancel {
            id: link.id.clone(),
        }));
        assert!(app.views.shown.as_ref().unwrap().is_cancelling());
        let answer = only(answers(&mut app));
        assert!(
            matches!(&answer, Msg::Link(LinkResult::Cancelled { id, result: Ok(_), .. }) if *id == link.id),
            "{answer:?}"
        );
        app.on_msg(answer);
        let shown = app.views.shown.as_ref().unwrap();
        assert!(!shown.is_cancelling());
        assert!(shown.is_cancelled(), "it reads Cancelled, not Expired");
        assert_eq!(shown.link().status, LinkStatus::Expired);
    }

    #[test]
    fn close_leaves_the_result_view_and_the_customer_display() {
        let mut app = app();
        make_link(&mut app, "A-1");
        app.views.customer.on_asked(true, false);
        app.run(Command::Link(LinkCommand::Close));
        assert!(app.views.shown.is_none());
        assert!(!app.views.customer.is_open());
    }

    #[test]
    fn customer_display_opens_full_screen_only_while_open() {
        let mut app = app();
        app.run(Command::Link(LinkCommand::CustomerDisplay {
            open: true,
            fullscreen: true,
        }));
        assert!(app.views.customer.is_open() && app.views.customer.is_fullscreen());
        app.run(Command::Link(LinkCommand::CustomerDisplay {
            open: false,
            fullscreen: true,
        }));
        assert!(!app.views.customer.is_open() && !app.views.customer.is_fullscreen());
    }

    #[test]
    fn a_detail_that_failed_is_said_on_the_shown_link() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        let seq = app.next_seq();
        app.apply_link(LinkResult::Detail {
            id: link.id,
            seq,
            result: Err(DeskError::NoProfile("x".into())),
        });
        let shown = app.views.shown.as_ref().unwrap();
        assert!(matches!(shown.note(), Some(Note::Failed(_))));
    }

    #[test]
    fn a_saved_qr_is_said_with_its_path() {
        let mut app = app();
        make_link(&mut app, "A-1");
        app.apply_link(LinkResult::QrSaved {
            result: Ok(Some((PathBuf::from("/tmp/paydesk-qr-A-1.png"), true))),
        });
        let note = app.views.shown.as_ref().and_then(|s| s.note().cloned());
        assert!(
            matches!(&note, Some(Note::Done(t)) if t.contains("/tmp/paydesk-qr-A-1.png")),
            "{note:?}"
        );
    }

    #[test]
    fn a_paid_alert_goes_to_the_notifier_and_answers_notified() {
        let mut app = app();
        let notifier = Arc::new(RecordingNotifier::default());
        app.options.notifier = notifier.clone();
        app.alert(&Alert {
            kind: AlertKind::Paid,
            id: "L1".into(),
            order_number: Some("A-1".into()),
            currency: Currency::Try,
            amount: None,
            received: rust_decimal::Decimal::ONE,
            remaining: None,
        });
        let answer = only(answers(&mut app));
        assert!(matches!(answer, Msg::Link(LinkResult::Notified)));
        let view = app.view;
        app.on_msg(answer);
        assert_eq!(app.view, view, "nothing changes on screen");
        assert_eq!(notifier.notices().len(), 1);
    }
}
