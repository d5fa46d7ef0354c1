//! Where a document is, and where the documents it imports are: relative to it, and never
//! outside the location given (a file's folder, or a URL's scheme, host and port), so that
//! reading a WSDL cannot be made to read the rest of a machine or another host.

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

    /// The location `reference` (an import's `location` or `schemaLocation`) names, read
    /// from this document, when it stays within `root` (the location first given).
    pub(crate) fn join(&self, reference: &str, root: &Location) -> Result<Location, WsdlError> {
        let outside = || WsdlError::Outside {
            reference: reference.to_owned(),
            root: root.to_string(),
        };
        let has_scheme = reference.contains("://");
        match self {
            Location::File(path) => {
                if has_scheme || reference.starts_with('/') {
                    return Err(outside());
                }
                let base = path.parent().unwrap_or(Path::new(""));
                let joined = normalise(&base.join(reference)).ok_or_else(outside)?;
                let Location::File(root_path) = root else {
                    return Err(outside());
                };
                let root_dir =
                    normalise(root_path.parent().unwrap_or(Path::new(""))).ok_or_else(outside)?;
                if !joined.starts_with(&root_dir) {
                    return Err(outside());
                }
                Ok(Location::File(joined))
            }
            Location::Url(url) => {
                let joined = if has_scheme {
                    reference.to_owned()
                } else if reference.starts_with('/') {
                    format!("{}{reference}", origin(url))
                } else if let Some(query) = reference.strip_prefix('?') {
                    // `?xsd=1`, as JAX-WS names its schemas: the same path, another query.
                    format!("{}?{query}", url.split('?').next().unwrap_or(url))
                } else {
                    let path = url.split('?').next().unwrap_or(url);
                    let dir = &path[..path.rfind('/').map_or(path.len(), |at| at + 1)];
                    format!("{dir}{reference}")
                };
                let Location::Url(root_url) = root else {
                    return Err(outside());
                };
                if origin(&joined) != origin(root_url) || joined.contains("/../") {
                    return Err(outside());
                }
                Ok(Location::Url(joined))
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
        .find(['/', '?'])
        .map_or(url.len(), |at| after_scheme + at);
    &url[..end]
}

/// `path` without `.` and with each `..` taken off the part before it; `None` when a `..` would
/// climb above the path's start.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}
