//! The app's dispatch: a command goes to its feature's `run_*`, a background result to its
//! feature's `apply_*` (each in its own module: `link`, `history`, `board`, ...). Nothing here
//! draws, and nothing here blocks: every network, `SQLite` and keyring call runs on the
//! worker, and its answer comes back as a [`Msg`].

use std::future::Future;

use super::msg::{BoardResult, Duty, Msg};
use super::{App, Command, Connection, View};
use crate::domain::Actor;
use crate::lang::Lang;
use crate::service::{Desk, DeskError};
use crate::ui::text::UiText;
use crate::worker::JobState;

pub use super::history::STATUS_REFRESH_GAP;

impl App {
    /// Queues a background job whose result is a [`Msg`], under `duty`: the worker checks it
    /// again against the role table before it runs (see `app::staff`).
    pub(crate) fn spawn(&mut self, duty: &Duty, job: impl Future<Output = Msg> + Send + 'static) {
        let job = self.checked(duty, job);
        let pending = self.worker.spawn(job);
        self.jobs.push(pending);
    }

    /// Takes every result that has arrived.
    pub(crate) fn drain(&mut self) {
        let mut arrived = Vec::new();
        let mut lost = false;
        self.jobs.retain_mut(|p| match p.poll() {
            JobState::Ready(m) => {
                arrived.push(m);
                false
            }
            JobState::Running => true,
            JobState::Idle => false,
            JobState::Lost => {
                lost = true;
                false
            }
        });
        for m in arrived {
            self.on_msg(m);
        }
        self.drain_shop();
        if lost {
            let text = UiText::WorkerLost.get(self.saved.lang).to_owned();
            self.clear_busy();
            self.link_lost(&text);
            self.views.settings.abort_busy();
            self.resend.running = false;
            self.refresher.lost();
            self.holds.connection = Connection::Disconnected(text);
        }
    }

    pub(crate) fn lang(&self) -> Lang {
        self.saved.lang
    }

    /// Undoes the busy marks of the views whose jobs need the profile's desk or the store:
    /// when there is no desk to run them, and when the worker is lost.
    pub(crate) fn clear_busy(&mut self) {
        self.views.new_link.abort_busy();
        self.views.card.abort_busy();
        self.views.installments.abort_busy();
        self.views.history.abort_busy();
        self.views.report.abort_busy();
        self.views.catalog.abort_busy();
        self.views.pending.abort_busy();
        self.views.board.abort_busy();
        self.views.audit.abort_busy();
        self.views.staff.abort_busy();
        if let Some(p) = &mut self.views.approval {
            p.abort_busy();
        }
        self.views.lock.abort_busy();
    }

    /// The profile's desk, acting as `duty`'s member, for a job that needs it; without one
    /// (not connected yet) the views' busy marks are undone so the user can try again.
    pub(crate) fn desk_for(&mut self, duty: &Duty) -> Option<Desk> {
        let desk = self
            .holds
            .desk
            .as_ref()
            .map(|d| d.acting_as(duty.actor.clone()));
        if desk.is_none() {
            self.clear_busy();
        }
        desk
    }

    /// What a call's outcome says about the connection.
    pub(crate) fn note_call(&mut self, e: Option<&DeskError>) {
        // An answer of any kind (even a refusal) means the server is reachable.
        match e {
            Some(e) if e.is_unknown_outcome() => {
                self.holds.connection = Connection::Disconnected(e.sentence(self.lang()));
            }
            _ => self.set_connected(),
        }
    }

    /// The server answered. Coming back from "not connected", the pending rows are sent again
    /// at the end of this frame.
    pub(crate) fn set_connected(&mut self) {
        if matches!(self.holds.connection, Connection::Disconnected(_)) {
            self.resend.due = true;
        }
        self.holds.connection = Connection::Connected;
    }

