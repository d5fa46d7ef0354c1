//! Integration tests of the wstest core: post files, the shared reference requests, round trips
//! and bad inputs.


//! The checked-in post files are exactly what the generator makes.
//! `UPDATE_EXPECT=1 cargo test -p wstest` rewrites them.

use std::path::PathBuf;

fn post_files_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../post_files")
}

#[track_caller]
fn check(name: &str, expected: &[u8]) {
    let path = post_files_dir().join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(post_files_dir()).unwrap();
        std::fs::write(&path, expected).unwrap();
        return;
    }
    let actual = std::fs::read(&path).unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
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
    check("manifest.toml", wstest::post_files::manifest().as_bytes());
}
