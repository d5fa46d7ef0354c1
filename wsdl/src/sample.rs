//! An instance of an element, valid against its schema: every required element and attribute,
//! optional ones once, repeated ones `size` times (within their bounds), the first branch of a
//! choice, an enumeration's first value, and values that count up (1, 2, 3, ...) so that the
//! items of an array differ. A type that contains itself (a linked list, a tree) is followed
//! once per level, `size` levels deep. Namespaces are written as default namespaces
//! (`xmlns="..."`, `xmlns=""` for an unqualified child), so no prefix is needed (but for an
//! `xsi:type` naming a type that stands in for an abstract one). The values of simple types are
//! `values`'; a required wildcard's element is `wildcard`'s.

mod encoded;
mod values;
mod wildcard;

use crate::WsdlError;
use crate::schema::{
    Attribute, Complex, Element, Group, Occurs, Particle, QName, SOAP_ENCODING, Schemas, Term,
    Type, TypeRef, XSD,
};
use encoded::{EMPTY_ARRAY, write_xsi_type};

/// Writes instances of a schema's elements.
pub(crate) struct Sampler<'a> {
    schemas: &'a Schemas,
    size: u32,
    /// The named types and global elements being written, outermost first: one found here
    /// again is recursion.
    stack: Vec<Open>,
    /// How many of the sampler's recursive steps are open (elements, derivations, simple
    /// types): the bound that keeps a cycle in the schema from overflowing the stack.
    depth: usize,
    counter: u64,
    /// The most bytes the body may reach: what is left of [`crate::MAX_CASE_BYTES`] for all
    /// the cases.
    budget: usize,
    /// What the body reached and could not write, each reason once: the operation is skipped
    /// with all of them.
    pub(crate) unsupported: Vec<WsdlError>,
    /// SOAP encoding: each accessor of a named type says it with `xsi:type` (the envelope
    /// declares the `xsi`, `xsd` and `soapenc` prefixes), arrays are `soapenc:Array`s.
    pub(crate) encoded: bool,
}

/// A named type or a global element being written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Open {
    Type(QName),
    Element(QName),
    Group(QName),
}

/// How deep a document may nest before the sampler gives up (a schema whose recursion is
/// required at every level has no finite instance, and a cycle of references, derivations or
/// simple types has none at all).
const MAX_DEPTH: usize = 256;

