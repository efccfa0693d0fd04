//! The mail queue in the data file: a message and its audit row are written together or not at
//! all, due messages come longest-waiting first, a failure waits 30 s doubling to 30 min, the
//! `Message-ID` never changes across attempts, and the whole address is replaced by its mask a
//! week after sending (on a manual clock); a WhatsApp send is one audit row with the masked
//! number.

use crate::support::time::t0;
use chrono::Duration;
use paydesk::clock::{Clock, ManualClock};
use paydesk::domain::{Actor, EmailAddress, LinkMessage, Phone, Role};
use paydesk::store::{AuditFilter, ChainCheck, NewMail, Store};

fn address(text: &str) -> EmailAddress {
    EmailAddress::parse(text).expect("a valid address")
}

fn message(n: u32) -> LinkMessage {
    LinkMessage {
        subject: format!("Kuzey Giyim: payment link {n}"),
        text: format!("Pay at https://pay.example/l/{n}\n"),
        html: format!("<p><a href=\"https://pay.example/l/{n}\">pay</a></p>"),
    }
}

fn enqueue(store: &mut Store, link: &str, to: &str, clock: &ManualClock) -> i64 {
    let to = address(to);
    let from = address("kasa@kuzey.example");
    let m = message(1);
    store
        .mail_enqueue(
            &NewMail {
                link_id: link,
                to: &to,
                from: &from,
                message: &m,
            },
            clock.now(),
        )
        .expect("queued")
        .id
}

fn ids(store: &Store, clock: &ManualClock) -> Vec<i64> {
    store
        .mail_queue()
        .due(clock.now())
        .expect("due")
        .iter()
        .map(|m| m.id)
        .collect()
}

#[test]
fn a_queued_message_is_audited_in_the_same_transaction_with_the_masked_address() {
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let ayse = Actor::member("Ayşe", Role::Counter);
    let queued = store.as_actor(&ayse, clock.now(), |s| {
        let to = address("ayse.kaya@example.com");
        let from = address("kasa@kuzey.example");
        let m = message(7);
        s.mail_enqueue(
            &NewMail {
                link_id: "lnk_7",
                to: &to,
                from: &from,
                message: &m,
            },
            clock.now(),
        )
        .expect("queued")
    });
    assert_eq!(queued.to_address, "ayse.kaya@example.com");
    assert_eq!(queued.subject, "Kuzey Giyim: payment link 7");
    assert_eq!(queued.attempts, 0);
    assert_eq!(queued.next_try_at, t0());
    assert!(queued.message_id.ends_with("@kuzey.example>"));
    let audit = store.audit().list(&AuditFilter::default()).expect("audit");
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].action, "link.send");
    assert_eq!(audit[0].subject, "lnk_7 e-mail a***@example.com");
    assert_eq!(audit[0].staff.as_deref(), Some("Ayşe"));
    assert!(
        !format!("{audit:?}").contains("kaya"),
        "the audit holds only the mask"
    );
    assert!(matches!(
        store.audit().verify(None).expect("verify"),
        ChainCheck::Whole { rows: 1, .. }
    ));
}

#[test]
fn when_the_audit_row_cannot_be_written_nothing_is_queued() {
    let dir = tempfile::tempdir().expect("dir");
    let clock = ManualClock::new(t0());
    let mut store = Store::open(dir.path()).expect("store");
    enqueue(&mut store, "lnk_1", "a@example.com", &clock);
    // A clerk's tool breaks the audit table for inserts: the next send must not be queued
    // without its audit row.
    let raw = rusqlite::Connection::open(dir.path().join(paydesk::store::DB_FILE)).expect("raw");
    raw.execute_batch(
        "CREATE TRIGGER audit_broken BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'broken'); END;",
    )
    .expect("trigger");
    let to = address("b@example.com");
    let from = address("kasa@kuzey.example");
    let m = message(2);
    let refused = store.mail_enqueue(
        &NewMail {
            link_id: "lnk_2",
            to: &to,
            from: &from,
            message: &m,
        },
        clock.now(),
    );
    assert!(refused.is_err(), "{refused:?}");
    let unsent = store.mail_queue().unsent().expect("unsent");
    assert_eq!(unsent.len(), 1, "only the first message: {unsent:?}");
    assert_eq!(unsent[0].link_id, "lnk_1");
    raw.execute_batch("DROP TRIGGER audit_broken;")
        .expect("drop");
    // And the other way: a queue that refuses the row leaves no audit row.
    raw.execute_batch(
        "CREATE TRIGGER mail_broken BEFORE INSERT ON mail_queue BEGIN SELECT RAISE(ABORT, 'broken'); END;",
    )
    .expect("trigger");
    let before = store
        .audit()
        .list(&AuditFilter::default())
        .expect("audit")
        .len();
    let refused = store.mail_enqueue(
        &NewMail {
            link_id: "lnk_3",
            to: &to,
            from: &from,
            message: &m,
        },
        clock.now(),
    );
    assert!(refused.is_err());
    assert_eq!(
        store
            .audit()
            .list(&AuditFilter::default())
            .expect("audit")
            .len(),
        before
    );
    assert!(matches!(
        store.audit().verify(None).expect("verify"),
        ChainCheck::Whole { rows: 1, .. }
    ));
}

