//! The printed QR slip: a one-page PDF for the counter's receipt printer (80 mm roll) or an A6
//! sheet, with the shop name, the amount, the payment link's QR code, the order number and the
//! expiry.
//!
//! Why a module of its own: paper is not a screen. A phone reads this QR from a slip printed at
//! whatever resolution the printer has, so the code is drawn as vector squares (no bitmap for
//! the print driver to resample and blur) with the 4-module white quiet zone kept inside the
//! printable width; and the text has to print ş ğ ı İ and ₺ on a printer that has no such font,
//! so the glyphs used are embedded from the `DejaVu` Sans the app already ships (a subset, a few
//! kilobytes). The module is pure: a [`Slip`] and a [`Paper`] in, PDF bytes out. No egui, no
//! file, no printer: sending the bytes somewhere is `printer`'s job. The fixed words ("Scan to
//! pay", "Order number", "Expires") come from the app's catalogue (`ui::text`, plain data), so
//! the slip speaks the app's language.
//!
//! The layout is computed in millimetres from the top of the page and converted to PDF points
//! (1/72 inch, origin bottom left) only when written. On the roll the page is exactly as tall
//! as its content (a whole number of millimetres, so the print job can name that paper size);
//! on A6 the code is as large as the sheet leaves room for and the block is centred.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write as _;
use std::str::FromStr;

use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, TextRenderingMode, UnicodeCmap};
use pdf_writer::{Content, Filter, Finish as _, Name, Pdf, Rect, Ref, Str, TextStr};
use serde::{Deserialize, Serialize};
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, GlyphId, MetadataProvider as _};

use crate::api::wire::PaymentLink;
use crate::clock::Zone;
use crate::domain::format_amount;
use crate::lang::Lang;
use crate::qr::{QUIET_ZONE, QrError, QrMatrix};

/// `DejaVu` Sans (Bitstream Vera licence, text in `assets/fonts/`): Latin with the Turkish
/// letters, and ₺. The UI draws with the same bytes (`ui::fonts` takes them from here), so the
/// binary holds one copy.
pub static DEJAVU_SANS: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

fn font() -> &'static [u8] {
    DEJAVU_SANS
}

crate::sentences! {
    /// The words printed on a slip.
    pub enum SlipText {
    ScanToPay => "Ödemek için okutun", "Scan to pay";
    OrderNumber => "Sipariş no", "Order number";
    Expiry => "Son geçerlilik", "Expires";
    }
}

/// PDF points per millimetre.
const PT_PER_MM: f32 = 72.0 / 25.4;

/// Lines of shop name at most; a longer name ends in "…".
const SHOP_MAX_LINES: usize = 3;
/// Lines the order number and the expiry may take each: a real order number takes one; what
/// a server sends beyond that is cut with "…", so a slip stays a slip.
const DETAIL_MAX_LINES: usize = 3;

/// The paper a slip is laid out for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Paper {
    /// An 80 mm receipt roll (72 mm printable), the page as long as the slip.
    #[default]
    Roll80,
    /// An A6 sheet, 105 × 148 mm.
    A6,
}

impl Paper {
    /// Both papers, in the order the settings list them.
    pub const ALL: [Paper; 2] = [Paper::Roll80, Paper::A6];

    /// Width of the page, mm.
    pub fn width_mm(self) -> u32 {
        match self {
            Paper::Roll80 => 80,
            Paper::A6 => 105,
        }
    }

    /// Height of the page, mm, when the paper fixes it (the roll's follows the content).
    pub fn fixed_height_mm(self) -> Option<u32> {
        match self {
            Paper::Roll80 => None,
            Paper::A6 => Some(148),
        }
    }

    /// The left and right margin, mm. An 80 mm receipt printer prints 72 mm of it.
    fn side_margin_mm(self) -> f32 {
        match self {
            Paper::Roll80 => 4.0,
            Paper::A6 => 8.0,
        }
    }

    /// The margin at the top and bottom, mm (on the roll, the bottom one keeps the text clear
    /// of the cutter).
    fn end_margins_mm(self) -> (f32, f32) {
        match self {
            Paper::Roll80 => (4.0, 8.0),
            Paper::A6 => (8.0, 8.0),
        }
    }

