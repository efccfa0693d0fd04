//! The command line, declared with clap: `paydesk --help` documents it all. Parsing only; the
//! commands run in `cli::run`. Values with a shape of their own (`--expires-in 2h`,
//! `--item "Çay:15.50x2"`, `--variant V1x3`) are parsed here into plain parts, and the domain's
//! validation decides whether the parts make a valid request.

// The doc comments below are the `--help` text users read: no Markdown backticks there.
#![allow(clippy::doc_markdown)]

use std::path::PathBuf;

use chrono::{Duration, NaiveDate};
use clap::{Args, Parser, Subcommand};

use crate::domain::LinkStatus;
use crate::service::TimeRange;

/// paydesk: payment links, saved cards and installment look-ups over the Partner Payment API.
///
/// With no command, the desktop app opens. The built-in `sandbox` profile talks to a local
/// sandbox server started in-process, so everything works with no account.
#[derive(Debug, Parser)]
#[command(name = "paydesk", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Cli {
    /// Folder of the local database (default: the platform data folder; env PAYDESK_DATA_DIR).
    #[arg(long, global = true, env = "PAYDESK_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Profile to use (default: the built-in `sandbox`).
    #[arg(long, global = true, value_name = "NAME")]
    pub profile: Option<String>,
    /// With staff on: the staff member running the command. The PIN comes from
    /// PAYDESK_STAFF_PIN, else a hidden prompt on a terminal, else the first line of stdin.
    /// Ignored while no staff member is defined.
    #[arg(long = "as", global = true, value_name = "NAME")]
    pub as_staff: Option<String>,
    /// What to do; nothing opens the desktop app.
    #[command(subcommand)]
    pub command: Option<CommandArgs>,
}

/// The exit codes, shown under `paydesk --help` (and in the man page).
pub const EXIT_CODES: &str = "\
Exit codes:
  0    done
  1    a local failure (database, keyring, file)
  2    usage
  3    invalid input; nothing was sent (every field error is printed)
  4    refused by the server, and it holds no link for the request (key and sentence printed)
  5    outcome unknown: no answer, a redirect (never followed), or an answer that does not
       show whether the link exists (for example 401 or a proxy's 404 page after a lost
       answer); the journal keeps the request and `paydesk pending retry` finishes it. Also
       for an order whose request is 23 hours old: nothing is sent until
       `pending retry KEY --force`.
  6    `audit verify`: the audit chain is broken, or does not run through --head.
  130  stopped with Ctrl+C at a prompt; nothing was sent.

Secrets: PAYDESK_API_SECRET and PAYDESK_STAFF_PIN are read once at start and removed from \
the environment of everything paydesk starts. Card numbers, CVVs and secrets are read from stdin (hidden on a \
terminal), never from arguments; `installments --bin` with more than 8 digits is refused \
(exit 3).";

