//! Templates (`--template`, `--data FILE`): a request's path, header values and body holding
//! `{{NAME}}` placeholders, filled afresh for each request from a data file's row or a
//! function, and rendered into the connection's own buffer: literal runs are copied, numbers
//! written digit by digit, and no string is formatted per request.
//!
//! A placeholder is `{{` a name and its arguments `}}`; `{{{{` writes a literal `{{`. The
//! names: a column of the data file ([`data`]), a value a flow's earlier step saved from its
//! answer (`--save`: a `Variable` of the template's `Scope`), or a function ([`function`]):
//! `seq`, `random LO HI`, `uuid`, `now [±N(s|m|h|d)]`, `pick a|b|c`, and, in the head,
//! `content-length` (the rendered body's length, which the request builder writes itself); in
//! the body, `wsse-username-token` ([`wsse`]: a WS-Security header).
//!
//! Which values a request takes is fixed by its number in the test (`seq`), its connection
//! (a user), `--seed` and `--data-order`: the same command sends the same rows and random
//! values, but for `uuid` (fresh in every run, so that no two runs share one) and `now`.

pub mod data;
pub mod function;
mod wsse;

use self::data::Fields;
pub use self::data::{Data, DataOrder};
use self::function::{Function, Keys};
use crate::schedule::Claim;
use crate::shard::Shard;

/// Why a template or its data cannot be used: where (a file and line, or an option) and what.
/// Both may quote the user's files (a column's name, a placeholder), so their control
/// characters are escaped where the error is written, for every message alike.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {}", host::printable(.place), host::printable(.what))]
pub struct TemplateError {
    pub place: String,
    pub what: String,
}

/// Where a template goes on the wire, which decides what its values may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    /// The request line and header fields: no control character but a tab, and no space or
    /// tab in the request line.
    Head,
    Body,
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Literal(Box<[u8]>),
    Column(usize),
    /// A flow's saved value, by its index in [`Scope::variables`]; `escape`d when it was read
    /// from XML text and goes in a body.
    Variable {
        index: usize,
        escape: bool,
    },
    Function(Function),
    UsernameToken(Box<wsse::UsernameToken>),
}

/// A parsed template: literal bytes and the placeholders between them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Template {
    segments: Vec<Segment>,
}

/// What one request's placeholders are filled from: its number in the test, its data row and
/// the run's keys.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fill {
    pub(crate) seq: u64,
    pub(crate) row: usize,
}

/// The names a template's placeholders may take besides the functions: a data file's columns
/// and a flow's saved values.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Scope<'a> {
    pub(crate) data: Option<&'a Data>,
    pub(crate) variables: &'a [Variable],
}

/// A flow's saved value, as templates name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Variable {
    pub(crate) name: String,
    /// Read from XML (`--save PATH`, unescaped as it was read): a body takes it escaped again.
    pub(crate) xml: bool,
}

impl Template {
    /// Parses `text` (named `source` in errors, which give its line) against `scope`'s names.
    pub(crate) fn parse(
        text: &[u8],
        source: &str,
        scope: Scope<'_>,
        position: Position,
    ) -> Result<Template, TemplateError> {
        let mut segments = Vec::new();
        let mut literal = Vec::new();
        let mut at = 0;
        while let Some(found) = memchr::memmem::find(&text[at..], b"{{") {
            let open = at + found;
            literal.extend_from_slice(&text[at..open]);
            if text[open + 2..].starts_with(b"{{") {
                literal.extend_from_slice(b"{{");
                at = open + 4;
                continue;
            }
            let error = |what: String| TemplateError {
                place: format!("{source}:{}", line_of(text, open)),
                what,
            };
            let inner_start = open + 2;
            // A placeholder ends on its own line: one that ran on would swallow what follows.
            let line_end = memchr::memchr(b'\n', &text[inner_start..])
                .map_or(text.len(), |end| inner_start + end);
            let close = memchr::memmem::find(&text[inner_start..line_end], b"}}")
                .map(|end| inner_start + end)
                .ok_or_else(|| {
                    error("a placeholder opened here is not closed with }} on its line".into())
                })?;
            let inner = std::str::from_utf8(&text[inner_start..close])
                .map_err(|_| error("a placeholder holds bytes that are not UTF-8".into()))?;
            let segment = placeholder(inner.trim(), scope, position).map_err(error)?;
            if !literal.is_empty() {
                segments.push(Segment::Literal(std::mem::take(&mut literal).into()));
            }
            segments.push(segment);
            at = close + 2;
        }
        literal.extend_from_slice(&text[at..]);
        if !literal.is_empty() {
            segments.push(Segment::Literal(literal.into()));
        }
        Ok(Template { segments })
    }

