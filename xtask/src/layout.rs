//! `cargo xtask check-layout`: the structure docs/ARCHITECTURE.md promises, checked: no module of
//! a crate uses (or links to) a module that uses it back, directly or round a longer cycle; no
//! source file of any crate is longer than 600 lines (past that a file usually holds two ideas);
//! and no function is longer than 120 lines unless [`LONG_FUNCTIONS`] names it with the reason
//! it stays whole (an entry whose function has shrunk or gone is a fault too, so the list stays
//! true).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context as _, bail};

use crate::workspace;

/// No module cycles, no overlong files.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {}

const MAX_LINES: usize = 600;
const MAX_FUNCTION_LINES: usize = 120;

/// The functions allowed past [`MAX_FUNCTION_LINES`]: file, name, and why it stays whole.
const LONG_FUNCTIONS: [(&str, &str, &str); 6] = [
    (
        "testkit/src/servers.rs",
        "serve",
        "the test server's misbehaviours, one match arm each: read as a table",
    ),
    (
        "loadgen/src/report.rs",
        "ab_text",
        "ab's report line by line in ab's order, so that it reads beside ab's source",
    ),
    (
        "wstest/src/fast_lexer.rs",
        "start_tag",
        "the fast lexer's one pass over a start tag and its attributes, on the hottest path: a split would carry its cursor and bindings through calls",
    ),
    (
        "wstest/src/lexer.rs",
        "next_token",
        "quick-xml's events mapped to tokens, one match arm per event",
    ),
    (
        "suite/src/chart/latency_rate.rs",
        "draw",
        "plotters' builder calls for one chart, in drawing order",
    ),
    (
        "wsperf/src/chart.rs",
        "draw",
        "plotters' builder calls for one chart, in drawing order",
    ),
];

pub(crate) fn run(_: &Args) -> anyhow::Result<()> {
    let faults = faults()?;
    if faults.is_empty() {
        println!(
            "layout: in every crate, no module cycle, no file over {MAX_LINES} lines, no function over {MAX_FUNCTION_LINES} lines but the {} allowed",
            LONG_FUNCTIONS.len()
        );
        Ok(())
    } else {
        bail!("{}", faults.join("\n"))
    }
}

/// Every module cycle, overlong file and overlong function, each said in a line.
fn faults() -> anyhow::Result<Vec<String>> {
    let root = workspace::root();
    let mut faults = Vec::new();
    let mut allowed_seen = BTreeSet::new();
    for name in members(&root)? {
        let src = root.join(&name).join("src");
        for cycle in cycles(&modules(&src)?) {
            faults.push(format!(
                "{name}: modules {} use each other",
                cycle.join(" -> ")
            ));
        }
        for (path, text) in sources(&src)? {
            let relative = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            let lines = text.lines().count();
            if lines > MAX_LINES {
                faults.push(format!("{relative}: {lines} lines (at most {MAX_LINES})"));
            }
            for (function, length) in long_functions(&text, MAX_FUNCTION_LINES) {
                let allowed = LONG_FUNCTIONS
                    .iter()
                    .any(|&(file, name, _)| file == relative && name == function);
                if allowed {
                    allowed_seen.insert((relative.clone(), function));
                } else {
                    faults.push(format!(
                        "{relative}: fn {function} is {length} lines (at most {MAX_FUNCTION_LINES}, or named in LONG_FUNCTIONS with a reason)"
                    ));
                }
            }
        }
    }
    for (file, name, _) in LONG_FUNCTIONS {
        if !allowed_seen.contains(&(file.to_owned(), name.to_owned())) {
            faults.push(format!(
                "{file}: fn {name} is allowed in LONG_FUNCTIONS but is no longer over {MAX_FUNCTION_LINES} lines: drop the entry"
            ));
        }
    }
    Ok(faults)
}

/// The workspace's member crates, as the root Cargo.toml lists them.
fn members(root: &Path) -> anyhow::Result<Vec<String>> {
    let manifest: toml::Table = std::fs::read_to_string(root.join("Cargo.toml"))?.parse()?;
    let members = manifest
        .get("workspace")
        .and_then(|workspace| workspace.get("members"))
        .and_then(|members| members.as_array())
        .context("the root Cargo.toml lists no workspace members")?;
    Ok(members
        .iter()
        .filter_map(|member| member.as_str().map(str::to_owned))
        .collect())
}

