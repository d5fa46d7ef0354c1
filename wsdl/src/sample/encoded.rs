//! Type marks: `xsi:type` for a type that stands in for an abstract one, and SOAP 1.1 encoding
//! (section 5), as rpc/encoded services (Axis 1, older gSOAP, PHP's
//! SoapServer) read it: each accessor of a named type says its type with `xsi:type`, and an
//! array is a `soapenc:Array` whose `soapenc:arrayType` gives its items' type and count, its
//! items `<item>` accessors.

use super::{Sampler, escape, unsupported};
use crate::WsdlError;
use crate::schema::{Complex, Element, QName, SOAP_ENCODING, Type, TypeRef};

/// The rest of the start tag and the end of an array with no items.
pub(super) const EMPTY_ARRAY: &str = concat!(
    " xmlns:soapenc=\"http://schemas.xmlsoap.org/soap/encoding/\"",
    " soapenc:arrayType=\"xsd:anyType[0]\"",
    " xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">"
);

impl Sampler<'_> {
    /// ` xsi:type="..."` for an accessor of the named type `name` whose default namespace is
    /// `ns`: an array says `soapenc:Array` (its `soapenc:arrayType` names the items).
    pub(super) fn write_encoded_type(
        &self,
        name: &QName,
        ty: &Type,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        match ty {
            Type::Complex(complex) if complex.array_of.is_some() => {
                out.push_str(" xsi:type=\"soapenc:Array\"");
                Ok(())
            }
            _ => write_xsi_type(name, ns, out),
        }
    }

    /// An array's `soapenc:arrayType`, then `size` items of its type (literal use gets the
    /// items alone, which `soapenc:Array`'s open content allows).
    pub(super) fn array(
        &mut self,
        complex: &Complex,
        ns: &str,
        out: &mut String,
    ) -> Result<(), WsdlError> {
        let Some(item) = &complex.array_of else {
            return Ok(());
        };
        if item.ns.is_empty() {
            // A prefix cannot be bound to no namespace, and the default one may be another.
            return Err(unsupported(format!(
                "a SOAP-encoded array of {item}, a type of no namespace"
            )));
        }
        let count = self.size;
        out.push_str(" xmlns:soapenc=\"");
        out.push_str(SOAP_ENCODING);
        out.push_str("\" soapenc:arrayType=\"at:");
        escape(&item.local, out);
        out.push_str(&format!("[{count}]\" xmlns:at=\""));
        escape(&item.ns, out);
        out.push_str("\">");
        let element = Element::new(QName::new("", "item"), TypeRef::Named(item.clone()));
        for _ in 0..count {
            self.element(&element, ns, out)?;
        }
        Ok(())
    }
}

/// ` xsi:type="..."` naming `ty`, with the declarations it needs, in a start tag whose default
/// namespace is `ns`.
pub(super) fn write_xsi_type(ty: &QName, ns: &str, out: &mut String) -> Result<(), WsdlError> {
    out.push_str(" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"");
    if ty.ns == ns {
        // The default namespace names it without a prefix.
        out.push_str(&ty.local);
        out.push('"');
    } else if ty.ns.is_empty() {
        return Err(unsupported(format!(
            "type {ty}, of no namespace, named by xsi:type in an element of namespace {ns}"
        )));
    } else {
        out.push_str("xt:");
        out.push_str(&ty.local);
        out.push_str("\" xmlns:xt=\"");
        escape(&ty.ns, out);
        out.push('"');
    }
    Ok(())
}
