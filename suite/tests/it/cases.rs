//! `loadgen suite cases`: cases from a WSDL that the suite then runs and checks as it runs
//! WSTest's: from our server's own WSDL (fetched over HTTP and over TLS), and from WSDLs of
//! services no one here wrote, answered by a SOAP test server that knows only their operations.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};

use testkit::certs::TestCerts;
use testkit::servers::{Behaviour, SoapOperation, TestServer};

use crate::runs::{loadgen_bin, one_at_a_time, suite_command, text};

fn wsdl_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../wsdl/tests/wsdl")
}

fn cases(args: &[&str]) -> Output {
    Command::new(loadgen_bin())
        .args(["suite", "cases"])
        .args(args)
        .output()
        .unwrap()
}

/// Runs the suite once over `dir`'s manifest against `url`: its stdout, after asserting exit 0.
fn run_suite(dir: &Path, url: &str) -> String {
    let manifest = dir.join("manifest.toml");
    let output = suite_command(&["--no-pin"])
        .arg("--manifest")
        .arg(&manifest)
        .args(["--target", &format!("it={url}")])
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    stdout
}

/// wstest-server on port 0 with `args`; its process and URL.
fn our_server(args: &[&str]) -> (Child, String) {
    let mut server = Command::new(testkit::workspace_bin("wstest-server", "server"))
        .args(["--addr", "127.0.0.1:0", "--threads", "1"])
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(server.stderr.take().unwrap()));
    let url = loop {
        let line = lines.next().expect("a listening line").unwrap();
        if let Some(listening) = host::listening::Listening::parse(&line) {
            break listening.url.to_owned();
        }
    };
    (server, url)
}

const STOCKQUOTE: &[SoapOperation] = &[SoapOperation {
    action: "http://example.com/GetLastTradePrice",
    request: "TradePriceRequest",
    response: "TradePrice",
}];

const SHOP: &[SoapOperation] = &[
    SoapOperation {
        action: "urn:example:shapes/PlaceOrder",
        request: "PlaceOrder",
        response: "PlaceOrderResponse",
    },
    SoapOperation {
        action: "urn:example:shapes/Ping",
        request: "Ping",
        response: "PingResponse",
    },
];

/// A WCF host's metadata as it serves it (`suite/tests/wcf/`, in the shape WCF writes: the
/// contract's port type in `?wsdl=wsdl0`, its schemas in `?xsd=xsd0..2` by absolute address,
/// the serialization schema's guid and duration patterns).
const WCF_DOCUMENTS: &[(&str, &str)] = &[
    ("/ShopService.svc?wsdl", include_str!("../wcf/service.wsdl")),
    (
        "/ShopService.svc?wsdl=wsdl0",
        include_str!("../wcf/wsdl0.wsdl"),
    ),
    ("/ShopService.svc?xsd=xsd0", include_str!("../wcf/xsd0.xsd")),
    ("/ShopService.svc?xsd=xsd1", include_str!("../wcf/xsd1.xsd")),
    ("/ShopService.svc?xsd=xsd2", include_str!("../wcf/xsd2.xsd")),
];

const DIRECTORY: &[SoapOperation] = &[SoapOperation {
    action: "urn:example:directory#AddPerson",
    request: "AddPerson",
    response: "AddPersonResponse",
}];

const WCF: &[SoapOperation] = &[
    SoapOperation {
        action: "http://example.org/shop/contracts/IShop/GetData",
        request: "GetData",
        response: "GetDataResponse",
    },
    SoapOperation {
        action: "http://example.org/shop/contracts/IShop/GetOrder",
        request: "GetOrder",
        response: "GetOrderResponse",
    },
];

