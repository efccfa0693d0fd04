//! The local copy of the catalog (variant id, name, unit price, currency), imported from a CSV
//! file, so the link form can show live totals and catch a currency mismatch before sending.
//!
//! The CSV format, as accepted:
//! - UTF-8 (a leading byte-order mark is ignored). Other encodings are refused with a hint.
//! - A header naming the columns `id`, `name`, `unit_price`, `currency` (any order, any case;
//!   other columns are ignored).
//! - The separator is `,` or `;`: whichever appears more often in the header line.
//! - Fields may be quoted with `"`; inside quotes a separator, a line break or a doubled `""`
//!   (one quote) is text. Blank lines are skipped. Records are read by the `csv` crate; an
//!   unclosed quote or text after a closing quote is an error for the line the record starts on.
//! - Line breaks are `\n`, `\r\n` or `\r`; errors name the line a record starts on, counting
//!   the line breaks inside quoted fields too (what an editor shows).
//! - Prices are exact decimals greater than 0, with no more decimals than the currency allows
//!   (JPY 0, the others 2). With `,` separators the decimal mark is `.` (`12.50`). With `;`
//!   separators (Turkish spreadsheets) it may be `,` (`12,50`) or `.` (`12.50`); thousands
//!   separators are refused, and so is `1.250` (thousands or decimals? the file must say
//!   `1250` or `1,25`).
//! - Currency codes are the spec's (case-insensitive).
//! - An optional `barcode` column (found by its header name like the others): an EAN-8,
//!   UPC-A, EAN-13 or GTIN-14 with a correct check digit, or a shop code of 4 to 7 digits
//!   (`domain::barcode`); empty means none. A wrong barcode, or one a previous line already
//!   used, is an error for its line. A file with the column sets each imported variant's
//!   barcode (taking it from any other variant that had it); a file without it leaves the
//!   barcodes already stored as they are.
//!
//! - At most [`CATALOG_FILE_LIMIT`] (16 MiB): a file is read through a limit, so a larger one
//!   (or `/dev/zero`) is refused as soon as the limit is passed, without filling memory.
//!
//! Import writes every valid line (a variant already known by id is replaced) and reports each
//! invalid one with its line number and a [`CsvProblem`], which the reader sees in their
//! language (`CsvLineError::message`, worded from the store's catalogue,
//! [`super::messages::StoreMessage`]); the preview parses the same way and writes nothing.

use super::outbox::CatalogChange;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;

use rusqlite::{OptionalExtension, params};
use rust_decimal::Decimal;

use super::audit::{Audit, AuditAction};
use super::messages::StoreMessage;
use super::repo::{Write, repository};
use super::{Store, StoreError, parse_decimal, write_tx};
use crate::domain::{Barcode, BarcodeError, CatalogVariant, Currency, UnknownCode};
use crate::lang::Lang;

/// A line of a CSV file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvLineError {
    /// The line the record starts on (1-based; the header is line 1).
    pub line: usize,
    /// What is wrong.
    pub problem: CsvProblem,
}

impl CsvLineError {
    /// What is wrong, in the reader's language (the line number is not part of it).
    pub fn message(&self, lang: Lang) -> String {
        self.problem.message(lang)
    }
}

/// The most a catalog CSV file may hold: 16 MiB. A catalog line takes some 40 to 100 bytes, so
/// this is 150,000 to 350,000 variants, far more than a shop's catalog, and a file at the limit
/// still imports in seconds with a few hundred MB at most (350,000 lines: 3 s and 220 MB in a
/// debug build).
pub const CATALOG_FILE_LIMIT: u64 = 16 * 1024 * 1024;

/// Why a catalog CSV file cannot be imported at all (not one of its lines: see
/// [`CsvLineError`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CsvFileProblem {
    /// Nothing but blank lines.
    Empty,
    /// More than [`CATALOG_FILE_LIMIT`] bytes.
    TooLarge {
        /// The file, when it was read from a path.
        file: Option<String>,
    },
    /// Not UTF-8 text.
    NotUtf8,
    /// The header line itself cannot be read.
    Header(CsvLineError),
    /// The header does not name the four needed columns.
    Columns {
        /// The header's line.
        line: usize,
        /// The column names it has (trimmed, lower case).
        found: Vec<String>,
    },
}

impl CsvFileProblem {
    /// What is wrong, as a clause that follows `CSV:`, from the store's catalogue.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            CsvFileProblem::Empty => StoreMessage::CsvFileEmpty.get(lang).to_owned(),
            CsvFileProblem::NotUtf8 => StoreMessage::CsvFileNotUtf8.get(lang).to_owned(),
            CsvFileProblem::TooLarge { file } => {
                let limit = CATALOG_FILE_LIMIT / (1024 * 1024);
                match file {
                    Some(file) => StoreMessage::CsvFileTooLargeNamed
                        .fill(lang, &[("file", file), ("limit", &limit)]),
                    None => StoreMessage::CsvFileTooLarge.fill(lang, &[("limit", &limit)]),
                }
            }
            CsvFileProblem::Header(e) => StoreMessage::CsvFileHeader
                .fill(lang, &[("line", &e.line), ("problem", &e.message(lang))]),
            CsvFileProblem::Columns { line, found } => StoreMessage::CsvFileColumns
                .fill(lang, &[("line", line), ("found", &found.join(", "))]),
        }
    }
}

impl std::fmt::Display for CsvFileProblem {
    /// English (logs, `StoreError`'s own text); the user reads [`CsvFileProblem::message`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

/// A quoting mistake in a record's raw text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteMistake {
    /// A quoted field runs to the end of the file.
    NotClosed,
    /// Text follows a closing quote before the separator.
    TextAfterQuote,
}

