//! Runs a parsed command over the same core as the app (`service::Desk`) and prints the result.
//!
//! Exit codes: 0 done; 2 usage (clap); 3 invalid input, nothing sent (every field error
//! printed); 4 rejected by the server (key and sentence printed); 5 outcome unknown (the
//! journal keeps it; `pending retry` finishes it); 130 Ctrl+C at a hidden prompt, nothing
//! sent. Local failures (database, keyring) exit 1.
//! `--json` output carries response content only: never a PAN, CVV or secret.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use rust_decimal::Decimal;
use serde::Serialize;
use zeroize::Zeroizing;

use super::args::{
    CardCommand, CatalogCommand, Cli, Command, InstallmentsArgs, LinkCommand, LinkCreateArgs,
    PendingCommand, ProfileCommand, ReportArgs,
};
use crate::api::wire::{PaymentLink, format_time, parse_time};
use crate::clock::{Clock, SystemClock, Zone};
use crate::domain::card::CardDraft;
use crate::domain::errors::FieldErrors;
use crate::domain::installment::InstallmentDraft;
use crate::domain::items::ItemDraft;
use crate::domain::link::{LinkContext, LinkDraft};
use crate::domain::money::{format_amount, parse_amount};
use crate::domain::{Currency, LinkStatus};
use crate::lang::Lang;
use crate::printer::{Delivered, SlipSink};
use crate::secrets::{EnvSecret, OsSecrets, SecretStore, WithoutKeyring};
use crate::service::{CreateError, Desk, DeskError, SANDBOX_PROFILE, Services};
use crate::slip::Slip;
use crate::store::{DayReport, JournalState, LinkQuery, Profile, TimeRange, default_data_dir};
use crate::ui::text::T;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done.
    Ok = 0,
    /// A local failure (database, keyring, file).
    Failure = 1,
    /// Invalid input: nothing was sent.
    Invalid = 3,
    /// The server refused.
    Rejected = 4,
    /// The outcome is unknown; the journal keeps the request.
    Unknown = 5,
    /// Ctrl+C at a hidden prompt: nothing was sent (128 + SIGINT, as a shell reports it).
    Interrupted = 130,
}

/// What went wrong, already worded for the user.
struct Failure {
    exit: Exit,
    lines: Vec<String>,
}

impl Failure {
    fn new(exit: Exit, line: impl Into<String>) -> Self {
        Self {
            exit,
            lines: vec![line.into()],
        }
    }
}

type Outcome = Result<(), Failure>;

