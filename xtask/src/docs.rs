//! `cargo xtask check-docs`: every file, folder, script and xtask command the documentation
//! names exists, so that a reader who follows a page finds what it points at. It reads the
//! pages a reader starts from (README.md, GUIDE.md, RELIABILITY.md, docs/**/README.md and
//! ARCHITECTURE.md, the stacks' READMEs, vendor/README.md) and checks three kinds of reference:
//! a Markdown link to a local file (relative to its page), a path from the repository's root
//! that starts with one of its top folders (`scripts/run.sh`, `server/tests/hostile/`), and
//! `cargo xtask NAME`. A path with a placeholder in it (a segment in capitals such as `DIR` or
//! `DATE-TIME`, or a `*`) names no one file and is passed over when there is no such file.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use anyhow::Context as _;
use clap::CommandFactory as _;

use crate::workspace;

/// Every file, script and xtask command the documentation names exists.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {}

pub(crate) fn run(_args: &Args) -> anyhow::Result<()> {
    let faults = faults(&workspace::root())?;
    if faults.is_empty() {
        println!("check-docs: every reference of the documentation exists");
        return Ok(());
    }
    for fault in &faults {
        eprintln!("{fault}");
    }
    anyhow::bail!("{} reference(s) to nothing", faults.len())
}

/// The top folders of the repository a path from its root may start with.
const TOP_FOLDERS: &[&str] = &[
    "ceiling",
    "charts",
    "deploy",
    "docs",
    "encodings",
    "fuzz",
    "host",
    "loadgen",
    "loadgen-cli",
    "post_files",
    "scripts",
    "serde-bindings",
    "server",
    "suite",
    "testkit",
    "tls",
    "vendor",
    "wsperf",
    "wstest",
    "xtask",
];

/// Every reference to nothing, as `page: reference`.
fn faults(root: &Path) -> anyhow::Result<Vec<String>> {
    let commands: BTreeSet<String> = crate::Task::command()
        .get_subcommands()
        .map(|command| command.get_name().to_owned())
        .collect();
    let mut faults = Vec::new();
    for page in pages(root)? {
        let text =
            fs::read_to_string(root.join(&page)).with_context(|| format!("reading {page}"))?;
        let dir = Path::new(&page).parent().unwrap_or(Path::new(""));
        for reference in references(&text) {
            let missing = match &reference {
                Reference::Link(target) => !root.join(dir).join(target).exists(),
                Reference::RootPath(path) => !root.join(path).exists() && !is_placeholder(path),
                Reference::Xtask(name) => !commands.contains(name),
            };
            if missing {
                faults.push(format!("{page}: {reference:?}"));
            }
        }
    }
    Ok(faults)
}

/// The pages checked, relative to the root.
fn pages(root: &Path) -> anyhow::Result<Vec<String>> {
    let mut pages: Vec<String> = [
        "README.md",
        "GUIDE.md",
        "RELIABILITY.md",
        "vendor/README.md",
    ]
    .iter()
    .map(|page| (*page).to_owned())
    .collect();
    for folder in ["docs", "scripts/stacks"] {
        markdown_under(root, folder, &mut pages)?;
    }
    pages.retain(|page| root.join(page).is_file());
    pages.sort();
    pages.dedup();
    Ok(pages)
}

/// The Markdown pages under `folder`, not descending into what a stack's setup installs.
fn markdown_under(root: &Path, folder: &str, pages: &mut Vec<String>) -> anyhow::Result<()> {
    let entries = fs::read_dir(root.join(folder)).with_context(|| format!("listing {folder}"))?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{folder}/{name}");
        if entry.file_type()?.is_dir() {
            if !matches!(name.as_str(), "build" | "node_modules" | "target") {
                markdown_under(root, &path, pages)?;
            }
        } else if name == "README.md" || name == "ARCHITECTURE.md" {
            pages.push(path);
        }
    }
    Ok(())
}

