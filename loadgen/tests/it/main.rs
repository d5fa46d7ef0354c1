//! Integration tests of loadgen: the command line, the response parser, the report's text, and
//! the binary against misbehaving test servers and beside ab, and `loadgen suite`.

mod ab;
mod cli;
mod http;
mod report;
mod runs;
mod servers;
mod suite;
