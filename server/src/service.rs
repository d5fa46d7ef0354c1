//! One HTTP request in, one response out: routing, limits, and the SOAP exchange.
//!
//! | request | answer |
//! |---|---|
//! | POST to a served path, text/xml | 200 with the response envelope, or 500 with a SOAP fault |
//! | GET a served path with `?wsdl` | 200 with the WSDL, its address `https://` over TLS and taken from Host (or, with `--trust-proxy`, from Forwarded / X-Forwarded-Proto and X-Forwarded-Host) |
//! | another method on a served path | 405 with `Allow: GET, POST` |
//! | any other path | 404 |
//! | a refused request (404, 405, 415) | its body read and dropped first, within the limits, so that an HTTP/1.1 connection carries on |
//! | a body over `--max-body` | 413, before the body is read when its length is declared |
//! | POST with Content-Type application/json, application/msgpack or application/avro | the same operation (named by SOAPAction) answered in that encoding; a bad body is 400 with a small JSON error, a server fault 500 |
//! | a Content-Type other than these and text/xml (or application/xml, or none) | 415 |
//! | Content-Encoding: gzip | the body inflated, its inflated size under `--max-body` (413 past it, 400 if not gzip); another coding is 415 |
//! | Accept-Encoding naming gzip | the answer gzipped, with Content-Encoding: gzip |
//! | HTTP/1.1 without Host | 400, and the connection closes |
//! | a transfer coding other than chunked | 501, and the connection closes |
//! | two SOAPAction headers that differ | 500 with a Client fault |

use std::convert::Infallible;
use std::future::Future;
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};

use encodings::{AvroSchemas, Encoding};
use http::header::{
    ACCEPT_ENCODING, ALLOW, CONNECTION, CONTENT_ENCODING, CONTENT_TYPE, EXPECT, HOST,
    TRANSFER_ENCODING,
};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use hyper::body::{Body as _, Incoming};

use crate::answer::{Answer, Body, TALLY};
use crate::config::{BindingChoice, Config};
use crate::metrics::Protocol;
use crate::watchdog::ConnectionState;

const TEXT_XML: HeaderValue = HeaderValue::from_static("text/xml; charset=utf-8");
const TEXT_PLAIN: HeaderValue = HeaderValue::from_static("text/plain; charset=utf-8");
const GZIP: HeaderValue = HeaderValue::from_static("gzip");

/// How many times its own size a gzipped body may inflate to, as Apache httpd's
/// DeflateInflateRatioLimit (whose default this is): real XML and JSON compress 5 to 20 times,
/// a gzip bomb a thousand. With the body limit alone, a 16 kB bomb would make the server hold
/// 16 MB; with the ratio it holds at most 200 times what it was sent.
const MAX_INFLATE_RATIO: usize = 200;

/// ... but any body may inflate to this much, so that a tiny gzip of a long run is read.
const INFLATE_FLOOR: usize = 64 * 1024;

/// The inflated size a gzipped body of `len` bytes may reach.
fn inflate_limit(config: &Config, len: usize) -> usize {
    len.saturating_mul(MAX_INFLATE_RATIO)
        .max(INFLATE_FLOOR)
        .min(config.max_body)
}

/// The Avro schemas, parsed once per process.
static AVRO: std::sync::LazyLock<AvroSchemas> = std::sync::LazyLock::new(AvroSchemas::new);

/// The hyper service of one connection: [`handle`], with the connection's watchdog told when
/// each request starts and ends.
///
/// Built with `service_fn`, whose future is a concrete type: no allocation or dynamic call per
/// request, as a boxed future would cost.
pub(crate) fn service(
    config: Rc<Config>,
    state: Rc<ConnectionState>,
) -> impl hyper::service::Service<
    Request<Incoming>,
    Response = Response<Answer>,
    Error = Infallible,
    Future = impl Future<Output = Result<Response<Answer>, Infallible>>,
