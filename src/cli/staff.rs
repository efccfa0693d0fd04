//! Staff at the command line: who runs a command (`--as NAME` and a PIN, checked against the
//! role table before anything is sent), and the `staff` and `audit` commands.

use std::io::IsTerminal;

use serde::Serialize;
use zeroize::Zeroizing;

use super::args::{AuditArgs, CommandArgs, LinkArgs, StaffArgs};
use super::output::{Exit, Failure, Outcome, from_desk, print_json, read_failure};
use super::prompt::read_secret_line;
use super::run::Ctx;
use super::text::CliText;
use crate::domain::roles::{self, Need, Permit};
use crate::domain::{Actor, Pin, Role, StaffName};
use crate::service::{AuditFilter, ChainCheck, DeskError, StaffError, StoreError};
use crate::service::{Services, staff_sentence};

/// The role table for the command line, as one exhaustive match: a parsed command's path of
/// subcommand names (with `--csv` where that flag makes `link list` an export), as the
/// refusals and the audit name it, and what it needs. A new command does not build until it
/// has its row here.
pub(super) fn rule(command: &CommandArgs) -> (&'static str, Need) {
    match command {
        CommandArgs::Profile(c) => match c {
            super::args::ProfileArgs::Add { .. } => ("profile add", Need::Manager),
            super::args::ProfileArgs::List { .. } => ("profile list", Need::Member),
            super::args::ProfileArgs::Remove { .. } => ("profile remove", Need::Manager),
            super::args::ProfileArgs::SetSecret { .. } => ("profile set-secret", Need::Manager),
        },
        CommandArgs::Link(c) => match c {
            LinkArgs::Create(_) => ("link create", Need::Member),
            LinkArgs::List { csv: Some(_), .. } => ("link list --csv", Need::Manager),
            LinkArgs::List { .. } => ("link list", Need::Member),
            LinkArgs::Show { .. } => ("link show", Need::Member),
            LinkArgs::Cancel { .. } => ("link cancel", Need::OwnUnpaidOrManager),
            LinkArgs::Qr { .. } => ("link qr", Need::Member),
            LinkArgs::Slip { .. } => ("link slip", Need::Member),
            LinkArgs::Send { .. } => ("link send", Need::Member),
            LinkArgs::Renew { .. } => ("link renew", Need::Member),
            LinkArgs::Receipt { .. } => ("link receipt", Need::Member),
        },
        CommandArgs::Pending(c) => match c {
            super::args::PendingArgs::List { .. } => ("pending list", Need::Member),
            super::args::PendingArgs::Retry { .. } => ("pending retry", Need::Member),
            super::args::PendingArgs::Abandon { .. } => ("pending abandon", Need::Manager),
        },
        CommandArgs::Card(super::args::CardArgs::Save { .. }) => ("card save", Need::Manager),
        CommandArgs::Installments(_) => ("installments", Need::Member),
        CommandArgs::Catalog(c) => match c {
            super::args::CatalogArgs::Import { .. } => ("catalog import", Need::Manager),
            super::args::CatalogArgs::List { .. } => ("catalog list", Need::Member),
        },
        CommandArgs::Report(_) => ("report", Need::Manager),
        CommandArgs::Staff(c) => match c {
            StaffArgs::Add { .. } => ("staff add", Need::Manager),
            StaffArgs::List { .. } => ("staff list", Need::Member),
            StaffArgs::Disable { .. } => ("staff disable", Need::Manager),
            StaffArgs::Enable { .. } => ("staff enable", Need::Manager),
            StaffArgs::ResetPin { .. } => ("staff reset-pin", Need::Manager),
        },
        CommandArgs::Audit(c) => match c {
            AuditArgs::List { .. } => ("audit list", Need::Manager),
            AuditArgs::Verify { .. } => ("audit verify", Need::Anyone),
        },
        CommandArgs::Shop(c) => match c {
            super::args::ShopArgs::Join { .. } => ("shop join", Need::Manager),
            super::args::ShopArgs::Status { .. } => ("shop status", Need::Anyone),
            // What a desk may push is what its outbox holds, whoever asks; and a desk whose
            // staff rows were emptied gets the shop's back through it.
            super::args::ShopArgs::Sync => ("shop sync", Need::Anyone),
            super::args::ShopArgs::Leave => ("shop leave", Need::Manager),
            super::args::ShopArgs::Name { .. } => ("shop name", Need::Manager),
            // The owner's password is the authority; nothing of this desk is read or changed.
            super::args::ShopArgs::Init { .. } => ("shop init", Need::Anyone),
            super::args::ShopArgs::AddDesk { .. } => ("shop add-desk", Need::Anyone),
            super::args::ShopArgs::RemoveDesk { .. } => ("shop remove-desk", Need::Anyone),
            super::args::ShopArgs::Desks { .. } => ("shop desks", Need::Anyone),
            super::args::ShopArgs::AddManager { .. } => ("shop add-manager", Need::Anyone),
        },
        CommandArgs::Mail(c) => match c {
            super::args::MailArgs::Set { .. } => ("mail set", Need::Manager),
            super::args::MailArgs::Test { .. } => ("mail test", Need::Manager),
            super::args::MailArgs::Status { .. } => ("mail status", Need::Manager),
            super::args::MailArgs::Flush => ("mail flush", Need::Manager),
        },
        CommandArgs::Sandbox(_) => ("sandbox", Need::Anyone),
        CommandArgs::Man => ("man", Need::Anyone),
    }
}

