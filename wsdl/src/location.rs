//! Where a document is, and where the documents it imports are. A file's relative imports are
//! followed wherever they lead on the file system, as xmllint, zeep and soapUI follow them
//! (ONVIF's WSDLs import `../../../ver10/schema/onvif.xsd`); an absolute path or a `file:`
//! URL is not. A URL's imports are followed on its own scheme, host and port (WCF names its
//! schemas `?xsd=xsd0` there), and on another host only when the user names it
//! (`--allow-host`); a file's `http://` imports likewise only on a host named. Nothing else is
//! ever read: no other scheme, no other host.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use crate::WsdlError;

/// A document's location: a file, or an `http://` or `https://` URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Location {
    File(PathBuf),
    Url(String),
}

impl Location {
    /// `text` as given on the command line: a URL when it starts with a scheme, else a file.
    pub fn parse(text: &str) -> Location {
        if text.starts_with("http://") || text.starts_with("https://") {
            Location::Url(text.to_owned())
        } else {
            Location::File(PathBuf::from(text))
        }
    }

    /// The location `reference` (an import's `location` or `schemaLocation`) names, read from
    /// this document, when the rules above let it be read: `root` is the location first given,
    /// `allowed` the other hosts the user named.
    pub(crate) fn join(
        &self,
        reference: &str,
        root: &Location,
        allowed: &[String],
    ) -> Result<Location, WsdlError> {
        let outside = |why: &str| WsdlError::Outside {
            reference: reference.to_owned(),
            root: root.to_string(),
            why: why.to_owned(),
        };
        let lower = reference.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            let same_origin = matches!(root, Location::Url(url) if origin(url).eq_ignore_ascii_case(origin(reference)));
            let host = host_of(reference);
            if !same_origin && !allowed.iter().any(|name| name.eq_ignore_ascii_case(host)) {
                return Err(outside(&format!(
                    "another host is read only when named (--allow-host {host})"
                )));
            }
            return Ok(Location::Url(normalise_url(reference)));
        }
        if reference.contains("://") || lower.starts_with("file:") {
            return Err(outside("only http:// and https:// are fetched"));
        }
        match self {
            Location::File(path) => {
                if reference.starts_with('/') || reference.starts_with('\\') {
                    return Err(outside(
                        "an absolute path is not followed; a relative one is",
                    ));
                }
                let base = path.parent().unwrap_or(Path::new(""));
                Ok(Location::File(normalise(&base.join(reference))))
            }
            Location::Url(url) => {
                let joined = if reference.starts_with('/') {
                    format!("{}{reference}", origin(url))
                } else if let Some(query) = reference.strip_prefix('?') {
                    // `?xsd=1`, as JAX-WS names its schemas: the same path, another query.
                    format!("{}?{query}", url.split('?').next().unwrap_or(url))
                } else {
                    let path = url.split('?').next().unwrap_or(url);
                    let dir = &path[..path.rfind('/').map_or(path.len(), |at| at + 1)];
                    format!("{dir}{reference}")
                };
                Ok(Location::Url(normalise_url(&joined)))
            }
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Url(url) => f.write_str(url),
        }
    }
}

/// `https://host:port` of a URL.
fn origin(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    let end = url[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |at| after_scheme + at);
    &url[..end]
}

/// The host of a URL, without its port, user or brackets.
fn host_of(url: &str) -> &str {
    let authority = &origin(url)[url.find("://").map_or(0, |at| at + 3)..];
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    authority.split(':').next().unwrap_or(authority)
}

/// A URL's path with `.` and `..` taken out (`..` never above the root), so that one document
/// has one spelling and is read once.
fn normalise_url(url: &str) -> String {
    let base = origin(url);
    let rest = &url[base.len()..];
    let (path, query) = match rest.find(['?', '#']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/').skip(1) {
        match part {
            "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let ends_with_dir = path.ends_with("/.") || path.ends_with("/..");
    let mut out = format!("{base}/{}", parts.join("/"));
    if ends_with_dir && !out.ends_with('/') {
        out.push('/');
    }
    out.push_str(query);
    out
}

/// `path` without `.` and with each `..` taken off the part before it; a `..` that climbs
/// above a relative path's start is kept (`../x.xsd`), one above the root dropped.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let climbs = matches!(
                    out.components().next_back(),
                    None | Some(Component::ParentDir)
                );
                if climbs {
                    if !out.has_root() {
                        out.push("..");
                    }
                } else {
                    out.pop();
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_followed_by_the_rules() {
        let file = Location::File(PathBuf::from("onvif/ver20/ptz/wsdl/ptz.wsdl"));
        let url = Location::Url("http://svc:8080/Service.svc?wsdl".to_owned());
        let allowed = ["schemas.example.com".to_owned()];
        let cases: &[(&Location, &str, Result<&str, &str>)] = &[
            (
                &file,
                "../../../ver10/schema/onvif.xsd",
                Ok("onvif/ver10/schema/onvif.xsd"),
            ),
            (&file, "../../../../../common.xsd", Ok("../common.xsd")),
            (&file, "./types.xsd", Ok("onvif/ver20/ptz/wsdl/types.xsd")),
            (
                &file,
                "/etc/passwd",
                Err("an absolute path is not followed"),
            ),
            (
                &file,
                "file:///etc/passwd",
                Err("only http:// and https://"),
            ),
            (&file, "ftp://svc/x.xsd", Err("only http:// and https://")),
            (
                &file,
                "http://svc:8080/Service.svc?xsd=xsd0",
                Err("--allow-host svc"),
            ),
            (
                &file,
                "http://schemas.example.com/a/../b.xsd",
                Ok("http://schemas.example.com/b.xsd"),
            ),
            (
                &url,
                "?xsd=xsd0",
                Ok("http://svc:8080/Service.svc?xsd=xsd0"),
            ),
            (
                &url,
                "http://svc:8080/Service.svc?xsd=xsd1",
                Ok("http://svc:8080/Service.svc?xsd=xsd1"),
            ),
            (&url, "HTTP://SVC:8080/x.xsd", Ok("HTTP://SVC:8080/x.xsd")),
            (&url, "../../../x.xsd", Ok("http://svc:8080/x.xsd")),
            (&url, "/schemas/a.xsd", Ok("http://svc:8080/schemas/a.xsd")),
            (&url, "http://svc:9090/x.xsd", Err("--allow-host svc")),
            (&url, "http://evil@svc:8080/x.xsd", Err("--allow-host svc")),
            (&url, "http://svc:8080@evil/x.xsd", Err("--allow-host evil")),
            (
                &url,
                "http://169.254.169.254/latest",
                Err("--allow-host 169.254.169.254"),
            ),
        ];
        for (from, reference, want) in cases {
            let root = *from;
            match (from.join(reference, root, &allowed), want) {
                (Ok(got), Ok(want)) => assert_eq!(got.to_string(), *want, "{reference}"),
                (Err(error), Err(want)) => {
                    assert!(error.to_string().contains(want), "{reference}: {error}");
                }
                (got, want) => panic!("{reference}: {got:?}, wanted {want:?}"),
            }
        }
    }
}