    /// Font sizes in points: shop name, amount, "Scan to pay", the detail lines.
    fn font_sizes(self) -> Sizes {
        match self {
            Paper::Roll80 => Sizes {
                shop: 12.0,
                amount: 22.0,
                scan: 11.0,
                detail: 9.5,
            },
            Paper::A6 => Sizes {
                shop: 14.0,
                amount: 26.0,
                scan: 13.0,
                detail: 10.5,
            },
        }
    }

    /// The name the CLI takes (`--size`).
    pub fn as_str(self) -> &'static str {
        match self {
            Paper::Roll80 => "80mm",
            Paper::A6 => "a6",
        }
    }
}

impl fmt::Display for Paper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Paper {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "80mm" | "80" | "roll" | "roll80" => Ok(Paper::Roll80),
            "a6" => Ok(Paper::A6),
            other => Err(format!("`{other}` is not a slip size (80mm, a6)")),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Sizes {
    shop: f32,
    amount: f32,
    scan: f32,
    detail: f32,
}

/// What a slip says. Text arrives formatted for `lang`; the slip adds only its fixed words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slip {
    /// The shop's name; empty: no line for it.
    pub shop: String,
    /// The amount with its currency, as the language writes it (`1.234,50 ₺`); empty: no line.
    pub amount: String,
    /// The payment URL the QR code carries, byte for byte.
    pub url: String,
    /// The order number (or the link id when there is none).
    pub order_number: String,
    /// When the link expires, as people read it; `None`: no line.
    pub expiry: Option<String>,
    /// The language of the fixed words.
    pub lang: Lang,
}

impl Slip {
    /// [`Slip::of_link_in`] in the machine's zone.
    pub fn of_link(link: &PaymentLink, shop: &str, lang: Lang) -> Option<Slip> {
        Self::of_link_in(link, shop, lang, Zone::Local)
    }

    /// The slip of a payment link: its amount in `lang`, its URL, its order number (else its
    /// id) and its expiry in `zone` as the result view shows it. `None` when the server sent no
    /// payment URL (there is nothing to scan).
    pub fn of_link_in(link: &PaymentLink, shop: &str, lang: Lang, zone: Zone) -> Option<Slip> {
        let url = link.payment_url.clone().filter(|u| !u.is_empty())?;
        let amount = link
            .amount
            .map(|a| format_amount(a, link.currency.unwrap_or_default(), lang))
            .unwrap_or_default();
        Some(Slip {
            shop: shop.trim().to_owned(),
            amount,
            url,
            order_number: link.order_number.clone().unwrap_or_else(|| link.id.clone()),
            expiry: link
                .expiry_date
                .map(|at| zone.local(at).format("%Y-%m-%d %H:%M").to_string()),
            lang,
        })
    }
}

/// A rendered slip.
#[derive(Clone, PartialEq, Eq)]
pub struct SlipPdf {
    /// The PDF file.
    pub bytes: Vec<u8>,
    /// The paper it is laid out for.
    pub paper: Paper,
    /// Page width, mm.
    pub width_mm: u32,
    /// Page height, mm.
    pub height_mm: u32,
}

impl fmt::Debug for SlipPdf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlipPdf")
            .field("bytes", &self.bytes.len())
            .field("paper", &self.paper)
            .field("width_mm", &self.width_mm)
            .field("height_mm", &self.height_mm)
            .finish()
    }
}

/// Why a slip could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SlipError {
    /// The URL does not fit in a QR code.
    #[error(transparent)]
    Qr(#[from] QrError),
    /// The embedded font could not be read or subset.
    #[error("the slip's font could not be embedded: {0}")]
    Font(String),
}

/// Lays out `slip` on `paper` and writes it as a one-page PDF.
pub fn render(slip: &Slip, paper: Paper) -> Result<SlipPdf, SlipError> {
    let face = Face::new()?;
    let matrix = QrMatrix::encode(&slip.url)?;
    let layout = layout(slip, paper, &face, &matrix);
    let bytes = write_pdf(&layout, &face, &matrix, slip)?;
    Ok(SlipPdf {
        bytes,
        paper,
        width_mm: paper.width_mm(),
        height_mm: layout.height_mm,
    })
}

