//! The xsd values as serde sees them: newtypes that read an element's text by
//! [`wstest::xsd`]'s rules and write it by them, so that these bindings agree with ours on what
//! every value means (floats by bits, `INF`, dates in UTC to the millisecond). serde's own `f32`
//! would read `inf` and `infinity`, which xsd does not allow, and write `inf`, which it cannot
//! read.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{SerializeStruct as _, Serializer};
use serde::{Deserialize, Serialize};
use wstest::DateTime;
use wstest::xsd;

/// An element's text, borrowed from the document where it needs no unescaping.
pub(crate) struct Text<'de>(pub Cow<'de, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("text")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(text)))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed("")))
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

/// Reads a value from text by an xsd rule, naming the type in the error.
fn parse<'de, D: Deserializer<'de>, T>(
    deserializer: D,
    rule: fn(&str) -> Option<T>,
    type_name: &str,
) -> Result<T, D::Error> {
    let text = Text::deserialize(deserializer)?;
    rule(&text.0)
        .ok_or_else(|| de::Error::custom(format_args!("{:?} is not a valid {type_name}", text.0)))
}

/// xsd:int.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Int(pub i32);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        parse(deserializer, xsd::parse_int, "xsd:int").map(Int)
    }
}

impl Serialize for Int {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(itoa::Buffer::new().format(self.0))
    }
}

/// xsd:float.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Float(pub f32);

impl<'de> Deserialize<'de> for Float {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        parse(deserializer, xsd::parse_float, "xsd:float").map(Float)
    }
}

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut text = Vec::with_capacity(24);
        xsd::push_float(&mut text, self.0);
        serializer.serialize_str(std::str::from_utf8(&text).map_err(serde::ser::Error::custom)?)
    }
}

/// xsd:dateTime.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Instant(pub DateTime);

impl<'de> Deserialize<'de> for Instant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        parse(deserializer, xsd::parse_date_time, "xsd:dateTime").map(Instant)
    }
}

impl Serialize for Instant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut text = Vec::with_capacity(32);
        xsd::push_date_time(&mut text, self.0);
        serializer.serialize_str(std::str::from_utf8(&text).map_err(serde::ser::Error::custom)?)
    }
}

/// xsd:base64Binary.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Base64(pub Vec<u8>);

impl<'de> Deserialize<'de> for Base64 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        parse(deserializer, xsd::parse_base64, "xsd:base64Binary").map(Base64)
    }
}

/// Writes bytes as xsd:base64Binary.
pub(crate) struct Base64Out<'r>(pub &'r [u8]);

impl Serialize for Base64Out<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut text = Vec::with_capacity(self.0.len().div_ceil(3) * 4);
        xsd::push_base64(&mut text, self.0);
        serializer.serialize_str(std::str::from_utf8(&text).map_err(serde::ser::Error::custom)?)
    }
}

/// xsd:string, borrowed where it can be.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Str<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Text::deserialize(deserializer)?;
        // XML 1.0 holds no control characters but tab, line feed and carriage return, not even
        // as a character reference; quick-xml resolves `&#1;` all the same.
        if let Some(bad) = text
            .0
            .bytes()
            .find(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
        {
            return Err(de::Error::custom(format_args!(
                "a string holds the control character U+{bad:04X}, which XML does not allow"
            )));
        }
        Ok(Str(text.0))
    }
}

/// A nillable element as quick-xml reads it: `xsi:nil="true"` is `None`. Not a bare
/// `Option`, because serde takes a missing `Option` field for `None`, and a nillable element is
/// still required: the field's default ([`NilValue::missing`]) remembers that it was absent.
#[derive(Debug)]
pub(crate) struct NilOption<T> {
    value: Option<T>,
    present: bool,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NilOption<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::<T>::deserialize(deserializer).map(|value| NilOption {
            value,
            present: true,
        })
    }
}

impl<T> NilValue<T> for NilOption<T> {
    fn into_value(self) -> Result<Option<T>, &'static str> {
        if self.present {
            Ok(self.value)
        } else {
            Err("missing")
        }
    }
    fn none() -> Self {
        NilOption {
            value: None,
            present: true,
        }
    }
    fn missing() -> Self {
        NilOption {
            value: None,
            present: false,
        }
    }
}

/// A nillable element as serde-xml-rs reads it: the `xsi:nil` attribute and the text, apart
/// (quick-xml reads `xsi:nil="true"` as `None` of an `Option` by itself).
#[derive(Debug, Deserialize)]
pub(crate) struct NilElement<T> {
    #[serde(rename = "@xsi:nil", alias = "@nil", default)]
    nil: Option<String>,
    #[serde(rename = "#text", alias = "$text", default = "none")]
    value: Option<T>,
    /// Always true when read; false for [`NilValue::missing`].
    #[serde(skip, default = "yes")]
    present: bool,
}

fn yes() -> bool {
    true
}

fn none<T>() -> Option<T> {
    None
}

/// A nillable value, however the library reads it.
pub(crate) trait NilValue<T> {
    /// `None` when the element was nil; an error when it was neither nil nor a value.
    fn into_value(self) -> Result<Option<T>, &'static str>;
    /// A nil element.
    fn none() -> Self;
    /// No element at all: the field's default, which [`NilValue::into_value`] refuses.
    fn missing() -> Self;
}

impl<T: EmptyText> NilValue<T> for NilElement<T> {
    fn none() -> Self {
        NilElement {
            nil: Some("true".to_owned()),
            value: None,
            present: true,
        }
    }
    fn missing() -> Self {
        NilElement {
            nil: None,
            value: None,
            present: false,
        }
    }

    fn into_value(self) -> Result<Option<T>, &'static str> {
        if !self.present {
            return Err("missing");
        }
        if self.nil.as_deref().and_then(xsd::parse_boolean) == Some(true) {
            return Ok(None);
        }
        match self.value {
            Some(value) => Ok(Some(value)),
            None => T::empty()
                .map(Some)
                .ok_or("an empty element that is not nil"),
        }
    }
}

/// What an empty element holds: an empty string, and no other type's value.
pub(crate) trait EmptyText: Sized {
    fn empty() -> Option<Self> {
        None
    }
}

impl EmptyText for Str<'_> {
    fn empty() -> Option<Self> {
        Some(Str(Cow::Borrowed("")))
    }
}
impl EmptyText for Float {}

/// Writes a nillable element: the value, or an empty element with `xsi:nil="true"`.
pub(crate) struct NilOut<T>(pub Option<T>);

impl<T: Serialize> Serialize for NilOut<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(value) => value.serialize(serializer),
            None => {
                let mut nil = serializer.serialize_struct("nil", 1)?;
                nil.serialize_field("@xsi:nil", "true")?;
                nil.end()
            }
        }
    }
}

/// A string written as element text.
pub(crate) struct StrOut<'r>(pub &'r str);

impl Serialize for StrOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}
