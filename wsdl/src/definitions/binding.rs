//! A SOAP binding as its `wsdl:binding` says, before its port type is joined: its version,
//! and each operation's action, style, body namespace and parts, header parts, and what it says
//! that is not supported (kept with the operation, which is skipped for it).

use roxmltree::Node;

use super::{SOAP11_BINDING, SOAP12_BINDING, SoapVersion, malformed};
use crate::WsdlError;
use crate::schema::{QName, SOAP_ENCODING, line_of, resolve};

/// A SOAP binding as its element says, before its port type is joined.
#[derive(Debug)]
pub(super) struct RawBinding {
    pub(super) name: QName,
    /// The document it is in, for what is said of its lines.
    pub(super) document: String,
    pub(super) port_type: QName,
    pub(super) version: SoapVersion,
    pub(super) operations: Vec<RawOperation>,
}

#[derive(Debug)]
pub(super) struct RawOperation {
    pub(super) name: String,
    pub(super) action: String,
    pub(super) rpc: bool,
    pub(super) namespace: String,
    /// The input's `soap:body use="encoded"`: its `encodingStyle` (SOAP 1.1's encoding when
    /// not said).
    pub(super) encoding: Option<String>,
    /// The input's `soap:header`s: message, part, and the line that names them.
    pub(super) headers: Vec<(QName, String, u32)>,
    /// The input's `soap:body parts=`: the parts the body holds (all when `None`).
    pub(super) body_parts: Option<Vec<String>>,
    pub(super) unsupported: Vec<WsdlError>,
}

impl RawBinding {
    /// A `wsdl:binding`: `None` when it is not SOAP's (an HTTP binding). What an operation's
    /// binding says that is not supported (attachments) is kept with
    /// the operation, which is skipped for it.
    pub(super) fn read(
        node: Node<'_, '_>,
        name: QName,
        document: &str,
    ) -> Result<Option<RawBinding>, WsdlError> {
        let is = |n: &Node<'_, '_>, local: &str| n.is_element() && n.tag_name().name() == local;
        let Some(soap) = node.children().find(|n| is(n, "binding")) else {
            return Ok(None);
        };
        let version = match soap.tag_name().namespace() {
            Some(SOAP11_BINDING) => SoapVersion::Soap11,
            Some(SOAP12_BINDING) => SoapVersion::Soap12,
            _ => return Ok(None),
        };
        let port_type = node
            .attribute("type")
            .and_then(|ty| resolve(node, ty))
            .ok_or_else(|| malformed(node, document, "the binding's type"))?;
        let style = soap.attribute("style").unwrap_or("document");
        let operations = node
            .children()
            .filter(|n| is(n, "operation"))
            .map(|operation| RawOperation::read(operation, style, document))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(RawBinding {
            name,
            document: document.to_owned(),
            port_type,
            version,
            operations,
        }))
    }
}

impl RawOperation {
    /// One `wsdl:operation` of a SOAP binding whose style is `style`.
    fn read(
        operation: Node<'_, '_>,
        style: &str,
        document: &str,
    ) -> Result<RawOperation, WsdlError> {
        let is = |n: &Node<'_, '_>, local: &str| n.is_element() && n.tag_name().name() == local;
        let unsupported = |n: Node<'_, '_>, construct: String| WsdlError::Unsupported {
            construct,
            document: document.to_owned(),
            line: line_of(n),
        };
        let op_name = operation.attribute("name").unwrap_or_default().to_owned();
        crate::schema::check_ncname(&op_name).map_err(|what| WsdlError::Malformed {
            what: format!("the operation's name: {what}"),
            document: document.to_owned(),
            line: line_of(operation),
        })?;
        let soap_op = operation.children().find(|n| is(n, "operation"));
        let action = soap_op
            .and_then(|n| n.attribute("soapAction"))
            .unwrap_or_default()
            .to_owned();
        // The action goes into a header (SOAPAction, or the content type's action=): a
        // control character or a quote would end the value, or the line, and let the
        // WSDL write headers of its own.
        if let Some(bad) = action.chars().find(|ch| ch.is_control() || *ch == '"') {
            return Err(WsdlError::Malformed {
                what: format!(
                    "the soapAction of operation {op_name} holds {bad:?}, which a header value cannot carry"
                ),
                document: document.to_owned(),
                line: line_of(soap_op.unwrap_or(operation)),
            });
        }
        let rpc = soap_op.and_then(|n| n.attribute("style")).unwrap_or(style) == "rpc";
        let mut namespace = String::new();
        let mut encoding = None;
        let mut problems = Vec::new();
        let mut headers = Vec::new();
        let mut body_parts = None;
        for io in operation
            .children()
            .filter(|n| is(n, "input") || is(n, "output"))
        {
            for ext in io.children().filter(|n| n.is_element()) {
                match ext.tag_name().name() {
                    "body" if is(&io, "input") => {
                        encoding = (ext.attribute("use") == Some("encoded")).then(|| {
                            let style = ext.attribute("encodingStyle").unwrap_or(SOAP_ENCODING);
                            // A list of styles: the first, the most specific.
                            let first = style.split_whitespace().next();
                            first.unwrap_or(SOAP_ENCODING).to_owned()
                        });
                        namespace = ext.attribute("namespace").unwrap_or_default().to_owned();
                        body_parts = ext
                            .attribute("parts")
                            .map(|parts| parts.split_whitespace().map(str::to_owned).collect());
                    }
                    "header" if is(&io, "input") => {
                        let message = ext.attribute("message").and_then(|m| resolve(ext, m));
                        match (message, ext.attribute("part")) {
                            (Some(message), Some(part)) => {
                                headers.push((message, part.to_owned(), line_of(ext)));
                            }
                            _ => problems.push(malformed(
                                ext,
                                document,
                                "a soap:header's message or part",
                            )),
                        }
                    }
                    "multipartRelated" => {
                        problems.push(unsupported(
                            ext,
                            format!("MIME attachments in operation {op_name}"),
                        ));
                    }
                    _ => {}
                }
            }
        }
        Ok(RawOperation {
            name: op_name,
            action,
            rpc,
            namespace,
            encoding,
            headers,
            body_parts,
            unsupported: problems,
        })
    }
}
