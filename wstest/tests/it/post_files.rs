//! The checked-in XML post files are exactly what the generator makes (the encodings crate's
//! tests check the others and the manifest). `UPDATE_EXPECT=1 cargo test -p wstest` rewrites
//! them.

use std::path::PathBuf;

use crate::{check_answer, repo_dir};

fn post_files_dir() -> PathBuf {
    repo_dir().join("post_files")
}

#[track_caller]
fn check(name: &str, expected: &[u8]) {
    let path = post_files_dir().join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(post_files_dir()).unwrap();
        std::fs::write(&path, expected).unwrap();
        return;
    }
    let actual =
        std::fs::read(&path).unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
    assert!(
        actual == expected,
        "{} differs from what wstest::post_files generates; run UPDATE_EXPECT=1 cargo test -p wstest",
        path.display()
    );
}

#[test]
fn checked_in_post_files_match_the_generator() {
    for file in wstest::post_files::all() {
        check(file.name, &file.body());
    }
}

#[test]
fn every_post_file_gets_its_answer() {
    for file in wstest::post_files::all() {
        let action = file.operation.soap_action();
        check_answer(file.name, Some(action.as_bytes()), &file.body());
        check_answer(
            file.name,
            Some(format!("\"{action}\"").as_bytes()),
            &file.body(),
        );
        check_answer(file.name, None, &file.body());
    }
}

#[test]
fn post_file_sizes_are_what_their_names_say() {
    for file in wstest::post_files::all() {
        let n = match &file.request {
            wstest::Request::EchoVoid => 0,
            wstest::Request::EchoStruct(items) => items.len(),
            wstest::Request::EchoList(nodes) => nodes.len(),
            wstest::Request::EchoSynthetic(synth) => synth
                .as_ref()
                .and_then(|synth| synth.barray.as_ref())
                .map_or(0, Vec::len),
            wstest::Request::GetOrder(params) => params.message_size as usize,
        };
        assert_eq!(n, file.size, "{}", file.name);
        let digits: String = file.name.chars().filter(char::is_ascii_digit).collect();
        let named = match digits.as_str() {
            "" => 0,
            "1" => 1024,
            digits => digits.parse().unwrap(),
        };
        assert_eq!(n, named, "{}", file.name);
    }
}
