//! Each operation's case: the SOAP envelope around a sample of its input, the content type and
//! action its binding's SOAP version asks for, and the manifest entry `loadgen suite` reads.

use crate::definitions::{Binding, BoundOperation, Part, SoapVersion};
use crate::sample::Sampler;
use crate::schema::{QName, Schemas};
use crate::{Generated, Options, WsdlError};

const SOAP11_ENVELOPE: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12_ENVELOPE: &str = "http://www.w3.org/2003/05/soap-envelope";

/// One operation's request and how to judge its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The test's name in the suite's tables (the operation's, with the binding's when the
    /// WSDL has several).
    pub test: String,
    /// The body file's name.
    pub file: String,
    pub operation: String,
    pub binding: String,
    pub soap_action: String,
    pub version: SoapVersion,
    pub content_type: String,
    pub headers: Vec<String>,
    /// The request: a whole SOAP envelope.
    pub body: String,
    /// A text the answer must hold: the response element's name.
    pub expect_body: String,
}

pub(crate) fn cases(
    schemas: &Schemas,
    bindings: &[Binding],
    options: &Options,
) -> Result<Generated, WsdlError> {
    let mut generated = Generated {
        cases: Vec::new(),
        skipped: Vec::new(),
        addresses: Vec::new(),
    };
    let versions_differ = bindings.len() == 2 && bindings[0].version != bindings[1].version;
    // Every body within one budget; every test and file name told apart from the others, the
    // file names without regard to case (a case-insensitive file system would merge them).
    let mut written = 0usize;
    let mut names = Names::default();
    // Request-response operations that could not be written, and why.
    let mut not_written = Vec::new();
    for binding in bindings {
        for address in &binding.addresses {
            generated
                .addresses
                .push((binding.name.clone(), address.clone()));
        }
        let suffix = match (bindings.len(), versions_differ, binding.version) {
            (1, _, _) => String::new(),
            (_, true, SoapVersion::Soap11) => "-soap11".to_owned(),
            (_, true, SoapVersion::Soap12) => "-soap12".to_owned(),
            _ => format!("-{}", binding.name),
        };
        for operation in &binding.operations {
            let Some(output) = &operation.output else {
                generated.skipped.push(format!(
                    "{} ({}): one-way, no answer to check",
                    operation.name, binding.name
                ));
                continue;
            };
            let budget = crate::MAX_CASE_BYTES.saturating_sub(written);
            let body = if operation.unsupported.is_empty() {
                envelope(schemas, binding.version, operation, options.size, budget)?
            } else {
                Err(operation.unsupported.clone())
            };
            let body = match body {
                Ok(body) => body,
                Err(reasons) => {
                    let reasons: Vec<String> = reasons.iter().map(ToString::to_string).collect();
                    let line = format!(
                        "{} ({}): {}",
                        operation.name,
                        binding.name,
                        reasons.join("; ")
                    );
                    not_written.push(line.clone());
                    generated.skipped.push(line);
                    continue;
                }
            };
            let (test, file) = names.unique(&format!("{}{suffix}", operation.name));
            written += body.len();
            generated.cases.push(Case {
                file,
                test,
                operation: operation.name.clone(),
                binding: binding.name.clone(),
                soap_action: operation.action.clone(),
                version: binding.version,
                content_type: content_type(binding.version, &operation.action),
                headers: match binding.version {
                    SoapVersion::Soap11 => vec![format!("SOAPAction: \"{}\"", operation.action)],
                    SoapVersion::Soap12 => Vec::new(),
                },
                body,
                expect_body: response_element(operation, output),
            });
        }
    }
    if options.strict && !not_written.is_empty() {
        return Err(WsdlError::Strict {
            skipped: not_written,
        });
    }
    if generated.cases.is_empty() {
        if !not_written.is_empty() {
            return Err(WsdlError::NoCases {
                skipped: not_written,
            });
        }
        return Err(WsdlError::Missing {
            what: "request-response operation in its SOAP bindings".to_owned(),
        });
    }
    Ok(generated)
}

fn content_type(version: SoapVersion, action: &str) -> String {
    match version {
        SoapVersion::Soap11 => "text/xml; charset=utf-8".to_owned(),
        SoapVersion::Soap12 if action.is_empty() => {
            "application/soap+xml; charset=utf-8".to_owned()
        }
        SoapVersion::Soap12 => format!("application/soap+xml; charset=utf-8; action=\"{action}\""),
    }
}

/// The response's element (document style: the output's first part's element; rpc:
/// the operation's name and `Response`).
fn response_element(operation: &BoundOperation, output: &[Part]) -> String {
    match output.first() {
        _ if operation.rpc => format!("{}Response", operation.name),
        Some(Part::Element { element }) => element.local.clone(),
        Some(Part::Type { name, .. }) => name.clone(),
        None => "Body".to_owned(),
    }
}

fn envelope(
    schemas: &Schemas,
    version: SoapVersion,
    operation: &BoundOperation,
    size: u32,
    budget: usize,
) -> Result<Result<String, Vec<WsdlError>>, WsdlError> {
    match sampled(schemas, version, operation, size, budget) {
        Ok((_, reached)) if !reached.is_empty() => Ok(Err(reached)),
        Ok((body, _)) => Ok(Ok(body)),
        // The one bound that is not the operation's alone: the cases' bytes in all.
        Err(error @ WsdlError::TooLarge { .. }) => Err(error),
        Err(error) => Ok(Err(vec![error])),
    }
}

