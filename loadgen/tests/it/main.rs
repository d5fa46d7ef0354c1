//! Integration tests of the loadgen library: the command line into typed options, the response
//! parser, ab's accounting, the report's text, and merging made-up shards. The binary's runs
//! against misbehaving servers, beside ab, in shards and with deploy/ are `loadgen-cli`'s tests.

mod checks;
mod cli;
mod http;
mod http2;
mod merge;
mod report;
mod stats;