/// Why a line of a catalog file could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CsvProblem {
    /// The CSV reader gave up on the record (its own words).
    Unreadable {
        /// The reader's error.
        detail: String,
    },
    /// An unclosed quote or text after a closing quote.
    Quote(QuoteMistake),
    /// Fewer fields than the header's columns need.
    Columns {
        /// The fields the line needs (up to the last named column).
        expected: usize,
        /// The fields it has.
        found: usize,
    },
    /// The `id` cell is empty.
    EmptyId,
    /// The `name` cell is empty.
    EmptyName {
        /// The line's id.
        id: String,
    },
    /// The `currency` cell is not a spec currency.
    Currency(UnknownCode),
    /// The `unit_price` cell is empty.
    PriceEmpty,
    /// A decimal mark the separator does not allow (`12,50` in a comma file), or both marks.
    PriceSeparators {
        /// The price as written.
        price: String,
    },
    /// Not digits with at most one decimal mark.
    PriceNotPlain {
        /// The price as written.
        price: String,
    },
    /// Zero or negative.
    PriceNotPositive {
        /// The price as written.
        price: String,
    },
    /// `1.250` in a semicolon file: thousands or decimals?
    PriceAmbiguous {
        /// The price as written.
        price: String,
    },
    /// More decimals than the currency's minor units.
    PriceDecimals {
        /// The price as written.
        price: String,
        /// The line's currency.
        currency: Currency,
    },
    /// More digits than an exact decimal holds.
    PriceTooLarge {
        /// The price as written.
        price: String,
    },
    /// The `barcode` cell is not a barcode.
    Barcode {
        /// The cell as written (trimmed).
        text: String,
        /// Why it is not one.
        error: BarcodeError,
    },
    /// A barcode an earlier line already has.
    DuplicateBarcode {
        /// The barcode.
        barcode: Barcode,
        /// The line that has it first.
        first: usize,
    },
    /// An id an earlier line already has.
    DuplicateId {
        /// The id.
        id: String,
        /// The line that has it first.
        first: usize,
    },
}

impl CsvProblem {
    /// What is wrong, as a clause that follows `file.csv:7:`, from the store's catalogue.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            CsvProblem::Unreadable { detail } => {
                StoreMessage::CsvUnreadable.fill(lang, &[("detail", detail)])
            }
            CsvProblem::Quote(QuoteMistake::NotClosed) => {
                StoreMessage::CsvQuoteNotClosed.get(lang).to_owned()
            }
            CsvProblem::Quote(QuoteMistake::TextAfterQuote) => {
                StoreMessage::CsvTextAfterQuote.get(lang).to_owned()
            }
            CsvProblem::Columns { expected, found } => {
                StoreMessage::CsvColumns.fill(lang, &[("expected", expected), ("found", found)])
            }
            CsvProblem::EmptyId => StoreMessage::CsvEmptyId.get(lang).to_owned(),
            CsvProblem::EmptyName { id } => StoreMessage::CsvEmptyName.fill(lang, &[("id", id)]),
            CsvProblem::Currency(code) => StoreMessage::CsvCurrency
                .fill(lang, &[("value", &code.value), ("allowed", &code.allowed)]),
            CsvProblem::PriceEmpty => StoreMessage::CsvPriceEmpty.get(lang).to_owned(),
            CsvProblem::PriceSeparators { price } => {
                StoreMessage::CsvPriceSeparators.fill(lang, &[("price", price)])
            }
            CsvProblem::PriceNotPlain { price } => {
                StoreMessage::CsvPriceNotPlain.fill(lang, &[("price", price)])
            }
            CsvProblem::PriceNotPositive { price } => {
                StoreMessage::CsvPriceNotPositive.fill(lang, &[("price", price)])
            }
            CsvProblem::PriceAmbiguous { price } => {
                StoreMessage::CsvPriceAmbiguous.fill(lang, &[("price", price)])
            }
            CsvProblem::PriceDecimals { price, currency } => StoreMessage::CsvPriceDecimals.fill(
                lang,
                &[
                    ("price", price),
                    ("currency", currency),
                    ("max", &currency.minor_units()),
                ],
            ),
            CsvProblem::PriceTooLarge { price } => {
                StoreMessage::CsvPriceTooLarge.fill(lang, &[("price", price)])
            }
            CsvProblem::Barcode { text, error } => {
                // 9 to 11 digits is usually a GTIN whose leading zeros a spreadsheet dropped.
                let m = if matches!(error, BarcodeError::Length(9..=11)) {
                    StoreMessage::CsvBarcodeZeros
                } else {
                    StoreMessage::CsvBarcode
                };
                m.fill(lang, &[("barcode", text), ("reason", &error.message(lang))])
            }
            CsvProblem::DuplicateBarcode { barcode, first } => StoreMessage::CsvDuplicateBarcode
                .fill(lang, &[("barcode", barcode), ("first", first)]),
            CsvProblem::DuplicateId { id, first } => {
                StoreMessage::CsvDuplicateId.fill(lang, &[("id", id), ("first", first)])
            }
        }
    }
}

/// One record of a CSV file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvRecord {
    /// The line it starts on (1-based).
    pub line: usize,
    /// Its fields, unquoted, not trimmed.
    pub fields: Vec<String>,
}

/// The field separator of a CSV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Separator {
    /// `,` (decimal mark `.`).
    Comma,
    /// `;` (decimal mark `,` or `.`).
    Semicolon,
}

impl Separator {
    /// The separator character.
    pub fn as_char(self) -> char {
        match self {
            Separator::Comma => ',',
            Separator::Semicolon => ';',
        }
    }

    /// The separator a header line uses: the more frequent of `;` and `,`.
    pub fn detect(header_line: &str) -> Self {
        let semis = header_line.matches(';').count();
        let commas = header_line.matches(',').count();
        if semis > commas {
            Separator::Semicolon
        } else {
            Separator::Comma
        }
    }
}

/// A parsed catalog file.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvParsed {
    /// The separator found.
    pub separator: Separator,
    /// The valid variants, in file order.
    pub variants: Vec<CatalogVariant>,
    /// The invalid lines.
    pub errors: Vec<CsvLineError>,
    /// The header has a `barcode` column: the file says each variant's barcode.
    pub barcode_column: bool,
}

