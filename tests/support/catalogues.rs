//! Every sentence catalogue, in one list, for the suites that walk them.

/// Every sentence paydesk can show a user, catalogue by catalogue (see [`paydesk::sentences!`]): the
/// language tests walk this list (and `tests/core/lang_catalogues.rs` finds every catalogue in the
/// source here). It lives with the tests so that the crate root depends on no layer.
pub fn every_sentence() -> impl Iterator<Item = &'static paydesk::lang::Entry> {
    let catalogues: [&'static [paydesk::lang::Entry]; 10] = [
        paydesk::ui::text::UiText::ENTRIES,
        paydesk::cli::text::CliText::ENTRIES,
        paydesk::domain::messages::DomainMessage::ENTRIES,
        paydesk::api::messages::ApiMessage::ENTRIES,
        paydesk::service::messages::ServiceMessage::ENTRIES,
        paydesk::sandbox::messages::SandboxMessage::ENTRIES,
        paydesk::store::messages::StoreMessage::ENTRIES,
        paydesk::slip::SlipText::ENTRIES,
        paydesk::shop::messages::ShopMessage::ENTRIES,
        paydesk::mail::messages::MailMessage::ENTRIES,
    ];
    catalogues.into_iter().flatten()
}
