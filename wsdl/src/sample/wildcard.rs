//! A required wildcard's content: a declared global element it allows (strict), or an element
//! of a namespace it allows (lax and skip, which nothing validates).

use super::{Open, Sampler, escape, unsupported};
use crate::WsdlError;
use crate::schema::{AnyNamespaces, QName};

impl Sampler<'_> {
    /// `min` elements an `xsd:any` of `namespaces` allows, inside the default namespace `ns`.
    pub(super) fn any(
        &mut self,
        namespaces: &AnyNamespaces,
        strict: bool,
        min: u32,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        let allows = |ns: &str| match namespaces {
            AnyNamespaces::Any => true,
            AnyNamespaces::Other(target) => !ns.is_empty() && ns != target,
            AnyNamespaces::List(list) => list.iter().any(|allowed| allowed == ns),
        };
        if strict {
            // A declared global element the wildcard allows and not already being
            // written, in name order, so that the choice does not depend on the map's.
            let mut declared: Vec<&QName> = self
                .schemas
                .elements
                .keys()
                .filter(|name| {
                    allows(&name.ns) && !self.stack.contains(&Open::Element((*name).clone()))
                })
                .collect();
            declared.sort();
            let Some(name) = declared.first().map(|name| (*name).clone()) else {
                return Err(unsupported(
                    "a required xsd:any processContents=\"strict\" that no declared element meets",
                ));
            };
            self.stack.push(Open::Element(name.clone()));
            let mut written = Ok(());
            for _ in 0..min {
                written = self.global(&name, ns, out);
                if written.is_err() {
                    break;
                }
            }
            self.stack.pop();
            written?;
        } else {
            // lax or skip: an element of an allowed namespace, which nothing validates.
            let any_ns = match namespaces {
                AnyNamespaces::Any | AnyNamespaces::Other(_) => "urn:wstest:any",
                AnyNamespaces::List(list) => list.first().map_or("", String::as_str),
            };
            for _ in 0..min {
                out.push_str("<any xmlns=\"");
                escape(any_ns, out);
                out.push_str("\">sample</any>");
            }
        }
        Ok(())
    }
}
