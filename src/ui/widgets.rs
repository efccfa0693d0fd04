//! Small widgets shared by the views: the crisp QR image, labelled fields tied to their
//! labels for screen readers (and kittest), the form field with its errors and the
//! [`Touched`] tracker that decides when they show, badges, and error lines under a field;
//! and the visual system's parts every view uses: buttons by kind ([`Action`]), the page
//! header, the navigation entry and the empty state, each recorded for the tests ([`shown`]).

use std::collections::HashSet;

use egui::{ColorImage, Response, RichText, TextureHandle, TextureOptions, Ui, Vec2, WidgetText};

use crate::domain::{Field, FieldErrors};
use crate::lang::Lang;
use crate::qr::{QrImage, QrMatrix};
use crate::ui::ViewCtx;
use crate::ui::theme::icon::Icon;
use crate::ui::theme::{self, Badge, ButtonKind, Palette};

/// The grey QR image as the texture the UI uploads: one pixel per pixel, no filtering.
/// `tests/core/qr_decode.rs` decodes exactly this.
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

/// Where a QR stood for a link that can no longer be paid (cancelled, expired, refused): a
/// grey square struck through with `words` in it, nothing a phone could scan.
pub fn void_qr_ui(ui: &mut Ui, palette: &Palette, side: f32, words: &str) -> Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(side), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, theme::CORNER_RADIUS, palette.disabled);
    let stroke = egui::Stroke::new(theme::STRIKE_WIDTH, palette.on_disabled);
    painter.line_segment([rect.left_top(), rect.right_bottom()], stroke);
    let galley = painter.layout(
        words.to_owned(),
        egui::FontId::proportional(theme::HEADING_SIZE),
        palette.on_disabled,
        side - 2.0 * theme::SPACE_M,
    );
    let at = rect.center() - galley.size() / 2.0;
    painter.rect_filled(
        egui::Rect::from_min_size(at, galley.size()).expand(theme::SPACE_S),
        theme::CORNER_RADIUS,
        palette.disabled,
    );
    painter.galley(at, galley, palette.on_disabled);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, words));
    response
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

/// A toggle drawn as a button (framed at rest, filled while on), for switches that start
/// something visible such as the customer display: a frameless selectable label reads as text.
pub fn toggle_button_ui(ui: &mut Ui, on: &mut bool, text: &str) -> Response {
    let mut response = ui.add(egui::Button::new(text).selected(*on).frame(true));
    if response.clicked() {
        *on = !*on;
        response.mark_changed();
    }
    response
}

/// A button of one of the theme's kinds, with an icon before its caption: build it with
/// [`Action::primary`] and friends, draw it with [`Action::show_ui`]. Assistive technologies
/// hear the caption alone (the icon is a picture of it).
#[derive(Debug, Clone, Copy)]
#[must_use]
pub struct Action<'a> {
    kind: ButtonKind,
    icon: Option<Icon>,
    text: &'a str,
    enabled: bool,
    width: Option<f32>,
    tall: bool,
}

impl<'a> Action<'a> {
    fn new(kind: ButtonKind, icon: Option<Icon>, text: &'a str) -> Self {
        Self {
            kind,
            icon,
            text,
            enabled: true,
            width: None,
            tall: false,
        }
    }

    /// At counter height like the primary action beside it (the approval's Back next to
    /// Approve), in its own kind's colours.
    pub fn tall(mut self) -> Self {
        self.tall = true;
        self
    }

    /// The view's one main action: filled accent, counter height, always with an icon.
    pub fn primary(icon: Icon, text: &'a str) -> Self {
        Self::new(ButtonKind::Primary, Some(icon), text)
    }

    /// Another useful action: framed grey.
    pub fn secondary(text: &'a str) -> Self {
        Self::new(ButtonKind::Secondary, None, text)
    }

    /// A minor action: text only.
    pub fn quiet(text: &'a str) -> Self {
        Self::new(ButtonKind::Quiet, None, text)
    }

    /// An action that throws something away: red, always with an icon.
    pub fn destructive(icon: Icon, text: &'a str) -> Self {
        Self::new(ButtonKind::Destructive, Some(icon), text)
    }