/// Runs the CLI command in `cli` (which must have one) and returns the process exit code.
/// `env_secret` is `PAYDESK_API_SECRET` as `main` read it (and removed it from the
/// environment).
pub fn run(cli: Cli, env_secret: EnvSecret) -> i32 {
    let lang = Lang::from_env();
    let command = match cli.command {
        None => return 2,
        Some(Command::Sandbox(args)) => {
            return match crate::sandbox::cli::run(&args) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("paydesk sandbox: {e}");
                    Exit::Failure as i32
                }
            };
        }
        Some(Command::Man) => {
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
        eprintln!(
            "{}",
            lang.pick(
                "Veri klasörü bulunamadı; --data-dir verin.",
                "No data folder found; give --data-dir."
            )
        );
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
    let ctx = Ctx {
        lang,
        env_secret,
        data_dir,
        profile: cli.profile.unwrap_or_else(|| SANDBOX_PROFILE.to_owned()),
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

struct Ctx {
    lang: Lang,
    env_secret: EnvSecret,
    data_dir: PathBuf,
    profile: String,
}

fn local(lang: Lang) -> impl Fn(DeskError) -> Failure {
    move |e| {
        if e.is_unknown_outcome() {
            return Failure::new(Exit::Unknown, e.sentence(lang));
        }
        if let DeskError::Call(crate::api::client::CallError::Api(api)) = &e {
            // Rejected by the server: the key (or the status), then the sentence.
            let key = api
                .key
                .clone()
                .unwrap_or_else(|| format!("HTTP {}", api.status));
            return Failure {
                exit: Exit::Rejected,
                lines: vec![key, e.sentence(lang)],
            };
        }
        Failure::new(Exit::Failure, e.sentence(lang))
    }
}

fn print_json<T: Serialize + ?Sized>(value: &T) -> Outcome {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
    println!("{text}");
    Ok(())
}

fn invalid(errors: &FieldErrors, lang: Lang) -> Failure {
    Failure {
        exit: Exit::Invalid,
        lines: errors.messages(lang),
    }
}

impl Ctx {
    fn services(&self) -> Result<Services, Failure> {
        let secrets: Arc<dyn SecretStore> = Arc::new(OsSecrets::open(WithoutKeyring::Refuse));
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        Services::open(&self.data_dir, secrets, clock, self.env_secret.value())
            .map_err(local(self.lang))
    }

    fn desk(&self, services: &Services) -> Result<Desk, Failure> {
        services.desk(&self.profile).map_err(local(self.lang))
    }

    async fn dispatch(&self, command: Command) -> Outcome {
        let services = self.services()?;
        match command {
            Command::Profile(c) => self.profile_cmd(&services, c),
            Command::Link(c) => self.link_cmd(&services, c).await,
            Command::Pending(c) => self.pending_cmd(&services, c).await,
            Command::Card(c) => self.card_cmd(&services, c).await,
            Command::Installments(a) => self.installments_cmd(&services, a).await,
            Command::Catalog(c) => self.catalog_cmd(&services, c),
            Command::Report(a) => self.report_cmd(&services, &a),
            // Handled in `run`, before a runtime or the store exist.
            Command::Sandbox(_) | Command::Man => Ok(()),
        }
    }

    fn profile_cmd(&self, services: &Services, command: ProfileCommand) -> Outcome {
        let lang = self.lang;
        match command {
            ProfileCommand::Add {
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
                let now = services.clock().now();
                services
                    .with_store_locked(|s| s.profile_add(&profile, now))
                    .map_err(local(lang))?;
                println!(
                    "{} {name}",
                    lang.pick("Profil kaydedildi:", "Profile saved:")
                );
                Ok(())
            }
            ProfileCommand::List { json } => {
                let profiles = services
                    .with_store_locked(|s| s.profile_list())
                    .map_err(local(lang))?;
                if json {
                    return print_json(&profiles.iter().map(ProfileView::from).collect::<Vec<_>>());
                }
                for p in profiles {
                    let badge = if p.is_sandbox {
                        lang.pick("  (sandbox: gerçek para yok)", "  (sandbox: no real money)")
                    } else {
                        ""
                    };
                    println!("{}\t{}\t{}{badge}", p.name, p.base_url, p.api_key);
                }
                Ok(())
            }
            ProfileCommand::Remove { name } => {
                services
                    .with_store_locked(|s| s.profile_remove(&name))
                    .map_err(local(lang))?;
                println!(
                    "{} {name}",
                    lang.pick("Profil silindi:", "Profile removed:")
                );
                Ok(())
            }
            ProfileCommand::SetSecret { name } => {
                let profile = services
                    .with_store_locked(|s| s.profile_get(&name))
                    .map_err(local(lang))?
                    .ok_or_else(|| {
                        Failure::new(
                            Exit::Invalid,
                            format!(
                                "{} `{name}`",
                                lang.pick("Böyle bir profil yok:", "No such profile:")
                            ),
                        )
                    })?;
                let secret = read_secret_line(lang.pick("API sırrı: ", "API secret: "))
                    .map_err(|e| read_failure(&e, lang))?;
                if secret.is_empty() {
                    return Err(Failure::new(
                        Exit::Invalid,
                        lang.pick("Sır boş olamaz.", "The secret cannot be empty."),
                    ));
                }
                services
                    .secrets()
                    .set(&profile.name, &profile.api_key, &secret)
                    .map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
                println!(
                    "{}",
                    lang.pick(
                        "Sır anahtarlığa kaydedildi.",
                        "Secret stored in the keyring."
                    )
                );
                Ok(())
            }
        }
    }

    async fn link_cmd(&self, services: &Services, command: LinkCommand) -> Outcome {
        let lang = self.lang;
        let desk = self.desk(services)?;
        match command {
            LinkCommand::Create(args) => self.link_create(&desk, *args).await,
            LinkCommand::List {
                search,
                status,
                from,
                to,
                limit,
                json,
                csv,
            } => {
                let status = status.map(|s| LinkStatus::from_wire(&s));
                let query = LinkQuery {
                    text: search,
                    status,
                    limit,
                    before: None,
                };
                let range = TimeRange::between(from, to, Zone::Local);
                if let Some(path) = csv {
                    return export_csv(&desk, &query, range, &path, lang);
                }
                let page = desk.history_in(&query, range).map_err(local(lang))?;
                let links: Vec<&PaymentLink> = page.links.iter().map(|s| &s.link).collect();
                if json {
                    return print_json(&links);
                }
                for l in links {
                    println!("{}", link_line(l, lang));
                }
                Ok(())
            }
            LinkCommand::Show { id, refresh, json } => {
                let link = if refresh {
                    desk.link_detail(&id).await
                } else {
                    desk.history_link(&id)
                }
                .map_err(local(lang))?;
                if json {
                    print_json(&link)
                } else {
                    print_link(&link, lang)
                }
            }
            LinkCommand::Cancel { id, json } => {
                let link = desk.cancel_link(&id).await.map_err(local(lang))?;
                if json {
                    print_json(&link)
                } else {
                    print_link(&link, lang)
                }
            }
            LinkCommand::Qr { id, png } => {
                let link = desk.history_link(&id).map_err(local(lang))?;
                let url = link.payment_url.as_deref().unwrap_or_default();
                let bytes = crate::qr::QrImage::of_text(url, PNG_SCALE)
                    .and_then(|img| img.to_png())
                    .map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
                std::fs::write(&png, bytes)
                    .map_err(|e| Failure::new(Exit::Failure, format!("{}: {e}", png.display())))?;
                println!("{}", png.display());
                Ok(())
            }
            LinkCommand::Slip {
                id,
                size,
                out,
                shop,
            } => {
                let link = desk.history_link(&id).map_err(local(lang))?;
                let slip = Slip::of_link(&link, shop.as_deref().unwrap_or_default(), lang)
                    .ok_or_else(|| Failure::new(Exit::Failure, T::NoPaymentUrl.get(lang)))?;
                let failed = |e: &dyn std::fmt::Display| {
                    Failure::new(Exit::Failure, format!("{} {e}", T::SlipFailed.get(lang)))
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
                        println!("{} {printer}", T::SlipPrinted.get(lang));
                    }
                    Delivered::Saved(path) => {
                        println!("{} {}", T::SlipSaved.get(lang), path.display());
                    }
                }
                Ok(())
            }
        }
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
                    format!(
                        "--expiry: `{text}` {}",
                        lang.pick("ISO-8601 bir zaman değil", "is not an ISO-8601 time")
                    ),
                )
            })?),
            (None, None) => None,
        };
        let order_number = match args.order_number {
            Some(n) => n,
            None => desk.next_order_number().map_err(local(lang))?,
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
        let catalog = desk.catalog().map_err(local(lang))?;
        let ctx = LinkContext {
            now,
            catalog: &catalog,
            limits: desk.limits(),
        };
        let request = draft.validate(&ctx).map_err(|e| invalid(&e, lang))?;
        match desk.create_link(&request).await {
            Ok(link) => {
                if args.json {
                    print_json(&link)?;
                } else {
                    println!("{}", link.id);
                    println!("{}", link.status.as_ref().map_or("", LinkStatus::as_str));
                    println!("{}", link.payment_url.as_deref().unwrap_or_default());
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

    async fn pending_cmd(&self, services: &Services, command: PendingCommand) -> Outcome {
        let lang = self.lang;
        let desk = self.desk(services)?;
        match command {
            PendingCommand::List { json } => {
                let rows = desk.pending().map_err(local(lang))?;
                if json {
                    return print_json(&rows.iter().map(PendingView::from).collect::<Vec<_>>());
                }
                for r in &rows {
                    let v = PendingView::from(r);
                    println!(
                        "{}\t{}\t{} {}\t{}\t{}\t{}",
                        v.key,
                        v.state,
                        v.amount,
                        v.currency,
                        v.attempts,
                        v.created_at,
                        v.last_error.unwrap_or_default()
                    );
                }
                Ok(())
            }
            PendingCommand::Retry { key, all, force } => {
                if all {
                    let results = desk.resume_pending().await.map_err(local(lang))?;
                    let mut worst = Exit::Ok;
                    for (key, result) in results {
                        match result {
                            Ok(link) => println!(
                                "{key}\t{}\t{}",
                                link.id,
                                link.payment_url.as_deref().unwrap_or_default()
                            ),
                            Err(e) => {
                                let f = create_failure(&e, lang);
                                worst = worst.max_code(f.exit);
                                eprintln!("{key}\t{}", f.lines.join(" "));
                            }
                        }
                    }
                    // Stale rows (the server may have forgotten their keys) are not re-sent: say so,
                    // rather than let "retry --all" look like it finished everything.
                    let stale = desk.pending().map_err(local(lang))?;
                    for row in stale.iter().filter(|r| r.state == JournalState::Stale) {
                        let e = CreateError::Stale {
                            key: row.key.key.clone(),
                        };
                        let f = create_failure(&e, lang);
                        worst = worst.max_code(f.exit);
                        eprintln!("{}\t{}", row.key.key, f.lines.join(" "));
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
                println!(
                    "{}\t{}",
                    link.id,
                    link.payment_url.as_deref().unwrap_or_default()
                );
                Ok(())
            }
            PendingCommand::Abandon { key } => {
                desk.abandon_pending(&key).map_err(local(lang))?;
                println!("{} {key}", lang.pick("Bırakıldı:", "Abandoned:"));
                Ok(())
            }
        }
    }

    async fn card_cmd(&self, services: &Services, command: CardCommand) -> Outcome {
        let lang = self.lang;
        let CardCommand::Save {
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
        let number = read_secret_line(lang.pick("Kart numarası: ", "Card number: "))
            .map_err(|e| read_failure(&e, lang))?;
        // The CVV is optional: no line (end of input) is no CVV, but Ctrl+C still stops.
        let cvv = match read_secret_line(lang.pick("CVV (isteğe bağlı): ", "CVV (optional): ")) {
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
            let mut f = local(lang)(e);
            if f.exit == Exit::Unknown {
                f.lines.push(lang.pick(
                    "Kartın kaydedilip kaydedilmediği bilinmiyor; otomatik olarak tekrar denenmedi. Kart listesini kontrol edin.",
                    "Whether the card was saved is unknown; it was not retried automatically. Check the saved cards first.",
                ).to_owned());
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
            return Err(Failure::new(
                Exit::Invalid,
                format!(
                    "--bin: {}",
                    lang.pick(
                        "en fazla 8 rakam verin (BIN kartın ilk 6 hanesidir). Kart numarasının tamamı komut satırına yazılmamalı: kabuk geçmişinde ve süreç listesinde kalır. Hiçbir şey gönderilmedi.",
                        "give at most 8 digits (the BIN is the card's first 6). A whole card number must not go on the command line: it stays in the shell history and the process list. Nothing was sent.",
                    )
                ),
            ));
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
        let list = desk.installments(&query).await.map_err(local(lang))?;
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

    fn catalog_cmd(&self, services: &Services, command: CatalogCommand) -> Outcome {
        let lang = self.lang;
        match command {
            CatalogCommand::Import { file } => {
                let reader = std::fs::File::open(&file)
                    .map_err(|e| Failure::new(Exit::Failure, format!("{}: {e}", file.display())))?;
                let report = services
                    .with_store_locked(|s| s.catalog_import_csv(std::io::BufReader::new(reader)))
                    .map_err(local(lang))?;
                for e in &report.errors {
                    eprintln!("{}:{}: {}", file.display(), e.line, e.message(lang));
                }
                println!(
                    "{} {}",
                    report.imported,
                    lang.pick("ürün içe aktarıldı", "variants imported")
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
            CatalogCommand::List { json } => {
                let list = services
                    .with_store_locked(|s| s.catalog_list())
                    .map_err(local(lang))?;
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
    fn report_cmd(&self, services: &Services, args: &ReportArgs) -> Outcome {
        let lang = self.lang;
        let zone = Zone::Local;
        let from = args
            .from
            .unwrap_or_else(|| zone.date_of(services.clock().now()));
        let to = args.to.unwrap_or(from);
        if to < from {
            return Err(Failure::new(
                Exit::Invalid,
                lang.pick(
                    "--to, --from gününden önce olamaz.",
                    "--to cannot be before --from.",
                ),
            ));
        }
        let desk = self.desk(services)?;
        let report = desk.day_report(from, to, zone).map_err(local(lang))?;
        if args.json {
            return print_json(&report);
        }
        let mut out = std::io::stdout().lock();
        write_report(&mut out, &report, lang)
            .map_err(|e| Failure::new(Exit::Failure, e.to_string()))
    }
}

/// Writes every matching link to `path` as CSV and says how many.
fn export_csv(
    desk: &Desk,
    query: &LinkQuery,
    range: Option<TimeRange>,
    path: &std::path::Path,
    lang: Lang,
) -> Outcome {
    let file = std::fs::File::create(path)
        .map_err(|e| Failure::new(Exit::Failure, format!("{}: {e}", path.display())))?;
    let rows = desk
        .export_history_csv(query, range, Zone::Local, file)
        .map_err(|e| {
            Failure::new(
                Exit::Failure,
                format!("{}: {}", path.display(), e.sentence(lang)),
            )
        })?;
    println!(
        "{rows} {} {}",
        lang.pick("link yazıldı:", "links written to"),
        path.display()
    );
    Ok(())
}

/// The day report as text: a small table per currency, the hours with money, the top items.
fn write_report(out: &mut impl Write, r: &DayReport, lang: Lang) -> std::io::Result<()> {
    let days = if r.from == r.to {
        r.from.to_string()
    } else {
        format!("{} – {}", r.from, r.to)
    };
    writeln!(
        out,
        "{} {days} (UTC{})",
        lang.pick("Gün sonu", "Day close"),
        r.utc_offset
    )?;
    if r.currencies.is_empty() {
        writeln!(
            out,
            "{}",
            lang.pick(
                "Bu günlerde oluşturulan link yok.",
                "No links were created on these days."
            )
        )?;
        return Ok(());
    }
    for c in &r.currencies {
        let money = |d: Decimal| format_amount(d, c.currency, lang);
        writeln!(out)?;
        writeln!(out, "{}", c.currency)?;
        let mut rows = vec![
            (
                lang.pick("oluşturulan link", "links created"),
                c.created,
                None,
            ),
            (
                lang.pick("tamamı ödendi", "paid in full"),
                c.paid.count,
                Some(c.paid.sum),
            ),
            (
                lang.pick("kısmen ödendi", "partially paid"),
                c.partially_paid.count,
                Some(c.partially_paid.sum),
            ),
            (
                lang.pick("ödeme bekliyor", "still pending"),
                c.pending,
                None,
            ),
            (lang.pick("süresi doldu", "expired"), c.expired, None),
            (lang.pick("iptal edildi", "cancelled"), c.cancelled, None),
        ];
        if c.other > 0 {
            rows.push((
                lang.pick(
                    "diğer (reddedilen, incelemede)",
                    "other (rejected, in review)",
                ),
                c.other,
                None,
            ));
        }
        for (label, count, sum) in rows {
            let sum = sum.map(money).unwrap_or_default();
            let line = format!("  {label:<32}{count:>6}  {sum:>16}");
            writeln!(out, "{}", line.trim_end())?;
        }
        writeln!(
            out,
            "  {:<32}{:>6}  {:>16}",
            lang.pick("tahsil edilen", "collected"),
            "",
            money(c.collected)
        )?;
        let hours: Vec<String> = c
            .collected_by_hour
            .iter()
            .enumerate()
            .filter(|(_, d)| !d.is_zero())
            .map(|(h, d)| format!("{h:02}:00 {}", money(*d)))
            .collect();
        if !hours.is_empty() {
            writeln!(
                out,
                "  {}: {}",
                lang.pick("saat saat tahsilat", "collected per hour"),
                hours.join(" · ")
            )?;
        }
    }
    writeln!(out)?;
    if r.top_items.is_empty() {
        writeln!(
            out,
            "{}",
            lang.pick("Ödenen linklerde ürün yok.", "No items on the paid links.")
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "{}",
        lang.pick("En çok satanlar", "Best-selling items")
    )?;
    for i in &r.top_items {
        let sum = i
            .sum
            .map_or_else(|| "—".to_owned(), |d| format_amount(d, i.currency, lang));
        writeln!(out, "  {:<28}{:>6}  {sum:>16}", i.name, i.quantity)?;
    }
    Ok(())
}

impl Exit {
    /// The more serious of two outcomes (unknown over rejected over invalid).
    fn max_code(self, other: Exit) -> Exit {
        if (other as i32) > (self as i32) {
            other
        } else {
            self
        }
    }
}

fn create_failure(e: &CreateError, lang: Lang) -> Failure {
    let exit = match e {
        // The server may hold the link: the journal keeps the row, `pending` finishes it.
        CreateError::Unknown { .. }
        | CreateError::InProgress { .. }
        | CreateError::Stale { .. } => Exit::Unknown,
        CreateError::Rejected(_)
        | CreateError::AlreadyHasLink(_)
        | CreateError::Conflict { .. } => Exit::Rejected,
        CreateError::NotFound(_) => Exit::Invalid,
        CreateError::Desk(d) if d.is_unknown_outcome() => Exit::Unknown,
        CreateError::Desk(_) => Exit::Failure,
    };
    let mut lines = Vec::new();
    if let CreateError::Rejected(api) = e {
        lines.push(
            api.key
                .clone()
                .unwrap_or_else(|| format!("HTTP {}", api.status)),
        );
    }
    lines.push(e.sentence(lang));
    Failure { exit, lines }
}

fn link_line(l: &PaymentLink, lang: Lang) -> String {
    let amount = match (l.amount, l.currency) {
        (Some(a), Some(c)) => format_amount(a, c, lang),
        _ => String::new(),
    };
    format!(
        "{}\t{}\t{}\t{}\t{}",
        l.id,
        l.order_number.as_deref().unwrap_or_default(),
        amount,
        l.status.as_ref().map_or("", LinkStatus::as_str),
        l.created_date.map(format_time).unwrap_or_default()
    )
}

fn print_link(l: &PaymentLink, lang: Lang) -> Outcome {
    let mut out = std::io::stdout().lock();
    let money = |d: Option<rust_decimal::Decimal>| match (d, l.currency) {
        (Some(a), Some(c)) => format_amount(a, c, lang),
        _ => String::new(),
    };
    let rows = [
        ("id", l.id.clone()),
        (
            lang.pick("sipariş", "order"),
            l.order_number.clone().unwrap_or_default(),
        ),
        (
            lang.pick("referans", "reference"),
            l.reference_number.clone().unwrap_or_default(),
        ),
        (
            lang.pick("durum", "status"),
            l.status
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
        ),
        (lang.pick("tutar", "amount"), money(l.amount)),
        (lang.pick("ödenen", "paid"), money(l.paid_amount)),
        (lang.pick("kalan", "remaining"), money(l.remaining_amount)),
        ("url", l.payment_url.clone().unwrap_or_default()),
        (
            lang.pick("son geçerlilik", "expires"),
            l.expiry_date.map(format_time).unwrap_or_default(),
        ),
    ];
    for (k, v) in rows {
        writeln!(out, "{k:<16}{v}").map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
    }
    Ok(())
}

/// A pending row as printed: no body (it may hold payer contact data).
#[derive(Serialize)]
struct PendingView {
    key: String,
    order_number: String,
    state: String,
    amount: String,
    currency: String,
    attempts: u32,
    last_error: Option<String>,
    created_at: String,
}

impl From<&crate::store::JournalRow> for PendingView {
    fn from(r: &crate::store::JournalRow) -> Self {
        Self {
            key: r.key.key.clone(),
            order_number: r.order_number.clone().unwrap_or_default(),
            state: match r.state {
                JournalState::Stale => {
                    "stale (23 h or older: check the server, then retry with --force)".to_owned()
                }
                s => s.as_str().to_owned(),
            },
            amount: r.amount.map(|a| a.to_string()).unwrap_or_default(),
            currency: r.currency.map(|c| c.to_string()).unwrap_or_default(),
            attempts: r.attempts,
            last_error: r.last_error.clone(),
            created_at: format_time(r.created_at),
        }
    }
}

/// A profile as listed: never a secret (the profile holds none).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProfileView {
    name: String,
    base_url: String,
    api_key: String,
    amount_limit: Option<String>,
    max_items: Option<u32>,
    order_prefix: String,
    sandbox: bool,
}

impl From<&Profile> for ProfileView {
    fn from(p: &Profile) -> Self {
        Self {
            name: p.name.clone(),
            base_url: p.base_url.clone(),
            api_key: p.api_key.clone(),
            amount_limit: p.amount_limit.map(|a| a.to_string()),
            max_items: p.max_items,
            order_prefix: p.order_prefix.clone(),
            sandbox: p.is_sandbox,
        }
    }
}

/// The most digits `installments --bin` takes: a BIN is 6 (8 on newer cards), so anything
/// longer is (part of) a card number.
const MAX_BIN_ARG_DIGITS: usize = 8;

/// Pixels per module of `link qr --png`.
const PNG_SCALE: usize = 10;

/// A failed secret read as the user sees it: Ctrl+C is exit 130 with a short line.
fn read_failure(e: &std::io::Error, lang: Lang) -> Failure {
    if e.kind() == std::io::ErrorKind::Interrupted {
        return Failure::new(
            Exit::Interrupted,
            lang.pick(
                "Durduruldu; hiçbir şey gönderilmedi.",
                "Stopped; nothing was sent.",
            ),
        );
    }
    Failure::new(Exit::Failure, e.to_string())
}

/// Reads one secret line (an API secret, a card number, a CVV) into a zeroizing buffer. On a
/// terminal it prompts there and reads with echo off through `rpassword` (also on the
/// Windows console); from a pipe or a file it reads one line of stdin, so scripts can feed
/// it. Ctrl+C at the prompt is `ErrorKind::Interrupted`, with the terminal restored.
fn read_secret_line(prompt: &str) -> std::io::Result<Zeroizing<String>> {
    let stdin = std::io::stdin();
    let line = if stdin.is_terminal() {
        let _open = ctrl_c::PromptOpen::new();
        Zeroizing::new(rpassword::prompt_password(prompt)?)
    } else {
        let mut line = Zeroizing::new(String::new());
        stdin.lock().read_line(&mut line)?;
        line
    };
    Ok(Zeroizing::new(line.trim().to_owned()))
}

/// Ctrl+C around a hidden prompt. `rpassword` reads the terminal raw with echo off, so
/// Ctrl+C reaches it as a key; it then raises SIGINT itself, and SIGINT's default action ends
/// the process before `rpassword` has put the terminal back: a shell that does not restore
/// it (dash, a script) is left without echo. So while a prompt is open paydesk listens for
/// SIGINT (tokio's handler) and ignores it there: `rpassword` restores the terminal and
/// returns `Interrupted`, and the command exits 130. Once listening, a Ctrl+C outside a
/// prompt exits 130 at once, as the default action would have ended the process.
mod ctrl_c {
    use std::sync::Once;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::Exit;

    /// Hidden prompts open now.
    static OPEN: AtomicUsize = AtomicUsize::new(0);
    static LISTEN: Once = Once::new();

    /// Marks a prompt open for its lifetime (the listener starts with the first one).
    pub(super) struct PromptOpen(());

    impl PromptOpen {
        pub(super) fn new() -> Self {
            LISTEN.call_once(listen);
            OPEN.fetch_add(1, Ordering::SeqCst);
            PromptOpen(())
        }
    }

    impl Drop for PromptOpen {
        fn drop(&mut self) {
            OPEN.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Installs the handler now (before the prompt reads a key) and spawns its task on the
    /// CLI's runtime; without a runtime the default action stays.
    #[cfg(any(unix, windows))]
    fn listen() {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        #[cfg(unix)]
        let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt());
        #[cfg(windows)]
        let signal = tokio::signal::windows::ctrl_c();
        let Ok(mut signal) = signal else {
            return;
        };
        runtime.spawn(async move {
            while signal.recv().await.is_some() {
                if OPEN.load(Ordering::SeqCst) == 0 {
                    std::process::exit(Exit::Interrupted as i32);
                }
            }
        });
    }

    #[cfg(not(any(unix, windows)))]
    fn listen() {}
}
