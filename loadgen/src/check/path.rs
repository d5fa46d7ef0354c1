//! `--check-xpath`: a documented subset of XPath 1.0, parsed once and evaluated over each
//! answer's bytes in one pass, without building a tree.
//!
//! The subset: a path of steps from the document, each after `/` (a child) or `//` (a
//! descendant), each a name or `*` with an optional position `[n]`; names are matched by
//! their local part (a prefix in the path or the answer is passed over, so `soap:Body` and
//! `Body` are one step). The path may end in `/text()` (the element's own text runs) or
//! `/@name` (an attribute; `//@name` on any element). The whole is the path alone (true when
//! it selects something), `count(PATH)`, either compared with `=`, `!=`, `<`, `<=`, `>` or
//! `>=` to a quoted string or a number, or `not(...)` of any of these. Comparisons are XPath
//! 1.0's: true when any selected node's value compares so (a node's value is its text, its
//! descendants' included); against a number, or with `<` and `>`, values are numbers.
//!
//! The evaluator walks the answer's tags with `memchr`, keeping for each open element the
//! steps matched on the way to it (two bit sets), and stops as soon as the answer is decided:
//! a presence or comparison check ends at its first node that holds. An answer that is not
//! well-formed where the walk reads it (an unclosed tag, an end tag that does not match), or
//! nested past [`MAX_DEPTH`] elements, fails the check.

use memchr::{memchr, memmem};

use super::xml::{find, skip_element, start_tag};

use super::xml::{attribute, local_name, skip_markup, unescape_into};

mod parse;

/// At most this many steps in a path (the bit sets are `u32`).
const MAX_STEPS: usize = 24;
/// An answer nested deeper than this, or with more selected elements than
/// [`MAX_OPEN_VALUES`] open inside one another, fails the check: the walk's memory stays a few
/// kilobytes, and its time at most that many passes over the answer, whatever a server sends.
const MAX_DEPTH: usize = 1024;
const MAX_OPEN_VALUES: usize = 8;
/// A value's buffer larger than this is dropped rather than kept for the next answer.
const MAX_KEPT_VALUE: usize = 64 << 10;

/// Why a `--check-xpath` expression was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} at character {at} of {text:?}")]
pub struct PathError {
    pub text: String,
    /// 1-based.
    pub at: usize,
    pub what: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Axis {
    Child,
    Descendant,
}

#[derive(Debug, Clone)]
struct Step {
    axis: Axis,
    /// The local name; `None` for `*`.
    name: Option<Box<[u8]>>,
    /// `[n]`: the element's place among its parent's children that pass the name test.
    position: Option<u32>,
    /// Index of its position counter in a frame, when it has a position.
    counter: usize,
}

impl Step {
    fn passes(&self, local: &[u8]) -> bool {
        self.name.as_deref().is_none_or(|name| name == local)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// The element: its value is all its text.
    Element,
    /// `text()`: the element's own text runs, each a node.
    Text,
    /// `@name`.
    Attribute(Box<[u8]>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, PartialEq)]
enum Literal {
    Text(Box<[u8]>),
    Number(f64),
}

#[derive(Debug, Clone)]
enum Test {
    /// The path alone: something selected.
    Present,
    Compare(Op, Literal),
    /// `count(PATH)`, alone (non-zero) or compared.
    Count(Option<(Op, f64)>),
}

/// A parsed `--check-xpath` expression.
#[derive(Debug, Clone)]
pub struct PathCheck {
    steps: Vec<Step>,
    target: Target,
    test: Test,
    negated: bool,
    /// Position counters a frame needs.
    counters: usize,
    /// The longest name of the path: an answer without it selects nothing, found by one
    /// `memmem` before any walk (most answers of a failing fault check stop here).
    needle: Option<memmem::Finder<'static>>,
}

/// The evaluator's buffers, kept from one answer to the next by the thread that judges them.
#[derive(Debug, Default)]
pub struct Scratch {
    frames: Vec<Frame>,
    counters: Vec<u32>,
    /// Values of selected nodes being read.
    open: Vec<Value>,
    spare: Vec<Vec<u8>>,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    name: (u32, u32),
    /// Steps this element is the context of (steps `0..k` matched on the way here).
    context: u32,
    /// `//` steps still looked for among its descendants.
    descendant: u32,
    /// Whether it is a selected element whose value (or text runs) is being read: it has an
    /// entry in [`Scratch::open`].
    reading: bool,
}

impl Scratch {
    /// Ready for a new walk. A long value's buffer is not kept for the next answer: a
    /// connection's scratch stays small between answers, whatever one of them held.
    fn reset(&mut self) {
        self.frames.clear();
        self.counters.clear();
        self.spare
            .extend(self.open.drain(..).map(|(_, buffer)| buffer));
        self.spare
            .retain(|buffer| buffer.capacity() <= MAX_KEPT_VALUE);
    }
}

impl Frame {
    /// The document node: the context of step 0.
    const DOCUMENT: Frame = Frame {
        name: (0, 0),
        context: 1,
        descendant: 0,
        reading: false,
    };
}

/// A selected node's value being read: the depth of its element, and its text so far.
type Value = (usize, Vec<u8>);

/// A start tag's attributes, and whether it closes itself (`<a/>`).
struct Tag<'a> {
    attributes: &'a [u8],
    empty: bool,
}

/// What [`PathCheck::select`] made of a selected element.
enum Selected {
    /// A node that decides the walk.
    Found,
    /// A node, counted.
    Counted,
    /// Its value is read to its end tag.
    Reading,
    /// No node (an absent attribute, an empty element's text).
    Nothing,
    /// Past [`MAX_OPEN_VALUES`].
    TooMany,
}

/// What one walk found, before the test turns it into a verdict.
enum Walk {
    /// A node held (existential tests), or the first node's value (for faults).
    Found,
    Done {
        count: u64,
    },
    /// Not well-formed where the walk read it, or past [`MAX_DEPTH`] or [`MAX_OPEN_VALUES`].
    Malformed,
}

impl PathCheck {
    pub fn parse(text: &str) -> Result<PathCheck, PathError> {
        parse::Parser { text, at: 0 }.check()
    }

