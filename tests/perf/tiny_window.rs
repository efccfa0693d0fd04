//! The memory floor of the app: an eframe window with paydesk's eframe features (the crate's
//! own `eframe` dependency, so the same features by construction), the same renderer (glow)
//! and size, that draws one label. `tests/perf/memory.sh` starts it and paydesk the same way
//! and reports both; whatever paydesk holds above this window is paydesk's own.
//!
//! `cargo build --release --example tiny_window`; run under a display. With `PAYDESK_PERF`
//! set it prints `first frame` to stderr once it has drawn, as paydesk does.

fn main() -> eframe::Result {
    let perf = std::env::var_os("PAYDESK_PERF").is_some();
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("tiny window")
            .with_inner_size([1180.0, 800.0]),
        renderer: eframe::Renderer::Glow,
        ..Default::default()
    };
    let mut frames = 0u32;
    eframe::run_ui_native("tiny window", options, move |ui, _frame| {
        ui.label("tiny window: the memory floor of an eframe window");
        frames += 1;
        if perf && frames == 1 {
            eprintln!("tiny window: first frame");
        }
    })
}
