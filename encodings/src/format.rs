//! Each encoding's writer and reader for the payloads of module `wire`: serde_json,
//! rmp-serde (MessagePack's compact form: a struct as an array of its fields) and apache-avro
//! (binary datums under the schemas of [`Shape::avro_schema`]). A reader takes the whole input
//! or refuses it: bytes after the document are an error, so that a body in another encoding
//! is not half read as this one.

use apache_avro::Schema;
use apache_avro::types::Value;
use serde::{Deserialize, Serialize};

use crate::wire::{De, Payload, Ser, Shape};

/// An encoding other than XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Json,
    MsgPack,
    Avro,
}

/// Why bytes are not a payload of the shape asked for.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    MsgPackRead(#[from] rmp_serde::decode::Error),
    #[error("{0}")]
    MsgPackWrite(#[from] rmp_serde::encode::Error),
    #[error("{0}")]
    Avro(#[from] apache_avro::Error),
    #[error("{0} bytes follow the document")]
    Trailing(usize),
}

impl Encoding {
    pub const ALL: [Encoding; 3] = [Encoding::Json, Encoding::MsgPack, Encoding::Avro];

    /// The name wsperf, the manifest and file extensions use.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Json => "json",
            Encoding::MsgPack => "msgpack",
            Encoding::Avro => "avro",
        }
    }

    /// What the format is called in a sentence.
    pub fn title(self) -> &'static str {
        match self {
            Encoding::Json => "JSON",
            Encoding::MsgPack => "MessagePack",
            Encoding::Avro => "Avro",
        }
    }

    /// The name with its article, for a sentence: `a JSON`, `an Avro`.
    pub fn a_title(self) -> &'static str {
        match self {
            Encoding::Json => "a JSON",
            Encoding::MsgPack => "a MessagePack",
            Encoding::Avro => "an Avro",
        }
    }

    /// The media type a request carries and its answer is sent as.
    pub fn media_type(self) -> &'static str {
        match self {
            Encoding::Json => "application/json",
            Encoding::MsgPack => "application/msgpack",
            Encoding::Avro => "application/avro",
        }
    }

    /// The encoding of a media type (its parameters ignored, case-insensitive); MessagePack's
    /// older `application/x-msgpack` and `application/vnd.msgpack` too.
    pub fn of_media_type(media_type: &[u8]) -> Option<Encoding> {
        let essence = media_type
            .split(|&b| b == b';')
            .next()
            .unwrap_or_default()
            .trim_ascii();
        let is = |name: &str| essence.eq_ignore_ascii_case(name.as_bytes());
        if is("application/json") {
            Some(Encoding::Json)
        } else if is("application/msgpack")
            || is("application/x-msgpack")
            || is("application/vnd.msgpack")
        {
            Some(Encoding::MsgPack)
        } else if is("application/avro") {
            Some(Encoding::Avro)
        } else {
            None
        }
    }
}

/// Avro's schema for each payload shape, parsed once.
pub struct AvroSchemas(Vec<(Shape, Schema)>);

impl AvroSchemas {
    pub fn new() -> AvroSchemas {
        AvroSchemas(
            Shape::ALL
                .into_iter()
                .map(|shape| {
                    let schema = Schema::parse_str(&shape.avro_schema())
                        .expect("the WSTest Avro schemas parse");
                    (shape, schema)
                })
                .collect(),
        )
    }

    pub fn of(&self, shape: Shape) -> &Schema {
        &self
            .0
            .iter()
            .find(|(s, _)| *s == shape)
            .expect("a schema per shape")
            .1
    }
}

impl Default for AvroSchemas {
    fn default() -> Self {
        AvroSchemas::new()
    }
}

/// Bounds what one Avro datum may make apache-avro reserve: a string's bytes, and an array's
/// items (it reserves a block's whole declared count at once, so a five-byte body declaring
/// 500 million items would ask for some 28 GB and abort the process under the default limit
/// of 512 Mi). A server passes its body limit: the reservation is then at most that many
/// values, address space that is never touched unless the items arrive. Takes effect once, at
/// the first call or the first datum read, whichever comes first.
pub fn limit_avro_allocations(bytes: usize) -> usize {
    apache_avro::max_allocation_bytes(bytes)
}

/// Appends `payload` in `encoding` to `out`.
pub fn write(
    encoding: Encoding,
    payload: &Payload<'_>,
    avro: &AvroSchemas,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    match encoding {
        Encoding::Json => payload.write(&mut JsonSer(out))?,
        Encoding::MsgPack => payload.write(&mut MsgPackSer(out))?,
        Encoding::Avro => {
            let schema = avro.of(payload.shape());
            payload.write(&mut AvroSer { schema, out })?;
        }
    }
    Ok(())
}

