//! The embedded font (`DejaVu` Sans): glyph look-up, advance widths and the subset a slip
//! embeds.

use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, GlyphId, MetadataProvider as _};

use pdf_writer::Rect;

use super::{PT_PER_MM, SlipError, font};

/// The embedded font: glyph look-up and advance widths.
pub(super) struct Face<'a> {
    font: FontRef<'a>,
    charmap: skrifa::charmap::Charmap<'a>,
    metrics: skrifa::metrics::GlyphMetrics<'a>,
    units_per_em: f32,
}

impl Face<'static> {
    pub(super) fn new() -> Result<Self, SlipError> {
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
    pub(super) fn glyph(&self, c: char) -> u16 {
        let c = if c.is_whitespace() { ' ' } else { c };
        self.charmap
            .map(c)
            .or_else(|| self.charmap.map('?'))
            .and_then(|g| u16::try_from(g.to_u32()).ok())
            .unwrap_or(0)
    }

    /// Advance width of `glyph`, in thousandths of the font size.
    pub(super) fn advance(&self, glyph: u16) -> f32 {
        self.metrics
            .advance_width(GlyphId::from(glyph))
            .unwrap_or(0.0)
            * 1000.0
            / self.units_per_em
    }

    /// Width of `text` set at `size_pt`, mm.
    pub(super) fn width_mm(&self, text: &str, size_pt: f32) -> f32 {
        let thousandths: f32 = text.chars().map(|c| self.advance(self.glyph(c))).sum();
        thousandths / 1000.0 * size_pt / PT_PER_MM
    }

    /// Breaks `text` into lines no wider than `max_mm`, between words, or inside a word that
    /// is wider than a line on its own; at most `max_lines`, the last one ending in "…" when
    /// text was left out. Each character is measured once and the work stops at the last line,
    /// so a megabyte of text from a server costs no more than the lines it fills.
    pub(super) fn wrap(
        &self,
        text: &str,
        size_pt: f32,
        max_mm: f32,
        max_lines: usize,
    ) -> Vec<String> {
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
    pub(super) fn vertical(&self) -> (f32, f32, f32, Rect) {
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