/// A refusal before anything is sent: exit 3.
pub(super) fn refused(text: String) -> Failure {
    Failure::new(Exit::Invalid, text)
}

/// Whether `command`, when it succeeds, writes an audit row of its own naming the member who
/// ran it (then signing in writes no second row). Exhaustive, as [`rule`] is.
fn records_itself(command: &CommandArgs) -> bool {
    use super::args::{CardArgs, CatalogArgs, MailArgs, PendingArgs, ProfileArgs, ShopArgs};
    match command {
        CommandArgs::Profile(c) => match c {
            ProfileArgs::Add { .. }
            | ProfileArgs::Remove { .. }
            | ProfileArgs::SetSecret { .. } => true,
            ProfileArgs::List { .. } => false,
        },
        CommandArgs::Link(c) => match c {
            LinkArgs::Create(_)
            | LinkArgs::Cancel { .. }
            | LinkArgs::Renew(_)
            | LinkArgs::Receipt { .. } => true,
            // Printed for the clerk to paste: nothing was sent, nothing recorded.
            LinkArgs::Send(args) => args.whatsapp || args.email.is_some(),
            LinkArgs::List { .. }
            | LinkArgs::Show { .. }
            | LinkArgs::Qr { .. }
            | LinkArgs::Slip { .. } => false,
        },
        CommandArgs::Card(CardArgs::Save { .. }) => true,
        CommandArgs::Catalog(c) => match c {
            CatalogArgs::Import { .. } => true,
            CatalogArgs::List { .. } => false,
        },
        CommandArgs::Staff(c) => match c {
            StaffArgs::Add { .. }
            | StaffArgs::Disable { .. }
            | StaffArgs::Enable { .. }
            | StaffArgs::ResetPin { .. } => true,
            StaffArgs::List { .. } => false,
        },
        CommandArgs::Mail(c) => match c {
            MailArgs::Set { .. } => true,
            MailArgs::Test { .. } | MailArgs::Status { .. } | MailArgs::Flush => false,
        },
        // A retry may end with nothing written; an abandon writes no row.
        CommandArgs::Pending(c) => match c {
            PendingArgs::List { .. } | PendingArgs::Retry { .. } | PendingArgs::Abandon { .. } => {
                false
            }
        },
        CommandArgs::Shop(c) => match c {
            ShopArgs::Join { .. }
            | ShopArgs::Status { .. }
            | ShopArgs::Sync
            | ShopArgs::Leave
            | ShopArgs::Name { .. }
            | ShopArgs::Init { .. }
            | ShopArgs::AddDesk { .. }
            | ShopArgs::RemoveDesk { .. }
            | ShopArgs::Desks { .. }
            | ShopArgs::AddManager { .. } => false,
        },
        CommandArgs::Installments(_)
        | CommandArgs::Report(_)
        | CommandArgs::Audit(_)
        | CommandArgs::Sandbox(_)
        | CommandArgs::Man => false,
    }
}

