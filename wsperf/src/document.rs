//! The documents wsperf measures: WSTest request and response envelopes, read from files or
//! made from the post files by our server's core, each with the model our binding reads from it.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use quick_xml::events::Event;
use wstest::binding::STREAMING;
use wstest::{Binding, DateTime, Reply};

/// The instant that stamps generated GetOrder responses, so that they are the same bytes on
/// every run: 2025-12-02T12:00:00Z.
pub(crate) const NOW: DateTime = DateTime {
    unix_millis: 1_764_676_800_000,
};

pub(crate) use encodings::{Kind, Message};

/// One XML document to measure.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    /// The file name, or for a generated response the post file's name with `-response`.
    pub(crate) name: String,
    pub(crate) xml: Vec<u8>,
    pub(crate) kind: Kind,
    /// How many elements the XML holds, for elements per second.
    pub(crate) n_elements: usize,
}

impl Document {
    /// Reads `xml` as a WSTest request or response; the error says why it is neither.
    pub(crate) fn new(name: String, xml: Vec<u8>) -> anyhow::Result<Document> {
        let n_elements = count_elements(&xml).with_context(|| format!("{name}: not XML"))?;
        let kind = match STREAMING.decode_request(&xml, None) {
            Ok(request) => Kind {
                operation: request.operation(),
                response: false,
            },
            Err(as_request) => match STREAMING.decode_response(&xml) {
                Ok(Reply::Response(response)) => Kind {
                    operation: response.operation(),
                    response: true,
                },
                Ok(Reply::Fault(fault)) => {
                    bail!(
                        "{name}: a SOAP fault ({fault}), not one of the five operations' messages"
                    )
                }
                Err(as_response) => bail!(
                    "{name}: not a WSTest message: as a request, {as_request}; as a response, {as_response}"
                ),
            },
        };
        Ok(Document {
            name,
            xml,
            kind,
            n_elements,
        })
    }

    /// Reads the file at `path`.
    pub(crate) fn read(path: &Path) -> anyhow::Result<Document> {
        let xml = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Document::new(path.display().to_string(), xml)
    }

    /// The model our binding reads, which every other one must match.
    pub(crate) fn model(&self) -> Message<'_> {
        decode_xml(&STREAMING, self.kind, &self.xml).expect("read once when the document was made")
    }
}

/// Decodes `xml` as a message of `kind` with `binding`.
pub(crate) fn decode_xml<'x>(
    binding: &dyn Binding,
    kind: Kind,
    xml: &'x [u8],
) -> Result<Message<'x>, wstest::Fault> {
    if kind.response {
        match binding.decode_response(xml)? {
            Reply::Response(response) => Ok(Message::Response(response)),
            Reply::Fault(fault) => Err(fault),
        }
    } else {
        binding
            .decode_request(xml, Some(kind.operation))
            .map(Message::Request)
    }
}

/// Encodes `message` with `binding`.
pub(crate) fn encode_xml(binding: &dyn Binding, message: &Message<'_>, out: &mut Vec<u8>) {
    match message {
        Message::Request(request) => binding.encode_request(request, out),
        Message::Response(response) => binding.encode_response(response, out),
    }
}

/// Every post file and the response our server writes to it.
pub(crate) fn post_files_and_responses() -> Vec<Document> {
    let mut documents = Vec::new();
    for file in wstest::post_files::all() {
        let body = file.body();
        let response = respond(&body).expect("our server answers its own post files");
        documents.push(Document::new(file.name.to_owned(), body).expect("a post file"));
        documents.push(
            Document::new(response_name(file.name), response).expect("our server's response"),
        );
    }
    documents
}

/// The response's name: `getorder100.xml` answers as `getorder100-response.xml`.
fn response_name(post_file: &str) -> String {
    let stem = post_file.strip_suffix(".xml").unwrap_or(post_file);
    format!("{stem}-response.xml")
}

fn respond(body: &[u8]) -> Result<Vec<u8>, wstest::Fault> {
    let mut out = Vec::new();
    wstest::respond(None, body, NOW, &mut out)?;
    Ok(out)
}

/// Writes the response of every post file into `dir` (`--generate`), and returns the paths.
pub(crate) fn generate(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    for file in wstest::post_files::all() {
        let response = respond(&file.body())
            .map_err(|fault| anyhow::anyhow!("{}: answered with a fault: {fault}", file.name))?;
        let path = dir.join(response_name(file.name));
        std::fs::write(&path, response)
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// Counts the elements of `xml`, refusing what is not well-formed.
fn count_elements(xml: &[u8]) -> anyhow::Result<usize> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    reader.config_mut().check_end_names = true;
    let mut n_elements = 0;
    loop {
        match reader.read_event() {
            Ok(Event::Start(_) | Event::Empty(_)) => n_elements += 1,
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(error) => bail!("{error} at byte {}", reader.error_position()),
        }
    }
    if n_elements == 0 {
        bail!("no element");
    }
    Ok(n_elements)
}
