//! Test cases from a WSDL 1.1: for each operation of each SOAP binding, a request body with
//! sample values valid against the operation's schema, and the manifest entry `loadgen suite`
//! runs it by (content type and SOAPAction as the binding says; checks for status 200, the
//! response element, and no Fault). SOAP 1.1 and 1.2 bindings, document/literal, rpc/literal
//! and rpc/encoded (SOAP 1.1's section 5 encoding: `xsi:type`s and `soapenc:Array`s). Only what an operation reaches is judged: an operation that reaches what is not
//! read is skipped, naming every such construct and where it is, and the others are written.
//!
//! The crate reads no files and opens no sockets: the caller's [`Loader`] fetches each
//! document (`loadgen suite cases` reads files and fetches URLs).
//!
//! # Map
//! - [`location`]: where a document is, and which imports may be followed.
//! - `definitions`: the WSDL's messages, port types, SOAP bindings and services, with its
//!   imports; `definitions/binding.rs` a binding's operations as written,
//!   `definitions/xml.rs` a document parsed within its limits.
//! - `schema`: the XML Schema model of its types; `schema/names.rs` qualified names and
//!   where a node is, `schema/groups.rs` group references, `schema/simple.rs` simple types
//!   and their facets, `schema/derived.rs` what stands in for an abstract element or type.
//! - `pattern`: a value of an `xsd:pattern`, from the expression's syntax tree, checked
//!   against the expression.
//! - `sample`: an instance of an element, valid against the schema; `sample/values.rs` the
//!   values of simple types, `sample/wildcard.rs` what a required `xsd:any` holds,
//!   `sample/encoded.rs` SOAP encoding's type marks and arrays.
//! - `case`: the envelope, the headers and the manifest entry of each operation.

mod case;
mod definitions;
pub mod location;
mod pattern;
mod sample;
mod schema;

pub use case::{Case, manifest};
pub use definitions::SoapVersion;
pub use location::Location;

/// The most documents a WSDL and its imports may be: each is read once, so this bounds the
/// reading of a chain or a web of imports.
pub const MAX_DOCUMENTS: usize = 500;
/// The most bytes the WSDL and its imports may hold in all (VirtualBox's WSDL, among the largest
/// in use, is 2.3 MB).
pub const MAX_DOCUMENT_BYTES: usize = 64 << 20;
/// The deepest a WSDL's or schema's elements may nest: reading its types recurses once a level,
/// so this bounds the stack (schemas in use nest a few dozen deep at most).
pub const MAX_XML_DEPTH: usize = 256;
/// The most attributes one element of a WSDL or schema may have (namespace declarations
/// included): real ones have a few dozen at most.
pub const MAX_ATTRIBUTES: usize = 1024;
/// The most bytes the cases of one WSDL may hold in all: each request body, and their sum.
pub const MAX_CASE_BYTES: usize = 64 << 20;

/// Fetches the text of a document: the WSDL, and each document it imports.
pub trait Loader {
    /// The document at `location`, or why it could not be read.
    fn load(&mut self, location: &Location) -> Result<String, String>;
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Options {
    /// How many items a repeated element gets, and how deep a recursive type goes.
    pub size: u32,
    /// Only the binding of this name (all SOAP bindings when `None`).
    pub binding: Option<String>,
    /// Refuse the WSDL when any request-response operation cannot be written, rather than
    /// skip that operation and write the others.
    pub strict: bool,
    /// Hosts besides the WSDL's own whose documents its imports may fetch.
    pub allow_hosts: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            size: 3,
            binding: None,
            strict: false,
            allow_hosts: Vec::new(),
        }
    }
}

/// The cases of every operation, and what was passed over.
#[derive(Debug, Clone)]
pub struct Generated {
    pub cases: Vec<Case>,
    /// Operations with no case, and why: one-way operations (no answer to check), and those
    /// that reach what is not supported (every such construct, with its file and line).
    pub skipped: Vec<String>,
    /// The addresses the WSDL's services give, by binding.
    pub addresses: Vec<(String, String)>,
}

/// Why a WSDL gave no cases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WsdlError {
    #[error("cannot read {location}: {reason}")]
    Load { location: String, reason: String },
    #[error("{document}:{line}: {what}")]
    Malformed {
        what: String,
        document: String,
        line: u32,
    },
    #[error("{}not supported: {construct}", at(document, *line))]
    Unsupported {
        construct: String,
        document: String,
        line: u32,
    },
    #[error("the WSDL has no {what}")]
    Missing { what: String },
    #[error("{reference} (imported from within {root}) is not read: {why}")]
    Outside {
        reference: String,
        root: String,
        why: String,
    },
    #[error(
        "the requests would pass {limit_mb} MB in all at --size {size} (repeated elements nest, or a length is that long): lower the size"
    )]
    TooLarge { limit_mb: usize, size: u32 },
    #[error("{what}")]
    Limit { what: String },
    #[error("no SOAP binding named {name:?} (the WSDL has {known})")]
    NoBinding { name: String, known: String },
    #[error("no operation could be written:\n  {}", skipped.join("\n  "))]
    NoCases { skipped: Vec<String> },
    #[error("operations that cannot be written (--strict refuses them):\n  {}", skipped.join("\n  "))]
    Strict { skipped: Vec<String> },
}

fn at(document: &str, line: u32) -> String {
    if document.is_empty() {
        String::new()
    } else {
        format!("{document}:{line}: ")
    }
}

/// Reads the WSDL at `location` (and what it imports, through `loader`) and writes a case for
/// each operation of each SOAP binding.
pub fn generate(
    location: &Location,
    loader: &mut dyn Loader,
    options: &Options,
) -> Result<Generated, WsdlError> {
    let (definitions, bindings) =
        definitions::Definitions::read(location, loader, &options.allow_hosts)?;
    let bindings: Vec<_> = match &options.binding {
        Some(name) => {
            let chosen: Vec<_> = bindings
                .iter()
                .filter(|b| &b.name == name)
                .cloned()
                .collect();
            if chosen.is_empty() {
                let known: Vec<&str> = bindings.iter().map(|b| b.name.as_str()).collect();
                return Err(WsdlError::NoBinding {
                    name: name.clone(),
                    known: known.join(", "),
                });
            }
            chosen
        }
        None => bindings,
    };
    case::cases(&definitions.schemas, &bindings, options)
}