impl Ctx {
    /// Who runs `command`: nobody with staff off or for a command anyone may run; else the
    /// member named by `--as`, once the PIN matches and the role table allows the command.
    /// Refusals exit 3 before anything is sent.
    pub(super) async fn sign_in(
        &self,
        services: &Services,
        command: &CommandArgs,
    ) -> Result<Actor, Failure> {
        let lang = self.lang;
        let (path, need) = rule(command);
        if need == Need::Anyone {
            return Ok(Actor::nobody());
        }
        let staff_on = services.staff_on_now().await.map_err(from_desk(lang))?;
        if !staff_on {
            return Ok(Actor::nobody());
        }
        let Some(name) = self.as_staff.as_deref() else {
            return Err(refused(
                CliText::StaffNeedAs.fill(lang, &[("command", &path)]),
            ));
        };
        let pin = self.staff_pin(&CliText::PinPrompt.fill(lang, &[("name", &name)]))?;
        // A command that records itself names the member in its own audit row; any other
        // (a read, an export) has the sign-in row as its only record.
        let subject = format!("cli: {path}");
        let checked = if records_itself(command) {
            services.staff_check(name, &pin, &subject).await
        } else {
            services.staff_sign_in(name, &pin, &subject).await
        };
        let member = checked.map_err(|e| desk_failure(e, lang))?;
        let actor = Actor::member(&member.name, member.role);
        // `link cancel` of the clerk's own unpaid link is the service's check (it needs the
        // link); here the row's role alone.
        let row_need = if need == Need::OwnUnpaidOrManager {
            Need::Member
        } else {
            need
        };
        match roles::permit(row_need, true, &actor, None) {
            Permit::Allowed => Ok(actor),
            Permit::SignInFirst | Permit::NeedsManager => {
                Err(refused(CliText::StaffRoleRefused.fill(
                    lang,
                    &[
                        ("name", &member.name),
                        ("role", &member.role.as_str()),
                        ("command", &path),
                    ],
                )))
            }
        }
    }

    /// The signing-in member's PIN: `PAYDESK_STAFF_PIN` (read once at start), else a hidden
    /// prompt on a terminal, else the first line of stdin.
    fn staff_pin(&self, prompt: &str) -> Result<Pin, Failure> {
        let lang = self.lang;
        let typed: Zeroizing<String> = match self.env_pin.value() {
            Some(pin) => pin,
            None => read_secret_line(prompt).map_err(|e| read_failure(&e, lang))?,
        };
        Pin::parse(&typed).map_err(|_| refused(CliText::PinShape.get(lang).to_owned()))
    }

    /// A new member's PIN from stdin: asked twice on a terminal.
    pub(super) fn new_pin(&self, name: &str) -> Result<Pin, Failure> {
        let lang = self.lang;
        let first = read_secret_line(&CliText::NewPinPrompt.fill(lang, &[("name", &name)]))
            .map_err(|e| read_failure(&e, lang))?;
        if std::io::stdin().is_terminal() {
            let again = read_secret_line(CliText::NewPinAgain.get(lang))
                .map_err(|e| read_failure(&e, lang))?;
            if *again != *first {
                return Err(refused(CliText::PinsDiffer.get(lang).to_owned()));
            }
        }
        Pin::parse(&first).map_err(|_| refused(CliText::PinShape.get(lang).to_owned()))
    }

