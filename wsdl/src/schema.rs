//! The part of XML Schema 1.0 that WSDLs' types use, read into a model the sample writer walks:
//! global elements, named and anonymous complex types (sequence, choice, all, nested groups,
//! complexContent extension and restriction, simpleContent, attributes), simple types
//! (restrictions with enumerations and bounds, lists, unions), element references and
//! `elementFormDefault`, model and attribute groups by reference, patterns, `fixed` and
//! `default` values, substitution groups and abstract elements and types (`schema/derived.rs`
//! chooses what stands in for them). What it does not read (a pattern no value is written for,
//! an attribute required by reference) is an error naming the construct, kept with the global
//! declaration it is in until an operation reaches it.

use std::collections::HashMap;

use roxmltree::Node;

use crate::WsdlError;

mod derived;
mod groups;
mod names;
mod simple;

pub(crate) use names::{QName, check_ncname, line_of, resolve};

pub(crate) const XSD: &str = "http://www.w3.org/2001/XMLSchema";
/// SOAP 1.1's encoding: its namespace names the encoding style and the encoded types.
pub(crate) const SOAP_ENCODING: &str = "http://schemas.xmlsoap.org/soap/encoding/";

/// How many times an item may occur; `max` is `None` for `unbounded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Occurs {
    pub(crate) min: u32,
    pub(crate) max: Option<u32>,
}

/// An element declaration, global or local.
#[derive(Debug, Clone)]
pub(crate) struct Element {
    /// Its name, with the namespace it has in an instance (empty when unqualified).
    pub(crate) name: QName,
    pub(crate) ty: TypeRef,
    /// `fixed=`, else `default=`: the value a simple content is written with.
    pub(crate) value: Option<String>,
    /// A global element's `substitutionGroup`: the head it may stand in for.
    pub(crate) head: Option<QName>,
    /// Whether it declares no type (a member of a substitution group then has its head's).
    pub(crate) untyped: bool,
    /// `abstract="true"`: only a member of its substitution group may appear.
    pub(crate) is_abstract: bool,
}

impl Element {
    /// A plain declaration of `name` with content of type `ty`.
    pub(crate) fn new(name: QName, ty: TypeRef) -> Element {
        Element {
            name,
            ty,
            value: None,
            head: None,
            untyped: false,
            is_abstract: false,
        }
    }
}

/// A required attribute.
#[derive(Debug, Clone)]
pub(crate) struct Attribute {
    pub(crate) name: String,
    /// Its namespace: the target's when qualified (`attributeFormDefault`, `form`), else none.
    pub(crate) ns: String,
    pub(crate) ty: QName,
    /// An anonymous simple type, which `ty` then does not name.
    pub(crate) simple: Option<Simple>,
    /// `fixed=`, else `default=`: the value written.
    pub(crate) value: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) enum TypeRef {
    Named(QName),
    Anonymous(Box<Type>),
    /// `ref=`: a global element.
    Element(QName),
}

#[derive(Debug, Clone)]
pub(crate) enum Type {
    Simple(Simple),
    Complex(Complex),
    /// A global declaration that could not be read: why, said only when an operation reaches
    /// it (a WSDL's unused types are never judged).
    Unsupported(Vec<WsdlError>),
}

#[derive(Debug, Clone)]
pub(crate) enum Simple {
    /// A restriction of `base` (a built-in type or another simple type).
    Restriction {
        base: QName,
        enumeration: Vec<String>,
        min: Option<Bound>,
        max: Option<Bound>,
        /// `xsd:totalDigits` and `xsd:fractionDigits`.
        digits: (Option<u32>, Option<u32>),
        min_length: Option<usize>,
        max_length: Option<usize>,
        /// The first `xsd:pattern`, read (a value is known to match it).
        pattern: Option<crate::pattern::Pattern>,
    },
    List(TypeRef),
    /// The first member type is the one sampled.
    Union(TypeRef),
}

