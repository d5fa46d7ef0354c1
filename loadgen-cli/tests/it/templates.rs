//! `--template` and `--data` end to end: what a recording server receives, request by
//! request (rows in the order asked for, functions' values, path and headers, mixes,
//! WS-Security headers checked by `wsse`'s verifier), and the
//! inputs refused before the first request leaves.

use std::collections::BTreeSet;

use testkit::servers::{Behaviour, TestServer};

use crate::runs::{loadgen, temp};
use crate::wsse::verify_username_tokens;

/// One request as the server read it.
pub(crate) struct Received {
    pub(crate) request_line: String,
    pub(crate) head: String,
    pub(crate) body: String,
}

pub(crate) fn received(server: &TestServer) -> Vec<Received> {
    server
        .recorded
        .lock()
        .unwrap()
        .iter()
        .map(|bytes| {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let (head, body) = text.split_once("\r\n\r\n").expect("a whole request");
            Received {
                request_line: head.lines().next().unwrap_or_default().to_owned(),
                head: head.to_owned(),
                body: body.to_owned(),
            }
        })
        .collect()
}

/// `id` and `name` columns, `rows` of them: `C0000,"name 0, ok"`, ...
fn customers(rows: usize) -> String {
    let mut text = String::from("id,name\n");
    for row in 0..rows {
        text.push_str(&format!("C{row:04},\"name {row}, ok\"\n"));
    }
    text
}

