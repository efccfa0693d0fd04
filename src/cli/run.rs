//! Runs a parsed command over the same core as the app (`service::Desk`); `output` words and
//! prints the result, `prompt` reads secrets.
//!
//! Exit codes: 0 done; 2 usage (clap); 3 invalid input, nothing sent (every field error
//! printed); 4 rejected by the server (key and sentence printed); 5 outcome unknown (the
//! journal keeps it; `pending retry` finishes it); 130 Ctrl+C at a hidden prompt, nothing
//! sent. Local failures (database, keyring) exit 1. `shop` commands: 4 when the shop refused
//! (password, certificate, a newer schema), 5 when it did not answer (`cli/shop.rs`).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use zeroize::Zeroizing;

use super::args::{
    AuditArgs, CardArgs, CatalogArgs, Cli, CommandArgs, InstallmentsArgs, LinkArgs, LinkCreateArgs,
    ListArgs, PendingArgs, ProfileArgs, ReportArgs, SendArgs,
};
use super::output::{
    Exit, Failure, Outcome, PendingView, ProfileView, create_failure, from_desk, invalid,
    link_line, print_json, print_link, read_failure, write_report,
};
use super::prompt::read_secret_line;
use super::text::CliText;
use crate::api::wire::{PaymentLink, parse_time};
use crate::clock::{Clock, SystemClock, Zone};
use crate::domain::card::CardDraft;
use crate::domain::installment::InstallmentDraft;
use crate::domain::items::ItemDraft;
use crate::domain::link::{LinkContext, LinkDraft};
use crate::domain::money::{format_amount, parse_amount};
use crate::domain::phone::Phone;
use crate::domain::share::{self, LinkFacts};
use crate::domain::{Actor, Currency, LinkStatus};
use crate::lang::Lang;
use crate::printer::{Delivered, SlipSink};
use crate::secrets::{EnvSecret, OsSecrets, SecretStore, WithoutKeyring};
use crate::service::{CreateError, Desk, SANDBOX_PROFILE, Services};
use crate::service::{JournalState, LinkQuery, Profile, TimeRange, default_data_dir};
use crate::slip::Slip;

/// The secrets `main` takes out of the environment besides the API secret.
#[derive(Debug, Default)]
pub struct EnvSecrets {
    /// `PAYDESK_STAFF_PIN`.
    pub pin: EnvSecret,
    /// `PAYDESK_SHOP_PASSWORD`.
    pub shop: EnvSecret,
    /// `PAYDESK_SMTP_PASSWORD`.
    pub smtp: EnvSecret,
}

/// Runs the CLI command in `cli` (which must have one) and returns the process exit code.
/// `env_secret` is `PAYDESK_API_SECRET` as `main` read it (and removed it from the
/// environment); `env.pin` and `env.shop` are `PAYDESK_STAFF_PIN` and
/// `PAYDESK_SHOP_PASSWORD`, read the same way.
pub fn run(cli: Cli, env_secret: EnvSecret, env: EnvSecrets) -> i32 {
    let EnvSecrets {
        pin: env_pin,
        shop: env_shop,
        smtp: env_smtp,
    } = env;
    let lang = Lang::from_env();
    let command = match cli.command {
        None => return 2,
        Some(CommandArgs::Sandbox(args)) => {
            return match crate::sandbox::cli::run(&args) {
                Ok(()) => 0,
                // A refused `--fault` is a usage error, as clap's own (exit 2).
                Err(e @ crate::sandbox::SandboxError::Fault(_)) => {
                    eprintln!("paydesk sandbox: {e}");
                    2
                }
                Err(e) => {
                    eprintln!("paydesk sandbox: {e}");
                    Exit::Failure as i32
                }
            };
        }
        Some(CommandArgs::Man) => {
            let written =
                super::args::man_page().and_then(|page| std::io::stdout().write_all(&page));
            return if let Err(e) = written {
                eprintln!("{e}");
                Exit::Failure as i32
            } else {
                0
            };
        }
        Some(c) => c,
    };
    crate::init_logging();
    let Some(data_dir) = cli.data_dir.clone().or_else(default_data_dir) else {
        eprintln!("{}", CliText::NoDataFolder.get(lang));
        return Exit::Failure as i32;
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("{e}");
            return Exit::Failure as i32;
        }
    };
    let mut ctx = Ctx {
        lang,
        env_secret,
        env_pin,
        env_shop,
        env_smtp,
        data_dir,
        profile: cli.profile.unwrap_or_else(|| SANDBOX_PROFILE.to_owned()),
        zone: Zone::Local,
        as_staff: cli.as_staff,
        actor: Actor::nobody(),
    };
    let result = runtime.block_on(ctx.dispatch(command));
    match result {
        Ok(()) => 0,
        Err(f) => {
            for line in f.lines {
                eprintln!("{line}");
            }
            f.exit as i32
        }
    }
}