/// A bound of a value: `xsd:minInclusive` and the like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bound {
    pub(crate) value: String,
    pub(crate) inclusive: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Complex {
    /// complexContent's extension base: its content comes first.
    pub(crate) extends: Option<QName>,
    /// complexContent's restriction base: only what the type derives from (the content is
    /// restated).
    pub(crate) restricts: Option<QName>,
    /// `abstract="true"`: an instance names a derived type with `xsi:type`.
    pub(crate) is_abstract: bool,
    /// A restriction of `soapenc:Array`: the type of its items.
    pub(crate) array_of: Option<QName>,
    pub(crate) particle: Option<Particle>,
    /// simpleContent: the text's type.
    pub(crate) text: Option<QName>,
    pub(crate) attributes: Vec<Attribute>,
    /// `xsd:attributeGroup ref=`: more required attributes, by the group's name.
    pub(crate) attribute_groups: Vec<QName>,
}

/// A global `xsd:attributeGroup`: its required attributes and the groups it refers to.
#[derive(Debug, Clone, Default)]
pub(crate) struct AttributeGroup {
    pub(crate) attributes: Vec<Attribute>,
    pub(crate) groups: Vec<QName>,
}

/// A model group and how often it occurs.
#[derive(Debug, Clone)]
pub(crate) struct Particle {
    pub(crate) kind: Group,
    pub(crate) items: Vec<(Term, Occurs)>,
    pub(crate) occurs: Occurs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    Sequence,
    Choice,
    All,
}

#[derive(Debug, Clone)]
pub(crate) enum Term {
    Element(Element),
    Group(Particle),
    /// `xsd:group ref=`: a global model group, by name.
    GroupRef(QName),
    /// `xsd:any`: the namespaces an element may be of (`namespace=`, with `##targetNamespace`
    /// and `##local` resolved), and whether it must be declared (`processContents="strict"`).
    Any {
        namespaces: AnyNamespaces,
        strict: bool,
    },
}

/// The namespaces an `xsd:any` allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AnyNamespaces {
    /// `##any`.
    Any,
    /// `##other`: any but this one (the target namespace) and none.
    Other(String),
    /// A list: these (the empty string for `##local`).
    List(Vec<String>),
}

/// Every schema of a WSDL and what it imports and includes, merged.
#[derive(Debug, Default)]
pub(crate) struct Schemas {
    pub(crate) elements: HashMap<QName, Element>,
    pub(crate) types: HashMap<QName, Type>,
    /// Global model groups, or why one could not be read.
    pub(crate) groups: HashMap<QName, Result<Particle, Vec<WsdlError>>>,
    pub(crate) attribute_groups: HashMap<QName, Result<AttributeGroup, Vec<WsdlError>>>,
    /// Namespaces whose schema import could not be read, and why.
    pub(crate) unread: HashMap<String, String>,
}

impl Schemas {
    /// A declaration not found: said with why its namespace's schema was not read, if it was
    /// not.
    pub(crate) fn missing(&self, kind: &str, name: &QName) -> WsdlError {
        let why = self.unread.get(&name.ns).map_or_else(String::new, |why| {
            format!(" (its schema was not read: {why})")
        });
        WsdlError::Missing {
            what: format!("{kind} {name}{why}"),
        }
    }
}

