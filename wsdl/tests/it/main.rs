//! The wsdl crate against WSDLs of several shapes (tests/wsdl/, README.md there says whose):
//! the cases each gives, texts their bodies must hold, their bodies valid against the schema
//! (by libxml2's xmllint), and what is refused, with the construct named.

mod constructs;
mod encoded;
mod hostile;
mod reach;

use std::path::{Path, PathBuf};
use std::process::Command;

use wsdl::{Location, Options, WsdlError};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wsdl")
}

/// Reads files; counts what it read.
#[derive(Default)]
struct Files {
    read: Vec<String>,
}

impl wsdl::Loader for Files {
    fn load(&mut self, location: &Location) -> Result<String, String> {
        self.read.push(location.to_string());
        match location {
            Location::File(path) => std::fs::read_to_string(path).map_err(|e| e.to_string()),
            Location::Url(url) => Err(format!("no network in tests: {url}")),
        }
    }
}

fn generate(file: &Path, size: u32) -> Result<wsdl::Generated, WsdlError> {
    let options = Options {
        size,
        binding: None,
        strict: false,
        allow_hosts: Vec::new(),
    };
    wsdl::generate(
        &Location::File(file.to_path_buf()),
        &mut Files::default(),
        &options,
    )
}

/// One operation's case as a test expects it.
struct Want {
    test: &'static str,
    content_type: &'static str,
    /// The SOAPAction header (SOAP 1.1), or none (1.2: the action is in the content type).
    header: Option<&'static str>,
    expect_body: &'static str,
    /// Texts the body must hold, in this order.
    holds: &'static [&'static str],
}

const SOAP11: &str = "text/xml; charset=utf-8";

fn wstest_wsdl() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../wstest/wstest.wsdl")
}

