//! Where everything on a slip goes, in millimetres from the top of the page.

use super::font::Face;
use super::{DETAIL_MAX_LINES, PT_PER_MM, Paper, SHOP_MAX_LINES, Slip, SlipText};
use crate::qr::QrMatrix;

/// One line of text: its top-left corner (mm from the page's top-left) and size.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Line {
    pub(super) x_mm: f32,
    pub(super) top_mm: f32,
    pub(super) size_pt: f32,
    /// Drawn heavier (the amount): only a regular weight is embedded, so its outline is
    /// stroked as well as filled.
    pub(super) bold: bool,
    pub(super) text: String,
}

/// Lines of one kind (the shop name, the amount, ...) and the space after them, mm.
pub(super) struct Block {
    lines: Vec<String>,
    size_pt: f32,
    bold: bool,
    gap_mm: f32,
}

impl Block {
    pub(super) fn new(lines: Vec<String>, size_pt: f32, gap_mm: f32) -> Self {
        Self {
            lines,
            size_pt,
            bold: false,
            gap_mm,
        }
    }

    pub(super) fn height_mm(&self) -> f32 {
        f32::from(u16::try_from(self.lines.len()).unwrap_or(u16::MAX))
            * line_height_mm(self.size_pt)
            + self.gap_mm
    }
}

/// The stroke that makes a line "bold", as a share of its font size.
pub(super) const BOLD_STROKE: f32 = 0.035;

/// Where everything goes.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Layout {
    pub(super) width_mm: u32,
    pub(super) height_mm: u32,
    pub(super) lines: Vec<Line>,
    /// Top-left corner of the code's quiet zone, mm.
    pub(super) qr_x_mm: f32,
    pub(super) qr_top_mm: f32,
    /// One module, mm.
    pub(super) module_mm: f32,
}

/// Height of a line of text of `size_pt`, mm.
pub(super) fn line_height_mm(size_pt: f32) -> f32 {
    size_pt * 1.22 / PT_PER_MM
}

pub(super) fn layout(slip: &Slip, paper: Paper, face: &Face<'_>, matrix: &QrMatrix) -> Layout {
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