    /// Puts `icon` before the caption.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.icon = Some(icon);
        self
    }

    /// Whether it can be pressed now (drawn clearly unlike an enabled one when not).
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// At least this wide.
    pub fn min_width(mut self, width: f32) -> Self {
        self.width = Some(width);
        self
    }

    /// As wide as the space it is in.
    pub fn full_width(self, ui: &Ui) -> Self {
        let width = ui.available_width();
        self.min_width(width)
    }

    /// Draws the button.
    pub fn show_ui(self, ui: &mut Ui) -> Response {
        let palette = Palette::of(ui.visuals());
        let look = palette.button(self.kind, self.enabled);
        let height = if self.kind == ButtonKind::Primary || self.tall {
            theme::COUNTER_BUTTON_HEIGHT
        } else {
            theme::BUTTON_HEIGHT
        };
        let style = if self.kind == ButtonKind::Primary || self.tall {
            egui::TextStyle::Heading
        } else {
            egui::TextStyle::Button
        };
        let caption = RichText::new(self.text)
            .text_style(style.clone())
            .color(look.text);
        let mut atoms = egui::Atoms::default();
        if let Some(icon) = self.icon {
            let size = style.resolve(ui.style()).size;
            atoms.push_right(icon.rich_text().size(size).color(look.text));
        }
        atoms.push_right(caption);
        let mut button = egui::Button::new(atoms)
            .min_size(egui::vec2(self.width.unwrap_or(0.0), height))
            .corner_radius(theme::CORNER_RADIUS);
        // (Setting a fill or a stroke turns the frame on, so a quiet button gets neither.)
        button = match look.fill {
            Some(fill) if self.kind == ButtonKind::Secondary => button.fill(fill),
            Some(fill) => button.fill(fill).stroke(egui::Stroke::NONE),
            None => button.frame(false),
        };
        // The palette's disabled look is drawn as it is: egui's own fade on top of it made a
        // disabled primary vanish in dark (1.1:1); the theme keeps its label at 3:1 or more.
        // (Set on this `Ui` and put back, not in a child scope: a scope would be placed
        // before the layout could wrap the button onto the next row.)
        let alpha = ui.visuals().disabled_alpha;
        ui.visuals_mut().disabled_alpha = 1.0;
        let response = ui.add_enabled(self.enabled, button);
        ui.visuals_mut().disabled_alpha = alpha;
        let (text, enabled) = (self.text.to_owned(), self.enabled);
        response
            .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, text.clone()));
        record(
            ui.ctx(),
            Shown {
                what: ShownWhat::Button(self.kind),
                text: self.text.to_owned(),
                icon: self.icon.is_some(),
                rect: response.rect,
                enabled: self.enabled,
            },
        );
        response
    }
}

/// A destructive action asked twice: first a quiet entry (its icon and caption, no fill,
/// nothing red to press by mistake); once pressed, the question, then "keep" (framed) and the
/// verb itself (red). Never Yes/No: each answer names what it does.
#[derive(Debug, Clone, Copy)]
#[must_use]
pub struct AskedTwice<'a> {
    /// The action's icon.
    pub icon: Icon,
    /// The verb, on the entry and on the red answer ("Leave the shop").
    pub verb: &'a str,
    /// What it costs, asked before it is done.
    pub question: &'a str,
    /// The answer that keeps things as they are ("Stay joined").
    pub keep: &'a str,
}

impl AskedTwice<'_> {
    /// Draws the entry, or the question with its two answers while `asking`; returns whether
    /// the verb was pressed (then `asking` is false again).
    pub fn show_ui(self, ui: &mut Ui, palette: &Palette, asking: &mut bool, enabled: bool) -> bool {
        if !*asking {
            if Action::quiet(self.verb)
                .icon(self.icon)
                .enabled(enabled)
                .show_ui(ui)
                .clicked()
            {
                *asking = true;
            }
            return false;
        }
        ui.label(RichText::new(self.question).color(palette.warn));
        let mut done = false;
        ui.horizontal(|ui| {
            if Action::secondary(self.keep).show_ui(ui).clicked() {
                *asking = false;
            }
            ui.add_space(theme::SPACE_L);
            if Action::destructive(self.icon, self.verb)
                .enabled(enabled)
                .show_ui(ui)
                .clicked()
            {
                *asking = false;
                done = true;
            }
        });
        done
    }
}

