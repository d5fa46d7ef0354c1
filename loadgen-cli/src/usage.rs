//! The usage text that `-h` and a usage error print: ab's, with loadgen's long options after
//! it, the options' lines from `loadgen::cli::flags`.

use loadgen::cli::flags::usage_lines;

/// The usage text for `program`.
pub(crate) fn usage(program: &str) -> String {
    format!(
        "Usage: {program} [options] [http[s]://]hostname[:port]/path
       {program} merge [--json FILE] [-e FILE] FILE.json [FILE.json ...]
Options are:
{}loadgen's own options (long only, so that no ab flag is shadowed):
{}",
        usage_lines(false),
        usage_lines(true)
    )
}
