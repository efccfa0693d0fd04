//! The SMTP server's bytes, bounded: lettre connects to a loopback relay of this pass, which
//! connects to the real server and copies both ways, cutting the connection once the server
//! has sent [`REPLY_CAP`] bytes. lettre reads a whole reply line before any limit of its own
//! applies, so a server that sends an endless line would otherwise fill memory. The relay
//! copies bytes only (TLS, STARTTLS included, runs end to end through it, and the certificate
//! is checked against the real host's name: `TlsParameters` carries it, not the address
//! lettre dials). Why a connection was cut (the cap, or the server not reached) is kept, so
//! the queue records that rather than lettre's "connection closed".

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// The most bytes one connection's server side may send: a whole SMTP session's replies are a
/// few KiB (an `EHLO` answer with every extension is under 1 KiB).
pub const REPLY_CAP: u64 = 256 * 1024;

/// A relay for one sending pass; its connections end when it is dropped.
#[derive(Debug)]
pub(super) struct Relay {
    addr: SocketAddr,
    cut: Arc<Mutex<Option<String>>>,
    task: JoinHandle<()>,
}

impl Relay {
    /// Listens on a loopback port for lettre, each connection relayed to `host:port`
    /// (reached within `connect_timeout`).
    pub(super) async fn start(
        host: &str,
        port: u16,
        connect_timeout: Duration,
    ) -> std::io::Result<Relay> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let cut = Arc::new(Mutex::new(None));
        let target = (
            host.trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            port,
        );
        let why = Arc::clone(&cut);
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            while let Ok((inbound, _)) = listener.accept().await {
                let target = target.clone();
                let why = Arc::clone(&why);
                connections.spawn(async move {
                    relay_one(inbound, &target, connect_timeout, &why).await;
                });
            }
        });
        Ok(Relay { addr, cut, task })
    }

    /// The port lettre dials.
    pub(super) fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Why the relay cut a connection since the last call, if it did.
    pub(super) fn take_cut(&self) -> Option<String> {
        self.cut
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        // The accept loop's JoinSet goes with it, and every connection it holds.
        self.task.abort();
    }
}

/// Copies one connection both ways; why it was cut is put in `why` before lettre's side is
/// closed, so lettre's error is never read before the reason is there.
async fn relay_one(
    mut inbound: TcpStream,
    target: &(String, u16),
    connect_timeout: Duration,
    why: &Mutex<Option<String>>,
) {
    if let Err(reason) = copy_both_ways(&mut inbound, target, connect_timeout).await {
        *why.lock().unwrap_or_else(PoisonError::into_inner) = Some(reason);
    }
    drop(inbound);
}

/// Connects to `target` and copies `inbound` both ways; `Err` says why it was cut.
async fn copy_both_ways(
    inbound: &mut TcpStream,
    target: &(String, u16),
    connect_timeout: Duration,
) -> Result<(), String> {
    let server = match tokio::time::timeout(
        connect_timeout,
        TcpStream::connect((target.0.as_str(), target.1)),
    )
    .await
    {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return Err(format!("{}:{}: {e}", target.0, target.1)),
        Err(_) => {
            return Err(format!(
                "{}:{}: no connection within {} s",
                target.0,
                target.1,
                connect_timeout.as_secs()
            ));
        }
    };
    let (mut from_server, mut to_server) = server.into_split();
    let (mut from_client, mut to_client) = inbound.split();
    let upstream = tokio::io::copy(&mut from_client, &mut to_server);
    let downstream = async {
        let mut sent: u64 = 0;
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = from_server
                .read(&mut buf)
                .await
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Ok(());
            }
            sent += n as u64;
            if sent > REPLY_CAP {
                return Err(format!(
                    "the mail server sent more than {} KiB of replies; the connection was cut",
                    REPLY_CAP / 1024
                ));
            }
            to_client
                .write_all(&buf[..n])
                .await
                .map_err(|e| e.to_string())?;
        }
    };
    tokio::select! {
        // lettre closed its side (QUIT done): the session is over.
        _ = upstream => Ok(()),
        r = downstream => r,
    }
}
