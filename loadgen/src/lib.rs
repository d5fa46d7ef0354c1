//! loadgen: an ApacheBench-compatible HTTP/1.x load generator. It knows nothing about SOAP.
//!
//! In progress (issue 3): so far only the command line exists.
//!
//! # Map
//! - [`cli`]: ab's command line (and loadgen's long options) into [`cli::Settings`].

pub mod cli;