pub(super) struct Ctx {
    pub(super) lang: Lang,
    env_secret: EnvSecret,
    /// `PAYDESK_STAFF_PIN` as `main` read it (and removed it from the environment).
    pub(super) env_pin: EnvSecret,
    /// `PAYDESK_SHOP_PASSWORD` as `main` read it (and removed it from the environment).
    pub(super) env_shop: EnvSecret,
    /// `PAYDESK_SMTP_PASSWORD` as `main` read it (and removed it from the environment).
    pub(super) env_smtp: EnvSecret,
    data_dir: PathBuf,
    profile: String,
    /// The zone local days and times are read and shown in (the machine's).
    pub(super) zone: Zone,
    /// `--as NAME`.
    pub(super) as_staff: Option<String>,
    /// Who runs the command, once signed in (`Ctx::sign_in`).
    pub(super) actor: Actor,
}

impl Ctx {
    fn services(&self) -> Result<Services, Failure> {
        let secrets: Arc<dyn SecretStore> = Arc::new(OsSecrets::open(WithoutKeyring::Refuse));
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        Services::open(&self.data_dir, secrets, clock, self.env_secret.value())
            .map(|s| s.with_shop_env(self.env_shop.value()))
            .map_err(from_desk(self.lang))
    }

    pub(super) fn desk(&self, services: &Services) -> Result<Desk, Failure> {
        services
            .desk(&self.profile)
            .map(|d| d.acting_as(self.actor.clone()))
            .map_err(from_desk(self.lang))
    }

    async fn dispatch(&mut self, command: CommandArgs) -> Outcome {
        let services = self.services()?;
        self.actor = self.sign_in(&services, &command).await?;
        let pushes = !matches!(command, CommandArgs::Shop(_));
        let before = services.outbox_last_seq().ok();
        let outcome = self.run_command(&services, command).await;
        // A manager's sign-in in the shop lasts this command only.
        services.staff_sign_out().await;
        // A command that changed something pushes its own change, even when it then failed
        // (a create whose answer was refused still stored what it learnt).
        let after = services.outbox_last_seq().ok();
        if pushes && after > before {
            self.push_own_change(&services).await;
        }
        outcome
    }

    async fn run_command(&mut self, services: &Services, command: CommandArgs) -> Outcome {
        match command {
            CommandArgs::Profile(c) => self.profile_cmd(services, c),
            CommandArgs::Link(c) => self.link_cmd(services, c).await,
            CommandArgs::Pending(c) => self.pending_cmd(services, c).await,
            CommandArgs::Card(c) => self.card_cmd(services, c).await,
            CommandArgs::Installments(a) => self.installments_cmd(services, a).await,
            CommandArgs::Catalog(c) => self.catalog_cmd(services, c).await,
            CommandArgs::Report(a) => self.report_cmd(services, &a).await,
            CommandArgs::Staff(c) => self.staff_cmd(services, c).await,
            CommandArgs::Audit(c) => {
                let verify = matches!(c, AuditArgs::Verify { .. });
                self.audit_cmd(services, c)?;
                if verify {
                    self.shop_audit_verify(services).await
                } else {
                    Ok(())
                }
            }
            CommandArgs::Shop(c) => self.shop_cmd(services, c).await,
            CommandArgs::Mail(c) => self.mail_cmd(services, c).await,
            // Handled in `run`, before a runtime or the store exist.
            CommandArgs::Sandbox(_) | CommandArgs::Man => Ok(()),
        }
    }