/// One line of text: its top-left corner (mm from the page's top-left) and size.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    x_mm: f32,
    top_mm: f32,
    size_pt: f32,
    /// Drawn heavier (the amount): only a regular weight is embedded, so its outline is
    /// stroked as well as filled.
    bold: bool,
    text: String,
}

/// Lines of one kind (the shop name, the amount, ...) and the space after them, mm.
struct Block {
    lines: Vec<String>,
    size_pt: f32,
    bold: bool,
    gap_mm: f32,
}

impl Block {
    fn new(lines: Vec<String>, size_pt: f32, gap_mm: f32) -> Self {
        Self {
            lines,
            size_pt,
            bold: false,
            gap_mm,
        }
    }

    fn height_mm(&self) -> f32 {
        f32::from(u16::try_from(self.lines.len()).unwrap_or(u16::MAX))
            * line_height_mm(self.size_pt)
            + self.gap_mm
    }
}

/// The stroke that makes a line "bold", as a share of its font size.
const BOLD_STROKE: f32 = 0.035;

/// Where everything goes.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    width_mm: u32,
    height_mm: u32,
    lines: Vec<Line>,
    /// Top-left corner of the code's quiet zone, mm.
    qr_x_mm: f32,
    qr_top_mm: f32,
    /// One module, mm.
    module_mm: f32,
}

/// Height of a line of text of `size_pt`, mm.
fn line_height_mm(size_pt: f32) -> f32 {
    size_pt * 1.22 / PT_PER_MM
}

fn layout(slip: &Slip, paper: Paper, face: &Face<'_>, matrix: &QrMatrix) -> Layout {
    let lang = slip.lang;
    let sizes = paper.font_sizes();
    let width = paper.width_mm();
    let margin = paper.side_margin_mm();
    let printable = f32::from(u16::try_from(width).unwrap_or(u16::MAX)) - 2.0 * margin;
    let (top_margin, bottom_margin) = paper.end_margins_mm();

    // Text above and below the code.
    let mut above = Vec::new();
    let shop = slip.shop.split_whitespace().collect::<Vec<_>>().join(" ");
    if !shop.is_empty() {
        let lines = face.wrap(&shop, sizes.shop, printable, SHOP_MAX_LINES);
        above.push(Block::new(lines, sizes.shop, 1.5));
    }
    let amount = slip.amount.trim();
    if !amount.is_empty() {
        // The amount stays on one line, stroke included: a long one is set smaller.
        let size = sizes.amount;
        let wide = face.width_mm(amount, size) + BOLD_STROKE * size / PT_PER_MM;
        let size = if wide > printable {
            size * printable / wide
        } else {
            size
        };
        above.push(Block {
            bold: true,
            ..Block::new(vec![amount.to_owned()], size, 1.0)
        });
    }
    above.push(Block::new(
        face.wrap(SlipText::ScanToPay.get(lang), sizes.scan, printable, 2),
        sizes.scan,
        0.0,
    ));
    let mut below = Vec::new();
    let order = format!(
        "{}: {}",
        SlipText::OrderNumber.get(lang),
        slip.order_number.trim()
    );
    below.push(Block::new(
        face.wrap(&order, sizes.detail, printable, DETAIL_MAX_LINES),
        sizes.detail,
        0.5,
    ));
    if let Some(expiry) = slip
        .expiry
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        let text = format!("{}: {expiry}", SlipText::Expiry.get(lang));
        below.push(Block::new(
            face.wrap(&text, sizes.detail, printable, DETAIL_MAX_LINES),
            sizes.detail,
            0.0,
        ));
    }
    let text_height: f32 = above.iter().chain(&below).map(Block::height_mm).sum();

    // The code with its quiet zone: the printable width, or what the sheet leaves.
    let modules = f32::from(u16::try_from(matrix.width_with_quiet_zone()).unwrap_or(u16::MAX));
    let qr_side = match paper.fixed_height_mm() {
        None => printable,
        Some(h) => {
            let room = f32::from(u16::try_from(h).unwrap_or(u16::MAX))
                - top_margin
                - bottom_margin
                - text_height;
            printable.min(room).max(30.0)
        }
    };
    let module_mm = qr_side / modules;
    let content = text_height + qr_side;
    let (height_mm, start) = match paper.fixed_height_mm() {
        // Whole millimetres, so the print job can ask for exactly this length of roll.
        None => {
            let total = (top_margin + content + bottom_margin).ceil();
            // A slip is a few centimetres long: the value is small and positive.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let total = total as u32;
            (total, top_margin)
        }
        Some(h) => {
            // Centred on the sheet.
            let free = f32::from(u16::try_from(h).unwrap_or(u16::MAX)) - content;
            (h, (free / 2.0).max(0.0))
        }
    };

    let mut lines = Vec::new();
    let mut y = start;
    let mut place = |blocks: &[Block], y: &mut f32| {
        for block in blocks {
            for text in &block.lines {
                let w = face.width_mm(text, block.size_pt);
                lines.push(Line {
                    x_mm: margin + (printable - w).max(0.0) / 2.0,
                    top_mm: *y,
                    size_pt: block.size_pt,
                    bold: block.bold,
                    text: text.clone(),
                });
                *y += line_height_mm(block.size_pt);
            }
            *y += block.gap_mm;
        }
    };
    place(&above, &mut y);
    let qr_top_mm = y;
    y += qr_side;
    place(&below, &mut y);
    Layout {
        width_mm: width,
        height_mm,
        lines,
        qr_x_mm: margin + (printable - qr_side) / 2.0,
        qr_top_mm,
        module_mm,
    }
}

