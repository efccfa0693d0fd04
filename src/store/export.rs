//! History as CSV: every field of each link, one row per link, written as the links are read.
//!
//! The file is UTF-8 (no byte-order mark) with a header row of the API's field names; the
//! `csv` crate quotes a field holding a comma, a quote or a line break. Amounts are the exact
//! decimals with a dot (`1250.50`); booleans are `true` / `false`. The values are the read
//! model's (`domain::Link`, docs/design.md §4), as History, its totals and `link list --json`
//! show them: a status, currency or flag the server never sent is written as the desk reads it
//! (`PENDING`, `TRY`, `false`); an unknown amount, text or time is an empty field. Every time
//! is written twice: ISO-8601 UTC (`2026-11-21T14:05:00Z`) and, in the next column
//! (`…Local`), the same moment in the given zone with its offset
//! (`2026-11-21T17:05:00+03:00`). After the link's own fields come three of this install's:
//! `storedAt` (when it was first stored here, what the date filter selects on),
//! `cancelledAt` (a cancel made through paydesk; the server reports it EXPIRED) and `staff`
//! (the member who began it; empty when unknown).
//!
//! A cell of text that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is written
//! with a single quote before it (the OWASP rule against CSV injection): a spreadsheet would
//! otherwise run `=HYPERLINK(...)` in a description, an e-mail or a phone field as a formula.
//! The rule covers every cell except the three amounts, which are written by paydesk from exact
//! decimals (digits, a dot, at most a leading minus) and cannot hold a formula, so a negative
//! amount still reads as a number. The file itself is created by the caller with
//! [`super::create_private_file`] (0600 on Unix): it holds payers' e-mails and phones.
//!
//! Nothing is collected: [`History::export_links_csv`](super::History::export_links_csv) hands each row from the query to the
//! writer, so memory stays the same for ten links or a million.

use std::io::Write;

use chrono::{DateTime, SecondsFormat, Utc};

use super::links::TimeRange;
use super::{LinkQuery, StoreError, StoredLink};
use crate::api::wire::format_time;
use crate::clock::Zone;

/// The header row.
pub const LINK_CSV_HEADER: [&str; 28] = [
    "id",
    "referenceNumber",
    "orderNumber",
    "paymentUrl",
    "transactionRef",
    "amount",
    "paidAmount",
    "remainingAmount",
    "currency",
    "status",
    "description",
    "allowPartialPayment",
    "enableInstallment",
    "availableInstallments",
    "email",
    "phoneCountryCode",
    "phoneNumber",
    "expiryDate",
    "expiryDateLocal",
    "completedDate",
    "completedDateLocal",
    "createdDate",
    "createdDateLocal",
    "storedAt",
    "storedAtLocal",
    "cancelledAt",
    "cancelledAtLocal",
    "staff",
];

/// The column a shop-wide export adds after [`LINK_CSV_HEADER`]: the desk that made the link.
pub const DESK_CSV_COLUMN: &str = "desk";

/// Writes links as CSV rows under [`LINK_CSV_HEADER`] (and, for a shop, [`DESK_CSV_COLUMN`]).
pub struct LinkCsvWriter<W: Write> {
    csv: csv::Writer<W>,
    zone: Zone,
    rows: usize,
}

impl<W: Write> std::fmt::Debug for LinkCsvWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkCsvWriter")
            .field("zone", &self.zone)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

fn io(e: csv::Error) -> StoreError {
    StoreError::Io {
        path: "CSV export".into(),
        source: e.into(),
    }
}

/// The characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
pub(super) const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// The columns of [`LINK_CSV_HEADER`] written from exact decimals (`amount`, `paidAmount`,
/// `remainingAmount`): never a formula, so a negative amount keeps its minus sign.
const AMOUNT_COLUMNS: [usize; 3] = [5, 6, 7];

impl<W: Write> LinkCsvWriter<W> {
    /// Starts the file: the header row. Local times are written in `zone`.
    pub fn new(out: W, zone: Zone) -> Result<Self, StoreError> {
        let mut csv = csv::WriterBuilder::new()
            .buffer_capacity(64 * 1024)
            .from_writer(out);
        csv.write_record(LINK_CSV_HEADER).map_err(io)?;
        Ok(Self { csv, zone, rows: 0 })
    }

