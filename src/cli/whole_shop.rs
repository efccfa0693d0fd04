//! The command line on a desk in a shop (docs/design.md §8): the reads of `link list` and
//! `report` through `service::shared::Reads` (the whole shop from PostgreSQL, `--this-desk`
//! narrows them; the desk's own history when the shop cannot be reached, said on stderr), `shop sync`'s read-back, and a changing command
//! pushing its own change before it exits when the shop answers within a second.

use std::time::Duration;

use super::output::{Exit, Failure, Outcome, from_desk, shop_failure};
use super::run::Ctx;
use super::text::CliText;
use crate::domain::LinkStatus;
use crate::service::ChainCheck;
use crate::service::shared::{Reads, Source};
use crate::service::shop::{
    CONNECT_TIMEOUT, CatalogPulled, PullError, PushError, Shop, ShopError, ShopLink, ShopReader,
    StaffPulled, Timing, changed_since, open_shop, verify_shop, verify_shop_chain,
};
use crate::service::{Desk, DeskError, Services};

/// How long a changing command waits for the shop before it leaves its change in the outbox.
pub const OWN_PUSH_BUDGET: Duration = Duration::from_secs(1);

/// The most links `shop sync` reads back in one go (it says how many moved, not each).
const READ_BACK_MAX: usize = 10_000;

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

    /// The reads of `desk`: through the joined shop when it answers (each read then falls
    /// back to this desk's own file on its own, `service::shared::Reads`), else this desk's.
    pub(super) async fn reads(&self, services: &Services, desk: &Desk) -> Result<Reads, Failure> {
        let shop = match self.shop_for_read(services).await? {
            Some(shop) => Some((
                ShopReader::over(shop, Timing::default()),
                self.desk_identity(services)?.id,
            )),
            None => None,
        };
        Ok(Reads::new(desk.clone(), shop))
    }

    /// Says on stderr that a read of a joined desk that reached its shop came from this desk
    /// only (the shop did not answer the query in time).
    pub(super) fn say_source(&self, reads: &Reads, source: Source) {
        if reads.through_shop() && source == Source::Desk {
            eprintln!(
                "{}",
                CliText::ShopOffline.fill(
                    self.lang,
                    &[("reason", &DeskError::ShopStopped.sentence(self.lang))]
                )
            );
        }
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
        let own = verify_shop_chain(&shop).await.map_err(|e| match e {
            PushError::Shop(e) => shop_failure(&e, lang),
            other => Failure::new(Exit::Failure, other.to_string()),
        })?;
        match own {
            ChainCheck::Whole { rows, head } => println!(
                "{}",
                CliText::AuditShopChainWhole.fill(lang, &[("n", &rows), ("head", &head)])
            ),
            ChainCheck::Broken { seq, why } => {
                let line =
                    CliText::AuditShopChainBroken.fill(lang, &[("seq", &seq), ("why", &why)]);
                println!("{line}");
                broken.get_or_insert(line);
            }
            ChainCheck::HeadNotFound { .. } => {}
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
