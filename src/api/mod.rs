//! Talking to the Partner Payment API: the endpoints table, the message keys and their
//! sentences, the signer, wire types and their reading into the domain's link, the error type,
//! the tolerant decoder, the retry policy and the HTTP client.

pub mod client;
pub mod decode;
pub mod endpoints;
pub mod error;
pub mod keys;
pub mod messages;
pub mod read;
pub mod retry;
pub mod signer;
pub mod wire;
