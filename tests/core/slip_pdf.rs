//! The printed slip, read back the way a printer and a phone would: the PDF is rasterised by
//! poppler's `pdftoppm` at 200 dpi (a receipt printer prints at about 203) and the QR code in
//! the picture is decoded by `rqrr`, an independent decoder, which must give back the exact
//! payment URL. `pdfinfo` reads the page size and `pdftotext` the words, through the embedded
//! font's Unicode map, so the Turkish letters and ₺ are checked as characters, not pixels.
//! The poppler tools come from Debian's `poppler-utils` (`.ci/run` installs it).

use std::path::Path;
use std::process::Command;

use paydesk::lang::Lang;
use paydesk::slip::{Paper, Slip, SlipPdf, render};
use paydesk::ui::text::UiText;

/// A long, real-looking payment URL with a query (QR version 7 or so at level M).
const URL: &str = "https://pay.example.com.tr/partner/1.0/pay/lnk_01JDQ5G2R8Z6XW4M9K3T7B2N5P?lang=tr&ref=PD-20261123-A1B20007&return=https%3A%2F%2Fkadikoykahve.example%2Fsiparis%2F20007&sig=9f8e7d6c5b4a39281706f5e4d3c2b1a0";

const DPI: f32 = 200.0;

fn slip(lang: Lang) -> Slip {
    Slip {
        shop: "Kadıköy Kahve Evi".into(),
        amount: match lang {
            Lang::Tr => "1.234,50 ₺".into(),
            Lang::En => "₺1,234.50".into(),
        },
        url: URL.into(),
        order_number: "PD-20261123-A1B20007".into(),
        expiry: Some("2026-11-23 18:30".into()),
        lang,
    }
}

fn tool(name: &str, args: &[&str]) -> String {
    let out = Command::new(name)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} (Debian package poppler-utils) runs: {e}"));
    assert!(
        out.status.success(),
        "{name} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn write(dir: &Path, name: &str, pdf: &SlipPdf) -> String {
    let path = dir.join(name);
    std::fs::write(&path, &pdf.bytes).expect("the PDF is written");
    path.to_str().expect("a UTF-8 temp path").to_owned()
}

/// The page size in points, as `pdfinfo` reads it.
fn page_size(pdf: &str) -> (f32, f32) {
    let info = tool("pdfinfo", &[pdf]);
    let line = info
        .lines()
        .find(|l| l.starts_with("Page size:"))
        .unwrap_or_else(|| panic!("no page size in:\n{info}"));
    let mut numbers = line
        .split_whitespace()
        .filter_map(|w| w.parse::<f32>().ok());
    let w = numbers.next().expect("a width");
    let h = numbers.next().expect("a height");
    assert_eq!(
        info.lines().find(|l| l.starts_with("Pages:")),
        Some("Pages:           1")
    );
    (w, h)
}

fn mm_to_pt(mm: f32) -> f32 {
    mm * 72.0 / 25.4
}

/// Renders page 1 at 200 dpi in grey.
fn rasterise(dir: &Path, pdf: &str) -> crate::support::qr::Grey {
    let prefix = dir.join("page");
    tool(
        "pdftoppm",
        &[
            "-r",
            "200",
            "-png",
            "-gray",
            "-singlefile",
            pdf,
            prefix.to_str().expect("a UTF-8 temp path"),
        ],
    );
    crate::support::qr::grey_png(
        &std::fs::read(dir.join("page.png")).expect("pdftoppm wrote page.png"),
    )
}

/// Decodes the one QR code of the picture; returns its text and its side in millimetres.
fn decode(grey: &crate::support::qr::Grey) -> (String, f32) {
    let (text, side_px) = crate::support::qr::decode(grey);
    // Pixels to millimetres at the rasterising resolution; a few hundred pixels fit in f32.
    #[allow(clippy::cast_possible_truncation)]
    let side_mm = (side_px as f32) / DPI * 25.4;
    (text, side_mm)
}