    fn profile_cmd(&self, services: &Services, command: ProfileArgs) -> Outcome {
        let lang = self.lang;
        match command {
            ProfileArgs::Add {
                name,
                base_url,
                api_key,
                amount_limit,
                max_items,
                order_prefix,
            } => {
                crate::api::client::check_base_url(&base_url)
                    .map_err(|e| Failure::new(Exit::Invalid, e.to_string()))?;
                let amount_limit = amount_limit
                    .map(|a| parse_amount(&a, Currency::Try))
                    .transpose()
                    .map_err(|e| {
                        Failure::new(
                            Exit::Invalid,
                            format!("--amount-limit: {}", e.message(lang)),
                        )
                    })?;
                let mut profile = Profile::new(name.clone(), base_url, api_key);
                profile.amount_limit = amount_limit;
                profile.max_items = max_items;
                if let Some(prefix) = order_prefix {
                    profile.order_prefix = prefix;
                }
                services
                    .profile_save(&self.actor, &profile, false)
                    .map_err(from_desk(lang))?;
                println!("{}", CliText::ProfileSaved.fill(lang, &[("name", &name)]));
                Ok(())
            }
            ProfileArgs::List { json } => {
                let profiles = services.profile_list().map_err(from_desk(lang))?;
                if json {
                    return print_json(&profiles.iter().map(ProfileView::from).collect::<Vec<_>>());
                }
                for p in profiles {
                    let badge = if p.is_sandbox {
                        format!("  {}", CliText::SandboxProfile.get(lang))
                    } else {
                        String::new()
                    };
                    println!("{}\t{}\t{}{badge}", p.name, p.base_url, p.api_key);
                }
                Ok(())
            }
            ProfileArgs::Remove { name } => {
                services
                    .profile_remove(&self.actor, &name)
                    .map_err(from_desk(lang))?;
                println!("{}", CliText::ProfileRemoved.fill(lang, &[("name", &name)]));
                Ok(())
            }
            ProfileArgs::SetSecret { name } => {
                let profile = services
                    .profile_get(&name)
                    .map_err(from_desk(lang))?
                    .ok_or_else(|| {
                        Failure::new(
                            Exit::Invalid,
                            CliText::NoSuchProfile.fill(lang, &[("name", &name)]),
                        )
                    })?;
                let secret = read_secret_line(CliText::SecretPrompt.get(lang))
                    .map_err(|e| read_failure(&e, lang))?;
                if secret.is_empty() {
                    return Err(Failure::new(Exit::Invalid, CliText::EmptySecret.get(lang)));
                }
                services
                    .secrets()
                    .set(&profile.name, &profile.api_key, &secret)
                    .map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
                let subject = format!("{} {}", profile.name, profile.api_key);
                services
                    .record_secret_stored(&self.actor, &subject)
                    .map_err(from_desk(lang))?;
                println!("{}", CliText::SecretStored.get(lang));
                Ok(())
            }
        }
    }

