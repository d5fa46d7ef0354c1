//! The suite's matrix comes from a manifest (by default `post_files/manifest.toml`): one
//! `[[file]]` per case, naming the body file and everything needed to post it and to judge the
//! answer, and one `[[mix]]` per weighted mix of those (`parts = {EchoStruct-20 = 70,
//! GetOrder-20 = 30}`), checked part by part and timed as one cell. The suite reads these as
//! data; what they mean (SOAP, here) is the manifest's business.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use loadgen::mix::Mix;
use serde::Deserialize;

/// One case of the matrix.
#[derive(Debug, Clone)]
pub struct Case {
    /// The test's name in tables and charts (`EchoStruct-20`).
    pub test: String,
    pub body_file: PathBuf,
    pub content_type: String,
    pub headers: Vec<String>,
    pub expect_body: Option<String>,
    pub reject_body: Option<String>,
    /// The answer must be well-formed XML.
    pub expect_xml: bool,
    /// Texts the checked answer must also hold (the check only; not looked for in every
    /// timed response).
    pub check_body: Vec<String>,
    /// The answer comes gzipped (the request asked for it): the check inflates it before
    /// judging it.
    pub answer_gzip: bool,
    /// Answers may differ in length from one to the next (ab's and loadgen's `-l`).
    pub variable_length: bool,
    /// Run only when `--tests` names it (the encodings beside the WSTest matrix).
    pub only_when_named: bool,
    /// A `[[mix]]`: its parts, each a `[[file]]` case and its weight, and the mix that
    /// loadgen's `--mix` reads. The fields above are then the first part's.
    pub mix: Option<MixCase>,
}

/// The parts of a mix case, the mix loadgen runs, and its file once [`MixFiles`] wrote it.
#[derive(Debug, Clone)]
pub struct MixCase {
    pub parts: Vec<(Case, u32)>,
    pub mix: Mix,
    pub file: Option<PathBuf>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(rename = "file")]
    entries: Vec<Entry>,
    #[serde(default, rename = "mix")]
    mixes: Vec<MixEntry>,
}

/// `[[mix]]`: a test of several `[[file]]` tests at once, by weight.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MixEntry {
    name: toml::Spanned<String>,
    /// Test names and weights (the report lists them in name order).
    parts: toml::Spanned<std::collections::BTreeMap<String, u32>>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    only_when_named: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: toml::Spanned<String>,
    test: toml::Spanned<String>,
    content_type: String,
    #[serde(default)]
    headers: Vec<String>,
    expect_body: Option<String>,
    reject_body: Option<String>,
    #[serde(default)]
    expect_xml: bool,
    #[serde(default)]
    check_body: Vec<String>,
    #[serde(default)]
    answer_gzip: bool,
    #[serde(default)]
    variable_length: bool,
    #[serde(default)]
    only_when_named: bool,
    // Described for scripts and people; the suite does not use them.
    #[serde(default, rename = "operation")]
    _operation: Option<String>,
    #[serde(default, rename = "soap_action")]
    _soap_action: Option<String>,
    #[serde(default, rename = "size")]
    _size: Option<u64>,
    #[serde(default, rename = "bytes")]
    _bytes: Option<u64>,
}

/// The largest manifest read (WSTest's is 6 KB; one of a thousand operations about 300 KB).
const MAX_MANIFEST: u64 = 16 << 20;

/// Reads the manifest at `path`; body files are found beside it. Errors name the file and line.
pub fn read(path: &Path) -> anyhow::Result<Vec<Case>> {
    let text = host::file::read_text_limited(path, MAX_MANIFEST)
        .with_context(|| format!("cannot read the manifest {}", path.display()))?;
    parse(&text, path)
}

