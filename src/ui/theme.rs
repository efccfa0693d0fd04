//! Colours, in one place.
//!
//! Staff read the status of a link at a glance from across the counter, so the same state must
//! always have the same colour, in light and dark mode alike, with enough contrast to read.
//! No other file makes a `Color32`: views ask the [`Palette`] for a meaning (error, ok, the
//! badge of a status) and get the colour of the current mode.

use egui::{Color32, ThemePreference, Visuals};
use serde::{Deserialize, Serialize};

use crate::domain::LinkStatus;

/// The user's choice of theme (saved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ThemeChoice {
    /// Follow the operating system (the default).
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    /// Every choice, in the order the picker shows them.
    pub const ALL: [ThemeChoice; 3] = [ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark];

    /// egui's preference for this choice.
    pub fn preference(self) -> ThemePreference {
        match self {
            ThemeChoice::System => ThemePreference::System,
            ThemeChoice::Light => ThemePreference::Light,
            ThemeChoice::Dark => ThemePreference::Dark,
        }
    }
}

/// A coloured pill: text on a fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Badge {
    /// Background.
    pub fill: Color32,
    /// Text.
    pub text: Color32,
}

/// The colours of one mode (light or dark).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    /// Whether this is the dark palette.
    pub dark: bool,
    /// Error text (field errors, failed requests).
    pub error: Color32,
    /// Success text (the ✓ of a check, "saved").
    pub ok: Color32,
    /// Warnings (stale rows, unknown outcomes).
    pub warn: Color32,
    /// Secondary text (hints, ages).
    pub muted: Color32,
    /// The "Sandbox: no real money" badge.
    pub sandbox: Badge,
    /// The Pending count badge in the top bar.
    pub pending: Badge,
    /// A dark QR module (always black: phones read black on white best).
    pub qr_dark: Color32,
    /// A light QR module and the quiet zone (always white).
    pub qr_light: Color32,
    /// Background of the customer display.
    pub customer_background: Color32,
    /// Text of the customer display.
    pub customer_text: Color32,
}

impl Palette {
    /// The palette of the mode the visuals are in.
    pub fn of(visuals: &Visuals) -> Self {
        Self::for_mode(visuals.dark_mode)
    }

    /// The palette of light (`false`) or dark (`true`) mode.
    pub fn for_mode(dark: bool) -> Self {
        if dark {
            Self {
                dark,
                error: Color32::from_rgb(255, 120, 110),
                ok: Color32::from_rgb(110, 210, 130),
                warn: Color32::from_rgb(240, 190, 90),
                muted: Color32::from_gray(150),
                sandbox: Badge {
                    fill: Color32::from_rgb(120, 80, 0),
                    text: Color32::from_rgb(255, 230, 170),
                },
                pending: Badge {
                    fill: Color32::from_rgb(150, 100, 0),
                    text: Color32::WHITE,
                },
                qr_dark: Color32::BLACK,
                qr_light: Color32::WHITE,
                customer_background: Color32::from_gray(18),
                customer_text: Color32::from_gray(240),
            }
        } else {
            Self {
                dark,
                error: Color32::from_rgb(190, 30, 30),
                ok: Color32::from_rgb(20, 130, 50),
                warn: Color32::from_rgb(160, 95, 0),
                muted: Color32::from_gray(100),
                sandbox: Badge {
                    fill: Color32::from_rgb(255, 225, 150),
                    text: Color32::from_rgb(90, 55, 0),
                },
                pending: Badge {
                    fill: Color32::from_rgb(230, 150, 20),
                    text: Color32::BLACK,
                },
                qr_dark: Color32::BLACK,
                qr_light: Color32::WHITE,
                customer_background: Color32::WHITE,
                customer_text: Color32::from_gray(20),
            }
        }
    }

