//! Exactly-once link creation, the heart of paydesk's reliability.
//!
//! 1. The body bytes are built once from the validated request; the key is `link-{orderNumber}`.
//! 2. Before the first byte is sent, a journal row (key, exact bytes, state `pending`) is
//!    committed durably. If a row for the key is already pending, nothing is sent: a second
//!    submit of the same order never sends a second request.
//! 3. Every attempt is signed afresh; key and bytes never change.
//! 4. The outcome decides the row (the table on `ApiError::disposition`): 2xx → the link goes
//!    to history and the row to `completed` in one transaction; a refusal that proves the
//!    server holds no link → `failed` (the key is free again); key reused → `conflict`; an
//!    unknown outcome → backoff and retry (at least the `Retry-After` asked for), then the row
//!    stays `pending` for the user's Retry, the app's background retry or the next start.
//! 5. Once an attempt of a row had an unknown outcome, the server may hold its link, so an
//!    answer that proves nothing (an auth error, a proxy's 404 page, a redirect) leaves the row
//!    pending instead of failing it: only a rejection of the request itself proves there is no
//!    link. A row that is not freshly begun (a Retry, a resume) always counts as having had one:
//!    a crash may have hidden its last attempt.
//! 6. Pending rows 23 h old become `stale` (the server keeps keys 24 h): a re-send could reach
//!    a server that has forgotten the key, so neither a new create of the same order nor a
//!    resume sends it; only the user's explicit say (`retry_pending` with `force`) does.

use chrono::{DateTime, Utc};
use rand::Rng;

use super::messages::ServiceMessage;
use super::{Desk, DeskError};
use crate::api::client::CallError;
use crate::api::endpoints;
use crate::api::error::{ApiError, Disposition, Prior};
use crate::api::retry::RetryPolicy;
use crate::api::wire::PaymentLink;
use crate::domain::Link;
use crate::domain::link::LinkRequest;
use crate::domain::server_text;
use crate::lang::Lang;
use crate::store::{
    IDEMPOTENCY_RETENTION, JournalBegin, JournalKey, JournalRow, JournalState, NewJournalRow,
    Refusal, StoreError,
};

/// Why a creation did not give a link.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// History already holds a link for this order number from the last 24 hours.
    #[error("order {} already has link {}", .0.order_or_id(), .0.id)]
    AlreadyHasLink(Box<Link>),
    /// A creation of this order is still pending: nothing was sent again.
    #[error("the creation of {key} is still pending; nothing was sent again")]
    InProgress {
        /// The idempotency key.
        key: String,
    },
    /// The server refused the request (the key is free; fix the form and send again).
    #[error(transparent)]
    Rejected(ApiError),
    /// The key was used for another request: this order number already exists on the server.
    #[error("the order number was already used for another request ({key})")]
    Conflict {
        /// The idempotency key.
        key: String,
        /// The link this order has, if history knows it.
        existing: Option<Box<Link>>,
    },
    /// No answer after every attempt, or an answer that does not show whether the link exists:
    /// the row stays pending; Retry re-sends the same bytes with the same key.
    #[error("outcome unknown for {key}: {error}")]
    Unknown {
        /// The idempotency key.
        key: String,
        /// The last attempt's error.
        error: CallError,
    },
    /// The row is 23 hours old: the server may have forgotten the key, so a re-send could make
    /// a second link. Nothing was sent.
    #[error(
        "{key} is older than 23 hours; nothing was sent; check the server before sending it again"
    )]
    Stale {
        /// The idempotency key.
        key: String,
    },
    /// The journal has no such row.
    #[error("no pending creation with key {0}")]
    NotFound(String),
    /// Local failure (database, configuration).
    #[error(transparent)]
    Desk(#[from] DeskError),
}