/// What a frame showed that the visual system's tests look at: each button drawn with
/// [`Action`], each navigation entry and each empty state, with its caption and whether it
/// carried an icon. Kept for the last frame only, in the context's temporary memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// What it was.
    pub what: ShownWhat,
    /// Its caption (without the icon).
    pub text: String,
    /// Whether an icon was drawn with it.
    pub icon: bool,
    /// Where it was drawn.
    pub rect: egui::Rect,
    /// Whether it could be pressed.
    pub enabled: bool,
}

/// The kind of a [`Shown`] element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShownWhat {
    /// A button of this kind.
    Button(ButtonKind),
    /// An entry of the navigation.
    Nav,
    /// An empty state ("No links yet").
    Empty,
}

#[derive(Debug, Clone, Default)]
struct ShownLog {
    pass: u64,
    shown: Vec<Shown>,
}

fn shown_id() -> egui::Id {
    egui::Id::unique("paydesk-shown")
}

fn record(ctx: &egui::Context, shown: Shown) {
    let pass = ctx.cumulative_pass_nr();
    ctx.data_mut(|d| {
        let log = d.get_temp_mut_or_default::<ShownLog>(shown_id());
        if log.pass != pass {
            log.pass = pass;
            log.shown.clear();
        }
        log.shown.push(shown);
    });
}

/// The buttons, navigation entries and empty states the last frame drew.
pub fn shown(ctx: &egui::Context) -> Vec<Shown> {
    ctx.data(|d| d.get_temp::<ShownLog>(shown_id()))
        .map(|log| log.shown)
        .unwrap_or_default()
}

/// An entry of the navigation: an icon, a caption and a count in its badge, filled in the
/// accent while selected; heard as "Unsent (2)".
pub fn nav_entry_ui(
    ui: &mut Ui,
    icon: Icon,
    text: &str,
    count: Option<(usize, theme::Badge)>,
    selected: bool,
) -> Response {
    let mut atoms = egui::Atoms::default();
    atoms.push_right(icon.rich_text());
    atoms.push_right(text);
    if let Some((n, badge)) = count {
        atoms.push_right(
            RichText::new(format!(" {n} "))
                .strong()
                .color(badge.text)
                .background_color(badge.fill),
        );
    }
    let response = ui.add(egui::Button::selectable(selected, atoms));
    let owned = match count {
        Some((n, _)) => format!("{text} ({n})"),
        None => text.to_owned(),
    };
    response.widget_info(|| {
        egui::WidgetInfo::selected(egui::Role::Button, true, selected, owned.clone())
    });
    record(
        ui.ctx(),
        Shown {
            what: ShownWhat::Nav,
            text: text.to_owned(),
            icon: true,
            rect: response.rect,
            enabled: true,
        },
    );
    response
}

/// The width a navigation entry needs: its icon, its caption and its count, with the gaps.
pub fn nav_entry_width(ui: &Ui, icon: Icon, text: &str, count: Option<usize>) -> f32 {
    let icon = egui::WidgetText::from(icon.rich_text())
        .into_galley(ui, None, f32::INFINITY, egui::TextStyle::Button)
        .size()
        .x;
    let gap = ui.spacing().icon_spacing.max(ui.spacing().item_spacing.x);
    let count = count.map_or(0.0, |n| gap + text_width(ui, &format!(" {n} ")));
    icon + gap + text_width(ui, text) + count
}

/// A view's header: its title in the text colour, one line of help under it, and the view's
/// `actions` on the right.
pub fn page_header_ui(ui: &mut Ui, title: &str, help: &str, actions: impl FnOnce(&mut Ui)) {
    let palette = Palette::of(ui.visuals());
    // The actions first, from the right edge; the title and the help take what is left, so a
    // long help line wraps before it reaches them.
    ui.with_layout(egui::Layout::right_to_left(egui::Align::Min), |ui| {
        actions(ui);
        ui.with_layout(egui::Layout::top_down(egui::Align::Min), |ui| {
            ui.label(
                RichText::new(title)
                    .heading()
                    .strong()
                    .color(ui.visuals().strong_text_color()),
            );
            if !help.is_empty() {
                ui.label(RichText::new(help).color(palette.muted));
            }
        });
    });
    ui.add_space(theme::SPACE_S);
}

