//! What wsperf measures: each XML binding, each other encoding of the same data, and the
//! limits (a lexer pass that builds nothing, a plain copy); how each encodes, decodes and is
//! checked against our binding's model.

use std::hint::black_box;
use std::io::{Read as _, Write as _};

use anyhow::{Context, anyhow, bail};
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde::Serialize;
use wstest::Binding;
use wstest::binding::{STREAMING, STREAMING_QUICK_XML};
use wstest::decode::{LexerChoice, count_tokens};

use crate::document::{Document, Kind, Message, decode_xml, encode_xml};
use crate::measure::{Sample, Timing};
use encodings::format::{self, AvroSchemas, Encoding};
use encodings::wire::{Payload, Shape};

/// The XML bindings, by the names `--bindings` takes.
pub(crate) const BINDINGS: [&dyn Binding; 4] = [
    &STREAMING,
    &STREAMING_QUICK_XML,
    &serde_bindings::SERDE_QUICK_XML,
    &serde_bindings::SERDE_XML_RS,
];

/// The encodings `--encodings` takes; `xml` stands for every chosen binding.
pub(crate) const ENCODINGS: [&str; 5] = ["xml", "xml-gzip", "json", "msgpack", "avro"];

/// One row's implementation.
#[derive(Clone, Copy)]
pub(crate) enum Implementation {
    Xml(&'static dyn Binding),
    /// Our XML, gzipped (flate2 on zlib-rs, its default level).
    XmlGzip,
    Json,
    MsgPack,
    Avro,
    /// One pass of a lexer over the XML, building nothing (decode only).
    TokensOnly(LexerChoice),
    /// Every byte looked at once, counting the `<` and `>` that bound tags and text (a loop the
    /// compiler vectorizes): the least any XML reader must do, whatever it builds (decode
    /// only). memchr2 over the same two bytes took 7 µs on echostruct100, five times this,
    /// because they come every few bytes and memchr pays per match.
    Scan,
    /// A copy of the XML's bytes into a reused buffer.
    Copy,
}

impl Implementation {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Implementation::Xml(binding) => binding.name(),
            Implementation::XmlGzip => "xml-gzip",
            Implementation::Json => "json",
            Implementation::MsgPack => "msgpack",
            Implementation::Avro => "avro",
            Implementation::TokensOnly(LexerChoice::Fast | LexerChoice::FastTokens) => {
                "tokens-only-fast"
            }
            Implementation::TokensOnly(LexerChoice::QuickXml) => "tokens-only-quick-xml",
            Implementation::Scan => "scan",
            Implementation::Copy => "copy",
        }
    }

    /// A limit rather than a way to carry the data.
    pub(crate) fn is_limit(self) -> bool {
        matches!(
            self,
            Implementation::TokensOnly(_) | Implementation::Scan | Implementation::Copy
        )
    }
}

/// What is timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Decode,
    Encode,
    RoundTrip,
}

impl Mode {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Decode => "decode",
            Mode::Encode => "encode",
            Mode::RoundTrip => "round-trip",
        }
    }
}

/// The bytes `implementation` carries `document` in: the XML itself for the limits.
pub(crate) fn encoding(
    implementation: Implementation,
    document: &Document,
    avro: &AvroSchemas,
) -> anyhow::Result<Vec<u8>> {
    let model = document.model();
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    match implementation {
        Implementation::TokensOnly(_) | Implementation::Scan | Implementation::Copy => {
            out.extend_from_slice(&document.xml)
        }
        _ => encode(
            implementation,
            &model,
            &Payload::of(&model),
            avro,
            &mut scratch,
            &mut out,
        )?,
    }
    Ok(out)
}

/// The bytes `mode` starts from: for decoding with an XML binding, the document itself, so that
/// every binding reads the same bytes; otherwise the implementation's own encoding.
pub(crate) fn input(
    implementation: Implementation,
    mode: Mode,
    document: &Document,
    avro: &AvroSchemas,
) -> anyhow::Result<Vec<u8>> {
    match (implementation, mode) {
        (Implementation::Xml(_), Mode::Decode) => Ok(document.xml.clone()),
        _ => encoding(implementation, document, avro),
    }
}