/// The embedded font: glyph look-up and advance widths.
struct Face<'a> {
    font: FontRef<'a>,
    charmap: skrifa::charmap::Charmap<'a>,
    metrics: skrifa::metrics::GlyphMetrics<'a>,
    units_per_em: f32,
}

impl Face<'static> {
    fn new() -> Result<Self, SlipError> {
        let font = FontRef::new(font()).map_err(|e| SlipError::Font(e.to_string()))?;
        let charmap = font.charmap();
        let metrics = font.glyph_metrics(Size::unscaled(), LocationRef::default());
        let units_per_em = f32::from(
            font.metrics(Size::unscaled(), LocationRef::default())
                .units_per_em,
        );
        Ok(Self {
            font,
            charmap,
            metrics,
            units_per_em,
        })
    }
}

impl Face<'_> {
    /// The glyph of `c`; a character the font lacks prints as "?".
    fn glyph(&self, c: char) -> u16 {
        let c = if c.is_whitespace() { ' ' } else { c };
        self.charmap
            .map(c)
            .or_else(|| self.charmap.map('?'))
            .and_then(|g| u16::try_from(g.to_u32()).ok())
            .unwrap_or(0)
    }

    /// Advance width of `glyph`, in thousandths of the font size.
    fn advance(&self, glyph: u16) -> f32 {
        self.metrics
            .advance_width(GlyphId::from(glyph))
            .unwrap_or(0.0)
            * 1000.0
            / self.units_per_em
    }

    /// Width of `text` set at `size_pt`, mm.
    fn width_mm(&self, text: &str, size_pt: f32) -> f32 {
        let thousandths: f32 = text.chars().map(|c| self.advance(self.glyph(c))).sum();
        thousandths / 1000.0 * size_pt / PT_PER_MM
    }

    /// Breaks `text` into lines no wider than `max_mm`, between words, or inside a word that
    /// is wider than a line on its own; at most `max_lines`, the last one ending in "…" when
    /// text was left out. Each character is measured once and the work stops at the last line,
    /// so a megabyte of text from a server costs no more than the lines it fills.
    fn wrap(&self, text: &str, size_pt: f32, max_mm: f32, max_lines: usize) -> Vec<String> {
        let scale = size_pt / PT_PER_MM / 1000.0;
        let width = |c: char| self.advance(self.glyph(c)) * scale;
        let space = width(' ');
        let mut lines: Vec<String> = Vec::new();
        // The line being filled, and its width.
        let mut current = String::new();
        let mut current_mm = 0.0;
        let mut cut = false;
        'words: for word in text.split_whitespace() {
            let word_mm: f32 = word.chars().map(width).sum();
            let gap = if current.is_empty() { 0.0 } else { space };
            if current_mm + gap + word_mm <= max_mm {
                if !current.is_empty() {
                    current.push(' ');
                }
                current.push_str(word);
                current_mm += gap + word_mm;
                continue;
            }
            if !current.is_empty() {
                if lines.len() == max_lines {
                    cut = true;
                    break;
                }
                lines.push(std::mem::take(&mut current));
                current_mm = 0.0;
            }
            // The word alone: broken by characters when it is too wide for a line.
            for c in word.chars() {
                let c_mm = width(c);
                if !current.is_empty() && current_mm + c_mm > max_mm {
                    if lines.len() == max_lines {
                        cut = true;
                        break 'words;
                    }
                    lines.push(std::mem::take(&mut current));
                    current_mm = 0.0;
                }
                current.push(c);
                current_mm += c_mm;
            }
        }
        if !current.is_empty() {
            if lines.len() == max_lines {
                cut = true;
            } else {
                lines.push(current);
            }
        }
        if cut && let Some(last) = lines.last_mut() {
            let ellipsis = width('…');
            let mut last_mm: f32 = last.chars().map(width).sum();
            while let Some(c) = last.pop() {
                last_mm -= width(c);
                if last_mm + ellipsis <= max_mm {
                    break;
                }
            }
            let trimmed = last.trim_end().len();
            last.truncate(trimmed);
            last.push('…');
        }
        lines
    }

    /// The font's vertical metrics and box in thousandths of the size: ascent, descent, cap
    /// height, bounding box.
    fn vertical(&self) -> (f32, f32, f32, Rect) {
        let m = self.font.metrics(Size::unscaled(), LocationRef::default());
        let k = 1000.0 / self.units_per_em;
        let bbox = m.bounds.map_or(Rect::new(0.0, -250.0, 1000.0, 950.0), |b| {
            Rect::new(b.x_min * k, b.y_min * k, b.x_max * k, b.y_max * k)
        });
        (
            m.ascent * k,
            m.descent * k,
            m.cap_height.unwrap_or(m.ascent) * k,
            bbox,
        )
    }
}