/// Reads the payload of `shape` that `bytes` hold in `encoding`, all of them, and hands it to
/// `then` (Avro's strings borrow from a value tree that lives only in here).
pub fn read<R>(
    encoding: Encoding,
    shape: Shape,
    bytes: &[u8],
    avro: &AvroSchemas,
    then: impl FnOnce(Payload<'_>) -> R,
) -> Result<R, Error> {
    Ok(match encoding {
        Encoding::Json => then(Payload::read(shape, JsonDe(bytes))?),
        Encoding::MsgPack => then(Payload::read(shape, MsgPackDe(bytes))?),
        Encoding::Avro => {
            let mut rest = bytes;
            let value = apache_avro::from_avro_datum(avro.of(shape), &mut rest, None)?;
            if !rest.is_empty() {
                return Err(Error::Trailing(rest.len()));
            }
            then(Payload::read(shape, AvroDe(&value))?)
        }
    })
}

struct JsonSer<'o>(&'o mut Vec<u8>);

impl Ser for JsonSer<'_> {
    type Error = serde_json::Error;
    fn ser<T: Serialize>(&mut self, value: &T) -> Result<(), Self::Error> {
        serde_json::to_writer(&mut *self.0, value)
    }
}

/// serde_json refuses anything but white space after the document by itself.
struct JsonDe<'a>(&'a [u8]);

impl<'a> De<'a> for JsonDe<'a> {
    type Error = serde_json::Error;
    fn de<T: Deserialize<'a>>(self) -> Result<T, Self::Error> {
        serde_json::from_slice(self.0)
    }
}

struct MsgPackSer<'o>(&'o mut Vec<u8>);

impl Ser for MsgPackSer<'_> {
    type Error = rmp_serde::encode::Error;
    fn ser<T: Serialize>(&mut self, value: &T) -> Result<(), Self::Error> {
        rmp_serde::encode::write(&mut *self.0, value)
    }
}

struct MsgPackDe<'a>(&'a [u8]);

impl<'a> De<'a> for MsgPackDe<'a> {
    type Error = MsgPackError;
    fn de<T: Deserialize<'a>>(self) -> Result<T, Self::Error> {
        let mut de = rmp_serde::Deserializer::from_read_ref(self.0);
        let value = T::deserialize(&mut de)?;
        // rmp-serde's borrowing reader does not say where it stopped; a second value read
        // after the first must find the end of the input.
        match serde::de::IgnoredAny::deserialize(&mut de) {
            Err(rmp_serde::decode::Error::InvalidMarkerRead(error))
                if error.kind() == std::io::ErrorKind::UnexpectedEof =>
            {
                Ok(value)
            }
            _ => Err(MsgPackError::Trailing),
        }
    }
}

/// MessagePack's reading error, or bytes after the document.
#[derive(Debug)]
enum MsgPackError {
    Read(rmp_serde::decode::Error),
    Trailing,
}

impl From<rmp_serde::decode::Error> for MsgPackError {
    fn from(error: rmp_serde::decode::Error) -> Self {
        MsgPackError::Read(error)
    }
}

impl From<MsgPackError> for Error {
    fn from(error: MsgPackError) -> Self {
        match error {
            MsgPackError::Read(error) => Error::MsgPackRead(error),
            // How many is not known (see `MsgPackDe`); at least one.
            MsgPackError::Trailing => Error::Trailing(1),
        }
    }
}

/// Avro's schema-aware serializer, which writes straight into the buffer without building a
/// `Value` first (its fast path).
struct AvroSer<'s, 'o> {
    schema: &'s Schema,
    out: &'o mut Vec<u8>,
}

impl Ser for AvroSer<'_, '_> {
    type Error = apache_avro::Error;
    fn ser<T: Serialize>(&mut self, value: &T) -> Result<(), Self::Error> {
        apache_avro::write_avro_datum_ref(self.schema, value, &mut *self.out).map(drop)
    }
}

/// Avro reads into a `Value` tree; serde then borrows the payload's strings from it.
struct AvroDe<'v>(&'v Value);

impl<'v> De<'v> for AvroDe<'v> {
    type Error = apache_avro::Error;
    fn de<T: Deserialize<'v>>(self) -> Result<T, Self::Error> {
        apache_avro::from_value(self.0)
    }
}
