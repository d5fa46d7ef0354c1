use super::*;
use crate::options::Save;

fn part(name: &str, weight: u32) -> Part {
    Part::weighted_body(http::Method::POST, PathBuf::from(name), weight)
}

fn counts(picker: &Picker, range: std::ops::Range<u64>) -> Vec<u64> {
    let mut counts = vec![0; picker.n_kinds()];
    for ordinal in range {
        counts[picker.kind(ordinal)] += 1;
    }
    counts
}

#[test]
fn whole_blocks_have_the_exact_proportions() {
    let cases: &[(&[u32], u64, &[u64])] = &[
        (&[70, 30], 1000, &[700, 300]),
        (&[1, 1], 10, &[5, 5]),
        (&[3, 5, 2], 100, &[30, 50, 20]),
        (&[7], 9, &[9]),
        (&[997, 3], 2000, &[1994, 6]),
    ];
    for (weights, n, expected) in cases {
        let parts = weights
            .iter()
            .enumerate()
            .map(|(i, w)| part(&format!("k{i}"), *w))
            .collect();
        let picker = Mix::new(parts, 42).unwrap().picker();
        assert_eq!(counts(&picker, 0..*n), *expected, "weights {weights:?}");
        // Any whole block, anywhere in the run, has the reduced weights.
        let blocks = n / picker.total;
        let block: Vec<u64> = expected.iter().map(|count| count / blocks).collect();
        let from = 123_456 * picker.total;
        assert_eq!(counts(&picker, from..from + picker.total), block);
    }
}

#[test]
fn the_order_is_the_seeds_and_varies_between_blocks() {
    let mix = |seed| Mix::new(vec![part("a", 70), part("b", 30)], seed).unwrap();
    let order = |picker: &Picker| (0..200).map(|i| picker.kind(i)).collect::<Vec<_>>();
    let one = order(&mix(1).picker());
    assert_eq!(one, order(&mix(1).picker()), "same seed, same order");
    assert_ne!(one, order(&mix(2).picker()), "another seed, another order");
    let blocks: std::collections::HashSet<&[usize]> = one.chunks(10).collect();
    assert!(
        blocks.len() > 5,
        "blocks should differ in order: {blocks:?}"
    );
}

#[test]
fn mix_files_parse_or_say_why_not() {
    let folder = Path::new("/mixes");
    let good = "# a comment\n\n70 EchoStruct-20 POST /WSTest s.xml -T text/xml -H 'SOAPAction: \"\"' --expect-body EchoStructResponse\n30 void GET - - --expect-status 200\n";
    let mix = Mix::parse(good, "m.txt", folder, 5).unwrap();
    assert_eq!(mix.parts.len(), 2);
    let first = &mix.parts[0];
    assert_eq!(first.body_file.as_deref(), Some(Path::new("/mixes/s.xml")));
    assert_eq!(first.headers[0].line(), "SOAPAction: \"\"");
    assert_eq!(first.expect_body.as_deref(), Some("EchoStructResponse"));
    assert_eq!(mix.parts[1].path, None);
    assert_eq!(mix.parts[1].expect_status, Some(http::StatusCode::OK));
    // What to_file writes reads back the same.
    let again = Mix::parse(&mix.to_file(), "again", Path::new(""), 5).unwrap();
    assert_eq!(again, mix);

    let bad: &[(&str, &str)] = &[
        (
            "70 a POST /x",
            "m.txt:1: expected WEIGHT NAME METHOD PATH BODY",
        ),
        ("0 a POST /x -", "m.txt:1: the weight \"0\""),
        ("x a POST /x -", "m.txt:1: the weight \"x\""),
        ("1 a P@ST /x -", "is not an HTTP method"),
        ("1 a POST x -", "does not start with /"),
        ("1 a POST /x - -T", "-T wants a value"),
        ("1 a POST /x - -k on", "unknown option -k"),
        ("1 a POST /x - -H nocolon", "expected Name: value"),
        ("1 a POST '/x -", "an unclosed quote"),
        (
            "1 a POST /x -\n2 a GET /y -",
            "two parts of the mix are named \"a\"",
        ),
        ("# nothing", "at least one part"),
        ("1000000 a GET / -\n1 b GET / -", "above the 1000000"),
        // Nothing that could put bytes of its own on the wire.
        // A line ends at LF; a bare CR stays in the line, and is refused.
        (
            "1 a POST /x - -H 'X: 1\rX-Injected: 1'",
            "m.txt:1: -H \"X: 1\\rX-Injected: 1\": the value of the header X holds '\\r'",
        ),
        ("1 a POST /x - -H 'X: a\u{0}b'", "m.txt:1: a NUL byte"),
        (
            "1 a POST /x - -T 'text/xml\rX: 1'",
            "-T: the value of the header Content-type holds '\\r'",
        ),
        (
            "1 a POST '/x\rX: 1' -",
            "the path \"/x\\rX: 1\" holds '\\r'",
        ),
        ("1 a POST '/a b' -", "holds ' ': percent-encode it"),
        ("1 a POST /x s\u{4}\u{0}.xml", "m.txt:1: a NUL byte"),
        // Names a report can print.
        (
            "1 'a\u{1b}[2J' POST /x -",
            "the part name \"a\\u{1b}[2J\" is not 1 to 200 characters",
        ),
    ];
    for (text, message) in bad {
        let error = Mix::parse(text, "m.txt", folder, 1)
            .unwrap_err()
            .to_string();
        assert!(error.contains(message), "{text:?}: {error}");
    }
    let long = format!("1 {} POST /x -", "n".repeat(70_000));
    let error = Mix::parse(&long, "m.txt", folder, 1).unwrap_err();
    assert!(
        error.to_string().contains("is not 1 to 200 characters"),
        "{error}"
    );
    // Past the most kinds, refused at the line that passes it: a million lines are not read.
    let many: String = (0..1_000_001)
        .map(|i| format!("1 k{i} GET / -\n"))
        .collect();
    let error = Mix::parse(&many, "m.txt", folder, 1).unwrap_err();
    assert_eq!(
        error.to_string(),
        "m.txt:101: a mix may have at most 100 parts"
    );
    // A duplicate among the most kinds is found (by a set, not by each pair).
    let twice: String = (0..100)
        .map(|i| format!("1 k{} GET / -\n", i.min(98)))
        .collect();
    assert!(
        Mix::parse(&twice, "m.txt", folder, 1)
            .unwrap_err()
            .to_string()
            .contains("named \"k98\"")
    );
}

