//! The network mode, as efxperf's relay: each document is encoded on one side, sent over TCP
//! and decoded on the other, and the time per document includes the transfer. `wsperf relay`
//! is the far side; `wsperf --net ADDR` the near one, which times:
//!
//! - decode (the default): encoded here, sent, decoded by the relay, which answers one byte;
//! - encode (`-e`): the reverse, encoded by the relay, sent, decoded here;
//! - round trip: both, one after the other.
//!
//! Before a row is timed, its bytes are checked both ways (the relay reads what this side
//! wrote, and this side what the relay wrote, as the document's model): a document that does
//! not arrive whole and equal is `wrong`, not timed. The `copy` row sends the XML and does no
//! work: the network's own cost.
//!
//! One connection per row. A frame is a big-endian u32 length, then a tag byte and a body;
//! the first frame names the implementation and carries the document.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs as _};

use anyhow::{Context as _, anyhow, bail};

use encodings::AvroSchemas;
use encodings::wire::Payload;

use crate::codec::{self, Implementation, Mode};
use crate::document::Document;
use crate::measure::Timing;
use crate::report::Row;

const SETUP: u8 = b'S';
const CHECK: u8 = b'C';
const DECODE: u8 = b'D';
const ENCODE: u8 = b'N';
const ROUND_TRIP: u8 = b'R';
const OK: u8 = b'K';
const BYTES: u8 = b'B';
const ERROR: u8 = b'E';

/// The largest frame either side reads: a document of wsperf's is far smaller, and a length
/// past it is a peer that does not speak this protocol.
const MAX_FRAME: usize = 256 << 20;

/// Writes one frame in one write (the relay answers only after a whole frame, so a split one
/// would cost a round trip of Nagle's algorithm and the peer's delayed ACK).
fn write_frame(
    stream: &mut TcpStream,
    tag: u8,
    body: &[u8],
    scratch: &mut Vec<u8>,
) -> std::io::Result<()> {
    scratch.clear();
    scratch.extend_from_slice(&(body.len() as u32 + 1).to_be_bytes());
    scratch.push(tag);
    scratch.extend_from_slice(body);
    stream.write_all(scratch)
}

/// Reads one frame into `buf` (its body) and returns its tag; `None` at a clean end of input.
fn read_frame(stream: &mut TcpStream, buf: &mut Vec<u8>) -> anyhow::Result<Option<u8>> {
    let mut header = [0u8; 5];
    match stream.read_exact(&mut header[..1]) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error.into()),
    }
    stream.read_exact(&mut header[1..])?;
    let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
    if len == 0 || len > MAX_FRAME {
        bail!("a frame of {len} bytes: the peer does not speak wsperf's relay protocol");
    }
    buf.resize(len - 1, 0);
    stream.read_exact(buf)?;
    Ok(Some(header[4]))
}

/// `wsperf relay --addr ADDR`: serves each connection on a thread of its own until killed.
pub fn relay(listen: &str) -> anyhow::Result<()> {
    let listener =
        TcpListener::bind(listen).with_context(|| format!("cannot listen on {listen}"))?;
    eprintln!(
        "{}",
        host::listening::line("wsperf relay", listener.local_addr()?)
    );
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        std::thread::spawn(move || {
            let peer = stream
                .peer_addr()
                .map_or_else(|_| "?".to_owned(), |a| a.to_string());
            if let Err(error) = serve(stream) {
                eprintln!("wsperf relay: {peer}: {error:#}");
            }
        });
    }
    Ok(())
}