#[test]
fn both_papers_in_both_languages_scan_to_the_exact_url_and_read_right() {
    let dir = tempfile::tempdir().expect("a temp dir");
    for paper in Paper::ALL {
        for lang in Lang::ALL {
            let what = format!("{paper} {lang:?}");
            let pdf = render(&slip(lang), paper).expect("the slip renders");
            let file = write(dir.path(), "slip.pdf", &pdf);

            // The page is the paper.
            let (w, h) = page_size(&file);
            match paper {
                Paper::Roll80 => {
                    assert!((w - mm_to_pt(80.0)).abs() < 0.01, "{what}: width {w} pt");
                    // As long as the slip, in whole millimetres (the print job names it).
                    let h_mm = h * 25.4 / 72.0;
                    assert!((h_mm - h_mm.round()).abs() < 0.01, "{what}: {h_mm} mm");
                    assert!((100.0..180.0).contains(&h_mm), "{what}: {h_mm} mm");
                    assert!((h_mm - f32::from(u16::try_from(pdf.height_mm).unwrap())).abs() < 0.01);
                }
                Paper::A6 => {
                    assert!((w - mm_to_pt(105.0)).abs() < 0.01, "{what}: width {w} pt");
                    assert!((h - mm_to_pt(148.0)).abs() < 0.01, "{what}: height {h} pt");
                }
            }

            // The phone reads the exact URL, from a code as large as the paper allows.
            let grey = rasterise(dir.path(), &file);
            assert_eq!((grey.width, grey.height), (px(w), px(h)), "{what}");
            let (text, side_mm) = decode(&grey);
            assert_eq!(text, URL, "{what}");
            let least = match paper {
                Paper::Roll80 => 55.0,
                Paper::A6 => 65.0,
            };
            assert!(side_mm >= least, "{what}: the code is {side_mm:.1} mm wide");

            // The words, in the app's language.
            let words = tool("pdftotext", &[&file, "-"]);
            let s = slip(lang);
            for want in [
                s.shop.clone(),
                s.amount.clone(),
                format!("{}: PD-20261123-A1B20007", UiText::OrderNumber.get(lang)),
                format!("{}: 2026-11-23 18:30", UiText::Expiry.get(lang)),
                UiText::ScanToPay.get(lang).to_owned(),
            ] {
                assert!(words.contains(&want), "{what}: `{want}` not in:\n{words}");
            }
            assert!(words.contains('₺') && words.contains('ı') && words.contains('ö'));
            let other = match lang {
                Lang::Tr => Lang::En,
                Lang::En => Lang::Tr,
            };
            assert!(
                !words.contains(UiText::ScanToPay.get(other)),
                "{what}: the other language shows:\n{words}"
            );
        }
    }
}

/// Points to pixels at the rasterising resolution, as pdftoppm rounds them.
fn px(points: f32) -> usize {
    // A page of a few hundred points: small and positive.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let n = (points / 72.0 * DPI).ceil() as usize;
    n
}

#[test]
fn a_long_shop_name_wraps_inside_the_roll_and_an_empty_one_prints_no_line() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut long = slip(Lang::Tr);
    long.shop = "Kadıköy Moda Caddesi Kahve ve Tatlı Evi Şubesi İkinci Kat".into();
    let pdf = render(&long, Paper::Roll80).expect("the slip renders");
    let file = write(dir.path(), "long.pdf", &pdf);
    let words = tool("pdftotext", &[&file, "-"]);
    // Every word is there, on more than one line, and nothing runs off the 72 mm.
    let shop_lines: Vec<&str> = words
        .lines()
        .take_while(|l| !l.contains("1.234,50"))
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(shop_lines.len() >= 2, "{words}");
    assert_eq!(shop_lines.join(" "), long.shop);
    let bbox = tool("pdftotext", &["-bbox", &file, "-"]);
    let max_x = bbox
        .lines()
        .filter_map(|l| l.split("xMax=\"").nth(1))
        .filter_map(|rest| rest.split('"').next()?.parse::<f32>().ok())
        .fold(0.0_f32, f32::max);
    assert!(max_x <= mm_to_pt(76.0), "text reaches {max_x} pt");
    assert_eq!(decode(&rasterise(dir.path(), &file)).0, URL);

    let mut nameless = slip(Lang::En);
    nameless.shop = String::new();
    let pdf = render(&nameless, Paper::Roll80).expect("the slip renders");
    let file = write(dir.path(), "nameless.pdf", &pdf);
    let words = tool("pdftotext", &[&file, "-"]);
    let first = words.lines().find(|l| !l.trim().is_empty());
    assert_eq!(first, Some("₺1,234.50"), "{words}");
}
