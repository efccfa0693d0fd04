//! The receipt as a one-page PDF on the 80 mm roll (issue 30): the same lines as the receipt's
//! e-mail (`domain::receipt::Receipt`), laid out like a till receipt and written by the slip's
//! PDF writer with the same embedded `DejaVu` Sans subset, so ş ğ ı İ and ₺ print anywhere.
//! The page is as long as its content (whole millimetres), like a slip on the roll.
//!
//! From the top: the shop's name and "Receipt" centred; each item with its line total at the
//! right edge (a long name wraps, at most three lines); the total and the amount paid, heavier;
//! then the payment time, the order number and the transaction reference.

use super::font::Face;
use super::layout::{BOLD_STROKE, Layout, Line, line_height_mm};
use super::pdf::write_pdf;
use super::{DETAIL_MAX_LINES, PT_PER_MM, Paper, SHOP_MAX_LINES, SlipError, SlipPdf};
use crate::domain::Receipt;

/// Font sizes, pt: the shop's name, the title, the lines.
const SHOP_PT: f32 = 12.0;
const TITLE_PT: f32 = 14.0;
const LINE_PT: f32 = 9.5;
/// The gap between a line's text and its amount, mm.
const AMOUNT_GAP_MM: f32 = 2.0;

/// Writes `receipt` as a one-page PDF on the 80 mm roll.
pub fn render(receipt: &Receipt) -> Result<SlipPdf, SlipError> {
    let face = Face::new()?;
    let layout = layout(receipt, &face);
    let title = format!("{} {}", receipt.title, receipt.shop);
    let bytes = write_pdf(&layout, &face, None, title.trim())?;
    Ok(SlipPdf {
        bytes,
        paper: Paper::Roll80,
        width_mm: layout.width_mm,
        height_mm: layout.height_mm,
    })
}

/// Places lines from the top of the page down.
struct Cursor<'f> {
    face: &'f Face<'static>,
    margin: f32,
    printable: f32,
    y: f32,
    lines: Vec<Line>,
}

impl Cursor<'_> {
    fn push(&mut self, x_mm: f32, size_pt: f32, bold: bool, text: String) {
        self.lines.push(Line {
            x_mm,
            top_mm: self.y,
            size_pt,
            bold,
            text,
        });
    }

    /// `text` centred, wrapped to at most `max_lines`.
    fn centred(&mut self, text: &str, size_pt: f32, bold: bool, max_lines: usize) {
        for line in self.face.wrap(text, size_pt, self.printable, max_lines) {
            let w = self.face.width_mm(&line, size_pt);
            self.push(
                self.margin + (self.printable - w).max(0.0) / 2.0,
                size_pt,
                bold,
                line,
            );
            self.y += line_height_mm(size_pt);
        }
    }

    /// `left` wrapped at the left edge and `right` at the right edge of its first line.
    fn row(&mut self, left: &str, right: &str, bold: bool) {
        let stroke = if bold {
            BOLD_STROKE * LINE_PT / PT_PER_MM
        } else {
            0.0
        };
        let right_mm = if right.is_empty() {
            0.0
        } else {
            self.face.width_mm(right, LINE_PT) + stroke
        };
        let room = (self.printable - right_mm - AMOUNT_GAP_MM).max(self.printable / 3.0);
        let wrapped = self.face.wrap(left, LINE_PT, room, DETAIL_MAX_LINES);
        if !right.is_empty() {
            self.push(
                self.margin + self.printable - right_mm,
                LINE_PT,
                bold,
                right.to_owned(),
            );
        }
        for line in wrapped {
            self.push(self.margin, LINE_PT, bold, line);
            self.y += line_height_mm(LINE_PT);
        }
    }
}

fn layout(receipt: &Receipt, face: &Face<'static>) -> Layout {
    let paper = Paper::Roll80;
    let width = paper.width_mm();
    let margin = paper.side_margin_mm();
    let (top, bottom) = paper.end_margins_mm();
    let mut c = Cursor {
        face,
        margin,
        printable: f32::from(u16::try_from(width).unwrap_or(u16::MAX)) - 2.0 * margin,
        y: top,
        lines: Vec::new(),
    };
    if !receipt.shop.is_empty() {
        c.centred(&receipt.shop, SHOP_PT, false, SHOP_MAX_LINES);
        c.y += 1.5;
    }
    c.centred(&receipt.title, TITLE_PT, true, 1);
    c.y += 3.0;
    for (what, amount) in &receipt.lines {
        c.row(what, amount, false);
    }
    c.y += 2.0;
    for (label, value) in &receipt.totals {
        c.row(label, value, true);
    }
    c.y += 2.0;
    for (label, value) in &receipt.details {
        c.row(&format!("{label}: {value}"), "", false);
    }
    let total = (c.y + bottom).ceil();
    // A receipt is centimetres long: the value is small and positive.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let height_mm = total as u32;
    Layout {
        width_mm: width,
        height_mm,
        lines: c.lines,
        qr_x_mm: 0.0,
        qr_top_mm: 0.0,
        module_mm: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;

    fn receipt() -> Receipt {
        Receipt {
            lang: Lang::Tr,
            shop: "Kadıköy Kahve Evi".into(),
            title: "Makbuz".into(),
            subject: String::new(),
            intro: String::new(),
            lines: vec![
                ("2 × Filtre kahve".into(), "150,00 ₺".into()),
                ("1 × Çok uzun bir ürün adı ki satıra sığmaz ve ikinci satıra kayar, üçüncüye de".into(), "1.100,00 ₺".into()),
            ],
            totals: vec![
                ("Toplam".into(), "1.250,00 ₺".into()),
                ("Ödenen".into(), "1.250,00 ₺".into()),
            ],
            details: vec![("İşlem referansı".into(), "TX-77".into())],
            file_name: "makbuz.pdf".into(),
        }
    }

    #[test]
    fn every_line_stays_inside_the_roll_and_amounts_end_at_the_right_margin() {
        let face = Face::new().unwrap();
        let l = layout(&receipt(), &face);
        assert_eq!(l.width_mm, 80);
        for line in &l.lines {
            let right = line.x_mm + face.width_mm(&line.text, line.size_pt);
            assert!(line.x_mm >= 3.99 && right <= 76.01, "{line:?}");
        }
        let amount = l.lines.iter().find(|x| x.text == "150,00 ₺").unwrap();
        let right = amount.x_mm + face.width_mm(&amount.text, amount.size_pt);
        assert!((right - 76.0).abs() < 0.01, "{right}");
        let last = l.lines.last().unwrap();
        assert!(
            last.top_mm + line_height_mm(last.size_pt)
                < f32::from(u16::try_from(l.height_mm).unwrap())
        );
    }

    #[test]
    fn the_pdf_is_a_pdf() {
        let pdf = render(&receipt()).unwrap();
        assert!(pdf.bytes.starts_with(b"%PDF-"));
        assert!(pdf.bytes.len() < 40_000, "{}", pdf.bytes.len());
    }
}
