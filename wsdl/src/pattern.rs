//! A value of an `xsd:pattern`: the XML Schema expression read into the `regex` crate's dialect
//! (XSD's is anchored to the whole value, has no anchors of its own, and has `\i`, `\c` and
//! class subtraction `[a-z-[aeiou]]`), parsed to a syntax tree, the shortest plain value
//! written from the tree (the first branch of each choice, each repetition its least, each
//! class its first letter or digit), and that value matched against the expression itself: a
//! value the expression does not take is never written.

use regex_syntax::hir::{Class, Hir, HirKind};

/// The longest value written from a pattern.
const MAX_CHARS: usize = 1 << 20;

/// An `xsd:pattern` read: the expression matching whole values, and its shortest plain value.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    pub(crate) whole: regex::Regex,
    pub(crate) shortest: String,
}

impl Pattern {
    /// `pattern` read, with a value it matches whole; or why no value is written.
    pub(crate) fn read(pattern: &str) -> Result<Pattern, String> {
        let translated = translate(pattern)?;
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(&translated)
            .map_err(|error| format!("the expression does not read: {error}"))?;
        let mut shortest = String::new();
        write(&hir, &mut shortest)?;
        let whole = regex::Regex::new(&format!("^(?:{translated})$"))
            .map_err(|error| format!("the expression does not read: {error}"))?;
        if !whole.is_match(&shortest) {
            return Err(format!(
                "no value found that it matches ({shortest:?} does not)"
            ));
        }
        Ok(Pattern { whole, shortest })
    }

    /// `preferred` (the base type's own sample) when the expression takes it, so that a
    /// pattern on a typed base (WCF's duration) keeps the base's form; else the shortest value.
    pub(crate) fn value(&self, preferred: Option<String>) -> String {
        match preferred {
            Some(value) if self.whole.is_match(&value) => value,
            _ => self.shortest.clone(),
        }
    }
}

/// The shortest value `pattern` matches whole, or why none is written.
#[cfg(test)]
fn sample(pattern: &str) -> Result<String, String> {
    Pattern::read(pattern).map(|pattern| pattern.shortest)
}

/// XSD's dialect in `regex`'s: `^` and `$` literal outside classes, `\i`/`\c` (and their
/// complements) as classes, `-[` subtraction as `--[`.
fn translate(pattern: &str) -> Result<String, String> {
    const INITIAL: &str =
        "_:A-Za-z\\u{C0}-\\u{D6}\\u{D8}-\\u{F6}\\u{F8}-\\u{2FF}\\u{370}-\\u{37D}\\u{37F}-\\u{1FFF}";
    const NAME: &str = "\\-.0-9\\u{B7}_:A-Za-z\\u{C0}-\\u{D6}\\u{D8}-\\u{F6}\\u{F8}-\\u{2FF}\\u{300}-\\u{37D}\\u{37F}-\\u{1FFF}";
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut class_depth = 0usize;
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => {
                let Some(escaped) = chars.next() else {
                    return Err("it ends in a lone backslash".to_owned());
                };
                let (set, negated) = match escaped {
                    'i' => (INITIAL, false),
                    'I' => (INITIAL, true),
                    'c' => (NAME, false),
                    'C' => (NAME, true),
                    other => {
                        out.push('\\');
                        out.push(other);
                        continue;
                    }
                };
                match (class_depth > 0, negated) {
                    (false, false) => out.push_str(&format!("[{set}]")),
                    (false, true) => out.push_str(&format!("[^{set}]")),
                    (true, false) => out.push_str(set),
                    (true, true) => {
                        return Err(format!("\\{escaped} inside a class is not read"));
                    }
                }
            }
            '[' => {
                class_depth += 1;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
            }
            ']' if class_depth > 0 => {
                class_depth -= 1;
                out.push(']');
            }
            '-' if class_depth > 0 && chars.peek() == Some(&'[') => out.push_str("--"),
            // regex's class set operators, literal in XSD.
            '&' | '~' if class_depth > 0 => {
                out.push('\\');
                out.push(ch);
            }
            '^' | '$' if class_depth == 0 => {
                out.push('\\');
                out.push(ch);
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// The shortest plain value of `hir`.
fn write(hir: &Hir, out: &mut String) -> Result<(), String> {
    if out.len() > MAX_CHARS {
        return Err(format!("its shortest value passes {MAX_CHARS} characters"));
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => {
            out.push_str(&String::from_utf8_lossy(&literal.0));
        }
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            let within = |ch: &char| ranges.iter().any(|r| (r.start()..=r.end()).contains(ch));
            // A digit or letter of the class, else its first printable character.
            let pick = ('0'..='9')
                .chain('a'..='z')
                .chain('A'..='Z')
                .find(within)
                .or_else(|| {
                    ranges
                        .iter()
                        .flat_map(|r| (r.start()..=r.end()).take(64))
                        .find(|ch| !ch.is_control())
                })
                .ok_or("a class that matches no printable character")?;
            out.push(pick);
        }
        HirKind::Class(Class::Bytes(_)) => return Err("a class of bytes".to_owned()),
        HirKind::Repetition(repetition) => {
            for _ in 0..repetition.min {
                write(&repetition.sub, out)?;
            }
        }
        HirKind::Capture(capture) => write(&capture.sub, out)?,
        HirKind::Concat(parts) => {
            for part in parts {
                write(part, out)?;
            }
        }
        HirKind::Alternation(branches) => {
            if let Some(first) = branches.first() {
                write(first, out)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_give_values_they_match() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            // WCF's serialization schema.
            (
                r"[\da-fA-F]{8}-[\da-fA-F]{4}-[\da-fA-F]{4}-[\da-fA-F]{4}-[\da-fA-F]{12}",
                Ok("00000000-0000-0000-0000-000000000000"),
            ),
            (r"\-?P(\d*D)?(T(\d*H)?(\d*M)?(\d*(\.\d*)?S)?)?", Ok("P")),
            (r"[A-Z]{2}\d{3,5}", Ok("AA000")),
            (r"(abc|de)+x?", Ok("abc")),
            (r"\i\c*", Ok("a")),
            (r"[a-z-[a-c]]{2}", Ok("dd")),
            (r"[^0-9]", Ok("a")),
            (r"a^b$c", Ok("a^b$c")),
            (r"[\i-[:]]", Ok("a")),
            (r"\p{Lu}{2}", Ok("AA")),
            (r"x{2000000}", Err("passes")),
            (r"(", Err("does not read")),
            (r"[\I]", Err("inside a class")),
            (r"\", Err("lone backslash")),
        ];
        // A base type's own sample, when the expression takes it.
        let duration = Pattern::read(r"\-?P(\d*D)?(T(\d*H)?(\d*M)?(\d*(\.\d*)?S)?)?").unwrap();
        assert_eq!(duration.value(Some("PT1S".to_owned())), "PT1S");
        assert_eq!(duration.value(Some("sample 1".to_owned())), "P");
        for (pattern, want) in cases {
            match (sample(pattern), want) {
                (Ok(value), Ok(want)) => assert_eq!(value, *want, "{pattern}"),
                (Err(error), Err(want)) => assert!(error.contains(want), "{pattern}: {error}"),
                (got, want) => panic!("{pattern}: {got:?}, wanted {want:?}"),
            }
        }
    }
}
