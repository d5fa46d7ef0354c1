//! A mix's `[flow]` end to end, against a server that answers each request with its body (and
//! records it): each connection's login token carried into its calls, by path and by regex,
//! escaped for XML in a body and not in a header; a pass that fails at a step counted there and
//! begun again; the counts in the report, the JSON and `merge`; and the flows refused before
//! the first request.

use std::collections::HashMap;

use testkit::servers::{Behaviour, TestServer};

use crate::runs::{loadgen, temp};
use crate::templates::{Received, received};

/// The login's answer holds a fresh token (with a `&` escaped, to be read back unescaped, and
/// a placeholder's braces, which a saved value writes as they are), and a line break.
const LOGIN: &str = "<Envelope><Body><LoginResponse><token>T-{{uuid}}&amp;x{{{{seq}}</token></LoginResponse>\n</Body></Envelope>";
const CALL: &str =
    "<Envelope><Body><Call><session>{{token}}</session><n>{{seq}}</n></Call></Body></Envelope>";
const LOGOUT: &str =
    "<Envelope><Body><Logout><session>{{token}}</session></Logout></Body></Envelope>";

/// The flow's bodies as files, and a mix file of `parts` (`{login}`, `{call}`, `{logout}` and
/// `{big}`, a token of 70,000 bytes, in it the bodies) and `steps`.
fn mix_file(tag: &str, parts: &str, steps: &str) -> String {
    let mut text = parts.to_owned();
    let big = format!("<token>{}</token>", "x".repeat(70_000));
    for (name, body) in [
        ("login", LOGIN),
        ("call", CALL),
        ("logout", LOGOUT),
        ("big", big.as_str()),
    ] {
        let path = temp(&format!("flow-{tag}-{name}.xml"));
        std::fs::write(&path, body).unwrap();
        text = text.replace(&format!("{{{name}}}"), &path.display().to_string());
    }
    let mix = temp(&format!("flow-{tag}.mix"));
    std::fs::write(&mix, format!("{text}[flow]\n{steps}")).unwrap();
    mix.display().to_string()
}

const PARTS: &str = "\
- login  POST /login  {login}  -T text/xml --save token=//token --save-regex 'sid=T-([0-9a-f]{8})'
- call   POST /call   {call}   -T text/xml -H 'X-Session: {{token}}' -H 'X-Sid: {{sid}}' --check-xpath //session
- logout POST /logout {logout} -T text/xml
";

