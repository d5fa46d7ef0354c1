//! rpc/encoded cases, read by an implementation of SOAP encoding no one here wrote: PHP's
//! SoapServer in WSDL mode (php-soap) decodes each body against the WSDL and hands the
//! operation what it decoded, which must be the values written, typed as the schema says.

use std::path::Path;
use std::process::Command;

use super::{dir, generate};

/// PHP's decoding of the first case of `wsdl` at `size`: the operation and its arguments as
/// JSON, SoapServer's answer, and the body.
fn decoded(wsdl: &Path, size: u32) -> (String, String, String) {
    let generated = generate(wsdl, size).unwrap_or_else(|error| panic!("{error}"));
    let case = &generated.cases[0];
    let tmp =
        std::env::temp_dir().join(format!("wsdl-encoded-{}-{}", std::process::id(), case.file));
    std::fs::write(&tmp, &case.body).unwrap();
    let recorder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/php/recorder.php");
    let output = Command::new("php")
        .arg(recorder)
        .arg(wsdl)
        .arg(&tmp)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&tmp);
    (
        String::from_utf8_lossy(&output.stderr).into_owned(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        case.body.clone(),
    )
}

#[test]
fn encoded_bodies_decode_to_the_values_written() {
    if !testkit::require_tool("php", "--version", "php-cli")
        || !testkit::require_tool(
            "php",
            "-r exit(class_exists('SoapServer')?0:1);",
            "php-soap",
        )
    {
        return;
    }
    // The encoding's marks, which PHP would decode without (it reads by the WSDL's types).
    let marks: &[&str] = &[
        r#"soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/""#,
        r#"xsi:type="xsd:long""#,
        r#"xsi:type="xt:Person""#,
        r#"xsi:type="soapenc:Array""#,
        r#"soapenc:arrayType="at:Person[2]""#,
        r#"xsi:type="soapenc:string""#,
        r#"<extra xmlns="" xsi:type="soapenc:Array""#,
    ];
    // (WSDL, size, what the operation received, what the body holds)
    let cases: [(&str, u32, &str, &[&str]); 3] = [
        (
            "encoded.wsdl",
            2,
            concat!(
                r#"["AddPerson",[1,{"name":"sample 2","age":3,"tag":["sample 4","sample 5"]},"#,
                r#"[{"name":"sample 6","age":7,"tag":["sample 8","sample 9"]},"#,
                r#"{"name":"sample 10","age":11,"tag":["sample 12","sample 13"]}],"#,
                r#"[14,15],"sample 16",[]]]"#
            ),
            marks,
        ),
        (
            "encoded.wsdl",
            1,
            concat!(
                r#"["AddPerson",[1,{"name":"sample 2","age":3,"tag":"sample 4"},"#,
                r#"[{"name":"sample 5","age":6,"tag":"sample 7"}],[8],"sample 9",[]]]"#
            ),
            &[r#"soapenc:arrayType="at:int[1]""#],
        ),
        (
            "claim.wsdl",
            3,
            r#"["GetClaimDetails",["sample 1"]]"#,
            &[r#"xsi:type="xt:ClaimID""#],
        ),
    ];
    for (file, size, want, holds) in cases {
        let (received, answer, body) = decoded(&dir().join(file), size);
        for mark in holds {
            assert!(
                body.contains(mark),
                "{file} at size {size}: no {mark} in {body}"
            );
        }
        assert_eq!(received, want, "{file} at size {size}: {answer}");
        assert!(!answer.contains("Fault"), "{file} at size {size}: {answer}");
    }
}