/// The result of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvImport {
    /// How many variants were written.
    pub imported: usize,
    /// The lines that were not.
    pub errors: Vec<CsvLineError>,
}

/// Where the line breaks before a byte offset put it: counts `\n`, `\r\n` and a lone `\r` as
/// one line break each, moving forward only (records come in file order).
struct LineCounter {
    offset: usize,
    line: usize,
}

impl LineCounter {
    fn new() -> Self {
        Self { offset: 0, line: 1 }
    }

    /// The 1-based line of byte `at` (at or after the last offset asked about).
    fn line_at(&mut self, bytes: &[u8], at: usize) -> usize {
        let at = at.min(bytes.len());
        for i in self.offset..at {
            match bytes[i] {
                b'\n' => self.line += 1,
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => self.line += 1,
                _ => {}
            }
        }
        self.offset = self.offset.max(at);
        self.line
    }
}

/// The quoting mistake in one record's raw text, if any. The `csv` crate reads leniently (an
/// unclosed quote runs to the end of the file, text after a closing quote joins the field);
/// a catalog line like that is more likely a typo than meant, so it is reported instead.
fn quote_problem(raw: &[u8], sep: u8) -> Option<QuoteMistake> {
    let mut i = 0;
    loop {
        if raw.get(i) == Some(&b'"') {
            i += 1;
            loop {
                match raw.get(i) {
                    None => return Some(QuoteMistake::NotClosed),
                    Some(b'"') if raw.get(i + 1) == Some(&b'"') => i += 2,
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
            while matches!(raw.get(i), Some(b' ' | b'\t')) {
                i += 1;
            }
            match raw.get(i) {
                None | Some(b'\r' | b'\n') => return None,
                Some(&c) if c == sep => i += 1,
                Some(_) => return Some(QuoteMistake::TextAfterQuote),
            }
        } else {
            while raw
                .get(i)
                .is_some_and(|&c| c != sep && c != b'\r' && c != b'\n')
            {
                i += 1;
            }
            if raw.get(i) == Some(&sep) {
                i += 1;
            } else {
                return None;
            }
        }
    }
}

/// Splits CSV text into records with the `csv` crate (see the module docs for the rules),
/// each with the line it starts on. A record with a quoting mistake (an unclosed quote, text
/// after a closing quote) is an error for its line; parsing goes on with the next record.
pub fn parse_csv_records(text: &str, sep: char) -> Vec<Result<CsvRecord, CsvLineError>> {
    let sep = u8::try_from(sep).unwrap_or(b',');
    let bytes = text.as_bytes();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(sep)
        .from_reader(bytes);
    let mut lines = LineCounter::new();
    let mut record = csv::StringRecord::new();
    let mut out = Vec::new();
    loop {
        let read = reader.read_record(&mut record);
        let byte = |p: &csv::Position| usize::try_from(p.byte()).unwrap_or(bytes.len());
        let begin = record.position().map_or(0, byte);
        let end = byte(reader.position()).min(bytes.len());
        // The reader's record position is where it started looking: skip the line breaks of
        // the blank lines (and of a CRLF's `\n`) it passed over first.
        let start = begin
            + bytes[begin.min(end)..end]
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
        let line = lines.line_at(bytes, start);
        match read {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                // Reading a `&str` cannot fail on I/O or UTF-8; kept as a line error anyway.
                out.push(Err(CsvLineError {
                    line,
                    problem: CsvProblem::Unreadable {
                        detail: e.to_string(),
                    },
                }));
                break;
            }
        }
        if let Some(mistake) = quote_problem(&bytes[start.min(end)..end], sep) {
            out.push(Err(CsvLineError {
                line,
                problem: CsvProblem::Quote(mistake),
            }));
            continue;
        }
        if record.len() == 1 && record[0].trim().is_empty() {
            continue;
        }
        out.push(Ok(CsvRecord {
            line,
            fields: record.iter().map(str::to_owned).collect(),
        }));
    }
    out
}

/// A unit price in `currency`, by the rules of the module docs.
fn parse_price(text: &str, sep: Separator, currency: Currency) -> Result<Decimal, CsvProblem> {
    let t = text.trim();
    if t.is_empty() {
        return Err(CsvProblem::PriceEmpty);
    }
    let price = || t.to_owned();
    let (whole, frac, mark) = match (t.find('.'), t.find(',')) {
        (None, None) => (t, None, None),
        (Some(i), None) => (&t[..i], Some(&t[i + 1..]), Some('.')),
        (None, Some(i)) if sep == Separator::Semicolon => (&t[..i], Some(&t[i + 1..]), Some(',')),
        _ => return Err(CsvProblem::PriceSeparators { price: price() }),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !frac.is_none_or(digits) {
        return Err(if t.starts_with('-') {
            CsvProblem::PriceNotPositive { price: price() }
        } else {
            CsvProblem::PriceNotPlain { price: price() }
        });
    }
    if sep == Separator::Semicolon && mark == Some('.') && frac.is_some_and(|f| f.len() == 3) {
        return Err(CsvProblem::PriceAmbiguous { price: price() });
    }
    let normal = match frac {
        Some(f) => format!("{whole}.{f}"),
        None => whole.to_owned(),
    };
    // Only digits and one mark are left: the one way to fail is too many digits.
    let mut value =
        Decimal::from_str(&normal).map_err(|_| CsvProblem::PriceTooLarge { price: price() })?;
    if value <= Decimal::ZERO {
        return Err(CsvProblem::PriceNotPositive { price: price() });
    }
    let minor = currency.minor_units();
    if value.normalize().scale() > minor {
        return Err(CsvProblem::PriceDecimals {
            price: price(),
            currency,
        });
    }
    value.rescale(minor);
    Ok(value)
}

/// Parses a catalog CSV text (see the module docs).
fn parse_catalog(text: &str) -> Result<CsvParsed, StoreError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let header_line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .ok_or_else(|| StoreError::Csv(CsvFileProblem::Empty))?;
    let separator = Separator::detect(header_line);
    let mut records = parse_csv_records(text, separator.as_char()).into_iter();
    let header = match records.next() {
        Some(Ok(h)) => h,
        Some(Err(e)) => {
            return Err(StoreError::Csv(CsvFileProblem::Header(e)));
        }
        None => return Err(StoreError::Csv(CsvFileProblem::Empty)),
    };
    let names: Vec<String> = header
        .fields
        .iter()
        .map(|f| f.trim().to_ascii_lowercase())
        .collect();
    let column = |name: &str| names.iter().position(|n| n == name);
    let (Some(id_col), Some(name_col), Some(price_col), Some(cur_col)) = (
        column("id"),
        column("name"),
        column("unit_price"),
        column("currency"),
    ) else {
        return Err(StoreError::Csv(CsvFileProblem::Columns {
            line: header.line,
            found: names,
        }));
    };
    let needed = id_col.max(name_col).max(price_col).max(cur_col) + 1;
    let barcode_col = column("barcode");
    let mut barcodes_seen: HashMap<Barcode, usize> = HashMap::new();
    let mut variants = Vec::new();
    let mut errors = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for record in records {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let line = record.line;
        let fail = |problem: CsvProblem| CsvLineError { line, problem };
        if record.fields.len() < needed {
            errors.push(fail(CsvProblem::Columns {
                expected: needed,
                found: record.fields.len(),
            }));
            continue;
        }
        let id = record.fields[id_col].trim();
        let name = record.fields[name_col].trim();
        let currency_text = record.fields[cur_col].trim();
        if id.is_empty() {
            errors.push(fail(CsvProblem::EmptyId));
            continue;
        }
        if name.is_empty() {
            errors.push(fail(CsvProblem::EmptyName { id: id.to_owned() }));
            continue;
        }
        let currency = match Currency::from_str(currency_text) {
            Ok(c) => c,
            Err(e) => {
                errors.push(fail(CsvProblem::Currency(e)));
                continue;
            }
        };
        let unit_price = match parse_price(&record.fields[price_col], separator, currency) {
            Ok(p) => p,
            Err(p) => {
                errors.push(fail(p));
                continue;
            }
        };
        let barcode = match line_barcode(&record.fields, barcode_col, &barcodes_seen) {
            Ok(b) => b,
            Err(p) => {
                errors.push(fail(p));
                continue;
            }
        };
        if let Some(first) = seen.get(id) {
            errors.push(fail(CsvProblem::DuplicateId {
                id: id.to_owned(),
                first: *first,
            }));
            continue;
        }
        seen.insert(id.to_owned(), line);
        if let Some(b) = &barcode {
            barcodes_seen.insert(b.clone(), line);
        }
        variants.push(CatalogVariant {
            id: id.to_owned(),
            name: name.to_owned(),
            unit_price,
            currency,
            barcode,
        });
    }
    Ok(CsvParsed {
        separator,
        variants,
        errors,
        barcode_column: barcode_col.is_some(),
    })
}

/// The barcode cell of a line, if the file has the column: empty is none; a text that is not
/// a barcode, or a barcode an earlier line has, is the line's problem.
fn line_barcode(
    fields: &[String],
    col: Option<usize>,
    seen: &HashMap<Barcode, usize>,
) -> Result<Option<Barcode>, CsvProblem> {
    let Some(text) = col.and_then(|c| fields.get(c)).map(|t| t.trim()) else {
        return Ok(None);
    };
    if text.is_empty() {
        return Ok(None);
    }
    let code = Barcode::parse(text).map_err(|error| CsvProblem::Barcode {
        text: text.to_owned(),
        error,
    })?;
    match seen.get(&code) {
        Some(&first) => Err(CsvProblem::DuplicateBarcode {
            barcode: code,
            first,
        }),
        None => Ok(Some(code)),
    }
}

/// A `catalog_variants` row (`id, name, unit_price, currency, barcode`).
pub(super) fn variant_of(r: &rusqlite::Row<'_>) -> Result<CatalogVariant, StoreError> {
    let price: String = r.get(2)?;
    let currency: String = r.get(3)?;
    let barcode: Option<String> = r.get(4)?;
    Ok(CatalogVariant {
        id: r.get(0)?,
        name: r.get(1)?,
        unit_price: parse_decimal(&price, "catalog price")?,
        currency: Currency::from_str(&currency).map_err(|_| StoreError::Corrupt {
            what: "catalog currency",
            value: currency,
        })?,
        barcode: barcode
            .map(|b| {
                Barcode::parse(&b).map_err(|_| StoreError::Corrupt {
                    what: "catalog barcode",
                    value: b,
                })
            })
            .transpose()?,
    })
}

/// Reads at most [`CATALOG_FILE_LIMIT`] bytes of `reader`; one more is an error (`file` names
/// where they came from, when known).
fn read_limited(reader: impl Read, file: Option<&Path>) -> Result<Vec<u8>, StoreError> {
    let mut bytes = Vec::new();
    reader
        .take(CATALOG_FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| StoreError::Io {
            path: file.map_or_else(|| "catalog CSV".into(), Path::to_path_buf),
            source,
        })?;
    if bytes.len() as u64 > CATALOG_FILE_LIMIT {
        return Err(StoreError::Csv(CsvFileProblem::TooLarge {
            file: file.map(|f| f.display().to_string()),
        }));
    }
    Ok(bytes)
}

fn read_text(reader: impl Read) -> Result<String, StoreError> {
    let bytes = read_limited(reader, None)?;
    String::from_utf8(bytes).map_err(|_| StoreError::Csv(CsvFileProblem::NotUtf8))
}

/// Reads a catalog CSV file for [`Store::catalog_import_csv`] or
/// [`Store::catalog_preview_csv`], before the store is locked: at most [`CATALOG_FILE_LIMIT`]
/// bytes, a larger file (or an endless one, `/dev/zero`) refused with a sentence naming it and
/// the limit as soon as the limit is passed.
pub fn read_catalog_file(path: &Path) -> Result<Vec<u8>, StoreError> {
    let file = std::fs::File::open(path).map_err(|source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_limited(file, Some(path))
}

repository!(
    /// The local catalog: `catalog_variants` and their barcodes.
    Catalog
);

impl<A> Catalog<'_, A> {
    /// The name, unit price and currency of variant `id`, as stored.
    pub(super) fn variant_price(
        &self,
        id: &str,
    ) -> Result<Option<super::items::VariantPrice>, StoreError> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT name, unit_price, currency FROM catalog_variants WHERE id = ?1",
            )?
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?)
    }

    /// Every variant, by name then id.
    pub fn list(&self) -> Result<Vec<CatalogVariant>, StoreError> {
        self.variants_by("name, id")
    }

    /// How many variants there are.
    pub(super) fn count(&self) -> Result<usize, StoreError> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM catalog_variants", [], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// Every variant, by id (what the shop is owed).
    pub(super) fn list_by_id(&self) -> Result<Vec<CatalogVariant>, StoreError> {
        self.variants_by("id")
    }

    fn variants_by(&self, order: &str) -> Result<Vec<CatalogVariant>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT id, name, unit_price, currency, barcode FROM catalog_variants
             ORDER BY {order}"
        ))?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(variant_of(r)?);
        }
        Ok(out)
    }

    /// The variant with this barcode, through the barcode index.
    pub fn by_barcode(&self, code: &Barcode) -> Result<Option<CatalogVariant>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, name, unit_price, currency, barcode FROM catalog_variants
             WHERE barcode = ?1",
        )?;
        let mut rows = stmt.query([code.as_str()])?;
        rows.next()?.map(variant_of).transpose()
    }

    /// Every variant by id (the form's `CatalogLookup`).
    pub fn map(&self) -> Result<HashMap<String, CatalogVariant>, StoreError> {
        Ok(self
            .list()?
            .into_iter()
            .map(|v| (v.id.clone(), v))
            .collect())
    }

    /// The id and name of the variant other than `id` that has `code`, if one has.
    fn barcode_holder(
        &self,
        code: &Barcode,
        id: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, name FROM catalog_variants WHERE barcode = ?1 AND id <> ?2",
                params![code.as_str(), id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }
}

