//! "Paid" alerts outside the window: a desktop notification when a link turns paid or a
//! partial payment arrives, so the clerk hears of it while serving the next customer.
//!
//! The app composes the [`Notice`] (its sentences come from the UI's catalogue, in the app's
//! language) and hands it to a [`Notifier`] on the worker, never on the UI thread: a D-Bus
//! call may take a while, or hang on a stuck service. [`DesktopNotifier`] sends it to the
//! freedesktop notification service (`org.freedesktop.Notifications`, through `notify-rust`),
//! which every Linux desktop runs (GNOME Shell, Plasma, dunst, mako, ...). A machine without one
//! is not an error: the board shows the payment anyway, so the first failure is logged once as
//! a warning and later ones only at debug level. [`RecordingNotifier`] keeps notices in memory
//! for tests.
//!
//! The optional sound (a setting, off by default) is the notification's `sound-name` hint: the
//! freedesktop sound theme's `complete` for a paid link, `message-new-instant` for a partial
//! payment. The notification service plays it, in the desktop's own sound theme and volume,
//! and a service without sounds ignores it; with the setting off, `suppress-sound` asks the
//! service not to play its own. paydesk opens no audio device itself.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// The sound-theme name played with a paid alert.
pub const SOUND_PAID: &str = "complete";
/// The sound-theme name played with a partial payment.
pub const SOUND_PARTIAL: &str = "message-new-instant";

/// One desktop notification, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The headline (`Paid: ₺150.00`).
    pub summary: String,
    /// The line under it (the order number, what is left).
    pub body: String,
    /// The sound-theme name to play, if the sound setting is on.
    pub sound: Option<&'static str>,
}

/// Why a notice could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    /// No notification service answered (no session bus, no daemon, or it refused).
    #[error("no desktop notification service: {0}")]
    Unavailable(String),
}

/// Shows notices. Implementations may block (the app calls them on its worker).
pub trait Notifier: Send + Sync + std::fmt::Debug {
    /// Shows `notice`.
    fn notify(&self, notice: &Notice) -> Result<(), NotifyError>;
}

/// The freedesktop notification service of the user's session.
#[derive(Debug, Default)]
pub struct DesktopNotifier {
    /// A failure was already logged as a warning.
    warned: AtomicBool,
}

impl DesktopNotifier {
    /// A notifier that has not tried the service yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn send(notice: &Notice) -> Result<(), notify_rust::error::Error> {
        let mut n = notify_rust::Notification::new();
        n.appname("paydesk")
            .summary(&notice.summary)
            .body(&body_markup(&notice.body))
            .icon(crate::APP_ID);
        #[cfg(all(unix, not(target_os = "macos")))]
        {
            use notify_rust::Hint;
            n.hint(Hint::DesktopEntry(crate::APP_ID.to_owned()));
            n.hint(Hint::Category("transfer.complete".to_owned()));
            match notice.sound {
                Some(name) => n.hint(Hint::SoundName(name.to_owned())),
                None => n.hint(Hint::SuppressSound(true)),
            };
        }
        n.show().map(|_| ())
    }
}

/// `body` as the notification service reads a body: markup where the service supports it (the
/// specification's `body-markup`, which most do), so `&`, `<` and `>` are escaped; an order
/// number or a note from a server is shown as the characters it is, never as markup or a link.
fn body_markup(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    for c in body.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

impl Notifier for DesktopNotifier {
    fn notify(&self, notice: &Notice) -> Result<(), NotifyError> {
        Self::send(notice).map_err(|e| {
            let e = NotifyError::Unavailable(e.to_string());
            if self.warned.swap(true, Ordering::SeqCst) {
                tracing::debug!(error = %e, "desktop notification not shown");
            } else {
                tracing::warn!(error = %e, "desktop notifications are off: the board still shows payments");
            }
            e
        })
    }
}

/// Keeps every notice in memory (tests count them); never fails.
#[derive(Debug, Default)]
pub struct RecordingNotifier {
    notices: Mutex<Vec<Notice>>,
}

impl RecordingNotifier {
    /// The notices so far, oldest first.
    pub fn notices(&self) -> Vec<Notice> {
        self.notices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Notifier for RecordingNotifier {
    fn notify(&self, notice: &Notice) -> Result<(), NotifyError> {
        self.notices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(notice.clone());
        Ok(())
    }
}
