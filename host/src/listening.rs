//! The line each server of the workspace prints on stderr once its socket takes connections,
//! `NAME listening on URL`, with anything after a space left to the server (wstest-server adds
//! its threads and an ab command); and the one reader of it, for the suite, xtask and the tests.
//! URL is `http://HOST:PORT/PATH`, `https://...`, or a bare `HOST:PORT` for a service that
//! speaks no HTTP (wsperf's relay, xtask's delay line). The stacks under scripts/stacks print
//! the same words, and `scripts/lib.sh` reads them with sed.

use std::fmt::Display;

const MARK: &str = "listening on ";

/// `NAME listening on URL`.
pub fn line(name: &str, url: impl Display) -> String {
    format!("{name} {MARK}{url}")
}

/// What a listening line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listening<'a> {
    /// What comes before `listening on` (a server's name, a stack's longer words, or nothing).
    pub name: &'a str,
    /// The URL or address, up to the first space, `;` or `,`.
    pub url: &'a str,
}

impl<'a> Listening<'a> {
    /// The name and URL of a listening line, `None` for any other line.
    pub fn parse(line: &'a str) -> Option<Listening<'a>> {
        // At the start of the line, or after a space (a stack's own words before it).
        let at = if line.starts_with(MARK) {
            0
        } else {
            line.find(&format!(" {MARK}"))? + 1
        };
        let rest = &line[at + MARK.len()..];
        let end = rest
            .find(|c: char| c.is_whitespace() || c == ';' || c == ',')
            .unwrap_or(rest.len());
        let url = &rest[..end];
        (!url.is_empty()).then(|| Listening {
            name: line[..at].trim(),
            url,
        })
    }

    /// `HOST:PORT` of the URL.
    pub fn addr(&self) -> &'a str {
        let rest = self
            .url
            .split_once("://")
            .map_or(self.url, |(_, rest)| rest);
        rest.split('/').next().unwrap_or(rest)
    }

    /// Whether the URL is `http://` or `https://`.
    pub fn is_http(&self) -> bool {
        self.url.starts_with("http://") || self.url.starts_with("https://")
    }
}
