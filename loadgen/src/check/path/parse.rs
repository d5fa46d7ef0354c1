//! The subset's grammar: an expression into a [`PathCheck`].

use memchr::memmem;

use super::{Axis, Literal, MAX_STEPS, Op, PathCheck, PathError, Step, Target, Test, number};

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) at: usize,
}

impl Parser<'_> {
    fn error(&self, what: impl Into<String>) -> PathError {
        PathError {
            text: self.text.to_owned(),
            at: self.text[..self.at].chars().count() + 1,
            what: what.into(),
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn space(&mut self) {
        let trimmed = self.rest().trim_start();
        self.at = self.text.len() - trimmed.len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.space();
        if self.rest().starts_with(token) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    pub(super) fn check(mut self) -> Result<PathCheck, PathError> {
        let mut negated = false;
        let mut closing = 0;
        while self.eat("not(") {
            negated = !negated;
            closing += 1;
        }
        let counted = self.eat("count(");
        let (steps, target) = self.path()?;
        if counted && !self.eat(")") {
            return Err(self.error("expected ) to close count("));
        }
        let op = self.op();
        let test = match (counted, op) {
            (false, None) => Test::Present,
            (true, None) => Test::Count(None),
            (false, Some(op)) => Test::Compare(op, self.literal()?),
            (true, Some(op)) => match self.literal()? {
                Literal::Number(n) => Test::Count(Some((op, n))),
                Literal::Text(text) => Test::Count(Some((op, number(&text)))),
            },
        };
        for _ in 0..closing {
            if !self.eat(")") {
                return Err(self.error("expected ) to close not("));
            }
        }
        self.space();
        if !self.rest().is_empty() {
            return Err(self.error("unexpected text (the subset: PATH, count(PATH), compared with = != < <= > >= to 'text' or a number, or not(...))"));
        }
        let mut counters = 0;
        let steps: Vec<Step> = steps
            .into_iter()
            .map(|mut step| {
                if step.position.is_some() {
                    step.counter = counters;
                    counters += 1;
                }
                step
            })
            .collect();
        let longest = steps
            .iter()
            .filter_map(|step| step.name.as_deref())
            .chain(match &target {
                Target::Attribute(name) => Some(&**name),
                _ => None,
            })
            .max_by_key(|name| name.len());
        Ok(PathCheck {
            needle: longest.map(|name| memmem::Finder::new(name).into_owned()),
            steps,
            target,
            test,
            negated,
            counters,
        })
    }

    fn path(&mut self) -> Result<(Vec<Step>, Target), PathError> {
        let mut steps = Vec::new();
        self.space();
        if !self.rest().starts_with('/') {
            return Err(self.error("a path starts with / or //"));
        }
        loop {
            let axis = if self.eat("//") {
                Axis::Descendant
            } else if self.eat("/") {
                Axis::Child
            } else {
                break;
            };
            self.space();
            let step_at = self.at;
            if self.eat("text()") {
                self.at = step_at;
                if steps.is_empty() {
                    return Err(self.error("text() needs an element step before it"));
                }
                if axis == Axis::Descendant {
                    return Err(self.error("only /text() is in the subset, not //text()"));
                }
                self.at += "text()".len();
                return Ok((steps, Target::Text));
            }
            if self.eat("@") {
                let name = self
                    .name()?
                    .ok_or_else(|| self.error("expected a name after @"))?;
                if axis == Axis::Descendant || steps.is_empty() {
                    steps.push(Step {
                        axis,
                        name: None,
                        position: None,
                        counter: 0,
                    });
                }
                return Ok((steps, Target::Attribute(name)));
            }
            let name = if self.eat("*") {
                None
            } else {
                Some(
                    self.name()?
                        .ok_or_else(|| self.error("expected a name, *, text() or @name"))?,
                )
            };
            let position = if self.eat("[") {
                let digits: String = self
                    .rest()
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                let position: u32 =
                    digits.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                        self.error("a position is a whole number from 1 ([1], [2])")
                    })?;
                self.at += digits.len();
                if !self.eat("]") {
                    return Err(self.error("expected ] after a position (the subset has [n] only)"));
                }
                Some(position)
            } else {
                None
            };
            steps.push(Step {
                axis,
                name,
                position,
                counter: 0,
            });
            if steps.len() > MAX_STEPS {
                return Err(self.error(format!("more than {MAX_STEPS} steps")));
            }
        }
        if steps.is_empty() {
            return Err(self.error("expected a step after /"));
        }
        Ok((steps, Target::Element))
    }

    /// A name, its prefix dropped: XML's name characters, loosely (any but the subset's
    /// punctuation and white space).
    fn name(&mut self) -> Result<Option<Box<[u8]>>, PathError> {
        self.space();
        let len = self
            .rest()
            .find(|c: char| c.is_whitespace() || "/[]()@=!<>'\"*,|".contains(c))
            .unwrap_or(self.rest().len());
        if len == 0 {
            return Ok(None);
        }
        let qname = self.rest()[..len].to_owned();
        let local = qname.rsplit_once(':').map_or(&*qname, |(_, local)| local);
        if local.is_empty()
            || local.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.')
        {
            return Err(self.error(format!("{qname:?} is not an element or attribute name")));
        }
        let local = local.as_bytes().into();
        self.at += len;
        Ok(Some(local))
    }

    fn op(&mut self) -> Option<Op> {
        for (token, op) in [
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("=", Op::Eq),
            ("<", Op::Lt),
            (">", Op::Gt),
        ] {
            if self.eat(token) {
                return Some(op);
            }
        }
        None
    }

    fn literal(&mut self) -> Result<Literal, PathError> {
        self.space();
        let rest = self.rest();
        if let Some(quote) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') {
            let close = rest[1..]
                .find(quote)
                .ok_or_else(|| self.error("a string not closed by its quote"))?;
            let text = rest.as_bytes()[1..1 + close].into();
            self.at += close + 2;
            return Ok(Literal::Text(text));
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .unwrap_or(rest.len());
        let n = number(&rest.as_bytes()[..len]);
        if len == 0 || n.is_nan() {
            return Err(self.error("expected a quoted string or a number to compare with"));
        }
        self.at += len;
        Ok(Literal::Number(n))
    }
}