#[test]
fn due_messages_come_by_due_time_then_queue_order_and_sent_ones_leave() {
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let first = enqueue(&mut store, "lnk_1", "a@example.com", &clock);
    clock.advance(Duration::seconds(1));
    let second = enqueue(&mut store, "lnk_2", "b@example.com", &clock);
    let third = enqueue(&mut store, "lnk_3", "c@example.com", &clock);
    assert_eq!(ids(&store, &clock), [first, second, third]);
    // Not due before it was queued.
    assert_eq!(
        store
            .mail_queue()
            .due(t0() - Duration::seconds(1))
            .expect("due")
            .len(),
        0
    );
    // The first fails: it waits 30 s, so the others come first and it is not due meanwhile.
    store
        .mail_mark_failed(first, "connection refused", clock.now())
        .expect("failed");
    assert_eq!(ids(&store, &clock), [second, third]);
    assert!(store.mail_mark_sent(second, clock.now()).expect("sent"));
    assert!(!store.mail_mark_sent(second, clock.now()).expect("once"));
    assert_eq!(ids(&store, &clock), [third]);
    clock.advance(Duration::seconds(30));
    assert_eq!(
        ids(&store, &clock),
        [third, first],
        "the third was due at t0+1s, the first again at t0+31s"
    );
    let sent = store.mail_queue().get(second).expect("read").expect("row");
    assert_eq!(sent.attempts, 1);
    assert_eq!(sent.sent_at, Some(t0() + Duration::seconds(1)));
}

#[test]
fn failures_wait_30_seconds_doubling_to_30_minutes_with_the_same_message_id() {
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let id = enqueue(&mut store, "lnk_1", "a@example.com", &clock);
    let message_id = store
        .mail_queue()
        .get(id)
        .expect("read")
        .expect("row")
        .message_id;
    let mut waits = Vec::new();
    for _ in 0..9 {
        assert_eq!(ids(&store, &clock), [id]);
        let next = store
            .mail_mark_failed(id, "421 try later\r\n\u{1b}[31m", clock.now())
            .expect("failed")
            .expect("unsent");
        waits.push((next - clock.now()).num_seconds());
        clock.set(next - Duration::seconds(1));
        assert!(ids(&store, &clock).is_empty(), "not due a second early");
        clock.set(next);
    }
    assert_eq!(waits, [30, 60, 120, 240, 480, 960, 1800, 1800, 1800]);
    let row = store.mail_queue().get(id).expect("read").expect("row");
    assert_eq!(row.attempts, 9);
    assert_eq!(row.message_id, message_id, "one Message-ID across attempts");
    assert_eq!(row.last_error.as_deref(), Some("421 try later  [31m"));
    assert!(store.mail_mark_sent(id, clock.now()).expect("sent"));
    let row = store.mail_queue().get(id).expect("read").expect("row");
    assert_eq!((row.attempts, row.last_error), (10, None));
    assert_eq!(row.message_id, message_id);
    // A sent message is failed no more.
    assert_eq!(
        store
            .mail_mark_failed(id, "late", clock.now())
            .expect("no-op"),
        None
    );
}

