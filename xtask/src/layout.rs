//! `cargo xtask check-layout`: the structure docs/ARCHITECTURE.md promises, checked: no module of
//! loadgen, suite, wstest or server uses (or links to) a module that uses it back, directly or
//! round a longer cycle; and no source file of loadgen or suite is longer than 600 lines (past
//! that a file usually holds two ideas).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context as _, bail};

use crate::workspace;

/// No module cycles, no overlong files.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {}

/// The crates whose modules may form no cycle.
const ACYCLIC: [&str; 4] = ["loadgen", "suite", "wstest", "server"];
/// The crates whose files may not pass [`MAX_LINES`].
const SHORT_FILES: [&str; 2] = ["loadgen", "suite"];
const MAX_LINES: usize = 600;

pub(crate) fn run(_: &Args) -> anyhow::Result<()> {
    let faults = faults()?;
    if faults.is_empty() {
        println!(
            "layout: no module cycles in {}; no file over {MAX_LINES} lines in {}",
            ACYCLIC.join(", "),
            SHORT_FILES.join(", ")
        );
        Ok(())
    } else {
        bail!("{}", faults.join("\n"))
    }
}

/// Every module cycle and overlong file, each said in a line.
fn faults() -> anyhow::Result<Vec<String>> {
    let mut faults = Vec::new();
    for name in ACYCLIC {
        let modules = modules(&workspace::root().join(name).join("src"))?;
        for cycle in cycles(&modules) {
            faults.push(format!(
                "{name}: modules {} use each other",
                cycle.join(" -> ")
            ));
        }
    }
    for name in SHORT_FILES {
        for (path, text) in sources(&workspace::root().join(name).join("src"))? {
            let lines = text.lines().count();
            if lines > MAX_LINES {
                faults.push(format!(
                    "{}: {lines} lines (at most {MAX_LINES})",
                    path.display()
                ));
            }
        }
    }
    Ok(faults)
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
