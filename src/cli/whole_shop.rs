//! The command line on a desk in a shop (docs/design.md §8): `link list` and `report` over the
//! whole shop from PostgreSQL (`--this-desk` narrows them), the desk's own history when the
//! shop cannot be reached (said on stderr), `shop sync`'s read-back, and a changing command
//! pushing its own change before it exits when the shop answers within a second.

use std::time::Duration;

use serde::Serialize;

use super::args::ListArgs;
use super::output::{
    Exit, Failure, Outcome, from_desk, link_line, print_json, shop_failure, write_report,
};
use super::run::Ctx;
use super::text::CliText;
use crate::api::wire::PaymentLink;
use crate::domain::LinkStatus;
use crate::service::Services;
use crate::service::shop::{
    CONNECT_TIMEOUT, CatalogPulled, PullError, PushError, ReportScope, Shop, ShopError, ShopLink,
    ShopQuery, StaffPulled, changed_since, day_report, open_shop, read_page, verify_shop,
};
use crate::service::{ChainCheck, LinkCsvWriter};

/// How long a changing command waits for the shop before it leaves its change in the outbox.
pub const OWN_PUSH_BUDGET: Duration = Duration::from_secs(1);

/// The most links `shop sync` reads back in one go (it says how many moved, not each).
const READ_BACK_MAX: usize = 10_000;

/// A listed link of the shop: its fields, the member who began it and the desk that made it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    #[serde(flatten)]
    link: PaymentLink,
    staff: Option<&'a str>,
    desk: &'a str,
    desk_id: &'a str,
}

impl Ctx {
    /// The joined shop, connected for a read; `Ok(None)` when the desk has not joined, or when
    /// the shop cannot be reached (said on stderr: the caller shows this desk only).
    pub(super) async fn shop_for_read(&self, services: &Services) -> Result<Option<Shop>, Failure> {
        let Some(url) = self.joined_url(services)? else {
            return Ok(None);
        };
        let connected = match self.stored_password(services, &url) {
            Ok(pw) => open_shop(&url, &pw, CONNECT_TIMEOUT).await,
            Err(e) => Err(e),
        };
        match connected {
            Ok(shop) => Ok(Some(shop)),
            Err(e) => {
                eprintln!(
                    "{}",
                    CliText::ShopOffline.fill(self.lang, &[("reason", &e.sentence(self.lang))])
                );
                Ok(None)
            }
        }
    }

    /// `link list` over the shop.
    pub(super) async fn shop_link_list(
        &self,
        services: &Services,
        shop: &Shop,
        args: ListArgs,
    ) -> Outcome {
        let lang = self.lang;
        let fail = |e: ShopError| shop_failure(&e, lang);
        let desk = if args.this_desk {
            Some(self.desk_identity(services)?.id)
        } else {
            None
        };
        let mut query = ShopQuery {
            text: args.search,
            status: args.status,
            staff: None,
            desk,
            range: args.range,
            before: None,
            limit: args.limit,
        };
        if let Some(path) = args.csv {
            let file = crate::service::create_private_file(&path)
                .map_err(|e| Failure::new(Exit::Failure, format!("{}: {e}", path.display())))?;
            let failed = |e: &dyn std::fmt::Display| {
                Failure::new(Exit::Failure, format!("{}: {e}", path.display()))
            };
            let mut writer =
                LinkCsvWriter::new_with_desk(file, self.zone).map_err(|e| failed(&e))?;
            // Every matching link, a page at a time.
            query.limit = 1_000;
            loop {
                let page = read_page(shop, &query).await.map_err(fail)?;
                for l in &page {
                    writer
                        .write_with_desk(&l.stored(""), &l.desk_name)
                        .map_err(|e| failed(&e))?;
                }
                match page.last() {
                    Some(last) if page.len() == query.limit => query.before = Some(last.cursor()),
                    _ => break,
                }
            }
            let rows = writer.rows();
            writer.finish().map_err(|e| failed(&e))?;
            println!(
                "{}",
                CliText::LinksWritten.fill(lang, &[("n", &rows), ("path", &path.display())])
            );
            return Ok(());
        }
        let links = read_page(shop, &query).await.map_err(fail)?;
        if args.json {
            let listed: Vec<Listed<'_>> = links
                .iter()
                .map(|l| Listed {
                    link: PaymentLink::from(&l.link),
                    staff: l.staff.as_deref(),
                    desk: &l.desk_name,
                    desk_id: &l.desk_id,
                })
                .collect();
            return print_json(&listed);
        }
        for l in &links {
            println!("{}\t{}", link_line(&l.link, lang), l.desk_name);
        }
        Ok(())
    }

    /// `report` over the shop.
    pub(super) async fn shop_report(
        &self,
        services: &Services,
        shop: &mut Shop,
        scope: &ReportScope<'_>,
        json: bool,
    ) -> Outcome {
        let lang = self.lang;
        let head = services.audit_head().map_err(from_desk(lang))?;
        let report = day_report(shop, scope, head)
            .await
            .map_err(|e| shop_failure(&e, lang))?;
        if json {
            return print_json(&report);
        }
        let mut out = std::io::stdout().lock();
        write_report(&mut out, &report, lang)
            .map_err(|e| Failure::new(Exit::Failure, e.to_string()))
    }

