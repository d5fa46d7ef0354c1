//! WSDLs written to attack the reader (issue 43's cases, and more of their kind): each is
//! refused with words that say why, or read within its limits; none crashes, hangs or writes
//! without bound. They are made here rather than kept as files: most are large or repetitive.

use std::collections::HashMap;
use std::path::PathBuf;

use wsdl::{Location, Options};

/// Documents held in memory, by file name.
struct Memory(HashMap<PathBuf, String>);

impl wsdl::Loader for Memory {
    fn load(&mut self, location: &Location) -> Result<String, String> {
        match location {
            Location::File(path) => self
                .0
                .get(path)
                .cloned()
                .ok_or_else(|| format!("no {}", path.display())),
            Location::Url(url) => Err(format!("no network in tests: {url}")),
        }
    }
}

/// A WSDL of one document/literal operation per name in `operations` (each of action
/// `urn:NAME`, unless `action` is given), all taking and giving element `tns:Req` of `schema`.
fn wsdl(schema: &str, operations: &[&str], action: Option<&str>) -> String {
    let mut port_type = String::new();
    let mut binding = String::new();
    for name in operations {
        let action = action.map_or_else(|| format!("urn:{name}"), str::to_owned);
        port_type.push_str(&format!(
            r#"<operation name="{name}"><input message="tns:In"/><output message="tns:Out"/></operation>"#
        ));
        binding.push_str(&format!(
            r#"<operation name="{name}"><soap:operation soapAction="{action}"/><input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>"#
        ));
    }
    format!(
        r#"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
 xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t" targetNamespace="urn:t">
<types><xsd:schema targetNamespace="urn:t" elementFormDefault="qualified">{schema}</xsd:schema></types>
<message name="In"><part name="p" element="tns:Req"/></message>
<message name="Out"><part name="p" element="tns:Req"/></message>
<portType name="PT">{port_type}</portType>
<binding name="B" type="tns:PT"><soap:binding transport="http://schemas.xmlsoap.org/soap/http" style="document"/>
{binding}</binding>
</definitions>"#
    )
}

/// One operation, `Op`, of `schema`.
fn one(schema: &str) -> String {
    wsdl(schema, &["Op"], None)
}

/// `Req` of the named type `T`, declared by `types`.
fn of_type(types: &str) -> String {
    one(&format!(r#"{types}<xsd:element name="Req" type="tns:T"/>"#))
}

/// What a case must give: an error holding every word, or cases whose bodies hold every text
/// (and, when `skipped` is not empty, operations skipped with lines holding these texts).
pub(crate) enum Want {
    Refused(&'static [&'static str]),
    Cases {
        tests: &'static [&'static str],
        files: &'static [&'static str],
        holds: &'static [&'static str],
    },
    Skips {
        tests: &'static [&'static str],
        skipped: &'static [&'static [&'static str]],
    },
}

pub(crate) fn check(name: &str, documents: Vec<(&str, String)>, size: u32, want: &Want) {
    check_with(name, documents, size, false, want);
}