impl Catalog<'_, Write> {
    /// Writes the variants of an import (replacing those with the same id), and with
    /// `barcodes` their barcodes too, in file order, each taken from whoever had it: a file
    /// that swaps two barcodes imports without tripping the unique index.
    fn import(&self, variants: &[CatalogVariant], barcodes: bool) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "INSERT INTO catalog_variants (id, name, unit_price, currency)
             VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name,
                 unit_price = excluded.unit_price, currency = excluded.currency",
        )?;
        for v in variants {
            stmt.execute(params![
                v.id,
                v.name,
                v.unit_price.to_string(),
                v.currency.as_str()
            ])?;
        }
        if barcodes {
            let mut take = self.conn.prepare_cached(
                "UPDATE catalog_variants SET barcode = NULL WHERE barcode = ?1 AND id <> ?2",
            )?;
            let mut set = self
                .conn
                .prepare_cached("UPDATE catalog_variants SET barcode = ?2 WHERE id = ?1")?;
            for v in variants {
                let code = v.barcode.as_ref().map(Barcode::as_str);
                if let Some(code) = code {
                    take.execute(params![code, v.id])?;
                }
                set.execute(params![v.id, code])?;
            }
        }
        Ok(())
    }

    /// Writes `item` (see [`Store::catalog_put_item`]) and returns its id; nothing is
    /// committed here.
    fn put_item(&self, item: &CatalogVariant) -> Result<String, StoreError> {
        let name = item.name.trim();
        if name.is_empty() || item.unit_price <= Decimal::ZERO {
            return Err(StoreError::BadItem);
        }
        let id = if item.id.trim().is_empty() {
            new_own_id()
        } else {
            item.id.trim().to_owned()
        };
        let read = Catalog::read(self.conn);
        let stored = read.variant_price(&id)?;
        if !crate::domain::is_own_id(&id) {
            // A server variant: its price and currency stay the server's, by any path.
            let Some((_, price, currency)) = stored else {
                return Err(StoreError::NoVariant(id));
            };
            let same_price = Decimal::from_str(&price).is_ok_and(|p| p == item.unit_price);
            if !same_price || currency != item.currency.as_str() {
                return Err(StoreError::PriceFromServer(id));
            }
        }
        if let Some(code) = &item.barcode
            && let Some((other, other_name)) = read.barcode_holder(code, &id)?
        {
            return Err(StoreError::BarcodeTaken {
                barcode: code.to_string(),
                id: other,
                name: other_name,
            });
        }
        let mut price = item.unit_price;
        price.rescale(item.currency.minor_units());
        self.conn.execute(
            "INSERT INTO catalog_variants (id, name, unit_price, currency, barcode)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name,
                 unit_price = excluded.unit_price, currency = excluded.currency,
                 barcode = excluded.barcode",
            params![
                id,
                name,
                price.to_string(),
                item.currency.as_str(),
                item.barcode.as_ref().map(Barcode::as_str)
            ],
        )?;
        Ok(id)
    }

    /// Removes item `id`; whether there was such an item.
    fn remove(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .execute("DELETE FROM catalog_variants WHERE id = ?1", [id])?
            > 0)
    }

    /// Sets (or clears) the barcode of variant `id`; whether there is such a variant.
    fn set_barcode(&self, id: &str, code: Option<&Barcode>) -> Result<bool, StoreError> {
        Ok(self.conn.execute(
            "UPDATE catalog_variants SET barcode = ?2 WHERE id = ?1",
            params![id, code.map(Barcode::as_str)],
        )? > 0)
    }

    /// Replaces every variant with `variants` (the shop's snapshot), prices at their
    /// currency's scale.
    pub(super) fn replace_all(&self, variants: &[CatalogVariant]) -> Result<(), StoreError> {
        self.conn.execute("DELETE FROM catalog_variants", [])?;
        let mut insert = self.conn.prepare_cached(
            "INSERT INTO catalog_variants (id, name, unit_price, currency, barcode)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for v in variants {
            let mut price = v.unit_price;
            price.rescale(v.currency.minor_units());
            insert.execute(params![
                v.id,
                v.name,
                price.to_string(),
                v.currency.as_str(),
                v.barcode.as_ref().map(Barcode::as_str)
            ])?;
        }
        Ok(())
    }
}

