//! Weighted mixes end to end: a 70/30 mix of EchoStruct-20 and GetOrder-20 against
//! wstest-server over HTTP/1.1 and HTTP/2, by `--mix FILE` and by `-p FILE@W`, in shards
//! merged; each kind's figures in the report and the JSON add up exactly to the totals.

use std::path::PathBuf;
use std::process::Command;

use suite::target::{Target, TargetSpec};

use crate::runs::{loadgen, temp};

/// The WSTest post files, as the mix files name them.
fn post_file(name: &str) -> String {
    format!("{}/../post_files/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A 70/30 mix of EchoStruct-20 and GetOrder-20, each checked by its own answer; `wrong`
/// makes GetOrder's check one no answer passes.
pub(crate) fn mix_file(name: &str, wrong: bool) -> PathBuf {
    let soap = |operation: &str| {
        format!(
            "-T 'text/xml; charset=utf-8' -H 'SOAPAction: \"uri:WSTestWeb-TestService/{operation}\"' --reject-body 'Fault>'"
        )
    };
    let order_check = if wrong {
        "NoSuchResponse"
    } else {
        "GetOrderResponse"
    };
    let text = format!(
        "# weight name method path body [options]\n\
         70 EchoStruct-20 POST - {} {} --expect-body EchoStructResponse\n\
         30 GetOrder-20 POST /WSTest {} {} --expect-body {order_check}\n",
        post_file("echostruct20.xml"),
        soap("EchoStruct"),
        post_file("getorder20.xml"),
        soap("GetOrder"),
    );
    let path = temp(name);
    std::fs::write(&path, text).unwrap();
    path
}

pub(crate) fn wstest_server() -> Target {
    let spec = TargetSpec::Binary {
        name: "wstest".to_owned(),
        program: testkit::workspace_bin("wstest-server", "server"),
        args: Vec::new(),
    };
    Target::start(&spec, None, None).expect("starting wstest-server")
}

struct Case {
    name: &'static str,
    /// The arguments before `--json FILE URL`; `{mix}` is the mix file, `{wrong}` the one
    /// whose GetOrder check fails, `{struct}` and `{order}` the post files.
    args: &'static str,
    /// Each kind's name, complete and failed requests.
    kinds: &'static [(&'static str, u64, u64)],
}

const CASES: &[Case] = &[
    Case {
        name: "a mix file over HTTP/1.1",
        args: "-k -c 4 -n 1000 --mix {mix}",
        kinds: &[("EchoStruct-20", 700, 0), ("GetOrder-20", 300, 0)],
    },
    Case {
        name: "a mix file over HTTP/2, four streams a connection",
        args: "--http2 --streams 4 -c 2 -n 1000 --seed 9 --mix {mix}",
        kinds: &[("EchoStruct-20", 700, 0), ("GetOrder-20", 300, 0)],
    },
    Case {
        name: "a part's failures are its own",
        args: "-k -c 4 -n 1000 --mix {wrong}",
        kinds: &[("EchoStruct-20", 700, 0), ("GetOrder-20", 300, 300)],
    },
    Case {
        name: "-p FILE@W with the command line's headers",
        args: "-k -c 3 -n 100 -T text/xml -H SOAPAction:\"\" --reject-body Fault> -p {struct}@1 -p {order}@3",
        kinds: &[("echostruct20", 25, 0), ("getorder20", 75, 0)],
    },
];