impl CreateError {
    /// A sentence for the user.
    pub fn sentence(&self, lang: Lang) -> String {
        match self {
            CreateError::AlreadyHasLink(link) => {
                ServiceMessage::AlreadyHasLink.fill(lang, &[("link", &link.url_or_id())])
            }
            CreateError::InProgress { .. } => ServiceMessage::InProgress.get(lang).to_owned(),
            CreateError::Rejected(e) => e.sentence(lang),
            CreateError::Conflict { existing, .. } => match existing {
                Some(l) => ServiceMessage::ConflictWithLink.fill(lang, &[("link", &l.url_or_id())]),
                None => ServiceMessage::Conflict.get(lang).to_owned(),
            },
            CreateError::Unknown { error, .. } => {
                // The server did answer, but with something that does not settle the outcome.
                let answered = matches!(error, CallError::Api(_) | CallError::Redirected { .. });
                let m = if answered {
                    ServiceMessage::UnknownAnswered
                } else {
                    ServiceMessage::UnknownNoAnswer
                };
                m.fill(lang, &[("error", &error.sentence(lang))])
            }
            CreateError::Stale { key } => ServiceMessage::Stale.fill(lang, &[("key", key)]),
            CreateError::NotFound(key) => ServiceMessage::NotFound.fill(lang, &[("key", key)]),
            CreateError::Desk(e) => e.sentence(lang),
        }
    }
}

impl Desk {
    /// Creates the link of `request` exactly once (see the module doc).
    pub async fn create_link(&self, request: &LinkRequest) -> Result<Link, CreateError> {
        let now = self.now();
        let order = request.order_number().to_owned();
        if let Some(existing) = self.recent_link(&order, now)? {
            return Err(CreateError::AlreadyHasLink(Box::new(existing)));
        }
        // A pending row of this order that is past its time must not be taken as in flight.
        self.with_store(|s| s.journal_mark_stale(now))?;
        let row = self.journal_row(request, now);
        match self.with_store(|s| s.journal_begin(&row))? {
            JournalBegin::Started(row) => {
                tracing::debug!(key = %row.begun.key.key, "journal row committed");
                self.drive(row, Prior::Clean).await
            }
            JournalBegin::AlreadyPending(row) => Err(CreateError::InProgress {
                key: row.begun.key.key,
            }),
            JournalBegin::AlreadyDone(row) => Err(self.done_error(row)?),
        }
    }

    /// Journals `request` as [`Desk::create_link`] does and stops before sending, as a crash
    /// would between the two; returns its idempotency key. For the tests of what a desk does
    /// with such a row (the Pending view, a restart's resume).
    #[cfg(any(test, feature = "inspect"))]
    pub fn journal_unsent(&self, request: &LinkRequest) -> Result<String, DeskError> {
        let row = self.journal_row(request, self.now());
        self.with_store(|s| s.journal_begin(&row))?;
        Ok(row.key.key)
    }

    fn journal_row(&self, request: &LinkRequest, now: DateTime<Utc>) -> NewJournalRow {
        NewJournalRow {
            key: self.journal_key(&request.idempotency_key()),
            body: crate::secrets::Redacted(request.body_bytes()),
            order_number: Some(request.order_number().to_owned()),
            amount: Some(request.amount()),
            currency: Some(request.currency()),
            now,
            began_by: self.actor.name().map(str::to_owned),
        }
    }

    /// The user's Retry: re-sends the pending row's exact bytes with its key.
    /// A stale row is re-sent only with `force` (the user checked the server first).
    pub async fn retry_pending(&self, key: &str, force: bool) -> Result<Link, CreateError> {
        let now = self.now();
        // A row past its time is stale even when nothing has marked it yet.
        self.with_store(|s| s.journal_mark_stale(now))?;
        let key = self.journal_key(key);
        let row = self
            .with_store(|s| s.journal().get(&key))?
            .ok_or_else(|| CreateError::NotFound(key.key.clone()))?;
        match row.state {
            JournalState::Pending => self.drive(row, Prior::AfterUnknown).await,
            // The user checked the server: the same bytes and key, sent again.
            JournalState::Stale if force => {
                let row = match self.with_store(|s| s.journal_revive(&key, now)) {
                    Ok(row) => row,
                    Err(e) => return self.settled_elsewhere(&key, e),
                };
                self.drive(row, Prior::AfterUnknown).await
            }
            JournalState::Stale => Err(CreateError::Stale {
                key: row.begun.key.key,
            }),
            _ => Err(self.done_error(row)?),
        }
    }

