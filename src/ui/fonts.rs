//! Fonts that can draw every character paydesk shows.
//!
//! egui's default fonts (Ubuntu Light, Hack) cover the Turkish letters ç ğ ı İ ö ş ü but not
//! the lira sign ₺ (U+20BA), the rouble ₽ or the manat ₼, nor the ✓ of a passed check. So two
//! free fonts ship in `assets/fonts/` and are added *after* the defaults, as fallbacks only:
//! `DejaVu` Sans (Bitstream Vera licence; ₺ ₽ ✓) and Noto Sans Mono (SIL OFL 1.1; ₼). Their
//! licence texts sit next to them.

use egui::{FontData, FontFamily, FontInsert, FontPriority, InsertFontFamily};

// `DejaVu` Sans, for ₺, ₽ and ✓: the printed slip's font, one copy in the binary.
use crate::slip::DEJAVU_SANS;

/// Noto Sans Mono, for ₼ (and any currency sign up to U+20BF).
const NOTO_SANS_MONO: &[u8] = include_bytes!("../../assets/fonts/NotoSansMono-Regular.ttf");

/// Adds the fallback fonts to both families, and the icon font (Material Symbols Rounded,
/// Apache 2.0, from the `egui_material_icons` crate). Idempotent (egui skips a font it
/// already has).
pub fn install(ctx: &egui::Context) {
    egui_material_icons::initialize(ctx);
    for (name, bytes) in [
        ("paydesk-dejavu-sans", DEJAVU_SANS),
        ("paydesk-noto-sans-mono", NOTO_SANS_MONO),
    ] {
        ctx.add_font(FontInsert {
            name: name.to_owned(),
            data: FontData::from_static(bytes),
            families: [FontFamily::Proportional, FontFamily::Monospace]
                .into_iter()
                .map(|family| InsertFontFamily {
                    family,
                    priority: FontPriority::Lowest,
                })
                .collect(),
        });
    }
}
