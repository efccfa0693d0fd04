//! `paydesk link renew ID [--send]` (issue 30): a new link for an expired or cancelled link
//! nobody paid, through the same renewal the window's "Send a new link" runs
//! (`service::renew`, read through `Reads` so that a joined desk claims it in the shop), and,
//! with `--send`, the new link sent the way the old one last went.

use super::args::RenewArgs;
use super::output::{Exit, Failure, Outcome, create_failure, from_desk, print_json};
use super::run::Ctx;
use super::text::CliText;
use crate::api::wire::PaymentLink;
use crate::domain::phone::Phone;
use crate::domain::share::{self, LinkFacts, SendChannel};
use crate::service::renew::{RenewError, Renewed};
use crate::service::{Desk, Services};

/// A renewal's failure, worded, with its exit: 3 when nothing was asked of the API (not
/// renewable, renewed before, the shop silent, a request that does not validate); a
/// creation's own failure as `link create` exits.
fn renew_failure(e: &RenewError, lang: crate::lang::Lang) -> Failure {
    match e {
        RenewError::Create(create) => create_failure(create, lang),
        RenewError::Desk(_) => Failure::new(Exit::Failure, e.sentence(lang)),
        RenewError::NotRenewable(_)
        | RenewError::AlreadyRenewed { .. }
        | RenewError::ShopUnreachable
        | RenewError::NoFreeOrder(_)
        | RenewError::Invalid(_) => Failure::new(Exit::Invalid, e.sentence(lang)),
    }
}

impl Ctx {
    /// `link renew`.
    pub(super) async fn link_renew(
        &self,
        services: &Services,
        desk: &Desk,
        args: RenewArgs,
    ) -> Outcome {
        let lang = self.lang;
        if args.send {
            // Whether it can be sent is known before the new link is made: a renewal is once.
            self.sendable(desk, &args.id)?;
        }
        let reads = self.reads(services, desk).await?;
        let renewed = reads
            .renew(&args.id)
            .await
            .map_err(|e| renew_failure(&e, lang))?;
        let new = &renewed.link;
        if args.json {
            /// The new link, with the link it renews.
            #[derive(serde::Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Shown {
                #[serde(flatten)]
                link: PaymentLink,
                renews: String,
            }
            print_json(&Shown {
                link: PaymentLink::from(new),
                renews: renewed.original.id.clone(),
            })?;
        } else {
            println!("{}", new.id);
            println!("{}", new.order_or_id());
            println!("{}", new.url());
        }
        if args.send {
            self.send_renewal(services, desk, &renewed, &args).await?;
        }
        Ok(())
    }

    /// Whether link `id` can be sent again the way it last went: it was sent, and the payer's
    /// e-mail or phone (as it went) is on the link; else the sentence why not, exit 3.
    fn sendable(&self, desk: &Desk, id: &str) -> Result<(), Failure> {
        let lang = self.lang;
        let last = desk.link_sends(id).map_err(from_desk(lang))?.pop();
        let link = desk.history_link(id).map_err(from_desk(lang))?;
        let reachable = match last.map(|m| m.channel) {
            None => {
                return Err(Failure::new(
                    Exit::Invalid,
                    CliText::RenewNeverSent.get(lang),
                ));
            }
            Some(SendChannel::Email) => link.email.as_deref().is_some_and(|e| !e.trim().is_empty()),
            Some(SendChannel::WhatsApp) => Phone::from_api(
                link.phone_country_code.as_deref().unwrap_or_default(),
                link.phone_number.as_deref().unwrap_or_default(),
            )
            .is_ok(),
        };
        if reachable {
            Ok(())
        } else {
            Err(Failure::new(
                Exit::Invalid,
                CliText::RenewNoContact.get(lang),
            ))
        }
    }

    /// Sends the new link of `renewed` the way the old one last went: the e-mail queue to the
    /// payer's address, or the WhatsApp address to the payer's phone (printed and recorded).
    async fn send_renewal(
        &self,
        services: &Services,
        desk: &Desk,
        renewed: &Renewed,
        args: &RenewArgs,
    ) -> Outcome {
        let lang = self.lang;
        let new = &renewed.link;
        let Some(last) = &renewed.last_sent else {
            return Err(Failure::new(
                Exit::Invalid,
                CliText::RenewNeverSent.get(lang),
            ));
        };
        let items = desk.link_item_lines(&new.id).map_err(from_desk(lang))?;
        let shop = args
            .shop
            .clone()
            .unwrap_or_else(|| super::run::sender_name(services));
        let facts = LinkFacts::of_link(&shop, new, items)
            .map_err(|e| Failure::new(Exit::Invalid, e.message(lang)))?;
        let message = share::compose(&facts, args.lang.unwrap_or(lang), self.zone);
        match last.channel {
            SendChannel::Email => {
                let to = new.email.clone().unwrap_or_default();
                self.send_email(services, (&new.id, new.url()), &to, &message)
                    .await
            }
            SendChannel::WhatsApp => {
                let phone = Phone::from_api(
                    new.phone_country_code.as_deref().unwrap_or_default(),
                    new.phone_number.as_deref().unwrap_or_default(),
                )
                .map_err(|e| Failure::new(Exit::Invalid, e.message(lang)))?;
                services
                    .record_whatsapp_send(&self.actor, &new.id, &phone)
                    .map_err(from_desk(lang))?;
                println!("{}", share::wa_me_url(&phone, &message.text));
                Ok(())
            }
        }
    }
}
