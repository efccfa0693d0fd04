//! The sandbox's answer envelopes (docs/design.md §1): success is
//! `{"success": true, "content": {...}}`, an error is
//! `{"success": false, "messageKey": "...", "message": "...", "httpStatus": N}`.
//!
//! Success bodies are serialized once to bytes, so that an idempotent replay sends exactly
//! the bytes of the first answer.

use std::borrow::Cow;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// 400: a money value, or a sum or product of them, that a 96-bit decimal cannot hold exactly
/// at the currency's digits (a sandbox choice: the spec names no key for it).
pub const AMOUNT_OUT_OF_RANGE: &str = "amount.out.of.range";

/// 413: the request body is larger than [`MAX_BODY_BYTES`].
pub const REQUEST_TOO_LARGE: &str = "request.too.large";

/// 403: an admin route asked from another machine, or through a host name that is not this
/// sandbox's (a web page using DNS rebinding).
pub const ADMIN_FORBIDDEN: &str = "sandbox.admin.forbidden";

/// 415: an admin write (any method but `GET` and `HEAD`) without
/// `Content-Type: application/json`, as a web page's cross-site request would be.
pub const ADMIN_CONTENT_TYPE: &str = "sandbox.admin.content.type";

/// The largest request body the sandbox reads (axum's own default, made explicit so the
/// answer can say it).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// A rejection (the sandbox's error answer): HTTP status, message key and a human sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// HTTP status.
    pub status: StatusCode,
    /// Message key, e.g. `items.total.mismatch`.
    pub key: Cow<'static, str>,
    /// Human text.
    pub message: String,
}

impl Rejection {
    /// An error with a static key.
    pub fn new(status: StatusCode, key: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            key: Cow::Borrowed(key),
            message: message.into(),
        }
    }

    /// 400 `{field}.invalid`: a field of the wrong type or shape (a sandbox choice).
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            key: Cow::Owned(format!("{field}.invalid")),
            message: message.into(),
        }
    }

    /// 400 [`AMOUNT_OUT_OF_RANGE`].
    pub fn out_of_range(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, AMOUNT_OUT_OF_RANGE, message)
    }

    /// The JSON body bytes.
    pub fn body(&self) -> Vec<u8> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Body<'a> {
            success: bool,
            message_key: &'a str,
            message: &'a str,
            http_status: u16,
        }
        serde_json::to_vec(&Body {
            success: false,
            message_key: &self.key,
            message: &self.message,
            http_status: self.status.as_u16(),
        })
        .expect("an error envelope of strings always serializes")
    }
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        json_response(self.status, self.body())
    }
}

/// `{"success": true, "content": content}` as bytes.
pub fn success_body<T: Serialize>(content: &T) -> Result<Vec<u8>, Rejection> {
    #[derive(Serialize)]
    struct Body<'a, T> {
        success: bool,
        content: &'a T,
    }
    serde_json::to_vec(&Body {
        success: true,
        content,
    })
    .map_err(|e| {
        Rejection::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "sandbox.internal",
            format!("cannot serialize the answer: {e}"),
        )
    })
}

/// A JSON response with the given status and body bytes.
pub fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Turns axum's plain-text 413 (a body over [`MAX_BODY_BYTES`], refused before any handler
/// runs) into the error envelope every other answer uses.
pub async fn envelope_for_too_large(response: Response) -> Response {
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if response.status() != StatusCode::PAYLOAD_TOO_LARGE || is_json {
        return response;
    }
    Rejection::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        REQUEST_TOO_LARGE,
        format!("the request body is larger than {MAX_BODY_BYTES} bytes"),
    )
    .into_response()
}
