//! What a document is (a request or a response of one operation) and its model, as every
//! binding and encoding must read it.

use wstest::operation::{Operation, Request, Response};

/// A request or a response of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub operation: Operation,
    pub response: bool,
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.response { "response" } else { "request" };
        write!(f, "{} {what}", self.operation)
    }
}

/// The model of one message.
// Built once per decode and never stored in bulk, like wstest's `Response`.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Message<'a> {
    Request(Request<'a>),
    Response(Response<'a>),
}
