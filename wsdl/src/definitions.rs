//! A WSDL 1.1 document's messages, port types and SOAP bindings, with the documents it imports
//! (`wsdl:import`) and the schemas its types import and include, read through a [`Loader`]
//! from within the location first given.

mod binding;
mod xml;

use std::collections::{HashMap, HashSet};

use roxmltree::Node;

use binding::{RawBinding, RawOperation};
use xml::parse;

use crate::location::Location;
use crate::schema::{QName, Schemas, XSD, line_of, resolve};
use crate::{Loader, WsdlError};

pub(crate) const WSDL: &str = "http://schemas.xmlsoap.org/wsdl/";
pub(crate) const SOAP11_BINDING: &str = "http://schemas.xmlsoap.org/wsdl/soap/";
pub(crate) const SOAP12_BINDING: &str = "http://schemas.xmlsoap.org/wsdl/soap12/";

/// Namespaces whose schemas are the standards' own: imports of them are not followed.
const STANDARD_NAMESPACES: [&str; 7] = [
    "http://schemas.xmlsoap.org/soap/encoding/",
    "http://www.w3.org/2005/05/xmlmime",
    "http://www.w3.org/2003/05/soap-encoding",
    "http://www.w3.org/XML/1998/namespace",
    "http://schemas.xmlsoap.org/wsdl/",
    "http://www.w3.org/2001/XMLSchema",
    "http://schemas.xmlsoap.org/soap/envelope/",
];

/// A message part: an element (document style) or a type (rpc style).
#[derive(Debug, Clone)]
pub(crate) enum Part {
    Element { element: QName },
    Type { name: String, ty: QName },
}

/// SOAP 1.1 or 1.2, by the binding's namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SoapVersion {
    Soap11,
    Soap12,
}

/// One operation of a SOAP binding.
#[derive(Debug, Clone)]
pub(crate) struct BoundOperation {
    pub(crate) name: String,
    pub(crate) action: String,
    pub(crate) rpc: bool,
    /// rpc: the wrapper element's namespace (`soap:body namespace`).
    pub(crate) namespace: String,
    /// SOAP encoding's style, when the input is `use="encoded"`: accessors carry `xsi:type`,
    /// arrays are `soapenc:Array`s.
    pub(crate) encoding: Option<String>,
    pub(crate) input: Vec<Part>,
    pub(crate) output: Option<Vec<Part>>,
    /// The input's header blocks (`soap:header`), each a message's part.
    pub(crate) headers: Vec<Part>,
    /// What its binding says that is not supported: the operation is skipped, saying why.
    pub(crate) unsupported: Vec<WsdlError>,
}

/// A SOAP binding and where its ports listen.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub(crate) name: String,
    pub(crate) version: SoapVersion,
    pub(crate) operations: Vec<BoundOperation>,
    pub(crate) addresses: Vec<String>,
}

/// Everything read.
#[derive(Debug, Default)]
pub(crate) struct Definitions {
    pub(crate) schemas: Schemas,
    /// Each message's parts, by name (the headers name theirs).
    messages: HashMap<QName, Vec<(String, Part)>>,
    /// Port type -> operation -> (input message, output message).
    port_types: HashMap<QName, HashMap<String, (QName, Option<QName>)>>,
    /// The SOAP bindings as written, joined to their port types once every document is in.
    raw_bindings: Vec<RawBinding>,
    /// The service ports: binding -> addresses.
    ports: HashMap<QName, Vec<String>>,
    seen: HashSet<Location>,
    /// The bytes of every document read so far.
    bytes: usize,
    /// Hosts besides the WSDL's own that imports may fetch from.
    allow_hosts: Vec<String>,
    /// Namespaces whose `wsdl:import` could not be read, and why: an operation that needs
    /// their port types or messages is skipped, saying so.
    unread: HashMap<String, String>,
}

impl Definitions {
    /// Reads the WSDL at `location` and everything it imports.
    pub(crate) fn read(
        location: &Location,
        loader: &mut dyn Loader,
        allow_hosts: &[String],
    ) -> Result<(Definitions, Vec<Binding>), WsdlError> {
        let mut definitions = Definitions {
            allow_hosts: allow_hosts.to_vec(),
            ..Definitions::default()
        };
        definitions.document(location, location, loader)?;
        let bindings = definitions.bindings()?;
        Ok((definitions, bindings))
    }