/// The functions of a rustfmt-formatted file longer than `limit` lines, with their lengths: a
/// line that opens `fn NAME` (after `pub`, `const`, `async` or `unsafe`) and does not end with
/// `;` or `}`, to the first line after it that is its indentation and `}`.
fn long_functions(text: &str, limit: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let mut rest = body;
        for qualifier in [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "const ",
            "async ",
            "unsafe ",
        ] {
            rest = rest.strip_prefix(qualifier).unwrap_or(rest);
        }
        let Some(after_fn) = rest.strip_prefix("fn ") else {
            continue;
        };
        // A declaration, or a body on the one line.
        if line.trim_end().ends_with(';') || line.trim_end().ends_with('}') {
            continue;
        }
        let name: String = after_fn
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        if let Some(end) = lines[at + 1..].iter().position(|line| *line == close) {
            let length = end + 2;
            if length > limit {
                found.push((name, length));
            }
        }
    }
    found
}

/// Every `.rs` file below `dir`, with its text.
fn sources(dir: &Path) -> anyhow::Result<Vec<(std::path::PathBuf, String)>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path)?;
                files.push((path, text));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The crate's top-level modules (a file `src/a.rs` and everything under `src/a/` is module
/// `a`; `lib.rs` and `main.rs` are the root, which may name every module), each with the other
/// top-level modules it names as `crate::NAME`.
fn modules(src: &Path) -> anyhow::Result<BTreeMap<String, BTreeSet<String>>> {
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for (path, text) in sources(src)? {
        let relative = path.strip_prefix(src)?;
        let first = relative
            .components()
            .next()
            .and_then(|part| part.as_os_str().to_str())
            .unwrap_or_default()
            .trim_end_matches(".rs")
            .to_owned();
        if first == "lib" || first == "main" || first == "bin" {
            continue;
        }
        texts.entry(first).or_default().push_str(&text);
    }
    let names: BTreeSet<String> = texts.keys().cloned().collect();
    Ok(texts
        .iter()
        .map(|(module, text)| {
            let used = text
                .match_indices("crate::")
                .map(|(at, _)| {
                    text[at + "crate::".len()..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .filter(|name| name != module && names.contains(name))
                .collect();
            (module.clone(), used)
        })
        .collect())
}

/// The cycles of the graph, one path each (from the first module of the cycle back to it).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut seen_in_cycle = BTreeSet::new();
    for start in graph.keys() {
        if seen_in_cycle.contains(start) {
            continue;
        }
        // Depth-first from `start`, looking for a path back to it.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut visited = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            for next in &graph[&node] {
                if next == start {
                    let mut cycle = path.clone();
                    cycle.push(start.clone());
                    seen_in_cycle.extend(path.iter().cloned());
                    found.push(cycle);
                    stack.clear();
                    break;
                }
                if visited.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    /// The function lengths of a made-up file: a long one found with its length, a short one
    /// and a declaration without a body not.
    #[test]
    fn long_functions_are_measured_from_fn_to_its_brace() {
        let body = "        x();\n".repeat(5);
        let text = format!(
            "pub(crate) async fn long() {{\n{body}}}\n\nfn short() {{}}\n\ntrait T {{\n    fn declared(&self);\n    fn provided(&self) {{\n{body}    }}\n}}\n"
        );
        assert_eq!(
            super::long_functions(&text, 6),
            vec![("long".to_owned(), 7), ("provided".to_owned(), 7)]
        );
        assert!(super::long_functions(&text, 7).is_empty());
    }

    /// The workspace as it is: `cargo test --workspace` (and so CI) keeps the layout.
    #[test]
    fn the_workspace_has_no_module_cycle_and_no_overlong_file() {
        let faults = super::faults().unwrap();
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    /// The cycle search on made-up graphs: a cycle of three is found, a diamond is not one.
    #[test]
    fn cycles_are_found_and_diamonds_are_not() {
        let graph = |edges: &[(&str, &str)]| {
            let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (from, to) in edges {
                graph
                    .entry((*from).to_owned())
                    .or_default()
                    .insert((*to).to_owned());
                graph.entry((*to).to_owned()).or_default();
            }
            graph
        };
        let cycle = super::cycles(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]));
        assert_eq!(cycle, vec![vec!["a", "b", "c", "a"]]);
        let diamond = graph(&[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")]);
        assert!(super::cycles(&diamond).is_empty());
    }
}