> + Clone {
    hyper::service::service_fn(move |request| {
        let config = Rc::clone(&config);
        let state = Rc::clone(&state);
        state.request_started();
        TALLY.with(|tally| tally.requests.set(tally.requests.get() + 1));
        let protocol = if state.multiplexed() {
            Protocol::H2
        } else {
            Protocol::Http1
        };
        let started = config
            .metrics
            .as_ref()
            .map(|metrics| metrics.request_started(protocol));
        async move {
            let mut response = handle(&config, &state, request).await;
            if let (Some(metrics), Some(started)) = (&config.metrics, started) {
                metrics.request_done(protocol, response.status().as_u16(), started);
            }
            if state.multiplexed() {
                // Over HTTP/2 the answer is written after the service has returned, as flow
                // control allows: the watchdog follows it to keep the write timeout.
                response
                    .body_mut()
                    .watch(&state, config.write_timeout.is_some());
            }
            state.request_done();
            Ok::<_, Infallible>(response)
        }
    })
}

/// Answers one request.
pub(crate) async fn handle(
    config: &Config,
    state: &ConnectionState,
    request: Request<Incoming>,
) -> Response<Answer> {
    if let Some(refusal) = check_framing(&request) {
        return refusal;
    }
    let path = request.uri().path();
    if !config
        .paths
        .iter()
        .any(|served| served.eq_ignore_ascii_case(path))
    {
        let refusal = plain(
            StatusCode::NOT_FOUND,
            format!("no WSTest service at {path}: POST SOAP requests to /WSTest\n"),
        );
        return refuse(config, state, request, refusal).await;
    }
    match *request.method() {
        Method::POST => soap(config, state, request).await,
        Method::GET
            if request
                .uri()
                .query()
                .is_some_and(|query| query.eq_ignore_ascii_case("wsdl")) =>
        {
            wsdl(config, &request)
        }
        _ => {
            let mut response = plain(
                StatusCode::METHOD_NOT_ALLOWED,
                format!(
                    "{} is not allowed here: POST a SOAP 1.1 request, or GET {path}?wsdl for the WSDL\n",
                    request.method()
                ),
            );
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, POST"));
            refuse(config, state, request, response).await
        }
    }
}

/// `refusal`, sent once the request's body has been read and dropped, as nginx discards the
/// body of a request it refuses: hyper closes an HTTP/1.1 connection whose request body was
/// left unread (unless all of it had happened to arrive with the head), so a keep-alive client
/// that asked for a wrong path would lose its connection or not by the timing of its writes.
/// The body is read under the same limits as a served one; past them the connection closes.
/// A client that sent `Expect: 100-continue` is spared the body it has not sent, and the
/// connection closes. Over HTTP/2 an unread body costs only its stream.
async fn refuse(
    config: &Config,
    state: &ConnectionState,
    request: Request<Incoming>,
    mut refusal: Response<Answer>,
) -> Response<Answer> {
    if state.multiplexed() || request.body().is_end_stream() {
        return refusal;
    }
    if request.headers().contains_key(EXPECT) || read_body(config, state, request).await.is_err() {
        refusal
            .headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
    }
    refusal
}

/// A request answered before the service reads it (a 4xx), boxed: a `Response` is larger than
/// the values it travels beside.
type Refused = Box<Response<Answer>>;

/// What the headers of a SOAP request ask of its body and its answer.
struct Negotiated {
    /// The body's encoding; `None` is XML.
    encoding: Option<Encoding>,
    /// The body is gzipped.
    gzipped: bool,
    /// The answer may be gzipped.
    gzip_answer: bool,
}

/// A POST: the body read, inflated when gzipped, answered by the binding or encoding its
/// Content-Type names, the answer gzipped when the client accepts it.
async fn soap(
    config: &Config,
    state: &ConnectionState,
    request: Request<Incoming>,
) -> Response<Answer> {
    let negotiated = match negotiate(request.headers()) {
        Ok(negotiated) => negotiated,
        Err(refused) => return refuse(config, state, request, *refused).await,
    };
    let (parts, body) = match read_body(config, state, request).await {
        Ok(read) => read,
        Err(refused) => return *refused,
    };
    // Not from the pool: a buffer taken and dropped as a plain Vec would leave it, and the
    // pool would drain one buffer a request (an allocation a request on the XML path).
    let mut inflated = Vec::new();
    let body: &[u8] = if negotiated.gzipped {
        match inflate(config, &body, &mut inflated) {
            Ok(()) => &inflated,
            Err(refused) => return *refused,
        }
    } else {
        &body
    };
    let mut out = Body::buffer();
    let (status, content_type) =
        exchange(config, negotiated.encoding, &parts.headers, body, &mut out);
    let answer = if negotiated.gzip_answer {
        let mut gzipped = Body::buffer();
        encodings::gzip::deflate(&out, &mut gzipped);
        // The plain answer's buffer goes back to the pool (emptied first: a Body dropped
        // with bytes unsent counts as an answer cut).
        out.clear();
        drop(Body::from(out));
        gzipped
    } else {
        out
    };
    let mut response = Response::new(Answer::new(Body::from(answer)));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, content_type);
    if negotiated.gzip_answer {
        response.headers_mut().insert(CONTENT_ENCODING, GZIP);
    }
    response
}