/// The commands.
#[derive(Debug, Subcommand)]
pub enum CommandArgs {
    /// Manage profiles (a server, an API key, its limits).
    #[command(subcommand)]
    Profile(ProfileArgs),
    /// Create, list, show, cancel payment links.
    #[command(subcommand)]
    Link(LinkArgs),
    /// Link creations whose outcome is not known yet.
    #[command(subcommand)]
    Pending(PendingArgs),
    /// Save a card without a payment (the card number and CVV are read from stdin).
    #[command(subcommand)]
    Card(CardArgs),
    /// List the installment options of a card BIN.
    Installments(InstallmentsArgs),
    /// The local product catalog.
    #[command(subcommand)]
    Catalog(CatalogArgs),
    /// Day close: what the links created over local days came to, per currency.
    ///
    /// For each currency: links created, paid in full (count and sum of paidAmount), partially
    /// paid, still pending, expired, cancelled (through paydesk) and other; what was collected
    /// in each local hour; then the best-selling items of the paid links. Days are local days
    /// of this machine's time zone (TZ); a link counts on the day this install created it. The
    /// figures come from the local history: refresh statuses first (History, or
    /// `link show ID --refresh`) for the latest payments.
    Report(ReportArgs),
    /// Staff members: names, roles (counter, manager) and PINs.
    #[command(subcommand)]
    Staff(StaffArgs),
    /// The audit record of who did what, and its hash chain.
    #[command(subcommand)]
    Audit(AuditArgs),
    /// This desk in a shop: desks sharing one PostgreSQL.
    ///
    /// The shop is a postgres:// URL without a password; the password is read from stdin (a
    /// hidden prompt on a terminal) and kept in the OS keyring, or given on every run in
    /// PAYDESK_SHOP_PASSWORD where no keyring runs.
    #[command(subcommand)]
    Shop(ShopArgs),
    /// E-mail from this desk: the shop's SMTP account and the mail queue of links sent by
    /// e-mail.
    ///
    /// The account's password is read from stdin (a hidden prompt on a terminal; an empty line
    /// for a server without login) and kept in the OS keyring, or given on every run in
    /// PAYDESK_SMTP_PASSWORD where no keyring runs.
    #[command(subcommand)]
    Mail(MailArgs),
    /// Run the local Partner API sandbox in the foreground.
    Sandbox(crate::sandbox::cli::SandboxArgs),
    /// Print the man page (roff) to stdout; used when packaging.
    #[command(hide = true)]
    Man,
}

/// `paydesk profile ...`
#[derive(Debug, Subcommand)]
pub enum ProfileArgs {
    /// Add a profile (a name in use is refused: remove the old profile first).
    Add {
        /// Profile name.
        name: String,
        /// Base URL of the API (https, or http on this machine).
        #[arg(long)]
        base_url: String,
        /// API key id (the secret goes to the keyring with `profile set-secret`).
        #[arg(long)]
        api_key: String,
        /// The key's amount upper bound, when known.
        #[arg(long, value_name = "X")]
        amount_limit: Option<String>,
        /// The key's `link.max_items`, when known.
        #[arg(long, value_name = "N")]
        max_items: Option<u32>,
        /// Order-number prefix (default PD).
        #[arg(long, value_name = "P")]
        order_prefix: Option<String>,
    },
    /// List profiles.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a profile (the built-in sandbox profile stays).
    Remove {
        /// Profile name.
        name: String,
    },
    /// Store the profile's API secret in the OS keyring (read from stdin or a prompt without echo).
    SetSecret {
        /// Profile name.
        name: String,
    },
}