#[test]
fn cases_from_a_wsdl_pass_the_suite_check() {
    let _lock = one_at_a_time();
    let out = std::env::temp_dir().join(format!("suite-cases-{}", std::process::id()));
    let certs = TestCerts::new("suite-cases");
    let (cert, key) = (
        certs.cert.to_str().unwrap().to_owned(),
        certs.key.to_str().unwrap().to_owned(),
    );
    // Ours over HTTP and over TLS, its WSDL fetched from the server; two services no one here
    // wrote (stockquote) or that have shapes ours lacks (SOAP 1.2, rpc), from files.
    let (mut plain, plain_url) = our_server(&[]);
    let (mut secure, secure_url) = our_server(&["--tls-cert", &cert, "--tls-key", &key]);
    let stockquote = TestServer::start(Behaviour::Soap(STOCKQUOTE));
    let shop = TestServer::start(Behaviour::Soap(SHOP));
    let wcf_host = TestServer::start(Behaviour::Documents(WCF_DOCUMENTS));
    let wcf = TestServer::start(Behaviour::Soap(WCF));
    let directory = TestServer::start(Behaviour::Soap(DIRECTORY));
    let ca = certs.ca_cert.to_str().unwrap().to_owned();
    let wsdl = |name: &str| wsdl_dir().join(name).to_str().unwrap().to_owned();
    let table: [(&str, Vec<String>, String, &[&str]); 6] = [
        (
            "rpc/encoded",
            vec![wsdl("encoded.wsdl")],
            directory.url(),
            &["AddPerson"],
        ),
        (
            "a WCF host",
            vec![format!(
                "http://127.0.0.1:{}/ShopService.svc?wsdl",
                wcf_host.port
            )],
            wcf.url(),
            &["GetData", "GetOrder"],
        ),
        (
            "ours",
            vec![format!("{plain_url}?wsdl"), "--size".into(), "20".into()],
            plain_url.clone(),
            &[
                "EchoVoid",
                "EchoStruct",
                "EchoList",
                "EchoSynthetic",
                "GetOrder",
            ],
        ),
        (
            "ours over TLS",
            vec![format!("{secure_url}?wsdl"), "--cacert".into(), ca],
            secure_url.clone(),
            &[
                "EchoVoid",
                "EchoStruct",
                "EchoList",
                "EchoSynthetic",
                "GetOrder",
            ],
        ),
        (
            "stockquote",
            vec![wsdl("stockquote.wsdl")],
            stockquote.url(),
            &["GetLastTradePrice"],
        ),
        (
            "shapes",
            vec![wsdl("shapes.wsdl")],
            shop.url(),
            &[
                "PlaceOrder-soap11",
                "Ping-soap11",
                "PlaceOrder-soap12",
                "Ping-soap12",
            ],
        ),
    ];
    for (what, source, url, tests) in table {
        let dir = out.join(what.replace(' ', "-"));
        let mut args = vec!["--wsdl".to_owned(), source[0].clone(), "--out".to_owned()];
        args.push(dir.to_str().unwrap().to_owned());
        args.extend(source[1..].iter().cloned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = cases(&args);
        let stdout = text(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{what}: {stdout}{}",
            text(&output.stderr)
        );
        assert!(
            stdout.contains(&format!("{} cases and ", tests.len())),
            "{what}: {stdout}"
        );
        let table = run_suite(&dir, &url);
        for test in tests {
            assert!(
                table
                    .lines()
                    .any(|line| line.starts_with(&format!("{test} "))),
                "{what}: no row for {test}:\n{table}"
            );
        }
        assert!(!table.contains("wrong"), "{what}:\n{table}");
    }
    // The stub answers a request it does not know with a Fault, which the check refuses: the
    // cases' actions and elements are what made the runs above pass.
    let dir = out.join("shapes");
    let manifest = std::fs::read_to_string(dir.join("manifest.toml")).unwrap();
    std::fs::write(
        dir.join("manifest.toml"),
        manifest.replace("urn:example:shapes/Ping", "urn:example:shapes/Pong"),
    )
    .unwrap();
    let output = suite_command(&["--no-pin"])
        .arg("--manifest")
        .arg(dir.join("manifest.toml"))
        .args(["--target", &format!("shop={}", shop.url())])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    for server in [&mut plain, &mut secure] {
        let _ = server.kill();
        let _ = server.wait();
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_wsdl_that_cannot_be_used_is_a_clear_error() {
    let out = std::env::temp_dir().join(format!("suite-cases-bad-{}", std::process::id()));
    let out = out.to_str().unwrap();
    let bad = |name: &str| {
        wsdl_dir()
            .join("bad")
            .join(name)
            .to_str()
            .unwrap()
            .to_owned()
    };
    let cases_table: [(Vec<String>, i32, &str); 4] = [
        (
            vec![
                "--wsdl".into(),
                bad("pattern.wsdl"),
                "--out".into(),
                out.into(),
            ],
            1,
            "not supported: xsd:pattern",
        ),
        (
            vec![
                "--wsdl".into(),
                "/nonexistent/x.wsdl".into(),
                "--out".into(),
                out.into(),
            ],
            1,
            "cannot read /nonexistent/x.wsdl",
        ),
        (vec!["--out".into(), out.into()], 2, "--wsdl <URL|FILE>"),
        (
            vec![
                "--wsdl".into(),
                bad("rpc.wsdl"),
                "--out".into(),
                out.into(),
                "--size".into(),
                "0".into(),
            ],
            2,
            "--size",
        ),
    ];
    for (args, code, words) in cases_table {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = cases(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
    }
    assert!(
        !Path::new(out).exists(),
        "nothing is written for a WSDL refused"
    );
}

/// What a WSDL's location could do to the reader, refused within its limits, saying why: a
/// device or a FIFO for a file (read whole, or waited on without end), a server that never
/// answers, drips, or promises ten billion bytes; and a link planted in `--out` is replaced,
/// never written through.
#[test]
fn a_wsdls_location_cannot_exhaust_or_hold_the_reader() {
    let dir = std::env::temp_dir().join(format!("suite-cases-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.wsdl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let servers: Vec<(Behaviour, TestServer)> =
        [Behaviour::Stall, Behaviour::Drip, Behaviour::HugeLength]
            .into_iter()
            .map(|behaviour| (behaviour, TestServer::start(behaviour)))
            .collect();
    let url = |behaviour: Behaviour| {
        let (_, server) = servers.iter().find(|(b, _)| *b == behaviour).unwrap();
        format!("{}service?wsdl", server.url())
    };
    let table: [(String, &str); 5] = [
        ("/dev/zero".into(), "/dev/zero: not a regular file"),
        (
            fifo.to_str().unwrap().into(),
            "fifo.wsdl: not a regular file",
        ),
        (url(Behaviour::Stall), "no whole answer within 500ms"),
        (url(Behaviour::Drip), "no whole answer within 500ms"),
        (
            url(Behaviour::HugeLength),
            "the answer's body is larger than 67108864 bytes",
        ),
    ];
    for (wsdl, words) in table {
        let output = cases(&["--wsdl", &wsdl, "--out", out, "--timeout", "500ms"]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{wsdl}: {stderr}");
        assert!(stderr.contains(words), "{wsdl}: {stderr}");
    }
    assert!(
        !Path::new(out).exists(),
        "nothing is written for a WSDL refused"
    );

    // Links planted where the files go: each is replaced by the file, its target untouched.
    std::fs::create_dir_all(out).unwrap();
    let victim = dir.join("victim");
    std::fs::write(&victim, "untouched").unwrap();
    for name in ["EchoVoid.xml", "manifest.toml"] {
        std::os::unix::fs::symlink(&victim, Path::new(out).join(name)).unwrap();
    }
    let wstest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../wstest/wstest.wsdl");
    let output = cases(&["--wsdl", wstest.to_str().unwrap(), "--out", out]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
    for name in ["EchoVoid.xml", "manifest.toml"] {
        let written = Path::new(out).join(name);
        assert!(
            std::fs::symlink_metadata(&written).unwrap().is_file(),
            "{name} is a file now"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