/// The body's encoding and coding, and whether the answer may be gzipped; 415 for an encoding
/// or coding the server does not speak.
fn negotiate(headers: &http::HeaderMap) -> Result<Negotiated, Refused> {
    let encoding = body_encoding(headers.get(CONTENT_TYPE))
        .map_err(|refusal| Box::new(plain(StatusCode::UNSUPPORTED_MEDIA_TYPE, refusal)))?;
    let gzipped = match headers.get(CONTENT_ENCODING) {
        None => false,
        Some(coding) if coding.as_bytes().trim_ascii().eq_ignore_ascii_case(b"gzip") => true,
        Some(coding) => {
            return Err(Box::new(plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "Content-Encoding {:?} is not supported: gzip is, or none\n",
                    String::from_utf8_lossy(coding.as_bytes())
                ),
            )));
        }
    };
    let gzip_answer = headers
        .get_all(ACCEPT_ENCODING)
        .iter()
        .any(|value| accepts_gzip(value.as_bytes()));
    Ok(Negotiated {
        encoding,
        gzipped,
        gzip_answer,
    })
}

/// The request's head and whole body, within `--max-body` (413) and, over HTTP/2, the body
/// timeout (408); 400 for a body that could not be read.
async fn read_body(
    config: &Config,
    state: &ConnectionState,
    request: Request<Incoming>,
) -> Result<(http::request::Parts, bytes::Bytes), Refused> {
    // A declared length over the limit is refused before a byte of the body is read (and so
    // before hyper sends 100 Continue).
    if request.body().size_hint().lower() > config.max_body as u64 {
        return Err(Box::new(too_large(config)));
    }
    let (parts, body) = request.into_parts();
    let collecting = Limited::new(body, config.max_body).collect();
    // HTTP/2: the connection's watchdog cannot time one stream among many, so each stream's body
    // has its own timer (HTTP/1.1 keeps the watchdog's, which costs no timer a request).
    let collected = match config.body_timeout.filter(|_| state.multiplexed()) {
        Some(limit) => match tokio::time::timeout(limit, collecting).await {
            Ok(collected) => collected,
            Err(_) => {
                return Err(Box::new(plain(
                    StatusCode::REQUEST_TIMEOUT,
                    format!("the request body did not arrive within {limit:?}\n"),
                )));
            }
        },
        None => collecting.await,
    };
    state.body_read();
    match collected {
        Ok(collected) => Ok((parts, collected.to_bytes())),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
            Err(Box::new(too_large(config)))
        }
        Err(error) => {
            let mut response = plain(
                StatusCode::BAD_REQUEST,
                format!("the request body could not be read: {error}\n"),
            );
            response
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
            Err(Box::new(response))
        }
    }
}

/// A gzipped body inflated into `inflated`, under its ratio and `--max-body` (413 past them,
/// 400 if it is not gzip).
fn inflate(config: &Config, body: &[u8], inflated: &mut Vec<u8>) -> Result<(), Refused> {
    match encodings::gzip::inflate(body, inflate_limit(config, body.len()), inflated) {
        Ok(()) => Ok(()),
        Err(error @ encodings::gzip::InflateError::TooLarge { .. }) => {
            // The body was read whole, so the connection can carry another request.
            Err(Box::new(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "{error}: a gzipped body may inflate to {MAX_INFLATE_RATIO} times its size (at least {} KiB), and to --max-body ({} bytes) at most\n",
                    INFLATE_FLOOR / 1024,
                    config.max_body
                ),
            )))
        }
        Err(error) => Err(Box::new(plain(
            StatusCode::BAD_REQUEST,
            format!("{error}\n"),
        ))),
    }
}

