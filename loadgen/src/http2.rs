//! HTTP/2's client side as bytes in, bytes out (RFC 9113): frames, flow control and HPACK for
//! a load generator that sends one request again and again.
//!
//! - [`client`]: the connection's state ([`Client`]): the preface and settings, a request's
//!   frames from a block encoded once, the server's frames read into [`Event`]s, windows both
//!   ways, and every protocol error the server can make, as an [`Http2Error`]; its
//!   `receive` submodule reads the server's frames.
//! - [`frame`]: the framing constants (preface, frame types, flags, limits) and error codes.
//! - [`hpack`]: the server's header blocks decoded (with the dynamic table); the request's
//!   block encoded once.
//! - [`huffman`]: HPACK's Huffman code.
//!
//! Why not the h2 crate: measured against h2load with 10 streams a connection, loadgen on h2
//! spent 1.10-1.16 times h2load's CPU a request (docs/results/tls-h2.md), the difference in
//! h2's per-request header encoding, frame buffers and stream bookkeeping. A client that
//! sends one request needs none of it: its header block is the same bytes every time.

pub mod client;
pub mod frame;
pub mod hpack;
pub mod huffman;

pub use self::client::{Client, Event, Http2Error, Request};