impl Store {
    /// The catalog's reads.
    pub fn catalog(&self) -> Catalog<'_> {
        Catalog::read(&self.conn)
    }

    /// Parses a catalog CSV without writing anything (the import dialog's preview).
    pub fn catalog_preview_csv(&self, reader: impl Read) -> Result<CsvParsed, StoreError> {
        parse_catalog(&read_text(reader)?)
    }

    /// Imports a catalog CSV: every valid line is written in one transaction (replacing a
    /// variant with the same id), with its audit and outbox rows; invalid lines are reported,
    /// not written.
    pub fn catalog_import_csv(&mut self, reader: impl Read) -> Result<CsvImport, StoreError> {
        let parsed = parse_catalog(&read_text(reader)?)?;
        let tx = write_tx(&mut self.conn)?;
        Catalog::write(&tx).import(&parsed.variants, parsed.barcode_column)?;
        let subject = format!("{} items", parsed.variants.len());
        let at = super::audit_time(self.acting_at);
        Audit::write(&tx).append(&self.actor, AuditAction::CatalogImport, &subject, at)?;
        super::outbox::enqueue_catalog(&tx, CatalogChange::Whole, at)?;
        tx.commit()?;
        Ok(CsvImport {
            imported: parsed.variants.len(),
            errors: parsed.errors,
        })
    }

    /// What the catalog would be after importing this CSV (the import's own rules, a barcode
    /// column included), with the import's report; nothing is written. A joined desk sends
    /// this catalog to the shop, which makes it everyone's.
    pub fn catalog_after_import(
        &mut self,
        reader: impl Read,
    ) -> Result<(CsvImport, Vec<CatalogVariant>), StoreError> {
        let parsed = parse_catalog(&read_text(reader)?)?;
        let tx = write_tx(&mut self.conn)?;
        Catalog::write(&tx).import(&parsed.variants, parsed.barcode_column)?;
        let after = Catalog::read(&tx).list()?;
        // Dropped, not committed: the file is as it was.
        drop(tx);
        Ok((
            CsvImport {
                imported: parsed.variants.len(),
                errors: parsed.errors,
            },
            after,
        ))
    }

    /// Adds an item of the shop's own (`item.id` empty: it gets a new [`OWN_PREFIX`] id) or
    /// edits one. A server variant's price and currency cannot change here (the server is the
    /// price authority: [`StoreError::PriceFromServer`]); its name shown and barcode can. A
    /// barcode another item has is refused, naming it. Audited as a catalog edit; returns the
    /// item's id.
    ///
    /// [`OWN_PREFIX`]: crate::domain::OWN_PREFIX
    pub fn catalog_put_item(&mut self, item: &CatalogVariant) -> Result<String, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let id = Catalog::write(&tx).put_item(item)?;
        let at = super::audit_time(self.acting_at);
        let subject = item_subject(&id, item);
        Audit::write(&tx).append(&self.actor, AuditAction::CatalogEdit, &subject, at)?;
        super::outbox::enqueue_catalog(&tx, CatalogChange::Whole, at)?;
        tx.commit()?;
        Ok(id)
    }

    /// Removes item `id` from the catalog (audited as a catalog edit).
    pub fn catalog_remove(&mut self, id: &str) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        if !Catalog::write(&tx).remove(id)? {
            return Err(StoreError::NoVariant(id.to_owned()));
        }
        let at = super::audit_time(self.acting_at);
        Audit::write(&tx).append(
            &self.actor,
            AuditAction::CatalogEdit,
            &format!("{id} removed"),
            at,
        )?;
        super::outbox::enqueue_catalog(&tx, CatalogChange::Whole, at)?;
        tx.commit()?;
        Ok(())
    }

    /// What the catalog would be after [`Store::catalog_put_item`] (with `Some(item)`) or
    /// [`Store::catalog_remove`] of `id`, under the same rules; nothing is written. A joined
    /// desk sends this catalog to the shop, which makes it everyone's.
    pub fn catalog_after_edit(
        &mut self,
        edit: &CatalogEdit,
    ) -> Result<(String, Vec<CatalogVariant>), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let catalog = Catalog::write(&tx);
        let subject = match edit {
            CatalogEdit::Put(item) => {
                let id = catalog.put_item(item)?;
                item_subject(&id, item)
            }
            CatalogEdit::Remove(id) => {
                if !catalog.remove(id)? {
                    return Err(StoreError::NoVariant(id.clone()));
                }
                format!("{id} removed")
            }
        };
        let after = Catalog::read(&tx).list()?;
        // Dropped, not committed: the file is as it was.
        drop(tx);
        Ok((subject, after))
    }

    /// Sets (or with `None` clears) a variant's barcode. A barcode another variant has is
    /// refused, naming that variant; nothing is moved silently.
    pub fn catalog_set_barcode(
        &mut self,
        id: &str,
        code: Option<&Barcode>,
    ) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let catalog = Catalog::write(&tx);
        if let Some(code) = code
            && let Some((other, name)) = catalog.barcode_holder(code, id)?
        {
            return Err(StoreError::BarcodeTaken {
                barcode: code.to_string(),
                id: other,
                name,
            });
        }
        if !catalog.set_barcode(id, code)? {
            return Err(StoreError::NoVariant(id.to_owned()));
        }
        let subject = format!("{id} barcode {}", code.map_or("none", Barcode::as_str));
        let at = super::audit_time(self.acting_at);
        Audit::write(&tx).append(&self.actor, AuditAction::CatalogEdit, &subject, at)?;
        let change = CatalogChange::Barcode(id, code.map(Barcode::as_str));
        super::outbox::enqueue_catalog(&tx, change, at)?;
        tx.commit()?;
        Ok(())
    }
}

