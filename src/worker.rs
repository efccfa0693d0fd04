//! The one background runtime of the desktop app.
//!
//! A frame must never wait for the network, `SQLite` or the keyring: a frozen window at the
//! counter is worse than a slow answer. So every such call runs here, on a single tokio runtime
//! thread (plus tokio's blocking pool for `spawn_blocking`), and the UI only ever *polls* a
//! [`Pending`] for its result. When a job finishes, the worker calls the waker it was given
//! (the app passes `egui::Context::request_repaint`), so an idle window uses no CPU and still
//! shows an answer within a frame of its arrival. This module knows nothing about egui.

use std::future::Future;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

/// Called after each job's result is ready, from the worker thread.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Why the worker could not start.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The tokio runtime could not be built (no threads, no timer...).
    #[error("could not start the background worker: {0}")]
    Runtime(#[from] std::io::Error),
}

/// The background runtime. Dropping it stops the runtime without waiting for running jobs.
pub struct Worker {
    runtime: Option<tokio::runtime::Runtime>,
    waker: Waker,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("running", &self.runtime.is_some())
            .finish_non_exhaustive()
    }
}

impl Worker {
    /// Starts the runtime: one worker thread named `paydesk-worker`.
    pub fn start(waker: Waker) -> Result<Self, WorkerError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("paydesk-worker")
            .enable_all()
            .build()?;
        Ok(Self {
            runtime: Some(runtime),
            waker,
        })
    }

    /// A handle to the runtime, for code that needs to spawn or enter it (service start-up).
    pub fn handle(&self) -> Option<tokio::runtime::Handle> {
        self.runtime.as_ref().map(|r| r.handle().clone())
    }

    /// Runs `job` in the background; its result arrives in the returned [`Pending`], and the
    /// waker is called once it is there.
    pub fn spawn<T, F>(&self, job: F) -> Pending<T>
    where
        T: Send + 'static,
        F: Future<Output = T> + Send + 'static,
    {
        let (tx, rx) = mpsc::sync_channel(1);
        let waker = Arc::clone(&self.waker);
        if let Some(runtime) = &self.runtime {
            runtime.spawn(async move {
                let value = job.await;
                // The receiver may be gone (the view was closed): nothing to deliver then.
                let _ = tx.send(value);
                waker();
            });
        }
        // Without a runtime `tx` is dropped here and the Pending reports `Lost` at once.
        Pending::running(rx)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// What a [`Pending::poll`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum JobState<T> {
    /// Nothing was asked, or the result was already taken.
    Idle,
    /// Still running.
    Running,
    /// The result, handed over once.
    Ready(T),
    /// The job ended without a result (it panicked or the worker stopped).
    Lost,
}

/// The result of one background request, polled by the UI each frame.
#[derive(Debug)]
pub struct Pending<T> {
    rx: Option<Receiver<T>>,
    since: Option<Instant>,
}

impl<T> Default for Pending<T> {
    fn default() -> Self {
        Self::idle()
    }
}

impl<T> Pending<T> {
    /// Nothing asked.
    pub fn idle() -> Self {
        Self {
            rx: None,
            since: None,
        }
    }

    fn running(rx: Receiver<T>) -> Self {
        Self {
            rx: Some(rx),
            since: Some(Instant::now()),
        }
    }

    /// Whether a request is out and not yet answered.
    pub fn is_running(&self) -> bool {
        self.rx.is_some()
    }

    /// How long the running request has been out.
    pub fn elapsed(&self) -> Option<Duration> {
        self.rx.as_ref().and(self.since).map(|s| s.elapsed())
    }

    /// Takes the result if it has arrived; never blocks.
    pub fn poll(&mut self) -> JobState<T> {
        let Some(rx) = &self.rx else {
            return JobState::Idle;
        };
        match rx.try_recv() {
            Ok(v) => {
                self.rx = None;
                JobState::Ready(v)
            }
            Err(TryRecvError::Empty) => JobState::Running,
            Err(TryRecvError::Disconnected) => {
                self.rx = None;
                JobState::Lost
            }
        }
    }

    /// Blocks up to `timeout` for the result. The UI never calls it (a frame only polls);
    /// the app's handler tests use it to take a job's answer without a window.
    pub fn wait(&mut self, timeout: Duration) -> JobState<T> {
        let Some(rx) = &self.rx else {
            return JobState::Idle;
        };
        match rx.recv_timeout(timeout) {
            Ok(v) => {
                self.rx = None;
                JobState::Ready(v)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => JobState::Running,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                self.rx = None;
                JobState::Lost
            }
        }
    }

    /// Forgets the request (its result, if it comes, is dropped).
    pub fn forget(&mut self) {
        self.rx = None;
        self.since = None;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn wait_ready<T>(p: &mut Pending<T>) -> JobState<T> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match p.poll() {
                JobState::Running if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                other => return other,
            }
        }
    }

    #[test]
    fn a_job_result_arrives_once_and_wakes_the_ui() {
        let wakes = Arc::new(AtomicUsize::new(0));
        let w = Arc::clone(&wakes);
        let worker = Worker::start(Arc::new(move || {
            w.fetch_add(1, Ordering::SeqCst);
        }))
        .unwrap();
        let mut p = worker.spawn(async { 41 + 1 });
        assert!(p.is_running());
        assert_eq!(wait_ready(&mut p), JobState::Ready(42));
        assert_eq!(p.poll(), JobState::Idle);
        assert!(!p.is_running());
        assert_eq!(wakes.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn polling_a_slow_job_never_blocks() {
        let worker = Worker::start(Arc::new(|| {})).unwrap();
        let mut p = worker.spawn(async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            "done"
        });
        let t = Instant::now();
        assert_eq!(p.poll(), JobState::Running);
        assert!(t.elapsed() < Duration::from_millis(50));
        assert_eq!(wait_ready(&mut p), JobState::Ready("done"));
    }

    #[test]
    fn a_panicking_job_is_reported_lost() {
        let worker = Worker::start(Arc::new(|| {})).unwrap();
        let mut p: Pending<u8> = worker.spawn(async { panic!("job failed on purpose") });
        assert_eq!(wait_ready(&mut p), JobState::Lost);
        assert_eq!(Pending::<u8>::idle().poll(), JobState::Idle);
    }
}
