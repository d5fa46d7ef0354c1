//! The WSDL reader on any documents: the input is a WSDL and the documents it may import,
//! separated by NUL bytes and named `0.xsd`, `1.xsd`, ... in order (the first byte picks
//! `--size`, 1 to 4). Every WSDL gives cases or an error, never a panic, a stack overflow or a
//! hang; every body it writes is well-formed XML within the cases' limit, every test and file
//! name is its own, and no action carries what a header cannot.
#![no_main]

use std::collections::HashMap;
use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use wsdl::{Location, Options};

struct Memory(HashMap<PathBuf, String>);

impl wsdl::Loader for Memory {
    fn load(&mut self, location: &Location) -> Result<String, String> {
        match location {
            Location::File(path) => self.0.get(path).cloned().ok_or_else(|| "none".to_owned()),
            Location::Url(_) => Err("no network".to_owned()),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let mut documents = HashMap::new();
    for (index, text) in rest.split(|&b| b == 0).enumerate() {
        let name = if index == 0 {
            "w.wsdl".to_owned()
        } else {
            format!("{}.xsd", index - 1)
        };
        documents.insert(
            PathBuf::from(name),
            String::from_utf8_lossy(text).into_owned(),
        );
    }
    let options = Options {
        size: u32::from(first % 4) + 1,
        binding: None,
        strict: false,
        allow_hosts: Vec::new(),
    };
    let Ok(generated) = wsdl::generate(
        &Location::File(PathBuf::from("w.wsdl")),
        &mut Memory(documents),
        &options,
    ) else {
        return;
    };
    let mut total = 0;
    let mut tests = std::collections::HashSet::new();
    let mut files = std::collections::HashSet::new();
    for case in &generated.cases {
        total += case.body.len();
        if let Err(error) = roxmltree::Document::parse(&case.body) {
            panic!("{}: a malformed body ({error}):\n{}", case.test, case.body);
        }
        assert!(tests.insert(case.test.clone()), "two tests {}", case.test);
        assert!(
            files.insert(case.file.to_lowercase()),
            "two files {}",
            case.file
        );
        for header in case.headers.iter().chain([&case.content_type]) {
            assert!(
                !header.chars().any(|ch| ch.is_control()),
                "{header:?}"
            );
        }
    }
    assert!(total <= wsdl::MAX_CASE_BYTES, "{total} bytes");
    // The manifest is TOML that reads back.
    let manifest = wsdl::manifest(&generated.cases, "w.wsdl");
    assert!(manifest.parse::<toml::Table>().is_ok(), "{manifest}");
});