/// A change to one catalog item, as the Catalog view makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogEdit {
    /// Add (an empty id) or edit an item.
    Put(CatalogVariant),
    /// Remove the item with this id.
    Remove(String),
}

/// The audit's subject of an item added or edited: its id, name and price.
fn item_subject(id: &str, item: &CatalogVariant) -> String {
    format!(
        "{id} {} {} {}",
        item.name.trim(),
        item.unit_price,
        item.currency.as_str()
    )
}

/// A new id for an item of the shop's own: [`crate::domain::OWN_PREFIX`] and 12 random hex
/// digits (never a server variant's id, never sent).
fn new_own_id() -> String {
    let bytes: [u8; 6] = rand::random();
    format!("{}{}", crate::domain::OWN_PREFIX, hex::encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok_fields(text: &str, sep: char) -> Vec<(usize, Vec<String>)> {
        parse_csv_records(text, sep)
            .into_iter()
            .map(|r| {
                let r = r.unwrap();
                (r.line, r.fields)
            })
            .collect()
    }

    #[test]
    fn csv_records_handle_quotes_separators_and_line_breaks() {
        type Case = (&'static str, char, Vec<(usize, Vec<&'static str>)>);
        let table: [Case; 10] = [
            ("a,b,c", ',', vec![(1, vec!["a", "b", "c"])]),
            (
                "a,b\r\nc,d\r\n",
                ',',
                vec![(1, vec!["a", "b"]), (2, vec!["c", "d"])],
            ),
            (
                "\"x, y\",\"say \"\"hi\"\"\",z",
                ',',
                vec![(1, vec!["x, y", "say \"hi\"", "z"])],
            ),
            (
                "\"two\nlines\",b\nc,d",
                ',',
                vec![(1, vec!["two\nlines", "b"]), (3, vec!["c", "d"])],
            ),
            ("a;\"1,5\";c", ';', vec![(1, vec!["a", "1,5", "c"])]),
            (
                "a,b\n\n  \nc,d",
                ',',
                vec![(1, vec!["a", "b"]), (4, vec!["c", "d"])],
            ),
            ("a,,\"\"", ',', vec![(1, vec!["a", "", ""])]),
            ("5\" screen,b", ',', vec![(1, vec!["5\" screen", "b"])]),
            (
                "a,b\r\r\nc,\"d\r\ne\"\rf,g",
                ',',
                vec![
                    (1, vec!["a", "b"]),
                    (3, vec!["c", "d\r\ne"]),
                    (5, vec!["f", "g"]),
                ],
            ),
            (
                "\n\nid;name\n\n\"x;\ny\";2\n",
                ';',
                vec![(3, vec!["id", "name"]), (5, vec!["x;\ny", "2"])],
            ),
        ];
        for (text, sep, want) in table {
            let want: Vec<(usize, Vec<String>)> = want
                .into_iter()
                .map(|(l, f)| (l, f.into_iter().map(String::from).collect()))
                .collect();
            assert_eq!(ok_fields(text, sep), want, "{text:?}");
        }
    }

    #[test]
    fn malformed_records_are_reported_on_their_line_and_parsing_goes_on() {
        let got = parse_csv_records("a,b\n\"x\"y,z\nc,d\n\"open,e", ',');
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].as_ref().unwrap().fields, ["a", "b"]);
        assert_eq!(
            got[1].as_ref().unwrap_err(),
            &CsvLineError {
                line: 2,
                problem: CsvProblem::Quote(QuoteMistake::TextAfterQuote)
            }
        );
        assert_eq!(got[2].as_ref().unwrap().line, 3);
        assert_eq!(got[2].as_ref().unwrap().fields, ["c", "d"]);
        assert_eq!(got[3].as_ref().unwrap_err().line, 4);
        assert_eq!(
            got[3].as_ref().unwrap_err().problem,
            CsvProblem::Quote(QuoteMistake::NotClosed)
        );
    }

    #[test]
    fn prices_follow_the_separator_and_currency_rules() {
        use Separator::{Comma, Semicolon};
        type Make = fn(String, Currency) -> CsvProblem;
        let ok = [
            ("12.50", Comma, Currency::Try, "12.50"),
            ("12.5", Comma, Currency::Try, "12.50"),
            ("12", Comma, Currency::Usd, "12.00"),
            (" 7 ", Comma, Currency::Eur, "7.00"),
            ("12,50", Semicolon, Currency::Try, "12.50"),
            ("12.50", Semicolon, Currency::Try, "12.50"),
            ("1250", Semicolon, Currency::Jpy, "1250"),
            ("12.500", Comma, Currency::Try, "12.50"),
            ("0.01", Comma, Currency::Gbp, "0.01"),
        ];
        for (text, sep, cur, want) in ok {
            assert_eq!(
                parse_price(text, sep, cur).map(|d| d.to_string()),
                Ok(want.to_owned()),
                "{text} {sep:?} {cur}"
            );
        }
        // Each problem names the price as typed (and the currency where it matters).
        let empty: Make = |_, _| CsvProblem::PriceEmpty;
        let separators: Make = |price, _| CsvProblem::PriceSeparators { price };
        let ambiguous: Make = |price, _| CsvProblem::PriceAmbiguous { price };
        let decimals: Make = |price, currency| CsvProblem::PriceDecimals { price, currency };
        let not_positive: Make = |price, _| CsvProblem::PriceNotPositive { price };
        let not_plain: Make = |price, _| CsvProblem::PriceNotPlain { price };
        let too_large: Make = |price, _| CsvProblem::PriceTooLarge { price };
        let bad = [
            ("", Comma, Currency::Try, empty),
            ("12,50", Comma, Currency::Try, separators),
            ("1.250", Semicolon, Currency::Try, ambiguous),
            ("1.250,50", Semicolon, Currency::Try, separators),
            ("12.345", Comma, Currency::Try, decimals),
            ("12.5", Comma, Currency::Jpy, decimals),
            ("0", Comma, Currency::Try, not_positive),
            ("0.00", Comma, Currency::Try, not_positive),
            ("-5", Comma, Currency::Try, not_positive),
            ("1e3", Comma, Currency::Try, not_plain),
            ("12.", Comma, Currency::Try, not_plain),
            ("₺12", Comma, Currency::Try, not_plain),
            (
                "123456789012345678901234567890",
                Comma,
                Currency::Try,
                too_large,
            ),
        ];
        for (text, sep, cur, make) in bad {
            let want = make(text.to_owned(), cur);
            assert_eq!(parse_price(text, sep, cur), Err(want), "{text:?}");
        }
        assert_eq!(
            parse_price("12.345", Comma, Currency::Try)
                .unwrap_err()
                .message(Lang::En),
            "the unit price `12.345` has more decimals than TRY allows (2)"
        );
    }

    /// One value of every problem. The `match` makes the compiler list a new case here.
    fn every_problem() -> Vec<CsvProblem> {
        let all = vec![
            CsvProblem::Unreadable {
                detail: "CSV error".into(),
            },
            CsvProblem::Quote(QuoteMistake::NotClosed),
            CsvProblem::Quote(QuoteMistake::TextAfterQuote),
            CsvProblem::Columns {
                expected: 4,
                found: 3,
            },
            CsvProblem::EmptyId,
            CsvProblem::EmptyName { id: "v1".into() },
            CsvProblem::Currency(Currency::from_str("XYZ").unwrap_err()),
            CsvProblem::PriceEmpty,
            CsvProblem::PriceSeparators {
                price: "12,50".into(),
            },
            CsvProblem::PriceNotPlain {
                price: "1e3".into(),
            },
            CsvProblem::PriceNotPositive { price: "0".into() },
            CsvProblem::PriceAmbiguous {
                price: "1.250".into(),
            },
            CsvProblem::PriceDecimals {
                price: "12.5".into(),
                currency: Currency::Jpy,
            },
            CsvProblem::PriceTooLarge {
                price: "1".repeat(40),
            },
            CsvProblem::Barcode {
                text: "123".into(),
                error: BarcodeError::Length(3),
            },
            CsvProblem::Barcode {
                text: "36000291452".into(),
                error: BarcodeError::Length(11),
            },
            CsvProblem::DuplicateBarcode {
                barcode: Barcode::parse("036000291452").unwrap(),
                first: 3,
            },
            CsvProblem::DuplicateId {
                id: "v1".into(),
                first: 2,
            },
        ];
        for p in &all {
            match p {
                CsvProblem::Unreadable { .. }
                | CsvProblem::Quote(QuoteMistake::NotClosed | QuoteMistake::TextAfterQuote)
                | CsvProblem::Columns { .. }
                | CsvProblem::EmptyId
                | CsvProblem::EmptyName { .. }
                | CsvProblem::Currency(_)
                | CsvProblem::PriceEmpty
                | CsvProblem::PriceSeparators { .. }
                | CsvProblem::PriceNotPlain { .. }
                | CsvProblem::PriceNotPositive { .. }
                | CsvProblem::PriceAmbiguous { .. }
                | CsvProblem::PriceDecimals { .. }
                | CsvProblem::PriceTooLarge { .. }
                | CsvProblem::Barcode { .. }
                | CsvProblem::DuplicateBarcode { .. }
                | CsvProblem::DuplicateId { .. } => {}
            }
        }
        all
    }

    #[test]
    fn every_problem_reads_in_turkish_and_english_with_its_values() {
        let mut seen = std::collections::HashSet::new();
        for p in every_problem() {
            let (tr, en) = (p.message(Lang::Tr), p.message(Lang::En));
            assert!(!tr.trim().is_empty() && !en.trim().is_empty(), "{p:?}");
            assert_ne!(tr, en, "{p:?}");
            assert!(
                !tr.contains('{') && !en.contains('{'),
                "unfilled: {tr} / {en}"
            );
            assert!(
                tr.chars().any(|c| "çğıöşüÇĞİÖŞÜ".contains(c)),
                "not Turkish: {tr}"
            );
            assert!(seen.insert(tr.clone()), "duplicate: {tr}");
            assert!(seen.insert(en.clone()), "duplicate: {en}");
        }
        let p = CsvProblem::DuplicateId {
            id: "v1".into(),
            first: 2,
        };
        assert_eq!(
            p.message(Lang::Tr),
            "id `v1` yeniden geçiyor (ilk kez 2. satırda)"
        );
        let p = CsvProblem::Barcode {
            text: "4006381333937".into(),
            error: BarcodeError::CheckDigit {
                found: 7,
                expected: 1,
            },
        };
        assert_eq!(
            p.message(Lang::Tr),
            "barkod `4006381333937`: kontrol hanesi 7, beklenen 1: bir hane yanlış okunmuş ya da yazılmış"
        );
    }

    #[test]
    fn the_separator_is_the_more_frequent_one_in_the_header() {
        assert_eq!(
            Separator::detect("id,name,unit_price,currency"),
            Separator::Comma
        );
        assert_eq!(
            Separator::detect("id;name;unit_price;currency"),
            Separator::Semicolon
        );
        assert_eq!(
            Separator::detect("id;\"a,b\";unit_price;currency"),
            Separator::Semicolon
        );
    }
}