    /// `shop sync`'s second half: reads what changed in the shop since the last sync and
    /// says what moved.
    pub(super) async fn shop_read_back(&self, services: &Services, shop: &Shop) -> Outcome {
        let lang = self.lang;
        let desk_id = self.desk_identity(services)?.id;
        let after = services.shop_read_rev().map_err(from_desk(lang))?;
        let changed = changed_since(shop, after, READ_BACK_MAX)
            .await
            .map_err(|e| shop_failure(&e, lang))?;
        let others = changed.iter().filter(|l| l.desk_id != desk_id).count();
        let paid = changed
            .iter()
            .filter(|l| l.link.status == LinkStatus::Completed)
            .count();
        if let Some(last) = changed.iter().map(|l: &ShopLink| l.rev).max() {
            services.set_shop_read_rev(last).map_err(from_desk(lang))?;
        }
        println!(
            "{}",
            CliText::ShopRead.fill(
                lang,
                &[("n", &changed.len()), ("others", &others), ("paid", &paid)]
            )
        );
        Ok(())
    }

    /// `shop sync`'s last part: the shop's catalog and staff mirrored into the desk's file
    /// when they changed, said when they did.
    pub(super) async fn shop_pull_shared(&self, services: &Services, shop: &mut Shop) -> Outcome {
        let lang = self.lang;
        let pulled = |e: PullError| {
            Failure::new(
                Exit::Failure,
                e.sentence(lang).unwrap_or_else(|| e.to_string()),
            )
        };
        if let CatalogPulled::Mirrored { variants, .. } =
            services.pull_catalog(shop).await.map_err(pulled)?
        {
            println!(
                "{}",
                CliText::ShopCatalogMirrored.fill(lang, &[("n", &variants)])
            );
        }
        if let StaffPulled::Mirrored { members, .. } =
            services.pull_staff(shop).await.map_err(pulled)?
        {
            println!(
                "{}",
                CliText::ShopStaffMirrored.fill(lang, &[("n", &members)])
            );
        }
        Ok(())
    }

    /// `audit verify` on a joined desk, after the desk's own chain: every desk's chain as the
    /// shop holds it (exit 6 naming the first desk whose chain is broken).
    pub(super) async fn shop_audit_verify(&self, services: &Services) -> Outcome {
        let lang = self.lang;
        let joined = self.joined_url(services)?.is_some();
        let Some(shop) = self.shop_for_read(services).await? else {
            // Joined but out of reach: the other desks' chains were not checked (exit 5).
            return if joined {
                Err(Failure::new(
                    Exit::Unknown,
                    CliText::AuditShopUnchecked.get(lang),
                ))
            } else {
                Ok(())
            };
        };
        let chains = verify_shop(&shop).await.map_err(|e| match e {
            PushError::Shop(e) => shop_failure(&e, lang),
            other => Failure::new(Exit::Failure, other.to_string()),
        })?;
        let mut broken = None;
        for chain in chains {
            match chain.check {
                ChainCheck::Whole { rows, head } => println!(
                    "{}",
                    CliText::AuditShopWhole.fill(
                        lang,
                        &[("name", &chain.name), ("n", &rows), ("head", &head)]
                    )
                ),
                ChainCheck::Broken { seq, why } => {
                    let line = CliText::AuditShopBroken
                        .fill(lang, &[("name", &chain.name), ("seq", &seq), ("why", &why)]);
                    println!("{line}");
                    broken.get_or_insert(line);
                }
                ChainCheck::HeadNotFound { .. } => {}
            }
        }
        match broken {
            Some(line) => Err(Failure::new(Exit::Broken, line)),
            None => Ok(()),
        }
    }

    /// After a command that added to the outbox: pushes it when the shop answers within
    /// [`OWN_PUSH_BUDGET`], else says the change waits in the outbox. Never fails the command:
    /// the change is saved on the desk either way.
    pub(super) async fn push_own_change(&self, services: &Services) {
        let lang = self.lang;
        let Ok(Some(url)) = self.joined_url(services) else {
            return;
        };
        let pushed = match self.stored_password(services, &url) {
            Err(e) => Err(e.sentence(lang)),
            Ok(pw) => {
                let attempt = async {
                    let mut shop = open_shop(&url, &pw, OWN_PUSH_BUDGET).await?;
                    services.push_to_shop(&mut shop).await.map_err(|e| match e {
                        PushError::Shop(e) => e,
                        PushError::Store(e) => ShopError::DataFile(e),
                        other @ PushError::Amount { .. } => {
                            ShopError::Unreadable(other.to_string())
                        }
                    })
                };
                match tokio::time::timeout(OWN_PUSH_BUDGET, attempt).await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(e)) => Err(e.sentence(lang)),
                    Err(_) => Err(ShopError::Timeout {
                        target: url.to_string(),
                        seconds: OWN_PUSH_BUDGET.as_secs(),
                    }
                    .sentence(lang)),
                }
            }
        };
        if let Err(reason) = pushed {
            let n = services.outbox_len().unwrap_or(0);
            eprintln!(
                "{}",
                CliText::ShopKeptInOutbox.fill(lang, &[("n", &n), ("reason", &reason)])
            );
        }
    }
}
