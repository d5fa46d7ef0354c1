//! `--check-xpath`, `--check-regex` and `--soap-faults` end to end: a server that answers
//! each request with its body, a template that makes one answer in ten a failure, and the
//! failures counted under each check's name in the report, the JSON and `merge`.

use testkit::servers::{Behaviour, TestServer};

use crate::runs::{field, loadgen, temp};

/// Ten rows: the eighth is the one that fails.
const ROWS: &str = "{\"status\":\"ok!\",\"fault\":\"<ok/>\"}
{\"status\":\"ok!\",\"fault\":\"<ok/>\"}
{\"status\":\"ok!\",\"fault\":\"<soap:Fault><faultcode>soap:Client</faultcode></soap:Fault>\"}
{\"status\":\"ok!\",\"fault\":\"<ok/>\"}
{\"status\":\"ok!\",\"fault\":\"<ok/>\"}
{\"status\":\"ok!\",\"fault\":\"<ok/>\"}
{\"status\":\"ok!\",\"fault\":\"<env:Fault><env:Code><env:Value>env:Sender</env:Value></env:Code></env:Fault>\"}
{\"status\":\"bad\",\"fault\":\"<ok/>\"}
{\"status\":\"ok!\",\"fault\":\"<ok/>\"}
{\"status\":\"ok!\",\"fault\":\"<ok/>\"}
";

const BODY: &str = "<soap:Envelope xmlns:soap=\"urn:s\" xmlns:env=\"urn:e\"><soap:Body>{{fault}}<r n=\"{{seq}}\"><status>{{status}}</status></r></soap:Body></soap:Envelope>";

struct Case {
    name: &'static str,
    /// Before the URL; `{data}`, `{body}` and `{mix}` are the files.
    args: &'static str,
    mix: &'static str,
    /// Lines the report must hold.
    report: &'static [&'static str],
    /// `checks` and `faults` of the JSON, as an object of the two.
    json: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "one answer in ten fails a path check",
        args: "-n 100 -c 2 -l --data {data} -p {body} --check-xpath \"//r/status='ok!'\"",
        mix: "",
        report: &[
            "Failed requests:        10",
            "  //r/status='ok!': 10 of 100 answers (10.0%)",
            "Failures by cause:      connect 0, receive 0, length 0, exceptions 0, write 0, timeout 0, status 0, body 0, checks 10",
        ],
        json: r#"{"checks":[{"name":"//r/status='ok!'","judged":100,"failed":10}],"faults":{}}"#,
    },
    Case {
        name: "each check counted on its own, one answer failing two",
        args: "-n 100 -c 3 -l --data {data} -p {body} --check-regex ok! --check-xpath count(//r)=1 --check-xpath \"not(//r/status='bad')\" --check-xpath //r/@n<50",
        mix: "",
        report: &[
            // Requests 50 to 99, and the five bad ones before them.
            "Failed requests:        55",
            "  count(//r)=1: 0 of 100 answers (0.0%)",
            "  not(//r/status='bad'): 10 of 100 answers (10.0%)",
            "  //r/@n<50: 50 of 100 answers (50.0%)",
            "  regex ok!: 10 of 100 answers (10.0%)",
        ],
        json: r#"{"checks":[{"name":"count(//r)=1","judged":100,"failed":0},{"name":"not(//r/status='bad')","judged":100,"failed":10},{"name":"//r/@n<50","judged":100,"failed":50},{"name":"regex ok!","judged":100,"failed":10}],"faults":{}}"#,
    },
    Case {
        name: "SOAP 1.1 and 1.2 faults by code",
        args: "-n 100 -c 2 -l --data {data} -p {body} --soap-faults",
        mix: "",
        report: &[
            "Failed requests:        20",
            "Faults:                 env:Sender 10, soap:Client 10 (20 of 100 answers, 20.0%)",
        ],
        json: r#"{"checks":[],"faults":{"env:Sender":10,"soap:Client":10}}"#,
    },
    Case {
        name: "a mix's part with its own check, beside one without",
        args: "-n 100 -c 2 -l --data {data} --mix {mix}",
        mix: "1 checked POST /a {body} --check-xpath \"//r/status = 'never'\"\n1 free POST /b {body}\n",
        report: &[
            "Failed requests:        50",
            "  //r/status = 'never': 50 of 50 answers (100.0%)",
        ],
        json: r#"{"checks":[{"name":"//r/status = 'never'","judged":50,"failed":50}],"faults":{}}"#,
    },
];

fn check(case: &Case, server: &TestServer, tag: &str) -> Result<(), String> {
    let data = temp(&format!("checks-{tag}.jsonl"));
    let body = temp(&format!("checks-{tag}.xml"));
    let mix = temp(&format!("checks-{tag}.mix"));
    let json = temp(&format!("checks-{tag}.json"));
    std::fs::write(&data, ROWS).unwrap();
    std::fs::write(&body, BODY).unwrap();
    std::fs::write(
        &mix,
        case.mix.replace("{body}", &body.display().to_string()),
    )
    .unwrap();
    let mut args: Vec<String> = shlex::split(case.args)
        .unwrap()
        .into_iter()
        .map(|arg| {
            arg.replace("{data}", &data.display().to_string())
                .replace("{body}", &body.display().to_string())
                .replace("{mix}", &mix.display().to_string())
        })
        .collect();
    args.extend(["--json".into(), json.display().to_string(), server.url()]);
    let output = loadgen(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "exit {:?}: {}{stdout}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    for line in case.report {
        if !stdout.lines().any(|l| l == *line) {
            return Err(format!("no line {line:?} in\n{stdout}"));
        }
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let found = serde_json::json!({
        "checks": report.get("checks").cloned().unwrap_or(serde_json::json!([])),
        "faults": report.get("faults").cloned().unwrap_or(serde_json::json!({})),
    });
    let wanted: serde_json::Value = serde_json::from_str(case.json).unwrap();
    if found != wanted {
        return Err(format!(
            "JSON checks and faults {found}, wanted {}",
            case.json
        ));
    }
    Ok(())
}

#[test]
fn answers_are_checked_and_failures_counted_by_name() {
    let server = TestServer::start(Behaviour::Echo);
    let failures: Vec<String> = CASES
        .iter()
        .enumerate()
        .filter_map(|(index, case)| {
            check(case, &server, &index.to_string())
                .err()
                .map(|error| format!("{}: {error}", case.name))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn merge_adds_the_checks_of_a_tests_shards() {
    let server = TestServer::start(Behaviour::Echo);
    let (data, body) = (temp("merge-checks.jsonl"), temp("merge-checks.xml"));
    std::fs::write(&data, ROWS).unwrap();
    std::fs::write(&body, BODY).unwrap();
    let mut files = Vec::new();
    for shard in ["0/2", "1/2"] {
        let json = temp(&format!("merge-checks-{}.json", &shard[..1]));
        let output = loadgen(&[
            "-n",
            "200",
            "-c",
            "2",
            "-l",
            "--shard",
            shard,
            "--soap-faults",
            "--check-xpath",
            "//status = 'ok!'",
            "--data",
            &data.display().to_string(),
            "-p",
            &body.display().to_string(),
            "--json",
            &json.display().to_string(),
            &server.url(),
        ]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        files.push(json.display().to_string());
    }
    let mut args = vec!["merge".to_owned()];
    args.extend(files);
    let output = loadgen(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(field(&stdout, "Failed requests"), Some("60"), "{stdout}");
    for line in [
        "  //status = 'ok!': 20 of 200 answers (10.0%)",
        "Faults:                 env:Sender 20, soap:Client 20 (40 of 200 answers, 20.0%)",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no {line:?} in\n{stdout}"
        );
    }
}

#[test]
fn an_answer_past_the_limit_fails_its_checks() {
    let server = TestServer::start(Behaviour::Echo);
    let body = temp("huge-answer.xml");
    let huge = format!("<r>{}</r>", "x".repeat(loadgen::check::MAX_CHECKED_BODY));
    std::fs::write(&body, huge).unwrap();
    let output = loadgen(&[
        "-n",
        "2",
        "--check-xpath",
        "/r",
        "-p",
        &body.display().to_string(),
        &server.url(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.lines().any(|l| l == "  /r: 2 of 2 answers (100.0%)"),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn unusable_checks_are_refused_before_any_request() {
    let server = TestServer::start(Behaviour::Record);
    let mix = temp("bad-check.mix");
    std::fs::write(
        &mix,
        "1 a GET - -\n1 b GET - - --check-xpath '//a[last()]'\n",
    )
    .unwrap();
    for (args, code, message) in [
        (
            vec!["--check-xpath", "//a[@x=1]"],
            2,
            "loadgen: --check-xpath: a position is a whole number from 1 ([1], [2]) at character 5 of \"//a[@x=1]\"",
        ),
        (
            vec!["--check-xpath", "//a", "--check-regex", "(unclosed"],
            2,
            "loadgen: --check-regex \"(unclosed\": regex parse error:",
        ),
        (
            vec!["--mix", mix.to_str().unwrap()],
            1,
            "bad-check.mix:2: --check-xpath a position is a whole number from 1 ([1], [2]) at character 5 of \"//a[last()]\"",
        ),
    ] {
        let mut all = args.clone();
        let url = server.url();
        all.push(&url);
        let output = loadgen(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    assert_eq!(server.recorded.lock().unwrap().len(), 0);
}

#[test]
fn sixty_four_checks_judge_every_answer_and_a_sixty_fifth_is_refused() {
    let server = TestServer::start(Behaviour::Record);
    let regexes = |n: usize| -> Vec<String> {
        (0..n)
            .flat_map(|i| ["--check-regex".to_owned(), format!("l{{0,{i}}}")])
            .collect()
    };
    let mut args = regexes(64);
    args.extend(["-n".into(), "2".into(), server.url()]);
    let output = loadgen(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let judged = stdout
        .lines()
        .filter(|line| {
            line.starts_with("  regex l{0,") && line.ends_with(": 0 of 2 answers (0.0%)")
        })
        .count();
    assert_eq!(judged, 64, "{stdout}");
    let mut args = regexes(65);
    args.push(server.url());
    let output = loadgen(&args);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("more than 64 checks"));
}