#[test]
fn a_message_refused_for_good_is_kept_with_the_servers_words_and_never_due_again() {
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let refused = enqueue(&mut store, "lnk_1", "a@example.com", &clock);
    let waiting = enqueue(&mut store, "lnk_2", "b@example.com", &clock);
    assert!(
        store
            .mail_mark_refused(refused, "550 5.1.1 no such user\u{1b}[31m", clock.now())
            .expect("marked")
    );
    store
        .mail_mark_failed(waiting, "421 try later", clock.now())
        .expect("marked");
    clock.set(t0() + Duration::days(365));
    assert_eq!(
        ids(&store, &clock),
        [waiting],
        "the refused one is never due"
    );
    let row = store
        .mail_queue()
        .get(refused)
        .expect("read")
        .expect("kept");
    assert_eq!(row.refused_at, Some(t0()));
    assert_eq!(row.sent_at, None);
    let words = row.last_error.expect("the server's words");
    assert!(
        words.contains("550 5.1.1 no such user") && !words.contains('\u{1b}'),
        "{words}"
    );
    // A sent message cannot be refused afterwards.
    store.mail_mark_sent(waiting, clock.now()).expect("sent");
    assert!(
        !store
            .mail_mark_refused(waiting, "550", clock.now())
            .expect("no-op")
    );
}

#[test]
fn a_claimed_message_is_passed_by_until_its_claim_ends() {
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let id = enqueue(&mut store, "lnk_1", "a@example.com", &clock);
    let until = clock.now() + Duration::minutes(2);
    assert!(store.mail_claim(id, clock.now(), until).expect("claim"));
    assert!(!store.mail_claim(id, clock.now(), until).expect("taken"));
    assert!(ids(&store, &clock).is_empty());
    clock.set(until);
    assert_eq!(
        ids(&store, &clock),
        [id],
        "a sender that died leaves it due"
    );
}

#[test]
fn a_flush_makes_waiting_messages_due_at_once_but_never_takes_a_live_claim() {
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let waiting = enqueue(&mut store, "lnk_1", "a@example.com", &clock);
    let claimed = enqueue(&mut store, "lnk_2", "b@example.com", &clock);
    let refused = enqueue(&mut store, "lnk_3", "c@example.com", &clock);
    let sent = enqueue(&mut store, "lnk_4", "d@example.com", &clock);
    // The first failed twice (a minute's wait); the second is being sent by another process;
    // the third was refused for good; the fourth went out.
    for _ in 0..2 {
        store
            .mail_mark_failed(waiting, "421 try later", clock.now())
            .expect("failed");
    }
    let until = clock.now() + Duration::minutes(2);
    assert!(
        store
            .mail_claim(claimed, clock.now(), until)
            .expect("claim")
    );
    store
        .mail_mark_refused(refused, "550 no such user", clock.now())
        .expect("refused");
    store.mail_mark_sent(sent, clock.now()).expect("sent");
    clock.advance(Duration::seconds(5));
    assert!(ids(&store, &clock).is_empty());

    assert_eq!(store.mail_due_now(clock.now()).expect("flush"), 1);
    assert_eq!(ids(&store, &clock), [waiting]);
    let row = store
        .mail_queue()
        .get(waiting)
        .expect("read")
        .expect("kept");
    assert_eq!(row.attempts, 2, "a flush is not an attempt");

    // A claim that ended in a failure is a backoff again, which the next flush cuts short.
    assert!(
        store
            .mail_claim(waiting, clock.now(), until)
            .expect("claim")
    );
    store
        .mail_mark_failed(waiting, "421 try later", clock.now())
        .expect("failed");
    assert_eq!(store.mail_due_now(clock.now()).expect("flush"), 1);
    assert_eq!(ids(&store, &clock), [waiting]);
}

