//! Reading a QR code back in tests, with a decoder independent of the encoder (`rqrr`): from a
//! PNG (any colour type, 8 or 16 bits) or from grey pixels. What the customer's phone sees must
//! be exactly the payment URL.

/// A grey picture: width, height and one byte per pixel, row by row.
#[derive(Debug, Clone)]
pub struct Grey {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
}

/// Reads a PNG into grey pixels (the first channel of each pixel: the QR pictures are grey).
pub fn grey_png(bytes: &[u8]) -> Grey {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a buffer size")];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    let channels = info.color_type.samples();
    Grey {
        width: info.width as usize,
        height: info.height as usize,
        pixels: buf[..info.buffer_size()]
            .chunks(channels)
            .map(|px| px[0])
            .collect(),
    }
}

/// The one QR code of the picture: its text, and the length in pixels of its top edge.
pub fn decode(grey: &Grey) -> (String, f64) {
    let w = grey.width;
    let mut prepared =
        rqrr::PreparedImage::prepare_from_greyscale(w, grey.height, |x, y| grey.pixels[y * w + x]);
    let grids = prepared.detect_grids();
    assert_eq!(grids.len(), 1, "exactly one QR code in the picture");
    let (_meta, text) = grids[0].decode().expect("the QR code decodes");
    let [top_left, top_right, ..] = grids[0].bounds;
    let dx = f64::from(top_right.x - top_left.x);
    let dy = f64::from(top_right.y - top_left.y);
    (text, dx.hypot(dy))
}

/// The text of the one QR code in a PNG file.
pub fn decode_png_file(path: &std::path::Path) -> String {
    decode(&grey_png(&std::fs::read(path).expect("the PNG exists"))).0
}