    pub(super) async fn staff_cmd(&self, services: &Services, command: StaffArgs) -> Outcome {
        let lang = self.lang;
        let actor = &self.actor;
        let store_failure = |e| desk_failure(e, lang);
        match command {
            StaffArgs::Add { name, role } => {
                let Some(role) = Role::parse(&role) else {
                    return Err(refused(CliText::RoleShape.get(lang).to_owned()));
                };
                let name = StaffName::parse(&name)
                    .map_err(|_| refused(CliText::StaffNameShape.get(lang).to_owned()))?;
                let first = !services.staff_on().map_err(from_desk(lang))?;
                if first && role != Role::Manager {
                    return Err(staff_failure(&StaffError::FirstMustBeManager.into(), lang));
                }
                let pin = self.new_pin(name.as_str())?;
                services
                    .staff_add(actor, &name, role, &pin)
                    .await
                    .map_err(store_failure)?;
                println!(
                    "{}",
                    CliText::StaffAdded.fill(lang, &[("name", &name), ("role", &role.as_str())])
                );
                Ok(())
            }
            StaffArgs::List { json } => {
                let list = services.staff_list().map_err(from_desk(lang))?;
                if json {
                    #[derive(Serialize)]
                    struct Member<'a> {
                        name: &'a str,
                        role: &'a str,
                        active: bool,
                    }
                    let out: Vec<Member<'_>> = list
                        .iter()
                        .map(|m| Member {
                            name: &m.name,
                            role: m.role.as_str(),
                            active: m.active,
                        })
                        .collect();
                    return print_json(&out);
                }
                for m in list {
                    let state = if m.active {
                        CliText::StaffActive
                    } else {
                        CliText::StaffDisabled
                    };
                    println!("{}\t{}\t{}", m.name, m.role, state.get(lang));
                }
                Ok(())
            }
            StaffArgs::Disable { name } => {
                services
                    .staff_set_active(actor, &name, false)
                    .await
                    .map_err(store_failure)?;
                println!(
                    "{}",
                    CliText::StaffDisabledNow.fill(lang, &[("name", &name)])
                );
                Ok(())
            }
            StaffArgs::Enable { name } => {
                services
                    .staff_set_active(actor, &name, true)
                    .await
                    .map_err(store_failure)?;
                println!(
                    "{}",
                    CliText::StaffEnabledNow.fill(lang, &[("name", &name)])
                );
                Ok(())
            }
            StaffArgs::ResetPin { name } => {
                let known = services
                    .staff_member(&name)
                    .map_err(from_desk(lang))?
                    .ok_or_else(|| {
                        staff_failure(&StaffError::NoMember(name.clone()).into(), lang)
                    })?;
                let pin = self.new_pin(&known.name)?;
                services
                    .staff_reset_pin(actor, &known.name, &pin)
                    .await
                    .map_err(store_failure)?;
                println!("{}", CliText::PinReset.fill(lang, &[("name", &known.name)]));
                Ok(())
            }
        }
    }

    pub(super) fn audit_cmd(&self, services: &Services, command: AuditArgs) -> Outcome {
        let lang = self.lang;
        match command {
            AuditArgs::List {
                staff,
                action,
                limit,
                json,
                csv,
            } => {
                let filter = AuditFilter {
                    staff,
                    action,
                    limit,
                    ..AuditFilter::default()
                };
                if let Some(path) = csv {
                    let n = services
                        .export_audit_csv(&filter, &path)
                        .map_err(|e| match e {
                            DeskError::Store(StoreError::Io { source, .. }) => {
                                Failure::new(Exit::Failure, format!("{}: {source}", path.display()))
                            }
                            e => Failure::new(Exit::Failure, e.to_string()),
                        })?;
                    println!(
                        "{}",
                        CliText::AuditWritten.fill(lang, &[("n", &n), ("path", &path.display())])
                    );
                    return Ok(());
                }
                let rows = services.audit_list(&filter).map_err(from_desk(lang))?;
                if json {
                    #[derive(Serialize)]
                    #[serde(rename_all = "camelCase")]
                    struct Row<'a> {
                        seq: i64,
                        at: String,
                        staff: Option<&'a str>,
                        approved_by: Option<&'a str>,
                        action: &'a str,
                        subject: &'a str,
                        hash: &'a str,
                    }
                    let out: Vec<Row<'_>> = rows
                        .iter()
                        .map(|r| Row {
                            seq: r.seq,
                            at: crate::api::wire::format_time(r.at),
                            staff: r.staff.as_deref(),
                            approved_by: r.approved_by.as_deref(),
                            action: &r.action,
                            subject: &r.subject,
                            hash: &r.hash,
                        })
                        .collect();
                    return print_json(&out);
                }
                for r in rows {
                    println!(
                        "{}\t{}\t{}\t{}\t{}\t{}",
                        r.seq,
                        self.zone.local(r.at).format("%Y-%m-%d %H:%M:%S"),
                        r.staff.as_deref().unwrap_or("-"),
                        r.approved_by.as_deref().unwrap_or("-"),
                        r.action,
                        r.subject
                    );
                }
                Ok(())
            }
            AuditArgs::Verify { head } => {
                let check = services
                    .audit_verify(head.as_deref())
                    .map_err(from_desk(lang))?;
                match check {
                    ChainCheck::Whole { rows, head } => {
                        println!(
                            "{}",
                            CliText::AuditWhole.fill(lang, &[("n", &rows), ("head", &head)])
                        );
                        Ok(())
                    }
                    ChainCheck::Broken { seq, why } => Err(Failure::new(
                        Exit::Broken,
                        CliText::AuditBroken.fill(lang, &[("seq", &seq), ("why", &why)]),
                    )),
                    ChainCheck::HeadNotFound { rows } => Err(Failure::new(
                        Exit::Broken,
                        CliText::AuditHeadNotFound.fill(lang, &[("n", &rows)]),
                    )),
                }
            }
        }
    }
}