    /// The badge of a link status: green paid, blue open, grey expired, red rejected,
    /// amber under review, purple for a status this version does not know.
    pub fn status(&self, status: &LinkStatus) -> Badge {
        let (light_fill, dark_fill) = match status {
            LinkStatus::Pending => ((200, 220, 255), (30, 70, 140)),
            LinkStatus::Completed => ((190, 235, 200), (25, 110, 50)),
            LinkStatus::Rejected => ((255, 205, 205), (140, 30, 30)),
            LinkStatus::Expired => ((225, 225, 225), (75, 75, 75)),
            LinkStatus::UnderReview => ((255, 230, 180), (130, 90, 10)),
            LinkStatus::Other(_) => ((230, 210, 255), (90, 50, 140)),
        };
        if self.dark {
            Badge {
                fill: Color32::from_rgb(dark_fill.0, dark_fill.1, dark_fill.2),
                text: Color32::WHITE,
            }
        } else {
            Badge {
                fill: Color32::from_rgb(light_fill.0, light_fill.1, light_fill.2),
                text: Color32::BLACK,
            }
        }
    }

    /// Fill and text of the customer display's big "Paid ✓" / "Expired" / "Cancelled" screen.
    pub fn customer_final(&self, status: &LinkStatus) -> Badge {
        match status {
            LinkStatus::Completed => Badge {
                fill: Color32::from_rgb(20, 130, 50),
                text: Color32::WHITE,
            },
            LinkStatus::Rejected => Badge {
                fill: Color32::from_rgb(170, 30, 30),
                text: Color32::WHITE,
            },
            _ => Badge {
                fill: Color32::from_gray(90),
                text: Color32::WHITE,
            },
        }
    }

    /// Colour of the line of a plot (installments: total cost by count).
    pub fn plot_line(&self) -> Color32 {
        if self.dark {
            Color32::from_rgb(120, 180, 255)
        } else {
            Color32::from_rgb(20, 90, 200)
        }
    }
}

/// Relative luminance (WCAG 2) of an sRGB colour, 0 (black) to 1 (white).
pub fn luminance(c: Color32) -> f32 {
    fn channel(v: u8) -> f32 {
        let s = f32::from(v) / 255.0;
        if s <= 0.039_28 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        }
    }
    0.2126 * channel(c.r()) + 0.7152 * channel(c.g()) + 0.0722 * channel(c.b())
}

/// WCAG contrast ratio between two colours (1 to 21).
pub fn contrast(a: Color32, b: Color32) -> f32 {
    let (la, lb) = (luminance(a), luminance(b));
    let (hi, lo) = if la > lb { (la, lb) } else { (lb, la) };
    (hi + 0.05) / (lo + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statuses() -> Vec<LinkStatus> {
        let mut all = LinkStatus::KNOWN.to_vec();
        all.push(LinkStatus::Other("REFUNDED".into()));
        all
    }

    #[test]
    fn every_badge_and_message_colour_is_readable_in_both_modes() {
        for dark in [false, true] {
            let p = Palette::for_mode(dark);
            let background = if dark {
                Visuals::dark().panel_fill
            } else {
                Visuals::light().panel_fill
            };
            for s in statuses() {
                let b = p.status(&s);
                assert!(contrast(b.fill, b.text) >= 4.5, "{s} dark={dark}");
                let f = p.customer_final(&s);
                assert!(contrast(f.fill, f.text) >= 4.5, "{s} final dark={dark}");
            }
            for b in [p.sandbox, p.pending] {
                assert!(contrast(b.fill, b.text) >= 4.5, "badge dark={dark}");
            }
            for (name, c) in [("error", p.error), ("ok", p.ok), ("warn", p.warn)] {
                assert!(contrast(c, background) >= 3.0, "{name} dark={dark}");
            }
            assert!(contrast(p.customer_text, p.customer_background) >= 7.0);
            assert_eq!((p.qr_dark, p.qr_light), (Color32::BLACK, Color32::WHITE));
        }
    }

    #[test]
    fn each_known_status_has_its_own_colour() {
        for dark in [false, true] {
            let p = Palette::for_mode(dark);
            let fills: Vec<_> = statuses().iter().map(|s| p.status(s).fill).collect();
            for (i, a) in fills.iter().enumerate() {
                for b in &fills[i + 1..] {
                    assert_ne!(a, b, "dark={dark}");
                }
            }
        }
    }
}
