//! Talking to the Partner Payment API: the endpoints table, the message keys, the signer,
//! and (in sibling modules) wire types, the error type and the tolerant decoder.

pub mod decode;
pub mod endpoints;
pub mod error;
pub mod keys;
pub mod messages;
pub mod signer;
pub mod wire;