#[test]
fn flows_parse_write_back_and_give_their_parts_weights() {
    let folder = Path::new("/mixes");
    let text = "\
- login POST /l login.xml --save token=//token --save-regex 'sid=id=(\\d+)'
- call POST /c call.xml -H 'X-T: {{token}}'
- logout POST /o -
[flow]
login
call x10
logout
call x2
";
    let mix = Mix::parse(text, "f.mix", folder, 1).unwrap();
    let flow = mix.flow.as_ref().unwrap();
    let steps: Vec<(usize, u32)> = flow.steps.iter().map(|s| (s.part, s.times)).collect();
    assert_eq!(steps, [(0, 1), (1, 10), (2, 1), (1, 2)]);
    // A part's weight is the times one pass sends it.
    let weights: Vec<u32> = mix.parts.iter().map(|p| p.weight).collect();
    assert_eq!(weights, [1, 12, 1]);
    assert_eq!(
        mix.parts[0].saves,
        [
            Save {
                name: "token".into(),
                from: SaveFrom::Path("//token".into())
            },
            Save {
                name: "sid".into(),
                from: SaveFrom::Regex("id=(\\d+)".into())
            },
        ]
    );
    let again = Mix::parse(&mix.to_file(), "again", folder, 1).unwrap();
    assert_eq!(again, mix);
    // Steps named as a section or a comment would be are written back quoted.
    let odd =
        "- '[flow]' GET / -\n- '#x' GET / -\n- 'a b' GET / -\n[flow]\n'[flow]' x2\n'#x'\n'a b'\n";
    let odd = Mix::parse(odd, "odd.mix", folder, 1).unwrap();
    assert_eq!(Mix::parse(&odd.to_file(), "again", folder, 1).unwrap(), odd);
    // A flow's times are not a block's weights: a million calls a pass are a flow.
    let long = "- login GET / -\n- call GET / -\n[flow]\nlogin\ncall x1000000\n";
    let long = Mix::parse(long, "long.mix", folder, 1).unwrap();
    assert_eq!(long.parts[1].weight, 1_000_000);
    assert!(long.picker().kind(999_999_999) < 2);
    // Saves need a flow, in a file and in code alike.
    let mut part = part("p", 1);
    part.saves = mix.parts[0].saves.clone();
    assert!(
        Mix::new(vec![part], 1)
            .unwrap_err()
            .to_string()
            .contains("only a flow's later steps can use")
    );
}
