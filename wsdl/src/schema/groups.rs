//! References to global declarations: model groups and attribute groups, read where they are
//! named.

use roxmltree::Node;

use super::{AttributeGroup, Complex, Group, Occurs, Particle, QName, Reader, Term, is_xsd};
use crate::WsdlError;

impl Reader<'_> {
    /// The global declaration a `ref=` names.
    pub(super) fn reference(&self, node: Node<'_, '_>) -> Result<QName, WsdlError> {
        let name = node.attribute("ref").ok_or_else(|| {
            self.error(
                node,
                &format!("an xsd:{} without ref", node.tag_name().name()),
            )
        })?;
        self.qname(node, name)
    }

    /// A content model that is a group reference: a sequence of that one group.
    pub(super) fn group_ref(&self, node: Node<'_, '_>) -> Result<Particle, WsdlError> {
        Ok(Particle {
            kind: Group::Sequence,
            items: vec![(Term::GroupRef(self.reference(node)?), self.occurs(node)?)],
            occurs: Occurs {
                min: 1,
                max: Some(1),
            },
        })
    }

    /// A global `xsd:attributeGroup`'s required attributes and the groups it names.
    pub(super) fn attribute_group(&self, node: Node<'_, '_>) -> Result<AttributeGroup, WsdlError> {
        let mut complex = Complex::default();
        for child in node.children().filter(is_xsd) {
            match child.tag_name().name() {
                "attribute" => self.attribute(child, &mut complex)?,
                "attributeGroup" => complex.attribute_groups.push(self.reference(child)?),
                _ => {}
            }
        }
        Ok(AttributeGroup {
            attributes: complex.attributes,
            groups: complex.attribute_groups,
        })
    }
}
