//! The request bytes, serialised once before the run and sent unchanged for every request, or
//! (`--template`) the same request as templates rendered for each.
//! `--http1.0` gives exactly ab's bytes (header order included); the default is the same
//! request as HTTP/1.1, where keep-alive is the default and `Connection: close` asks for the
//! opposite.

use base64::Engine as _;

use crate::options::{RequestOptions, Target};
use crate::template::{Position, RequestTemplate, Scope, Template, TemplateError};

/// ab's User-Agent, sent with `--http1.0` so that the server sees exactly ab's request.
const AB_USER_AGENT: &str = "ApacheBench/2.3";
const USER_AGENT: &str = concat!("loadgen/", env!("CARGO_PKG_VERSION"));

/// The request of a run.
#[derive(Debug, Clone)]
pub struct Request {
    /// Head and body, ready to write.
    pub bytes: Vec<u8>,
    /// The head alone, for `-v 2`.
    pub head_len: usize,
    /// Whether the response will have no body (HEAD).
    pub head_method: bool,
}

/// Builds the request that `request` describes to `target`, with `body` from `-p`/`-u`; every
/// field and the path checked again here, whatever read them.
pub(crate) fn build(
    target: &Target,
    request: &RequestOptions,
    body: Option<&[u8]>,
) -> Result<Request, String> {
    let content_length = body.map(|body| body.len().to_string());
    let mut bytes = head(target, request, content_length.as_deref())?.into_bytes();
    let head_len = bytes.len();
    if let Some(body) = body {
        bytes.extend_from_slice(body);
    }
    Ok(Request {
        bytes,
        head_len,
        head_method: request.method == http::Method::HEAD,
    })
}

/// What a head template's errors are placed in, before they name its line's field.
const HEAD: &str = "the request's head";

/// The request as templates (`--template`): the head as [`build`] writes it, its
/// Content-length the rendered body's, and the body. The body's errors name `body_source`;
/// placeholders take `scope`'s names.
pub(crate) fn build_template(
    target: &Target,
    request: &RequestOptions,
    body: Option<&[u8]>,
    body_source: &str,
    scope: Scope<'_>,
) -> Result<RequestTemplate, TemplateError> {
    let length = body.map(|_| "{{content-length}}");
    let head = head(target, request, length).map_err(|what| TemplateError {
        place: "the request's head".into(),
        what,
    })?;
    let head = Template::parse(head.as_bytes(), HEAD, scope, Position::Head).map_err(|error| {
        // Named by what the user wrote: the URL's path, or a header.
        let line = error
            .place
            .strip_prefix(HEAD)
            .and_then(|at| at.trim_start_matches(':').parse::<usize>().ok());
        let place = match line.and_then(|line| head.lines().nth(line - 1)) {
            Some(text) if line == Some(1) => format!("the request line {text:?}"),
            Some(text) => format!("the header {}", text.split(':').next().unwrap_or(text)),
            None => error.place,
        };
        TemplateError {
            place,
            what: error.what,
        }
    })?;
    let body = Template::parse(body.unwrap_or_default(), body_source, scope, Position::Body)?;
    if let Some(data) = scope.data {
        head.check_head_values(data)?;
    }
    Ok(RequestTemplate { head, body })
}

/// The head of the request (request line, fields, blank line), its Content-length
/// `content_length` when there is a body.
fn head(
    target: &Target,
    request: &RequestOptions,
    content_length: Option<&str>,
) -> Result<String, String> {
    let url = &target.url;
    crate::field::check_target(&url.path)?;
    let mut head = String::with_capacity(256);
    let uri = match &target.proxy {
        Some(_) => format!("http://{}{}", url.host_field(), url.path),
        None => url.path.clone(),
    };
    let version = if request.http10 { "1.0" } else { "1.1" };
    head.push_str(&format!("{} {uri} HTTP/{version}\r\n", request.method));
    match (request.keep_alive, request.http10) {
        (true, true) => head.push_str("Connection: Keep-Alive\r\n"),
        (false, false) => head.push_str("Connection: close\r\n"),
        _ => {}
    }
    for (name, value) in fields(target, request, content_length) {
        crate::field::check_field(&name, &value)?;
        head.push_str(&format!("{name}:{value}\r\n"));
    }
    head.push_str("\r\n");
    Ok(head)
}

