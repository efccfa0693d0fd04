//! Loopback ports for the servers a test starts (aiosmtpd, PostgreSQL) and for addresses
//! where nobody listens: the kernel's free port, never one this test binary was given before.
//!
//! A port is free only until someone binds it. Two tests that asked at the same moment could
//! be told the same port once the first one's probe was released, and then one test's server
//! answers the other's client (a plain SMTP server where SMTPS was meant, or "connection
//! refused" when the other test stops its server). Remembering what was handed out closes
//! that race between the threads of one binary; cargo runs the binaries one after another.

use std::collections::HashSet;
use std::net::TcpListener;
use std::sync::{Mutex, PoisonError};

static GIVEN: Mutex<Option<HashSet<u16>>> = Mutex::new(None);

/// A loopback port nothing listens on now, handed to no other test of this binary.
pub fn free_port() -> u16 {
    let mut given = GIVEN.lock().unwrap_or_else(PoisonError::into_inner);
    let given = given.get_or_insert_with(HashSet::new);
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        if given.insert(port) {
            return port;
        }
    }
}

#[test]
fn no_port_is_handed_out_twice() {
    let ports: HashSet<u16> = (0..200).map(|_| free_port()).collect();
    assert_eq!(ports.len(), 200);
}
