//! Saving a card.

use super::App;
use super::msg::{CardResult, Duty, Msg};
use crate::ui::CardCommand;

impl App {
    /// Runs a card command.
    pub(crate) fn run_card(&mut self, command: CardCommand, duty: &Duty) {
        let CardCommand::Save { request } = command;
        let Some(desk) = self.desk_for(duty) else {
            return;
        };
        self.spawn(duty, async move {
            let result = desk.save_card(&request).await;
            drop(request);
            Msg::Card(CardResult::Saved { result })
        });
    }

    /// Takes a card result into the state.
    pub(crate) fn apply_card(&mut self, result: CardResult) {
        let lang = self.lang();
        let CardResult::Saved { result } = result;
        self.note_call(result.as_ref().err());
        self.views.card.on_saved(result, lang);
    }
}

#[cfg(test)]
mod tests {
    use zeroize::Zeroizing;

    use super::*;
    use crate::app::testing::{app, app_unbooted, only, run};
    use crate::app::{Command, Connection};
    use crate::domain::{CardDraft, CardRequest};
    use crate::service::DeskError;
    use crate::ui::card::CardOutcome;
    use crate::ui::problem::Problem;

    fn request() -> Box<CardRequest> {
        let draft = CardDraft {
            card_number: Zeroizing::new("4111111111111111".to_owned()),
            expiry_month: "11".into(),
            expiry_year: "2031".into(),
            cvv: Zeroizing::new("123".to_owned()),
            card_holder_name: "AYSE YILMAZ".into(),
            usage: String::new(),
            alias: String::new(),
            set_as_default: false,
            customer_id: String::new(),
        };
        Box::new(draft.validate(chrono::Utc::now().date_naive()).unwrap())
    }

    #[test]
    fn save_sends_the_card_and_its_answer_shows_the_masked_card() {
        let mut app = app();
        app.views.card.set_sending();
        let answer = only(run(
            &mut app,
            Command::Card(CardCommand::Save { request: request() }),
        ));
        let Msg::Card(CardResult::Saved { result: Ok(card) }) = &answer else {
            panic!("the sandbox saves the card: {answer:?}");
        };
        assert!(
            card.masked_pan
                .as_deref()
                .is_some_and(|p| p.ends_with("1111"))
        );
        assert!(
            !card
                .masked_pan
                .as_deref()
                .unwrap_or("")
                .contains("11111111")
        );
        app.on_msg(answer);
        assert!(!app.views.card.is_sending());
        assert!(matches!(
            app.views.card.outcome(),
            Some(CardOutcome::Saved(_))
        ));
    }

    #[test]
    fn save_without_a_desk_frees_the_form() {
        let mut app = app_unbooted();
        app.jobs.clear();
        app.views.card.set_sending();
        app.run(Command::Card(CardCommand::Save { request: request() }));
        assert!(
            !app.views.card.is_sending(),
            "the clerk can press Save again"
        );
        assert!(app.jobs.is_empty());
    }

    #[test]
    fn a_refused_card_is_said_and_the_server_counts_as_reachable() {
        let mut app = app();
        app.holds.connection = Connection::Disconnected("no answer".into());
        app.apply_card(CardResult::Saved {
            result: Err(DeskError::NoProfile("x".into())),
        });
        assert!(matches!(
            app.views.card.outcome(),
            Some(CardOutcome::Error(Problem { .. }))
        ));
        assert_eq!(app.holds.connection, Connection::Connected);
    }
}
