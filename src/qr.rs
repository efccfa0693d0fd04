//! The QR code of a payment link, as pixels.
//!
//! A customer's phone has to read this code from a counter screen, often at an angle and
//! through glare, so it must be crisp: every module is an integer number of pixels (no
//! resampling blur), surrounded by the 4-module white quiet zone the QR standard requires.
//! This module is pure (no egui): it turns a URL into a module matrix, the matrix into a grey
//! image at an integer scale, and that image into PNG bytes. The UI uploads exactly the bytes
//! of [`QrImage`] as a texture sampled with nearest-neighbour filtering, and "Save QR as PNG"
//! writes exactly the same pixels, so a test that decodes [`QrImage`] checks what people see.

use qrcode::{Color, EcLevel, QrCode};

/// Width of the white border around the code, in modules (the QR standard's minimum).
pub const QUIET_ZONE: usize = 4;

/// Error correction of every code paydesk draws: level M (15 % of the code can be damaged or
/// covered and it still reads), the usual choice for a screen.
const EC_LEVEL: EcLevel = EcLevel::M;

/// The code of `text` as lines of text for a terminal: two module rows per character in half
/// blocks (`qrcode`'s `Dense1x2` renderer), with the quiet zone, dark modules drawn as spaces
/// on light blocks so it scans on the dark terminals most people use (and on light ones).
pub fn terminal_text(text: &str) -> Result<String, QrError> {
    use qrcode::render::unicode::Dense1x2;
    let code = QrCode::with_error_correction_level(text.as_bytes(), EC_LEVEL)?;
    Ok(code
        .render::<Dense1x2>()
        .dark_color(Dense1x2::Light)
        .light_color(Dense1x2::Dark)
        .quiet_zone(true)
        .build())
}

/// Grey value of a dark module.
pub const DARK: u8 = 0;

/// Grey value of a light module and of the quiet zone.
pub const LIGHT: u8 = 255;

/// Why a QR code could not be made or saved.
#[derive(Debug, thiserror::Error)]
pub enum QrError {
    /// The text does not fit in any QR version at the chosen error-correction level.
    #[error("the address is too long for a QR code ({0})")]
    Encode(#[from] qrcode::types::QrError),
    /// The PNG encoder failed.
    #[error("could not write the PNG image: {0}")]
    Png(#[from] png::EncodingError),
    /// The image would be larger than a PNG can describe.
    #[error("the QR image is too large ({0} pixels per side)")]
    TooLarge(usize),
    /// The PNG file could not be written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// The OS's reason.
        source: std::io::Error,
    },
}

/// The modules of a QR code, without quiet zone; `true` is dark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QrMatrix {
    width: usize,
    dark: Vec<bool>,
}

impl QrMatrix {
    /// Encodes `text` (a payment URL) with error-correction level M (15 % of the code can be
    /// damaged or covered and it still reads), the usual choice for a screen.
    pub fn encode(text: &str) -> Result<Self, QrError> {
        let code = QrCode::with_error_correction_level(text.as_bytes(), EC_LEVEL)?;
        let width = code.width();
        let dark = code
            .to_colors()
            .into_iter()
            .map(|c| c == Color::Dark)
            .collect();
        Ok(Self { width, dark })
    }

    /// Modules per side, without the quiet zone.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Modules per side including the quiet zone on both sides.
    pub fn width_with_quiet_zone(&self) -> usize {
        self.width + 2 * QUIET_ZONE
    }

    /// Whether the module at column `x`, row `y` is dark (outside the code: light).
    pub fn is_dark(&self, x: usize, y: usize) -> bool {
        x < self.width && y < self.width && self.dark[y * self.width + x]
    }

    /// The largest whole number of pixels per module such that the code with its quiet zone
    /// fits in `available_px` pixels; at least 1 (then the image may overflow a tiny space
    /// rather than blur).
    pub fn scale_to_fit(&self, available_px: f32) -> usize {
        let modules = self.width_with_quiet_zone();
        if !available_px.is_finite() || available_px <= 0.0 {
            return 1;
        }
        // A module count fits in f32 exactly (QR codes are at most 177 + 8 modules wide).
        #[allow(clippy::cast_precision_loss)]
        let per_module = (available_px / modules as f32).floor();
        // Truncation is the point: whole pixels only; the value is small and non-negative.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let scale = per_module as usize;
        scale.max(1)
    }

    /// The grey image at `scale` pixels per module, quiet zone included.
    pub fn render(&self, scale: usize) -> QrImage {
        let scale = scale.max(1);
        let side = self.width_with_quiet_zone() * scale;
        let mut pixels = vec![LIGHT; side * side];
        for y in 0..self.width {
            for x in 0..self.width {
                if !self.dark[y * self.width + x] {
                    continue;
                }
                let px = (x + QUIET_ZONE) * scale;
                let py = (y + QUIET_ZONE) * scale;
                for row in py..py + scale {
                    pixels[row * side + px..row * side + px + scale].fill(DARK);
                }
            }
        }
        QrImage {
            side,
            scale,
            pixels,
        }
    }
}

/// A square grey image of a QR code: one byte per pixel, rows top to bottom.
#[derive(Clone, PartialEq, Eq)]
pub struct QrImage {
    side: usize,
    scale: usize,
    pixels: Vec<u8>,
}

impl std::fmt::Debug for QrImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QrImage")
            .field("side", &self.side)
            .field("scale", &self.scale)
            .finish_non_exhaustive()
    }
}

impl QrImage {
    /// Encodes `text` and renders it at `scale` pixels per module.
    pub fn of_text(text: &str, scale: usize) -> Result<Self, QrError> {
        Ok(QrMatrix::encode(text)?.render(scale))
    }

