//! Integration tests of loadgen. So far: the command line, as a table of command lines and the
//! settings or errors they give.

mod cli;