pub(crate) fn check_with(
    name: &str,
    documents: Vec<(&str, String)>,
    size: u32,
    strict: bool,
    want: &Want,
) {
    let mut memory = Memory(
        documents
            .into_iter()
            .map(|(file, text)| (PathBuf::from(file), text))
            .collect(),
    );
    let generated = wsdl::generate(
        &Location::File(PathBuf::from("w.wsdl")),
        &mut memory,
        &Options {
            size,
            binding: None,
            strict,
            allow_hosts: Vec::new(),
        },
    );
    match (want, generated) {
        (Want::Refused(words), Err(error)) => {
            let text = error.to_string();
            for word in *words {
                assert!(text.contains(word), "{name}: {text:?} lacks {word:?}");
            }
        }
        (
            Want::Cases {
                tests,
                files,
                holds,
            },
            Ok(generated),
        ) => {
            let have: Vec<&str> = generated.cases.iter().map(|c| c.test.as_str()).collect();
            assert_eq!(have, *tests, "{name}");
            let have: Vec<&str> = generated.cases.iter().map(|c| c.file.as_str()).collect();
            assert_eq!(have, *files, "{name}");
            for text in *holds {
                assert!(
                    generated.cases.iter().any(|case| case.body.contains(text)),
                    "{name}: no body holds {text:?}"
                );
            }
            for case in &generated.cases {
                roxmltree::Document::parse(&case.body)
                    .unwrap_or_else(|error| panic!("{name}: {error}"));
            }
        }
        (Want::Skips { tests, skipped }, Ok(generated)) => {
            let have: Vec<&str> = generated.cases.iter().map(|c| c.test.as_str()).collect();
            assert_eq!(have, *tests, "{name}");
            assert_eq!(
                generated.skipped.len(),
                skipped.len(),
                "{name}: {:?}",
                generated.skipped
            );
            for (line, words) in generated.skipped.iter().zip(*skipped) {
                for word in *words {
                    assert!(line.contains(word), "{name}: {line:?} lacks {word:?}");
                }
            }
        }
        (Want::Refused(_), Ok(generated)) => {
            panic!("{name}: read, {} cases", generated.cases.len())
        }
        (Want::Cases { .. } | Want::Skips { .. }, Err(error)) => panic!("{name}: {error}"),
    }
}

const NESTS: &[&str] = &["nests more than 256 deep"];