fn parse(text: &str, path: &Path) -> anyhow::Result<Vec<Case>> {
    // toml's messages already say "at line N, column M".
    let file: File =
        toml::from_str(text).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let line_of = |span: std::ops::Range<usize>| text[..span.start].lines().count().max(1);
    let mut cases: Vec<Case> = Vec::with_capacity(file.entries.len());
    let mut tests: Vec<&toml::Spanned<String>> = Vec::new();
    for entry in &file.entries {
        let test = &entry.test;
        if let Some(first) = tests.iter().find(|seen| seen.get_ref() == test.get_ref()) {
            bail!(
                "{}:{}: test {:?} is already named at line {}",
                path.display(),
                line_of(test.span()),
                test.get_ref(),
                line_of(first.span())
            );
        }
        tests.push(test);
        // What goes into a request's head from this file: nothing that could end a line.
        for header in &entry.headers {
            loadgen::options::Header::parse(header).map_err(|why| {
                anyhow::anyhow!("{}:{}: {why}", path.display(), line_of(test.span()))
            })?;
        }
        if let Some(bad) = entry.content_type.chars().find(|ch| ch.is_control()) {
            bail!(
                "{}:{}: the content type holds {bad:?}, which a header cannot carry",
                path.display(),
                line_of(test.span())
            );
        }
        let body_file = dir.join(entry.name.get_ref());
        if !body_file.is_file() {
            bail!(
                "{}:{}: no body file {}",
                path.display(),
                line_of(entry.name.span()),
                body_file.display()
            );
        }
        cases.push(Case {
            test: test.get_ref().clone(),
            body_file,
            content_type: entry.content_type.clone(),
            headers: entry.headers.clone(),
            expect_body: entry.expect_body.clone(),
            reject_body: entry.reject_body.clone(),
            expect_xml: entry.expect_xml,
            check_body: entry.check_body.clone(),
            answer_gzip: entry.answer_gzip,
            variable_length: entry.variable_length,
            only_when_named: entry.only_when_named,
            mix: None,
        });
    }
    if cases.is_empty() {
        bail!("{}: no [[file]] entries", path.display());
    }
    for entry in &file.mixes {
        let at = |span: std::ops::Range<usize>| format!("{}:{}", path.display(), line_of(span));
        let name = entry.name.get_ref();
        if cases.iter().any(|case| &case.test == name) {
            bail!("{}: test {name:?} is already named", at(entry.name.span()));
        }
        let mut parts = Vec::new();
        for (test, weight) in entry.parts.get_ref() {
            let Some(case) = cases
                .iter()
                .find(|case| case.mix.is_none() && &case.test == test)
            else {
                bail!(
                    "{}: the mix {name:?} names {test:?}, which is no [[file]]'s test",
                    at(entry.parts.span())
                );
            };
            if *weight == 0 {
                bail!(
                    "{}: the mix {name:?} gives {test:?} a weight of 0",
                    at(entry.parts.span())
                );
            }
            parts.push((case.clone(), *weight));
        }
        let Some(first) = parts.first().map(|(case, _)| case.clone()) else {
            bail!("{}: the mix {name:?} has no parts", at(entry.parts.span()));
        };
        let mix = loadgen_mix(&parts, entry.seed)
            .map_err(|error| anyhow::anyhow!("{}: {error}", at(entry.parts.span())))?;
        cases.push(Case {
            test: name.clone(),
            only_when_named: entry.only_when_named,
            variable_length: parts.iter().any(|(case, _)| case.variable_length),
            mix: Some(MixCase {
                parts,
                mix,
                file: None,
            }),
            ..first
        });
    }
    Ok(cases)
}

/// A mix case as loadgen's `--mix` takes it: each part's body, type, headers and checks.
fn loadgen_mix(parts: &[(Case, u32)], seed: Option<u64>) -> Result<Mix, loadgen::mix::MixError> {
    let parts = parts
        .iter()
        .map(|(case, weight)| loadgen::mix::Part {
            name: case.test.clone(),
            weight: *weight,
            method: http::Method::POST,
            path: None,
            // Absolute: the mix file is read from another folder.
            body_file: Some(std::path::absolute(&case.body_file).unwrap_or(case.body_file.clone())),
            content_type: Some(case.content_type.clone()),
            // Each header was checked when the manifest was read.
            headers: case
                .headers
                .iter()
                .filter_map(|line| loadgen::options::Header::parse(line).ok())
                .collect(),
            expect_status: None,
            expect_body: case.expect_body.clone(),
            reject_body: case.reject_body.clone(),
            check_xpath: Vec::new(),
            check_regex: Vec::new(),
            saves: Vec::new(),
        })
        .collect();
    Mix::new(parts, seed.unwrap_or(loadgen::mix::DEFAULT_SEED))
}

/// The mix files of a suite's mix cases, in a folder of this process's that goes when this
/// does (when the suite ends, however it ends but killed).
#[derive(Debug)]
pub struct MixFiles {
    dir: PathBuf,
}

impl MixFiles {
    /// Writes the mix file of each mix case in `cases` and gives the case its path; `None`
    /// when there is no mix case (and nothing is written).
    pub fn write(cases: &mut [Case]) -> anyhow::Result<Option<MixFiles>> {
        if cases.iter().all(|case| case.mix.is_none()) {
            return Ok(None);
        }
        let dir = std::env::temp_dir().join(format!("loadgen-suite-mixes-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let files = MixFiles { dir };
        for case in cases.iter_mut() {
            let Some(mix) = &mut case.mix else {
                continue;
            };
            let safe: String = case
                .test
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let path = files.dir.join(format!("{safe}.mix"));
            std::fs::write(&path, mix.mix.to_file())
                .with_context(|| format!("cannot write {}", path.display()))?;
            mix.file = Some(path);
        }
        Ok(Some(files))
    }
}

impl Drop for MixFiles {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The cases whose test names are in `names` (when `names` is empty, all but those run only
/// when named), in manifest order; an unknown name is an error that lists the known ones.
pub fn select(cases: Vec<Case>, names: &[String]) -> anyhow::Result<Vec<Case>> {
    if names.is_empty() {
        return Ok(cases
            .into_iter()
            .filter(|case| !case.only_when_named)
            .collect());
    }
    for name in names {
        if !cases
            .iter()
            .any(|case| case.test.eq_ignore_ascii_case(name))
        {
            let known: Vec<&str> = cases.iter().map(|case| case.test.as_str()).collect();
            bail!(
                "no test {name:?} in the manifest (it has {})",
                known.join(", ")
            );
        }
    }
    Ok(cases
        .into_iter()
        .filter(|case| {
            names
                .iter()
                .any(|name| case.test.eq_ignore_ascii_case(name))
        })
        .collect())
}