    /// Whether `body` passes the check.
    pub fn holds(&self, body: &[u8], scratch: &mut Scratch) -> bool {
        // An answer without the path's longest name selects nothing: when that fails the
        // check, one `memmem` decides it. When it would pass (`not(...)`, `count(...) = 0`),
        // the walk still reads the answer, so that one that is not well-formed fails.
        if self
            .needle
            .as_ref()
            .is_some_and(|needle| needle.find(body).is_none())
        {
            let empty = match self.test {
                Test::Present | Test::Compare(..) => false,
                Test::Count(compare) => count_holds(0, compare),
            };
            if empty == self.negated {
                return false;
            }
        }
        let result = match self.walk(body, scratch, self.needs_value(), &mut |value| {
            self.node_holds(value)
        }) {
            Walk::Found => true,
            Walk::Malformed => return false,
            Walk::Done { count } => match self.test {
                Test::Count(compare) => count_holds(count, compare),
                _ => false,
            },
        };
        result != self.negated
    }

    /// Whether the expression is a path alone, which selects values (not a test of them): what
    /// `--save` takes.
    pub fn selects(&self) -> bool {
        matches!(self.test, Test::Present) && !self.negated
    }

    /// The first selected node's value, when there is one: how a fault's code is read.
    pub fn first_value(&self, body: &[u8], scratch: &mut Scratch) -> Option<Vec<u8>> {
        if self.needle.as_ref().is_some_and(|n| n.find(body).is_none()) {
            return None;
        }
        let mut first = None;
        match self.walk(body, scratch, true, &mut |value| {
            first = Some(value.to_vec());
            true
        }) {
            Walk::Found => first,
            _ => None,
        }
    }

    fn needs_value(&self) -> bool {
        matches!(self.test, Test::Compare(..))
    }

    fn node_holds(&self, value: &[u8]) -> bool {
        match &self.test {
            Test::Present => true,
            Test::Compare(op, literal) => compare(value, *op, literal),
            Test::Count(_) => false,
        }
    }