/// The SOAP exchange proper: the answer to `body` written into `out` by our binding (called
/// directly), another binding, or an encoding; a fault in its place, with its status and
/// content type.
fn exchange(
    config: &Config,
    encoding: Option<Encoding>,
    headers: &http::HeaderMap,
    body: &[u8],
    out: &mut Vec<u8>,
) -> (StatusCode, HeaderValue) {
    let mut soap_actions = headers.get_all("soapaction").iter();
    let soap_action = soap_actions.next().map(HeaderValue::as_bytes);
    let answered = if soap_actions.any(|other| Some(other.as_bytes()) != soap_action) {
        Err(wstest::Fault::client(
            "the request has two SOAPAction headers that name different actions",
        ))
    } else {
        match (encoding, config.binding) {
            // Ours, called directly: the default path stays free of a virtual call.
            (None, BindingChoice::Streaming) => wstest::respond(soap_action, body, now(), out),
            (None, other) => wstest::respond_with(other.binding(), soap_action, body, now(), out),
            (Some(encoding), _) => {
                encodings::serve::respond(encoding, &AVRO, soap_action, body, now(), out)
            }
        }
    };
    match (answered, encoding) {
        (Ok(_), None) => (StatusCode::OK, TEXT_XML),
        (Ok(_), Some(encoding)) => (
            StatusCode::OK,
            HeaderValue::from_static(encoding.media_type()),
        ),
        (Err(fault), None) => {
            out.clear();
            fault.encode(out);
            (StatusCode::INTERNAL_SERVER_ERROR, TEXT_XML)
        }
        (Err(fault), Some(_)) => {
            out.clear();
            json_error(&fault, out);
            let status = match fault.code {
                wstest::FaultCode::Server => StatusCode::INTERNAL_SERVER_ERROR,
                _ => StatusCode::BAD_REQUEST,
            };
            (status, HeaderValue::from_static("application/json"))
        }
    }
}

/// A fault in an encoding other than XML: `{"fault":"Client","reason":"..."}`.
fn json_error(fault: &wstest::Fault, out: &mut Vec<u8>) {
    let error = serde_json::json!({"fault": fault.code.local_name(), "reason": fault.reason});
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, &error);
    out.push(b'\n');
}

/// Whether an Accept-Encoding value names gzip (or x-gzip) without `q=0`.
fn accepts_gzip(value: &[u8]) -> bool {
    value.split(|&b| b == b',').any(|item| {
        let mut parts = item.split(|&b| b == b';');
        let coding = parts.next().unwrap_or_default().trim_ascii();
        let refused = parts.any(|parameter| {
            let parameter = parameter.trim_ascii();
            parameter.len() >= 2
                && parameter[..2].eq_ignore_ascii_case(b"q=")
                && parameter[2..].iter().all(|&b| b == b'0' || b == b'.')
        });
        (coding.eq_ignore_ascii_case(b"gzip") || coding.eq_ignore_ascii_case(b"x-gzip")) && !refused
    })
}

fn now() -> wstest::DateTime {
    let unix_millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        });
    wstest::DateTime { unix_millis }
}

/// Refuses request shapes that parsers disagree on, which request smuggling lives on (RFC 9112
/// sections 3.2 and 6.1): hyper reads them, but a proxy in front may have read them otherwise.
/// (Transfer-Encoding with Content-Length never reaches here: hyper drops the Content-Length
/// and reads the body as chunked, as the RFC allows.) The connection closes after the refusal, since where the next request starts is
/// in doubt.
fn check_framing(request: &Request<Incoming>) -> Option<Response<Answer>> {
    let headers = request.headers();
    let reason = if request.version() == http::Version::HTTP_11 && !headers.contains_key(HOST) {
        (
            StatusCode::BAD_REQUEST,
            "an HTTP/1.1 request must carry a Host header",
        )
    } else if headers.get_all(TRANSFER_ENCODING).iter().count() > 1
        || headers.get(TRANSFER_ENCODING).is_some_and(|coding| {
            !coding
                .as_bytes()
                .trim_ascii()
                .eq_ignore_ascii_case(b"chunked")
        })
    {
        (
            StatusCode::NOT_IMPLEMENTED,
            "this server reads no transfer coding but chunked",
        )
    } else {
        return None;
    };
    let mut response = plain(reason.0, format!("{}\n", reason.1));
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    Some(response)
}