/// Checks that `implementation` reads its own encoding of `document` back to our model, and
/// that a binding reads the document itself as ours does: a row is only timed once it is right.
pub(crate) fn verify(
    implementation: Implementation,
    document: &Document,
    avro: &AvroSchemas,
) -> anyhow::Result<()> {
    let model = document.model();
    let expected = format!("{model:?}");
    let same = |message: &Message<'_>| format!("{message:?}") == expected;
    if let Implementation::Xml(binding) = implementation {
        let read = decode_xml(binding, document.kind, &document.xml)
            .map_err(|fault| anyhow!("cannot read the document: {fault}"))?;
        if !same(&read) {
            bail!("reads the document as {read:?}, not as ours does");
        }
    }
    if let Implementation::TokensOnly(lexer) = implementation {
        return match count_tokens(lexer, &document.xml) {
            Some(_) => Ok(()),
            None => bail!("the lexer does not read this document"),
        };
    }
    if implementation.is_limit() {
        return Ok(());
    }
    let bytes = encoding(implementation, document, avro)?;
    check_bytes(implementation, document, &bytes, avro, "its own encoding")
}

/// Times `mode` for `implementation` on `document`, with the size of the bytes read or written,
/// or `None` where the pair means nothing (a lexer pass has nothing to encode).
pub(crate) fn measure(
    implementation: Implementation,
    mode: Mode,
    document: &Document,
    avro: &AvroSchemas,
    timing: &Timing,
) -> anyhow::Result<Option<(Sample, usize)>> {
    let model = document.model();
    let payload = Payload::of(&model);
    let encoded = input(implementation, mode, document, avro)?;
    let mut out = Vec::with_capacity(encoded.len() * 2);
    let mut scratch = Vec::with_capacity(document.xml.len() * 2);
    let mut decode_scratch = Vec::new();
    let encode_into = |out: &mut Vec<u8>, scratch: &mut Vec<u8>| {
        out.clear();
        let model = black_box(&model);
        encode(
            implementation,
            model,
            black_box(&payload),
            avro,
            scratch,
            out,
        )
        .is_ok()
    };
    let decode_from = |bytes: &[u8], scratch: &mut Vec<u8>| {
        decode(implementation, document, bytes, avro, scratch, |m| {
            black_box(&m);
        })
        .is_ok()
    };
    let sample = match (implementation, mode) {
        (Implementation::TokensOnly(lexer), Mode::Decode) => timing.measure(|| {
            black_box(count_tokens(lexer, black_box(&encoded)));
        }),
        (Implementation::Scan, Mode::Decode) => timing.measure(|| {
            let bytes: &[u8] = black_box(&encoded);
            black_box(
                bytes
                    .iter()
                    .filter(|&&byte| byte == b'<' || byte == b'>')
                    .count(),
            );
        }),
        (Implementation::TokensOnly(_) | Implementation::Scan, _) => return Ok(None),
        (Implementation::Copy, _) => timing.measure(|| {
            out.clear();
            out.extend_from_slice(black_box(&encoded));
            black_box(&out);
        }),
        (_, Mode::Decode) => timing.measure(|| {
            black_box(decode_from(black_box(&encoded), &mut scratch));
        }),
        (_, Mode::Encode) => timing.measure(|| {
            black_box((encode_into(&mut out, &mut scratch), &out));
        }),
        (_, Mode::RoundTrip) => timing.measure(|| {
            let written = encode_into(&mut out, &mut scratch);
            black_box((written, decode_from(&out, &mut decode_scratch)));
        }),
    };
    Ok(Some((sample, encoded.len())))
}

/// Every implementation, in the order rows show them.
pub(crate) fn all_implementations() -> Vec<Implementation> {
    let mut all: Vec<Implementation> = BINDINGS.into_iter().map(Implementation::Xml).collect();
    all.extend([
        Implementation::XmlGzip,
        Implementation::Json,
        Implementation::MsgPack,
        Implementation::Avro,
        Implementation::TokensOnly(LexerChoice::Fast),
        Implementation::TokensOnly(LexerChoice::QuickXml),
        Implementation::Scan,
        Implementation::Copy,
    ]);
    all
}

/// Decodes `bytes` once as `measure` times it (a limit does its pass or its copy), for the
/// network mode's far side.
pub(crate) fn decode_once(
    implementation: Implementation,
    document: &Document,
    bytes: &[u8],
    avro: &AvroSchemas,
    scratch: &mut Vec<u8>,
) -> anyhow::Result<()> {
    match implementation {
        Implementation::TokensOnly(lexer) => {
            count_tokens(lexer, bytes).context("the lexer does not read these bytes")?;
        }
        Implementation::Scan => {
            black_box(bytes.iter().filter(|&&b| b == b'<' || b == b'>').count());
        }
        Implementation::Copy => {
            scratch.clear();
            scratch.extend_from_slice(bytes);
        }
        _ => decode(implementation, document, bytes, avro, scratch, |message| {
            black_box(&message);
        })?,
    }
    Ok(())
}

