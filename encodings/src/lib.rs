//! The WSTest messages in encodings other than XML (JSON, MessagePack, Avro) and gzip, for
//! wsperf (in memory and over the network) and for the server (chosen by Content-Type). The
//! data is the same model: each payload type converts from and to wstest's.
//!
//! # Map
//! - [`message`]: what a document is ([`Kind`]) and its model ([`Message`]).
//! - [`wire`]: the payload types a Rust team would derive serde on, and their Avro schemas.
//! - [`format`]: each encoding's writer and reader ([`Encoding`], [`format::write`],
//!   [`format::read`]), reading all of the input or refusing it.
//! - [`serve`]: the server's answer in an encoding ([`serve::respond`]).
//! - [`gzip`]: request bodies inflated under a limit, answers deflated.
//! - [`post_files`]: the post files in each encoding, and the manifest of every post file.

pub mod format;
pub mod gzip;
pub mod message;
pub mod post_files;
pub mod serve;
pub mod wire;

pub use format::{AvroSchemas, Encoding};
pub use message::{Kind, Message};