struct Case {
    name: &'static str,
    /// The arguments before the URL: `{data}`, `{body}` and `{mix}` are the case's files.
    args: &'static str,
    /// The URL's path (and query).
    path: &'static str,
    /// The data file's name (its extension decides CSV or JSON lines) and text.
    data: (&'static str, fn() -> String),
    body: &'static str,
    /// A mix file's text, `{body}` in it the body file.
    mix: &'static str,
    check: fn(&[Received]) -> Result<(), String>,
}

const NONE: fn() -> String = String::new;

const CASES: &[Case] = &[
    Case {
        name: "a 1,000-row CSV in its order on one connection",
        args: "-c 1 -n 1000 --data {data} -p {body}",
        path: "/test",
        data: ("customers.csv", || customers(1000)),
        body: "<id>{{id}}</id><name>{{name}}</name>",
        mix: "",
        check: |received| {
            for (index, request) in received.iter().enumerate() {
                let expected = format!("<id>C{index:04}</id><name>name {index}, ok</name>");
                if request.body != expected {
                    return Err(format!("request {index}: {:?}", request.body));
                }
            }
            exactly(received, 1000)
        },
    },
    Case {
        name: "four connections on two threads take each row once",
        args: "-k -c 4 --threads 2 -n 1000 --data {data} -p {body}",
        path: "/test",
        data: ("customers.csv", || customers(1000)),
        body: "{{id}}",
        mix: "",
        check: |received| {
            let ids: BTreeSet<&str> = received.iter().map(|r| r.body.as_str()).collect();
            let all: BTreeSet<String> = (0..1000).map(|row| format!("C{row:04}")).collect();
            (ids == all.iter().map(String::as_str).collect())
                .then_some(())
                .ok_or_else(|| format!("{} distinct ids", ids.len()))?;
            exactly(received, 1000)
        },
    },
    Case {
        name: "a row a connection, for its life",
        args: "-k -c 3 --threads 1 -n 60 --data-order connection --data {data} -p {body}",
        path: "/test",
        data: ("customers.csv", || customers(10)),
        body: "{{id}}",
        mix: "",
        check: |received| {
            let ids: BTreeSet<&str> = received.iter().map(|r| r.body.as_str()).collect();
            (ids == BTreeSet::from(["C0000", "C0001", "C0002"]))
                .then_some(())
                .ok_or_else(|| format!("ids {ids:?}"))?;
            exactly(received, 60)
        },
    },
    Case {
        name: "functions: seq, random, uuid, now, pick and a literal {{",
        args: "-c 1 -n 200 --template -p {body}",
        path: "/test",
        data: ("", NONE),
        body: "{{seq}}|{{random -3 3}}|{{uuid}}|{{now}}|{{now +1h}}|{{pick a|b c}}|{{{{x}}",
        mix: "",
        check: functions,
    },
    Case {
        name: "the path and a header filled too",
        args: "-c 1 -n 20 -H 'X-Customer: {{id}}' --data {data}",
        path: "/orders/{{id}}?n={{seq}}",
        data: ("customers.csv", || customers(5)),
        body: "",
        mix: "",
        check: |received| {
            for (index, request) in received.iter().enumerate() {
                let id = format!("C{:04}", index % 5);
                let line = format!("GET /orders/{id}?n={index} HTTP/1.1");
                let header = format!("\r\nX-Customer: {id}\r\n");
                if request.request_line != line || !request.head.contains(&header) {
                    return Err(format!("request {index}: {}", request.head));
                }
            }
            exactly(received, 20)
        },
    },
    Case {
        name: "JSON lines: strings as they are, numbers, booleans and null as written",
        args: "-c 1 -n 4 --data {data} -p {body}",
        path: "/test",
        data: ("rows.jsonl", || {
            "{\"id\": \"a \\\"quoted\\\" one\", \"n\": 1.5, \"ok\": true}\n\n{\"ok\": null, \"n\": -2, \"id\": \"b\"}\n".into()
        }),
        body: "{{id}};{{n}};{{ok}}",
        mix: "",
        check: |received| {
            let bodies: Vec<&str> = received.iter().map(|r| r.body.as_str()).collect();
            let expected = ["a \"quoted\" one;1.5;true", "b;-2;"];
            (bodies == [expected[0], expected[1], expected[0], expected[1]])
                .then_some(())
                .ok_or_else(|| format!("{bodies:?}"))
        },
    },
    Case {
        name: "a mix's parts are templates too",
        args: "-c 1 -n 40 --data {data} --mix {mix}",
        path: "/test",
        data: ("customers.csv", || customers(40)),
        body: "<get>{{id}}</get>",
        mix: "1 get POST /get/{{seq}} {body}\n1 fixed POST /fixed - -H 'X-Seq: {{seq}}'\n",
        check: |received| {
            for (seq, request) in received.iter().enumerate() {
                let get = format!("POST /get/{seq} HTTP/1.1");
                let fine = if request.request_line == get {
                    request.body == format!("<get>C{seq:04}</get>")
                } else {
                    request.request_line == "POST /fixed HTTP/1.1"
                        && request.head.contains(&format!("\r\nX-Seq: {seq}\r\n"))
                };
                if !fine {
                    return Err(format!("request {seq}: {}\n{}", request.head, request.body));
                }
            }
            exactly(received, 40)
        },
    },
    Case {
        name: "a template with no placeholder is sent as one request, {{{{ as {{",
        args: "-c 1 -n 3 --template -p {body}",
        path: "/test",
        data: ("", NONE),
        body: "a {{{{b}} c",
        mix: "",
        check: |received| {
            let fine = received.iter().all(|request| {
                request.body == "a {{b}} c" && request.head.contains("Content-length: 9\r\n")
            });
            fine.then_some(()).ok_or_else(|| received[0].head.clone())?;
            exactly(received, 3)
        },
    },
    Case {
        name: "WS-Security PasswordDigest, a user a connection",
        args: "-k -c 2 --threads 1 -n 400 --data-order connection --data {data} -p {body}",
        path: "/test",
        data: ("users.csv", || {
            "user,password\nalice,pa55word\nbob,\"p&ss <x>\"\n".into()
        }),
        body: "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Header>{{wsse-username-token @user @password}}</soap:Header><soap:Body><Ping/></soap:Body></soap:Envelope>",
        mix: "",
        check: |received| {
            let users = verify_username_tokens(received, true)?;
            (users == BTreeSet::from(["alice".to_owned(), "bob".to_owned()]))
                .then_some(())
                .ok_or_else(|| format!("users {users:?}"))?;
            exactly(received, 400)
        },
    },
    Case {
        name: "WS-Security PasswordText, escaped",
        args: "-c 1 -n 20 --template -p {body}",
        path: "/test",
        data: ("", NONE),
        body: "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Header>{{wsse-username-token al&ce s3cr<t text}}</soap:Header><soap:Body/></soap:Envelope>",
        mix: "",
        check: |received| {
            let users = verify_username_tokens(received, false)?;
            (users == BTreeSet::from(["al&ce".to_owned()]))
                .then_some(())
                .ok_or_else(|| format!("users {users:?}"))?;
            exactly(received, 20)
        },
    },
];

fn exactly(received: &[Received], n: usize) -> Result<(), String> {
    (received.len() == n)
        .then_some(())
        .ok_or_else(|| format!("{} requests, not {n}", received.len()))
}

/// Each request's `seq` is its number; `random` within its bounds and both bounds met;
/// every `uuid` a distinct version 4; `now` within a minute of the run and `now +1h` an hour
/// after it; `pick` both options.
fn functions(received: &[Received]) -> Result<(), String> {
    let (mut randoms, mut uuids, mut picks) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let now = jiff::Timestamp::now();
    for (index, request) in received.iter().enumerate() {
        let fields: Vec<&str> = request.body.split('|').collect();
        let [seq, random, uuid, at, later, pick @ .., literal] = fields.as_slice() else {
            return Err(format!("request {index}: {}", request.body));
        };
        let pick = pick.join("|");
        let at_text = *at;
        let at: jiff::Timestamp = at.parse().map_err(|e| format!("{at}: {e}"))?;
        let later: jiff::Timestamp = later.parse().map_err(|e| format!("{later}: {e}"))?;
        let hour = later.duration_since(at).as_secs_f64();
        let fine = *seq == index.to_string()
            && at.duration_since(now).as_secs_f64().abs() < 60.0
            && (3599.0..3601.0).contains(&hour)
            && at_text.len() == "2026-12-07T19:20:00.123Z".len()
            && uuid.len() == 36
            && uuid.as_bytes()[14] == b'4'
            && b"89ab".contains(&uuid.as_bytes()[19])
            && *literal == "{{x}}";
        if !fine {
            return Err(format!("request {index}: {}", request.body));
        }
        randoms.insert(random.parse::<i64>().map_err(|e| e.to_string())?);
        uuids.insert(uuid.to_string());
        picks.insert(pick);
    }
    if randoms != (-3..=3).collect() {
        return Err(format!("random -3 3 gave {randoms:?}"));
    }
    if uuids.len() != received.len() {
        return Err(format!("{} distinct uuids", uuids.len()));
    }
    if picks != BTreeSet::from(["a".to_owned(), "b c".to_owned()]) {
        return Err(format!("pick gave {picks:?}"));
    }
    exactly(received, 200)
}

/// Writes the case's files and fills their names into `args`; the shell-quoted words.
fn arguments(
    name: &str,
    args: &str,
    data: (&str, fn() -> String),
    body: &str,
    mix: &str,
) -> Vec<String> {
    let dir = temp(&format!(
        "templates-{}",
        name.replace(|c: char| !c.is_alphanumeric(), "-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let body_file = dir.join("body.xml");
    std::fs::write(&body_file, body).unwrap();
    let data_file = dir.join(if data.0.is_empty() {
        "data.csv"
    } else {
        data.0
    });
    std::fs::write(&data_file, data.1()).unwrap();
    let mix_file = dir.join("mix.txt");
    std::fs::write(
        &mix_file,
        mix.replace("{body}", &body_file.display().to_string()),
    )
    .unwrap();
    let args = args
        .replace("{data}", &data_file.display().to_string())
        .replace("{body}", &body_file.display().to_string())
        .replace("{mix}", &mix_file.display().to_string());
    shlex::split(&args).expect("the case's arguments")
}

#[test]
fn templated_requests_reach_the_server_as_asked() {
    for case in CASES {
        let server = TestServer::start(Behaviour::Record);
        let mut args = arguments(case.name, case.args, case.data, case.body, case.mix);
        args.push("-q".into());
        args.push(format!("http://127.0.0.1:{}{}", server.port, case.path));
        let output = loadgen(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{}: {stderr}", case.name);
        if let Err(error) = (case.check)(&received(&server)) {
            panic!("{}: {error}", case.name);
        }
    }
}

#[test]
fn random_rows_are_the_seeds() {
    let run = |seed: &str| {
        let server = TestServer::start(Behaviour::Record);
        let mut args = arguments(
            "random",
            "-c 1 -n 300 --data-order random --data {data} -p {body}",
            ("customers.csv", || customers(50)),
            "{{id}}",
            "",
        );
        args.extend(["--seed".into(), seed.into(), "-q".into(), server.url()]);
        assert_eq!(loadgen(&args).status.code(), Some(0));
        received(&server)
            .into_iter()
            .map(|r| r.body)
            .collect::<Vec<_>>()
    };
    let (first, again, other) = (run("7"), run("7"), run("8"));
    assert_eq!(first, again, "the same seed, the same rows");
    assert_ne!(first, other, "another seed, other rows");
    let distinct: BTreeSet<&String> = first.iter().collect();
    // 300 draws of 50 rows miss a row with probability about 50 (49/50)^300 = 0.12%.
    assert!(distinct.len() >= 45, "{} rows drawn", distinct.len());
    let in_order: Vec<String> = (0..300).map(|i| format!("C{:04}", i % 50)).collect();
    assert_ne!(first, in_order);
}

struct Refusal {
    name: &'static str,
    args: &'static str,
    data: (&'static str, fn() -> String),
    body: &'static str,
    exit_code: i32,
    /// Text that must be on stderr.
    says: &'static str,
}

const REFUSALS: &[Refusal] = &[
    Refusal {
        name: "a placeholder no column or function fills",
        args: "--data {data} -p {body} {url}/test",
        data: ("customers.csv", || customers(3)),
        body: "<a>\n<b>{{customer}}</b>",
        exit_code: 2,
        says: "body.xml:2: {{customer}} is neither a column of",
    },
    Refusal {
        name: "a placeholder without data",
        args: "--template -p {body} {url}/test",
        data: ("", NONE),
        body: "{{id}}",
        exit_code: 2,
        says: "{{id}} is not a function (seq, random LO HI",
    },
    Refusal {
        name: "a placeholder not closed",
        args: "--template -p {body} {url}/test",
        data: ("", NONE),
        body: "x {{seq",
        exit_code: 2,
        says: "body.xml:1: a placeholder opened here is not closed with }}",
    },
    Refusal {
        name: "a row with a field too few",
        args: "--data {data} -p {body} {url}/test",
        data: ("customers.csv", || "id,name\nC1,a\nC2\n".into()),
        body: "{{id}}",
        exit_code: 2,
        says: "customers.csv:3: 1 fields where the header has 2",
    },
    Refusal {
        name: "an empty data file",
        args: "--data {data} -p {body} {url}/test",
        data: ("customers.csv", NONE),
        body: "{{id}}",
        exit_code: 2,
        says: "no rows",
    },
    Refusal {
        name: "a header and no rows",
        args: "--data {data} -p {body} {url}/test",
        data: ("customers.csv", || "id,name\n".into()),
        body: "{{id}}",
        exit_code: 2,
        says: "customers.csv: no rows: a data file needs at least one after its header",
    },
    Refusal {
        name: "a column whose name would move a terminal's cursor",
        args: "--data {data} -p {body} {url}/test",
        data: ("customers.csv", || "id,\u{1b}[2J\n1,2\n".into()),
        body: "{{nope}}",
        exit_code: 2,
        says: "(id, \\u{1b}[2J)",
    },
    Refusal {
        name: "two columns of one name",
        args: "--data {data} -p {body} {url}/test",
        data: ("customers.csv", || "id,id\n1,2\n".into()),
        body: "{{id}}",
        exit_code: 2,
        says: "customers.csv:1: two columns are named \"id\"",
    },
    Refusal {
        name: "a line break in a value bound for a header",
        args: "--data {data} -H 'X-Id: {{id}}' {url}/test",
        data: ("customers.csv", || {
            "id\nC1\n\"C2\r\nX-Injected: 1\"\n".into()
        }),
        body: "",
        exit_code: 2,
        says: "customers.csv:3: the value of id holds '\\r', which the request head cannot carry",
    },
    Refusal {
        name: "a space in a value bound for the path",
        args: "--data {data} {url}/o/{{id}}",
        data: ("customers.csv", || "id\nC 1\n".into()),
        body: "",
        exit_code: 2,
        says: "customers.csv:2: the value of id holds ' ', which the request line cannot carry",
    },
    Refusal {
        name: "a JSON line that is not an object",
        args: "--data {data} -p {body} {url}/test",
        data: ("rows.jsonl", || "{\"id\": 1}\n[1]\n".into()),
        body: "{{id}}",
        exit_code: 2,
        says: "rows.jsonl:2: not a JSON object",
    },
    Refusal {
        name: "a JSON line without a key of the first",
        args: "--data {data} -p {body} {url}/test",
        data: ("rows.jsonl", || {
            "{\"id\": 1, \"n\": 2}\n{\"id\": 1, \"m\": 2}\n".into()
        }),
        body: "{{id}}",
        exit_code: 2,
        says: "rows.jsonl:2: no key \"n\", which the first line has",
    },
    Refusal {
        name: "random's bounds reversed",
        args: "--template -p {body} {url}/test",
        data: ("", NONE),
        body: "{{random 9 5}}",
        exit_code: 2,
        says: "{{random 9 5}}: expected {{random LO HI}}, two integers with LO <= HI",
    },
    Refusal {
        name: "a function named by a column",
        args: "--data {data} -p {body} {url}/test",
        data: ("customers.csv", || "seq\n1\n".into()),
        body: "{{seq}}",
        exit_code: 2,
        says: "{{seq}} names both a function and a column of",
    },
    Refusal {
        name: "a UsernameToken of a column that is not",
        args: "--data {data} -p {body} {url}/test",
        data: ("customers.csv", || customers(1)),
        body: "{{wsse-username-token @login secret}}",
        exit_code: 2,
        says: "{{wsse-username-token}}: @login is not a column of --data",
    },
    Refusal {
        name: "a UsernameToken in a header",
        args: "--template -H 'X-Token: {{wsse-username-token a b}}' {url}/test",
        data: ("", NONE),
        body: "",
        exit_code: 2,
        says: "{{wsse-username-token}} writes a SOAP header element: it goes in the body",
    },
    Refusal {
        name: "content-length in a body",
        args: "--template -p {body} {url}/test",
        data: ("", NONE),
        body: "{{content-length}}",
        exit_code: 2,
        says: "{{content-length}} is the body's own length: it goes in a header",
    },
    Refusal {
        name: "a data file that is a folder",
        args: "--data /tmp -p {body} {url}/test",
        data: ("", NONE),
        body: "{{id}}",
        exit_code: 2,
        says: "/tmp: not a regular file",
    },
    Refusal {
        name: "--data-order without --data",
        args: "--template --data-order random -p {body} {url}/test",
        data: ("", NONE),
        body: "{{seq}}",
        exit_code: 22,
        says: "--data-order orders the rows of --data FILE: give it",
    },
    Refusal {
        name: "templates over HTTP/2",
        args: "--http2 --template -p {body} {url}/test",
        data: ("", NONE),
        body: "{{seq}}",
        exit_code: 22,
        says: "templates are sent over HTTP/1.x only, so far",
    },
];

#[test]
fn unusable_templates_and_data_are_refused_before_any_request() {
    let server = TestServer::start(Behaviour::Record);
    for refusal in REFUSALS {
        let url = format!("http://127.0.0.1:{}", server.port);
        let args = refusal.args.replace("{url}", &url);
        let args = arguments(refusal.name, &args, refusal.data, refusal.body, "");
        let output = loadgen(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(refusal.exit_code),
            "{}: {stderr}",
            refusal.name
        );
        assert!(stderr.contains(refusal.says), "{}: {stderr}", refusal.name);
    }
    assert_eq!(server.requests(), 0, "a refused run sends nothing");
}
