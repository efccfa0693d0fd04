//! A TCP listener whose connections a handler can kill, for the "lost response" fault: the
//! work is committed, then the connection is reset without an answer, so the client sees a
//! connection error, never a 200.
//!
//! Each accepted stream carries a [`ConnControl`] (with the peer's address, which the admin
//! routes check); axum hands it to handlers as `ConnectInfo<ConnControl>`. Once killed, every read and write of the stream fails and the
//! socket is closed with `SO_LINGER` 0 (a reset), so nothing of the response leaves.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// The kill switch of one connection, and the address of its peer.
#[derive(Debug, Clone)]
pub struct ConnControl {
    killed: Arc<AtomicBool>,
    peer: SocketAddr,
}

impl ConnControl {
    /// The control of a new connection from `peer`.
    pub fn new(peer: SocketAddr) -> Self {
        Self {
            killed: Arc::default(),
            peer,
        }
    }

    /// The address the connection comes from.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Makes the connection fail: the response in flight is never sent.
    pub fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
    }

    fn is_killed(&self) -> bool {
        self.killed.load(Ordering::SeqCst)
    }
}

/// Accepts TCP connections and wraps them in [`KillableStream`].
#[derive(Debug)]
pub struct KillableListener {
    inner: TcpListener,
}

impl KillableListener {
    /// Wraps a bound listener.
    pub fn new(inner: TcpListener) -> Self {
        Self { inner }
    }
}

impl Listener for KillableListener {
    type Io = KillableStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    // Small JSON answers: do not wait for Nagle.
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!("cannot set TCP_NODELAY: {e}");
                    }
                    return (
                        KillableStream {
                            inner: stream,
                            control: ConnControl::new(addr),
                        },
                        addr,
                    );
                }
                Err(e) => {
                    // Out of descriptors and the like: back off instead of spinning.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

impl Connected<IncomingStream<'_, KillableListener>> for ConnControl {
    fn connect_info(stream: IncomingStream<'_, KillableListener>) -> Self {
        stream.io().control.clone()
    }
}

/// A TCP stream that fails every operation once its [`ConnControl`] is killed.
#[derive(Debug)]
pub struct KillableStream {
    inner: TcpStream,
    control: ConnControl,
}

impl KillableStream {
    fn dead(&self) -> io::Error {
        // A reset on close: the client gets an error, not an orderly end of stream.
        if let Err(e) = self.inner.set_zero_linger() {
            tracing::debug!("cannot set SO_LINGER 0: {e}");
        }
        io::Error::new(
            io::ErrorKind::ConnectionAborted,
            "response dropped by fault injection",
        )
    }
}

impl AsyncRead for KillableStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.control.is_killed() {
            return Poll::Ready(Err(this.dead()));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for KillableStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.control.is_killed() {
            return Poll::Ready(Err(this.dead()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.control.is_killed() {
            return Poll::Ready(Err(this.dead()));
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.control.is_killed() {
            return Poll::Ready(Err(this.dead()));
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.control.is_killed() {
            return Poll::Ready(Err(this.dead()));
        }
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}