/// What the body is by its Content-Type: SOAP 1.1 XML (`None`) as text/xml, application/xml
/// (some clients send it) or no type at all; or one of the other encodings. Anything else,
/// SOAP 1.2's application/soap+xml included, is refused.
/// `Err` holds the refusal's text (a 415).
fn body_encoding(value: Option<&HeaderValue>) -> Result<Option<Encoding>, String> {
    let Some(value) = value else {
        return Ok(None);
    };
    let media_type = value
        .as_bytes()
        .split(|&b| b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    if media_type.eq_ignore_ascii_case(b"text/xml")
        || media_type.eq_ignore_ascii_case(b"application/xml")
    {
        return Ok(None);
    }
    if let Some(encoding) = Encoding::of_media_type(media_type) {
        return Ok(Some(encoding));
    }
    let shown = String::from_utf8_lossy(value.as_bytes());
    let hint = if media_type.eq_ignore_ascii_case(b"application/soap+xml") {
        "application/soap+xml is SOAP 1.2; this service speaks SOAP 1.1, which is sent as text/xml"
    } else {
        "SOAP 1.1 requests are sent as text/xml (with ab: -T 'text/xml; charset=utf-8'); application/json, application/msgpack and application/avro carry the same operations"
    };
    Err(format!("Content-Type {shown:?} is not supported: {hint}\n"))
}

fn too_large(config: &Config) -> Response<Answer> {
    let mut response = plain(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "the request body is larger than this server's limit of {} bytes (--max-body)\n",
            config.max_body
        ),
    );
    // The rest of the body is never read, so the connection cannot carry another request.
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

fn wsdl(config: &Config, request: &Request<Incoming>) -> Response<Answer> {
    let address = wsdl_address(config, request);
    let mut response = Response::new(Answer::new(Body::from(
        wstest::wsdl::wsdl(&address).into_bytes(),
    )));
    response.headers_mut().insert(CONTENT_TYPE, TEXT_XML);
    response
}

/// The endpoint a client should call, as it reached this server: the scheme of the connection
/// (https over TLS), the host it asked for, and the path it asked. Behind a proxy that
/// terminates TLS (`--trust-proxy`), the proxy's Forwarded or X-Forwarded-* headers say the
/// scheme and host the client used.
fn wsdl_address(config: &Config, request: &Request<Incoming>) -> String {
    let headers = request.headers();
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
            .filter(|value| !value.is_empty())
    };
    let mut scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let mut host = text(HOST.as_str())
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(|authority| authority.as_str())
        })
        .unwrap_or("localhost:8082");
    if config.trust_proxy {
        // The first hop's values: a proxy appends its own after the client's.
        let forwarded = text("forwarded").map(first_item);
        let parameter = |name: &str| {
            forwarded.and_then(|element| {
                element.split(';').find_map(|pair| {
                    let (key, value) = pair.split_once('=')?;
                    key.trim()
                        .eq_ignore_ascii_case(name)
                        .then(|| value.trim().trim_matches('"'))
                })
            })
        };
        let proto = parameter("proto").or_else(|| text("x-forwarded-proto").map(first_item));
        match proto {
            Some(proto) if proto.eq_ignore_ascii_case("https") => scheme = "https",
            Some(proto) if proto.eq_ignore_ascii_case("http") => scheme = "http",
            _ => {}
        }
        if let Some(forwarded_host) =
            parameter("host").or_else(|| text("x-forwarded-host").map(first_item))
        {
            host = forwarded_host;
        }
    }
    format!("{scheme}://{host}{}", request.uri().path())
}

/// The first of a comma-separated list of values (a proxy appends its own after the client's).
fn first_item(value: &str) -> &str {
    value.split(',').next().unwrap_or(value).trim()
}

fn plain(status: StatusCode, text: String) -> Response<Answer> {
    let mut response = Response::new(Answer::new(Body::from(text.into_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, TEXT_PLAIN);
    response
}
