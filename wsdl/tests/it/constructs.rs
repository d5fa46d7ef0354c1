//! Constructs of XML Schema read for issue 44, each value checked by xmllint against the
//! schema it was written from: bounds inclusive and exclusive with the digits facets, on
//! integer, decimal and float bases.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use wsdl::{Location, Options};

/// A WSDL of one operation `Get` taking element `Req` of simple type `T`, whose restriction of
/// `base` has `facets`; and the schema alone, for xmllint.
fn documents(base: &str, facets: &str) -> (String, String) {
    documents_of(&format!(
        r#"<xsd:simpleType name="T"><xsd:restriction base="xsd:{base}">{facets}</xsd:restriction></xsd:simpleType><xsd:element name="Req" type="tns:T"/>"#
    ))
}

/// The same WSDL around the declarations `body` (which declare `Req`).
fn documents_of(body: &str) -> (String, String) {
    let schema = format!(
        r#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t" targetNamespace="urn:t" elementFormDefault="qualified">{body}</xsd:schema>"#
    );
    let wsdl = format!(
        r#"<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tns="urn:t" targetNamespace="urn:t">
<types>{schema}</types>
<message name="In"><part name="p" element="tns:Req"/></message>
<portType name="PT"><operation name="Get"><input message="tns:In"/><output message="tns:In"/></operation></portType>
<binding name="B" type="tns:PT"><soap:binding transport="http://schemas.xmlsoap.org/soap/http"/><operation name="Get"><soap:operation soapAction="urn:Get"/><input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation></binding>
</definitions>"#
    );
    (wsdl, schema)
}

struct Memory(HashMap<PathBuf, String>);

impl wsdl::Loader for Memory {
    fn load(&mut self, location: &Location) -> Result<String, String> {
        match location {
            Location::File(path) => self.0.get(path).cloned().ok_or_else(|| "none".to_owned()),
            Location::Url(url) => Err(format!("no network: {url}")),
        }
    }
}

