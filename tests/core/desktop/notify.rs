//! The desktop notifier against a real notification daemon (dunst on a private D-Bus session
//! under Xvfb), not a fake: the notice is read back from the bus as the daemon received it
//! (`dbus-monitor`), and from the daemon's own history (`dunstctl history`), so the test shows
//! the summary, the body and the sound hint really reach a notification service.
//!
//! Run by `.ci/notify-test.sh`, which starts the bus, Xvfb and dunst; plain `cargo test` lists
//! these tests as ignored, with the reason.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use paydesk::notify::{DesktopNotifier, Notice, Notifier, SOUND_PAID};

/// `dbus-monitor` on the session bus, watching calls to the notification service; its lines
/// arrive on a channel.
struct Monitor {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Monitor {
    fn start() -> Self {
        let mut child = Command::new("dbus-monitor")
            .args([
                "--session",
                "type='method_call',interface='org.freedesktop.Notifications',member='Notify'",
            ])
            .stdout(Stdio::piped())
            .spawn()
            .expect("dbus-monitor runs (apt-get install dbus)");
        let stdout = child.stdout.take().expect("its output");
        let (tx, lines) = mpsc::sync_channel(1024);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut monitor = Self { child, lines };
        // It says hello (its own name on the bus) once it listens.
        monitor.read_until(|text| text.contains("NameAcquired"));
        monitor
    }

    /// Reads lines until `done` holds for everything read so far; fails after 10 s.
    fn read_until(&mut self, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut text = String::new();
        while !done(&text) {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|e| {
                panic!("dbus-monitor showed no such call ({e}); it showed:\n{text}")
            });
            text.push_str(&line);
            text.push('\n');
        }
        text
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `text` holds the whole `Notify` call that mentions `marker`: its last argument,
/// the timeout (`int32`), comes after the hints.
fn whole_call(text: &str, marker: &str) -> bool {
    text.find(marker)
        .is_some_and(|at| text[at..].contains("int32 "))
}

/// dunst's history, as JSON.
fn dunst_history() -> serde_json::Value {
    let out = Command::new("dunstctl")
        .arg("history")
        .output()
        .expect("dunstctl runs (apt-get install dunst)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("dunstctl prints JSON")
}

/// The summaries and bodies in dunst's history, newest first.
fn dunst_seen() -> Vec<(String, String)> {
    let history = dunst_history();
    history["data"][0]
        .as_array()
        .expect("a list of notifications")
        .iter()
        .map(|n| {
            (
                n["summary"]["data"].as_str().unwrap_or_default().to_owned(),
                n["body"]["data"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
#[ignore = "needs a notification daemon on a private D-Bus session; .ci/notify-test.sh runs it"]
fn a_paid_alert_reaches_the_notification_daemon_with_its_amount_order_and_sound() {
    let mut monitor = Monitor::start();
    let notifier = DesktopNotifier::new();
    let order = format!("PD-20261122-T{:04}", std::process::id() % 10_000);
    let notice = Notice {
        summary: "Ödendi: 1.250,50 ₺".into(),
        body: format!("Sipariş {order}"),
        sound: Some(SOUND_PAID),
    };
    notifier.notify(&notice).expect("the daemon takes it");

    // On the bus: paydesk's call, with the summary, the body and the hints.
    let call = monitor.read_until(|t| whole_call(t, &order));
    assert!(call.contains("string \"paydesk\""), "{call}");
    assert!(call.contains("string \"Ödendi: 1.250,50 ₺\""), "{call}");
    assert!(
        call.contains(&format!("string \"Sipariş {order}\"")),
        "{call}"
    );
    assert!(call.contains("string \"sound-name\""), "{call}");
    assert!(call.contains("string \"complete\""), "{call}");
    assert!(
        call.contains("string \"io.github.paydesk.Paydesk\""),
        "{call}"
    );
    assert!(!call.contains("suppress-sound"), "{call}");

    // The daemon has it. (dunst files a notification in its history once it is closed.)
    let _ = Command::new("dunstctl").arg("close-all").status();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let seen = dunst_seen();
        if seen
            .iter()
            .any(|(s, b)| s == "Ödendi: 1.250,50 ₺" && b == &format!("Sipariş {order}"))
        {
            break;
        }
        assert!(Instant::now() < deadline, "dunst never showed it: {seen:?}");
        std::thread::sleep(Duration::from_millis(100));
    }

    // With the sound setting off, paydesk asks the daemon for silence instead.
    let quiet = Notice {
        summary: "Partial payment: ₺40.00".into(),
        body: format!("Order {order} · Remaining: ₺60.00"),
        sound: None,
    };
    notifier.notify(&quiet).expect("the daemon takes it");
    let call = monitor.read_until(|t| whole_call(t, "Partial payment: ₺40.00"));
    assert!(call.contains("Remaining: ₺60.00"), "{call}");
    let after = call.split("Partial payment").nth(1).unwrap_or_default();
    assert!(!after.contains("sound-name"), "{call}");

    // An order number from a server is text, never markup: the daemon would render a body's
    // `<a href>` as a link and `<b>` as bold.
    let hostile = Notice {
        summary: "Paid: ₺1.00".into(),
        body: "Order <a href=https://evil.example>KDK</a> & <b>x</b>".into(),
        sound: None,
    };
    notifier.notify(&hostile).expect("the daemon takes it");
    let call = monitor.read_until(|t| whole_call(t, "Paid: ₺1.00"));
    let sent = call.split("Paid: ₺1.00").nth(1).unwrap_or_default();
    assert!(
        sent.contains(
            "Order &lt;a href=https://evil.example&gt;KDK&lt;/a&gt; &amp; &lt;b&gt;x&lt;/b&gt;"
        ),
        "{call}"
    );
    assert!(!sent.contains("<a href"), "{call}");
}

#[test]
#[ignore = "needs a session bus without a notification service; .ci/notify-test.sh runs it"]
fn without_a_notification_service_the_notifier_says_so_and_does_not_hang() {
    let notifier = DesktopNotifier::new();
    let notice = Notice {
        summary: "Paid: ₺10.00".into(),
        body: "Order PD-1".into(),
        sound: None,
    };
    let started = Instant::now();
    let first = notifier.notify(&notice);
    let second = notifier.notify(&notice);
    assert!(first.is_err() && second.is_err(), "{first:?} {second:?}");
    assert!(
        first
            .unwrap_err()
            .to_string()
            .starts_with("no desktop notification service"),
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}