    /// Walks `body`'s tags; `on_node` sees each selected node's value (empty for an element
    /// unless `needs_value`) and ends the walk by returning true.
    fn walk(
        &self,
        body: &[u8],
        scratch: &mut Scratch,
        needs_value: bool,
        on_node: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Walk {
        scratch.reset();
        let Scratch {
            frames,
            counters,
            open,
            spare,
        } = scratch;
        let mut count = 0u64;
        let mut parent = Frame::DOCUMENT;
        counters.resize(self.counters, 0);
        let last = self.steps.len();
        let mut at = 0;
        while at < body.len() {
            let lt = find(&body[at..], b'<').map_or(body.len(), |i| at + i);
            if lt > at && !open.is_empty() {
                text(&body[at..lt], open, frames.len(), &self.target);
            }
            if lt == body.len() {
                break;
            }
            let rest = &body[lt + 1..];
            match rest.first() {
                None => return Walk::Malformed,
                Some(b'/') => {
                    let Some(gt) = find(rest, b'>') else {
                        return Walk::Malformed;
                    };
                    let name = rest[1..gt].trim_ascii_end();
                    match frames.pop() {
                        Some(frame)
                            if &body[frame.name.0 as usize..frame.name.1 as usize] == name =>
                        {
                            counters.truncate(counters.len() - self.counters);
                            // An element's value, or its last text run, ends at its end tag.
                            if frame.reading
                                && let Some(found) =
                                    self.close_value(open, spare, on_node, &mut count)
                            {
                                return found;
                            }
                        }
                        _ => return Walk::Malformed,
                    }
                    parent = frames.last().copied().unwrap_or(Frame::DOCUMENT);
                    at = lt + 2 + gt;
                }
                Some(b'!') | Some(b'?') => {
                    let depth = frames.len();
                    match self.markup(body, lt, (open, depth), on_node, &mut count) {
                        Ok(end) => at = end,
                        Err(walk) => return walk,
                    }
                }
                _ => {
                    let Some((name_len, gt)) = start_tag(rest) else {
                        return Walk::Malformed;
                    };
                    let empty = rest[gt - 1] == b'/';
                    let qname = &rest[..name_len];
                    let local = local_name(qname);
                    if self.target == Target::Text
                        && let Some(found) = self.end_runs(open, frames.len(), on_node, &mut count)
                    {
                        return found;
                    }
                    let base = counters.len() - self.counters;
                    let (context, descendant) =
                        self.steps_matched(parent, local, &mut counters[base..]);
                    let mut reading = false;
                    if context & (1 << last) != 0 {
                        let (attributes, depth) = (&rest[name_len..gt], frames.len());
                        let tag = Tag { attributes, empty };
                        match self.select(tag, needs_value, (open, spare, depth), on_node) {
                            Selected::Found => return Walk::Found,
                            Selected::Counted => count += 1,
                            Selected::Reading => reading = true,
                            Selected::Nothing => {}
                            Selected::TooMany => return Walk::Malformed,
                        }
                    }
                    let frame = Frame {
                        name: ((lt + 1) as u32, (lt + 1 + name_len) as u32),
                        context,
                        descendant,
                        reading,
                    };
                    at = lt + 2 + gt;
                    if empty {
                        continue;
                    }
                    if frames.len() == MAX_DEPTH {
                        return Walk::Malformed;
                    }
                    if self.skippable(frame, open.is_empty()) {
                        match skip_element(body, at, qname, MAX_DEPTH - frames.len() - 1) {
                            Some(end) => at = end,
                            None => return Walk::Malformed,
                        }
                        continue;
                    }
                    frames.push(frame);
                    counters.resize(counters.len() + self.counters, 0);
                    parent = frame;
                }
            }
        }
        if !frames.is_empty() {
            return Walk::Malformed;
        }
        Walk::Done { count }
    }

    /// The steps an element named `local` matches, from its parent's contexts: the contexts
    /// it gives its children, and the `//` steps looked for below it. `counters` are the
    /// parent's position counters.
    fn steps_matched(&self, parent: Frame, local: &[u8], counters: &mut [u32]) -> (u32, u32) {
        let mut context = 0u32;
        let mut descendant = parent.descendant;
        let mut bits = parent.context | parent.descendant;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let Some(step) = self.steps.get(k) else {
                continue;
            };
            if parent.context & (1 << k) != 0 && step.axis == Axis::Descendant {
                descendant |= 1 << k;
            }
            if !step.passes(local) {
                continue;
            }
            let place = match step.position {
                Some(position) => {
                    let counter = &mut counters[step.counter];
                    *counter += 1;
                    *counter == position
                }
                None => true,
            };
            if place {
                context |= 1 << (k + 1);
            }
        }
        (context, descendant)
    }

    /// A comment, CDATA section, instruction or declaration at `lt`: a CDATA section's text
    /// goes to the values being read; anything else ends a `text()` run. Returns the index
    /// after it, or how the walk ends.
    fn markup(
        &self,
        body: &[u8],
        lt: usize,
        (open, depth): (&mut [Value], usize),
        on_node: &mut dyn FnMut(&[u8]) -> bool,
        count: &mut u64,
    ) -> Result<usize, Walk> {
        let end = skip_markup(body, lt).ok_or(Walk::Malformed)?;
        if body[lt..].starts_with(b"<![CDATA[") {
            let content = &body[lt + 9..end - 3];
            for (element_depth, buffer) in open.iter_mut() {
                if self.target != Target::Text || *element_depth + 1 == depth {
                    buffer.extend_from_slice(content);
                }
            }
        } else if self.target == Target::Text
            && let Some(found) = self.end_runs(open, depth, on_node, count)
        {
            // A comment or instruction between two runs makes them two nodes.
            return Err(found);
        }
        Ok(end)
    }