/// The same request for HTTP/2, as HPACK blocks encoded once: `:authority` from the Host
/// field, the other fields but those HTTP/2 forbids (RFC 9113 8.2.2), names in lower case. The
/// error names a field HTTP/2 cannot carry.
pub(crate) fn build_h2(
    target: &Target,
    request: &RequestOptions,
    body: Option<&[u8]>,
) -> Result<crate::http2::hpack::Blocks, String> {
    let url = &target.url;
    let mut authority = url.host_field();
    let mut regular = Vec::new();
    let content_length = body.map(|body| body.len().to_string());
    for (name, value) in fields(target, request, content_length.as_deref()) {
        let value = value.trim().to_owned();
        match name.trim().to_ascii_lowercase().as_str() {
            "host" => authority = value,
            "connection" | "keep-alive" | "proxy-connection" | "transfer-encoding" | "upgrade" => {}
            lower => {
                // The http crate's rules for a field's name and value: what HTTP/2 may carry.
                http::HeaderName::from_bytes(lower.as_bytes())
                    .map_err(|_| format!("the request cannot be sent over HTTP/2: the field name {lower:?} is invalid"))?;
                http::HeaderValue::from_str(&value).map_err(|_| {
                    format!(
                        "the request cannot be sent over HTTP/2: the value of {lower} is invalid"
                    )
                })?;
                regular.push((lower.to_owned(), value));
            }
        }
    }
    let path = if url.path.is_empty() {
        "/"
    } else {
        url.path.as_str()
    };
    let pseudo = [
        (":method", request.method.as_str()),
        (":scheme", url.scheme.as_str()),
        (":authority", authority.as_str()),
        (":path", path),
    ];
    let regular = regular
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()));
    Ok(crate::http2::hpack::encode_request(
        pseudo.into_iter().chain(regular),
    ))
}

/// The header fields of a request, in ab's order, each value as it goes after the colon; the
/// body's fields when it has a body of `content_length`.
fn fields(
    target: &Target,
    request: &RequestOptions,
    content_length: Option<&str>,
) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    let mut field = |name: &str, value: String| fields.push((name.to_owned(), value));
    if let Some(cookie) = &request.cookie {
        field("Cookie", format!(" {cookie}"));
    }
    let basic = |credentials: &str| base64::engine::general_purpose::STANDARD.encode(credentials);
    if let Some(credentials) = &request.basic_auth {
        field("Authorization", format!(" Basic {}", basic(credentials)));
    }
    if let Some(credentials) = &request.proxy_auth {
        field(
            "Proxy-Authorization",
            format!(" Basic {}", basic(credentials)),
        );
    }
    if let Some(length) = content_length {
        // ab's spelling, lower-case l and t.
        field("Content-length", format!(" {length}"));
        field("Content-type", format!(" {}", request.content_type));
    }
    let overridden = |name: &str| {
        request
            .headers
            .iter()
            .any(|header| header.name.eq_ignore_ascii_case(name))
    };
    let (host, agent, accept) = (
        overridden("Host"),
        overridden("User-Agent"),
        overridden("Accept"),
    );
    for header in &request.headers {
        field(&header.name, header.raw_value.clone());
    }
    if !host {
        field("Host", format!(" {}", target.url.host_field()));
    }
    if !agent {
        let agent = if request.http10 {
            AB_USER_AGENT
        } else {
            USER_AGENT
        };
        field("User-Agent", format!(" {agent}"));
    }
    if !accept {
        field("Accept", " */*".to_owned());
    }
    fields
}