impl Schemas {
    /// Reads one `xsd:schema` element (its imports and includes are the caller's).
    pub(crate) fn read(&mut self, schema: Node<'_, '_>, document: &str) -> Result<(), WsdlError> {
        let target = schema.attribute("targetNamespace").unwrap_or_default();
        let reader = Reader {
            target,
            qualified: schema.attribute("elementFormDefault") == Some("qualified"),
            attributes_qualified: schema.attribute("attributeFormDefault") == Some("qualified"),
            document,
        };
        for child in schema.children().filter(is_xsd) {
            // A declaration that cannot be read is kept as the reasons why: only an operation
            // that reaches it is refused.
            let deferred = |read: Result<Type, WsdlError>| match read {
                Ok(ty) => ty,
                Err(error) => Type::Unsupported(vec![error]),
            };
            // A global declaration without a name cannot be named by anything.
            let Some(local) = child.attribute("name") else {
                continue;
            };
            let name = QName::new(target, local);
            match child.tag_name().name() {
                "element" => {
                    let element = reader.element(child, true).unwrap_or_else(|error| {
                        let why = Type::Unsupported(vec![error]);
                        Element::new(name.clone(), TypeRef::Anonymous(Box::new(why)))
                    });
                    self.elements.insert(name, element);
                }
                "complexType" => {
                    let ty = deferred(reader.complex(child).map(Type::Complex));
                    self.types.insert(name, ty);
                }
                "simpleType" => {
                    let ty = deferred(reader.simple(child).map(Type::Simple));
                    self.types.insert(name, ty);
                }
                "group" => {
                    let model = child
                        .children()
                        .find(|c| is_derivation(c))
                        .ok_or_else(|| reader.error(child, "an xsd:group without a model"))
                        .and_then(|model| reader.particle(model));
                    self.groups.insert(name, model.map_err(|error| vec![error]));
                }
                "attributeGroup" => {
                    let group = reader.attribute_group(child);
                    self.attribute_groups
                        .insert(name, group.map_err(|error| vec![error]));
                }
                // What no operation names directly is read where it is used.
                _ => {}
            }
        }
        Ok(())
    }
}

fn is_xsd(node: &Node<'_, '_>) -> bool {
    node.is_element() && node.tag_name().namespace() == Some(XSD)
}

/// An XSD element that is not an annotation: what a simple type's or a content model's
/// derivation is, after its documentation.
fn is_derivation(node: &Node<'_, '_>) -> bool {
    is_xsd(node) && node.tag_name().name() != "annotation"
}

/// What a schema's declarations are read with.
struct Reader<'a> {
    target: &'a str,
    qualified: bool,
    /// `attributeFormDefault="qualified"`.
    attributes_qualified: bool,
    document: &'a str,
}

