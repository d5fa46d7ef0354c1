//! loadgen's command line on any arguments (NUL separates them): an answer or a usage error,
//! never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args: Vec<String> = std::iter::once("loadgen".to_owned())
        .chain(
            data.split(|&b| b == 0)
                .map(|arg| String::from_utf8_lossy(arg).into_owned()),
        )
        .collect();
    let _ = loadgen::cli::parse(&args);
});