/// What a view shows when it has nothing to list: a large muted icon, what is missing, and
/// what to do about it.
pub fn empty_state_ui(ui: &mut Ui, icon: Icon, title: &str, help: &str) -> Response {
    let palette = Palette::of(ui.visuals());
    let response = ui
        .vertical_centered(|ui| {
            ui.add_space(theme::SPACE_L);
            ui.label(
                icon.rich_text()
                    .size(theme::EMPTY_ICON_SIZE)
                    .color(palette.muted),
            );
            ui.label(RichText::new(title).strong());
            if !help.is_empty() {
                ui.label(RichText::new(help).color(palette.muted));
            }
            ui.add_space(theme::SPACE_L);
        })
        .response;
    record(
        ui.ctx(),
        Shown {
            what: ShownWhat::Empty,
            text: title.to_owned(),
            icon: true,
            rect: response.rect,
            enabled: true,
        },
    );
    response
}

/// A pill with text.
pub fn badge_ui(ui: &mut Ui, text: impl Into<String>, badge: Badge) -> Response {
    egui::Frame::new()
        .fill(badge.fill)
        .corner_radius(theme::PILL_RADIUS)
        .inner_margin(theme::PILL_MARGIN)
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

/// A hidden one-line field for a password or a secret, labelled by the widget `label`, kept in
/// a zeroizing buffer with nothing kept for undo (egui would otherwise hold earlier states of
/// the text). `id_salt` keeps two such fields apart.
pub fn secret_field_ui(
    ui: &mut Ui,
    label: egui::Id,
    secret: &mut zeroize::Zeroizing<String>,
    id_salt: &str,
    width: f32,
) -> Response {
    let id = ui.make_persistent_id(id_salt);
    let mut output = egui::TextEdit::singleline(&mut **secret)
        .id(id)
        .password(true)
        .desired_width(width)
        .show(ui);
    let response = output.response.response.clone().labelled_by(label);
    output.state.clear_undoer();
    output.state.store(ui.ctx(), id);
    response
}

/// A muted hint.
pub fn hint_ui(ui: &mut Ui, palette: &Palette, text: &str) -> Response {
    ui.label(RichText::new(text).color(palette.muted).small())
}

/// Which fields of a form show their errors: a field shows them once it was *touched* (edited,
/// then left), or after an attempt to send the form ([`Touched::show_all`]). Merely passing
/// through a field, or leaving the view while a field has the focus, shows nothing: an empty
/// amount is not a mistake until the clerk typed in it or tried to create the link.
#[derive(Debug, Clone, Default)]
pub struct Touched {
    /// Fields edited since the form was cleared.
    edited: HashSet<Field>,
    /// Fields edited and then left: their errors show.
    left: HashSet<Field>,
    /// A send was attempted: every field shows its errors.
    all: bool,
}

impl Touched {
    /// A form's text field: its label above, the single-line field tied to the label (screen
    /// readers, kittest), its edits and exits followed here, and its errors under it once
    /// they show.
    pub fn field_ui(
        &mut self,
        ui: &mut Ui,
        cx: &ViewCtx<'_>,
        errors: &FieldErrors,
        spec: FormField<'_>,
        value: &mut String,
    ) -> Response {
        let label = ui.label(spec.label);
        let mut edit = egui::TextEdit::singleline(value);
        if let Some(width) = spec.width {
            edit = edit.desired_width(width);
        }
        if let Some(hint) = spec.hint {
            edit = edit.hint_text(hint);
        }
        if let Some(style) = spec.style {
            edit = edit.font(style);
        }
        let response = ui.add(edit).labelled_by(label.id);
        self.track(&response, spec.field);
        self.errors_ui(ui, cx, errors, &spec.field);
        response
    }

    /// Follows a field's response: an edit marks it edited, leaving an edited field touches it.
    pub fn track(&mut self, response: &Response, field: Field) {
        self.note(field, response.changed(), response.lost_focus());
    }

    /// [`Touched::track`] from what a response said (for fields drawn while the form is
    /// borrowed elsewhere).
    pub fn note(&mut self, field: Field, changed: bool, lost_focus: bool) {
        if changed {
            self.edited.insert(field);
        }
        if lost_focus && self.edited.contains(&field) {
            self.left.insert(field);
        }
    }

    /// Marks a field as touched at once (a choice made with a button, tests).
    pub fn touch(&mut self, field: Field) {
        self.edited.insert(field);
        self.left.insert(field);
    }

    /// A send was attempted: every field shows its errors from now on.
    pub fn show_all(&mut self) {
        self.all = true;
    }

    /// Whether `field` shows its errors.
    pub fn shows(&self, field: &Field) -> bool {
        self.all || self.left.contains(field)
    }

    /// Forgets the fields `keep` refuses (rows that moved, a wiped card number).
    pub fn retain(&mut self, keep: impl Fn(&Field) -> bool) {
        self.edited.retain(&keep);
        self.left.retain(&keep);
    }

    /// The error sentences of `field` to show now (none until it shows its errors).
    pub fn lines(&self, errors: &FieldErrors, field: &Field, lang: Lang) -> Vec<String> {
        if !self.shows(field) {
            return Vec::new();
        }
        errors
            .for_field(field)
            .map(|e| e.problem.message(lang))
            .collect()
    }

    /// Whether `field` shows at least one error now.
    pub fn has_error(&self, errors: &FieldErrors, field: &Field) -> bool {
        self.shows(field) && errors.for_field(field).next().is_some()
    }

    /// The error lines of `field` under it, once it shows them.
    pub fn errors_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors, field: &Field) {
        let lines = self.lines(errors, field, cx.lang);
        error_lines_ui(ui, &cx.palette, lines.iter().map(String::as_str));
    }
}

