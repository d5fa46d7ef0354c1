//! The text of a simple type's value: a built-in type's (numbers count up, so that the items
//! of an array differ), an enumeration's first, a pattern's, and a number moved within its
//! bounds and digits.

use super::{MAX_DEPTH, Sampler, unsupported};
use crate::WsdlError;
use crate::schema::{QName, Simple, Type, TypeRef, XSD};

impl Sampler<'_> {
    /// The text of a value of the named type (built in or simple).
    pub(super) fn value_of(&mut self, ty: &QName) -> Result<String, WsdlError> {
        if ty.ns == XSD {
            return self.builtin(&ty.local);
        }
        match self.schemas.types.get(ty).cloned() {
            Some(Type::Simple(simple)) => {
                self.deeper(|| format!("simple type {ty}"))?;
                let value = self.simple(&simple);
                self.depth -= 1;
                value
            }
            Some(Type::Complex(_)) => Err(unsupported(format!("complex type {ty} as text"))),
            Some(Type::Unsupported(errors)) => {
                self.reached(&errors);
                Ok(String::new())
            }
            None => Err(self.schemas.missing("type", ty)),
        }
    }

    pub(super) fn simple(&mut self, simple: &Simple) -> Result<String, WsdlError> {
        match simple {
            Simple::Restriction {
                base,
                enumeration,
                min,
                max,
                digits,
                min_length,
                max_length,
                pattern,
            } => {
                if let Some(first) = enumeration.first() {
                    return Ok(first.clone());
                }
                if let Some(pattern) = pattern {
                    let base_value = self.value_of(base).ok();
                    return Ok(pattern.value(base_value));
                }
                let mut value = self.value_of(base)?;
                if min.is_some() || max.is_some() || digits.0.is_some() || digits.1.is_some() {
                    let integral = self.integral(base);
                    match bounded(&value, min.as_ref(), max.as_ref(), *digits, integral) {
                        Some(bounded) => value = bounded,
                        // Not numbers (dates, say): an inclusive bound is itself a value.
                        None => {
                            if let Some(bound) = min.as_ref().or(max.as_ref())
                                && bound.inclusive
                            {
                                value = bound.value.clone();
                            }
                        }
                    }
                }
                if min_length.is_some() || max_length.is_some() {
                    value = self.within_length(base, value, *min_length, *max_length)?;
                }
                Ok(value)
            }
            Simple::List(member) | Simple::Union(member) => match member {
                TypeRef::Named(name) => self.value_of(name),
                TypeRef::Anonymous(ty) => match ty.as_ref() {
                    Type::Simple(simple) => {
                        self.deeper(|| "an anonymous simple type".to_owned())?;
                        let value = self.simple(simple);
                        self.depth -= 1;
                        value
                    }
                    Type::Complex(_) => Ok(String::new()),
                    Type::Unsupported(errors) => {
                        self.reached(errors);
                        Ok(String::new())
                    }
                },
                TypeRef::Element(_) => Ok(String::new()),
            },
        }
    }

    /// A value of a built-in type: numbers count up, so the items of an array differ.
    pub(super) fn builtin(&mut self, local: &str) -> Result<String, WsdlError> {
        self.counter += 1;
        let n = self.counter;
        Ok(match local {
            "string" | "normalizedString" | "token" | "anyType" | "anySimpleType" => {
                format!("sample {n}")
            }
            "Name" | "NCName" | "ID" | "IDREF" | "ENTITY" | "NMTOKEN" => format!("sample{n}"),
            // An unprefixed QName: the default namespace in scope, which every element has.
            "QName" => format!("sample{n}"),
            "IDREFS" | "ENTITIES" | "NMTOKENS" => format!("sample{n}"),
            "language" => "en".to_owned(),
            "anyURI" => format!("http://example.com/{n}"),
            "int" | "integer" | "long" | "short" | "nonNegativeInteger" | "positiveInteger"
            | "unsignedInt" | "unsignedLong" | "unsignedShort" => n.to_string(),
            "byte" | "unsignedByte" => (n % 100 + 1).to_string(),
            "negativeInteger" => format!("-{n}"),
            "nonPositiveInteger" => "0".to_owned(),
            "decimal" => format!("{n}.5"),
            "float" | "double" => format!("{n}.5"),
            "boolean" => "true".to_owned(),
            "dateTime" => "2026-01-01T12:00:00Z".to_owned(),
            "date" => "2026-01-01".to_owned(),
            "time" => "12:00:00".to_owned(),
            "duration" => "PT1S".to_owned(),
            "gYear" => "2026".to_owned(),
            "gYearMonth" => "2026-01".to_owned(),
            "gMonth" => "--01".to_owned(),
            "gMonthDay" => "--01-01".to_owned(),
            "gDay" => "---01".to_owned(),
            "base64Binary" => "d3N0ZXN0".to_owned(),
            "hexBinary" => "0A0B".to_owned(),
            other => {
                return Err(unsupported(format!("the built-in type xsd:{other}")));
            }
        })
    }
    /// restriction of one.
    fn integral(&self, ty: &QName) -> bool {
        matches!(
            self.primitive(ty),
            Primitive::Builtin(
                "integer"
                    | "int"
                    | "long"
                    | "short"
                    | "byte"
                    | "nonNegativeInteger"
                    | "positiveInteger"
                    | "nonPositiveInteger"
                    | "negativeInteger"
                    | "unsignedLong"
                    | "unsignedInt"
                    | "unsignedShort"
                    | "unsignedByte"
            )
        )
    }

    /// What `ty` restricts in the end: a built-in type (by its local name), or a list.
    fn primitive<'b>(&'b self, ty: &'b QName) -> Primitive<'b> {
        let mut ty = ty;
        for _ in 0..MAX_DEPTH {
            if ty.ns == XSD {
                return match ty.local.as_str() {
                    "NMTOKENS" | "IDREFS" | "ENTITIES" => Primitive::List,
                    local => Primitive::Builtin(local),
                };
            }
            match self.schemas.types.get(ty) {
                Some(Type::Simple(Simple::Restriction { base, .. })) => ty = base,
                Some(Type::Simple(Simple::List(_))) => return Primitive::List,
                _ => return Primitive::Other,
            }
        }
        Primitive::Other
    }

    /// `value`, of a restriction of `base`, lengthened or shortened to within the length
    /// facets, as XSD counts a length: octets for the binary types, items for a list,
    /// characters for the rest.
    fn within_length(
        &self,
        base: &QName,
        value: String,
        min: Option<usize>,
        max: Option<usize>,
    ) -> Result<String, WsdlError> {
        // Checked before it is made: a length may say 4 billion (twice that in hex digits).
        if min.is_some_and(|min| min.saturating_mul(2) > self.budget) {
            return Err(self.too_large());
        }
        let fit = |have: usize| have.max(min.unwrap_or(0)).min(max.unwrap_or(usize::MAX));
        Ok(match self.primitive(base) {
            Primitive::Builtin("hexBinary") => "0A".repeat(fit(value.len() / 2)),
            Primitive::Builtin("base64Binary") => base64_of_x(fit(6)),
            Primitive::List => {
                let item = value.split_whitespace().next().unwrap_or("x").to_owned();
                vec![item; fit(1)].join(" ")
            }
            _ => {
                let mut value = value;
                let have = value.chars().count();
                value.extend(std::iter::repeat_n('x', fit(have).saturating_sub(have)));
                value.chars().take(fit(have)).collect()
            }
        })
    }
}