    /// What a selected element is: a node now (an attribute, an element whose value is not
    /// needed), or a value to read to its end tag.
    fn select(
        &self,
        tag: Tag<'_>,
        needs_value: bool,
        (open, spare, depth): (&mut Vec<Value>, &mut Vec<Vec<u8>>, usize),
        on_node: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Selected {
        let node = |value: &[u8], on_node: &mut dyn FnMut(&[u8]) -> bool| match on_node(value) {
            true => Selected::Found,
            false => Selected::Counted,
        };
        match &self.target {
            Target::Attribute(name) => match attribute(tag.attributes, name) {
                Some(value) => node(&value, on_node),
                None => Selected::Nothing,
            },
            // The element is the node, and its value is empty or not needed.
            Target::Element if !needs_value || tag.empty => node(&[], on_node),
            // An empty element has no text run.
            Target::Text if tag.empty => Selected::Nothing,
            Target::Element | Target::Text if open.len() == MAX_OPEN_VALUES => Selected::TooMany,
            Target::Element | Target::Text => {
                let mut buffer = spare.pop().unwrap_or_default();
                buffer.clear();
                open.push((depth, buffer));
                Selected::Reading
            }
        }
    }

    /// Whether nothing below an element can matter, so that only its nesting need be
    /// followed: no step goes on from it, and no value being read takes its text.
    fn skippable(&self, frame: Frame, no_values_open: bool) -> bool {
        let last = self.steps.len();
        frame.context & !(1 << last) == 0
            && frame.descendant == 0
            && !frame.reading
            && (no_values_open || self.target == Target::Text)
    }

    /// A selected element closed: its value, or its last text run, is a node.
    fn close_value(
        &self,
        open: &mut Vec<Value>,
        spare: &mut Vec<Vec<u8>>,
        on_node: &mut dyn FnMut(&[u8]) -> bool,
        count: &mut u64,
    ) -> Option<Walk> {
        let (_, buffer) = open.pop()?;
        let is_node = self.target == Target::Element || !buffer.is_empty();
        let found = is_node && {
            *count += 1;
            on_node(&buffer)
        };
        spare.push(buffer);
        found.then_some(Walk::Found)
    }

    /// `text()`: a tag or comment inside a selected element ends its current text run.
    fn end_runs(
        &self,
        open: &mut [Value],
        depth: usize,
        on_node: &mut dyn FnMut(&[u8]) -> bool,
        count: &mut u64,
    ) -> Option<Walk> {
        let (element_depth, buffer) = open.last_mut()?;
        if *element_depth + 1 != depth || buffer.is_empty() {
            return None;
        }
        *count += 1;
        let found = on_node(buffer);
        buffer.clear();
        found.then_some(Walk::Found)
    }
}

/// Text between tags, to every value being read that takes it: an element's value takes all
/// of its descendants' text, `text()` only the element's own.
fn text(raw: &[u8], open: &mut [Value], depth: usize, target: &Target) {
    for (element_depth, buffer) in open.iter_mut() {
        if *target != Target::Text || *element_depth + 1 == depth {
            unescape_into(raw, buffer);
        }
    }
}

fn count_holds(count: u64, compare: Option<(Op, f64)>) -> bool {
    match compare {
        None => count > 0,
        Some((op, number)) => numbers(count as f64, op, number),
    }
}

fn compare(value: &[u8], op: Op, literal: &Literal) -> bool {
    match (op, literal) {
        (Op::Eq, Literal::Text(text)) => value == &**text,
        (Op::Ne, Literal::Text(text)) => value != &**text,
        (_, Literal::Text(text)) => numbers(number(value), op, number(text)),
        (_, Literal::Number(n)) => numbers(number(value), op, *n),
    }
}

fn numbers(a: f64, op: Op, b: f64) -> bool {
    match op {
        Op::Eq => a == b,
        Op::Ne => a != b,
        Op::Lt => a < b,
        Op::Le => a <= b,
        Op::Gt => a > b,
        Op::Ge => a >= b,
    }
}

/// XPath 1.0's `number()` of a string: optional whitespace, an optional minus, digits with an
/// optional fraction; anything else is NaN (no exponents, no `+`, no `Infinity`).
pub(super) fn number(text: &[u8]) -> f64 {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let start = text.iter().position(|b| !is_space(b)).unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |i| i + 1);
    let text = &text[start..end];
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    let (whole, fraction) = match memchr(b'.', digits) {
        Some(dot) => (&digits[..dot], Some(&digits[dot + 1..])),
        None => (digits, None),
    };
    let valid = whole.iter().all(u8::is_ascii_digit)
        && fraction.is_none_or(|f| f.iter().all(u8::is_ascii_digit))
        && (!whole.is_empty() || fraction.is_some_and(|f| !f.is_empty()));
    if !valid {
        return f64::NAN;
    }
    // Only digits, a dot and a minus remain: Rust's parser reads them exactly.
    std::str::from_utf8(text)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(f64::NAN)
}
