//! Simple types as a schema declares them: restrictions with their facets (enumerations,
//! bounds, digits, lengths, a pattern), lists and unions.

use roxmltree::Node;

use super::{Bound, QName, Reader, Simple, Type, TypeRef, XSD, child, is_derivation, is_xsd};
use crate::WsdlError;

impl Reader<'_> {
    pub(super) fn simple(&self, node: Node<'_, '_>) -> Result<Simple, WsdlError> {
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

impl Reader<'_> {
    /// The items' type of a restriction of `soapenc:Array`: its `wsdl:arrayType` (`tns:T[]`),
    /// else the type of the one element its content names, else `xsd:anyType` (written as
    /// strings).
    pub(super) fn array_item(&self, derivation: Node<'_, '_>) -> Result<QName, WsdlError> {
        const WSDL: &str = "http://schemas.xmlsoap.org/wsdl/";
        // The declaration's prefix is resolved where it is written.
        let declared = derivation.descendants().find_map(|node| {
            node.attribute((WSDL, "arrayType"))
                .map(|value| (node, value))
        });
        if let Some((node, declared)) = declared {
            let declared = declared.trim();
            // `T[]`, `T[2]`, `T[,]`: the last brackets are this array's; more are an array of
            // arrays.
            let item = declared
                .rfind('[')
                .map_or(declared, |open| &declared[..open]);
            if item.contains('[') {
                return Err(self.error(
                    derivation,
                    &format!("a SOAP-encoded array of arrays ({declared})"),
                ));
            }
            return self.qname(node, item);
        }
        let element = derivation
            .descendants()
            .find(|node| is_xsd(node) && node.tag_name().name() == "element");
        match element.and_then(|element| element.attribute("type")) {
            Some(ty) => self.qname(derivation, ty),
            None => Ok(QName::new(XSD, "string")),
        }
    }
}