    /// Takes one background result into the state.
    pub(crate) fn on_msg(&mut self, msg: Msg) {
        // A link created, refreshed or cancelled, a pending row sent: the change is in the
        // outbox (when joined), and the shop hears of it now rather than at the next push.
        if matches!(
            msg,
            Msg::Link(_)
                | Msg::Pending(_)
                | Msg::History(_)
                | Msg::Report(_)
                | Msg::Board(BoardResult::Leased { .. })
        ) {
            self.push_soon();
        }
        match msg {
            Msg::Profiles(r) => self.apply_profiles(r),
            Msg::Link(r) => self.apply_link(r),
            Msg::Board(r) => self.apply_board(r),
            Msg::Card(r) => self.apply_card(r),
            Msg::Installments(r) => self.apply_installments(r),
            Msg::History(r) => self.apply_history(r),
            Msg::Report(r) => self.apply_report(r),
            Msg::Pending(r) => self.apply_pending(r),
            Msg::Catalog(r) => self.apply_catalog(r),
            Msg::Staff(r) => self.apply_staff(r),
            Msg::Shop(r) => self.apply_shop(r),
            Msg::Mail(r) => self.apply_mail(r),
        }
    }

    /// Runs the commands the views emitted this frame.
    pub(crate) fn run_commands(&mut self) {
        for command in std::mem::take(&mut self.commands) {
            self.run(command);
        }
    }

    /// Runs one command, once the role table lets the member signed in run it (with staff
    /// on; a command that needs a manager is held for the approval prompt).
    pub(crate) fn run(&mut self, command: Command) {
        self.run_as(command, None);
    }

    /// Runs `command` as the clerk a manager `approved` it for, else as the member signed in
    /// (or the clerk a catalog import's approval still covers). Its jobs carry that duty.
    pub(crate) fn run_as(&mut self, command: Command, approved: Option<Actor>) {
        tracing::debug!(command = command.name(), "command");
        let actor = approved
            .or_else(|| self.carried_approval(&command))
            .unwrap_or_else(|| self.staff.actor.clone());
        if let Some(command) = self.gate(command, &actor) {
            let duty = Duty::of(&command, actor);
            self.dispatch(command, &duty);
        }
    }

    fn dispatch(&mut self, command: Command, duty: &Duty) {
        match command {
            Command::Navigate { view } => self.navigate(view),
            Command::Link(c) => self.run_link(c, duty),
            Command::Board(c) => self.run_board(c),
            Command::Card(c) => self.run_card(c, duty),
            Command::Installments(c) => self.run_installments(c, duty),
            Command::History(c) => self.run_history(c, duty),
            Command::Report(c) => self.run_report(c, duty),
            Command::Pending(c) => self.run_pending(c, duty),
            Command::Catalog(c) => self.run_catalog(c, duty),
            Command::Profiles(c) => self.run_profiles(c, duty),
            Command::Staff(c) => self.run_staff(c, duty),
            Command::Shop(c) => self.run_shop(c, duty),
            Command::Mail(c) => self.run_mail(c, duty),
        }
    }

    /// Goes to a view.
    fn navigate(&mut self, view: View) {
        // Links may have changed since the report was made.
        if view == View::Report && self.view != View::Report {
            self.views.report.invalidate();
        }
        // Opening the board reads its rows again (links the command line made).
        if view == View::Board {
            self.views.board.read_again();
        }
        // The Audit view reads the record again; Settings the members (the command line may
        // have changed them).
        if view == View::Audit {
            self.views.audit.invalidate();
        }
        // A sale that is over (paid, cancelled, expired) is not brought back: New link is the
        // next sale's. One still waiting for payment stays in front, its QR on screen.
        if view == View::NewLink
            && self.views.shown.as_ref().is_some_and(|s| {
                s.origin() == crate::ui::link_result::Origin::Created && s.is_final()
            })
        {
            self.put_shown_away();
        }
        // The owner's password is not kept past Settings.
        if view != View::Settings {
            self.views.shop.forget_owner();
            // The e-mail password typed and not saved goes too; the account is read again.
            self.views.mail.on_left();
        }
        // An import's approval lasts while the clerk stays on Catalog.
        if view != View::Catalog {
            self.staff.import_approval = None;
        }
        if view == View::Settings && view != self.view {
            self.run(Command::Staff(crate::ui::StaffCommand::LoadStaff));
        }
        self.view = view;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testing::app;

    #[test]
    fn navigate_to_the_report_makes_it_again_and_to_the_board_reads_its_rows() {
        let mut app = app();
        let day = chrono::Utc::now().date_naive();
        app.views.report.set_loaded((day, day));
        app.views.board.set_stale(false);
        app.run(Command::Navigate { view: View::Report });
        assert_eq!(app.view, View::Report);
        assert_eq!(app.views.report.loaded(), None, "links may have changed");
        app.run(Command::Navigate { view: View::Board });
        assert_eq!(app.view, View::Board);
        assert!(app.views.board.is_stale());
    }
}