/// Checks that `bytes` (`what`, in the error) are `document` in `implementation`'s encoding:
/// they read back to our model (for a limit, they are the XML itself).
pub(crate) fn check_bytes(
    implementation: Implementation,
    document: &Document,
    bytes: &[u8],
    avro: &AvroSchemas,
    what: &str,
) -> anyhow::Result<()> {
    if implementation.is_limit() {
        if bytes != document.xml.as_slice() {
            bail!(
                "{what} is not the document ({} bytes, not {})",
                bytes.len(),
                document.xml.len()
            );
        }
        return Ok(());
    }
    let expected = format!("{:?}", document.model());
    let mut scratch = Vec::new();
    decode(
        implementation,
        document,
        bytes,
        avro,
        &mut scratch,
        |decoded| {
            let message = decoded.into_message(document.kind);
            if format!("{message:?}") == expected {
                Ok(())
            } else {
                Err(anyhow!("reads {what} back as {message:?}"))
            }
        },
    )?
}

/// Encodes `model` (and its `payload`) once as `measure` times it; a limit copies the XML.
pub(crate) fn encode_once(
    implementation: Implementation,
    document: &Document,
    model: &Message<'_>,
    payload: &Payload<'_>,
    avro: &AvroSchemas,
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> anyhow::Result<()> {
    out.clear();
    if implementation.is_limit() {
        out.extend_from_slice(&document.xml);
        return Ok(());
    }
    encode(implementation, model, payload, avro, scratch, out)
}

/// Appends the encoding of one message to `out`: XML bindings from the model, the other
/// encodings from their payload types (what a team would derive serde on), gzip from our XML in
/// `scratch`.
fn encode(
    implementation: Implementation,
    model: &Message<'_>,
    payload: &Payload<'_>,
    avro: &AvroSchemas,
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> anyhow::Result<()> {
    match implementation {
        Implementation::Xml(binding) => encode_xml(binding, model, out),
        Implementation::XmlGzip => {
            scratch.clear();
            encode_xml(&STREAMING, model, scratch);
            let mut gzip = GzEncoder::new(out, Compression::default());
            gzip.write_all(scratch)?;
            gzip.finish()?;
        }
        Implementation::Json => format::write(Encoding::Json, payload, avro, out)?,
        Implementation::MsgPack => format::write(Encoding::MsgPack, payload, avro, out)?,
        Implementation::Avro => format::write(Encoding::Avro, payload, avro, out)?,
        Implementation::TokensOnly(_) | Implementation::Scan | Implementation::Copy => {
            unreachable!("the limits encode nothing")
        }
    }
    Ok(())
}

/// What a decoder reads into: our model for the XML bindings, the payload types for the other
/// encodings (their own model, as a team deriving serde would have it).
#[allow(clippy::large_enum_variant)]
enum Decoded<'a> {
    Model(Message<'a>),
    Payload(Payload<'a>),
}

impl<'a> Decoded<'a> {
    fn into_message(self, kind: Kind) -> Message<'a> {
        match self {
            Decoded::Model(message) => message,
            Decoded::Payload(payload) => payload.into_message(kind),
        }
    }
}

/// Decodes `bytes` into the implementation's own types and hands them to `then`, which
/// `verify` converts to our model and timing only looks at.
fn decode<R>(
    implementation: Implementation,
    document: &Document,
    bytes: &[u8],
    avro: &AvroSchemas,
    scratch: &mut Vec<u8>,
    then: impl FnOnce(Decoded<'_>) -> R,
) -> anyhow::Result<R> {
    let kind = document.kind;
    let shape = Shape::of(kind);
    Ok(match implementation {
        Implementation::Xml(binding) => {
            let message = decode_xml(binding, kind, bytes).map_err(|fault| anyhow!("{fault}"))?;
            then(Decoded::Model(message))
        }
        Implementation::XmlGzip => {
            scratch.clear();
            GzDecoder::new(bytes)
                .read_to_end(scratch)
                .context("gunzip")?;
            let message =
                decode_xml(&STREAMING, kind, scratch).map_err(|fault| anyhow!("{fault}"))?;
            then(Decoded::Model(message))
        }
        Implementation::Json => format::read(Encoding::Json, shape, bytes, avro, |payload| {
            then(Decoded::Payload(payload))
        })?,
        Implementation::MsgPack => {
            format::read(Encoding::MsgPack, shape, bytes, avro, |payload| {
                then(Decoded::Payload(payload))
            })?
        }
        Implementation::Avro => format::read(Encoding::Avro, shape, bytes, avro, |payload| {
            then(Decoded::Payload(payload))
        })?,
        Implementation::TokensOnly(_) | Implementation::Scan | Implementation::Copy => {
            unreachable!("the limits decode nothing")
        }
    })
}