/// How a [`Touched::field_ui`] looks: its field, label, width, hint and text style.
#[derive(Debug, Clone)]
pub struct FormField<'a> {
    field: Field,
    label: &'a str,
    width: Option<f32>,
    hint: Option<&'a str>,
    style: Option<egui::TextStyle>,
}

impl<'a> FormField<'a> {
    /// A field of `field` under `label`, as wide as the column.
    pub fn new(field: Field, label: &'a str) -> Self {
        Self {
            field,
            label,
            width: None,
            hint: None,
            style: None,
        }
    }

    /// The field is `width` points wide (see `theme::field_width_ui`).
    #[must_use]
    pub fn width(mut self, width: f32) -> Self {
        self.width = Some(width);
        self
    }

    /// A hint shown while the field is empty.
    #[must_use]
    pub fn hint(mut self, hint: &'a str) -> Self {
        self.hint = Some(hint);
        self
    }

    /// The text style of the field (the amount uses `theme::amount_style`).
    #[must_use]
    pub fn style(mut self, style: egui::TextStyle) -> Self {
        self.style = Some(style);
        self
    }
}

/// A table cell of `size`, its content aligned left (`Align::Min`, text) or right
/// (`Align::Max`, numbers and money, so figures line up on their last digit).
pub fn cell_ui(ui: &mut Ui, size: egui::Vec2, align: egui::Align, add: impl FnOnce(&mut Ui)) {
    let layout = match align {
        egui::Align::Max => egui::Layout::right_to_left(egui::Align::Center),
        _ => egui::Layout::left_to_right(egui::Align::Center),
    };
    ui.allocate_ui_with_layout(size, layout, |ui| {
        ui.set_width(size.x);
        ui.set_min_height(size.y);
        add(ui);
    });
}

/// The width of `text` in the body font, for sizing a column to its widest cell.
pub fn text_width(ui: &Ui, text: &str) -> f32 {
    let font = egui::TextStyle::Body.resolve(ui.style());
    ui.fonts_mut(|f| {
        f.layout_no_wrap(text.to_owned(), font, egui::Color32::PLACEHOLDER)
            .size()
            .x
    })
}

/// Gives assistive technologies `spoken` instead of the text of the field `id`, whose layout
/// is `galley`: as the field's value and in the text runs egui builds from the galley (one
/// run per row, in chunks), each run taking as many characters of `spoken` as it had, so
/// that caret positions still match the screen. Call it after the field is drawn; `spoken`
/// should have one character for each character of the text.
pub fn speak_as(ctx: &egui::Context, id: egui::Id, galley: &egui::Galley, spoken: &str) {
    ctx.accesskit_node_builder(id, |node| node.set_value(spoken));
    let mut rest = spoken.chars();
    for row in 0..galley.rows.len() {
        for chunk in 0usize.. {
            let run = id.with(row).with(chunk);
            if !ctx.has_accesskit_node(run) {
                break;
            }
            ctx.accesskit_node_builder(run, |node| {
                let count = node.value().map_or(0, |v| v.chars().count());
                let text: String = rest.by_ref().take(count).collect();
                let lengths: Vec<u8> = text
                    .chars()
                    .map(|c| u8::try_from(c.len_utf8()).unwrap_or(u8::MAX))
                    .collect();
                node.set_character_lengths(lengths);
                node.set_value(text);
            });
        }
    }
}