/// `paydesk link ...`
#[derive(Debug, Subcommand)]
pub enum LinkArgs {
    /// Create a payment link (exactly once per order number).
    Create(Box<LinkCreateArgs>),
    /// List links of the profile, newest first, or write them all to a CSV file.
    List {
        /// Search order number, reference or description.
        #[arg(long, value_name = "T")]
        search: Option<String>,
        /// Only this status (PENDING, COMPLETED, REJECTED, EXPIRED, UNDER_REVIEW).
        #[arg(long, value_name = "S")]
        status: Option<String>,
        /// Only links created on or after this local day (YYYY-MM-DD).
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        from: Option<NaiveDate>,
        /// Only links created on or before this local day (YYYY-MM-DD).
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        to: Option<NaiveDate>,
        /// At most this many (default 50; not for --csv).
        #[arg(long, value_name = "N", default_value_t = 50)]
        limit: usize,
        /// Print JSON.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Write every matching link (no limit) to FILE as CSV: UTF-8 with a header row, every
        /// link field, amounts as exact decimals with a dot, each time in ISO-8601 UTC with the
        /// local time in the next column (on a desk in a shop, the desk last).
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// On a desk in a shop: only this desk's links (default: the whole shop's).
        #[arg(long)]
        this_desk: bool,
    },
    /// Show one link.
    Show {
        /// Link id.
        id: String,
        /// Ask the server first (link detail) and update the history.
        #[arg(long)]
        refresh: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Cancel a link.
    Cancel {
        /// Link id.
        id: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write the link's QR code as a PNG file.
    Qr {
        /// Link id.
        id: String,
        /// Output file.
        #[arg(long, value_name = "FILE")]
        png: PathBuf,
    },
    /// Send the link to a payer who is not at the counter: print the message (subject, then
    /// the text naming the amount, what it is for, the order number, the expiry and the exact
    /// payment address) to copy into any channel; with --whatsapp, print (and with --open,
    /// open) the `https://wa.me/…` address that starts a WhatsApp chat with it. A WhatsApp send
    /// is recorded in the audit with the number masked.
    Send(SendArgs),
    /// Send a new link for an expired or cancelled link that nobody paid: the same amount,
    /// items, currency, installments, partial payment and payer, a new expiry as long as the
    /// old one's, and the order number with the next free -2, -3 … suffix. A link is renewed
    /// once (across the shop on a joined desk); exactly-once holds as for any new link.
    Renew(RenewArgs),
    /// Print the link's QR slip (shop name, amount, QR, order number, expiry) on the default
    /// CUPS printer (lp); with no default printer, save it as paydesk-slip-ORDER.pdf in
    /// Downloads (else home).
    Slip {
        /// Link id.
        id: String,
        /// Paper: 80mm (a receipt roll; the page is as long as the slip) or a6 (105 × 148 mm).
        #[arg(long, value_name = "SIZE", default_value = "80mm")]
        size: crate::slip::Paper,
        /// Write the PDF to FILE instead of printing.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Shop name at the top of the slip (default: no name line).
        #[arg(long, value_name = "NAME")]
        shop: Option<String>,
    },
    /// E-mail the receipt of a link paid in full to ADDRESS: the shop's name, when it was
    /// paid, the items (else the description), the total, the amount paid, the order number and
    /// the transaction reference, with a PDF of the same; queued with its audit row and sent
    /// now when the server answers (exit 3 when the link is not paid in full).
    Receipt {
        /// Link id.
        id: String,
        /// Where to.
        #[arg(long, value_name = "ADDRESS")]
        email: String,
        /// The receipt's language: tr or en (default: the command line's).
        #[arg(long, value_name = "LANG", value_parser = parse_lang)]
        lang: Option<crate::lang::Lang>,
        /// The shop's name on the receipt (default: the e-mail account's sender name).
        #[arg(long, value_name = "NAME")]
        shop: Option<String>,
    },
}

/// `paydesk mail ...`
#[derive(Debug, Subcommand)]
pub enum MailArgs {
    /// Set the shop's SMTP account on this desk (the password from stdin; an empty line for a
    /// server without login).
    Set {
        /// The SMTP server's host name or address.
        #[arg(long, value_name = "HOST")]
        host: String,
        /// Its port (default: 587 for starttls, 465 for tls, 25 for none).
        #[arg(long, value_name = "PORT")]
        port: Option<u16>,
        /// The sender's address.
        #[arg(long, value_name = "ADDRESS")]
        from: String,
        /// The sender's shown name (the shop's).
        #[arg(long, value_name = "NAME", default_value = "")]
        name: String,
        /// The login (none: the server takes mail without one).
        #[arg(long, value_name = "USER")]
        user: Option<String>,
        /// starttls, tls, or none (only to this computer).
        #[arg(long, value_name = "MODE", default_value = "starttls", value_parser = ["starttls", "tls", "none"])]
        security: String,
        /// A PEM file of the shop's own CA, trusted in addition to the system's.
        #[arg(long, value_name = "FILE")]
        ca: Option<PathBuf>,
        /// E-mail a receipt on its own to the payer of a link this desk hears paid in full
        /// (default: on), in the command line's language.
        #[arg(long, value_name = "ON_OFF", value_parser = ["on", "off"])]
        receipts: Option<String>,
    },
    /// Send a test message to ADDRESS now (exit 5 when the server does not answer).
    Test {
        /// Where to.
        address: String,
    },
    /// The mail queue, newest first: each message's address, state, Message-ID and error.
    Status {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Send the messages that are due now.
    Flush,
}

/// `paydesk link send ...`
#[derive(Debug, Args)]
pub struct SendArgs {
    /// Link id.
    pub id: String,
    /// Send it by e-mail to ADDRESS, else to the link's payer e-mail (queued, and sent now when
    /// the server answers).
    #[arg(long, value_name = "ADDRESS", num_args = 0..=1, default_missing_value = "", conflicts_with = "whatsapp")]
    pub email: Option<String>,
    /// Make the WhatsApp address, to the payer's phone of the link or --phone.
    #[arg(long)]
    pub whatsapp: bool,
    /// The number to send to (`0532 123 45 67`, `+90 532…`, `532…`), else the link's payer
    /// phone.
    #[arg(long, value_name = "NUMBER", requires = "whatsapp")]
    pub phone: Option<String>,
    /// The country code of a number typed without one (default: the desk's setting, 90
    /// until a manager changes it in Settings).
    #[arg(long, value_name = "CODE")]
    pub country_code: Option<u16>,
    /// The message's language: tr or en (default: the command line's).
    #[arg(long, value_name = "LANG", value_parser = parse_lang)]
    pub lang: Option<crate::lang::Lang>,
    /// The shop's name the message opens with (default: the e-mail account's sender name).
    #[arg(long, value_name = "NAME")]
    pub shop: Option<String>,
    /// Open the WhatsApp address with the desktop's opener (xdg-open).
    #[arg(long, requires = "whatsapp")]
    pub open: bool,
}

/// `paydesk link renew ...`
#[derive(Debug, Args)]
pub struct RenewArgs {
    /// The expired or cancelled link's id.
    pub id: String,
    /// Send the new link the way the old one was last sent (e-mail to the payer's address,
    /// or the WhatsApp address to the payer's phone, printed).
    #[arg(long)]
    pub send: bool,
    /// The message's language: tr or en (default: the command line's).
    #[arg(long, value_name = "LANG", value_parser = parse_lang)]
    pub lang: Option<crate::lang::Lang>,
    /// The shop's name the message opens with (default: the e-mail account's sender name).
    #[arg(long, value_name = "NAME")]
    pub shop: Option<String>,
    /// Print the new link as JSON (with `renews`).
    #[arg(long)]
    pub json: bool,
}

/// `paydesk link create ...`
#[derive(Debug, Args)]
pub struct LinkCreateArgs {
    /// Amount to collect (`1234.50`, `1.234,50`).
    #[arg(long, value_name = "X")]
    pub amount: String,
    /// Currency (TRY, USD, EUR, GBP, JPY, CHF, RUB, AZN; default TRY).
    #[arg(long, value_name = "C", default_value = "TRY")]
    pub currency: String,
    /// Description.
    #[arg(long, value_name = "T")]
    pub description: Option<String>,
    /// Your order number (default: the next one of this counter).
    #[arg(long, value_name = "N")]
    pub order_number: Option<String>,
    /// Expiry from now: `30m`, `2h`, `7d`.
    #[arg(long, value_name = "DURATION", value_parser = parse_expires_in, conflicts_with = "expiry")]
    pub expires_in: Option<Duration>,
    /// Expiry as ISO-8601 (`2026-12-01T18:00:00Z`, or local time without a zone).
    #[arg(long, value_name = "ISO")]
    pub expiry: Option<String>,
    /// Allowed installment counts, `1,3,6`.
    #[arg(long, value_name = "LIST")]
    pub installments: Option<String>,
    /// Disable installments.
    #[arg(long, conflicts_with = "installments")]
    pub no_installment: bool,
    /// Allow partial payment.
    #[arg(long)]
    pub partial: bool,
    /// The payment page asks for the payer's contact data.
    #[arg(long)]
    pub contact_required: bool,
    /// Payer e-mail.
    #[arg(long, value_name = "E")]
    pub email: Option<String>,
    /// Payer phone country code (`90`).
    #[arg(long, value_name = "C", requires = "phone")]
    pub phone_country_code: Option<String>,
    /// Payer phone number.
    #[arg(long, value_name = "P")]
    pub phone: Option<String>,
    /// A typed-in item, `NAME:UNIT_PRICE[xQTY]` (repeatable).
    #[arg(long = "item", value_name = "NAME:UNIT_PRICE[xQTY]", value_parser = parse_item)]
    pub items: Vec<ItemArg>,
    /// A catalog item, `ID[xQTY]` (repeatable).
    #[arg(long = "variant", value_name = "ID[xQTY]", value_parser = parse_variant)]
    pub variants: Vec<VariantArg>,
    /// Also draw the QR code in the terminal.
    #[arg(long)]
    pub qr: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `paydesk pending ...`
#[derive(Debug, Subcommand)]
pub enum PendingArgs {
    /// List journal rows that are not completed.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Send a pending creation again (same key, same bytes).
    Retry {
        /// Idempotency key (`link-{orderNumber}`).
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        key: Option<String>,
        /// Every pending row of the profile.
        #[arg(long)]
        all: bool,
        /// Also re-send a stale row (23 h or older): the server may no longer know its key, so
        /// check first that the order has no link, or it may get a second one.
        #[arg(long, conflicts_with = "all")]
        force: bool,
    },
    /// Give up on a pending creation (check the server first: it may have been created).
    Abandon {
        /// Idempotency key.
        key: String,
    },
}

/// `paydesk card ...`
#[derive(Debug, Subcommand)]
pub enum CardArgs {
    /// Save a card: the card number, then the optional CVV, are read from stdin (one per line),
    /// never from arguments, which every user of the machine can see.
    Save {
        /// Expiry month, MM.
        #[arg(long, value_name = "MM")]
        expiry_month: String,
        /// Expiry year, YYYY.
        #[arg(long, value_name = "YYYY")]
        expiry_year: String,
        /// Name on the card.
        #[arg(long, value_name = "N")]
        holder: Option<String>,
        /// POS_PAYMENT (default), WALLET_TOPUP or BOTH.
        #[arg(long, value_name = "U")]
        usage: Option<String>,
        /// Reminder name.
        #[arg(long, value_name = "A")]
        alias: Option<String>,
        /// Make it the default card for its usage.
        #[arg(long)]
        default: bool,
        /// Store it for this customer.
        #[arg(long, value_name = "C")]
        customer_id: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `paydesk staff ...`
#[derive(Debug, Subcommand)]
pub enum StaffArgs {
    /// Add a staff member; the PIN (4 to 8 digits) is read from stdin (asked twice on a
    /// terminal, hidden). The first member must be a manager; from then on staff are on.
    Add {
        /// The member's name (unique regardless of case).
        name: String,
        /// counter or manager.
        #[arg(long, value_name = "ROLE")]
        role: String,
    },
    /// List the staff members.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Disable a member (the last active manager cannot be disabled).
    Disable {
        /// The member's name.
        name: String,
    },
    /// Enable a disabled member again.
    Enable {
        /// The member's name.
        name: String,
    },
    /// Give a member a new PIN, read from stdin (asked twice on a terminal); clears a wait
    /// after wrong PINs.
    ResetPin {
        /// The member's name.
        name: String,
    },
}

/// `paydesk shop ...`
#[derive(Debug, Subcommand)]
pub enum ShopArgs {
    /// Join the shop at URL with this desk's own login (made by the owner's add-desk): connect,
    /// check the shop's schema and the login, register this desk, keep the password in the
    /// keyring and the URL (never the password) in the data file.
    ///
    /// URL: postgres://USER@HOST[:PORT]/DATABASE?sslmode=verify-full&sslrootcert=CA.pem, or
    /// postgres://USER@/DATABASE?host=/run/postgresql for a Unix socket. A URL holding a
    /// password is refused (exit 3).
    // clap's help text, not a doc link: the brackets are the URL's optional port.
    #[allow(rustdoc::broken_intra_doc_links)]
    Join {
        /// The shop's postgres:// URL, without a password.
        url: String,
    },
    /// Whether the shop answers, its schema version, this desk's id and name, the outbox.
    Status {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Push this desk's outbox to the shop now (links created, refreshed or cancelled since
    /// joining), in batches; what the shop has is deleted from the outbox.
    Sync,
    /// Forget the shop: its URL in the data file and its password in the keyring (changes
    /// still in the outbox stay for the next shop joined).
    Leave,
    /// Name this desk (the name shown on its links everywhere; default: the host name).
    Name {
        /// 1 to 40 characters.
        name: String,
    },
    /// The shop's owner: create or migrate the shop's schema and its desks' role, at
    /// OWNER_URL (the login that owns the database and may create roles). The owner's
    /// password is read from stdin (a hidden prompt on a terminal), never from the
    /// environment, and never kept.
    Init {
        /// The shop's postgres:// URL as its owner, without a password.
        owner_url: String,
    },
    /// The shop's owner: make a login for the desk NAME and print it once with its join URL.
    AddDesk {
        /// The desk's name (1 to 40 characters).
        name: String,
        /// The shop's postgres:// URL as its owner, without a password.
        owner_url: String,
        /// Print JSON: {"url": "postgres://…", "password": "…"}.
        #[arg(long)]
        json: bool,
    },
    /// The shop's owner: the desk NAME's login may no longer connect; its sessions end now.
    RemoveDesk {
        /// The desk's name, as add-desk gave it.
        name: String,
        /// The shop's postgres:// URL as its owner, without a password.
        owner_url: String,
    },
    /// The shop's owner: make NAME a manager of the shop, or set a manager's PIN. Reads the
    /// owner's password, then the manager's new PIN, from stdin (two lines; hidden prompts
    /// on a terminal). The shop keeps only a verifier of the PIN and checks it itself.
    AddManager {
        /// The manager's name.
        name: String,
        /// The shop's postgres:// URL as its owner, without a password.
        owner_url: String,
    },
    /// The shop's owner: every desk login, with the desk that joined with it.
    Desks {
        /// The shop's postgres:// URL as its owner, without a password.
        owner_url: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `paydesk audit ...`
#[derive(Debug, Subcommand)]
pub enum AuditArgs {
    /// List the audit record, newest first.
    List {
        /// Only rows of this member (acting or approving).
        #[arg(long, value_name = "NAME")]
        staff: Option<String>,
        /// Only this action (link.create, link.cancel, card.save, sign-in …).
        #[arg(long, value_name = "ACTION")]
        action: Option<String>,
        /// At most this many rows (default: all).
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Print JSON.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Write the rows to FILE as CSV.
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
    },
    /// Walk the hash chain: exit 0 when whole, 6 naming the first broken row. With --head,
    /// also prove the chain still runs through a head noted earlier (the day close prints it).
    Verify {
        /// A head hash noted earlier.
        #[arg(long, value_name = "HASH")]
        head: Option<String>,
    },
}

/// What `link list` asks for: [`LinkArgs::List`] with its status and days read.
pub(super) struct ListArgs {
    pub(super) search: Option<String>,
    pub(super) status: Option<LinkStatus>,
    pub(super) range: Option<TimeRange>,
    pub(super) limit: usize,
    pub(super) json: bool,
    pub(super) csv: Option<PathBuf>,
    pub(super) this_desk: bool,
}

/// `paydesk report ...`
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// First local day, YYYY-MM-DD (default: today).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub from: Option<NaiveDate>,
    /// Last local day, included (default: the first day).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub to: Option<NaiveDate>,
    /// Print JSON (exact amounts as JSON numbers; collectedByHour has 24 entries, hour 0 first;
    /// on a desk in a shop, byDesk).
    #[arg(long)]
    pub json: bool,
    /// On a desk in a shop: only this desk's links (default: the whole shop's).
    #[arg(long)]
    pub this_desk: bool,
}

/// `paydesk installments ...`
#[derive(Debug, Args)]
pub struct InstallmentsArgs {
    /// Card BIN: the first 6 digits (7 or 8 are accepted, 6 are used). More than 8 digits is
    /// refused with exit 3 and nothing is sent: a card number typed here would stay in the
    /// shell history and the process list.
    #[arg(long, value_name = "BIN")]
    pub bin: String,
    /// POS type filter (DEFAULT, VIRTUAL, PHYSICAL, SOFTWALLET, LOYALTY).
    #[arg(long = "type", value_name = "T")]
    pub pos_type: Option<String>,
    /// POS sub-type filter (DEFAULT, BASIC, STREAMING, CHARITY, FOOD, FUEL).
    #[arg(long, value_name = "S")]
    pub sub_type: Option<String>,
    /// Amount, to see each option's installment and total.
    #[arg(long, value_name = "X")]
    pub amount: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `paydesk catalog ...`
#[derive(Debug, Subcommand)]
pub enum CatalogArgs {
    /// Import variants from a CSV file (`id,name,unit_price,currency`).
    Import {
        /// The CSV file.
        file: PathBuf,
    },
    /// List the catalog.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// A typed-in item as given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemArg {
    /// Name.
    pub name: String,
    /// Unit price as typed.
    pub unit_price: String,
    /// Quantity as typed (empty: 1).
    pub quantity: String,
}

/// A catalog item as given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantArg {
    /// `productVariantId`.
    pub id: String,
    /// Quantity as typed (empty: 1).
    pub quantity: String,
}

/// `30m`, `2h`, `7d` (also `90s`): a positive duration.
pub fn parse_expires_in(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: i64 = digits
        .parse()
        .map_err(|_| format!("`{t}`: expected a number and a unit, like 30m, 2h or 7d"))?;
    if n == 0 {
        return Err(format!("`{t}`: the expiry must be after now"));
    }
    match unit {
        "s" => Ok(Duration::seconds(n)),
        "m" => Ok(Duration::minutes(n)),
        "h" => Ok(Duration::hours(n)),
        "d" => Ok(Duration::days(n)),
        _ => Err(format!(
            "`{t}`: the unit must be s, m, h or d (like 30m, 2h, 7d)"
        )),
    }
}

/// `tr` or `en`, as the message language of `link send`.
fn parse_lang(text: &str) -> Result<crate::lang::Lang, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "tr" => Ok(crate::lang::Lang::Tr),
        "en" => Ok(crate::lang::Lang::En),
        _ => Err("tr or en".to_owned()),
    }
}

/// A day as `YYYY-MM-DD`.
pub fn parse_date(text: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .map_err(|_| format!("`{text}`: expected a day as YYYY-MM-DD, like 2026-11-21"))
}

/// Splits a trailing `xQTY` (`x` or `×`, quantity digits) off `text`.
fn split_quantity(text: &str) -> (&str, &str) {
    for sep in ['x', 'X', '×'] {
        if let Some(pos) = text.rfind(sep) {
            let qty = &text[pos + sep.len_utf8()..];
            if !qty.is_empty() && qty.chars().all(|c| c.is_ascii_digit()) {
                return (&text[..pos], qty);
            }
        }
    }
    (text, "")
}

/// `NAME:UNIT_PRICE[xQTY]`; the name may contain `:` (the last one separates the price).
pub fn parse_item(text: &str) -> Result<ItemArg, String> {
    let (rest, quantity) = split_quantity(text.trim());
    let (name, price) = rest
        .rsplit_once(':')
        .ok_or_else(|| format!("`{text}`: expected NAME:UNIT_PRICE or NAME:UNIT_PRICExQTY"))?;
    Ok(ItemArg {
        name: name.trim().to_owned(),
        unit_price: price.trim().to_owned(),
        quantity: quantity.to_owned(),
    })
}

/// `ID[xQTY]`.
pub fn parse_variant(text: &str) -> Result<VariantArg, String> {
    let (id, quantity) = split_quantity(text.trim());
    if id.trim().is_empty() {
        return Err(format!(
            "`{text}`: expected a variant id, like V-1001 or V-1001x2"
        ));
    }
    Ok(VariantArg {
        id: id.trim().to_owned(),
        quantity: quantity.to_owned(),
    })
}

/// The man page, generated from this very definition.
pub fn man_page() -> std::io::Result<Vec<u8>> {
    use clap::CommandFactory;
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_man_page_documents_every_command() {
        let page = String::from_utf8(man_page().unwrap()).unwrap();
        assert!(
            page.starts_with(".ie") || page.contains(".TH paydesk"),
            "{}",
            &page[..200]
        );
        for word in [
            "profile",
            "link",
            "pending",
            "card",
            "installments",
            "catalog",
            "report",
            "\\-\\-data\\-dir",
        ] {
            assert!(page.contains(word), "man page lacks {word}");
        }
    }

    #[test]
    fn expiry_durations() {
        assert_eq!(parse_expires_in("30m"), Ok(Duration::minutes(30)));
        assert_eq!(parse_expires_in(" 2h "), Ok(Duration::hours(2)));
        assert_eq!(parse_expires_in("7d"), Ok(Duration::days(7)));
        assert_eq!(parse_expires_in("90s"), Ok(Duration::seconds(90)));
        for bad in ["", "m", "10", "5w", "0m", "-5m", "1.5h"] {
            assert!(parse_expires_in(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn items_and_variants() {
        let item = |n: &str, p: &str, q: &str| ItemArg {
            name: n.into(),
            unit_price: p.into(),
            quantity: q.into(),
        };
        assert_eq!(
            parse_item("Filter coffee:75.00x2"),
            Ok(item("Filter coffee", "75.00", "2"))
        );
        assert_eq!(parse_item("Çay:15,50"), Ok(item("Çay", "15,50", "")));
        assert_eq!(
            parse_item("Box 3x4: 1.234,50 ×3"),
            Ok(item("Box 3x4", "1.234,50", "3"))
        );
        assert_eq!(parse_item("Note: big:10"), Ok(item("Note: big", "10", "")));
        assert!(parse_item("no price").is_err());
        assert_eq!(
            parse_variant("V-1001x3"),
            Ok(VariantArg {
                id: "V-1001".into(),
                quantity: "3".into()
            })
        );
        assert_eq!(
            parse_variant("SKU-X"),
            Ok(VariantArg {
                id: "SKU-X".into(),
                quantity: String::new()
            })
        );
        assert!(parse_variant("x2").is_err());
    }

    #[test]
    fn card_numbers_cannot_be_given_as_arguments() {
        let err = Cli::try_parse_from([
            "paydesk",
            "card",
            "save",
            "--card-number",
            "4111111111111111",
            "--expiry-month",
            "12",
            "--expiry-year",
            "2030",
        ])
        .unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::UnknownArgument);
    }

    #[test]
    fn a_full_link_create_parses() {
        let cli = Cli::try_parse_from([
            "paydesk",
            "--profile",
            "shop",
            "link",
            "create",
            "--amount",
            "150",
            "--expires-in",
            "2h",
            "--installments",
            "1,3",
            "--item",
            "Tea:75x2",
            "--variant",
            "V1",
            "--json",
        ])
        .unwrap();
        assert_eq!(cli.profile.as_deref(), Some("shop"));
        let Some(CommandArgs::Link(LinkArgs::Create(args))) = cli.command else {
            panic!("not link create")
        };
        assert_eq!(args.amount, "150");
        assert_eq!(args.expires_in, Some(Duration::hours(2)));
        assert_eq!(args.items.len(), 1);
        assert_eq!(args.variants[0].id, "V1");
        assert!(args.json);
        assert!(
            Cli::try_parse_from([
                "paydesk",
                "link",
                "create",
                "--amount",
                "1",
                "--expires-in",
                "1h",
                "--expiry",
                "2030-01-01T00:00:00Z"
            ])
            .is_err(),
            "two expiries conflict"
        );
    }
}
