//! Integration tests of loadgen: the command line, the response parser, ab's accounting, the
//! report's text, the binary against misbehaving test servers and beside ab, shards and
//! merging, and `loadgen suite`.

mod ab;
mod cli;
mod http;
mod report;
mod runs;
mod servers;
mod shards;
mod stats;
mod suite;
