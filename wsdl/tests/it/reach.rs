//! Only what an operation reaches is judged (issue 44): a construct the reader does not
//! support, in a type no operation uses, refuses nothing; an operation that reaches one is
//! skipped with every such construct named, file and line, and the others are written;
//! `strict` refuses instead.

use crate::hostile::{Want, check, check_with};

/// A WSDL whose operations each take their own element (`name`, `element`), answered with it.
fn operations(schema: &str, operations: &[(&str, &str)]) -> String {
    let mut messages = String::new();
    let mut port_type = String::new();
    let mut binding = String::new();
    for (name, element) in operations {
        messages.push_str(&format!(
            r#"<message name="{name}In"><part name="p" element="tns:{element}"/></message>"#
        ));
        port_type.push_str(&format!(
            r#"<operation name="{name}"><input message="tns:{name}In"/><output message="tns:{name}In"/></operation>"#
        ));
        binding.push_str(&format!(
            r#"<operation name="{name}"><soap:operation soapAction="urn:{name}"/><input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>"#
        ));
    }
    format!(
        r#"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
 xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t" targetNamespace="urn:t">
<types><xsd:schema targetNamespace="urn:t" elementFormDefault="qualified">
{schema}
</xsd:schema></types>
{messages}
<portType name="PT">{port_type}</portType>
<binding name="B" type="tns:PT"><soap:binding transport="http://schemas.xmlsoap.org/soap/http" style="document"/>
{binding}</binding>
</definitions>"#
    )
}

/// A pattern no value is written for: XSD's block escapes (`\p{IsBasicLatin}`) are not read.
const LATIN: &str = r#"<xsd:simpleType name="latin"><xsd:restriction base="xsd:string"><xsd:pattern value="\p{IsBasicLatin}+"/></xsd:restriction></xsd:simpleType>"#;
/// One that is: WCF's guid.
const GUID: &str = r#"<xsd:simpleType name="guid"><xsd:restriction base="xsd:string"><xsd:pattern value="[\da-fA-F]{8}-[\da-fA-F]{4}-[\da-fA-F]{4}-[\da-fA-F]{4}-[\da-fA-F]{12}"/></xsd:restriction></xsd:simpleType>"#;
const GROUPED: &str = r#"<xsd:complexType name="Grouped"><xsd:sequence><xsd:group ref="tns:G"/></xsd:sequence></xsd:complexType>"#;
const PLAIN: &str = r#"<xsd:element name="Plain"><xsd:complexType><xsd:sequence><xsd:element name="n" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>"#;