/// zlib-compresses a stream's data (PDF's `FlateDecode`).
fn deflate(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

fn write_pdf(
    layout: &Layout,
    face: &Face<'_>,
    matrix: &QrMatrix,
    slip: &Slip,
) -> Result<Vec<u8>, SlipError> {
    // The glyphs used, renumbered from 1 in code-point order (0 stays .notdef).
    let mut by_char: BTreeMap<char, u16> = BTreeMap::new();
    for line in &layout.lines {
        for c in line.text.chars() {
            by_char.insert(c, face.glyph(c));
        }
    }
    let mut old: Vec<u16> = by_char.values().copied().collect();
    old.sort_unstable();
    old.dedup();
    let remapper = subsetter::GlyphRemapper::new_from_glyphs_sorted(&old);
    let subset =
        subsetter::subset(font(), 0, &remapper).map_err(|e| SlipError::Font(e.to_string()))?;
    let new_gid = |c: char| remapper.get(face.glyph(c)).unwrap_or(0);

    let mm = |v: f32| v * PT_PER_MM;
    let page_w = mm(f32::from(
        u16::try_from(layout.width_mm).unwrap_or(u16::MAX),
    ));
    let page_h = mm(f32::from(
        u16::try_from(layout.height_mm).unwrap_or(u16::MAX),
    ));
    let (ascent, descent, cap_height, bbox) = face.vertical();

    let mut content = Content::new();
    // The code: each run of dark modules in a row is one rectangle, and all of them are one
    // path filled once, so no hairline seam shows between touching squares.
    content.save_state().set_fill_gray(0.0);
    let module = mm(layout.module_mm);
    let qz = QUIET_ZONE;
    for y in 0..matrix.width() {
        let mut x = 0;
        while x < matrix.width() {
            if !matrix.is_dark(x, y) {
                x += 1;
                continue;
            }
            let start = x;
            while x < matrix.width() && matrix.is_dark(x, y) {
                x += 1;
            }
            let to_f = |n: usize| f32::from(u16::try_from(n).unwrap_or(u16::MAX));
            let left = mm(layout.qr_x_mm) + to_f(start + qz) * module;
            let top = mm(layout.qr_top_mm) + to_f(y + qz) * module;
            content.rect(
                left,
                page_h - top - module,
                to_f(x - start) * module,
                module,
            );
        }
    }
    content.fill_nonzero().restore_state();
    // The text, each line at its baseline.
    for line in &layout.lines {
        let glyphs: Vec<u8> = line
            .text
            .chars()
            .flat_map(|c| new_gid(c).to_be_bytes())
            .collect();
        let line_box = line_height_mm(line.size_pt);
        let text_box = (ascent - descent) / 1000.0 * line.size_pt / PT_PER_MM;
        let baseline =
            line.top_mm + (line_box - text_box) / 2.0 + ascent / 1000.0 * line.size_pt / PT_PER_MM;
        content.begin_text().set_font(Name(b"F1"), line.size_pt);
        if line.bold {
            content
                .set_text_rendering_mode(TextRenderingMode::FillStroke)
                .set_line_width(BOLD_STROKE * line.size_pt)
                .set_stroke_gray(0.0);
        } else {
            content.set_text_rendering_mode(TextRenderingMode::Fill);
        }
        content
            .next_line(mm(line.x_mm), page_h - mm(baseline))
            .show(Str(&glyphs))
            .end_text();
    }
    let content = deflate(&content.finish());

    let catalog_id = Ref::new(1);
    let tree_id = Ref::new(2);
    let page_id = Ref::new(3);
    let content_id = Ref::new(4);
    let font_id = Ref::new(5);
    let cid_id = Ref::new(6);
    let descriptor_id = Ref::new(7);
    let file_id = Ref::new(8);
    let cmap_id = Ref::new(9);
    let info_id = Ref::new(10);

    let base_font = format!("{}+DejaVuSans", subset_tag(&old));
    let base_font = Name(base_font.as_bytes());
    let system = SystemInfo {
        registry: Str(b"Adobe"),
        ordering: Str(b"Identity"),
        supplement: 0,
    };

    let mut pdf = Pdf::new();
    pdf.catalog(catalog_id).pages(tree_id);
    pdf.pages(tree_id).kids([page_id]).count(1);
    let mut page = pdf.page(page_id);
    page.parent(tree_id)
        .media_box(Rect::new(0.0, 0.0, page_w, page_h))
        .contents(content_id);
    page.resources().fonts().pair(Name(b"F1"), font_id);
    page.finish();
    pdf.stream(content_id, &content).filter(Filter::FlateDecode);

    pdf.type0_font(font_id)
        .base_font(base_font)
        .encoding_predefined(Name(b"Identity-H"))
        .descendant_font(cid_id)
        .to_unicode(cmap_id);
    let widths: Vec<f32> = remapper.remapped_gids().map(|g| face.advance(g)).collect();
    let mut cid = pdf.cid_font(cid_id);
    cid.subtype(CidFontType::Type2)
        .base_font(base_font)
        .system_info(system)
        .font_descriptor(descriptor_id)
        .cid_to_gid_map_predefined(Name(b"Identity"));
    cid.widths().consecutive(0, widths);
    cid.finish();
    pdf.font_descriptor(descriptor_id)
        .name(base_font)
        .flags(FontFlags::SYMBOLIC)
        .bbox(bbox)
        .italic_angle(0.0)
        .ascent(ascent)
        .descent(descent)
        .cap_height(cap_height)
        .stem_v(80.0)
        .font_file2(file_id);
    let font_data = deflate(&subset);
    pdf.stream(file_id, &font_data)
        .filter(Filter::FlateDecode)
        .pair(
            Name(b"Length1"),
            i32::try_from(subset.len()).unwrap_or(i32::MAX),
        );
    // What each glyph means, so text can be searched and copied (and read back by tests).
    let mut cmap = UnicodeCmap::new(Name(b"Custom"), system);
    let mut mapped = std::collections::HashSet::new();
    for c in by_char.keys() {
        let g = new_gid(*c);
        if mapped.insert(g) {
            cmap.pair(g, if c.is_whitespace() { ' ' } else { *c });
        }
    }
    let cmap = deflate(&cmap.finish());
    pdf.stream(cmap_id, &cmap).filter(Filter::FlateDecode);
    let title = format!(
        "{} {}",
        SlipText::ScanToPay.get(slip.lang),
        slip.order_number
    );
    pdf.document_info(info_id)
        .title(TextStr(&title))
        .creator(TextStr("paydesk"));
    Ok(pdf.finish())
}

/// The six capital letters that name a font subset (`ABCDEF+DejaVuSans`), from its glyphs.
fn subset_tag(glyphs: &[u16]) -> String {
    // FNV-1a: any stable spread will do; it only keeps different subsets apart.
    let mut h: u32 = 0x811c_9dc5;
    for g in glyphs {
        for b in g.to_be_bytes() {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    (0..6)
        .map(|_| {
            let letter = b'A' + u8::try_from(h % 26).unwrap_or(0);
            h /= 26;
            char::from(letter)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "https://pay.example.com/l/9f8e7d6c5b4a39281706f5e4d3c2b1a0?lang=tr&ref=PD-20261123-A1B20007&amount=1234.50";

    fn slip(lang: Lang) -> Slip {
        Slip {
            shop: "Kadıköy Kahve Evi".into(),
            amount: "1.234,50 ₺".into(),
            url: URL.into(),
            order_number: "PD-20261123-A1B20007".into(),
            expiry: Some("2026-11-23 18:30".into()),
            lang,
        }
    }

    #[test]
    fn the_roll_is_80_mm_wide_and_the_code_fills_its_72_mm() {
        let face = Face::new().unwrap();
        let matrix = QrMatrix::encode(URL).unwrap();
        let l = layout(&slip(Lang::Tr), Paper::Roll80, &face, &matrix);
        assert_eq!(l.width_mm, 80);
        let modules = f32::from(u16::try_from(matrix.width_with_quiet_zone()).unwrap());
        let side = l.module_mm * modules;
        assert!((side - 72.0).abs() < 0.01, "{side}");
        assert!((l.qr_x_mm - 4.0).abs() < 0.01);
        // Everything is inside the page.
        let bottom = l.lines.last().unwrap().top_mm + line_height_mm(9.5);
        assert!(bottom < f32::from(u16::try_from(l.height_mm).unwrap()));
        for line in &l.lines {
            assert!(line.x_mm >= 4.0 - 0.01, "{line:?}");
            assert!(
                line.x_mm + face.width_mm(&line.text, line.size_pt) <= 76.01,
                "{line:?}"
            );
        }
    }

    #[test]
    fn a6_keeps_its_size_and_everything_inside_the_margins() {
        let face = Face::new().unwrap();
        let matrix = QrMatrix::encode(URL).unwrap();
        let l = layout(&slip(Lang::En), Paper::A6, &face, &matrix);
        assert_eq!((l.width_mm, l.height_mm), (105, 148));
        let modules = f32::from(u16::try_from(matrix.width_with_quiet_zone()).unwrap());
        let side = l.module_mm * modules;
        assert!(side > 60.0 && side <= 89.01, "{side}");
        let last = l.lines.last().unwrap();
        assert!(
            last.top_mm + line_height_mm(last.size_pt) <= 140.0,
            "{last:?}"
        );
        assert!(l.lines[0].top_mm >= 8.0);
    }

    #[test]
    fn long_shop_names_wrap_to_three_lines_and_long_order_numbers_break() {
        let face = Face::new().unwrap();
        let lines = face.wrap(
            "Kadıköy Moda Caddesi Kahve ve Tatlı Evi Şubesi İkinci Kat Terası Üçüncü Salon Ağaçaltı Bahçesi Girişi Yanı",
            12.0,
            72.0,
            SHOP_MAX_LINES,
        );
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[2].ends_with('…'), "{lines:?}");
        let long = "X".repeat(64);
        let lines = face.wrap(&long, 9.5, 72.0, usize::MAX);
        assert!(lines.len() >= 2, "{lines:?}");
        assert_eq!(lines.concat(), long);
        for l in &lines {
            assert!(face.width_mm(l, 9.5) <= 72.0);
        }
    }

    #[test]
    fn a_megabyte_order_number_from_a_server_fills_three_lines_and_no_more() {
        let face = Face::new().unwrap();
        let matrix = QrMatrix::encode(URL).unwrap();
        for order in ["9".repeat(1 << 20), "KDK ".repeat(1 << 18)] {
            let mut hostile = slip(Lang::En);
            hostile.order_number = order;
            let l = layout(&hostile, Paper::Roll80, &face, &matrix);
            let order_lines: Vec<_> = l
                .lines
                .iter()
                .filter(|line| line.size_pt <= 10.0 && !line.text.starts_with("Expires"))
                .collect();
            assert_eq!(order_lines.len(), DETAIL_MAX_LINES, "{order_lines:?}");
            assert!(order_lines[2].text.ends_with('…'), "{order_lines:?}");
            for line in &l.lines {
                assert!(
                    line.x_mm + face.width_mm(&line.text, line.size_pt) <= 76.01,
                    "{line:?}"
                );
            }
            // The roll is as long as a slip with a short order number, give or take a line.
            let normal = layout(&slip(Lang::En), Paper::Roll80, &face, &matrix);
            assert!(l.height_mm <= normal.height_mm + 12, "{} mm", l.height_mm);
        }
    }

    #[test]
    fn no_shop_line_when_the_name_is_empty() {
        let face = Face::new().unwrap();
        let matrix = QrMatrix::encode(URL).unwrap();
        let mut s = slip(Lang::En);
        s.shop = "  ".into();
        s.expiry = None;
        let l = layout(&s, Paper::Roll80, &face, &matrix);
        let texts: Vec<&str> = l.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "1.234,50 ₺",
                "Scan to pay",
                "Order number: PD-20261123-A1B20007"
            ]
        );
    }

    #[test]
    fn turkish_letters_and_the_lira_sign_have_glyphs() {
        let face = Face::new().unwrap();
        let question = face.glyph('?');
        for c in "şğıİçöüŞĞÇÖÜ₺…".chars() {
            assert_ne!(face.glyph(c), question, "{c}");
            assert_ne!(face.glyph(c), 0, "{c}");
        }
        // A character the font lacks prints as "?", never as an empty box.
        assert_eq!(face.glyph('漢'), question);
    }

    #[test]
    fn a_link_becomes_a_slip_in_the_language_asked() {
        let link: PaymentLink = serde_json::from_value(serde_json::json!({
            "id": "lnk_1", "paymentUrl": URL, "amount": 1234.5, "currency": "TRY",
            "orderNumber": "PD-1"
        }))
        .unwrap();
        let s = Slip::of_link(&link, " Kadıköy ", Lang::Tr).unwrap();
        assert_eq!(
            (s.shop.as_str(), s.amount.as_str()),
            ("Kadıköy", "1.234,50 ₺")
        );
        assert_eq!((s.url.as_str(), s.order_number.as_str()), (URL, "PD-1"));
        assert_eq!(s.expiry, None);
        let s = Slip::of_link(&link, "", Lang::En).unwrap();
        assert_eq!(s.amount, "₺1,234.50");
        let no_url: PaymentLink =
            serde_json::from_value(serde_json::json!({"id": "lnk_2"})).unwrap();
        assert!(Slip::of_link(&no_url, "", Lang::En).is_none());
    }

    #[test]
    fn the_expiry_reads_in_the_zone_given() {
        let link: PaymentLink = serde_json::from_value(serde_json::json!({
            "id": "lnk_1", "paymentUrl": URL, "expiryDate": "2026-11-22T21:30:00Z"
        }))
        .unwrap();
        let istanbul = Slip::of_link_in(&link, "", Lang::En, Zone::hours(3)).unwrap();
        assert_eq!(istanbul.expiry.as_deref(), Some("2026-11-23 00:30"));
        let utc = Slip::of_link_in(&link, "", Lang::En, Zone::hours(0)).unwrap();
        assert_eq!(utc.expiry.as_deref(), Some("2026-11-22 21:30"));
    }

    #[test]
    fn the_paper_names_round_trip() {
        for p in Paper::ALL {
            assert_eq!(p.as_str().parse::<Paper>().unwrap(), p);
        }
        assert_eq!("A6".parse::<Paper>().unwrap(), Paper::A6);
        assert!("a4".parse::<Paper>().is_err());
        assert_eq!(Paper::default(), Paper::Roll80);
    }

    #[test]
    fn the_pdf_starts_as_a_pdf_and_embeds_a_small_font() {
        let pdf = render(&slip(Lang::Tr), Paper::Roll80).unwrap();
        assert!(pdf.bytes.starts_with(b"%PDF-"));
        assert!(pdf.bytes.len() < 40_000, "{}", pdf.bytes.len());
        assert_eq!(pdf.width_mm, 80);
        assert!((100..200).contains(&pdf.height_mm), "{}", pdf.height_mm);
    }
}