/// Writes the case of `wsdl`, checks that its body holds `payload`, and (with xmllint) that
/// `payload` is valid against `schema`.
fn check(name: &str, (wsdl, schema): (String, String), payload: &str, index: usize) {
    let generated = wsdl::generate(
        &Location::File(PathBuf::from("w.wsdl")),
        &mut Memory([(PathBuf::from("w.wsdl"), wsdl)].into()),
        &Options::default(),
    )
    .unwrap_or_else(|error| panic!("{name}: {error}"));
    let body = &generated.cases[0].body;
    assert!(body.contains(payload), "{name}: {body}");
    if !testkit::require_tool("xmllint", "--version", "libxml2-utils") {
        return;
    }
    // A folder for each case: the tests run in parallel, and each removes its own.
    let tmp = std::env::temp_dir().join(format!("wsdl-constructs-{}-{index}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (xsd, xml) = (
        tmp.join(format!("{index}.xsd")),
        tmp.join(format!("{index}.xml")),
    );
    std::fs::write(&xsd, &schema).unwrap();
    std::fs::write(&xml, payload).unwrap();
    let output = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&xsd)
        .arg(&xml)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        output.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Wildcards where required, and the built-in QName.
#[test]
fn wildcards_and_qnames_give_valid_values() {
    let any = |attributes: &str| {
        documents_of(&format!(
            r#"<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element name="a" type="xsd:int"/><xsd:any {attributes}/></xsd:sequence></xsd:complexType></xsd:element><xsd:element name="Extra" type="xsd:string"/>"#
        ))
    };
    let cases: [(&str, (String, String), &str); 5] = [
        (
            "lax, any namespace: an element nothing declares",
            any(r#"processContents="lax""#),
            r#"<Req xmlns="urn:t"><a>1</a><any xmlns="urn:wstest:any">sample</any></Req>"#,
        ),
        (
            "skip, another namespace",
            any(r###"namespace="##other" processContents="skip""###),
            r#"<Req xmlns="urn:t"><a>1</a><any xmlns="urn:wstest:any">sample</any></Req>"#,
        ),
        (
            "strict, the target namespace: a declared element, not the one being written",
            any(r###"namespace="##targetNamespace""###),
            r#"<Req xmlns="urn:t"><a>1</a><Extra>sample 2</Extra></Req>"#,
        ),
        (
            "lax, two of a listed namespace",
            any(r#"namespace="urn:x urn:y" processContents="lax" minOccurs="2" maxOccurs="2""#),
            r#"<Req xmlns="urn:t"><a>1</a><any xmlns="urn:x">sample</any><any xmlns="urn:x">sample</any></Req>"#,
        ),
        (
            "a QName",
            documents_of(r#"<xsd:element name="Req" type="xsd:QName"/>"#),
            r#"<Req xmlns="urn:t">sample1</Req>"#,
        ),
    ];
    for (index, (name, documents, payload)) in cases.into_iter().enumerate() {
        check(name, documents, payload, 100 + index);
    }
}

#[test]
fn bounds_and_digits_give_values_within_them() {
    // (base, facets, the value written)
    let cases: &[(&str, &str, &str)] = &[
        ("int", r#"<xsd:minExclusive value="10"/>"#, "11"),
        ("int", r#"<xsd:maxExclusive value="0"/>"#, "-1"),
        (
            "int",
            r#"<xsd:minInclusive value="10"/><xsd:maxInclusive value="20"/>"#,
            "10",
        ),
        (
            "int",
            r#"<xsd:minExclusive value="4"/><xsd:maxExclusive value="6"/>"#,
            "5",
        ),
        (
            "long",
            r#"<xsd:minInclusive value="-5"/><xsd:maxInclusive value="5"/>"#,
            "1",
        ),
        (
            "decimal",
            r#"<xsd:minExclusive value="0"/><xsd:maxExclusive value="1"/>"#,
            "0.5",
        ),
        ("decimal", r#"<xsd:maxExclusive value="1"/>"#, "0.5"),
        ("decimal", r#"<xsd:fractionDigits value="0"/>"#, "1"),
        (
            "decimal",
            r#"<xsd:totalDigits value="2"/><xsd:fractionDigits value="1"/>"#,
            "1.5",
        ),
        (
            "decimal",
            r#"<xsd:minInclusive value="100"/><xsd:totalDigits value="5"/>"#,
            "100",
        ),
        ("float", r#"<xsd:minExclusive value="2.5"/>"#, "3"),
        ("double", r#"<xsd:maxExclusive value="-1"/>"#, "-1.5"),
        (
            "date",
            r#"<xsd:minInclusive value="2030-06-01"/>"#,
            "2030-06-01",
        ),
        // Lengths count octets of the binary types (ONVIF's 16-octet hexBinary was 32
        // characters of `0A0Bxx...`), items of a list.
        (
            "hexBinary",
            r#"<xsd:minLength value="16"/>"#,
            "0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A",
        ),
        ("hexBinary", r#"<xsd:length value="1"/>"#, "0A"),
        ("base64Binary", r#"<xsd:length value="4"/>"#, "eHh4eA=="),
        ("base64Binary", r#"<xsd:maxLength value="2"/>"#, "eHg="),
        (
            "NMTOKENS",
            r#"<xsd:minLength value="2"/>"#,
            "sample1 sample1",
        ),
        ("string", r#"<xsd:minLength value="10"/>"#, "sample 1xx"),
    ];
    for (index, (base, facets, want)) in cases.iter().enumerate() {
        let payload = format!(r#"<Req xmlns="urn:t">{want}</Req>"#);
        check(
            &format!("{base} {facets}"),
            documents(base, facets),
            &payload,
            index,
        );
    }
}

/// What stands in for an abstract declaration, what `fixed` and `default` require, a recursion
/// whose every branch recurses, and attributes qualified or of an anonymous type.
#[test]
fn abstractions_fixed_values_and_recursive_choices_are_written_validly() {
    let cases: [(&str, &str, &str); 7] = [
        (
            "a qualified attribute (Workday's attributeFormDefault) and one of an anonymous type",
            r#"<xsd:element name="Req"><xsd:complexType><xsd:simpleContent><xsd:extension base="xsd:string"><xsd:attribute name="type" type="xsd:string" use="required" form="qualified"/><xsd:attribute name="unit" use="required"><xsd:simpleType><xsd:restriction base="xsd:string"><xsd:enumeration value="kg"/></xsd:restriction></xsd:simpleType></xsd:attribute></xsd:extension></xsd:simpleContent></xsd:complexType></xsd:element>"#,
            r#"<Req xmlns="urn:t" xmlns:a0="urn:t" a0:type="sample 1" unit="kg">sample 2</Req>"#,
        ),
        (
            "an abstract head: its first concrete member by name",
            r#"<xsd:element name="Shape" abstract="true" type="xsd:string"/>
<xsd:element name="Square" substitutionGroup="tns:Shape"/>
<xsd:element name="Circle" substitutionGroup="tns:Shape" type="tns:Round"/>
<xsd:simpleType name="Round"><xsd:restriction base="xsd:string"><xsd:enumeration value="round"/></xsd:restriction></xsd:simpleType>
<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element ref="tns:Shape"/></xsd:sequence></xsd:complexType></xsd:element>"#,
            r#"<Req xmlns="urn:t"><Circle>round</Circle></Req>"#,
        ),
        (
            "a member without a type has its head's",
            r#"<xsd:element name="Shape" abstract="true" type="xsd:int"/>
<xsd:element name="Square" substitutionGroup="tns:Shape"/>
<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element ref="tns:Shape"/></xsd:sequence></xsd:complexType></xsd:element>"#,
            r#"<Req xmlns="urn:t"><Square>1</Square></Req>"#,
        ),
        (
            "an abstract type: a derived type, named by xsi:type",
            r#"<xsd:complexType name="Vehicle" abstract="true"><xsd:sequence><xsd:element name="wheels" type="xsd:int"/></xsd:sequence></xsd:complexType>
<xsd:complexType name="Car"><xsd:complexContent><xsd:extension base="tns:Vehicle"><xsd:sequence><xsd:element name="seats" type="xsd:int"/></xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType>
<xsd:element name="Req" type="tns:Vehicle"/>"#,
            r#"<Req xmlns="urn:t" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="Car"><wheels>1</wheels><seats>2</seats></Req>"#,
        ),
        (
            "fixed and default values, on elements and attributes",
            r#"<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element name="version" type="xsd:string" fixed="2.0"/><xsd:element name="n" type="xsd:int" default="7"/><xsd:element name="kind" fixed="K"><xsd:simpleType><xsd:restriction base="xsd:string"><xsd:maxLength value="1"/></xsd:restriction></xsd:simpleType></xsd:element></xsd:sequence><xsd:attribute name="api" type="xsd:string" use="required" fixed="v9"/></xsd:complexType></xsd:element>"#,
            r#"<Req xmlns="urn:t" api="v9"><version>2.0</version><n>7</n><kind>K</kind></Req>"#,
        ),
        (
            "a choice whose every branch recurses ends at an empty branch",
            r#"<xsd:complexType name="Expression"><xsd:choice><xsd:element name="expression" type="tns:Expression" minOccurs="0"/><xsd:element name="constraint" type="tns:Constraint" minOccurs="0" maxOccurs="unbounded"/></xsd:choice></xsd:complexType>
<xsd:complexType name="Constraint"><xsd:sequence><xsd:element name="expression" type="tns:Expression"/></xsd:sequence></xsd:complexType>
<xsd:element name="Req" type="tns:Expression"/>"#,
            concat!(
                r#"<Req xmlns="urn:t">"#,
                r#"<constraint><expression><expression></expression></expression></constraint>"#,
                r#"<constraint><expression><expression></expression></expression></constraint>"#,
                r#"<constraint><expression><expression></expression></expression></constraint>"#,
                "</Req>"
            ),
        ),
        (
            "a type derived by restriction stands in for its abstract base",
            r#"<xsd:complexType name="Base" abstract="true"><xsd:sequence><xsd:element name="a" type="xsd:int" minOccurs="0"/></xsd:sequence></xsd:complexType>
<xsd:complexType name="Narrow"><xsd:complexContent><xsd:restriction base="tns:Base"><xsd:sequence><xsd:element name="a" type="xsd:int"/></xsd:sequence></xsd:restriction></xsd:complexContent></xsd:complexType>
<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element name="b" type="tns:Base"/></xsd:sequence></xsd:complexType></xsd:element>"#,
            r#"<Req xmlns="urn:t"><b xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="Narrow"><a>1</a></b></Req>"#,
        ),
    ];
    for (index, (name, declarations, want)) in cases.into_iter().enumerate() {
        check(name, documents_of(declarations), want, 200 + index);
    }
}
