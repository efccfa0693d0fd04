//! Starting the desktop window: eframe with the glow renderer and AccessKit, the window's
//! title, size and icon, and the saved preferences.

use std::path::PathBuf;
use std::sync::Arc;

use super::{App, AppOptions, SavedState};

/// What the command line passes to the GUI.
#[derive(Debug, Clone, Default)]
pub struct GuiOptions {
    /// `--data-dir`.
    pub data_dir: Option<PathBuf>,
    /// `--profile`.
    pub profile: Option<String>,
    /// `PAYDESK_API_SECRET` as `main` read it (the variable itself is removed).
    pub env_secret: crate::secrets::EnvSecret,
    /// `PAYDESK_SHOP_PASSWORD`, read and removed the same way.
    pub env_shop: crate::secrets::EnvSecret,
    /// `PAYDESK_SMTP_PASSWORD`, read and removed the same way.
    pub env_smtp: crate::secrets::EnvSecret,
}

/// Why the window could not run.
#[derive(Debug, thiserror::Error)]
pub enum GuiError {
    /// eframe failed (no display, no OpenGL...).
    #[error("the window could not open: {0}")]
    Eframe(String),
}

/// The window icon (the 256 px PNG of `assets/icons`).
fn icon() -> Option<egui::IconData> {
    const PNG: &[u8] = include_bytes!("../../assets/icons/paydesk-256.png");
    let mut decoder = png::Decoder::new(std::io::Cursor::new(PNG));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()?];
    let info = reader.next_frame(&mut buf).ok()?;
    if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
        return None;
    }
    buf.truncate(info.buffer_size());
    Some(egui::IconData {
        rgba: buf,
        width: info.width,
        height: info.height,
    })
}

/// The window's first size, in points: every view with room to spare, and at 1280 the open
/// links panel beside New link (it shows from 1200).
pub const DEFAULT_SIZE: [f32; 2] = [1280.0, 800.0];

/// The smallest window, in points: every view works without horizontal scrolling down to
/// this, which a 1024×768 screen still fits with a title bar and a panel.
pub const MIN_SIZE: [f32; 2] = [960.0, 640.0];

/// Opens the window and runs until it is closed.
pub fn run_gui(gui: GuiOptions) -> Result<(), GuiError> {
    crate::init_logging();
    let perf_start = std::env::var_os("PAYDESK_PERF").map(|_| std::time::Instant::now());
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("paydesk")
        .with_app_id(crate::APP_ID)
        .with_inner_size(DEFAULT_SIZE)
        .with_min_inner_size(MIN_SIZE);
    if let Some(icon) = icon() {
        viewport = viewport.with_icon(Arc::new(icon));
    }
    let native = eframe::NativeOptions {
        viewport,
        renderer: eframe::Renderer::Glow,
        persist_window: true,
        ..Default::default()
    };
    eframe::run_native(
        "paydesk",
        native,
        Box::new(move |cc| {
            let saved: SavedState = cc
                .storage
                .and_then(|s| eframe::get_value(s, super::state::STORAGE_KEY))
                .unwrap_or_default();
            let options = AppOptions {
                data_dir: gui.data_dir,
                profile: gui.profile,
                env_secret: gui.env_secret,
                env_shop: gui.env_shop,
                env_smtp: gui.env_smtp,
                perf_start,
                file_dialogs: super::files::FileDialogs::from_env(),
                ..AppOptions::default()
            };
            let app = App::new(&cc.egui_ctx, saved, options)?;
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| GuiError::Eframe(e.to_string()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_window_icon_decodes_to_256_square_rgba() {
        let icon = super::icon().expect("icon decodes");
        assert_eq!((icon.width, icon.height), (256, 256));
        assert_eq!(icon.rgba.len(), 256 * 256 * 4);
    }
}