#[test]
fn only_what_an_operation_reaches_is_judged() {
    let uses_both = r#"<xsd:element name="Both"><xsd:complexType><xsd:sequence><xsd:element name="id" type="tns:latin"/><xsd:element name="g" type="tns:Grouped"/></xsd:sequence></xsd:complexType></xsd:element>"#;
    let uses_guid = r#"<xsd:element name="ById"><xsd:complexType><xsd:sequence><xsd:element name="id" type="tns:latin"/></xsd:sequence></xsd:complexType></xsd:element>"#;
    let uses_real_guid = r#"<xsd:element name="ByGuid"><xsd:complexType><xsd:sequence><xsd:element name="id" type="tns:guid"/></xsd:sequence></xsd:complexType></xsd:element>"#;
    let cases: Vec<(&str, String, bool, Want)> = vec![
        (
            "a pattern and a group in types no operation uses (WCF's serialization schema)",
            operations(&format!("{LATIN}{GROUPED}{PLAIN}"), &[("Get", "Plain")]),
            false,
            Want::Skips {
                tests: &["Get"],
                skipped: &[],
            },
        ),
        (
            "a pattern a value is written for: WCF's guid",
            operations(&format!("{GUID}{uses_real_guid}"), &[("Find", "ByGuid")]),
            false,
            Want::Cases {
                tests: &["Find"],
                files: &["Find.xml"],
                holds: &["<id>00000000-0000-0000-0000-000000000000</id>"],
            },
        ),
        (
            "documentation first in a simple type and in a content model",
            operations(
                r#"<xsd:simpleType name="Code"><xsd:annotation><xsd:documentation>A code.</xsd:documentation></xsd:annotation><xsd:restriction base="xsd:string"><xsd:enumeration value="A1"/></xsd:restriction></xsd:simpleType>
<xsd:complexType name="Base"><xsd:sequence><xsd:element name="b" type="xsd:int"/></xsd:sequence></xsd:complexType>
<xsd:element name="Doc"><xsd:complexType><xsd:complexContent><xsd:annotation><xsd:documentation>More.</xsd:documentation></xsd:annotation><xsd:extension base="tns:Base"><xsd:sequence><xsd:element name="code" type="tns:Code"/></xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType></xsd:element>"#,
                &[("Get", "Doc")],
            ),
            false,
            Want::Skips {
                tests: &["Get"],
                skipped: &[],
            },
        ),
        (
            "one operation reaches a pattern: it is skipped, the others written",
            operations(
                &format!("{LATIN}{PLAIN}{uses_guid}"),
                &[("Get", "Plain"), ("Find", "ById"), ("Put", "Plain")],
            ),
            false,
            Want::Skips {
                tests: &["Get", "Put"],
                skipped: &[&["Find (B): w.wsdl:5: not supported: xsd:pattern"]],
            },
        ),
        (
            "every construct an operation reaches is named",
            operations(
                &format!("{LATIN}{GROUPED}{PLAIN}{uses_both}"),
                &[("Get", "Plain"), ("Both", "Both")],
            ),
            false,
            Want::Skips {
                tests: &["Get"],
                skipped: &[&[
                    "Both (B): ",
                    "w.wsdl:5: not supported: xsd:pattern",
                    "; the WSDL has no group {urn:t}G",
                ]],
            },
        ),
        (
            "a soap:header in one operation's input: a header block in its envelope",
            operations(PLAIN, &[("Get", "Plain"), ("Auth", "Plain")]).replacen(
                r#"<operation name="Auth"><soap:operation soapAction="urn:Auth"/><input>"#,
                r#"<operation name="Auth"><soap:operation soapAction="urn:Auth"/><input><soap:header message="tns:GetIn" part="p" use="literal"/>"#,
                1,
            ),
            false,
            Want::Cases {
                tests: &["Get", "Auth"],
                files: &["Get.xml", "Auth.xml"],
                holds: &[r#"<soap:Header><Plain xmlns="urn:t"><n>1</n></Plain></soap:Header><soap:Body><Plain xmlns="urn:t"><n>2</n></Plain></soap:Body>"#],
            },
        ),
        (
            "a soap:header naming a part its message lacks",
            operations(PLAIN, &[("Get", "Plain"), ("Auth", "Plain")]).replacen(
                r#"<operation name="Auth"><soap:operation soapAction="urn:Auth"/><input>"#,
                r#"<operation name="Auth"><soap:operation soapAction="urn:Auth"/><input><soap:header message="tns:GetIn" part="nope" use="literal"/>"#,
                1,
            ),
            false,
            Want::Skips {
                tests: &["Get"],
                skipped: &[&["Auth (B): ", "names part \"nope\" of message {urn:t}GetIn, which the WSDL lacks"]],
            },
        ),
        (
            "strict refuses what would be skipped",
            operations(&format!("{LATIN}{PLAIN}{uses_guid}"), &[("Get", "Plain"), ("Find", "ById")]),
            true,
            Want::Refused(&[
                "operations that cannot be written (--strict refuses them)",
                "Find (B): w.wsdl:5: not supported: xsd:pattern",
            ]),
        ),
        (
            "nothing that can be written: every reason",
            operations(&format!("{LATIN}{uses_guid}"), &[("Find", "ById"), ("Again", "ById")]),
            false,
            Want::Refused(&[
                "no operation could be written:",
                "Find (B): w.wsdl:5: not supported: xsd:pattern",
                "Again (B): w.wsdl:5: not supported: xsd:pattern",
            ]),
        ),
    ];
    for (name, text, strict, want) in cases {
        check_with(name, vec![("w.wsdl", text)], 3, strict, &want);
    }
    // Groups that refer to themselves: optional, written once; required, without end.
    let group = |min: u32| {
        operations(
            &format!(
                r#"<xsd:group name="G"><xsd:sequence><xsd:element name="a" type="xsd:int"/><xsd:group ref="tns:G" minOccurs="{min}"/></xsd:sequence></xsd:group><xsd:element name="R"><xsd:complexType><xsd:group ref="tns:G"/></xsd:complexType></xsd:element>"#
            ),
            &[("Get", "R")],
        )
    };
    check(
        "an optional group within itself",
        vec![("w.wsdl", group(0))],
        3,
        &Want::Cases {
            tests: &["Get"],
            files: &["Get.xml"],
            holds: &[r#"<R xmlns="urn:t"><a>1</a></R>"#],
        },
    );
    check(
        "a required group within itself",
        vec![("w.wsdl", group(1))],
        3,
        &Want::Refused(&["no operation could be written", "nests more than 256 deep"]),
    );
    // Attribute groups that name each other: each once.
    check(
        "attribute groups in a cycle",
        vec![(
            "w.wsdl",
            operations(
                r#"<xsd:attributeGroup name="A"><xsd:attribute name="x" type="xsd:int" use="required"/><xsd:attributeGroup ref="tns:B"/></xsd:attributeGroup><xsd:attributeGroup name="B"><xsd:attributeGroup ref="tns:A"/></xsd:attributeGroup><xsd:element name="R"><xsd:complexType><xsd:attributeGroup ref="tns:B"/></xsd:complexType></xsd:element>"#,
                &[("Get", "R")],
            ),
        )],
        3,
        &Want::Cases {
            tests: &["Get"],
            files: &["Get.xml"],
            holds: &[r#"<R xmlns="urn:t" x="1"></R>"#],
        },
    );
    // An attribute named by a type and by its group: written once (the wsdl_reader fuzz
    // target found it written twice, a malformed body).
    check(
        "an attribute named twice",
        vec![(
            "w.wsdl",
            operations(
                r#"<xsd:attributeGroup name="A"><xsd:attribute name="x" type="xsd:int" use="required"/></xsd:attributeGroup><xsd:element name="R"><xsd:complexType><xsd:attribute name="x" type="xsd:int" use="required"/><xsd:attributeGroup ref="tns:A"/></xsd:complexType></xsd:element>"#,
                &[("Get", "R")],
            ),
        )],
        3,
        &Want::Cases {
            tests: &["Get"],
            files: &["Get.xml"],
            holds: &[r#"<R xmlns="urn:t" x="1"></R>"#],
        },
    );
    // An import that is not read (another host, not named) refuses only what reaches its
    // namespace, saying why (ONVIF's WSDLs import xmlmime, XOP and OASIS' schemas so).
    check(
        "an import not read",
        vec![(
            "w.wsdl",
            operations(
                &format!(
                    r#"<xsd:import namespace="urn:far" schemaLocation="http://far.example/far.xsd"/>{PLAIN}<xsd:element name="Far"><xsd:complexType><xsd:sequence><xsd:element name="x" type="far:T" xmlns:far="urn:far"/></xsd:sequence></xsd:complexType></xsd:element>"#
                ),
                &[("Get", "Plain"), ("Reach", "Far")],
            ),
        )],
        3,
        &Want::Skips {
            tests: &["Get"],
            skipped: &[&[
                "Reach (B): the WSDL has no type {urn:far}T (its schema was not read: http://far.example/far.xsd (imported from within w.wsdl) is not read: another host is read only when named (--allow-host far.example))",
            ]],
        },
    );
    // A type that cannot be read and is used by nothing: not even read past as an error.
    check(
        "an unknown global construct",
        vec![(
            "w.wsdl",
            operations(
                &format!("<xsd:notation name=\"n\" public=\"p\"/>{PLAIN}"),
                &[("Get", "Plain")],
            ),
        )],
        3,
        &Want::Skips {
            tests: &["Get"],
            skipped: &[],
        },
    );
}

/// A `wsdl:import` that is not read (another host, not named) refuses only the operations
/// whose port type it would declare, as ONVIF's event service's OASIS port types.
#[test]
fn an_unread_wsdl_import_refuses_only_what_needs_it() {
    let remote = operations(PLAIN, &[("Get", "Plain")])
        .replacen(
            "<types>",
            r#"<import namespace="urn:other" location="http://elsewhere.example/other.wsdl"/><types>"#,
            1,
        )
        .replacen(
            "</definitions>",
            r#"<binding name="Remote" type="o:Producer" xmlns:o="urn:other"><soap:binding transport="http://schemas.xmlsoap.org/soap/http" style="document"/><operation name="Notify"><input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation></binding></definitions>"#,
            1,
        );
    check(
        "an operation of the imported port type is skipped, the others written",
        vec![("w.wsdl", remote)],
        3,
        &Want::Skips {
            tests: &["Get-B"],
            skipped: &[&[
                "Notify (Remote)",
                "port type {urn:other}Producer of binding Remote",
                "its WSDL import was not read",
                "--allow-host elsewhere.example",
            ]],
        },
    );
}

/// What an abstraction or an encoding may say that no value can meet, or that loops: each is
/// named, and nothing hangs.
#[test]
fn abstractions_that_cannot_be_written_are_named() {
    let req = |types: &str, ty: &str| {
        operations(
            &format!(r#"{types}<xsd:element name="Req" type="{ty}"/>"#),
            &[("Get", "Req")],
        )
    };
    let cases: [(&str, String, &[&str]); 5] = [
        (
            "abstract heads that stand in for each other",
            operations(
                r#"<xsd:element name="A" abstract="true" substitutionGroup="tns:B" type="xsd:string"/><xsd:element name="B" abstract="true" substitutionGroup="tns:A" type="xsd:string"/><xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element ref="tns:A"/></xsd:sequence></xsd:complexType></xsd:element>"#,
                &[("Get", "Req")],
            ),
            &["abstract element {urn:t}A, which no concrete element"],
        ),
        (
            "an abstract type nothing derives from",
            req(
                r#"<xsd:complexType name="T" abstract="true"><xsd:sequence><xsd:element name="a" type="xsd:int"/></xsd:sequence></xsd:complexType>"#,
                "tns:T",
            ),
            &["abstract type {urn:t}T, from which no concrete type derives"],
        ),
        (
            "abstract types derived from each other",
            req(
                r#"<xsd:complexType name="T" abstract="true"><xsd:complexContent><xsd:extension base="tns:U"/></xsd:complexContent></xsd:complexType><xsd:complexType name="U"><xsd:complexContent><xsd:extension base="tns:T"/></xsd:complexContent></xsd:complexType>"#,
                "tns:T",
            ),
            &["derives from itself"],
        ),
        (
            "a SOAP-encoded array of arrays",
            req(
                r#"<xsd:complexType name="T"><xsd:complexContent><xsd:restriction base="soapenc:Array" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"><xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="xsd:string[][]" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"/></xsd:restriction></xsd:complexContent></xsd:complexType>"#,
                "tns:T",
            ),
            &["a SOAP-encoded array of arrays (xsd:string[][])"],
        ),
        (
            "a SOAP-encoded array of a type of no namespace",
            req(
                r#"<xsd:complexType name="T"><xsd:complexContent><xsd:restriction base="soapenc:Array" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"><xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="Item[]" xmlns="" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"/></xsd:restriction></xsd:complexContent></xsd:complexType>"#,
                "tns:T",
            ),
            &["a SOAP-encoded array of Item, a type of no namespace"],
        ),
    ];
    for (name, text, words) in cases {
        let mut want = vec!["no operation could be written", "Get (B)"];
        want.extend_from_slice(words);
        let want: &'static [&'static str] = Vec::leak(want);
        check(name, vec![("w.wsdl", text)], 3, &Want::Refused(want));
    }
}
