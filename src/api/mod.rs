//! Talking to the Partner Payment API: the endpoints table, the message keys, the signer,
//! and (in sibling modules) wire types, the error type and the tolerant decoder.

pub mod endpoints;
pub mod keys;
pub mod retry;
pub mod signer;
pub mod wire;
