//! Installment options for a BIN.

use super::App;
use super::msg::{Duty, InstallmentsResult, Msg};
use crate::ui::InstallmentsCommand;

impl App {
    /// Runs an installments command.
    pub(crate) fn run_installments(&mut self, command: InstallmentsCommand, duty: &Duty) {
        let InstallmentsCommand::List { query } = command;
        let Some(desk) = self.desk_for(duty) else {
            return;
        };
        self.spawn(duty, async move {
            let result = desk.installments(&query).await;
            Msg::Installments(InstallmentsResult::Listed { result })
        });
    }

    /// Takes an installments result into the state.
    pub(crate) fn apply_installments(&mut self, result: InstallmentsResult) {
        let lang = self.lang();
        let InstallmentsResult::Listed { result } = result;
        self.note_call(result.as_ref().err());
        self.views.installments.on_listed(result, lang);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Command;
    use crate::app::testing::{app, only, run};
    use crate::domain::installment::InstallmentDraft;
    use crate::service::DeskError;
    use crate::ui::installments::InstallmentOutcome;

    #[test]
    fn list_asks_the_server_and_its_answer_shows_the_options() {
        let mut app = app();
        let mut draft = InstallmentDraft::default();
        draft.set_bin_from_input("979200");
        let query = Box::new(draft.validate().unwrap());
        app.views.installments.set_loading();
        let answer = only(run(
            &mut app,
            Command::Installments(InstallmentsCommand::List { query }),
        ));
        assert!(
            matches!(
                &answer,
                Msg::Installments(InstallmentsResult::Listed { result: Ok(_) })
            ),
            "{answer:?}"
        );
        app.on_msg(answer);
        assert!(!app.views.installments.is_loading());
        assert!(matches!(
            app.views.installments.outcome(),
            Some(InstallmentOutcome::List(_))
        ));
    }

    #[test]
    fn a_failed_listing_is_said() {
        let mut app = app();
        app.views.installments.set_loading();
        app.apply_installments(InstallmentsResult::Listed {
            result: Err(DeskError::NoProfile("x".into())),
        });
        assert!(!app.views.installments.is_loading());
        assert!(matches!(
            app.views.installments.outcome(),
            Some(InstallmentOutcome::Error(_))
        ));
    }
}
