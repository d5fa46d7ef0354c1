//! The part of XML Schema 1.0 that WSDLs' types use, read into a model the sample writer walks:
//! global elements, named and anonymous complex types (sequence, choice, all, nested groups,
//! complexContent extension and restriction, simpleContent, attributes), simple types
//! (restrictions with enumerations and bounds, lists, unions), element references and
//! `elementFormDefault`, model and attribute groups by reference, patterns. What it does not read
//! (substitution groups, a pattern no value is written for) is an error naming the construct,
//! kept with the global declaration it is in until an operation reaches it.

use std::collections::HashMap;

use roxmltree::Node;

use crate::WsdlError;

mod groups;
mod names;

pub(crate) use names::{QName, check_ncname, line_of, resolve};

pub(crate) const XSD: &str = "http://www.w3.org/2001/XMLSchema";

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
    pub(crate) particle: Option<Particle>,
    /// simpleContent: the text's type.
    pub(crate) text: Option<QName>,
    /// Required attributes: name and type.
    pub(crate) attributes: Vec<(String, QName)>,
    /// `xsd:attributeGroup ref=`: more required attributes, by the group's name.
    pub(crate) attribute_groups: Vec<QName>,
}

/// A global `xsd:attributeGroup`: its required attributes and the groups it refers to.
#[derive(Debug, Clone, Default)]
pub(crate) struct AttributeGroup {
    pub(crate) attributes: Vec<(String, QName)>,
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
                    let element = reader.element(child, true).unwrap_or_else(|error| Element {
                        name: name.clone(),
                        ty: TypeRef::Anonymous(Box::new(Type::Unsupported(vec![error]))),
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
            return Ok(Element {
                name: target.clone(),
                ty: TypeRef::Element(target),
            });
        }
        if node.attribute("substitutionGroup").is_some() {
            return Err(self.error(node, "xsd:element substitutionGroup"));
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
        let ty = if let Some(ty) = node.attribute("type") {
            TypeRef::Named(self.qname(node, ty)?)
        } else if let Some(complex) = child(node, "complexType") {
            TypeRef::Anonymous(Box::new(Type::Complex(self.complex(complex)?)))
        } else if let Some(simple) = child(node, "simpleType") {
            TypeRef::Anonymous(Box::new(Type::Simple(self.simple(simple)?)))
        } else {
            // No type: xsd:anyType, sampled as text.
            TypeRef::Named(QName::new(XSD, "string"))
        };
        Ok(Element {
            name: QName::new(ns, local),
            ty,
        })
    }

    fn complex(&self, node: Node<'_, '_>) -> Result<Complex, WsdlError> {
        let mut complex = Complex::default();
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
                    if base == QName::new("http://schemas.xmlsoap.org/soap/encoding/", "Array") {
                        return Err(self.error(derivation, "a SOAP-encoded array (soapenc:Array)"));
                    }
                    match derivation.tag_name().name() {
                        // The extension's content follows the base's.
                        "extension" => complex.extends = Some(base),
                        // A restriction restates the content it keeps.
                        "restriction" => {}
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
        complex.attributes.push((name.to_owned(), ty));
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

    fn simple(&self, node: Node<'_, '_>) -> Result<Simple, WsdlError> {
        let Some(derivation) = node.children().find(is_derivation) else {
            return Err(self.error(node, "an empty xsd:simpleType"));
        };
        match derivation.tag_name().name() {
            "restriction" => {
                let base = match derivation.attribute("base") {
                    Some(base) => self.qname(derivation, base)?,
                    None => {
                        return Err(self.error(derivation, "a restriction of an anonymous type"));
                    }
                };
                let mut enumeration = Vec::new();
                let (mut min, mut max, mut min_length, mut max_length) = (None, None, None, None);
                let mut pattern = None;
                let mut digits = (None, None);
                for facet in derivation.children().filter(is_xsd) {
                    let value = facet.attribute("value").unwrap_or_default().to_owned();
                    let bound = |inclusive| {
                        Some(Bound {
                            value: value.trim().to_owned(),
                            inclusive,
                        })
                    };
                    match facet.tag_name().name() {
                        "enumeration" => enumeration.push(value),
                        "minInclusive" => min = bound(true),
                        "maxInclusive" => max = bound(true),
                        "minExclusive" => min = bound(false),
                        "maxExclusive" => max = bound(false),
                        "totalDigits" => digits.0 = value.trim().parse().ok(),
                        "fractionDigits" => digits.1 = value.trim().parse().ok(),
                        "minLength" | "length" => min_length = value.parse().ok(),
                        "maxLength" => max_length = value.parse().ok(),
                        "pattern" => pattern = pattern.or(Some(facet)),
                        _ => {}
                    }
                    if facet.tag_name().name() == "length" {
                        max_length = min_length;
                    }
                }
                // An enumeration gives the value; else the first pattern does, when a value it
                // matches can be written from it.
                let pattern = match (pattern, enumeration.is_empty()) {
                    (Some(facet), true) => {
                        let expression = facet.attribute("value").unwrap_or_default();
                        let read = crate::pattern::Pattern::read(expression).map_err(|why| {
                            self.error(facet, &format!("xsd:pattern {expression:?}: {why}"))
                        })?;
                        let value = &read.shortest;
                        let chars = value.chars().count();
                        if min_length.is_some_and(|min| chars < min)
                            || max_length.is_some_and(|max| chars > max)
                        {
                            return Err(self.error(
                                facet,
                                &format!(
                                    "xsd:pattern {expression:?} with a length its shortest value {value:?} does not meet"
                                ),
                            ));
                        }
                        Some(read)
                    }
                    _ => None,
                };
                Ok(Simple::Restriction {
                    base,
                    enumeration,
                    min,
                    max,
                    digits,
                    min_length,
                    max_length,
                    pattern,
                })
            }
            "list" => Ok(Simple::List(self.member(derivation, "itemType")?)),
            "union" => {
                let first = derivation
                    .attribute("memberTypes")
                    .and_then(|members| members.split_whitespace().next());
                match first {
                    Some(member) => Ok(Simple::Union(TypeRef::Named(
                        self.qname(derivation, member)?,
                    ))),
                    None => Ok(Simple::Union(self.member(derivation, "")?)),
                }
            }
            other => Err(self.error(derivation, &format!("xsd:{other}"))),
        }
    }

    /// A list's or union's member: named by `attribute`, or the first inline simple type.
    fn member(&self, node: Node<'_, '_>, attribute: &str) -> Result<TypeRef, WsdlError> {
        if let Some(name) = node.attribute(attribute) {
            return Ok(TypeRef::Named(self.qname(node, name)?));
        }
        let inline = child(node, "simpleType")
            .ok_or_else(|| self.error(node, "a list or union without a member type"))?;
        Ok(TypeRef::Anonymous(Box::new(Type::Simple(
            self.simple(inline)?,
        ))))
    }
}

fn child<'a, 'input>(node: Node<'a, 'input>, name: &str) -> Option<Node<'a, 'input>> {
    node.children()
        .find(|child| is_xsd(child) && child.tag_name().name() == name)
}