    /// `link send`: the message to copy, the WhatsApp address (opened with --open), the send
    /// recorded in the audit with the number masked, or with --email the message queued and
    /// sent by e-mail.
    async fn link_send(&self, services: &Services, desk: &Desk, args: SendArgs) -> Outcome {
        let lang = self.lang;
        let SendArgs {
            id,
            email,
            whatsapp,
            phone,
            country_code,
            lang: message_lang,
            shop,
            open,
        } = args;
        let link = desk.history_link(&id).map_err(from_desk(lang))?;
        let items = desk.link_item_lines(&id).map_err(from_desk(lang))?;
        let shop = shop.unwrap_or_else(|| sender_name(services));
        let facts = LinkFacts::of_link(&shop, &link, items)
            .map_err(|e| Failure::new(Exit::Invalid, e.message(lang)))?;
        let message = share::compose(&facts, message_lang.unwrap_or(lang), self.zone);
        if let Some(address) = email {
            let to = if address.is_empty() {
                link.email.clone().unwrap_or_default()
            } else {
                address
            };
            return self
                .send_email(services, (&link.id, link.url()), &to, &message)
                .await;
        }
        if !whatsapp {
            println!("{}\n\n{}", message.subject, message.text);
            return Ok(());
        }
        let country_code = match country_code {
            Some(code) => code,
            None => {
                desk.sending_settings()
                    .map_err(from_desk(lang))?
                    .country_code
            }
        };
        let phone = match &phone {
            Some(typed) => Phone::parse(typed, country_code),
            None => Phone::from_api(
                link.phone_country_code.as_deref().unwrap_or_default(),
                link.phone_number.as_deref().unwrap_or_default(),
            ),
        }
        .map_err(|e| Failure::new(Exit::Invalid, e.message(lang)))?;
        let url = share::wa_me_url(&phone, &message.text);
        if open && let Err(e) = crate::opener::Opener::default().open(&url) {
            eprintln!("{}", CliText::NotOpened.fill(lang, &[("why", &e)]));
        }
        services
            .record_whatsapp_send(&self.actor, &link.id, &phone)
            .map_err(from_desk(lang))?;
        println!("{url}");
        Ok(())
    }

    async fn link_cmd(&self, services: &Services, command: LinkArgs) -> Outcome {
        let lang = self.lang;
        let desk = self.desk(services)?;
        match command {
            LinkArgs::Create(args) => self.link_create(&desk, *args).await,
            LinkArgs::List {
                search,
                status,
                from,
                to,
                limit,
                json,
                csv,
                this_desk,
            } => {
                let args = ListArgs {
                    search,
                    status: status.map(|s| LinkStatus::from_wire(&s)),
                    range: TimeRange::between(from, to, self.zone),
                    limit,
                    json,
                    csv,
                    this_desk,
                };
                self.link_list(services, &desk, args).await
            }
            LinkArgs::Show { id, refresh, json } => {
                let link = if refresh {
                    // Through the shop while joined: a receipt is claimed there first.
                    let reads = self.reads(services, &desk).await?;
                    reads.link_detail(&id).await
                } else {
                    desk.history_link(&id)
                }
                .map_err(from_desk(lang))?;
                if json {
                    print_json(&PaymentLink::from(&link))
                } else {
                    print_link(&link, lang)
                }
            }
            LinkArgs::Cancel { id, json } => {
                let link = desk.cancel_link(&id).await.map_err(from_desk(lang))?;
                if json {
                    print_json(&PaymentLink::from(&link))
                } else {
                    print_link(&link, lang)
                }
            }
            LinkArgs::Qr { id, png } => {
                let link = desk.history_link(&id).map_err(from_desk(lang))?;
                crate::qr::write_png(link.url(), &png)
                    .map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
                println!("{}", png.display());
                Ok(())
            }
            LinkArgs::Send(args) => self.link_send(services, &desk, args).await,
            LinkArgs::Renew(args) => self.link_renew(services, &desk, args).await,
            LinkArgs::Receipt {
                id,
                email,
                lang: receipt_lang,
                shop,
            } => {
                let lang = receipt_lang.unwrap_or(lang);
                self.send_receipt(services, &desk, &id, &email, (lang, shop))
                    .await
            }
            LinkArgs::Slip {
                id,
                size,
                out,
                shop,
            } => {
                let link = desk.history_link(&id).map_err(from_desk(lang))?;
                let shop = shop.as_deref().unwrap_or_default();
                let slip = Slip::of_link_in(&link, shop, lang, self.zone)
                    .ok_or_else(|| Failure::new(Exit::Failure, CliText::NoPaymentUrl.get(lang)))?;
                let failed = |e: &dyn std::fmt::Display| {
                    Failure::new(Exit::Failure, CliText::SlipFailed.fill(lang, &[("why", e)]))
                };
                let pdf = crate::slip::render(&slip, size).map_err(|e| failed(&e))?;
                if let Some(path) = out {
                    crate::printer::write_file(&path, &pdf.bytes).map_err(|e| failed(&e))?;
                    println!("{}", path.display());
                    return Ok(());
                }
                match SlipSink::default()
                    .deliver(&pdf, &slip.order_number)
                    .map_err(|e| failed(&e))?
                {
                    Delivered::Printed { printer } => {
                        println!(
                            "{}",
                            CliText::SlipPrinted.fill(lang, &[("printer", &printer)])
                        );
                    }
                    Delivered::Saved(path) => {
                        println!(
                            "{}",
                            CliText::SlipSaved.fill(lang, &[("path", &path.display())])
                        );
                    }
                }
                Ok(())
            }
        }
    }

