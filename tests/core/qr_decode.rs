//! The QR the UI uploads, read back by an independent decoder (`rqrr`): what the customer's
//! phone will see must be exactly the payment URL.

use paydesk::qr::{QUIET_ZONE, QrMatrix};
use paydesk::ui::widgets::{QR_TEXTURE_OPTIONS, qr_color_image};

/// The text of the one QR code in an uploaded (grey: r == g == b) image.
fn decode_image(image: &egui::ColorImage) -> String {
    let [width, height] = image.size;
    let pixels = image.pixels.iter().map(egui::Color32::r).collect();
    crate::support::qr::decode(&crate::support::qr::Grey {
        width,
        height,
        pixels,
    })
    .0
}

#[test]
fn the_uploaded_qr_decodes_to_the_exact_payment_url() {
    let urls = [
        "http://127.0.0.1:38211/pay/lnk_01JDQ5G2R8Z6",
        "https://pay.example.com/l/9f8e7d6c5b4a39281706f5e4d3c2b1a0?lang=tr&ref=PD-20261122-A1B20001",
        // Non-ASCII survives as UTF-8 bytes.
        "https://ödeme.example/öde/Kadıköy-Kahve-Evi/İ-ş-ğ",
    ];
    for url in urls {
        let matrix = QrMatrix::encode(url).unwrap();
        // The scales the UI picks for a small window, a laptop and a customer screen.
        for available_px in [150.0_f32, 420.0, 1000.0] {
            let scale = matrix.scale_to_fit(available_px);
            let image = matrix.render(scale);
            let uploaded = qr_color_image(&image);
            assert_eq!(uploaded.size, [image.side(), image.side()]);
            // The four corners are quiet-zone white.
            let last = image.side() - 1;
            for (x, y) in [(0, 0), (last, 0), (0, last), (last, last)] {
                assert_eq!(uploaded.pixels[y * image.side() + x], egui::Color32::WHITE);
            }
            assert_eq!(
                image.side(),
                (matrix.width() + 2 * QUIET_ZONE) * scale,
                "whole pixels per module"
            );
            assert_eq!(decode_image(&uploaded), url, "scale {scale}");
        }
    }
    assert_eq!(
        QR_TEXTURE_OPTIONS.magnification,
        egui::TextureFilter::Nearest
    );
    assert_eq!(
        QR_TEXTURE_OPTIONS.minification,
        egui::TextureFilter::Nearest
    );
}

#[test]
fn the_saved_png_decodes_to_the_same_url() {
    let url = "http://127.0.0.1:8080/pay/lnk_42";
    let image = QrMatrix::encode(url).unwrap().render(6);
    let png_bytes = image.to_png().unwrap();
    assert_eq!(
        crate::support::qr::decode(&crate::support::qr::grey_png(&png_bytes)).0,
        url
    );
}
