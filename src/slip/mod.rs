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
//! pay", "Order number", "Expires") come from the slip's own catalogue ([`SlipText`]), in the
//! language the slip is asked in.
//!
//! The layout is computed in millimetres from the top of the page and converted to PDF points
//! (1/72 inch, origin bottom left) only when written. On the roll the page is exactly as tall
//! as its content (a whole number of millimetres, so the print job can name that paper size);
//! on A6 the code is as large as the sheet leaves room for and the block is centred.
//!
//! Here: the model (`Slip`, `Paper`) and [`render`]. `layout`: where each line and the code go.
//! `font`: the embedded face's glyphs and widths. `pdf`: writing the page and the font subset.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::clock::Zone;
use crate::domain::Link;
use crate::domain::format_amount;
use crate::lang::Lang;
use crate::qr::{QrError, QrMatrix};

mod font;
mod layout;
mod pdf;
pub mod receipt;

use font::Face;
use layout::layout;
use pdf::write_pdf;

/// `DejaVu` Sans (Bitstream Vera licence, text in `assets/fonts/`): Latin with the Turkish
/// letters, and ₺. The UI draws with the same bytes (`ui::fonts` takes them from here), so the
/// binary holds one copy.
pub static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

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
    /// The slip of a payment link: its amount in `lang`, its URL, its order number (else its
    /// id) and its expiry in `zone` as the result view shows it. `None` when the server sent no
    /// payment URL (there is nothing to scan).
    pub fn of_link_in(link: &Link, shop: &str, lang: Lang, zone: Zone) -> Option<Slip> {
        let url = link.payment_url.clone().filter(|u| !u.is_empty())?;
        let amount = link
            .amount
            .map(|a| format_amount(a, link.currency, lang))
            .unwrap_or_default();
        Some(Slip {
            shop: shop.trim().to_owned(),
            amount,
            url,
            order_number: link.order_or_id().to_owned(),
            expiry: link
                .expiry
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
    let title = format!(
        "{} {}",
        SlipText::ScanToPay.get(slip.lang),
        slip.order_number
    );
    let bytes = write_pdf(&layout, &face, Some(&matrix), &title)?;
    Ok(SlipPdf {
        bytes,
        paper,
        width_mm: paper.width_mm(),
        height_mm: layout.height_mm,
    })
}

#[cfg(test)]
mod tests {
    use super::layout::*;
    use super::*;

    /// A link as the service hands it over, read from the server's JSON.
    fn wire(json: serde_json::Value) -> Link {
        Link::from(serde_json::from_value::<crate::api::wire::PaymentLink>(json).unwrap())
    }

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
        let link: Link = wire(serde_json::json!({
            "id": "lnk_1", "paymentUrl": URL, "amount": 1234.5, "currency": "TRY",
            "orderNumber": "PD-1"
        }));
        let s = Slip::of_link_in(&link, " Kadıköy ", Lang::Tr, Zone::Local).unwrap();
        assert_eq!(
            (s.shop.as_str(), s.amount.as_str()),
            ("Kadıköy", "1.234,50 ₺")
        );
        assert_eq!((s.url.as_str(), s.order_number.as_str()), (URL, "PD-1"));
        assert_eq!(s.expiry, None);
        let s = Slip::of_link_in(&link, "", Lang::En, Zone::Local).unwrap();
        assert_eq!(s.amount, "₺1,234.50");
        let no_url = wire(serde_json::json!({"id": "lnk_2"}));
        assert!(Slip::of_link_in(&no_url, "", Lang::En, Zone::Local).is_none());
    }

    #[test]
    fn the_expiry_reads_in_the_zone_given() {
        let link = wire(serde_json::json!({
            "id": "lnk_1", "paymentUrl": URL, "expiryDate": "2026-11-22T21:30:00Z"
        }));
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