/// Runs loadgen with `args` (`--json` added before them, in a file named by `tag`): its
/// report and its JSON.
fn run(tag: &str, args: &[&str]) -> (String, serde_json::Value) {
    let json = temp(&format!("flow-{tag}.json"));
    let mut all = vec!["--json".to_owned(), json.display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    let output = loadgen(&all);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{}{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (stdout, report)
}

/// The text between `<tag>` and `</tag>`.
fn element<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let start = text.find(&format!("<{tag}>"))? + tag.len() + 2;
    let end = start + text[start..].find(&format!("</{tag}>"))?;
    Some(&text[start..end])
}

fn header<'a>(request: &'a Received, name: &str) -> Option<&'a str> {
    request.head.lines().find_map(|line| {
        let (field, value) = line.split_once(':')?;
        field.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

#[test]
fn a_flow_carries_each_connections_token_into_its_calls() {
    let server = TestServer::start(Behaviour::Echo);
    let mix = mix_file("carry", PARTS, "login\ncall x3\nlogout\n");
    let (stdout, report) = run(
        "carry",
        &[
            "-k",
            "-c",
            "4",
            "-n",
            "403",
            "-l",
            "--mix",
            &mix,
            &server.url(),
        ],
    );
    let requests = received(&server);
    assert_eq!(requests.len(), 403);
    // Each login's token, and the calls and logouts that carried it, in the order received.
    let mut carried: HashMap<String, Vec<&str>> = HashMap::new();
    for request in &requests {
        let target = request.request_line.split(' ').nth(1).unwrap();
        assert!(
            !["{{token}}", "{{sid}}"]
                .iter()
                .any(|p| request.body.contains(p) || request.head.contains(p)),
            "unfilled: {}{}",
            request.head,
            request.body
        );
        if target == "/login" {
            let token = element(&request.body, "token")
                .unwrap()
                .replace("&amp;", "&");
            assert!(carried.insert(token, Vec::new()).is_none(), "a token twice");
            continue;
        }
        // In a body the saved value is XML-escaped again; in a header it is as read.
        let session = element(&request.body, "session")
            .unwrap()
            .replace("&amp;", "&");
        let steps = carried.get_mut(&session).unwrap_or_else(|| {
            panic!("{target} carries {session:?}, which no login before it gave")
        });
        assert!(
            element(&request.body, "session")
                .unwrap()
                .ends_with("&amp;x{{seq}}"),
            "escaped again for XML; the braces a value holds are no placeholder"
        );
        if target == "/call" {
            assert_eq!(header(request, "X-Session"), Some(session.as_str()));
            // The regex's group: the token's first eight hexadecimal digits.
            assert_eq!(header(request, "X-Sid"), Some(&session[2..10]));
        }
        steps.push(if target == "/call" { "call" } else { "logout" });
    }
    // A pass is login, three calls, logout; those the run's end cut are a prefix of one.
    let whole = ["call", "call", "call", "logout"];
    let done = carried.values().filter(|steps| **steps == whole).count() as u64;
    for steps in carried.values() {
        assert!(whole.starts_with(steps), "a pass sent {steps:?}");
    }
    let flows = &report["flows"];
    assert_eq!(flows["complete"], done, "{flows}");
    assert_eq!(flows["failed"], 0, "{flows}");
    assert_eq!(
        flows["unfinished"].as_u64().unwrap() + done,
        carried.len() as u64,
        "{flows}"
    );
    // 403 is not a whole number of passes: at least one was cut by the end.
    assert!(flows["unfinished"].as_u64().unwrap() >= 1, "{flows}");
    assert!(
        stdout.contains(&format!("Flows:                  {done} done (")),
        "{stdout}"
    );
    assert!(stdout.contains("Flow latency (microseconds"), "{stdout}");
    let kinds: Vec<(String, u64)> = (report["kinds"].as_array().unwrap().iter())
        .map(|kind| {
            (
                kind["name"].as_str().unwrap().to_owned(),
                kind["weight"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("login".into(), 1),
            ("call".into(), 3),
            ("logout".into(), 1)
        ]
    );
}

struct Failing {
    name: &'static str,
    parts: &'static str,
    /// The targets the server receives, in order, with one connection.
    received: &'static [&'static str],
    /// The report's line for the failing step, and the JSON's `steps`.
    line: &'static str,
    steps: &'static str,
}

const FAILING: &[Failing] = &[
    Failing {
        name: "a call's answer fails: the pass ends at step 2 and begins again",
        parts: "- login POST /login {login} --save token=//token\n- call POST /call {call} --expect-status 201\n- logout POST /logout {logout}\n",
        received: &["/login", "/call", "/login", "/call"],
        line: "  2 call x3: 5 (answer 5, no answer 0, save 0)",
        steps: r#"[{"name":"login","answer":0,"no_answer":0,"save":0},{"name":"call x3","answer":5,"no_answer":0,"save":0},{"name":"logout","answer":0,"no_answer":0,"save":0}]"#,
    },
    Failing {
        name: "a login's save finds nothing: every pass ends at step 1",
        parts: "- login POST /login {login} --save token=//missing\n- call POST /call {call}\n- logout POST /logout {logout}\n",
        received: &["/login", "/login", "/login"],
        line: "  1 login: 10 (answer 0, no answer 0, save 10)",
        steps: r#"[{"name":"login","answer":0,"no_answer":0,"save":10},{"name":"call x3","answer":0,"no_answer":0,"save":0},{"name":"logout","answer":0,"no_answer":0,"save":0}]"#,
    },
    Failing {
        name: "a saved value bound for a header holds a line break: the save fails",
        parts: "- login POST /login {login} --save-regex 'token=(?s)<Body>(.*)</Body>'\n- call POST /call {call} -H 'X-T: {{token}}'\n- logout POST /logout {logout}\n",
        received: &["/login", "/login"],
        line: "  1 login: 10 (answer 0, no answer 0, save 10)",
        steps: r#"[{"name":"login","answer":0,"no_answer":0,"save":10},{"name":"call x3","answer":0,"no_answer":0,"save":0},{"name":"logout","answer":0,"no_answer":0,"save":0}]"#,
    },
    Failing {
        name: "a saved value past 64 KiB: the save fails",
        parts: "- login POST /login {big} --save token=//token\n- call POST /call {call}\n- logout POST /logout {logout}\n",
        received: &["/login", "/login"],
        line: "  1 login: 10 (answer 0, no answer 0, save 10)",
        steps: r#"[{"name":"login","answer":0,"no_answer":0,"save":10},{"name":"call x3","answer":0,"no_answer":0,"save":0},{"name":"logout","answer":0,"no_answer":0,"save":0}]"#,
    },
];

#[test]
fn a_pass_that_fails_is_counted_at_its_step_and_begun_again() {
    let mut failures = Vec::new();
    for (index, case) in FAILING.iter().enumerate() {
        let server = TestServer::start(Behaviour::Echo);
        let mix = mix_file(
            &format!("fail{index}"),
            case.parts,
            "login\ncall x3\nlogout\n",
        );
        let (stdout, report) = run(
            &format!("fail{index}"),
            &[
                "-k",
                "-c",
                "1",
                "-n",
                "10",
                "-l",
                "--mix",
                &mix,
                &server.url(),
            ],
        );
        let targets: Vec<String> = received(&server)
            .iter()
            .map(|r| r.request_line.split(' ').nth(1).unwrap().to_owned())
            .collect();
        let wanted: serde_json::Value = serde_json::from_str(case.steps).unwrap();
        if !targets.starts_with(
            &case
                .received
                .iter()
                .map(|t| (*t).to_owned())
                .collect::<Vec<_>>(),
        ) {
            failures.push(format!("{}: received {targets:?}", case.name));
        } else if !stdout.lines().any(|line| line == case.line) {
            failures.push(format!(
                "{}: no line {:?} in\n{stdout}",
                case.name, case.line
            ));
        } else if report["flows"]["steps"] != wanted || report["flows"]["complete"] != 0 {
            failures.push(format!("{}: JSON {}", case.name, report["flows"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn merge_adds_the_flows_of_a_tests_shards() {
    let server = TestServer::start(Behaviour::Echo);
    let mix = mix_file("merge", PARTS, "login\ncall x3\nlogout\n");
    let mut files = Vec::new();
    for shard in ["0/2", "1/2"] {
        let json = temp(&format!("flow-merge-{}.json", &shard[..1]));
        let (_, report) = run(
            &format!("merge-{}", &shard[..1]),
            &[
                "-k",
                "-c",
                "2",
                "-n",
                "100",
                "-l",
                "--shard",
                shard,
                "--mix",
                &mix,
                &server.url(),
            ],
        );
        files.push((
            json.display().to_string(),
            report["flows"]["complete"].as_u64().unwrap(),
        ));
    }
    let merged = temp("flow-merged.json");
    let mut args = vec![
        "merge".to_owned(),
        "--json".to_owned(),
        merged.display().to_string(),
    ];
    args.extend(files.iter().map(|(file, _)| file.clone()));
    let output = loadgen(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged).unwrap()).unwrap();
    let done: u64 = files.iter().map(|(_, done)| done).sum();
    assert!(done > 0);
    assert_eq!(report["flows"]["complete"], done, "{}", report["flows"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("Flows:                  {done} done (")),
        "{stdout}"
    );
}

#[test]
fn flows_that_cannot_run_are_refused_before_the_first_request() {
    let server = TestServer::start(Behaviour::Record);
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "- login POST /l {login}\n- call POST /c {call} --save token=//token\n",
            "login\ncall\n",
            "the flow's step call: {{token}} is not saved by an earlier step of the flow: the first pass would send it unfilled",
            &[],
        ),
        (
            "- login POST /l {login} --save token=//token\n- call POST /c {login}\n",
            "login\ncall\n",
            "the flow's step login: --save token is used by no step after it",
            &[],
        ),
        (
            "1 login POST /l {login} --save token=//token\n- call POST /c {call}\n",
            "login\ncall\n",
            ":1: a part of a [flow] takes - for its weight",
            &[],
        ),
        (
            "- login POST /l {login} --save token=//token\n- call POST /c {call}\n",
            "login\ncall x0\n",
            ":5: \"x0\" is not xN with N a whole number from 1 to 1000000",
            &[],
        ),
        (
            "- login POST /l {login} --save token=//token\n- call POST /c {call}\n",
            "login\ncalls\n",
            ":5: no part is named \"calls\"",
            &[],
        ),
        (
            "- login POST /l {login} --save token=//token\n- call POST /c {call}\n- x POST /c {call}\n",
            "login\ncall\n",
            ":3: the part x is in no step of the [flow]",
            &[],
        ),
        (
            "- login POST /l {login} --save 'token=count(//token)'\n- call POST /c {call}\n",
            "login\ncall\n",
            ":1: --save token: \"count(//token)\" is a test",
            &[],
        ),
        (
            "- login POST /l {login} --save uuid=//token\n- call POST /c {call}\n",
            "login\ncall\n",
            ":1: --save \"uuid=//token\": the name \"uuid\" is a function's",
            &[],
        ),
        (
            "- login POST /l {login} --save token=//token --save-regex token=x\n- call POST /c {call}\n",
            "login\ncall\n",
            ":1: --save-regex token=x: the part saves token twice",
            &[],
        ),
        (
            "- login POST /l {login} --save token=//token\n- call POST /c {call} --save-regex token=T\n",
            "login\ncall\n",
            "token is saved by a path in one part and by a regex in another",
            &[],
        ),
        (
            "- login POST /l {login} --save token=//token\n- call POST /c {call}\n",
            "login\ncall\n",
            "a [flow] with --http2: flows are run over HTTP/1.x only, so far",
            &["--http2"],
        ),
    ];
    // More names saved than a flow may have.
    let many: String = (0..65).map(|i| format!(" --save v{i}=//token")).collect();
    let many = format!("- login POST /l {{login}}{many}\n- call POST /c {{call}}\n");
    let many = [(
        many.as_str(),
        "login\ncall\n",
        "the mix's [flow]: more than the 64 names a flow may save",
        &[][..],
    )];
    let mut failures = Vec::new();
    for (index, (parts, steps, message, extra)) in cases.iter().chain(&many).enumerate() {
        let mix = mix_file(&format!("bad{index}"), parts, steps);
        let mut args = vec!["-c", "1", "-n", "5", "--mix", &mix];
        args.extend_from_slice(extra);
        let url = server.url();
        args.push(&url);
        let output = loadgen(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.success() || !stderr.contains(message) {
            failures.push(format!(
                "{parts}[flow]\n{steps}: exit {:?}, {stderr}",
                output.status.code()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        server.recorded.lock().unwrap().is_empty(),
        "a request was sent"
    );
}