    fn load(
        &mut self,
        location: &Location,
        loader: &mut dyn Loader,
    ) -> Result<Option<String>, WsdlError> {
        if !self.seen.insert(location.clone()) {
            return Ok(None);
        }
        if self.seen.len() > crate::MAX_DOCUMENTS {
            return Err(WsdlError::Limit {
                what: format!(
                    "the WSDL and its imports are more than {} documents",
                    crate::MAX_DOCUMENTS
                ),
            });
        }
        let text = loader.load(location).map_err(|reason| WsdlError::Load {
            location: location.to_string(),
            reason,
        })?;
        self.bytes += text.len();
        if self.bytes > crate::MAX_DOCUMENT_BYTES {
            return Err(WsdlError::Limit {
                what: format!(
                    "the WSDL and its imports pass {} MB in all (at {location})",
                    crate::MAX_DOCUMENT_BYTES >> 20
                ),
            });
        }
        Ok(Some(text))
    }

    fn document(
        &mut self,
        location: &Location,
        root: &Location,
        loader: &mut dyn Loader,
    ) -> Result<(), WsdlError> {
        let Some(text) = self.load(location, loader)? else {
            return Ok(());
        };
        let document = location.to_string();
        let parsed = parse(&text, &document)?;
        let top = parsed.root_element();
        if top.tag_name().namespace() == Some(XSD) && top.tag_name().name() == "schema" {
            return self.schema(top, location, root, loader);
        }
        if top.tag_name().namespace() != Some(WSDL) || top.tag_name().name() != "definitions" {
            return Err(WsdlError::Malformed {
                what: format!(
                    "the root element is {:?}, not WSDL 1.1's definitions (WSDL 2.0 is not read)",
                    top.tag_name().name()
                ),
                document,
                line: 1,
            });
        }
        let target = top
            .attribute("targetNamespace")
            .unwrap_or_default()
            .to_owned();
        for node in top.children().filter(|node| node.is_element()) {
            let tag = node.tag_name();
            if tag.namespace() != Some(WSDL) {
                continue;
            }
            let name = || QName::new(&target, node.attribute("name").unwrap_or_default());
            match tag.name() {
                "import" => self.wsdl_import(node, location, root, loader)?,
                "types" => {
                    for schema in node
                        .children()
                        .filter(|n| n.is_element() && n.tag_name().namespace() == Some(XSD))
                    {
                        self.schema(schema, location, root, loader)?;
                    }
                }
                "message" => {
                    let parts = node
                        .children()
                        .filter(|n| n.is_element() && n.tag_name().name() == "part")
                        .map(|part| {
                            let name = part.attribute("name").unwrap_or_default().to_owned();
                            self.part(part, &document).map(|read| (name, read))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    self.messages.insert(name(), parts);
                }
                "portType" => {
                    let mut operations = HashMap::new();
                    for operation in node
                        .children()
                        .filter(|n| n.is_element() && n.tag_name().name() == "operation")
                    {
                        let message = |which: &str| -> Result<Option<QName>, WsdlError> {
                            let Some(io) = operation
                                .children()
                                .find(|n| n.is_element() && n.tag_name().name() == which)
                            else {
                                return Ok(None);
                            };
                            let text = io.attribute("message").unwrap_or_default();
                            resolve(io, text).map(Some).ok_or_else(|| {
                                malformed(io, &document, &format!("message {text:?}"))
                            })
                        };
                        let Some(input) = message("input")? else {
                            continue;
                        };
                        let op_name = operation.attribute("name").unwrap_or_default().to_owned();
                        operations.insert(op_name, (input, message("output")?));
                    }
                    self.port_types.insert(name(), operations);
                }
                "binding" => {
                    if let Some(binding) = RawBinding::read(node, name(), &document)? {
                        self.raw_bindings.push(binding);
                    }
                }
                "service" => {
                    for port in node
                        .children()
                        .filter(|n| n.is_element() && n.tag_name().name() == "port")
                    {
                        let Some(binding) =
                            port.attribute("binding").and_then(|b| resolve(port, b))
                        else {
                            continue;
                        };
                        let addresses = port
                            .children()
                            .filter(|n| n.is_element() && n.tag_name().name() == "address")
                            .filter_map(|address| address.attribute("location").map(str::to_owned));
                        self.ports.entry(binding).or_default().extend(addresses);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A `wsdl:import`: read, or, when it cannot be (another host, a file not there), noted
    /// with why for the operations that need it.
    fn wsdl_import(
        &mut self,
        node: Node<'_, '_>,
        location: &Location,
        root: &Location,
        loader: &mut dyn Loader,
    ) -> Result<(), WsdlError> {
        let Some(reference) = node.attribute("location") else {
            return Ok(());
        };
        // As with a schema import: one that cannot be read refuses only the
        // operations that need what it declares (ONVIF's event service imports
        // OASIS' notification port types by their absolute address).
        if let Some(why) = self.follow(reference, location, root, loader)? {
            let namespace = node.attribute("namespace").unwrap_or_default();
            self.unread.entry(namespace.to_owned()).or_insert(why);
        }
        Ok(())
    }

    /// Reads the document `reference` names from `location`: `Some(why)` when it cannot be
    /// read (another host not named, a file not there), which refuses only what needs it;
    /// any other fault is the WSDL's.
    fn follow(
        &mut self,
        reference: &str,
        location: &Location,
        root: &Location,
        loader: &mut dyn Loader,
    ) -> Result<Option<String>, WsdlError> {
        let imported = location
            .join(reference, root, &self.allow_hosts)
            .and_then(|imported| self.document(&imported, root, loader));
        match imported {
            Ok(()) => Ok(None),
            Err(error @ (WsdlError::Outside { .. } | WsdlError::Load { .. })) => {
                Ok(Some(error.to_string()))
            }
            Err(other) => Err(other),
        }
    }

    fn schema(
        &mut self,
        schema: Node<'_, '_>,
        location: &Location,
        root: &Location,
        loader: &mut dyn Loader,
    ) -> Result<(), WsdlError> {
        let document = location.to_string();
        self.schemas.read(schema, &document)?;
        for import in schema
            .children()
            .filter(|n| n.is_element() && matches!(n.tag_name().name(), "import" | "include"))
        {
            let Some(reference) = import.attribute("schemaLocation") else {
                // An import of a namespace declared elsewhere in the WSDL.
                continue;
            };
            // The standards' own schemas (SOAP encoding, xml:, WSDL), which WSDLs of .NET and
            // Axis import by their absolute addresses: nothing of them is sampled.
            if import
                .attribute("namespace")
                .is_some_and(|ns| STANDARD_NAMESPACES.contains(&ns))
            {
                continue;
            }
            // A schema import that cannot be read (another host not named, a file that is not
            // there) refuses nothing by itself: what an operation reaches of its namespace is
            // said missing, with why. ONVIF's WSDLs import xmlmime and OASIS' schemas by their
            // absolute addresses.
            if let Some(why) = self.follow(reference, location, root, loader)? {
                // An include's declarations are of the including schema's namespace.
                let namespace = import
                    .attribute("namespace")
                    .or_else(|| schema.attribute("targetNamespace"))
                    .unwrap_or_default();
                self.schemas
                    .unread
                    .entry(namespace.to_owned())
                    .or_insert(why);
            }
        }
        Ok(())
    }

    fn part(&self, part: Node<'_, '_>, document: &str) -> Result<Part, WsdlError> {
        let name = part.attribute("name").unwrap_or_default().to_owned();
        if let Some(element) = part.attribute("element") {
            let element = resolve(part, element)
                .ok_or_else(|| malformed(part, document, "a part's element"))?;
            return Ok(Part::Element { element });
        }
        if let Some(ty) = part.attribute("type") {
            let ty = resolve(part, ty).ok_or_else(|| malformed(part, document, "a part's type"))?;
            // A part of a type is written as an element of its name.
            crate::schema::check_ncname(&name).map_err(|what| WsdlError::Malformed {
                what: format!("the part's name: {what}"),
                document: document.to_owned(),
                line: line_of(part),
            })?;
            return Ok(Part::Type { name, ty });
        }
        Err(malformed(
            part,
            document,
            "a part with neither element nor type",
        ))
    }
}

impl Definitions {
    /// `what` is not in the WSDL: said with why its namespace's WSDL import was not read, if
    /// it was not.
    fn missing(&self, what: String, name: &QName) -> WsdlError {
        let why = self.unread.get(&name.ns).map_or_else(String::new, |why| {
            format!(" (its WSDL import was not read: {why})")
        });
        WsdlError::Missing {
            what: format!("{what}{why}"),
        }
    }

    /// Each SOAP binding joined to its port type's messages. An operation whose port type,
    /// operation or message is not there is kept with why, to be skipped saying so.
    fn bindings(&self) -> Result<Vec<Binding>, WsdlError> {
        let mut bindings = Vec::new();
        for raw in &self.raw_bindings {
            // A `type` without a prefix resolves to the default namespace, often WSDL's own;
            // some WSDLs mean their target namespace by it: the one port type of that name.
            let port_type = self
                .port_types
                .get(&raw.port_type)
                .or_else(|| {
                    let mut named = self
                        .port_types
                        .iter()
                        .filter(|(name, _)| name.local == raw.port_type.local);
                    match (named.next(), named.next()) {
                        (Some((_, port_type)), None) => Some(port_type),
                        _ => None,
                    }
                })
                .ok_or_else(|| {
                    let what = format!("port type {} of binding {}", raw.port_type, raw.name.local);
                    self.missing(what, &raw.port_type)
                });
            let operations = raw
                .operations
                .iter()
                .map(|op| self.join(raw, port_type.as_ref(), op))
                .collect();
            bindings.push(Binding {
                name: raw.name.local.clone(),
                version: raw.version,
                operations,
                addresses: self.ports.get(&raw.name).cloned().unwrap_or_default(),
            });
        }
        if bindings.is_empty() {
            return Err(WsdlError::Missing {
                what: "SOAP 1.1 or 1.2 binding (soap:binding or soap12:binding)".to_owned(),
            });
        }
        Ok(bindings)
    }

    /// One operation of `raw` joined to its port type's messages, or kept with why not.
    fn join(
        &self,
        raw: &RawBinding,
        port_type: Result<&&HashMap<String, (QName, Option<QName>)>, &WsdlError>,
        op: &RawOperation,
    ) -> BoundOperation {
        let parts = |message: &QName| {
            self.messages
                .get(message)
                .map(|parts| parts.iter().map(|(_, part)| part.clone()).collect())
                .ok_or_else(|| self.missing(format!("message {message}"), message))
        };
        let found = port_type
            .map_err(|error| (*error).clone())
            .and_then(|port_type| {
                let (input, output) = port_type.get(&op.name).ok_or_else(|| {
                    let what = format!("operation {} in port type {}", op.name, raw.port_type);
                    self.missing(what, &raw.port_type)
                })?;
                Ok((
                    input,
                    parts(input)?,
                    output.as_ref().map(parts).transpose()?,
                ))
            });
        let (input, all_parts, output) = match found {
            Ok(found) => found,
            Err(error) => {
                // Skipped with why (an answer is assumed: not a one-way operation).
                let mut unsupported = op.unsupported.clone();
                unsupported.push(error);
                return BoundOperation {
                    name: op.name.clone(),
                    action: op.action.clone(),
                    rpc: op.rpc,
                    namespace: op.namespace.clone(),
                    encoding: op.encoding.clone(),
                    input: Vec::new(),
                    output: Some(Vec::new()),
                    headers: Vec::new(),
                    unsupported,
                };
            }
        };
        let mut unsupported = op.unsupported.clone();
        let mut headers = Vec::new();
        for (message, part, line) in &op.headers {
            let named = self
                .messages
                .get(message)
                .and_then(|parts| parts.iter().find(|(name, _)| name == part));
            match named {
                    Some((_, part)) => headers.push(part.clone()),
                    None => unsupported.push(WsdlError::Malformed {
                        what: format!(
                            "the soap:header of operation {} names part {part:?} of message {message}, which the WSDL lacks",
                            op.name
                        ),
                        document: raw.document.clone(),
                        line: *line,
                    }),
                }
        }
        let body = match &op.body_parts {
            None => all_parts,
            Some(names) => {
                let all = self.messages.get(input).cloned().unwrap_or_default();
                names
                    .iter()
                    .filter_map(|name| {
                        all.iter()
                            .find(|(part, _)| part == name)
                            .map(|(_, p)| p.clone())
                    })
                    .collect()
            }
        };
        BoundOperation {
            name: op.name.clone(),
            action: op.action.clone(),
            rpc: op.rpc,
            namespace: op.namespace.clone(),
            encoding: op.encoding.clone(),
            input: body,
            output,
            headers,
            unsupported,
        }
    }
}

fn malformed(node: Node<'_, '_>, document: &str, what: &str) -> WsdlError {
    WsdlError::Malformed {
        what: format!("{what} names an undeclared prefix or nothing"),
        document: document.to_owned(),
        line: line_of(node),
    }
}