/// A failure of the desk's store, staff refusals exiting 3.
fn desk_failure(e: crate::service::DeskError, lang: crate::lang::Lang) -> Failure {
    match e {
        crate::service::DeskError::Store(s) => staff_failure(&s, lang),
        other => from_desk(lang)(other),
    }
}

/// A staff refusal exits 3 (nothing was sent); any other store failure 1.
fn staff_failure(e: &StoreError, lang: crate::lang::Lang) -> Failure {
    match e {
        StoreError::Staff(s) => Failure::new(Exit::Invalid, staff_sentence(s, lang)),
        other => Failure::new(Exit::Failure, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::cli::args::Cli;

    /// Every leaf of clap's command tree, as `link cancel`.
    fn leaves(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
        let subs: Vec<&clap::Command> = cmd
            .get_subcommands()
            .filter(|c| c.get_name() != "help")
            .collect();
        if subs.is_empty() {
            out.push(prefix.trim().to_owned());
        }
        for sub in subs {
            leaves(sub, &format!("{prefix} {}", sub.get_name()), out);
        }
    }

    /// A command line of `leaf` (a path of subcommand names) with each required argument
    /// given (also those required unless another is present): the first value it accepts of
    /// a list, else `1`.
    fn sample(leaf: &str) -> Vec<String> {
        let mut args = vec!["paydesk".to_owned()];
        let mut command = Cli::command();
        for name in leaf.split(' ') {
            args.push(name.to_owned());
            command = command
                .find_subcommand(name)
                .unwrap_or_else(|| panic!("{leaf}"))
                .clone();
        }
        // Positional arguments too: some are required unless a flag stands in for them.
        for arg in command
            .get_arguments()
            .filter(|a| a.is_required_set() || a.is_positional())
        {
            let value = arg
                .get_possible_values()
                .first()
                .map_or_else(|| "1".to_owned(), |v| v.get_name().to_owned());
            match arg.get_long() {
                Some(long) => args.extend([format!("--{long}"), value]),
                None => args.push(value),
            }
        }
        args
    }

    #[test]
    fn every_cli_command_is_named_by_its_rule() {
        let mut paths = Vec::new();
        leaves(&Cli::command(), "", &mut paths);
        assert!(paths.len() > 20, "{paths:?}");
        for leaf in &paths {
            let args = sample(leaf);
            let cli = Cli::try_parse_from(&args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            let (path, _) = rule(&cli.command.expect("a command"));
            assert_eq!(path, leaf, "the rule names {leaf} otherwise");
        }
    }

    #[test]
    fn a_parsed_command_finds_its_rule() {
        for (args, want) in [
            (
                vec!["paydesk", "link", "list", "--csv", "out.csv"],
                ("link list --csv", Need::Manager),
            ),
            (vec!["paydesk", "link", "list"], ("link list", Need::Member)),
            (
                vec!["paydesk", "link", "cancel", "L1"],
                ("link cancel", Need::OwnUnpaidOrManager),
            ),
            (
                vec!["paydesk", "staff", "add", "Ayşe", "--role", "counter"],
                ("staff add", Need::Manager),
            ),
            (
                vec!["paydesk", "audit", "verify"],
                ("audit verify", Need::Anyone),
            ),
            (vec!["paydesk", "report"], ("report", Need::Manager)),
        ] {
            let cli = Cli::try_parse_from(&args).expect("parses");
            assert_eq!(rule(&cli.command.expect("a command")), want, "{args:?}");
        }
    }
}