impl Reader<'_> {
    fn error(&self, node: Node<'_, '_>, construct: &str) -> WsdlError {
        WsdlError::Unsupported {
            construct: construct.to_owned(),
            document: self.document.to_owned(),
            line: line_of(node),
        }
    }

    /// A name an instance will carry as an element's or attribute's: an XML NCName, so that
    /// no body written is malformed.
    fn ncname(&self, node: Node<'_, '_>, name: &str) -> Result<(), WsdlError> {
        check_ncname(name).map_err(|what| WsdlError::Malformed {
            what,
            document: self.document.to_owned(),
            line: line_of(node),
        })
    }

    /// `type="tns:Foo"`: the prefix resolved against the declarations in scope.
    fn qname(&self, node: Node<'_, '_>, text: &str) -> Result<QName, WsdlError> {
        resolve(node, text).ok_or_else(|| WsdlError::Malformed {
            what: format!("the prefix of {text:?} is not declared"),
            document: self.document.to_owned(),
            line: line_of(node),
        })
    }

    fn element(&self, node: Node<'_, '_>, global: bool) -> Result<Element, WsdlError> {
        if let Some(reference) = node.attribute("ref") {
            let target = self.qname(node, reference)?;
            return Ok(Element::new(target.clone(), TypeRef::Element(target)));
        }
        let local = node
            .attribute("name")
            .ok_or_else(|| self.error(node, "an xsd:element with neither name nor ref"))?;
        self.ncname(node, local)?;
        let qualified = global
            || match node.attribute("form") {
                Some(form) => form == "qualified",
                None => self.qualified,
            };
        let ns = if qualified { self.target } else { "" };
        let mut untyped = false;
        let ty = if let Some(ty) = node.attribute("type") {
            TypeRef::Named(self.qname(node, ty)?)
        } else if let Some(complex) = child(node, "complexType") {
            TypeRef::Anonymous(Box::new(Type::Complex(self.complex(complex)?)))
        } else if let Some(simple) = child(node, "simpleType") {
            TypeRef::Anonymous(Box::new(Type::Simple(self.simple(simple)?)))
        } else {
            // No type: xsd:anyType, sampled as text (or the head's type, for a member of a
            // substitution group).
            untyped = true;
            TypeRef::Named(QName::new(XSD, "string"))
        };
        let head = match node.attribute("substitutionGroup").filter(|_| global) {
            // The first head, of XSD 1.1's list.
            Some(heads) => match heads.split_whitespace().next() {
                Some(head) => Some(self.qname(node, head)?),
                None => None,
            },
            None => None,
        };
        Ok(Element {
            name: QName::new(ns, local),
            ty,
            value: fixed_or_default(node),
            head,
            untyped,
            is_abstract: global && is_true(node.attribute("abstract")),
        })
    }

    fn complex(&self, node: Node<'_, '_>) -> Result<Complex, WsdlError> {
        let mut complex = Complex {
            is_abstract: is_true(node.attribute("abstract")),
            ..Complex::default()
        };
        for part in node.children().filter(is_xsd) {
            match part.tag_name().name() {
                "sequence" | "choice" | "all" => complex.particle = Some(self.particle(part)?),
                "attribute" => self.attribute(part, &mut complex)?,
                "complexContent" => {
                    let Some(derivation) = part.children().find(is_derivation) else {
                        continue;
                    };
                    let base = derivation
                        .attribute("base")
                        .ok_or_else(|| self.error(derivation, "a derivation without a base"))?;
                    let base = self.qname(derivation, base)?;
                    if base == QName::new(SOAP_ENCODING, "Array") {
                        complex.array_of = Some(self.array_item(derivation)?);
                    }
                    match derivation.tag_name().name() {
                        // The extension's content follows the base's.
                        "extension" => complex.extends = Some(base),
                        // A restriction restates the content it keeps.
                        "restriction" => complex.restricts = Some(base),
                        other => return Err(self.error(derivation, &format!("xsd:{other}"))),
                    }
                    for inner in derivation.children().filter(is_xsd) {
                        match inner.tag_name().name() {
                            "sequence" | "choice" | "all" => {
                                complex.particle = Some(self.particle(inner)?);
                            }
                            "attribute" => self.attribute(inner, &mut complex)?,
                            "group" => complex.particle = Some(self.group_ref(inner)?),
                            "attributeGroup" => {
                                complex.attribute_groups.push(self.reference(inner)?);
                            }
                            "annotation" | "anyAttribute" => {}
                            other => return Err(self.error(inner, &format!("xsd:{other}"))),
                        }
                    }
                }
                "simpleContent" => {
                    let Some(derivation) = part.children().find(is_derivation) else {
                        continue;
                    };
                    let base = derivation
                        .attribute("base")
                        .ok_or_else(|| self.error(derivation, "a derivation without a base"))?;
                    complex.text = Some(self.qname(derivation, base)?);
                    for attribute in derivation.children().filter(is_xsd) {
                        match attribute.tag_name().name() {
                            "attribute" => self.attribute(attribute, &mut complex)?,
                            "attributeGroup" => {
                                complex.attribute_groups.push(self.reference(attribute)?);
                            }
                            _ => {}
                        }
                    }
                }
                "group" => complex.particle = Some(self.group_ref(part)?),
                "attributeGroup" => complex.attribute_groups.push(self.reference(part)?),
                "annotation" | "anyAttribute" => {}
                other => return Err(self.error(part, &format!("xsd:{other}"))),
            }
        }
        Ok(complex)
    }

    fn attribute(&self, node: Node<'_, '_>, complex: &mut Complex) -> Result<(), WsdlError> {
        if node.attribute("use") != Some("required") {
            return Ok(());
        }
        let name = node
            .attribute("name")
            .ok_or_else(|| self.error(node, "a required xsd:attribute by ref"))?;
        self.ncname(node, name)?;
        let ty = match node.attribute("type") {
            Some(ty) => self.qname(node, ty)?,
            None => QName::new(XSD, "string"),
        };
        let simple = match child(node, "simpleType") {
            Some(simple) => Some(self.simple(simple)?),
            None => None,
        };
        let qualified = match node.attribute("form") {
            Some(form) => form == "qualified",
            None => self.attributes_qualified,
        };
        complex.attributes.push(Attribute {
            name: name.to_owned(),
            ns: if qualified {
                self.target.to_owned()
            } else {
                String::new()
            },
            ty,
            simple,
            value: fixed_or_default(node),
        });
        Ok(())
    }

    fn particle(&self, node: Node<'_, '_>) -> Result<Particle, WsdlError> {
        let kind = match node.tag_name().name() {
            "sequence" => Group::Sequence,
            "choice" => Group::Choice,
            _ => Group::All,
        };
        let mut items = Vec::new();
        for item in node.children().filter(is_xsd) {
            let term = match item.tag_name().name() {
                "element" => Term::Element(self.element(item, false)?),
                "sequence" | "choice" | "all" => Term::Group(self.particle(item)?),
                "any" => Term::Any {
                    namespaces: match item.attribute("namespace").unwrap_or("##any").trim() {
                        "##any" => AnyNamespaces::Any,
                        "##other" => AnyNamespaces::Other(self.target.to_owned()),
                        list => AnyNamespaces::List(
                            list.split_whitespace()
                                .map(|ns| match ns {
                                    "##targetNamespace" => self.target.to_owned(),
                                    "##local" => String::new(),
                                    other => other.to_owned(),
                                })
                                .collect(),
                        ),
                    },
                    strict: item.attribute("processContents").unwrap_or("strict") == "strict",
                },
                "annotation" => continue,
                "group" => Term::GroupRef(self.reference(item)?),
                other => return Err(self.error(item, &format!("xsd:{other}"))),
            };
            items.push((term, self.occurs(item)?));
        }
        Ok(Particle {
            kind,
            items,
            occurs: self.occurs(node)?,
        })
    }

    fn occurs(&self, node: Node<'_, '_>) -> Result<Occurs, WsdlError> {
        let number = |text: &str| {
            text.trim()
                .parse::<u32>()
                .map_err(|_| WsdlError::Malformed {
                    what: format!("occurrence {text:?} is not a number"),
                    document: self.document.to_owned(),
                    line: line_of(node),
                })
        };
        let min = node.attribute("minOccurs").map_or(Ok(1), number)?;
        let max = match node.attribute("maxOccurs") {
            Some("unbounded") => None,
            Some(text) => Some(number(text)?),
            None => Some(1),
        };
        if let Some(max) = max
            && min > max
        {
            return Err(WsdlError::Malformed {
                what: format!("minOccurs {min} is above maxOccurs {max}"),
                document: self.document.to_owned(),
                line: line_of(node),
            });
        }
        Ok(Occurs { min, max })
    }
}

/// An XSD boolean attribute's value (`true` or `1`).
fn is_true(value: Option<&str>) -> bool {
    matches!(value.map(str::trim), Some("true" | "1"))
}

/// The value a declaration's `fixed` requires, else the one its `default` names.
fn fixed_or_default(node: Node<'_, '_>) -> Option<String> {
    node.attribute("fixed")
        .or_else(|| node.attribute("default"))
        .map(str::to_owned)
}

fn child<'a, 'input>(node: Node<'a, 'input>, name: &str) -> Option<Node<'a, 'input>> {
    node.children()
        .find(|child| is_xsd(child) && child.tag_name().name() == name)
}