/// What a case is, its documents (the WSDL first), the size, and what it must give.
type Case<'a> = (&'a str, Vec<(&'a str, String)>, u32, Want);

#[test]
fn hostile_wsdls_are_refused_or_read_within_their_limits() {
    let string = r#"<xsd:element name="Req" type="xsd:string"/>"#;
    let deep = |n: usize, open: &str, close: &str| {
        one(&format!(
            r#"<xsd:element name="Req"><xsd:complexType>{}{}</xsd:complexType></xsd:element>"#,
            open.repeat(n),
            close.repeat(n)
        ))
    };
    let chain = |n: usize, link: &dyn Fn(usize) -> String, last: &str| {
        let links: String = (0..n).map(link).collect();
        one(&format!(
            r#"{links}{}<xsd:element name="Req" type="tns:T0"/>"#,
            last.replace("LAST", &format!("T{n}"))
        ))
    };
    let length = |base: &str, n: &str| {
        of_type(&format!(
            r#"<xsd:simpleType name="T"><xsd:restriction base="xsd:{base}"><xsd:length value="{n}"/></xsd:restriction></xsd:simpleType>"#
        ))
    };
    let arrays = r#"<xsd:complexType name="A0"><xsd:sequence><xsd:element name="s" type="xsd:string" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType><xsd:complexType name="A1"><xsd:sequence><xsd:element name="x" type="tns:A0" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType><xsd:complexType name="A2"><xsd:sequence><xsd:element name="x" type="tns:A1" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType><xsd:element name="Req" type="tns:A2"/>"#;
    let forty: Vec<String> = (0..40).map(|i| format!("Op{i}")).collect();
    let forty: Vec<&str> = forty.iter().map(String::as_str).collect();
    let cases: Vec<Case> = vec![
        // Header injection through the action.
        (
            "a CR LF in the soapAction",
            vec![(
                "w.wsdl",
                wsdl(string, &["Op"], Some("urn:a&#13;&#10;X-Injected: 1")),
            )],
            3,
            Want::Refused(&[
                "w.wsdl:9:",
                r"holds '\r', which a header value cannot carry",
            ]),
        ),
        (
            "a bare LF in the soapAction",
            vec![(
                "w.wsdl",
                wsdl(string, &["Op"], Some("urn:a&#10;X-Injected: 1")),
            )],
            3,
            Want::Refused(&[r"holds '\n'"]),
        ),
        (
            "a quote in the soapAction",
            vec![("w.wsdl", wsdl(string, &["Op"], Some("urn:a&quot;, b")))],
            3,
            Want::Refused(&["holds '\"'"]),
        ),
        // Cycles: each would recurse without end.
        (
            "an element that is its own content",
            vec![(
                "w.wsdl",
                one(
                    r#"<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element ref="tns:Req"/></xsd:sequence></xsd:complexType></xsd:element>"#,
                ),
            )],
            3,
            Want::Refused(NESTS),
        ),
        (
            "elements in a cycle of references",
            vec![(
                "w.wsdl",
                one(
                    r#"<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element ref="tns:C"/></xsd:sequence></xsd:complexType></xsd:element><xsd:element name="C"><xsd:complexType><xsd:sequence><xsd:element ref="tns:Req"/></xsd:sequence></xsd:complexType></xsd:element>"#,
                ),
            )],
            3,
            Want::Refused(NESTS),
        ),
        (
            "an optional reference to itself: followed --size levels",
            vec![(
                "w.wsdl",
                one(
                    r#"<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element ref="tns:Req" minOccurs="0"/></xsd:sequence></xsd:complexType></xsd:element>"#,
                ),
            )],
            3,
            Want::Cases {
                tests: &["Op"],
                files: &["Op.xml"],
                holds: &[r#"<Req xmlns="urn:t"><Req><Req><Req></Req></Req></Req></Req>"#],
            },
        ),
        (
            "a type that extends itself",
            vec![(
                "w.wsdl",
                of_type(
                    r#"<xsd:complexType name="T"><xsd:complexContent><xsd:extension base="tns:T"/></xsd:complexContent></xsd:complexType>"#,
                ),
            )],
            3,
            Want::Refused(&["type {urn:t}T derives from itself"]),
        ),
        (
            "types that extend each other",
            vec![(
                "w.wsdl",
                of_type(
                    r#"<xsd:complexType name="T"><xsd:complexContent><xsd:extension base="tns:U"/></xsd:complexContent></xsd:complexType><xsd:complexType name="U"><xsd:complexContent><xsd:extension base="tns:T"/></xsd:complexContent></xsd:complexType>"#,
                ),
            )],
            3,
            Want::Refused(&["derives from itself"]),
        ),
        (
            "a simple type that restricts itself",
            vec![(
                "w.wsdl",
                of_type(
                    r#"<xsd:simpleType name="T"><xsd:restriction base="tns:T"/></xsd:simpleType>"#,
                ),
            )],
            3,
            Want::Refused(NESTS),
        ),
        (
            "a list of itself",
            vec![(
                "w.wsdl",
                of_type(
                    r#"<xsd:simpleType name="T"><xsd:list itemType="tns:T"/></xsd:simpleType>"#,
                ),
            )],
            3,
            Want::Refused(NESTS),
        ),
        (
            "a union of itself",
            vec![(
                "w.wsdl",
                of_type(
                    r#"<xsd:simpleType name="T"><xsd:union memberTypes="tns:T"/></xsd:simpleType>"#,
                ),
            )],
            3,
            Want::Refused(NESTS),
        ),
        // Depth: everything that reads the schema recurses once a level.
        (
            "anonymous types nested 20,000 deep",
            vec![(
                "w.wsdl",
                deep(
                    20_000,
                    r#"<xsd:sequence><xsd:element name="a"><xsd:complexType>"#,
                    "</xsd:complexType></xsd:element></xsd:sequence>",
                ),
            )],
            3,
            Want::Refused(&["w.wsdl:4:", "elements nest more than 256 deep"]),
        ),
        (
            "sequences nested 100,000 deep",
            vec![("w.wsdl", deep(100_000, "<xsd:sequence>", "</xsd:sequence>"))],
            3,
            Want::Refused(&["elements nest more than 256 deep"]),
        ),
        (
            "an extension chain 20,000 long",
            vec![(
                "w.wsdl",
                chain(
                    20_000,
                    &|i| {
                        format!(
                            r#"<xsd:complexType name="T{i}"><xsd:complexContent><xsd:extension base="tns:T{}"/></xsd:complexContent></xsd:complexType>"#,
                            i + 1
                        )
                    },
                    r#"<xsd:complexType name="LAST"/>"#,
                ),
            )],
            3,
            Want::Refused(&["a derivation chain longer than 256 types"]),
        ),
        (
            "a restriction chain 20,000 long",
            vec![(
                "w.wsdl",
                chain(
                    20_000,
                    &|i| {
                        format!(
                            r#"<xsd:simpleType name="T{i}"><xsd:restriction base="tns:T{}"/></xsd:simpleType>"#,
                            i + 1
                        )
                    },
                    r#"<xsd:simpleType name="LAST"><xsd:restriction base="xsd:int"/></xsd:simpleType>"#,
                ),
            )],
            3,
            Want::Refused(NESTS),
        ),
        // Size and time: checked before anything is made.
        (
            "a length of a million, made in linear time",
            vec![("w.wsdl", length("string", "1000000"))],
            3,
            Want::Cases {
                tests: &["Op"],
                files: &["Op.xml"],
                holds: &["sample 1xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"],
            },
        ),
        (
            "a string of a billion characters",
            vec![("w.wsdl", length("string", "1000000000"))],
            3,
            Want::Refused(&["would pass 64 MB in all"]),
        ),
        (
            "base64Binary of four billion",
            vec![("w.wsdl", length("base64Binary", "4000000000"))],
            3,
            Want::Refused(&["would pass 64 MB in all"]),
        ),
        (
            "hexBinary of four billion",
            vec![("w.wsdl", length("hexBinary", "4000000000"))],
            3,
            Want::Refused(&["would pass 64 MB in all"]),
        ),
        (
            "100,000 attributes on one element, refused before the parser's quadratic check",
            vec![(
                "w.wsdl",
                one(&format!(
                    r#"<xsd:element name="Req" type="xsd:string" {}/>"#,
                    (0..100_000)
                        .map(|i| format!(r#"x{i}="1""#))
                        .collect::<Vec<_>>()
                        .join(" ")
                )),
            )],
            3,
            Want::Refused(&["w.wsdl:4:", "an element has more than 1024 attributes"]),
        ),
        (
            "10,000 required attributes declared, written in linear time",
            vec![(
                "w.wsdl",
                one(&format!(
                    r#"<xsd:element name="Req"><xsd:complexType>{}</xsd:complexType></xsd:element>"#,
                    (0..10_000)
                        .map(|i| format!(
                            r#"<xsd:attribute name="a{i}" type="xsd:int" use="required"/>"#
                        ))
                        .collect::<String>()
                )),
            )],
            3,
            Want::Cases {
                tests: &["Op"],
                files: &["Op.xml"],
                holds: &[r#" a9999="10000">"#],
            },
        ),
        (
            "an empty group required four billion times",
            vec![(
                "w.wsdl",
                one(
                    r#"<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:sequence minOccurs="4000000000" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType></xsd:element>"#,
                ),
            )],
            3,
            Want::Cases {
                tests: &["Op"],
                files: &["Op.xml"],
                holds: &[r#"<Req xmlns="urn:t"></Req>"#],
            },
        ),
        (
            "40 operations of 2 MB each: the bound is on all the cases",
            vec![("w.wsdl", wsdl(arrays, &forty, None))],
            120,
            Want::Refused(&["would pass 64 MB in all at --size 120"]),
        ),
        (
            "600 schemas each including the next",
            {
                let mut documents: Vec<(&str, String)> =
                    vec![("w.wsdl", one(r#"<xsd:include schemaLocation="s0.xsd"/>"#))];
                for i in 0..600 {
                    let name: &'static str = Box::leak(format!("s{i}.xsd").into_boxed_str());
                    documents.push((name, format!(r#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t"><xsd:include schemaLocation="s{}.xsd"/></xsd:schema>"#, i + 1)));
                }
                documents
            },
            3,
            Want::Refused(&["more than 500 documents"]),
        ),
        (
            "two documents of 40 MB",
            vec![
                (
                    "w.wsdl",
                    one(&format!(
                        r#"<xsd:include schemaLocation="big.xsd"/><!--{}-->"#,
                        " ".repeat(40 << 20)
                    )),
                ),
                (
                    "big.xsd",
                    format!(
                        r#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t"/><!--{}-->"#,
                        " ".repeat(40 << 20)
                    ),
                ),
            ],
            3,
            Want::Refused(&["pass 64 MB in all (at big.xsd)"]),
        ),
        // Imports: a relative one anywhere on the file system (ONVIF's layout), never an
        // absolute path, another scheme or another host.
        (
            "a relative import above the WSDL's folder",
            vec![
                ("w.wsdl", wsdl(r#"<xsd:include schemaLocation="../../ver10/schema/types.xsd"/>"#, &["Op"], None)),
                ("../../ver10/schema/types.xsd", r#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" elementFormDefault="qualified"><xsd:element name="Req" type="xsd:int"/></xsd:schema>"#.to_owned()),
            ],
            3,
            Want::Cases {
                tests: &["Op"],
                files: &["Op.xml"],
                holds: &[r#"<Req xmlns="urn:t">1</Req>"#],
            },
        ),
        (
            "an absolute path",
            vec![("w.wsdl", wsdl(r#"<xsd:include schemaLocation="/etc/passwd"/>"#, &["Op"], None))],
            3,
            Want::Refused(&["/etc/passwd (imported from within w.wsdl) is not read: an absolute path is not followed"]),
        ),
        (
            "a file: URL",
            vec![("w.wsdl", wsdl(r#"<xsd:include schemaLocation="file:///etc/passwd"/>"#, &["Op"], None))],
            3,
            Want::Refused(&["only http:// and https:// are fetched"]),
        ),
        (
            "another host, not named",
            vec![("w.wsdl", wsdl(r#"<xsd:include schemaLocation="http://169.254.169.254/latest/meta-data"/>"#, &["Op"], None))],
            3,
            Want::Refused(&["--allow-host 169.254.169.254"]),
        ),
        // Names: every case its own file, and nothing malformed written.
        (
            "minOccurs above maxOccurs",
            vec![(
                "w.wsdl",
                one(
                    r#"<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element name="a" type="xsd:int" minOccurs="5" maxOccurs="2"/></xsd:sequence></xsd:complexType></xsd:element>"#,
                ),
            )],
            3,
            Want::Refused(&["w.wsdl:4:", "minOccurs 5 is above maxOccurs 2"]),
        ),
        (
            "an element name that is no XML name",
            vec![(
                "w.wsdl",
                one(
                    r#"<xsd:element name="Req"><xsd:complexType><xsd:sequence><xsd:element name="a b&lt;c" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>"#,
                ),
            )],
            3,
            Want::Refused(&[r#""a b<c" is not an XML name"#]),
        ),
        (
            "an attribute name that is no XML name",
            vec![(
                "w.wsdl",
                one(
                    r#"<xsd:element name="Req"><xsd:complexType><xsd:attribute name="x=&quot;1" use="required"/></xsd:complexType></xsd:element>"#,
                ),
            )],
            3,
            Want::Refused(&["is not an XML name"]),
        ),
        (
            "an operation name with a slash",
            vec![("w.wsdl", wsdl(string, &["a/b"], None))],
            3,
            Want::Refused(&["the operation's name: \"a/b\" is not an XML name"]),
        ),
        (
            "operations whose names differ in case only",
            vec![("w.wsdl", wsdl(string, &["Ping", "ping", "PING"], None))],
            3,
            Want::Cases {
                tests: &["Ping", "ping-2", "PING-3"],
                files: &["Ping.xml", "ping-2.xml", "PING-3.xml"],
                holds: &[],
            },
        ),
        (
            "two operations of one name",
            vec![("w.wsdl", wsdl(string, &["Ping", "Ping"], None))],
            3,
            Want::Cases {
                tests: &["Ping", "Ping-2"],
                files: &["Ping.xml", "Ping-2.xml"],
                holds: &[],
            },
        ),
        (
            "a name that is another's with -2",
            vec![("w.wsdl", wsdl(string, &["Ping-2", "Ping", "Ping"], None))],
            3,
            Want::Cases {
                tests: &["Ping-2", "Ping", "Ping-3"],
                files: &["Ping-2.xml", "Ping.xml", "Ping-3.xml"],
                holds: &[],
            },
        ),
    ];
    for (name, documents, size, want) in cases {
        check(name, documents, size, &want);
    }
}
