//! loadgen's mix files on any text: a mix or an error naming the line, never a panic; a mix
//! read is written back as a file that reads the same, its names printable and within their
//! bounds, its order picks only its own kinds, and a `[flow]`'s steps are its own parts, each
//! part in one.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use loadgen::mix::{MAX_KINDS, MAX_NAME_CHARS, Mix};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(mix) = Mix::parse(&text, "m.txt", Path::new(""), 1) else {
        return;
    };
    assert!(!mix.parts.is_empty() && mix.parts.len() <= MAX_KINDS);
    for part in &mix.parts {
        assert!(part.name.chars().count() <= MAX_NAME_CHARS);
        assert!(!part.name.chars().any(char::is_control), "{:?}", part.name);
    }
    let again = Mix::parse(&mix.to_file(), "again", Path::new(""), 1)
        .unwrap_or_else(|error| panic!("{error}\n{}", mix.to_file()));
    assert_eq!(again, mix);
    if let Some(flow) = &mix.flow {
        assert!(!flow.steps.is_empty());
        for (index, part) in mix.parts.iter().enumerate() {
            let times: u64 = (flow.steps.iter().filter(|step| step.part == index))
                .map(|step| u64::from(step.times))
                .sum();
            assert!(times > 0 && u64::from(part.weight) == times.min(u64::from(u32::MAX)));
        }
    }
    let picker = mix.picker();
    for ordinal in 0..64 {
        assert!(picker.kind(ordinal * 7919) < mix.parts.len());
    }
});