fn good() -> Vec<(PathBuf, u32, Vec<Want>, &'static [&'static str])> {
    vec![
        (
            wstest_wsdl(),
            20,
            vec![
                Want {
                    test: "EchoVoid",
                    content_type: SOAP11,
                    header: Some(r#"SOAPAction: "uri:WSTestWeb-TestService/EchoVoid""#),
                    expect_body: "EchoVoidResponse",
                    holds: &[r#"<soap:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"></EchoVoid></soap:Body>"#],
                },
                Want {
                    test: "EchoStruct",
                    content_type: SOAP11,
                    header: Some(r#"SOAPAction: "uri:WSTestWeb-TestService/EchoStruct""#),
                    expect_body: "EchoStructResponse",
                    holds: &["<array><l><i>1</i><f>2.5</f><s>sample 3</s></l>", "<l><i>58</i><f>59.5</f><s>sample 60</s></l></array>"],
                },
                Want {
                    test: "EchoList",
                    content_type: SOAP11,
                    header: Some(r#"SOAPAction: "uri:WSTestWeb-TestService/EchoList""#),
                    expect_body: "EchoListResponse",
                    // Twenty nodes, each in the one before.
                    holds: &["<list><i>1</i><f>2.5</f><s>sample 3</s><Next><i>4</i>", "<s>sample 60</s></Next></Next>"],
                },
                Want {
                    test: "EchoSynthetic",
                    content_type: SOAP11,
                    header: Some(r#"SOAPAction: "uri:WSTestWeb-TestService/EchoSynthetic""#),
                    expect_body: "EchoSyntheticResponse",
                    holds: &["<synth><Strng>sample 1</Strng><Strct><i>2</i>", "<Barray>d3N0ZXN0</Barray></synth>"],
                },
                Want {
                    test: "GetOrder",
                    content_type: SOAP11,
                    header: Some(r#"SOAPAction: "uri:WSTestWeb-TestService/GetOrder""#),
                    expect_body: "GetOrderResponse",
                    holds: &["<GetOrder xmlns=\"uri:WSTestWeb-TestService\"><orderId>1</orderId><customerId>2</customerId><messageSize>3</messageSize></GetOrder>"],
                },
            ],
            &[],
        ),
        (
            dir().join("rpc.wsdl"),
            2,
            vec![Want {
                test: "AddPerson",
                content_type: SOAP11,
                header: Some(r#"SOAPAction: "urn:example:directory#AddPerson""#),
                expect_body: "AddPersonResponse",
                // The wrapper in the body's namespace, the parts unqualified.
                holds: &[r#"<AddPerson xmlns="urn:example:directory"><directoryId xmlns="">1</directoryId><person xmlns=""><name>sample 2</name><age>3</age><tag>sample 4</tag><tag>sample 5</tag></person></AddPerson>"#],
            }],
            &[],
        ),
        (
            dir().join("header.wsdl"),
            2,
            vec![Want {
                test: "AddPerson",
                content_type: SOAP11,
                header: Some(r#"SOAPAction: "urn:example:directory#AddPerson""#),
                expect_body: "AddPersonResponse",
                // The header's part in soap:Header; the body holds only the part parts= names.
                holds: &[r#"<soap:Header><directoryId>1</directoryId></soap:Header><soap:Body><AddPerson xmlns="urn:example:directory"><person xmlns=""><name>sample 2</name>"#],
            }],
            &[],
        ),
        (
            dir().join("lenient.wsdl"),
            2,
            vec![Want {
                test: "AddPerson",
                content_type: SOAP11,
                header: Some(r#"SOAPAction: "urn:example:directory#AddPerson""#),
                expect_body: "AddPersonResponse",
                holds: &[r#"<AddPerson xmlns="urn:example:directory"><directoryId xmlns="">1</directoryId>"#],
            }],
            &[],
        ),
        (
            dir().join("shapes.wsdl"),
            2,
            ["-soap11", "-soap12"]
                .into_iter()
                .flat_map(|suffix| {
                    let soap12 = suffix == "-soap12";
                    [
                        Want {
                            test: if soap12 { "PlaceOrder-soap12" } else { "PlaceOrder-soap11" },
                            content_type: if soap12 {
                                r#"application/soap+xml; charset=utf-8; action="urn:example:shapes/PlaceOrder""#
                            } else {
                                SOAP11
                            },
                            header: if soap12 { None } else { Some(r#"SOAPAction: "urn:example:shapes/PlaceOrder""#) },
                            expect_body: "PlaceOrderResponse",
                            holds: &[
                                // The base's attribute and content first, then the extension's;
                                // the recursive referrer two levels deep.
                                r#"<customer id="1"><name>sample 2</name><email>sample 3</email><referrer id="4"><name>sample 5</name><email>sample 6</email></referrer></customer>"#,
                                "<status>open</status>",
                                // The choice's first branch, with a type of its own.
                                "<card><number>sample 7</number><expires>2026-01</expires></card>",
                                // Repeated twice; bounds, length and simple content kept.
                                r#"<line><sku>sam</sku><quantity>10</quantity><price currency="sam">"#,
                                "</line><line>",
                                "<sizes>",
                                "<placed>2026-01-01T12:00:00Z</placed><note>",
                                // Patterns: the shortest value, or the base's own when it matches.
                                "</note><reference>00000000-0000-0000-0000-000000000000</reference><wait>PT1S</wait>",
                                // A model group and two attribute groups, one naming the other.
                                r#"<tracking by="sample "#,
                                r#"" at="2026-01-01"><carrier>sample "#,
                                "</carrier><service>sample ",
                                "</service></tracking></PlaceOrder>",
                            ],
                        },
                        Want {
                            test: if soap12 { "Ping-soap12" } else { "Ping-soap11" },
                            content_type: if soap12 {
                                r#"application/soap+xml; charset=utf-8; action="urn:example:shapes/Ping""#
                            } else {
                                SOAP11
                            },
                            header: if soap12 { None } else { Some(r#"SOAPAction: "urn:example:shapes/Ping""#) },
                            expect_body: "PingResponse",
                            holds: if soap12 {
                                &[r#"<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><Ping xmlns="urn:example:shapes"></Ping>"#]
                            } else {
                                &[r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><Ping xmlns="urn:example:shapes"></Ping>"#]
                            },
                        },
                    ]
                })
                .collect(),
            &["Notify (ShopSoap): one-way", "Notify (ShopSoap12): one-way"],
        ),
        (
            dir().join("stockquote.wsdl"),
            3,
            vec![Want {
                test: "GetLastTradePrice",
                content_type: SOAP11,
                header: Some(r#"SOAPAction: "http://example.com/GetLastTradePrice""#),
                expect_body: "TradePrice",
                // xsd:all; a local element unqualified (no elementFormDefault); a reference to
                // a global element, qualified.
                holds: &[r#"<TradePriceRequest xmlns="http://example.com/stockquote.xsd"><tickerSymbol xmlns="">sample 1</tickerSymbol><account xmlns=""><id>2</id><user>sample 3</user></account><country><name xmlns="">sample 4</name><code xmlns="">sample 5</code></country></TradePriceRequest>"#],
            }],
            &["GetLastTradePriceNoOutput (StockQuoteBinding): one-way"],
        ),
    ]
}

#[test]
fn each_wsdl_gives_its_cases() {
    for (file, size, wants, skipped) in good() {
        let generated =
            generate(&file, size).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        check(&file, &generated, &wants, skipped);
    }
}

fn check(file: &Path, generated: &wsdl::Generated, wants: &[Want], skipped: &[&str]) {
    let name = file.display();
    let tests: Vec<&str> = generated
        .cases
        .iter()
        .map(|case| case.test.as_str())
        .collect();
    let wanted: Vec<&str> = wants.iter().map(|want| want.test).collect();
    assert_eq!(tests, wanted, "{name}");
    for (case, want) in generated.cases.iter().zip(wants) {
        assert_eq!(case.content_type, want.content_type, "{name} {}", want.test);
        assert_eq!(
            case.headers,
            want.header
                .map(str::to_owned)
                .into_iter()
                .collect::<Vec<_>>(),
            "{name} {}",
            want.test
        );
        assert_eq!(case.expect_body, want.expect_body, "{name} {}", want.test);
        let mut from = 0;
        for text in want.holds {
            let at = case.body[from..].find(text).unwrap_or_else(|| {
                panic!(
                    "{name} {}: the body lacks {text:?} after byte {from}:\n{}",
                    want.test, case.body
                )
            });
            from += at + text.len();
        }
        roxmltree::Document::parse(&case.body)
            .unwrap_or_else(|error| panic!("{name} {}: {error}", want.test));
    }
    assert_eq!(
        generated.skipped.len(),
        skipped.len(),
        "{name}: {:?}",
        generated.skipped
    );
    for (have, want) in generated.skipped.iter().zip(skipped) {
        assert!(
            have.starts_with(want),
            "{name}: skipped {have:?}, wanted {want:?}"
        );
    }
    let manifest = wsdl::manifest(&generated.cases, &name.to_string());
    let parsed: toml::Table =
        toml::from_str(&manifest).unwrap_or_else(|error| panic!("{name}: {error}\n{manifest}"));
    assert_eq!(
        parsed["file"].as_array().unwrap().len(),
        generated.cases.len()
    );
}

/// The bodies' payloads validate against the schemas they were made from (xmllint, Debian's
/// libxml2-utils): ours, and shapes.xsd, which shapes.wsdl imports.
#[test]
fn bodies_validate_against_their_schemas() {
    if !testkit::require_tool("xmllint", "--version", "libxml2-utils") {
        return;
    }
    let tmp = std::env::temp_dir().join(format!("wsdl-xsd-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for (wsdl, xsd, size) in [
        (wstest_wsdl(), wstest_wsdl().with_file_name("wstest.xsd"), 5),
        (dir().join("shapes.wsdl"), dir().join("shapes.xsd"), 2),
        (dir().join("shapes.wsdl"), dir().join("shapes.xsd"), 5),
    ] {
        let generated = generate(&wsdl, size).unwrap();
        let mut paths = Vec::new();
        for (idx, case) in generated.cases.iter().enumerate() {
            let start = case.body.find("<soap:Body>").unwrap() + "<soap:Body>".len();
            let end = case.body.rfind("</soap:Body>").unwrap();
            let path = tmp.join(format!("{idx}.xml"));
            std::fs::write(&path, &case.body[start..end]).unwrap();
            paths.push(path);
        }
        let output = Command::new("xmllint")
            .arg("--noout")
            .arg("--schema")
            .arg(&xsd)
            .args(&paths)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{} at size {size}: xmllint refused a body:\n{report}",
            wsdl.display()
        );
        assert_eq!(
            report.matches(" validates").count(),
            paths.len(),
            "{report}"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// What is refused, and the words the error must hold: the construct, and where.
#[test]
fn what_is_not_supported_is_named() {
    let cases: [(&str, u32, &[&str]); 9] = [
        (
            "pattern.wsdl",
            3,
            &["pattern.wsdl:11:", "not supported: xsd:pattern"],
        ),
        // A group reference whose group the WSDL lacks.
        (
            "group.wsdl",
            3,
            &[
                "no operation could be written",
                "the WSDL has no group {urn:example:directory}Names",
            ],
        ),
        // A relative import is followed wherever it leads, as xmllint follows it: here to a
        // file that is not XML, which is said with its path.
        (
            "outside.wsdl",
            3,
            &["wsdl/Cargo.toml:1: not well-formed XML"],
        ),
        (
            "malformed.wsdl",
            3,
            &["malformed.wsdl:", "not well-formed XML"],
        ),
        ("nobinding.wsdl", 3, &["no SOAP 1.1 or 1.2 binding"]),
        ("wsdl20.wsdl", 3, &["WSDL 2.0 is not read"]),
        (
            "undeclared-prefix.wsdl",
            3,
            &["undeclared-prefix.wsdl:20:", "a part's type"],
        ),
        // A DTD could define entities that expand without end: none is read.
        (
            "entities.wsdl",
            3,
            &["entities.wsdl:1:", "not well-formed XML", "DTD"],
        ),
        // Four levels of arrays at 1,000 items each: 10^12 elements.
        (
            "nested-arrays.wsdl",
            1000,
            &["would pass 64 MB in all at --size 1000"],
        ),
    ];
    for (file, size, words) in cases {
        let error = generate(&dir().join("bad").join(file), size)
            .expect_err(file)
            .to_string();
        for word in words {
            assert!(error.contains(word), "{file}: {error:?} lacks {word:?}");
        }
    }
}

/// A binding chosen by name, and a name the WSDL lacks, which lists those it has.
#[test]
fn a_binding_is_chosen_by_name() {
    let location = Location::File(dir().join("shapes.wsdl"));
    let chosen = wsdl::generate(
        &location,
        &mut Files::default(),
        &Options {
            size: 1,
            binding: Some("ShopSoap12".to_owned()),
            ..Options::default()
        },
    )
    .unwrap();
    let tests: Vec<&str> = chosen.cases.iter().map(|case| case.test.as_str()).collect();
    assert_eq!(tests, ["PlaceOrder", "Ping"]);
    let error = wsdl::generate(
        &location,
        &mut Files::default(),
        &Options {
            size: 1,
            binding: Some("Nope".to_owned()),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"no SOAP binding named "Nope" (the WSDL has ShopSoap, ShopSoap12)"#
    );
}

/// Imports are read once each, and only those the WSDL names.
#[test]
fn each_document_is_read_once() {
    let mut files = Files::default();
    wsdl::generate(
        &Location::File(dir().join("shapes.wsdl")),
        &mut files,
        &Options::default(),
    )
    .unwrap();
    let names: Vec<String> = files
        .read
        .iter()
        .map(|path| {
            Path::new(path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(names, ["shapes.wsdl", "shapes.xsd"]);
}
