//! Small widgets shared by the views: the crisp QR image, labelled fields tied to their
//! labels for screen readers (and kittest), badges, and error lines under a field.

use egui::{ColorImage, Response, RichText, TextureHandle, TextureOptions, Ui, Vec2, WidgetText};

use crate::qr::{QrImage, QrMatrix};
use crate::ui::theme::{self, Badge, Palette};

/// The grey QR image as the texture the UI uploads: one pixel per pixel, no filtering.
/// `tests/qr_decode.rs` decodes exactly this.
pub fn qr_color_image(image: &QrImage) -> ColorImage {
    ColorImage::from_gray([image.side(), image.side()], image.pixels())
}

/// The texture options of the QR: nearest-neighbour sampling, so modules stay sharp squares.
pub const QR_TEXTURE_OPTIONS: TextureOptions = TextureOptions::NEAREST;

/// A QR code shown at a whole number of physical pixels per module. The texture is made once
/// per (text, scale) and reused every frame.
#[derive(Default)]
pub struct QrView {
    text: String,
    matrix: Option<QrMatrix>,
    texture: Option<(usize, TextureHandle)>,
    error: Option<String>,
}

impl std::fmt::Debug for QrView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QrView")
            .field("text", &self.text)
            .field("scale", &self.texture.as_ref().map(|t| t.0))
            .finish_non_exhaustive()
    }
}

impl QrView {
    /// Shows `text` as a QR code as large as fits in `max_side` points (square).
    /// Returns the response of the image, or `None` if the text cannot be encoded (the error is
    /// then in [`QrView::error`]).
    pub fn show_ui(
        &mut self,
        ui: &mut Ui,
        text: &str,
        max_side: f32,
        label: &str,
    ) -> Option<Response> {
        if self.text != text {
            text.clone_into(&mut self.text);
            self.texture = None;
            match QrMatrix::encode(text) {
                Ok(m) => {
                    self.matrix = Some(m);
                    self.error = None;
                }
                Err(e) => {
                    self.matrix = None;
                    self.error = Some(e.to_string());
                }
            }
        }
        let matrix = self.matrix.as_ref()?;
        let ppp = ui.ctx().pixels_per_point();
        let scale = matrix.scale_to_fit(max_side * ppp);
        let texture = match &self.texture {
            Some((s, t)) if *s == scale => t.clone(),
            _ => {
                let image = matrix.render(scale);
                let handle = ui.ctx().load_texture(
                    format!("qr:{scale}:{text}"),
                    qr_color_image(&image),
                    QR_TEXTURE_OPTIONS,
                );
                self.texture = Some((scale, handle.clone()));
                handle
            }
        };
        let [w, h] = texture.size();
        // Pixel sizes of a QR texture are small integers: exact in f32.
        #[allow(clippy::cast_precision_loss)]
        let size = Vec2::new(w as f32, h as f32) / ppp;
        let response = ui.add(egui::Image::new((texture.id(), size)).alt_text(label));
        Some(response)
    }

    /// Why the last text could not be encoded.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The current text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// A label above a single-line text field, the field tied to the label for accessibility.
pub fn labelled_text_ui(ui: &mut Ui, label: &str, value: &mut String) -> Response {
    let label_response = ui.label(label);
    ui.add(egui::TextEdit::singleline(value))
        .labelled_by(label_response.id)
}

/// [`labelled_text_ui`] with the field `width` points wide (see `theme::field_width_ui`).
pub fn labelled_text_width_ui(
    ui: &mut Ui,
    label: &str,
    value: &mut String,
    width: f32,
) -> Response {
    let label_response = ui.label(label);
    ui.add(egui::TextEdit::singleline(value).desired_width(width))
        .labelled_by(label_response.id)
}

/// A group of fields under a short title ("Card", "Storage"), followed by the space between
/// groups.
pub fn group_ui<R>(ui: &mut Ui, title: &str, add_contents: impl FnOnce(&mut Ui) -> R) -> R {
    ui.label(
        RichText::new(title)
            .text_style(egui::TextStyle::Button)
            .strong(),
    );
    ui.add_space(theme::SPACE_XS);
    let inner = add_contents(ui);
    ui.add_space(theme::SPACE_M);
    inner
}

/// Whether a view is shown this frame after not being shown the frame before (so it can put
/// the focus on its first field). `last` is the view's own memory of the last frame it drew.
pub fn newly_shown(ui: &Ui, last: &mut Option<u64>) -> bool {
    let now = ui.ctx().cumulative_frame_nr();
    let fresh = last.is_none_or(|l| now > l + 1);
    *last = Some(now);
    fresh
}

/// A pill with text.
pub fn badge_ui(ui: &mut Ui, text: impl Into<String>, badge: Badge) -> Response {
    egui::Frame::new()
        .fill(badge.fill)
        .corner_radius(8.0)
        .inner_margin(egui::Margin::symmetric(8, 2))
        .show(ui, |ui| {
            ui.label(RichText::new(text.into()).color(badge.text).strong())
        })
        .inner
}

/// Error lines, in the error colour.
pub fn error_lines_ui<'a>(
    ui: &mut Ui,
    palette: &Palette,
    lines: impl IntoIterator<Item = &'a str>,
) {
    for line in lines {
        ui.label(RichText::new(line).color(palette.error).small());
    }
}

/// A one-line error in the error colour.
pub fn error_text_ui(ui: &mut Ui, palette: &Palette, text: impl Into<WidgetText>) -> Response {
    let text: WidgetText = text.into();
    ui.label(text.color(palette.error))
}

/// A muted hint.
pub fn hint_ui(ui: &mut Ui, palette: &Palette, text: &str) -> Response {
    ui.label(RichText::new(text).color(palette.muted).small())
}