impl<'a> Sampler<'a> {
    /// A sampler whose bodies may reach `budget` bytes.
    pub(crate) fn new(schemas: &'a Schemas, size: u32, budget: usize) -> Sampler<'a> {
        Sampler {
            schemas,
            size: size.max(1),
            stack: Vec::new(),
            depth: 0,
            counter: 0,
            budget,
            unsupported: Vec::new(),
            encoded: false,
        }
    }

    /// Notes what was reached and cannot be written; the sampling goes on, to find the rest.
    fn reached(&mut self, errors: &[WsdlError]) {
        for error in errors {
            if !self.unsupported.contains(error) {
                self.unsupported.push(error.clone());
            }
        }
    }

    fn too_large(&self) -> WsdlError {
        WsdlError::TooLarge {
            limit_mb: crate::MAX_CASE_BYTES >> 20,
            size: self.size,
        }
    }

    /// Opens one more recursive step, or says that `what` nests without end.
    fn deeper(&mut self, what: impl FnOnce() -> String) -> Result<(), WsdlError> {
        if self.depth >= MAX_DEPTH {
            return Err(unsupported(format!(
                "{} nests more than {MAX_DEPTH} deep (a required recursion, or a cycle of references, derivations or simple types)",
                what()
            )));
        }
        self.depth += 1;
        Ok(())
    }

    /// The global element `name`, written into `out` inside the default namespace `ns`.
    pub(crate) fn global(
        &mut self,
        name: &QName,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        let element = self.schemas.concrete_element(name, &self.open(false))?;
        self.element(&element, ns, out)
    }

    /// The global elements (`types` false) or named types being written: what stands in for
    /// an abstract one is chosen among the others.
    fn open(&self, types: bool) -> Vec<QName> {
        let open = self.stack.iter().filter_map(|open| match (open, types) {
            (Open::Element(name), false) | (Open::Type(name), true) => Some(name.clone()),
            _ => None,
        });
        open.collect()
    }

    /// An element named `name` (its namespace as given) whose content is of type `ty`: an rpc
    /// part.
    pub(crate) fn typed(
        &mut self,
        name: &QName,
        ty: &QName,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        let element = Element::new(name.clone(), TypeRef::Named(ty.clone()));
        self.element(&element, ns, out)
    }

    fn element(&mut self, element: &Element, ns: &str, out: &mut String) -> Result<(), WsdlError> {
        if out.len() > self.budget {
            return Err(self.too_large());
        }
        self.deeper(|| format!("element {}", element.name))?;
        let written = self.element_within(element, ns, out);
        self.depth -= 1;
        written
    }

    fn element_within(
        &mut self,
        element: &Element,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        if let TypeRef::Element(target) = &element.ty {
            self.stack.push(Open::Element(target.clone()));
            let written = self.global(target, ns, out);
            self.stack.pop();
            return written;
        }
        out.push('<');
        out.push_str(&element.name.local);
        if element.name.ns != ns {
            out.push_str(" xmlns=\"");
            escape(&element.name.ns, out);
            out.push('"');
        }
        let inner_ns = element.name.ns.clone();
        match &element.ty {
            TypeRef::Named(name) if name.ns == XSD || name.ns == SOAP_ENCODING => {
                if name.ns == SOAP_ENCODING && name.local == "Array" {
                    // An array of undeclared items: none.
                    if self.encoded {
                        out.push_str(" xsi:type=\"soapenc:Array\"");
                    }
                    out.push_str(EMPTY_ARRAY);
                    out.push_str("</");
                    out.push_str(&element.name.local);
                    out.push('>');
                    return Ok(());
                }
                if self.encoded {
                    out.push_str(" xsi:type=\"");
                    out.push_str(if name.ns == XSD { "xsd:" } else { "soapenc:" });
                    out.push_str(&name.local);
                    out.push('"');
                }
                out.push('>');
                let value = match &element.value {
                    Some(value) => value.clone(),
                    None => self.builtin(&name.local)?,
                };
                escape(&value, out);
            }
            TypeRef::Named(name) => {
                let ty = self
                    .schemas
                    .types
                    .get(name)
                    .ok_or_else(|| self.schemas.missing("type", name))?;
                // An abstract type is written as a concrete type derived from it, named by
                // xsi:type.
                let (name, ty) = match ty {
                    Type::Complex(complex) if complex.is_abstract => {
                        let open = self.open(true);
                        let derived = self.schemas.concrete_type(name, &open)?;
                        write_xsi_type(&derived, &inner_ns, out)?;
                        let ty = self.schemas.types[&derived].clone();
                        (derived, ty)
                    }
                    _ => {
                        if self.encoded {
                            self.write_encoded_type(name, ty, &inner_ns, out)?;
                        }
                        (name.clone(), ty.clone())
                    }
                };
                self.stack.push(Open::Type(name));
                let written = self.content_of(&ty, element.value.as_deref(), &inner_ns, out);
                self.stack.pop();
                written?;
            }
            TypeRef::Anonymous(ty) => {
                self.content_of(ty, element.value.as_deref(), &inner_ns, out)?;
            }
            // Followed before the start tag.
            TypeRef::Element(_) => {}
        }
        out.push_str("</");
        out.push_str(&element.name.local);
        out.push('>');
        Ok(())
    }

    /// [`Sampler::content`], a simple type's value given by the element's `fixed` or
    /// `default` when it has one.
    fn content_of(
        &mut self,
        ty: &Type,
        value: Option<&str>,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        match (ty, value) {
            (Type::Simple(_), Some(value)) => {
                out.push('>');
                escape(value, out);
                Ok(())
            }
            _ => self.content(ty, ns, out),
        }
    }

    /// The rest of a start tag (attributes, `>`), then the content of a type.
    fn content(&mut self, ty: &Type, ns: &str, out: &mut String) -> Result<(), WsdlError> {
        match ty {
            Type::Simple(simple) => {
                out.push('>');
                let value = self.simple(simple)?;
                escape(&value, out);
            }
            Type::Unsupported(errors) => {
                self.reached(errors);
                out.push('>');
            }
            Type::Complex(complex) if complex.array_of.is_some() => {
                self.array(complex, ns, out)?;
            }
            Type::Complex(complex) => {
                let mut attributes = Vec::new();
                self.collect_attributes(complex, &mut attributes)?;
                // A qualified attribute's namespace gets a prefix of its own, once a tag.
                let mut prefixes: Vec<&str> = Vec::new();
                for attribute in &attributes {
                    let value = match (&attribute.value, &attribute.simple) {
                        (Some(value), _) => value.clone(),
                        (None, Some(simple)) => self.simple(simple)?,
                        (None, None) => self.value_of(&attribute.ty)?,
                    };
                    out.push(' ');
                    if !attribute.ns.is_empty() {
                        let index = match prefixes.iter().position(|ns| *ns == attribute.ns) {
                            Some(index) => index,
                            None => {
                                prefixes.push(&attribute.ns);
                                out.push_str(&format!("xmlns:a{}=\"", prefixes.len() - 1));
                                escape(&attribute.ns, out);
                                out.push_str("\" ");
                                prefixes.len() - 1
                            }
                        };
                        out.push_str(&format!("a{index}:"));
                    }
                    out.push_str(&attribute.name);
                    out.push_str("=\"");
                    escape(&value, out);
                    out.push('"');
                }
                out.push('>');
                self.complex_content(complex, ns, out)?;
            }
        }
        Ok(())
    }

    /// A complex type's required attributes, its bases' first.
    fn collect_attributes(
        &self,
        complex: &Complex,
        into: &mut Vec<Attribute>,
    ) -> Result<(), WsdlError> {
        // The derivation chain, walked without recursion: a type that derives from itself (or
        // from a type derived from it) is a cycle.
        let mut chain = vec![complex];
        let mut current = complex;
        while let Some(base) = &current.extends
            && let Some(Type::Complex(base_type)) = self.schemas.types.get(base)
        {
            if chain.iter().any(|seen| std::ptr::eq(*seen, base_type)) {
                return Err(unsupported(format!("type {base} derives from itself")));
            }
            if chain.len() > MAX_DEPTH {
                return Err(unsupported(format!(
                    "a derivation chain longer than {MAX_DEPTH} types (at {base})"
                )));
            }
            chain.push(base_type);
            current = base_type;
        }
        for complex in chain.iter().rev() {
            into.extend(complex.attributes.iter().cloned());
            // Attribute groups, each once, however they refer to each other.
            let mut groups: Vec<QName> = complex.attribute_groups.clone();
            let mut seen = std::collections::HashSet::new();
            while let Some(name) = groups.pop() {
                if !seen.insert(name.clone()) {
                    continue;
                }
                match self.schemas.attribute_groups.get(&name) {
                    Some(Ok(group)) => {
                        into.extend(group.attributes.iter().cloned());
                        groups.extend(group.groups.iter().cloned());
                    }
                    Some(Err(errors)) => return Err(errors[0].clone()),
                    None => {
                        return Err(self.schemas.missing("attribute group", &name));
                    }
                }
            }
        }
        // An attribute named twice (by a base and its extension, or by two groups) is written
        // once: a tag may not repeat one (found by the wsdl_reader fuzz target).
        let mut names = std::collections::HashSet::new();
        into.retain(|attribute| names.insert((attribute.ns.clone(), attribute.name.clone())));
        Ok(())
    }

    fn complex_content(
        &mut self,
        complex: &Complex,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        if let Some(base) = &complex.extends {
            if base.ns == XSD {
                // An extension of anyType adds to nothing.
            } else {
                let base_type = self
                    .schemas
                    .types
                    .get(base)
                    .ok_or_else(|| self.schemas.missing("type", base))?
                    .clone();
                self.deeper(|| format!("the derivation of type {base}"))?;
                let written = match base_type {
                    Type::Complex(base_complex) => self.complex_content(&base_complex, ns, out),
                    Type::Simple(simple) => self.simple(&simple).map(|value| escape(&value, out)),
                    Type::Unsupported(errors) => {
                        self.reached(&errors);
                        Ok(())
                    }
                };
                self.depth -= 1;
                written?;
            }
        }
        if let Some(text) = &complex.text {
            let value = self.value_of(text)?;
            escape(&value, out);
        }
        if let Some(particle) = &complex.particle {
            self.particle(particle, ns, out)?;
        }
        Ok(())
    }

    fn particle(
        &mut self,
        particle: &Particle,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        let times = self.times(particle.occurs, false);
        for _ in 0..times {
            let before = out.len();
            match particle.kind {
                Group::Sequence | Group::All => {
                    for (term, occurs) in &particle.items {
                        self.term(term, *occurs, ns, out)?;
                    }
                }
                Group::Choice => {
                    // The first branch that does not recurse, written at least once; else the
                    // first that may be empty, written as often as recursion allows (so an
                    // expression tree whose every branch recurses still ends); else the first.
                    let settled = particle
                        .items
                        .iter()
                        .find(|(term, _)| !self.recurses(term))
                        .map(|(term, occurs)| (term, at_least_once(*occurs)));
                    let chosen = settled
                        .or_else(|| {
                            let emptiable =
                                particle.items.iter().find(|(_, occurs)| occurs.min == 0);
                            emptiable.map(|(term, occurs)| (term, *occurs))
                        })
                        .or_else(|| {
                            let first = particle.items.first();
                            first.map(|(term, occurs)| (term, at_least_once(*occurs)))
                        });
                    if let Some((term, occurs)) = chosen {
                        self.term(term, occurs, ns, out)?;
                    }
                }
            }
            // A group that writes nothing writes nothing again (minOccurs may be 4 billion).
            if out.len() == before {
                break;
            }
        }
        Ok(())
    }

    fn term(
        &mut self,
        term: &Term,
        occurs: Occurs,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        let recursive = self.recurses(term);
        let times = self.times(occurs, recursive);
        match term {
            Term::Element(element) => {
                for _ in 0..times {
                    self.element(element, ns, out)?;
                }
            }
            Term::Group(particle) => {
                for _ in 0..times {
                    let before = out.len();
                    self.particle(particle, ns, out)?;
                    if out.len() == before {
                        break;
                    }
                }
            }
            Term::GroupRef(name) => {
                let group = match self.schemas.groups.get(name) {
                    Some(Ok(group)) => group.clone(),
                    Some(Err(errors)) => {
                        let errors = errors.clone();
                        self.reached(&errors);
                        return Ok(());
                    }
                    None => {
                        let missing = self.schemas.missing("group", name);
                        self.reached(&[missing]);
                        return Ok(());
                    }
                };
                // A group within itself: only as often as it must be.
                let open = Open::Group(name.clone());
                let times = if self.stack.contains(&open) {
                    occurs.min
                } else {
                    times
                };
                self.deeper(|| format!("group {name}"))?;
                self.stack.push(open);
                let mut written = Ok(());
                for _ in 0..times {
                    let before = out.len();
                    written = self.particle(&group, ns, out);
                    if written.is_err() || out.len() == before {
                        break;
                    }
                }
                self.stack.pop();
                self.depth -= 1;
                written?;
            }
            Term::Any { .. } if occurs.min == 0 => {}
            Term::Any { namespaces, strict } => {
                self.any(namespaces, *strict, occurs.min, ns, out)?
            }
        }
        Ok(())
    }

    /// How many times to write an item: once if optional, `size` times if repeated (within its
    /// bounds); a recursive one once per level while fewer than `size` levels are open, and
    /// then only as often as it must.
    fn times(&self, occurs: Occurs, recursive: bool) -> u32 {
        if recursive {
            let depth = self
                .stack
                .iter()
                .filter(|open| Some(*open) == self.stack.last())
                .count();
            let wanted = u32::from((depth as u32) < self.size);
            return wanted.max(occurs.min).min(occurs.max.unwrap_or(u32::MAX));
        }
        let wanted = match occurs.max {
            Some(1) => 1,
            Some(max) => self.size.min(max),
            None => self.size,
        };
        wanted.max(occurs.min)
    }

    /// Whether writing `term` would write a named type already being written.
    fn recurses(&self, term: &Term) -> bool {
        self.recurses_within(term, 0)
    }

    /// [`Sampler::recurses`], looking at most [`MAX_DEPTH`] groups deep (groups may refer to
    /// each other in a cycle).
    fn recurses_within(&self, term: &Term, groups: usize) -> bool {
        if groups > MAX_DEPTH {
            return false;
        }
        match term {
            Term::GroupRef(name) => match self.schemas.groups.get(name) {
                Some(Ok(group)) => group
                    .items
                    .iter()
                    .any(|(term, _)| self.recurses_within(term, groups + 1)),
                _ => false,
            },
            Term::Element(element) => match &element.ty {
                TypeRef::Named(name) => self.stack.contains(&Open::Type(name.clone())),
                TypeRef::Element(global) => {
                    self.stack.contains(&Open::Element(global.clone()))
                        || self.schemas.elements.get(global).is_some_and(|element| {
                            matches!(&element.ty, TypeRef::Named(name)
                                if self.stack.contains(&Open::Type(name.clone())))
                        })
                }
                TypeRef::Anonymous(_) => false,
            },
            Term::Group(particle) => particle
                .items
                .iter()
                .any(|(term, _)| self.recurses_within(term, groups)),
            Term::Any { .. } => false,
        }
    }
}

/// What the sampler meets and cannot write; the caller names the operation (no document line
/// is known here).
fn unsupported(construct: impl Into<String>) -> WsdlError {
    WsdlError::Unsupported {
        construct: construct.into(),
        document: String::new(),
        line: 0,
    }
}

/// `text` escaped for XML content and attribute values in double quotes.
pub(crate) fn escape(text: &str, out: &mut String) {
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            other => out.push(other),
        }
    }
}

/// `occurs` with a minimum of one: a choice's branch must be there for the choice to be.
fn at_least_once(occurs: Occurs) -> Occurs {
    Occurs {
        min: occurs.min.max(1),
        ..occurs
    }
}
