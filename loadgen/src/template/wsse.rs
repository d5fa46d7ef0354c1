//! `{{wsse-username-token USER PASSWORD [digest|text]}}`: a WS-Security header (OASIS Web
//! Services Security UsernameToken Profile 1.1) written afresh for each request: a
//! `wsu:Timestamp` (Created, and Expires five minutes on), and a `wsse:UsernameToken` with a
//! nonce of 16 bytes never repeated in the run (drawn from the request's number and the run's
//! fresh key, through a bijection), its `wsu:Created`, and the password as
//! `Base64(SHA-1(nonce + created + password))` (PasswordDigest, the default) or as it is
//! (PasswordText). USER and PASSWORD are literal words or `@COLUMN`, a column of `--data`.

use base64::Engine as _;
use sha1::Digest as _;

use super::data::{Data, Fields};
use super::function::{DATE_TIME_LEN, Keys, draw, write_date_time};

const WSSE: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
const WSU: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
const PROFILE: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0";
const BASE64_BINARY: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary";
/// How long the timestamp says the message is good for.
const EXPIRES_AFTER_MS: i64 = 5 * 60 * 1000;

/// A user name or password: as written, or a column's value.
#[derive(Debug, Clone, PartialEq)]
enum Argument {
    Literal(Box<[u8]>),
    Column(usize),
}

/// The header's settings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UsernameToken {
    user: Argument,
    password: Argument,
    digest: bool,
}

impl UsernameToken {
    /// `USER PASSWORD [digest|text]`, `@COLUMN` naming a column of `data`.
    pub(crate) fn parse(arguments: &str, data: Option<&Data>) -> Result<UsernameToken, String> {
        let usage = || {
            format!(
                "{{{{wsse-username-token {arguments}}}}}: expected {{{{wsse-username-token USER PASSWORD [digest|text]}}}}, USER and PASSWORD a word or @COLUMN"
            )
        };
        let words: Vec<&str> = arguments.split_whitespace().collect();
        let (user, password, digest) = match words.as_slice() {
            [user, password] => (*user, *password, true),
            [user, password, "digest"] => (*user, *password, true),
            [user, password, "text"] => (*user, *password, false),
            _ => return Err(usage()),
        };
        let argument = |word: &str| match word.strip_prefix('@') {
            Some(name) => data
                .and_then(|data| data.column(name))
                .map(Argument::Column)
                .ok_or_else(|| {
                    format!("{{{{wsse-username-token}}}}: @{name} is not a column of --data")
                }),
            None => Ok(Argument::Literal(word.as_bytes().into())),
        };
        Ok(UsernameToken {
            user: argument(user)?,
            password: argument(password)?,
            digest,
        })
    }

    /// Writes the header for request `seq` at placeholder `slot`; `fields` is the request's
    /// row when there is data.
    pub(crate) fn write(
        &self,
        (seq, slot): (u64, u64),
        keys: Keys,
        fields: Option<&Fields<'_>>,
        out: &mut Vec<u8>,
    ) {
        let (user, password) = (value(&self.user, fields), value(&self.password, fields));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_millis() as i64);
        let mut nonce = [0u8; 16];
        nonce[..8].copy_from_slice(&draw(keys.run, seq, slot).to_be_bytes());
        nonce[8..].copy_from_slice(&draw(!keys.run, seq, slot).to_be_bytes());
        let base64 = &base64::engine::general_purpose::STANDARD;
        out.extend_from_slice(b"<wsse:Security xmlns:wsse=\"");
        out.extend_from_slice(WSSE.as_bytes());
        out.extend_from_slice(b"\" xmlns:wsu=\"");
        out.extend_from_slice(WSU.as_bytes());
        out.extend_from_slice(b"\"><wsu:Timestamp><wsu:Created>");
        // Written once here, and copied where the token and the digest take it again.
        let created = out.len()..out.len() + DATE_TIME_LEN;
        write_date_time(now, out);
        let created: [u8; DATE_TIME_LEN] = out[created].try_into().unwrap_or([b'0'; DATE_TIME_LEN]);
        out.extend_from_slice(b"</wsu:Created><wsu:Expires>");
        write_date_time(now.saturating_add(EXPIRES_AFTER_MS), out);
        out.extend_from_slice(b"</wsu:Expires></wsu:Timestamp><wsse:UsernameToken><wsse:Username>");
        super::escape_xml(user, out);
        out.extend_from_slice(b"</wsse:Username><wsse:Password Type=\"");
        out.extend_from_slice(PROFILE.as_bytes());
        let mut encoded = [0u8; 28];
        if self.digest {
            out.extend_from_slice(b"#PasswordDigest\">");
            let mut sha1 = sha1::Sha1::new();
            sha1.update(nonce);
            sha1.update(created);
            sha1.update(password);
            let n = base64
                .encode_slice(sha1.finalize(), &mut encoded)
                .unwrap_or(0);
            out.extend_from_slice(&encoded[..n]);
        } else {
            out.extend_from_slice(b"#PasswordText\">");
            super::escape_xml(password, out);
        }
        out.extend_from_slice(b"</wsse:Password><wsse:Nonce EncodingType=\"");
        out.extend_from_slice(BASE64_BINARY.as_bytes());
        out.extend_from_slice(b"\">");
        let n = base64.encode_slice(nonce, &mut encoded).unwrap_or(0);
        out.extend_from_slice(&encoded[..n]);
        out.extend_from_slice(b"</wsse:Nonce><wsu:Created>");
        out.extend_from_slice(&created);
        out.extend_from_slice(b"</wsu:Created></wsse:UsernameToken></wsse:Security>");
    }
}

/// A user name or password for the request whose row is `fields`.
fn value<'a>(argument: &'a Argument, fields: Option<&Fields<'a>>) -> &'a [u8] {
    match (argument, fields) {
        (Argument::Literal(bytes), _) => bytes,
        (Argument::Column(column), Some(fields)) => fields.get(*column),
        (Argument::Column(_), None) => b"",
    }
}