#[derive(Debug, PartialEq, Eq)]
enum Reference {
    /// `[text](target)`, relative to the page.
    Link(String),
    /// A path from the repository's root.
    RootPath(String),
    /// `cargo xtask NAME`.
    Xtask(String),
}

fn references(text: &str) -> Vec<Reference> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("](") {
        let target: String = text[at + 2..].chars().take_while(|&c| c != ')').collect();
        let target = target.split('#').next().unwrap_or("");
        if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            found.push(Reference::Link(target.to_owned()));
        }
    }
    for (at, _) in text.match_indices("cargo xtask ") {
        let name: String = text[at + 12..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        if !name.is_empty() {
            found.push(Reference::Xtask(name));
        }
    }
    let bytes = text.as_bytes();
    for (start, _) in text.char_indices() {
        let after_boundary = start == 0 || !is_path_char(bytes[start - 1] as char);
        // After `(` it is a link's target, read above; after `:` a path at a commit
        // (`04d732e^:scripts/bench-server.sh`, for `git show`), which need not exist now.
        if !after_boundary || (start > 0 && matches!(bytes[start - 1], b'(' | b':')) {
            continue;
        }
        let path: String = text[start..]
            .chars()
            .take_while(|&c| is_path_char(c))
            .collect();
        let path = path.trim_end_matches(['.', ',', ':', ';']);
        let Some((top, rest)) = path.split_once('/') else {
            continue;
        };
        if TOP_FOLDERS.contains(&top) && !rest.is_empty() {
            found.push(Reference::RootPath(path.to_owned()));
        }
    }
    found
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '*')
}

/// A path that stands for many, when no such file is there: a segment in capitals (`DIR`,
/// `DATE-TIME`, `NAME.md`) or a wildcard. (`README.md` is in capitals too, and is checked
/// since it exists.)
fn is_placeholder(path: &str) -> bool {
    path.contains('*')
        || path.split('/').any(|segment| {
            let stem = segment.split('.').next().unwrap_or("");
            stem.len() > 1
                && stem.chars().any(|c| c.is_ascii_uppercase())
                && stem
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '-' || c == '_' || c.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::Reference::{Link, RootPath, Xtask};
    use super::{Reference, is_placeholder, references};

    /// The workspace as it is: `cargo test --workspace` (and so CI) keeps the documentation's
    /// references whole.
    #[test]
    fn every_reference_of_the_documentation_exists() {
        let faults = super::faults(&crate::workspace::root()).unwrap();
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    /// What is read as a reference, and what is not.
    #[test]
    fn references_are_read_from_links_paths_and_xtask_commands() {
        let cases: &[(&str, &[Reference])] = &[
            (
                "see [the guide](GUIDE.md#exit-codes).",
                &[Link("GUIDE.md".into())],
            ),
            ("[site](https://example.com/x) and [top](#top)", &[]),
            (
                "run `scripts/run.sh --duration 1s`",
                &[RootPath("scripts/run.sh".into())],
            ),
            (
                "in server/tests/hostile/, the corpus.",
                &[RootPath("server/tests/hostile/".into())],
            ),
            (
                "`cargo xtask bench-server [--rounds 3]`",
                &[Xtask("bench-server".into())],
            ),
            ("results/DIR is not under a top folder", &[]),
            ("loadgen / ab and TLS/h2 and http/1.1", &[]),
            ("myscripts/run.sh is not ours", &[]),
            ("`git show 04d732e^:scripts/bench-server.sh`", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(&references(text), expected, "{text}");
        }
    }

    /// Paths that stand for many files, and real ones in capitals.
    #[test]
    fn placeholders_are_told_from_paths() {
        let cases = [
            ("docs/results/DATE-TIME/", true),
            ("scripts/stacks/NAME/start.sh", true),
            ("fuzz/corpus/*", true),
            ("scripts/stacks/README.md", true),
            ("scripts/stacks/gsoap/setup.sh", false),
            ("server/tests/hostile/h2/", false),
        ];
        for (path, expected) in cases {
            assert_eq!(is_placeholder(path), expected, "{path}");
        }
    }
}
