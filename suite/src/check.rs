//! Before a target is timed, every case is posted to it once and the answer judged: status 200,
//! `expect_body` and every `check_body` text present, `reject_body` absent, and (with
//! `expect_xml`) well-formed XML; an answer that comes gzipped (`answer_gzip`) is inflated
//! first. The answer is read by loadgen's own response parser. A target
//! that cannot be reached at all is an error within seconds. An `https://` target is checked
//! over TLS, its certificate verified against the suite's CA when the suite made it.

use std::io::Read;

use crate::manifest::Case;
use crate::target::Target;

/// How long a checked answer may take, and how large it may be (inflated too).
const ANSWER_LIMITS: loadgen::exchange::Limits = loadgen::exchange::Limits {
    deadline: std::time::Duration::from_secs(60),
    max_body: 256 << 20,
};

/// An HTTP response's status and body.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    /// Inflated, for a case whose answer comes gzipped.
    pub(crate) body: Vec<u8>,
    /// Why a gzipped answer could not be inflated.
    pub(crate) gzip_error: Option<String>,
}

/// Posts `case` to the target once. `Err` when the target cannot be reached or does not speak
/// HTTP (or TLS, for `https://`).
pub(crate) fn post(target: &Target, case: &Case) -> anyhow::Result<Answer> {
    let body = host::file::read_limited(&case.body_file, loadgen::options::MAX_BODY_FILE)?;
    let mut headers = vec![format!("Content-Type: {}", case.content_type)];
    headers.extend(case.headers.iter().cloned());
    let (status, mut body) = loadgen::exchange::exchange(
        &target.url,
        target.ca.as_deref(),
        "POST",
        &headers,
        &body,
        ANSWER_LIMITS,
    )?;
    let mut gzip_error = None;
    if case.answer_gzip && status == 200 {
        let mut inflated = Vec::new();
        let limit = ANSWER_LIMITS.max_body as u64;
        match flate2::read::GzDecoder::new(body.as_slice())
            .take(limit + 1)
            .read_to_end(&mut inflated)
        {
            Ok(_) if inflated.len() as u64 > limit => {
                gzip_error = Some(format!("the answer inflates past {limit} bytes"));
            }
            Ok(_) => body = inflated,
            Err(error) => gzip_error = Some(format!("the answer is not gzip: {error}")),
        }
    }
    Ok(Answer {
        status,
        body,
        gzip_error,
    })
}

/// One request on a connection of its own (`Connection: close`): the answer's status and
/// body. Over TLS the certificate is verified against `ca` when given, else not at all (the
/// suite's own throwaway certificates, or a server the user points it at).
/// What is wrong with `target`'s answer to `case` (to each of a mix's parts), if anything.
pub(crate) fn verdict(target: &Target, case: &Case) -> anyhow::Result<Option<String>> {
    let Some(mix) = &case.mix else {
        return Ok(judge(case, &post(target, case)?));
    };
    for (part, _) in &mix.parts {
        if let Some(reason) = judge(part, &post(target, part)?) {
            return Ok(Some(format!("its part {}: {reason}", part.test)));
        }
    }
    Ok(None)
}

/// Why `answer` is not a right answer to `case`, if it is not.
pub(crate) fn judge(case: &Case, answer: &Answer) -> Option<String> {
    if answer.status != 200 {
        return Some(format!(
            "status {} ({})",
            answer.status,
            snippet(&answer.body)
        ));
    }
    if let Some(error) = &answer.gzip_error {
        return Some(error.clone());
    }
    let body = String::from_utf8_lossy(&answer.body);
    if let Some(expected) = &case.expect_body
        && !body.contains(expected.as_str())
    {
        return Some(format!(
            "no {expected:?} in the answer ({})",
            snippet(&answer.body)
        ));
    }
    for expected in &case.check_body {
        if !body.contains(expected.as_str()) {
            return Some(format!("no {expected:?} in the answer: it is not whole"));
        }
    }
    if let Some(rejected) = &case.reject_body
        && body.contains(rejected.as_str())
    {
        return Some(format!(
            "{rejected:?} in the answer ({})",
            snippet(&answer.body)
        ));
    }
    if case.expect_xml
        && let Err(error) = well_formed(&answer.body)
    {
        return Some(format!("not well-formed XML: {error}"));
    }
    None
}

fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.char_indices().nth(160) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}

/// Reads every event of `bytes` as XML; the first error, if any.
fn well_formed(bytes: &[u8]) -> Result<(), String> {
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut buffer = Vec::new();
    let mut depth = 0usize;
    let mut roots = 0usize;
    loop {
        match reader.read_event_into(&mut buffer) {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Start(_)) => {
                roots += usize::from(depth == 0);
                depth += 1;
            }
            Ok(quick_xml::events::Event::End(_)) => depth = depth.saturating_sub(1),
            Ok(quick_xml::events::Event::Empty(_)) => roots += usize::from(depth == 0),
            Ok(_) => {}
            Err(error) => {
                return Err(format!("{error} at byte {}", reader.buffer_position()));
            }
        }
        buffer.clear();
    }
    match (depth, roots) {
        (0, 1) => Ok(()),
        (0, 0) => Err("no element".to_owned()),
        (0, _) => Err("more than one root element".to_owned()),
        _ => Err("the document ends inside an element".to_owned()),
    }
}