#[test]
fn the_whole_address_is_replaced_by_its_mask_seven_days_after_sending() {
    let dir = tempfile::tempdir().expect("dir");
    let clock = ManualClock::new(t0());
    let mut store = Store::open(dir.path()).expect("store");
    let sent = enqueue(&mut store, "lnk_1", "ayse.kaya@example.com", &clock);
    let waiting = enqueue(&mut store, "lnk_2", "mehmet.oz@example.com", &clock);
    store.mail_mark_sent(sent, clock.now()).expect("sent");
    store
        .mail_mark_failed(waiting, "down", clock.now())
        .expect("failed");

    clock.advance(Duration::days(7) - Duration::seconds(1));
    assert_eq!(store.mail_wipe_sent(clock.now()).expect("wipe"), 0);
    let row = store.mail_queue().get(sent).expect("read").expect("row");
    assert_eq!(row.to_address, "ayse.kaya@example.com");

    clock.advance(Duration::seconds(1));
    assert_eq!(store.mail_wipe_sent(clock.now()).expect("wipe"), 1);
    let row = store.mail_queue().get(sent).expect("read").expect("row");
    assert_eq!(row.to_address, "a***@example.com");
    assert_eq!(row.wiped_at, Some(clock.now()));
    // An unsent message keeps its address: it is still to be sent.
    let row = store.mail_queue().get(waiting).expect("read").expect("row");
    assert_eq!(row.to_address, "mehmet.oz@example.com");
    // Wiping again changes nothing, and the file no longer holds the address anywhere.
    assert_eq!(store.mail_wipe_sent(clock.now()).expect("wipe"), 0);
    drop(store);
    let raw = rusqlite::Connection::open(dir.path().join(paydesk::store::DB_FILE)).expect("raw");
    raw.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .expect("checkpoint");
    drop(raw);
    let bytes = std::fs::read(dir.path().join(paydesk::store::DB_FILE)).expect("file");
    let mask = b"a***@example.com";
    assert!(
        bytes.windows(mask.len()).any(|w| w == mask),
        "the file read is the queue's"
    );
    let needle = b"ayse.kaya";
    assert!(
        !bytes.windows(needle.len()).any(|w| w == needle),
        "the whole address is gone from the file"
    );
}

#[test]
fn a_whatsapp_send_is_audited_with_the_masked_number_and_queues_nothing() {
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let phone = Phone::parse("0532 123 45 67", 90).expect("phone");
    let ayse = Actor::member("Ayşe", Role::Counter);
    store
        .as_actor(&ayse, clock.now(), |s| {
            s.record_whatsapp_send("lnk_9", &phone, clock.now())
        })
        .expect("audited");
    let audit = store.audit().list(&AuditFilter::default()).expect("audit");
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].action, "link.send");
    assert_eq!(audit[0].subject, "lnk_9 whatsapp 0532 *** ** 67");
    assert_eq!(audit[0].staff.as_deref(), Some("Ayşe"));
    assert!(store.mail_queue().unsent().expect("unsent").is_empty());
}

#[test]
fn parts_are_queued_with_the_message_an_auto_receipt_once_per_link_and_parts_go_at_the_wipe() {
    use paydesk::store::{MailKind, MailPart};
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let to = address("ayse.kaya@example.com");
    let from = address("kasa@kuzey.example");
    let m = message(1);
    let mail = NewMail {
        link_id: "lnk_1",
        to: &to,
        from: &from,
        message: &m,
    };
    let pdf = MailPart {
        name: "makbuz-PKT-9.pdf".into(),
        content_type: "application/pdf".into(),
        content_id: None,
        bytes: b"%PDF-1.7 receipt".to_vec(),
    };
    let first = store
        .mail_enqueue_with(
            &mail,
            MailKind::AutoReceipt,
            std::slice::from_ref(&pdf),
            clock.now(),
        )
        .expect("queued")
        .expect("the first receipt");
    assert_eq!(
        store.mail_queue().parts(first.id).expect("parts"),
        std::slice::from_ref(&pdf)
    );
    // Heard paid again: nothing more, not even an audit row.
    let again = store
        .mail_enqueue_with(
            &mail,
            MailKind::AutoReceipt,
            std::slice::from_ref(&pdf),
            clock.now(),
        )
        .expect("no error");
    assert!(again.is_none());
    // Asked for: one more.
    store
        .mail_enqueue_with(&mail, MailKind::Receipt, &[pdf], clock.now())
        .expect("queued")
        .expect("asked for");
    let audit = store.audit().list(&AuditFilter::default()).expect("audit");
    let receipts = audit.iter().filter(|r| r.action == "link.receipt").count();
    assert_eq!(receipts, 2, "{audit:?}");
    // A week after sending, the address and the parts go.
    store.mail_mark_sent(first.id, clock.now()).expect("sent");
    clock.advance(Duration::days(7));
    store.mail_wipe_sent(clock.now()).expect("wipe");
    assert!(
        store
            .mail_queue()
            .parts(first.id)
            .expect("parts")
            .is_empty()
    );
}