    /// Sends every pending row of the profile again (start-up, and the app when the connection
    /// comes back); rows past their time become stale and are not sent. Returns each resumed
    /// key with its outcome.
    pub async fn resume_pending(
        &self,
    ) -> Result<Vec<(String, Result<Link, CreateError>)>, DeskError> {
        let now = self.now();
        self.with_store(|s| s.journal_mark_stale(now))?;
        let rows = self.with_store(|s| s.journal().resumable(self.profile_name(), now))?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let key = row.begun.key.key.clone();
            out.push((key, self.drive(row, Prior::AfterUnknown).await));
        }
        Ok(out)
    }

    /// Gives up on a pending (or stale) row; it is kept in the journal as `abandoned`.
    pub fn abandon_pending(&self, key: &str) -> Result<(), DeskError> {
        self.with_store(|s| s.journal_abandon(&self.journal_key(key), self.now()))
            .map(drop)
    }

    /// The error for a row that is already finished.
    fn done_error(&self, row: JournalRow) -> Result<CreateError, DeskError> {
        Ok(match row.state {
            JournalState::Completed => match self.linked(&row)? {
                Some(link) => CreateError::AlreadyHasLink(Box::new(link)),
                None => CreateError::Conflict {
                    key: row.begun.key.key,
                    existing: None,
                },
            },
            JournalState::Pending => CreateError::InProgress {
                key: row.begun.key.key,
            },
            JournalState::Stale => CreateError::Stale {
                key: row.begun.key.key,
            },
            _ => {
                let existing = self.linked(&row)?.map(Box::new);
                CreateError::Conflict {
                    key: row.begun.key.key,
                    existing,
                }
            }
        })
    }

    /// The link history holds for the row's order, if any.
    fn linked(&self, row: &JournalRow) -> Result<Option<Link>, DeskError> {
        if let Some(id) = &row.link_id
            && let Some(stored) = self.with_store(|s| s.links().get(self.profile_name(), id))?
        {
            return Ok(Some(stored.link));
        }
        match &row.begun.order_number {
            Some(order) => self.recent_link(order, row.begun.now),
            None => Ok(None),
        }
    }

    /// The link history holds for `order` from the 24 hours before `at`.
    fn recent_link(
        &self,
        order: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<Link>, DeskError> {
        let since = at - IDEMPOTENCY_RETENTION;
        Ok(self
            .with_store(|s| {
                s.links()
                    .find_recent_by_order(self.profile_name(), order, since)
            })?
            .map(|s| s.link))
    }

    /// The journal key of an idempotency key of link create in this profile.
    fn journal_key(&self, key: &str) -> JournalKey {
        JournalKey::new(self.profile_name(), endpoints::LINK_CREATE.name, key)
    }

    /// Sends the row until an outcome is known or the attempts run out. `prior` says whether an
    /// earlier attempt may have reached the server unanswered (see the module doc, 5). Only one
    /// driver per key runs in this process; a second one returns `InProgress` without sending.
    async fn drive(&self, row: JournalRow, prior: Prior) -> Result<Link, CreateError> {
        let key = row.begun.key.key.clone();
        let Some(_guard) = self.claim(&key) else {
            return Err(CreateError::InProgress { key });
        };
        let policy = self.retry_policy();
        let mut prior = prior;
        let mut attempts_here = 0u32;
        loop {
            attempts_here += 1;
            let result = self
                .client()
                .call::<PaymentLink>(&endpoints::LINK_CREATE, &row.begun.body, Some(&key))
                .await;
            match result {
                Ok(link) => {
                    match self.with_store(|s| s.journal_complete(&row.begun.key, &link, self.now()))
                    {
                        Ok(_) => {}
                        Err(e) if finished_elsewhere(&e) => {
                            // Another process sharing the journal (the app and the CLI) finished
                            // the row first: the server's answer stands; keep it in history.
                            self.with_store(|s| {
                                s.upsert_link(self.profile_name(), &link, self.now())
                            })?;
                        }
                        Err(e) => return Err(e.into()),
                    }
                    tracing::info!(key = %key, link = %link.id, attempts = attempts_here, "link created");
                    return Ok(Link::from(link));
                }
                Err(error) => match error.disposition(prior) {
                    Disposition::Rejected => {
                        let text = error.to_string();
                        if let Err(e) = self.with_store(|s| {
                            s.journal_refused(&row.begun.key, Refusal::Rejected, &text, self.now())
                        }) {
                            return self.settled_elsewhere(&row.begun.key, e);
                        }
                        tracing::info!(key = %key, error = %server_text::excerpt(&text), "link create rejected");
                        return Err(match error {
                            CallError::Api(e) => CreateError::Rejected(e),
                            // Nothing left this machine: a local failure to fix, not a link
                            // whose fate is unknown.
                            e @ CallError::NotSent { .. } => CreateError::Desk(e.into()),
                            other => CreateError::Unknown { key, error: other },
                        });
                    }
                    Disposition::KeyReused => {
                        let text = error.to_string();
                        if let Err(e) = self.with_store(|s| {
                            s.journal_refused(&row.begun.key, Refusal::KeyReused, &text, self.now())
                        }) {
                            return self.settled_elsewhere(&row.begun.key, e);
                        }
                        let existing = self.linked(&row)?.map(Box::new);
                        return Err(CreateError::Conflict { key, existing });
                    }
                    held @ (Disposition::Hold | Disposition::Unknown) => {
                        let text = error.to_string();
                        if let Err(e) = self.with_store(|s| {
                            s.journal_attempt(&row.begun.key, Some(&text), self.now())
                        }) {
                            return self.settled_elsewhere(&row.begun.key, e);
                        }
                        // The server may hold the link from here on; a Hold stops at once (asking
                        // again at once would get the same answer), an Unknown backs off.
                        prior = Prior::AfterUnknown;
                        let jitter = rand::rng().random_range(0..=1000);
                        let wait = (held == Disposition::Unknown)
                            .then(|| policy.delay_after(attempts_here, jitter, error.retry_after()))
                            .flatten();
                        let Some(wait) = wait else {
                            tracing::warn!(key = %key, attempts = attempts_here, error = %server_text::excerpt(&text), "outcome unknown, left pending");
                            return Err(CreateError::Unknown { key, error });
                        };
                        tracing::debug!(key = %key, attempt = attempts_here, wait_ms = wait.as_millis(), "outcome unknown, retrying");
                        tokio::time::sleep(wait).await;
                    }
                },
            }
        }
    }
}

impl Desk {
    /// The row left `pending` while this driver was sending: another process sharing the
    /// journal finished it (or the user abandoned it). Its outcome is this driver's outcome;
    /// any other store error is returned as it is.
    fn settled_elsewhere(&self, key: &JournalKey, error: DeskError) -> Result<Link, CreateError> {
        if !finished_elsewhere(&error) {
            return Err(error.into());
        }
        let row = self
            .with_store(|s| s.journal().get(key))?
            .ok_or_else(|| CreateError::NotFound(key.key.clone()))?;
        if row.state == JournalState::Completed
            && let Some(link) = self.linked(&row)?
        {
            return Ok(link);
        }
        Err(self.done_error(row)?)
    }
}

/// Whether a store error says the journal row is no longer pending.
fn finished_elsewhere(error: &DeskError) -> bool {
    matches!(error, DeskError::Store(StoreError::JournalState { .. }))
}

/// The policy used when none is configured.
pub const DEFAULT_POLICY: RetryPolicy = RetryPolicy::LINK_CREATE;