    /// Starts a shop-wide file: the header row with [`DESK_CSV_COLUMN`] last.
    pub fn new_with_desk(out: W, zone: Zone) -> Result<Self, StoreError> {
        let mut csv = csv::WriterBuilder::new()
            .buffer_capacity(64 * 1024)
            .from_writer(out);
        csv.write_record(LINK_CSV_HEADER.iter().chain([&DESK_CSV_COLUMN]))
            .map_err(io)?;
        Ok(Self { csv, zone, rows: 0 })
    }

    /// Writes one link.
    pub fn write(&mut self, stored: &StoredLink) -> Result<(), StoreError> {
        let row = self.row(stored);
        self.csv.write_record(&row).map_err(io)?;
        self.rows += 1;
        Ok(())
    }

    /// Writes one link of a shop-wide file, made at the desk named `desk`.
    pub fn write_with_desk(&mut self, stored: &StoredLink, desk: &str) -> Result<(), StoreError> {
        let row = self.row(stored);
        let mut desk = desk.to_owned();
        if desk.starts_with(FORMULA_STARTS) {
            desk.insert(0, '\'');
        }
        self.csv
            .write_record(row.iter().chain([&desk]))
            .map_err(io)?;
        self.rows += 1;
        Ok(())
    }

    /// One link's cells, formula-safe.
    fn row(&self, stored: &StoredLink) -> [String; LINK_CSV_HEADER.len()] {
        let l = &stored.link;
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        let number =
            |v: Option<rust_decimal::Decimal>| v.map(|d| d.to_string()).unwrap_or_default();
        let utc = |t: Option<DateTime<Utc>>| t.map(format_time).unwrap_or_default();
        let local = |t: Option<DateTime<Utc>>| {
            t.map(|t| {
                self.zone
                    .local(t)
                    .to_rfc3339_opts(SecondsFormat::AutoSi, false)
            })
            .unwrap_or_default()
        };
        let stored_at = Some(stored.created_at);
        let mut row: [String; LINK_CSV_HEADER.len()] = [
            l.id.clone(),
            text(&l.reference_number),
            text(&l.order_number),
            text(&l.payment_url),
            text(&l.transaction_ref),
            number(l.amount),
            number(l.paid),
            number(l.remaining),
            l.currency.as_str().to_owned(),
            l.status.as_str().to_owned(),
            text(&l.description),
            l.allow_partial_payment.to_string(),
            l.enable_installment.to_string(),
            text(&l.available_installments),
            text(&l.email),
            text(&l.phone_country_code),
            text(&l.phone_number),
            utc(l.expiry),
            local(l.expiry),
            utc(l.completed),
            local(l.completed),
            utc(l.created),
            local(l.created),
            utc(stored_at),
            local(stored_at),
            utc(stored.cancelled_at),
            local(stored.cancelled_at),
            stored.staff.clone().unwrap_or_default(),
        ];
        for (i, cell) in row.iter_mut().enumerate() {
            if !AMOUNT_COLUMNS.contains(&i) && cell.starts_with(FORMULA_STARTS) {
                cell.insert(0, '\'');
            }
        }
        row
    }

    /// How many links were written.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Flushes the rows and hands the output back.
    pub fn finish(self) -> Result<W, StoreError> {
        self.csv.into_inner().map_err(|e| StoreError::Io {
            path: "CSV export".into(),
            source: e.into_error(),
        })
    }
}

impl super::History<'_> {
    /// Writes every link the search matches (`limit` and `before` ignored; `range` as in
    /// [`History::search_links_in`](super::History::search_links_in)) as CSV to `out`, newest first, one row at a time. Returns
    /// how many links were written.
    pub fn export_links_csv<W: Write>(
        &self,
        profile: &str,
        q: &LinkQuery,
        range: Option<TimeRange>,
        zone: Zone,
        out: W,
    ) -> Result<usize, StoreError> {
        let mut writer = LinkCsvWriter::new(out, zone)?;
        self.for_each_link(profile, q, range, |link| writer.write(&link))?;
        let rows = writer.rows();
        writer.finish()?;
        Ok(rows)
    }
}
