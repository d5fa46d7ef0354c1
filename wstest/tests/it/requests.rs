//! Requests in the styles other WSTest clients write, and the validity of every response against
//! the contract's schema (`wstest/wstest.xsd`, kept equal to the schema inside `wstest.wsdl`).

use std::path::PathBuf;
use std::process::Command;

use wstest::FaultCode;

use crate::{check_answer, crate_dir, respond};

/// What a client sample must get.
#[derive(Debug, Clone, Copy)]
enum Expect {
    Answer,
    /// A fault with this code whose reason contains this text.
    Fault(FaultCode, &'static str),
}

/// Every file of `tests/data/clients/` (see its README for where each style comes from).
const CLIENT_SAMPLES: &[(&str, Expect)] = &[
    ("ab-echolist106.xml", Expect::Answer),
    ("ab-echolist22.xml", Expect::Answer),
    ("ab-echostruct100.xml", Expect::Answer),
    ("ab-echostruct20.xml", Expect::Answer),
    ("ab-getorder100.xml", Expect::Answer),
    ("ab-getorder20.xml", Expect::Answer),
    ("axis-echolist.xml", Expect::Answer),
    ("bom-declaration-getorder.xml", Expect::Answer),
    ("dotnet-echolist.xml", Expect::Answer),
    ("dotnet-echostruct.xml", Expect::Answer),
    ("dotnet-echosynthetic.xml", Expect::Answer),
    ("dotnet-echovoid.xml", Expect::Answer),
    ("dotnet-getorder.xml", Expect::Answer),
    ("jaxws-echostruct.xml", Expect::Answer),
    ("jaxws-getorder.xml", Expect::Answer),
    ("php-echosynthetic.xml", Expect::Answer),
    ("soapui-echolist.xml", Expect::Answer),
    ("soapui-echostruct.xml", Expect::Answer),
    // soapUI's EchoSynthetic sample sends `cid:` (a MIME attachment reference) in Barray without
    // an attachment: the right answer is a Client fault that says so.
    (
        "soapui-echosynthetic-cid.xml",
        Expect::Fault(FaultCode::Client, "attachment"),
    ),
    ("soapui-echosynthetic.xml", Expect::Answer),
    ("soapui-echovoid.xml", Expect::Answer),
    ("soapui-getorder.xml", Expect::Answer),
];

fn clients_dir() -> PathBuf {
    crate_dir().join("tests/data/clients")
}

/// The client samples with their expectations; fails if the folder and the table differ, so
/// that no sample is passed over.
fn client_samples() -> Vec<(&'static str, Vec<u8>, Expect)> {
    let dir = clients_dir();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("reading {}: {error}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".xml"))
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = CLIENT_SAMPLES.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        on_disk, listed,
        "tests/data/clients/ and CLIENT_SAMPLES differ"
    );
    CLIENT_SAMPLES
        .iter()
        .map(|&(name, expect)| (name, std::fs::read(dir.join(name)).unwrap(), expect))
        .collect()
}

#[test]
fn client_samples_get_their_answers() {
    for (name, body, expect) in client_samples() {
        match expect {
            Expect::Answer => {
                check_answer(name, None, &body);
            }
            Expect::Fault(code, reason) => {
                let fault = respond(None, &body).unwrap_err();
                assert_eq!(fault.code, code, "{name}: {fault}");
                assert!(fault.reason.contains(reason), "{name}: {fault}");
            }
        }
    }
}

/// Requests as .NET and Java clients write them: an XML declaration, a BOM, `s0:` prefixes,
/// a SOAP header, xsi:nil, entities, CDATA, comments.
#[test]
fn other_client_styles_get_their_answers() {
    const CASES: &[(&str, &str)] = &[
        (
            "declaration and .NET prefixes",
            r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>1</i><f>1.5</f><s>a &amp; b &lt;c&gt;</s></l><l><i>-2</i><f xsi:nil="true"/><s xsi:nil="1"/></l></array></EchoStruct></soap:Body></soap:Envelope>"#,
        ),
        (
            "BOM, s0 prefix, header",
            "\u{FEFF}<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:s0=\"uri:WSTestWeb-TestService\"><SOAP-ENV:Header><x:Trace xmlns:x=\"urn:x\">1</x:Trace></SOAP-ENV:Header><SOAP-ENV:Body><s0:GetOrder><s0:orderId>7</s0:orderId><s0:customerId>-3</s0:customerId><s0:messageSize>2</s0:messageSize></s0:GetOrder></SOAP-ENV:Body></SOAP-ENV:Envelope>",
        ),
        (
            "comments, CDATA, character references, CRLF",
            "<e:Envelope xmlns:e=\"http://schemas.xmlsoap.org/soap/envelope/\">\r\n<!-- c --><e:Body><EchoSynthetic xmlns=\"uri:WSTestWeb-TestService\"><synth><Strng><![CDATA[<raw> & ]]>&#233;&#x4E2D;</Strng><Barray>AAEC\r\nAwQF\n</Barray></synth></EchoSynthetic></e:Body></e:Envelope>",
        ),
        (
            "floats in every form",
            r#"<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><EchoList xmlns="uri:WSTestWeb-TestService"><list><i>1</i><f>2</f><s/><Next><i>2</i><f>1E3</f><s>x</s><Next><i>3</i><f>INF</f><s>y</s><Next><i>4</i><f>-INF</f><s>z</s><Next><i>5</i><f>NaN</f><s> </s><Next><i>6</i><f> -0.0 </f><s>é</s></Next></Next></Next></Next></Next></list></EchoList></Body></Envelope>"#,
        ),
        (
            "empty EchoVoid, empty EchoList and EchoSynthetic",
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"></EchoVoid></soap:Body></soap:Envelope>"#,
        ),
        (
            "compact uri: prefixes",
            r#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/" xmlns:uri="uri:WSTestWeb-TestService"><e:Body><uri:EchoStruct><uri:array><uri:l><uri:i>-7</uri:i><uri:f>2.5</uri:f><uri:s>a</uri:s></uri:l><uri:l><uri:i>8</uri:i><uri:f>1E3</uri:f><uri:s></uri:s></uri:l></uri:array></uri:EchoStruct></e:Body></e:Envelope>"#,
        ),
        (
            "compact prefixed list",
            r#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><w:EchoList xmlns:w="uri:WSTestWeb-TestService"><w:list><w:i>1</w:i><w:f>2</w:f><w:s>x</w:s><w:Next><w:i>2</w:i><w:f>3</w:f><w:s>y</w:s></w:Next></w:list></w:EchoList></e:Body></e:Envelope>"#,
        ),
        (
            "absent list",
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoList xmlns="uri:WSTestWeb-TestService"/></soap:Body></soap:Envelope>"#,
        ),
        (
            // Past the fast lexer's eight attributes an element: quick-xml reads it, alike.
            "nine namespace declarations on the Envelope",
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:a="urn:a" xmlns:b="urn:b" xmlns:c="urn:c" xmlns:d="urn:d" xmlns:e="urn:e" xmlns:f="urn:f" xmlns:g="urn:g" xmlns:h="urn:h"><soap:Body><w:EchoStruct xmlns:w="uri:WSTestWeb-TestService"><w:array><w:l><w:i>1</w:i><w:f>2.5</w:f><w:s>a</w:s></w:l></w:array></w:EchoStruct></soap:Body></soap:Envelope>"#,
        ),
        (
            "empty synth",
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoSynthetic xmlns="uri:WSTestWeb-TestService"><synth/></EchoSynthetic></soap:Body></soap:Envelope>"#,
        ),
    ];
    for (name, body) in CASES {
        check_answer(name, None, body.as_bytes());
    }
}

/// Every response, for our post files and the client samples, validates against the schema with
/// libxml2's `xmllint` (Debian package libxml2-utils).
#[test]
fn responses_validate_against_the_schema() {
    if !testkit::require_tool("xmllint", "--version", "libxml2-utils") {
        return;
    }
    let mut bodies: Vec<(String, Vec<u8>)> = wstest::post_files::all()
        .into_iter()
        .map(|file| (file.name.to_owned(), file.body()))
        .collect();
    bodies.extend(
        client_samples()
            .into_iter()
            .filter(|(_, _, expect)| matches!(expect, Expect::Answer))
            .map(|(name, body, _)| (name.to_owned(), body)),
    );
    bodies.push((
        "nils".to_owned(),
        br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soap:Body><EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>1</i><f xsi:nil="true"/><s xsi:nil="true"/></l><l><i>2</i><f>INF</f><s>&lt;&amp;&#13;</s></l></array></EchoStruct></soap:Body></soap:Envelope>"#.to_vec(),
    ));
    let dir = std::env::temp_dir().join(format!("wstest-xsd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut paths = Vec::new();
    for (idx, (name, body)) in bodies.iter().enumerate() {
        let response = check_answer(name, None, body);
        let path = dir.join(format!("{idx}.xml"));
        std::fs::write(&path, payload_of(&response)).unwrap();
        paths.push(path);
    }
    let output = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(crate_dir().join("wstest.xsd"))
        .args(&paths)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success(),
        "xmllint rejected a response:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        report.matches(" validates").count(),
        bodies.len(),
        "{report}"
    );
}

/// The Body's child of one of our responses, as a document of its own: the schema describes the
/// payload, not the SOAP envelope.
fn payload_of(response: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(response).unwrap();
    let start = text.find("<soap:Body>").unwrap() + "<soap:Body>".len();
    let end = text.rfind("</soap:Body>").unwrap();
    text[start..end]
        .replacen(
            " xmlns=\"uri:WSTestWeb-TestService\"",
            " xmlns=\"uri:WSTestWeb-TestService\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"",
            1,
        )
        .into_bytes()
}

/// The types and elements of the WSTest contract, as its schema names them.
const CONTRACT_NAMES: &[&str] = &[
    "Address",
    "COfLineItem",
    "COfTestStruct",
    "Customer",
    "EchoList",
    "EchoListResponse",
    "EchoStruct",
    "EchoStructResponse",
    "EchoSynthetic",
    "EchoSyntheticResponse",
    "EchoVoid",
    "EchoVoidResponse",
    "GetOrder",
    "GetOrderResponse",
    "LineItem",
    "Order",
    "Synthetic",
    "TestNode",
    "TestStruct",
];

/// Our WSDL is well-formed, declares every operation with its SOAPAction and every type of the
/// contract, and carries the address it is given.
#[test]
fn wsdl_matches_the_contract() {
    let ours = wstest::wsdl::wsdl("http://example.test:8082/WSTest?a=1&b=\"2\"");
    let ours_doc = roxmltree::Document::parse(&ours).unwrap();
    let mut actions: Vec<&str> = ours_doc
        .descendants()
        .filter(|node| node.has_tag_name("operation"))
        .filter_map(|node| node.attribute("soapAction"))
        .collect();
    actions.sort_unstable();
    let mut expected: Vec<&str> = wstest::Operation::ALL
        .iter()
        .map(|op| op.soap_action())
        .collect();
    expected.sort_unstable();
    assert_eq!(actions, expected);
    let mut names: Vec<&str> = ours_doc
        .descendants()
        .filter(|node| node.has_tag_name("complexType") || node.has_tag_name("element"))
        .filter(|node| {
            node.parent()
                .is_some_and(|parent| parent.has_tag_name("schema"))
        })
        .filter_map(|node| node.attribute("name"))
        .collect();
    names.sort_unstable();
    assert_eq!(names, CONTRACT_NAMES);
    let address = ours_doc
        .descendants()
        .find(|node| node.has_tag_name("address"))
        .and_then(|node| node.attribute("location"))
        .unwrap();
    assert_eq!(address, "http://example.test:8082/WSTest?a=1&b=\"2\"");
}

/// `wstest.xsd` is the schema inside `wstest.wsdl`, standing alone; `UPDATE_EXPECT=1 cargo test
/// -p wstest` rewrites it from the WSDL.
#[test]
fn the_schema_file_is_the_wsdls_schema() {
    let expected = schema_of_wsdl(wstest::wsdl::WSDL_TEMPLATE);
    let path = crate_dir().join("wstest.xsd");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    let actual = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
    assert!(
        actual == expected,
        "{} differs from the schema in wstest.wsdl; run UPDATE_EXPECT=1 cargo test -p wstest",
        path.display()
    );
    roxmltree::Document::parse(&actual).unwrap();
}

/// The `<xsd:schema>` element of the WSDL as a document of its own: dedented, with the namespace
/// prefixes it inherited from `<wsdl:definitions>` declared on it.
fn schema_of_wsdl(wsdl: &str) -> String {
    let start = wsdl.find("    <xsd:schema ").unwrap();
    let end = wsdl.find("</xsd:schema>").unwrap() + "</xsd:schema>".len();
    let mut schema = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!-- The WSTest 1.1 message types: the schema inside wstest.wsdl, standing alone. A test keeps\n     \
         the two equal (UPDATE_EXPECT=1 cargo test -p wstest rewrites this file from the WSDL).\n     \
         A SOAP Body's child validates against it with xmllint's schema option. -->\n",
    );
    for line in wsdl[start..end].lines() {
        schema.push_str(line.strip_prefix("    ").unwrap_or(line));
        schema.push('\n');
    }
    schema.replacen(
        "<xsd:schema ",
        "<xsd:schema xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:tns=\"uri:WSTestWeb-TestService\" ",
        1,
    )
}