    /// Whether the template has a placeholder filled by data or a function of the request
    /// (a request without is sent as built once: its Content-length is fixed too).
    pub fn fills_values(&self) -> bool {
        self.segments.iter().any(|segment| {
            !matches!(
                segment,
                Segment::Literal(_) | Segment::Function(Function::ContentLength)
            )
        })
    }

    /// The template's placeholders, each with whether it is in the request line (before the
    /// template's first line break) or after it.
    fn placeholders(&self) -> impl Iterator<Item = (&Segment, bool)> + '_ {
        let mut in_request_line = true;
        self.segments
            .iter()
            .filter_map(move |segment| match segment {
                Segment::Literal(bytes) => {
                    in_request_line &= memchr::memchr(b'\n', bytes).is_none();
                    None
                }
                _ => Some((segment, in_request_line)),
            })
    }

    /// The data's columns the template names, each with whether it is in the request line.
    fn columns(&self) -> impl Iterator<Item = (usize, bool)> + '_ {
        self.placeholders()
            .filter_map(|(segment, in_line)| match segment {
                Segment::Column(column) => Some((*column, in_line)),
                _ => None,
            })
    }

    /// The flow's saved values the template names, each with whether it is in the request
    /// line.
    pub(crate) fn variables(&self) -> impl Iterator<Item = (usize, bool)> + '_ {
        self.placeholders()
            .filter_map(|(segment, in_line)| match segment {
                Segment::Variable { index, .. } => Some((*index, in_line)),
                _ => None,
            })
    }

    /// Refuses a data value that cannot go where a head template puts it: a control character
    /// (CR, LF and NUL among them) would end the line and start fields of its own, and a space
    /// in the request line would end the path.
    pub(crate) fn check_head_values(&self, data: &Data) -> Result<(), TemplateError> {
        for (column, in_request_line) in self.columns() {
            for row in 0..data.n_rows() {
                let value = data.value(row, column);
                let bad = value.iter().find(|&&byte| {
                    (byte.is_ascii_control() && byte != b'\t')
                        || (in_request_line && byte.is_ascii_whitespace())
                });
                if let Some(&byte) = bad {
                    return Err(TemplateError {
                        place: data.place_of_row(row),
                        what: format!(
                            "the value of {} holds {:?}, which the request {} cannot carry",
                            data.names()[column],
                            char::from(byte),
                            if in_request_line { "line" } else { "head" },
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Appends the template filled for one request to `out`; `body_len` is what
    /// `content-length` writes.
    pub(crate) fn render(
        &self,
        fill: Fill,
        values: &Values<'_>,
        body_len: usize,
        out: &mut Vec<u8>,
    ) {
        // The row is found and split once, at the first column that needs it.
        let mut fields: Option<Fields<'_>> = None;
        for (slot, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Literal(bytes) => out.extend_from_slice(bytes),
                Segment::Column(column) => {
                    if let Some(data) = values.data {
                        let fields = fields.get_or_insert_with(|| Fields::of(data.row(fill.row)));
                        out.extend_from_slice(fields.get(*column));
                    }
                }
                Segment::Variable { index, escape } => {
                    let value = values.variables.get(*index).map_or(&[][..], Vec::as_slice);
                    if *escape {
                        escape_xml(value, out);
                    } else {
                        out.extend_from_slice(value);
                    }
                }
                Segment::Function(function) => {
                    function.write(fill.seq, slot as u64, values.keys, body_len, out);
                }
                Segment::UsernameToken(token) => {
                    let fields = values
                        .data
                        .map(|data| *fields.get_or_insert_with(|| Fields::of(data.row(fill.row))));
                    token.write((fill.seq, slot as u64), values.keys, fields.as_ref(), out);
                }
            }
        }
    }
}

/// `text` as a body template rendered for request `seq` (its row `seq` mod the rows, as
/// `--data-order next` takes them) with `data`'s columns: what a run sends, for tests and the
/// fuzzer.
pub fn render_body(text: &[u8], data: Option<&Data>, seq: u64) -> Result<Vec<u8>, TemplateError> {
    let scope = Scope {
        data,
        variables: &[],
    };
    let template = Template::parse(text, "the body", scope, Position::Body)?;
    let values = Values {
        data,
        keys: Keys::new(1),
        variables: &[],
    };
    let row = data.map_or(0, |data| (seq % data.n_rows() as u64) as usize);
    let mut out = Vec::new();
    template.render(Fill { seq, row }, &values, 0, &mut out);
    Ok(out)
}

/// What a request's templates read: the data, the run's keys, and its connection's saved
/// values (by [`Scope::variables`]' indices).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Values<'a> {
    pub(crate) data: Option<&'a Data>,
    pub(crate) keys: function::Keys,
    pub(crate) variables: &'a [Vec<u8>],
}

/// Writes `text` as XML character data or an attribute's value: `&`, `<`, `>` and `"`
/// escaped.
pub(crate) fn escape_xml(text: &[u8], out: &mut Vec<u8>) {
    for &byte in text {
        match byte {
            b'&' => out.extend_from_slice(b"&amp;"),
            b'<' => out.extend_from_slice(b"&lt;"),
            b'>' => out.extend_from_slice(b"&gt;"),
            b'"' => out.extend_from_slice(b"&quot;"),
            _ => out.push(byte),
        }
    }
}

/// Whether `name` is a function's (`wsse-username-token` among them).
pub(crate) fn names_a_function(name: &str) -> bool {
    // Any answer but "no such function" (an error on its arguments too) names one.
    name == "wsse-username-token" || !matches!(Function::parse(name, "", Position::Head), Ok(None))
}

/// A placeholder's segment: a column of the scope's data, a saved value, else a function.
fn placeholder(inner: &str, scope: Scope<'_>, position: Position) -> Result<Segment, String> {
    let data = scope.data;
    let (name, arguments) = match inner.split_once(char::is_whitespace) {
        Some((name, arguments)) => (name, arguments.trim()),
        None => (inner, ""),
    };
    if name.is_empty() {
        return Err("an empty placeholder {{}} (write {{{{ for a literal {{)".into());
    }
    if name == "wsse-username-token" {
        if position == Position::Head {
            return Err(
                "{{wsse-username-token}} writes a SOAP header element: it goes in the body".into(),
            );
        }
        return wsse::UsernameToken::parse(arguments, data)
            .map(|token| Segment::UsernameToken(Box::new(token)));
    }
    let column = data.and_then(|data| data.column(name));
    let variable = scope.variables.iter().position(|v| v.name == name);
    if let Some(index) = variable {
        if column.is_some() || names_a_function(name) {
            return Err(format!(
                "{{{{{name}}}}} is a value a step saves and also a column or a function: rename the --save"
            ));
        }
        if !arguments.is_empty() {
            return Err(format!(
                "{{{{{name}}}}} is a saved value and takes no arguments (found {arguments:?})"
            ));
        }
        let escape = position == Position::Body && scope.variables[index].xml;
        return Ok(Segment::Variable { index, escape });
    }
    match (Function::parse(name, arguments, position)?, column) {
        (Some(_), Some(_)) => Err(format!(
            "{{{{{name}}}}} names both a function and a column of {}: rename the column",
            data.map_or("", Data::file)
        )),
        (Some(function), None) => Ok(Segment::Function(function)),
        (None, Some(column)) if arguments.is_empty() => Ok(Segment::Column(column)),
        (None, Some(_)) => Err(format!(
            "{{{{{name}}}}} is a column and takes no arguments (found {arguments:?})"
        )),
        (None, None) => Err(match data {
            Some(data) => format!(
                "{{{{{name}}}}} is neither a column of {} ({}) nor a function ({})",
                data.file(),
                data.names().join(", "),
                function::NAMES
            ),
            None => format!(
                "{{{{{name}}}}} is not a function ({}), and no --data file gives columns",
                function::NAMES
            ),
        }),
    }
}

/// The line (from 1) of byte `offset` of `text`.
fn line_of(text: &[u8], offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text[..offset]).count() + 1
}

/// A request's head and body templates.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RequestTemplate {
    pub(crate) head: Template,
    pub(crate) body: Template,
}

impl RequestTemplate {
    /// Whether the request differs from one to the next (else it is rendered once).
    pub(crate) fn fills_values(&self) -> bool {
        self.head.fills_values() || self.body.fills_values()
    }

    /// The request of templates that fill no values ([`RequestTemplate::fills_values`]).
    pub(crate) fn render_fixed(&self) -> Vec<u8> {
        let values = Values {
            data: None,
            keys: Keys { seed: 0, run: 0 },
            variables: &[],
        };
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        self.render(Fill { seq: 0, row: 0 }, &values, &mut scratch, &mut out);
        out
    }

    /// Renders the request into `out` (cleared first), the body through `scratch` so that the
    /// head can give its length.
    pub(crate) fn render(
        &self,
        fill: Fill,
        values: &Values<'_>,
        scratch: &mut Vec<u8>,
        out: &mut Vec<u8>,
    ) {
        scratch.clear();
        self.body.render(fill, values, 0, scratch);
        out.clear();
        self.head.render(fill, values, scratch.len(), out);
        out.extend_from_slice(scratch);
    }
}

/// What a run's templates are filled from, and which row and number each request takes.
#[derive(Debug)]
pub(crate) struct Filler {
    pub(crate) data: Option<Data>,
    order: DataOrder,
    keys: Keys,
    shard: Shard,
    n_threads: usize,
}

impl Filler {
    pub(crate) fn new(
        data: Option<Data>,
        order: DataOrder,
        seed: u64,
        shard: Shard,
        n_threads: usize,
    ) -> Filler {
        Filler {
            data,
            order,
            keys: Keys::new(seed),
            shard,
            n_threads: n_threads.max(1),
        }
    }

    /// What a request's templates read, with its connection's saved values.
    pub(crate) fn values<'a>(&'a self, variables: &'a [Vec<u8>]) -> Values<'a> {
        Values {
            data: self.data.as_ref(),
            keys: self.keys,
            variables,
        }
    }

    /// The number and row of `claim`, sent by thread `thread` on its connection `slot`. The
    /// shard's requests are every N-th of the test's, from the I-th (its shares differ by at
    /// most one, the first shards taking the extra), so `seq` numbers the whole test's
    /// requests 0, 1, 2, ... once each; a connection's number is likewise the test's.
    pub(crate) fn fill(&self, claim: Claim, thread: usize, slot: usize) -> Fill {
        let n_shards = u64::from(self.shard.count.max(1));
        let shard = u64::from(self.shard.index);
        let test_wide = claim.ordinal.wrapping_mul(n_shards).wrapping_add(shard);
        let seq = match claim.counted {
            true => test_wide,
            false => function::WARM_UP_SEQ.wrapping_add(test_wide),
        };
        let row = match &self.data {
            None => 0,
            Some(data) => {
                let rows = data.n_rows() as u64;
                let row = match self.order {
                    DataOrder::Next => seq % rows,
                    DataOrder::Random => {
                        function::below(function::draw(self.keys.seed, seq, u64::MAX), rows)
                    }
                    DataOrder::Connection => {
                        let user = (slot * self.n_threads + thread) as u64;
                        user.wrapping_mul(n_shards).wrapping_add(shard) % rows
                    }
                };
                row as usize
            }
        };
        Fill { seq, row }
    }
}

#[cfg(test)]
mod tests;
