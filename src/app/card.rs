//! Saving a card.

use super::App;
use super::logic::Msg;
use crate::api::wire::SavedCard;
use crate::service::DeskError;
use crate::ui::CardCommand;
use crate::ui::card::CardOutcome;
use crate::ui::problem::Explain;

/// A background result of the card form.
#[derive(Debug)]
pub enum CardResult {
    /// A card save's answer.
    Saved {
        /// The saved card, or why not.
        result: Result<SavedCard, DeskError>,
    },
}

impl App {
    /// Runs a card command.
    pub(crate) fn run_card(&mut self, command: CardCommand) {
        let CardCommand::Save { request } = command;
        let Some(desk) = self.desk_or_idle() else {
            return;
        };
        self.spawn(async move {
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
        self.card.sending = false;
        self.card.outcome = Some(match result {
            Ok(card) => CardOutcome::Saved(Box::new(card)),
            Err(e) if e.is_unknown_outcome() => CardOutcome::Unknown(e.problem(lang)),
            Err(e) => CardOutcome::Error(e.problem(lang)),
        });
    }
}
