//! The template module's own cases: parsing and rendering by table, the data file's forms,
//! and the date written against jiff's.

use super::function::{Keys, write_date_time};
use super::{Data, Fill, Position, Scope, Template, Values, Variable};

const CSV: &str = "\u{feff}id,note\r\nC1,\"two\r\nlines, \"\"quoted\"\"\"\r\nC2,plain\r\n";

fn data() -> Data {
    Data::parse_csv(CSV.as_bytes(), "d.csv").expect("the test's CSV")
}

/// Writes `text` to a file of this test's own and reads it as `--data` does.
fn read(name: &str, text: &str) -> Result<Data, String> {
    let dir = std::env::temp_dir().join(format!("loadgen-template-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    Data::read(&path).map_err(|error| error.to_string().replace(&dir.display().to_string(), ""))
}

/// Renders `text` for request `seq` on data row `row`, with two saved values: `token`, read
/// from XML, and `raw`, by a regex.
fn render(text: &str, seq: u64, row: usize) -> Result<String, String> {
    let data = data();
    let variables = [
        Variable {
            name: "token".into(),
            xml: true,
        },
        Variable {
            name: "raw".into(),
            xml: false,
        },
    ];
    let scope = Scope {
        data: Some(&data),
        variables: &variables,
    };
    let template = Template::parse(text.as_bytes(), "t", scope, Position::Body)
        .map_err(|error| error.to_string())?;
    let saved = [b"a&b<c\"d".to_vec(), b"x&y".to_vec()];
    let values = Values {
        data: Some(&data),
        keys: Keys { seed: 1, run: 2 },
        variables: &saved,
    };
    let mut out = Vec::new();
    template.render(Fill { seq, row }, &values, 0, &mut out);
    Ok(String::from_utf8(out).unwrap())
}

#[test]
fn templates_render_as_the_table_says() {
    let cases: &[(&str, u64, usize, Result<&str, &str>)] = &[
        ("plain", 0, 0, Ok("plain")),
        // A saved value read from XML goes into a body escaped again; one by a regex as read.
        ("<t>{{token}}</t>", 0, 0, Ok("<t>a&amp;b&lt;c&quot;d</t>")),
        ("{{raw}}", 0, 0, Ok("x&y")),
        (
            "{{token x}}",
            0,
            0,
            Err("t:1: {{token}} is a saved value and takes no arguments (found \"x\")"),
        ),
        ("{{id}}/{{ note }}", 0, 1, Ok("C2/plain")),
        ("{{note}}", 0, 0, Ok("two\r\nlines, \"quoted\"")),
        ("<n>{{seq}}</n>", 12_345, 0, Ok("<n>12345</n>")),
        ("{{{{id}}", 0, 0, Ok("{{id}}")),
        ("{{{{{{id}}", 0, 0, Ok("{{C1")),
        ("a}}b{", 0, 0, Ok("a}}b{")),
        ("{{random 7 7}}", 3, 0, Ok("7")),
        ("{{pick only}}", 3, 0, Ok("only")),
        ("{{pick |}}", 3, 0, Ok("")),
        (
            "{{nope}}",
            0,
            0,
            Err("t:1: {{nope}} is neither a column of d.csv (id, note)"),
        ),
        ("\n\n{{}}", 0, 0, Err("t:3: an empty placeholder")),
        (
            "{{id x}}",
            0,
            0,
            Err("{{id}} is a column and takes no arguments"),
        ),
        ("{{seq 1}}", 0, 0, Err("{{seq}} takes no arguments")),
        ("{{random 1}}", 0, 0, Err("expected {{random LO HI}}")),
        ("{{random a b}}", 0, 0, Err("expected {{random LO HI}}")),
        ("{{now 5m}}", 0, 0, Err("expected {{now}} or an offset")),
        ("{{now +5y}}", 0, 0, Err("expected {{now}} or an offset")),
        (
            "{{now +99999999d}}",
            0,
            0,
            Err("expected {{now}} or an offset"),
        ),
        ("{{now +}}", 0, 0, Err("expected {{now}} or an offset")),
        // Found by the `template` fuzz target: a unit of two bytes was cut inside itself.
        ("{{now +5µ}}", 0, 0, Err("expected {{now}} or an offset")),
        ("{{now +˙}}", 0, 0, Err("expected {{now}} or an offset")),
        ("{{pick}}", 0, 0, Err("{{pick}} needs options")),
        (
            "{{id\n}}",
            0,
            0,
            Err("t:1: a placeholder opened here is not closed with }} on its line"),
        ),
        ("{{\u{ff}}}", 0, 0, Err("is neither a column")),
    ];
    for &(text, seq, row, expected) in cases {
        let got = render(text, seq, row);
        match (expected, &got) {
            (Ok(expected), Ok(got)) => assert_eq!(got, expected, "{text:?}"),
            (Err(expected), Err(got)) => assert!(got.contains(expected), "{text:?}: {got}"),
            _ => panic!("{text:?}: {got:?}, expected {expected:?}"),
        }
    }
}

#[test]
fn random_values_cover_their_bounds_and_the_whole_range() {
    let mut seen = std::collections::BTreeSet::new();
    for seq in 0..1000 {
        seen.insert(render("{{random -2 2}}", seq, 0).unwrap());
    }
    assert_eq!(seen.len(), 5, "{seen:?}");
    let extreme = render("{{random -9223372036854775808 9223372036854775807}}", 5, 0).unwrap();
    assert!(extreme.parse::<i64>().is_ok(), "{extreme}");
}

#[test]
fn data_files_keep_their_values_and_lines() {
    let data = data();
    assert_eq!(
        data.names(),
        ["id", "note"],
        "the byte order mark is passed over"
    );
    assert_eq!(data.n_rows(), 2);
    assert_eq!(data.value(0, 1), b"two\r\nlines, \"quoted\"");
    assert_eq!(data.value(1, 0), b"C2");
    let json = Data::parse_json_lines(
        &b"{\"a\":\"x\",\"b\":2}\r\n{\"b\":false,\"a\":\"\"}"[..],
        "j",
    )
    .expect("JSON lines");
    let row = |row: usize| {
        (0..2)
            .map(|c| json.value(row, c).to_vec())
            .collect::<Vec<_>>()
    };
    assert_eq!(json.names(), ["a", "b"]);
    assert_eq!(row(0), [b"x".to_vec(), b"2".to_vec()]);
    assert_eq!(row(1), [b"".to_vec(), b"false".to_vec()]);
}

#[test]
fn rows_past_the_stride_are_found() {
    let mut text = String::from("n,twice,empty\n");
    for row in 0..100 {
        text.push_str(&format!("{row},{},\n", row * 2));
    }
    let data = Data::parse_csv(text.as_bytes(), "n.csv").expect("the CSV");
    for row in 0..100 {
        assert_eq!(data.value(row, 0), row.to_string().as_bytes());
        assert_eq!(data.value(row, 1), (row * 2).to_string().as_bytes());
        assert_eq!(data.value(row, 2), b"");
    }
    let wide: Vec<String> = (0..40).map(|column| format!("c{column}")).collect();
    let text_wide = format!("{}\n{}\n", wide.join(","), wide.join(",").replace('c', "v"));
    let data_wide = Data::parse_csv(text_wide.as_bytes(), "w.csv").expect("the wide CSV");
    for column in [0, 31, 32, 39] {
        assert_eq!(data_wide.value(0, column), format!("v{column}").as_bytes());
    }
    // The values and their separators are the file's bytes; a start every 16 rows is added.
    let held = data.heap_bytes();
    assert!(held <= text.len() + 4 * (100 / 16 + 1), "{held} bytes held");
}

#[test]
fn errors_name_the_line_a_record_starts_on() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "a.csv",
            "id,note\r\n1,\"two\r\nlines\"\r\n2\r\n",
            "/a.csv:4: 1 fields where the header has 2",
        ),
        (
            "b.csv",
            "id\n\n\n1\n\"\0\"\n",
            "/b.csv:5: the value of id holds a NUL byte",
        ),
        (
            "c.csv",
            "id,id\n1,2\n",
            "/c.csv:1: two columns are named \"id\"",
        ),
        (
            "d.jsonl",
            "\n{\"a\":1}\n\n{\"a\":[1]}\n",
            "/d.jsonl:4: the value of \"a\" is an array",
        ),
        ("e.jsonl", "", "/e.jsonl: no rows"),
    ];
    for &(name, text, expected) in cases {
        let error = read(name, text).expect_err(name);
        assert!(error.starts_with(expected), "{name}: {error}");
    }
}

#[test]
fn dates_are_written_as_jiff_writes_them() {
    let mut rng = 0x1234_5678_u64;
    let mut instants: Vec<i64> = vec![
        0,
        -1,
        951_782_400_000,    // 2000-02-29
        4_107_542_399_999,  // 2100-02-28T23:59:59.999
        4_107_542_400_000,  // 2100-03-01
        -1_388_534_400_000, // 1926-01-01
        1_796_378_400_123,
    ];
    for _ in 0..20_000 {
        rng = super::function::mix(rng);
        instants.push((rng % 6_311_390_400_000) as i64 - 1_388_534_400_000);
    }
    for ms in instants {
        let mut out = Vec::new();
        write_date_time(ms, &mut out);
        let expected = jiff::Timestamp::from_millisecond(ms)
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        assert_eq!(String::from_utf8(out).unwrap(), expected, "{ms}");
    }
}
