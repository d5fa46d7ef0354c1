//! What stands in for an abstract declaration: a member of an element's substitution group, a
//! type derived from an abstract type. Each is chosen the same way every time (the first by
//! name that is not abstract and not already being written), so cases do not change between
//! runs.

use super::{Element, QName, Schemas, Type};
use crate::WsdlError;

/// How far a chain of substitution-group heads or of derivations is followed (a cycle in a
/// hostile schema would otherwise never end).
const MAX_CHAIN: usize = 256;

impl Schemas {
    /// The global element `name` as an instance writes it: itself, or when abstract, the first
    /// concrete member of its substitution group not in `open`; a member that declares no type
    /// has its head's.
    pub(crate) fn concrete_element(
        &self,
        name: &QName,
        open: &[QName],
    ) -> Result<Element, WsdlError> {
        let element = self
            .elements
            .get(name)
            .ok_or_else(|| self.missing("element", name))?;
        let chosen = if element.is_abstract {
            let mut members: Vec<&QName> = self
                .elements
                .iter()
                .filter(|(member, declared)| {
                    !declared.is_abstract
                        && !open.contains(member)
                        && self.heads(declared).any(|head| head == name)
                })
                .map(|(member, _)| member)
                .collect();
            members.sort();
            let member = members.first().ok_or_else(|| WsdlError::Unsupported {
                construct: format!(
                    "abstract element {name}, which no concrete element of its substitution group can stand in for"
                ),
                document: String::new(),
                line: 0,
            })?;
            &self.elements[*member]
        } else {
            element
        };
        let typed = chosen.untyped.then(|| {
            self.heads(chosen)
                .find_map(|head| self.elements.get(head).filter(|declared| !declared.untyped))
        });
        let mut chosen = chosen.clone();
        if let Some(Some(typed)) = typed {
            chosen.ty = typed.ty.clone();
        }
        Ok(chosen)
    }

    /// The heads of `element`'s substitution group, nearest first (at most [`MAX_CHAIN`]).
    fn heads<'a>(&'a self, element: &'a Element) -> impl Iterator<Item = &'a QName> + 'a {
        std::iter::successors(element.head.as_ref(), |head| {
            self.elements
                .get(*head)
                .and_then(|declared| declared.head.as_ref())
        })
        .take(MAX_CHAIN)
    }

    /// The first concrete complex type by name, not in `open`, derived (by extension or
    /// restriction, at any remove) from the abstract type `name`.
    pub(crate) fn concrete_type(&self, name: &QName, open: &[QName]) -> Result<QName, WsdlError> {
        let mut derived: Vec<&QName> = self
            .types
            .iter()
            .filter(|(candidate, ty)| {
                matches!(ty, Type::Complex(complex) if !complex.is_abstract)
                    && !open.contains(candidate)
                    && self.bases(candidate).any(|base| base == name)
            })
            .map(|(candidate, _)| candidate)
            .collect();
        derived.sort();
        derived
            .first()
            .map(|name| (*name).clone())
            .ok_or_else(|| WsdlError::Unsupported {
                construct: format!(
                    "abstract type {name}, from which no concrete type derives to stand in for it"
                ),
                document: String::new(),
                line: 0,
            })
    }

    /// The complex types `name` derives from, nearest first (at most [`MAX_CHAIN`]).
    fn bases<'a>(&'a self, name: &'a QName) -> impl Iterator<Item = &'a QName> + 'a {
        let base_of = |name: &QName| match self.types.get(name) {
            Some(Type::Complex(complex)) => complex.extends.as_ref().or(complex.restricts.as_ref()),
            _ => None,
        };
        std::iter::successors(base_of(name), move |base| base_of(base)).take(MAX_CHAIN)
    }
}