#[test]
fn mixes_count_each_kind_exactly() {
    let server = wstest_server();
    let url = server.url.to_string();
    let mix = mix_file("mix.txt", false);
    let wrong = mix_file("wrong.txt", true);
    for case in CASES {
        let json = temp("mix.json");
        let mut args: Vec<String> = case
            .args
            .split_whitespace()
            .map(|arg| {
                arg.replace("{mix}", &mix.display().to_string())
                    .replace("{wrong}", &wrong.display().to_string())
                    .replace("{struct}", &post_file("echostruct20.xml"))
                    .replace("{order}", &post_file("getorder20.xml"))
            })
            .collect();
        args.extend(["--json".to_owned(), json.display().to_string(), url.clone()]);
        let output = loadgen(&args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let context = format!(
            "{}: loadgen {}\n{stdout}{}",
            case.name,
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "{context}");
        check(
            case,
            &stdout,
            &std::fs::read_to_string(&json).unwrap(),
            &context,
        );
    }
}

/// The report's table and the JSON's kinds hold `case`'s counts, and add up to the totals.
#[track_caller]
fn check(case: &Case, stdout: &str, json: &str, context: &str) {
    let json: serde_json::Value = serde_json::from_str(json).unwrap();
    let kinds = json["kinds"].as_array().expect("kinds in the JSON");
    let found: Vec<(String, u64, u64)> = kinds
        .iter()
        .map(|kind| {
            (
                kind["name"].as_str().unwrap().to_owned(),
                kind["complete"].as_u64().unwrap(),
                kind["failed"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, u64, u64)> = case
        .kinds
        .iter()
        .map(|(name, complete, failed)| (name.to_string(), *complete, *failed))
        .collect();
    assert_eq!(found, expected, "{context}");
    let counters = &json["counters"];
    let sum = |field: &str| {
        kinds
            .iter()
            .map(|k| k[field].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(
        Some(sum("complete")),
        counters["complete"].as_u64(),
        "{context}"
    );
    assert_eq!(
        Some(sum("failed")),
        counters["failed"].as_u64(),
        "{context}"
    );
    // Each kind was judged by its own length: a length failure would be a failed request
    // of the kind that answered second.
    assert_eq!(counters["length_errors"].as_u64(), Some(0), "{context}");
    for (name, complete, failed) in case.kinds {
        let row = stdout
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row for {name} in {context}"));
        let words: Vec<&str> = row.split_whitespace().collect();
        // kind weight share length complete failed ...
        assert_eq!(
            (words[4], words[5]),
            (complete.to_string().as_str(), failed.to_string().as_str()),
            "{context}"
        );
    }
}

#[test]
fn shards_of_a_mix_merge_into_its_exact_shares() {
    let server = wstest_server();
    let url = server.url.to_string();
    let mix = mix_file("shard-mix.txt", false);
    let files: Vec<PathBuf> = (0..2)
        .map(|i| temp(&format!("mix-shard-{i}.json")))
        .collect();
    for (index, file) in files.iter().enumerate() {
        let output = loadgen(&[
            "-q".to_owned(),
            "-k".to_owned(),
            "-c".to_owned(),
            "4".to_owned(),
            "-n".to_owned(),
            "2000".to_owned(),
            "--mix".to_owned(),
            mix.display().to_string(),
            "--shard".to_owned(),
            format!("{index}/2"),
            "--json".to_owned(),
            file.display().to_string(),
            url.clone(),
        ]);
        assert!(output.status.success(), "shard {index}: {output:?}");
    }
    let merged = temp("mix-merged.json");
    let output = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .arg("merge")
        .arg("--json")
        .arg(&merged)
        .args(&files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    let case = Case {
        name: "two shards merged",
        args: "",
        kinds: &[("EchoStruct-20", 1400, 0), ("GetOrder-20", 600, 0)],
    };
    check(
        &case,
        &stdout,
        &std::fs::read_to_string(&merged).unwrap(),
        &stdout,
    );
}

#[test]
fn a_mix_that_cannot_be_used_is_refused_naming_why() {
    let bad = temp("bad-mix.txt");
    std::fs::write(&bad, "70 EchoStruct-20 POST /WSTest\n").unwrap();
    let missing_body = temp("missing-body-mix.txt");
    std::fs::write(&missing_body, "1 void POST - no-such-file.xml\n").unwrap();
    let url = "http://127.0.0.1:9/WSTest";
    // (arguments, exit code, text on stderr, whether ab's usage text follows)
    let cases: &[(Vec<String>, i32, &str, bool)] = &[
        (
            vec!["--mix".into(), bad.display().to_string(), url.into()],
            1,
            "bad-mix.txt:1: expected WEIGHT NAME METHOD PATH BODY",
            false,
        ),
        (
            vec!["--mix".into(), "/no/such/mix".into(), url.into()],
            1,
            "/no/such/mix: No such file",
            false,
        ),
        (
            vec!["--seed".into(), "3".into(), url.into()],
            22,
            "--seed orders a mix",
            true,
        ),
        (
            vec![
                "--mix".into(),
                bad.display().to_string(),
                "-p".into(),
                "x.xml".into(),
                url.into(),
            ],
            22,
            "the mix file gives each part's method and body",
            true,
        ),
        (
            vec![
                "-p".into(),
                "a.xml".into(),
                "-p".into(),
                "b.xml@2".into(),
                url.into(),
            ],
            22,
            "give every body of a mix a weight",
            true,
        ),
        (
            vec![
                "--mix".into(),
                missing_body.display().to_string(),
                "http://127.0.0.1:9/x".into(),
            ],
            1,
            "in the mix's part void: Invalid postfile name",
            false,
        ),
        // The live counts' options refuse what they cannot use, as usage errors.
        (
            vec!["--metrics".into(), "localhost".into(), url.into()],
            22,
            "expected an address and port",
            true,
        ),
        (
            vec![
                "--prom-remote-write".into(),
                "https://x/api/v1/write".into(),
                url.into(),
            ],
            22,
            "https:// is not offered",
            true,
        ),
        (
            vec!["--metrics-hold".into(), "5s".into(), url.into()],
            22,
            "--metrics-hold keeps the --metrics endpoint up",
            true,
        ),
    ];
    for (args, code, text, usage) in cases {
        let output = loadgen(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(*code), "{args:?}: {stderr}");
        assert!(stderr.contains(text), "{args:?}: {stderr}");
        assert_eq!(stderr.contains("Usage:"), *usage, "{args:?}: {stderr}");
    }
}
