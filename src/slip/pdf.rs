//! Writing a laid-out slip as a one-page PDF: points from millimetres, the code as vector
//! squares, the text in the embedded font subset.

use std::collections::BTreeMap;
use std::io::Write as _;

use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, TextRenderingMode, UnicodeCmap};
use pdf_writer::{Content, Filter, Finish as _, Name, Pdf, Rect, Ref, Str, TextStr};

use super::font::Face;
use super::layout::{BOLD_STROKE, Layout, line_height_mm};
use super::{PT_PER_MM, SlipError, font};
use crate::qr::{QUIET_ZONE, QrMatrix};

/// zlib-compresses a stream's data (PDF's `FlateDecode`).
pub(super) fn deflate(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// The page of `layout` with the code of `matrix` (none on a receipt) and the document's
/// `title`.
// Long on purpose: the PDF's objects in file order; each step needs the refs of the ones before.
#[allow(clippy::too_many_lines)]
pub(super) fn write_pdf(
    layout: &Layout,
    face: &Face<'_>,
    matrix: Option<&QrMatrix>,
    title: &str,
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
    if let Some(matrix) = matrix {
        draw_code(&mut content, layout, matrix, page_h);
    }
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
    pdf.document_info(info_id)
        .title(TextStr(title))
        .creator(TextStr("paydesk"));
    Ok(pdf.finish())
}

/// The code: each run of dark modules in a row is one rectangle, and all of them are one path
/// filled once, so no hairline seam shows between touching squares.
fn draw_code(content: &mut Content, layout: &Layout, matrix: &QrMatrix, page_h: f32) {
    let mm = |v: f32| v * PT_PER_MM;
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
}

/// The six capital letters that name a font subset (`ABCDEF+DejaVuSans`), from its glyphs.
pub(super) fn subset_tag(glyphs: &[u16]) -> String {
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