/// The envelope, and what it reached and could not write.
fn sampled(
    schemas: &Schemas,
    version: SoapVersion,
    operation: &BoundOperation,
    size: u32,
    budget: usize,
) -> Result<(String, Vec<WsdlError>), WsdlError> {
    let ns = match version {
        SoapVersion::Soap11 => SOAP11_ENVELOPE,
        SoapVersion::Soap12 => SOAP12_ENVELOPE,
    };
    let mut out = format!("<soap:Envelope xmlns:soap=\"{ns}\"");
    let mut sampler = Sampler::new(schemas, size, budget);
    // SOAP encoding's accessors name their types with these prefixes.
    let encoding_style = match &operation.encoding {
        Some(style) => {
            sampler.encoded = true;
            out.push_str(concat!(
                " xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"",
                " xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"",
                " xmlns:soapenc=\"http://schemas.xmlsoap.org/soap/encoding/\""
            ));
            let mut attribute = String::from(" soap:encodingStyle=\"");
            crate::sample::escape(style, &mut attribute);
            attribute.push('"');
            attribute
        }
        None => String::new(),
    };
    out.push('>');
    let in_operation = |error: WsdlError| match error {
        WsdlError::Unsupported {
            construct,
            document,
            line,
        } if document.is_empty() => WsdlError::Unsupported {
            construct: format!("{construct}, in operation {}", operation.name),
            document,
            line,
        },
        other => other,
    };
    // The input's header blocks, each a sample of its part, as a body's part is written.
    if !operation.headers.is_empty() {
        out.push_str("<soap:Header>");
        for part in &operation.headers {
            match part {
                Part::Element { element } => sampler.global(element, "", &mut out)?,
                Part::Type { name, ty } => {
                    sampler.typed(&QName::new("", name), ty, "", &mut out)?;
                }
            }
        }
        out.push_str("</soap:Header>");
    }
    out.push_str("<soap:Body");
    if !operation.rpc && version == SoapVersion::Soap11 {
        // SOAP 1.1 allows the style on the body (1.2 only on its children).
        out.push_str(&encoding_style);
    }
    out.push('>');
    if operation.rpc {
        out.push('<');
        out.push_str(&operation.name);
        out.push_str(" xmlns=\"");
        crate::sample::escape(&operation.namespace, &mut out);
        out.push('"');
        out.push_str(&encoding_style);
        out.push('>');
        for part in &operation.input {
            match part {
                Part::Element { element } => sampler
                    .global(element, &operation.namespace, &mut out)
                    .map_err(in_operation)?,
                Part::Type { name, ty } => sampler
                    .typed(&QName::new("", name), ty, &operation.namespace, &mut out)
                    .map_err(in_operation)?,
            }
        }
        out.push_str("</");
        out.push_str(&operation.name);
        out.push('>');
    } else {
        for part in &operation.input {
            match part {
                Part::Element { element } => {
                    sampler
                        .global(element, "", &mut out)
                        .map_err(in_operation)?;
                }
                Part::Type { name, ty } => sampler
                    .typed(&QName::new("", name), ty, "", &mut out)
                    .map_err(in_operation)?,
            }
        }
    }
    out.push_str("</soap:Body></soap:Envelope>");
    if out.len() > budget {
        return Err(WsdlError::TooLarge {
            limit_mb: crate::MAX_CASE_BYTES >> 20,
            size,
        });
    }
    let reached = sampler.unsupported.into_iter().map(in_operation).collect();
    Ok((out, reached))
}

/// The test and file names given so far.
#[derive(Default)]
struct Names {
    tests: std::collections::HashSet<String>,
    /// File names in lower case.
    files: std::collections::HashSet<String>,
}

impl Names {
    /// A test name from `wanted` that no case has yet (`-2`, `-3`, ... after it when one has),
    /// and its body file's name, unique whatever the file system's case rules.
    fn unique(&mut self, wanted: &str) -> (String, String) {
        let mut n = 1;
        loop {
            let test = if n == 1 {
                wanted.to_owned()
            } else {
                format!("{wanted}-{n}")
            };
            let file = format!("{}.xml", file_stem(&test));
            if !self.tests.contains(&test) && !self.files.contains(&file.to_lowercase()) {
                self.files.insert(file.to_lowercase());
                self.tests.insert(test.clone());
                return (test, file);
            }
            n += 1;
        }
    }
}

/// A file name from a test name: letters, digits, `-`, `_` and `.` kept, anything else `_`.
fn file_stem(test: &str) -> String {
    test.chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.') {
                ch
            } else {
                '_'
            }
        })
        .collect()
}

/// The manifest `loadgen suite --manifest` reads, for `cases` whose bodies sit beside it.
pub fn manifest(cases: &[Case], document: &str) -> String {
    let mut out = format!(
        "# Cases generated by `loadgen suite cases` from {}: a [[file]] per operation,\n\
         # its request body beside this file. Each answer must be 200, hold its response\n\
         # element and no Fault.\n",
        document.replace('\n', " ")
    );
    for case in cases {
        out.push_str("\n[[file]]\n");
        field(&mut out, "name", &case.file);
        field(&mut out, "test", &case.test);
        field(&mut out, "operation", &case.operation);
        field(&mut out, "soap_action", &case.soap_action);
        out.push_str(&format!("bytes = {}\n", case.body.len()));
        field(&mut out, "content_type", &case.content_type);
        out.push_str("headers = [");
        for (idx, header) in case.headers.iter().enumerate() {
            if idx > 0 {
                out.push_str(", ");
            }
            out.push_str(&toml_string(header));
        }
        out.push_str("]\n");
        field(&mut out, "expect_body", &case.expect_body);
        field(&mut out, "reject_body", "Fault>");
        out.push_str("expect_xml = true\n");
    }
    out
}

fn field(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    out.push_str(" = ");
    out.push_str(&toml_string(value));
    out.push('\n');
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ch if ch.is_control() => out.push_str(&format!("\\u{:04X}", ch as u32)),
            ch => out.push(ch),
        }
    }
    out.push('"');
    out
}
