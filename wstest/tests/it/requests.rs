//! Requests written by other WSTest clients, and the validity of every response against the
//! real `wstest.xsd`.

use std::process::Command;

use wstest::FaultCode;

use crate::{check_answer, respond, shared_dir};

fn is_attachment_reference(body: &[u8]) -> bool {
    String::from_utf8_lossy(body).contains(">cid:")
}

/// The ab bodies of an earlier public port (note their lists hold 22 and 106 nodes).
fn reference_post_files() -> Vec<(String, Vec<u8>)> {
    let dir = shared_dir().join("reference_post_files");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("reading {}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(path).unwrap(),
            )
        })
        .collect()
}

/// The sample requests of the soapUI project: pretty-printed, with an explicit `uri:` prefix.
fn soapui_requests() -> Vec<(String, Vec<u8>)> {
    let path = shared_dir().join("soapui-project.xml");
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    doc.descendants()
        .filter(|node| node.has_tag_name("request"))
        .filter_map(|node| {
            let body = node.text()?.trim_start();
            body.starts_with("<soapenv:Envelope").then(|| {
                let name = node
                    .ancestors()
                    .find_map(|parent| parent.attribute("name"))
                    .unwrap_or("request")
                    .to_owned();
                (format!("soapUI {name}"), body.as_bytes().to_vec())
            })
        })
        .collect()
}

#[test]
fn reference_post_files_get_their_answers() {
    let files = reference_post_files();
    assert_eq!(files.len(), 6);
    for (name, body) in files {
        check_answer(&name, None, &body);
    }
}

#[test]
fn soapui_samples_get_their_answers() {
    let requests = soapui_requests();
    assert!(
        requests.len() >= 9,
        "found only {} soapUI requests",
        requests.len()
    );
    let mut n_attachments = 0;
    for (name, body) in requests {
        if is_attachment_reference(&body) {
            // soapUI's EchoSynthetic sample sends `cid:` (a MIME attachment reference) in Barray
            // without an attachment: the right answer is a Client fault that says so.
            let fault = respond(None, &body).unwrap_err();
            assert_eq!(fault.code, FaultCode::Client, "{name}");
            assert!(fault.reason.contains("attachment"), "{name}: {fault}");
            n_attachments += 1;
        } else {
            check_answer(&name, None, &body);
        }
    }
    assert_eq!(n_attachments, 2);
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
            "empty synth",
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoSynthetic xmlns="uri:WSTestWeb-TestService"><synth/></EchoSynthetic></soap:Body></soap:Envelope>"#,
        ),
    ];
    for (name, body) in CASES {
        check_answer(name, None, body.as_bytes());
    }
}

/// Every response, for our post files, the reference files and the soapUI samples, validates
/// against the real schema with libxml2's `xmllint` (Debian package libxml2-utils).
#[test]
fn responses_validate_against_the_schema() {
    let mut bodies: Vec<(String, Vec<u8>)> = wstest::post_files::all()
        .into_iter()
        .map(|file| (file.name.to_owned(), file.body()))
        .collect();
    bodies.extend(reference_post_files());
    bodies.extend(
        soapui_requests()
            .into_iter()
            .filter(|(_, body)| !is_attachment_reference(body)),
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
        .arg(shared_dir().join("wstest.xsd"))
        .args(&paths)
        .output()
        .expect("running xmllint (install Debian's libxml2-utils)");
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

/// Our WSDL is well-formed, declares the same operations and SOAPActions as the shared one, and
/// carries the address it is given.
#[test]
fn wsdl_matches_the_contract() {
    let ours = wstest::wsdl::wsdl("http://example.test:8082/WSTest?a=1&b=\"2\"");
    let ours_doc = roxmltree::Document::parse(&ours).unwrap();
    let shared = std::fs::read_to_string(shared_dir().join("wstest.wsdl")).unwrap();
    let shared_doc = roxmltree::Document::parse(&shared).unwrap();
    let actions = |doc: &roxmltree::Document<'_>| {
        let mut actions: Vec<String> = doc
            .descendants()
            .filter(|node| node.has_tag_name("operation"))
            .filter_map(|node| node.attribute("soapAction").map(str::to_owned))
            .collect();
        actions.sort();
        actions
    };
    assert_eq!(actions(&ours_doc), actions(&shared_doc));
    let types = |doc: &roxmltree::Document<'_>| {
        let mut names: Vec<String> = doc
            .descendants()
            .filter(|node| node.has_tag_name("complexType") || node.has_tag_name("element"))
            .filter(|node| {
                node.parent()
                    .is_some_and(|parent| parent.has_tag_name("schema"))
            })
            .filter_map(|node| node.attribute("name").map(str::to_owned))
            .collect();
        names.sort();
        names
    };
    assert_eq!(types(&ours_doc), types(&shared_doc));
    let address = ours_doc
        .descendants()
        .find(|node| node.has_tag_name("address"))
        .and_then(|node| node.attribute("location"))
        .unwrap();
    assert_eq!(address, "http://example.test:8082/WSTest?a=1&b=\"2\"");
    for op in wstest::Operation::ALL {
        assert!(ours.contains(op.soap_action()), "{op}");
    }
}