    /// `link list`: the whole shop's links on a joined desk that reaches it, else this desk's.
    async fn link_list(&self, services: &Services, desk: &Desk, args: ListArgs) -> Outcome {
        let lang = self.lang;
        let reads = self.reads(services, desk).await?;
        let query = LinkQuery {
            text: args.search,
            status: args.status,
            limit: args.limit,
            before: None,
            staff: None,
        };
        if let Some(path) = args.csv {
            let failed = |e: &dyn std::fmt::Display| {
                Failure::new(Exit::Failure, format!("{}: {e}", path.display()))
            };
            let file = crate::service::create_private_file(&path).map_err(|e| failed(&e))?;
            let (rows, source) = reads
                .export_csv(&query, args.range, args.this_desk, self.zone, file)
                .await
                .map_err(|e| failed(&e.sentence(lang)))?;
            self.say_source(&reads, source);
            println!(
                "{}",
                CliText::LinksWritten.fill(lang, &[("n", &rows), ("path", &path.display())])
            );
            return Ok(());
        }
        let page = reads
            .page(&query, args.range, args.this_desk)
            .await
            .map_err(from_desk(lang))?;
        self.say_source(&reads, page.source);
        if args.json {
            /// A listed link: its fields, the member who began it and, read from the shop,
            /// the desk that made it.
            #[derive(serde::Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Listed<'a> {
                #[serde(flatten)]
                link: PaymentLink,
                staff: Option<&'a str>,
                #[serde(skip_serializing_if = "Option::is_none")]
                desk: Option<&'a str>,
                #[serde(skip_serializing_if = "Option::is_none")]
                desk_id: Option<&'a str>,
                /// Read from the shop: the payment another desk claims and no second desk's
                /// own call confirmed yet (`status` is then the last confirmed one).
                #[serde(skip_serializing_if = "Option::is_none")]
                unconfirmed_status: Option<&'a str>,
                /// Where it was sent (by any desk, read from the shop): `{channel, at, by}`,
                /// oldest first.
                sent: Vec<crate::service::SendMark>,
                /// The link this one renews (its id).
                #[serde(skip_serializing_if = "Option::is_none")]
                renews: Option<String>,
                /// This link's renewal: its id once made, else its order number.
                #[serde(skip_serializing_if = "Option::is_none")]
                renewed_as: Option<String>,
            }
            let ids: Vec<String> = page.rows.iter().map(|l| l.stored.link.id.clone()).collect();
            let mut sends = reads.sends_of(&ids).await.map_err(from_desk(lang))?;
            let mut marks = reads
                .renewal_marks_of(&page.rows)
                .await
                .map_err(from_desk(lang))?;
            let mut links: Vec<Listed<'_>> = Vec::with_capacity(page.rows.len());
            for l in &page.rows {
                let mark = marks.remove(&l.stored.link.id).unwrap_or_default();
                links.push(Listed {
                    link: PaymentLink::from(&l.stored.link),
                    staff: l.stored.staff.as_deref(),
                    desk: l.desk.as_ref().map(|d| d.name.as_str()),
                    desk_id: l.desk.as_ref().map(|d| d.id.as_str()),
                    unconfirmed_status: l
                        .stored
                        .unconfirmed
                        .as_ref()
                        .map(crate::domain::LinkStatus::as_str),
                    sent: sends.remove(&l.stored.link.id).unwrap_or_default(),
                    renews: mark.renews.map(|(_, id)| id),
                    renewed_as: mark.renewed_as.map(|(order, id)| id.unwrap_or(order)),
                });
            }
            return print_json(&links);
        }
        for l in &page.rows {
            let claim = l
                .stored
                .unconfirmed
                .as_ref()
                .map(|s| CliText::Unconfirmed.fill(lang, &[("status", &s.as_str())]));
            let line = match (&l.desk, claim) {
                (Some(made_by), Some(claim)) => format!(
                    "{}\t{}\t{claim}",
                    link_line(&l.stored.link, lang),
                    made_by.name
                ),
                (Some(made_by), None) => {
                    format!("{}\t{}", link_line(&l.stored.link, lang), made_by.name)
                }
                (None, _) => link_line(&l.stored.link, lang),
            };
            println!("{line}");
        }
        Ok(())
    }

    async fn link_create(&self, desk: &Desk, args: LinkCreateArgs) -> Outcome {
        let lang = self.lang;
        let now = desk.now();
        let currency: Currency =
            args.currency
                .parse()
                .map_err(|e: crate::domain::UnknownCode| {
                    Failure::new(Exit::Invalid, format!("--currency: {e}"))
                })?;
        let expiry = match (&args.expires_in, &args.expiry) {
            (Some(d), _) => Some(now + *d),
            (None, Some(text)) => Some(parse_time(text.trim()).ok_or_else(|| {
                Failure::new(
                    Exit::Invalid,
                    CliText::NotIsoTime.fill(lang, &[("text", text)]),
                )
            })?),
            (None, None) => None,
        };
        let order_number = match args.order_number {
            Some(n) => n,
            None => desk.next_order_number().map_err(from_desk(lang))?,
        };
        let mut items: Vec<ItemDraft> = args
            .items
            .iter()
            .map(|i| ItemDraft::free(i.name.clone(), i.unit_price.clone(), i.quantity.clone()))
            .collect();
        items.extend(
            args.variants
                .iter()
                .map(|v| ItemDraft::catalog(v.id.clone(), v.quantity.clone())),
        );
        let draft = LinkDraft {
            amount: args.amount,
            currency,
            description: args.description.unwrap_or_default(),
            order_number,
            expiry,
            enable_installment: !args.no_installment,
            installments: args.installments.unwrap_or_default(),
            contact_required: args.contact_required,
            allow_partial_payment: args.partial,
            email: args.email.unwrap_or_default(),
            phone_country_code: args.phone_country_code.unwrap_or_default(),
            phone_number: args.phone.unwrap_or_default(),
            items,
            ..LinkDraft::default()
        };
        let catalog = desk.catalog().map_err(from_desk(lang))?;
        let ctx = LinkContext {
            now,
            catalog: &catalog,
            limits: desk.limits(),
        };
        let request = draft.validate(&ctx).map_err(|e| invalid(&e, lang))?;
        match desk.create_link(&request).await {
            Ok(link) => {
                if args.json {
                    print_json(&PaymentLink::from(&link))?;
                } else {
                    println!("{}", link.id);
                    println!("{}", link.status.as_str());
                    println!("{}", link.url());
                }
                if let (true, Some(url)) = (args.qr, link.payment_url.as_deref()) {
                    let text = crate::qr::terminal_text(url)
                        .map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
                    println!("{text}");
                }
                Ok(())
            }
            Err(e) => Err(create_failure(&e, lang)),
        }
    }

    async fn pending_cmd(&self, services: &Services, command: PendingArgs) -> Outcome {
        let lang = self.lang;
        let desk = self.desk(services)?;
        match command {
            PendingArgs::List { json } => {
                let rows = desk.pending().map_err(from_desk(lang))?;
                if json {
                    return print_json(&rows.iter().map(PendingView::from).collect::<Vec<_>>());
                }
                for r in &rows {
                    println!("{}", PendingView::from(r).line());
                }
                Ok(())
            }
            PendingArgs::Retry { key, all, force } => {
                if all {
                    let results = desk.resume_pending().await.map_err(from_desk(lang))?;
                    let mut worst = Exit::Ok;
                    for (key, result) in results {
                        match result {
                            Ok(link) => println!("{key}\t{}\t{}", link.id, link.url()),
                            Err(e) => {
                                let f = create_failure(&e, lang);
                                worst = worst.max_code(f.exit);
                                eprintln!("{key}\t{}", f.lines.join(" "));
                            }
                        }
                    }
                    // Stale rows (the server may have forgotten their keys) are not re-sent: say so,
                    // rather than let "retry --all" look like it finished everything.
                    let stale = desk.pending().map_err(from_desk(lang))?;
                    for row in stale.iter().filter(|r| r.state == JournalState::Stale) {
                        let e = CreateError::Stale {
                            key: row.begun.key.key.clone(),
                        };
                        let f = create_failure(&e, lang);
                        worst = worst.max_code(f.exit);
                        eprintln!("{}\t{}", row.begun.key.key, f.lines.join(" "));
                    }
                    return if worst == Exit::Ok {
                        Ok(())
                    } else {
                        Err(Failure {
                            exit: worst,
                            lines: vec![],
                        })
                    };
                }
                let key = key.unwrap_or_default();
                let link = desk
                    .retry_pending(&key, force)
                    .await
                    .map_err(|e| create_failure(&e, lang))?;
                println!("{}\t{}", link.id, link.url());
                Ok(())
            }
            PendingArgs::Abandon { key } => {
                desk.abandon_pending(&key).map_err(from_desk(lang))?;
                println!("{}", CliText::Abandoned.fill(lang, &[("key", &key)]));
                Ok(())
            }
        }
    }

    async fn card_cmd(&self, services: &Services, command: CardArgs) -> Outcome {
        let lang = self.lang;
        let CardArgs::Save {
            expiry_month,
            expiry_year,
            holder,
            usage,
            alias,
            default,
            customer_id,
            json,
        } = command;
        let desk = self.desk(services)?;
        let number = read_secret_line(CliText::CardNumberPrompt.get(lang))
            .map_err(|e| read_failure(&e, lang))?;
        // The CVV is optional: no line (end of input) is no CVV, but Ctrl+C still stops.
        let cvv = match read_secret_line(CliText::CvvPrompt.get(lang)) {
            Ok(cvv) => cvv,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                return Err(read_failure(&e, lang));
            }
            Err(_) => Zeroizing::new(String::new()),
        };
        let mut draft = CardDraft {
            card_number: number,
            expiry_month,
            expiry_year,
            cvv,
            card_holder_name: holder.unwrap_or_default(),
            usage: usage.unwrap_or_default(),
            alias: alias.unwrap_or_default(),
            set_as_default: default,
            customer_id: customer_id.unwrap_or_default(),
        };
        let request = draft.validate(desk.now().date_naive());
        draft.wipe();
        let request = request.map_err(|e| invalid(&e, lang))?;
        let card = desk.save_card(&request).await;
        drop(request);
        let card = card.map_err(|e| {
            let mut f = from_desk(lang)(e);
            if f.exit == Exit::Unknown {
                f.lines
                    .push(CliText::CardOutcomeUnknown.get(lang).to_owned());
            }
            f
        })?;
        if json {
            return print_json(&card);
        }
        println!(
            "{}\t{}\t{}\t{}\t{}",
            card.id,
            card.masked_pan.as_deref().unwrap_or_default(),
            card.brand.as_deref().unwrap_or_default(),
            card.bank_name.as_deref().unwrap_or_default(),
            card.status
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default()
        );
        Ok(())
    }

    async fn installments_cmd(&self, services: &Services, args: InstallmentsArgs) -> Outcome {
        let lang = self.lang;
        // Arguments stay in the shell history and are visible to every user in the process
        // list: a whole card number given here is refused before anything is sent.
        if args.bin.chars().filter(char::is_ascii_digit).count() > MAX_BIN_ARG_DIGITS {
            return Err(Failure::new(Exit::Invalid, CliText::BinTooLong.get(lang)));
        }
        let mut draft = InstallmentDraft {
            pos_type: args.pos_type.unwrap_or_default(),
            sub_type: args.sub_type.unwrap_or_default(),
            amount: args.amount.unwrap_or_default(),
            ..InstallmentDraft::default()
        };
        draft.set_bin_from_input(&args.bin);
        let query = draft.validate().map_err(|e| invalid(&e, lang))?;
        let desk = self.desk(services)?;
        let list = desk.installments(&query).await.map_err(from_desk(lang))?;
        if args.json {
            return print_json(&list);
        }
        println!(
            "{} {} {} {}",
            list.bin_number.as_deref().unwrap_or_default(),
            list.bank_name.as_deref().unwrap_or_default(),
            list.card_family.as_deref().unwrap_or_default(),
            list.card_brand.as_deref().unwrap_or_default()
        );
        for o in &list.installments {
            let money = |d: Option<rust_decimal::Decimal>| {
                d.map(|d| format_amount(d, Currency::Try, lang))
                    .unwrap_or_default()
            };
            println!(
                "{}\t%{}\t{}\t{}\t{}",
                o.installment_count.unwrap_or_default(),
                o.commission_rate.unwrap_or_default(),
                money(o.installment_amount),
                money(o.total_amount),
                o.pos_type.as_deref().unwrap_or_default()
            );
        }
        Ok(())
    }

    async fn catalog_cmd(&self, services: &Services, command: CatalogArgs) -> Outcome {
        let lang = self.lang;
        match command {
            CatalogArgs::Import { file } => {
                // Read (at most the limit) before the store is locked.
                let bytes = crate::service::read_catalog_file(&file).map_err(from_desk(lang))?;
                let (report, _) = services
                    .catalog_import_csv(&self.actor, &bytes)
                    .await
                    .map_err(from_desk(lang))?;
                for e in &report.errors {
                    eprintln!("{}:{}: {}", file.display(), e.line, e.message(lang));
                }
                println!(
                    "{}",
                    CliText::VariantsImported.fill(lang, &[("n", &report.imported)])
                );
                if report.errors.is_empty() {
                    Ok(())
                } else {
                    Err(Failure {
                        exit: Exit::Invalid,
                        lines: vec![],
                    })
                }
            }
            CatalogArgs::List { json } => {
                let list = services.catalog_list().map_err(from_desk(lang))?;
                if json {
                    return print_json(&list);
                }
                // Tab-separated: id, name, price, barcode (empty when none).
                for v in list {
                    println!(
                        "{}\t{}\t{}\t{}",
                        v.id,
                        v.name,
                        format_amount(v.unit_price, v.currency, lang),
                        v.barcode.as_ref().map_or("", |b| b.as_str())
                    );
                }
                Ok(())
            }
        }
    }
}