fn serve(mut stream: TcpStream) -> anyhow::Result<()> {
    stream.set_nodelay(true)?;
    let (mut buf, mut frame) = (Vec::new(), Vec::new());
    let Some(SETUP) = read_frame(&mut stream, &mut buf)? else {
        bail!("the first frame must name the implementation and carry the document");
    };
    let (implementation, document) = match setup(&buf) {
        Ok(setup) => setup,
        Err(error) => {
            write_frame(
                &mut stream,
                ERROR,
                format!("{error:#}").as_bytes(),
                &mut frame,
            )?;
            return Ok(());
        }
    };
    let avro = AvroSchemas::new();
    let model = document.model();
    let payload = Payload::of(&model);
    let (mut scratch, mut out) = (Vec::new(), Vec::new());
    write_frame(&mut stream, OK, &[], &mut frame)?;
    while let Some(tag) = read_frame(&mut stream, &mut buf)? {
        let answered = match tag {
            CHECK => codec::check_bytes(implementation, &document, &buf, &avro, "what was sent")
                .map(|()| (OK, false)),
            DECODE => codec::decode_once(implementation, &document, &buf, &avro, &mut scratch)
                .map(|()| (OK, false)),
            // A round trip decodes what it was sent, then answers as ENCODE does.
            ENCODE | ROUND_TRIP => if tag == ROUND_TRIP {
                codec::decode_once(implementation, &document, &buf, &avro, &mut scratch)
            } else {
                Ok(())
            }
            .and_then(|()| {
                codec::encode_once(
                    implementation,
                    &document,
                    &model,
                    &payload,
                    &avro,
                    &mut scratch,
                    &mut out,
                )
            })
            .map(|()| (BYTES, true)),
            other => Err(anyhow!("unknown frame {:?}", char::from(other))),
        };
        match answered {
            Ok((tag, with_bytes)) => {
                let body: &[u8] = if with_bytes { &out } else { &[] };
                write_frame(&mut stream, tag, body, &mut frame)?;
            }
            Err(error) => write_frame(
                &mut stream,
                ERROR,
                format!("{error:#}").as_bytes(),
                &mut frame,
            )?,
        }
    }
    Ok(())
}

/// The setup frame: the implementation's name, a NUL, the document's name, a NUL, its XML.
fn setup(body: &[u8]) -> anyhow::Result<(Implementation, Document)> {
    let mut parts = body.splitn(3, |&b| b == 0);
    let (Some(name), Some(document), Some(xml)) = (parts.next(), parts.next(), parts.next()) else {
        bail!("a setup frame holds an implementation, a document name and its XML");
    };
    let name = String::from_utf8_lossy(name);
    let implementation = codec::all_implementations()
        .into_iter()
        .find(|implementation| implementation.name() == name)
        .with_context(|| format!("the relay has no implementation {name:?}"))?;
    let document = Document::new(String::from_utf8_lossy(document).into_owned(), xml.to_vec())?;
    Ok((implementation, document))
}

/// One connection to the relay, set up for one document and implementation.
struct Link {
    stream: TcpStream,
    buf: Vec<u8>,
    frame: Vec<u8>,
}

impl Link {
    fn open(
        addr: &str,
        implementation: Implementation,
        document: &Document,
    ) -> anyhow::Result<Link> {
        let target = addr
            .to_socket_addrs()
            .with_context(|| format!("resolving {addr}"))?
            .next()
            .with_context(|| format!("{addr} has no address"))?;
        let stream = TcpStream::connect(target).with_context(|| {
            format!("connecting to the relay at {addr} (is `wsperf relay` running there?)")
        })?;
        stream.set_nodelay(true)?;
        let mut link = Link {
            stream,
            buf: Vec::new(),
            frame: Vec::new(),
        };
        let mut setup = implementation.name().as_bytes().to_vec();
        setup.push(0);
        setup.extend_from_slice(document.name.as_bytes());
        setup.push(0);
        setup.extend_from_slice(&document.xml);
        link.exchange(SETUP, &setup, OK)?;
        Ok(link)
    }

    /// Sends a frame and reads the answer, which must carry `expected` (else the relay's
    /// error); the answer's body is in `self.buf`.
    fn exchange(&mut self, tag: u8, body: &[u8], expected: u8) -> anyhow::Result<()> {
        write_frame(&mut self.stream, tag, body, &mut self.frame)?;
        match read_frame(&mut self.stream, &mut self.buf)? {
            Some(tag) if tag == expected => Ok(()),
            Some(ERROR) => Err(anyhow!("the relay: {}", String::from_utf8_lossy(&self.buf))),
            Some(other) => bail!("the relay answered {:?}", char::from(other)),
            None => bail!("the relay closed the connection"),
        }
    }
}