/// `value` (a number) moved within its bounds, and to the digits allowed: the least value past
/// the lower bound (the next whole number, for an integer type), else the greatest below the
/// upper one, else the midpoint of an exclusive pair. `None` when the value or the bounds are
/// not numbers (dates, say), and the value is kept.
fn bounded(
    value: &str,
    min: Option<&crate::schema::Bound>,
    max: Option<&crate::schema::Bound>,
    (total_digits, fraction_digits): (Option<u32>, Option<u32>),
    integral: bool,
) -> Option<String> {
    let number = |bound: Option<&crate::schema::Bound>| match bound {
        Some(bound) => bound
            .value
            .parse::<f64>()
            .ok()
            .map(|n| Some((n, bound.inclusive))),
        None => Some(None),
    };
    let (low, high) = (number(min)?, number(max)?);
    let mut n = value.parse::<f64>().ok()?;
    let step = if integral { 1.0 } else { 0.5 };
    let above_low =
        |n: f64| low.is_none_or(|(l, inclusive)| if inclusive { n >= l } else { n > l });
    let below_high =
        |n: f64| high.is_none_or(|(h, inclusive)| if inclusive { n <= h } else { n < h });
    if !above_low(n) {
        n = match low {
            Some((l, true)) => l,
            Some((l, false)) if integral => l.floor() + 1.0,
            Some((l, false)) => l + step,
            None => n,
        };
    }
    if !below_high(n) {
        n = match high {
            Some((h, true)) => h,
            Some((h, false)) if integral => h.ceil() - 1.0,
            Some((h, false)) => h - step,
            None => n,
        };
    }
    if !above_low(n) || !below_high(n) {
        // A narrow exclusive pair: between them.
        let (l, h) = (low?.0, high?.0);
        n = if integral {
            (l + 1.0).floor()
        } else {
            (l + h) / 2.0
        };
    }
    if integral || fraction_digits == Some(0) {
        n = n.trunc();
    }
    let mut text = if n.fract() == 0.0 {
        format!("{}", n as i128)
    } else {
        format!("{n}")
    };
    if let Some(fraction) = fraction_digits
        && let Some(point) = text.find('.')
    {
        let keep = point + 1 + fraction as usize;
        text.truncate(keep.min(text.len()));
    }
    if let Some(total) = total_digits
        && text.chars().filter(char::is_ascii_digit).count() > total as usize
    {
        text = "1".to_owned();
    }
    Some(text)
}

/// What a simple type restricts in the end.
enum Primitive<'a> {
    Builtin(&'a str),
    List,
    Other,
}

/// The base64 of `octets` bytes of `x`.
fn base64_of_x(octets: usize) -> String {
    let mut text = "eHh4".repeat(octets / 3);
    text.push_str(match octets % 3 {
        1 => "eA==",
        2 => "eHg=",
        _ => "",
    });
    text
}
