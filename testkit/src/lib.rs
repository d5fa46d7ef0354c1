//! Helpers shared by the integration tests of every crate in the workspace (a dev-dependency
//! only; nothing here ships).
//!
//! - [`require_tool`]: a test that needs a program from outside Rust (`ab`, `xmllint`) fails with
//!   the Debian package to install, unless the run opts out with [`SKIP_TOOLS_VAR`].
//! - [`Rng`]: a small deterministic generator, so that a failure names its seed.
//! - [`corpus`]: the hostile-input corpus's manifest and files.
//! - [`certs`]: a throwaway CA and server certificate for TLS tests.
//! - [`h2_frames`]: HTTP/2 frames written by hand.
//! - [`servers`]: small HTTP servers that misbehave on purpose, for load clients to meet.
//! - [`workspace_bin`]: a binary of this workspace, built when a test needs it.
//! - [`check_expected`]: a snapshot file compared with what a test made.
//! - [`prometheus_sample`]: one sample's value in a Prometheus text exposition.

pub mod certs;
pub mod corpus;
pub mod h2_frames;
pub mod servers;

use std::process::{Command, Stdio};

/// Set to `1` to let the tests that need a missing external tool pass over it (with a note on
/// stderr) instead of failing.
pub const SKIP_TOOLS_VAR: &str = "WSTEST_SKIP_EXTERNAL_TOOLS";

/// Whether `program` runs (checked with `program version_arg`). When it does not, the test
/// fails with a message naming `debian_package`, unless [`SKIP_TOOLS_VAR`] is `1`: then this
/// returns `false` and the caller returns without checking what it could not.
#[track_caller]
pub fn require_tool(program: &str, version_arg: &str, debian_package: &str) -> bool {
    let runs = Command::new(program)
        .arg(version_arg)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if runs {
        return true;
    }
    if std::env::var(SKIP_TOOLS_VAR).is_ok_and(|value| value == "1") {
        eprintln!("note: {program} is missing; this test checked nothing ({SKIP_TOOLS_VAR}=1)");
        return false;
    }
    panic!(
        "this test runs `{program}`, which is not installed: install Debian's {debian_package} \
         (scripts/test.sh does it), or set {SKIP_TOOLS_VAR}=1 to pass over such tests"
    );
}

/// A small deterministic generator (xorshift64*), so that a failure names its seed.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One of `items`, which must not be empty.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The binary `name` of the workspace's package `package`, in the running test's own target
/// folder: how one crate's tests run another package's binary. `cargo test -p one-package`
/// builds no other package's binaries, so one older than a source is built with cargo first,
/// and a test never runs a stale one.
pub fn workspace_bin(name: &str, package: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    // target/PROFILE/deps/it-HASH -> target/PROFILE/NAME
    let dir = exe
        .parent()
        .and_then(std::path::Path::parent)
        .expect("a test binary lives in target/PROFILE/deps");
    let path = dir.join(name);
    // Once per test process and binary: cargo's check that nothing changed costs a few hundred
    // milliseconds, and the tests of a binary ask for it many times.
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if built.iter().any(|done| done == name) {
        return path;
    }
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let built_at = std::fs::metadata(&path)
        .and_then(|meta| meta.modified())
        .ok();
    if built_at.is_some_and(|at| newest_source(&workspace).is_some_and(|newest| newest <= at)) {
        // Newer than every source and manifest: cargo would find it up to date. (Asking cargo
        // anyway can cost a build: `cargo test --workspace` unifies features across the
        // workspace, and a build of one package does not.)
        built.push(name.to_owned());
        return path;
    }
    let profile = dir
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("debug");
    let target_dir = dir.parent().expect("target/PROFILE has a parent");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let mut command = Command::new(cargo);
    command
        .args([
            "build",
            "-q",
            "-p",
            package,
            "--bin",
            name,
            "--manifest-path",
        ])
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir);
    if profile == "release" {
        command.arg("--release");
    }
    let status = command.status().expect("running cargo build");
    assert!(status.success(), "building {name} ({package})");
    built.push(name.to_owned());
    path
}

/// When the newest Rust source, manifest or lock file of the workspace at `root` changed.
fn newest_source(root: &std::path::Path) -> Option<std::time::SystemTime> {
    let mut newest = None;
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).ok()?.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.is_dir() {
                // Build output, fuzzing and version control hold no source of these binaries.
                let skipped = ["target", "fuzz", ".git", "node_modules", "build"];
                if !skipped.contains(&name.as_ref()) {
                    folders.push(path);
                }
            } else if name.ends_with(".rs") || name == "Cargo.toml" || name == "Cargo.lock" {
                let modified = entry.metadata().ok()?.modified().ok()?;
                newest = newest.max(Some(modified));
            }
        }
    }
    newest
}

/// Compares `actual` with the file at `path` (a snapshot: an expected report or manifest);
/// `UPDATE_EXPECT=1` rewrites the file first, for a change whose diff is then reviewed.
#[track_caller]
pub fn check_expected(path: &std::path::Path, actual: &str) {
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs; run UPDATE_EXPECT=1 cargo test and review the diff\n--- expected\n{expected}--- actual\n{actual}",
        path.display()
    );
}

/// The value of the sample `name` (its labels included, as written) in the Prometheus text
/// `text`; the test fails, showing the text, when there is none or it does not parse.
#[track_caller]
pub fn prometheus_sample<T: std::str::FromStr>(text: &str, name: &str) -> T {
    let value = text
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {name} in\n{text}"));
    value
        .parse()
        .unwrap_or_else(|_| panic!("{name} is {value:?}, not a number of its type, in\n{text}"))
}