/// Checks and times every document, mode and implementation across the relay at `addr`.
pub(crate) fn measure_all(
    addr: &str,
    documents: &[Document],
    implementations: &[Implementation],
    modes: &[Mode],
    timing: &Timing,
    avro: &AvroSchemas,
) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for document in documents {
        let model = document.model();
        let payload = Payload::of(&model);
        for &mode in modes {
            for &implementation in implementations {
                let decode_only = matches!(
                    implementation,
                    Implementation::TokensOnly(_) | Implementation::Scan
                );
                if decode_only && mode != Mode::Decode {
                    continue;
                }
                let mut link = Link::open(addr, implementation, document)?;
                let (mut scratch, mut out) = (Vec::new(), Vec::new());
                codec::encode_once(
                    implementation,
                    document,
                    &model,
                    &payload,
                    avro,
                    &mut scratch,
                    &mut out,
                )?;
                let bytes = out.len();
                let checked = check(&mut link, implementation, document, &out, mode, avro);
                let time = match &checked {
                    Ok(()) => Some(time(
                        &mut link,
                        implementation,
                        document,
                        (&model, &payload),
                        mode,
                        avro,
                        timing,
                    )?),
                    Err(error) => {
                        eprintln!(
                            "wsperf: {}: {}: {error:#}",
                            document.name,
                            implementation.name()
                        );
                        None
                    }
                };
                rows.push(Row::new(
                    document,
                    implementation,
                    mode,
                    bytes,
                    time,
                    checked.err().map(|error| format!("{error:#}")),
                ));
            }
        }
    }
    crate::report::set_ratios(&mut rows);
    Ok(rows)
}

/// The row's bytes arrive whole and equal in the direction its mode times.
fn check(
    link: &mut Link,
    implementation: Implementation,
    document: &Document,
    encoded: &[u8],
    mode: Mode,
    avro: &AvroSchemas,
) -> anyhow::Result<()> {
    if mode != Mode::Encode {
        link.exchange(CHECK, encoded, OK)?;
    }
    if mode != Mode::Decode {
        link.exchange(ENCODE, &[], BYTES)?;
        codec::check_bytes(
            implementation,
            document,
            &link.buf,
            avro,
            "what the relay wrote",
        )?;
    }
    Ok(())
}

/// Times one document's trip (or trips) as `mode` says.
fn time(
    link: &mut Link,
    implementation: Implementation,
    document: &Document,
    (model, payload): (&encodings::Message<'_>, &Payload<'_>),
    mode: Mode,
    avro: &AvroSchemas,
    timing: &Timing,
) -> anyhow::Result<crate::measure::Sample> {
    let failure: RefCell<Option<anyhow::Error>> = RefCell::new(None);
    let (mut scratch, mut out, mut decoded) = (Vec::new(), Vec::new(), Vec::new());
    let sample = timing.measure(|| {
        if failure.borrow().is_some() {
            return;
        }
        let trip = (|| -> anyhow::Result<()> {
            if mode != Mode::Encode {
                codec::encode_once(
                    implementation,
                    document,
                    model,
                    payload,
                    avro,
                    &mut scratch,
                    &mut out,
                )?;
            }
            match mode {
                Mode::Decode => link.exchange(DECODE, &out, OK),
                Mode::Encode => link.exchange(ENCODE, &[], BYTES),
                Mode::RoundTrip => link.exchange(ROUND_TRIP, &out, BYTES),
            }?;
            if mode != Mode::Decode {
                codec::decode_once(implementation, document, &link.buf, avro, &mut decoded)?;
            }
            Ok(())
        })();
        if let Err(error) = trip {
            *failure.borrow_mut() = Some(error);
        }
    });
    match failure.into_inner() {
        Some(error) => Err(error.context(format!("{}: {}", document.name, implementation.name()))),
        None => Ok(sample),
    }
}