    /// Pixels per side.
    pub fn side(&self) -> usize {
        self.side
    }

    /// Pixels per module.
    pub fn scale(&self) -> usize {
        self.scale
    }

    /// The grey pixels, `side × side`, row-major (0 = dark, 255 = light).
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// The grey value at (`x`, `y`).
    pub fn pixel(&self, x: usize, y: usize) -> u8 {
        self.pixels[y * self.side + x]
    }

    /// The image as RGBA bytes (opaque), for consumers that want colour pixels.
    pub fn to_rgba(&self) -> Vec<u8> {
        self.pixels.iter().flat_map(|&g| [g, g, g, 255]).collect()
    }

    /// The image as an 8-bit greyscale PNG file.
    pub fn to_png(&self) -> Result<Vec<u8>, QrError> {
        let side = u32::try_from(self.side).map_err(|_| QrError::TooLarge(self.side))?;
        let mut out = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut out, side, side);
            encoder.set_color(png::ColorType::Grayscale);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header()?;
            writer.write_image_data(&self.pixels)?;
            writer.finish()?;
        }
        Ok(out)
    }
}

/// Pixels per module of a saved QR image: about 3.5 cm per side at 300 dpi for a typical link,
/// large enough to print on a sign.
pub const PNG_SCALE: usize = 10;

/// Writes the QR code of `text` as a PNG file at `path` ([`PNG_SCALE`] pixels per module).
pub fn write_png(text: &str, path: &std::path::Path) -> Result<(), QrError> {
    let png = QrImage::of_text(text, PNG_SCALE)?.to_png()?;
    std::fs::write(path, png).map_err(|source| QrError::Write {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "http://127.0.0.1:8080/pay/lnk_01HZX4K9";

    /// The terminal text, read back block by block, is the code's modules with the quiet zone:
    /// a space is two dark modules, a full block two light ones.
    #[test]
    fn the_terminal_text_holds_every_module_in_half_blocks() {
        let text = terminal_text(URL).unwrap();
        let m = QrMatrix::encode(URL).unwrap();
        let side = m.width_with_quiet_zone();
        let lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
        assert_eq!(lines.len(), side.div_ceil(2));
        let dark = |x: usize, y: usize| {
            (QUIET_ZONE..side - QUIET_ZONE).contains(&x)
                && (QUIET_ZONE..side - QUIET_ZONE).contains(&y)
                && m.is_dark(x - QUIET_ZONE, y - QUIET_ZONE)
        };
        for (row, line) in lines.iter().enumerate() {
            assert_eq!(line.len(), side, "row {row}");
            for (x, c) in line.iter().enumerate() {
                let (top, bottom) = (2 * row, 2 * row + 1);
                let light_top = !dark(x, top);
                // Below the last module row there is nothing to draw.
                let light_bottom = bottom < side && !dark(x, bottom);
                let expected = match (light_top, light_bottom) {
                    (true, true) => '█',
                    (true, false) => '▀',
                    (false, true) => '▄',
                    (false, false) => ' ',
                };
                assert_eq!(*c, expected, "row {row}, column {x}");
            }
        }
    }

    #[test]
    fn quiet_zone_is_white_and_modules_are_whole_pixel_squares() {
        let m = QrMatrix::encode(URL).unwrap();
        for scale in [1, 3, 8] {
            let img = m.render(scale);
            assert_eq!(img.side(), (m.width() + 8) * scale);
            let qz = QUIET_ZONE * scale;
            for y in 0..img.side() {
                for x in 0..img.side() {
                    let inside =
                        (qz..img.side() - qz).contains(&x) && (qz..img.side() - qz).contains(&y);
                    let expected =
                        if inside && m.is_dark(x / scale - QUIET_ZONE, y / scale - QUIET_ZONE) {
                            DARK
                        } else {
                            LIGHT
                        };
                    assert_eq!(img.pixel(x, y), expected, "scale {scale} at ({x},{y})");
                }
            }
        }
    }

    #[test]
    fn the_top_left_finder_pattern_is_where_the_standard_puts_it() {
        let m = QrMatrix::encode(URL).unwrap();
        // The finder is a 7×7 dark ring, a light ring, and a 3×3 dark core.
        for i in 0..7 {
            assert!(m.is_dark(i, 0) && m.is_dark(0, i) && m.is_dark(i, 6) && m.is_dark(6, i));
        }
        assert!(!m.is_dark(1, 1) && !m.is_dark(5, 5));
        assert!(m.is_dark(3, 3));
    }

    #[test]
    fn scale_to_fit_is_the_largest_whole_scale() {
        let m = QrMatrix::encode(URL).unwrap();
        let modules = m.width_with_quiet_zone();
        let cases = [
            (0.0, 1),
            (-5.0, 1),
            (f32::NAN, 1),
            (10.0, 1),
            (f32::from(u16::try_from(modules * 6).unwrap()), 6),
            (f32::from(u16::try_from(modules * 6 - 1).unwrap()), 5),
        ];
        for (px, want) in cases {
            assert_eq!(m.scale_to_fit(px), want, "{px}");
        }
    }

    #[test]
    fn png_round_trips_to_the_same_pixels() {
        let img = QrImage::of_text(URL, 4).unwrap();
        let bytes = img.to_png().unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Grayscale);
        assert_eq!(info.width as usize, img.side());
        assert_eq!(&buf[..info.buffer_size()], img.pixels());
        assert_eq!(img.to_rgba().len(), img.side() * img.side() * 4);
    }

    #[test]
    fn too_long_text_is_an_error_not_a_panic() {
        let long = "x".repeat(5000);
        assert!(matches!(QrMatrix::encode(&long), Err(QrError::Encode(_))));
    }
}
