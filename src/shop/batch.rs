//! What the pushers of the outbox share (`push` for links, `audit` for the audit chain,
//! `cards` for saved cards): how many rows go in one PostgreSQL transaction and why a push
//! stopped. Below all three, so none of them imports another for it.

use super::ShopError;
use crate::store::StoreError;

/// Rows sent in one PostgreSQL transaction.
pub const BATCH: usize = 500;

/// Why a push stopped.
#[derive(Debug, thiserror::Error)]
pub enum PushError {
    /// The shop failed; what was acknowledged before stays acknowledged.
    #[error(transparent)]
    Shop(#[from] ShopError),
    /// The local file failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An outbox row holds an amount that is not a decimal (a damaged file).
    #[error("outbox row {seq}: `{value}` is not an amount")]
    Amount {
        /// The row.
        seq: i64,
        /// The text.
        value: String,
    },
}