impl Ctx {
    async fn report_cmd(&self, services: &Services, args: &ReportArgs) -> Outcome {
        let lang = self.lang;
        let zone = self.zone;
        let from = args
            .from
            .unwrap_or_else(|| zone.date_of(services.clock().now()));
        let to = args.to.unwrap_or(from);
        if to < from {
            return Err(Failure::new(Exit::Invalid, CliText::ToBeforeFrom.get(lang)));
        }
        let desk = self.desk(services)?;
        let reads = self.reads(services, &desk).await?;
        let (report, source) = reads
            .day_report((from, to), zone, args.this_desk)
            .await
            .map_err(from_desk(lang))?;
        self.say_source(&reads, source);
        if args.json {
            return print_json(&report);
        }
        let mut out = std::io::stdout().lock();
        write_report(&mut out, &report, lang)
            .map_err(|e| Failure::new(Exit::Failure, e.to_string()))
    }
}

/// The most digits `installments --bin` takes: a BIN is 6 (8 on newer cards), so anything
/// longer is (part of) a card number.
const MAX_BIN_ARG_DIGITS: usize = 8;

/// The shop's name a message gives when `--shop` does not: the e-mail account's sender name
/// (empty when e-mail is not set up: the message then names no shop).
pub(super) fn sender_name(services: &Services) -> String {
    services
        .mail_account()
        .ok()
        .flatten()
        .map(|a| a.from_name)
        .unwrap_or_default()
}
