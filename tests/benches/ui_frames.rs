//! CPU time of one frame (layout and tessellation, no GPU) of the New link view with 200 item
//! rows, of History over 1,000,000 links, and of an empty frame as the floor.
//!
//! `cargo bench --bench benches -- ui_frames`. Target: ≤ 1 ms for each view frame.

use std::collections::HashMap;
use std::hint::black_box;

use chrono::{DateTime, Utc};
use criterion::Criterion;
use paydesk::api::wire::PaymentLink;
use paydesk::app::Command;
use paydesk::domain::{BarcodeIndex, CatalogVariant, Currency, ItemDraft, KeyLimits, LinkStatus};
use paydesk::lang::Lang;
use paydesk::ui::ViewCtx;
use paydesk::ui::history::{HistoryFilter, HistoryPage, HistoryRow, HistoryView};
use paydesk::ui::new_link::NewLinkForm;
use paydesk::ui::theme::Palette;
use rust_decimal::Decimal;

fn now() -> DateTime<Utc> {
    DateTime::from_timestamp(1_795_435_200, 0).expect("valid time")
}

fn input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        ..Default::default()
    }
}

/// Runs one frame of `draw` and tessellates it, as a real frame would.
fn frame(ctx: &egui::Context, mut draw: impl FnMut(&mut egui::Ui)) {
    let mut out = ctx.run_ui(input(), |ui| {
        egui::CentralPanel::default().show(ui, |ui| draw(ui));
    });
    // No GPU here to upload font atlas changes to: drop them on purpose.
    out.textures_delta.clear();
    let prims = ctx.tessellate(out.shapes, out.pixels_per_point);
    black_box(prims);
}

fn catalog() -> HashMap<String, CatalogVariant> {
    (0..50)
        .map(|i| {
            let v = CatalogVariant {
                barcode: None,
                id: format!("var_{i}"),
                name: format!("Ürün {i}"),
                unit_price: Decimal::new(1250 + i64::from(i), 2),
                currency: Currency::Try,
            };
            (v.id.clone(), v)
        })
        .collect()
}

fn bench_frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("ui_frame");
    let catalog = catalog();
    let barcodes = BarcodeIndex::of(catalog.values());
    let palette = Palette::for_mode(false);

    let ctx = egui::Context::default();
    paydesk::ui::fonts::install(&ctx);
    paydesk::ui::theme::install(&ctx);
    frame(&ctx, |ui| {
        ui.label("warm-up");
    });
    group.bench_function("empty", |b| {
        b.iter(|| frame(&ctx, |_ui| {}));
    });

    // New link with 200 item rows (half free, half catalog).
    let mut form = NewLinkForm::new("PD-20261122-A1B20001".into());
    form.draft_mut().amount = "12345.00".into();
    for i in 0..200 {
        let item = if i % 2 == 0 {
            ItemDraft::free(format!("Kahve {i}"), "12.50", "2")
        } else {
            ItemDraft::catalog(format!("var_{}", i % 50), "1")
        };
        form.draft_mut().items.push(item);
    }
    let ctx = egui::Context::default();
    paydesk::ui::fonts::install(&ctx);
    paydesk::ui::theme::install(&ctx);
    let mut commands: Vec<Command> = Vec::new();
    let mut draw_form = |ui: &mut egui::Ui| {
        let mut cx = ViewCtx {
            lang: Lang::Tr,
            palette,
            now: now(),
            zone: paydesk::clock::Zone::Local,
            catalog: &catalog,
            barcodes: &barcodes,
            limits: KeyLimits::default(),
            sandbox: false,
            resend: paydesk::ui::ResendView::default(),
            form_lock: None,
            commands: &mut commands,
        };
        form.ui(ui, &mut cx);
    };
    for _ in 0..3 {
        frame(&ctx, &mut draw_form);
    }
    group.bench_function("new_link_200_items", |b| {
        b.iter(|| frame(&ctx, &mut draw_form));
    });

    // History over 1,000,000 links.
    let template: PaymentLink = serde_json::from_str(
        r#"{"id":"lnk_0","referenceNumber":"R0","orderNumber":"PD-0","amount":150.00,"currency":"TRY",
            "status":"PENDING","description":"Kadıköy şubesi","createdDate":"2026-11-22T10:00:00Z"}"#,
    )
    .expect("template link");
    let known_at = template.created_date.expect("template link");
    let first = HistoryRow::of(
        &paydesk::domain::Link::from(&template),
        known_at,
        Lang::Tr,
        paydesk::clock::Zone::Local,
    );
    let statuses = [
        LinkStatus::Pending,
        LinkStatus::Completed,
        LinkStatus::Expired,
    ];
    let rows: Vec<HistoryRow> = (0..1_000_000)
        .map(|i| {
            let mut r = first.clone();
            r.id = format!("lnk_{i}");
            r.order = format!("PD-20261122-A1B2{i:07}");
            r.reference = format!("R{i:09}");
            r.status = statuses[i % 3].clone();
            r
        })
        .collect();
    let mut history = HistoryView::default();
    history.on_page(HistoryPage {
        filter: HistoryFilter::default(),
        first: true,
        rows,
        exhausted: false,
        total: None,
        staff_names: None,
    });
    history.set_loading(); // no page fetches from the bench
    let ctx = egui::Context::default();
    paydesk::ui::fonts::install(&ctx);
    paydesk::ui::theme::install(&ctx);
    let mut commands: Vec<Command> = Vec::new();
    let mut draw_history = |ui: &mut egui::Ui| {
        let mut cx = ViewCtx {
            lang: Lang::Tr,
            palette,
            now: now(),
            zone: paydesk::clock::Zone::Local,
            catalog: &catalog,
            barcodes: &barcodes,
            limits: KeyLimits::default(),
            sandbox: false,
            resend: paydesk::ui::ResendView::default(),
            form_lock: None,
            commands: &mut commands,
        };
        history.ui(ui, &mut cx);
    };
    for _ in 0..3 {
        frame(&ctx, &mut draw_history);
    }
    group.bench_function("history_1m_links", |b| {
        b.iter(|| frame(&ctx, &mut draw_history));
    });
    group.finish();
}

/// Runs this suite's benchmarks.
pub fn run() {
    let mut c = crate::criterion();
    bench_frames(&mut c);
}
