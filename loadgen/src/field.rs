//! What may go on the wire in a request's head: a header field's name and value, and a request
//! target. Checked where a value is read (the command line, a mix file, a manifest) and again
//! where a request is built, so that no file or option puts a byte of its own on the wire. A
//! leaf: it uses no other module.

/// Why a header field cannot go on the wire as written: a name that is not an HTTP token, or a
/// value holding a control character other than a tab (CR, LF and NUL among them), which would
/// end the line and let the rest pass for fields of its own.
pub(crate) fn check_field(name: &str, value: &str) -> Result<(), String> {
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(token) {
        return Err(format!(
            "the header name {name:?} is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"
        ));
    }
    if let Some(bad) = value
        .chars()
        .find(|ch| ch.is_ascii_control() && *ch != '\t')
    {
        return Err(format!(
            "the value of the header {name} holds {bad:?}, which a header cannot carry"
        ));
    }
    Ok(())
}

/// [`check_field`] on a `Name: value` line.
pub(crate) fn check_header_line(line: &str) -> Result<(), String> {
    let (name, value) = line
        .split_once(':')
        .ok_or_else(|| format!("the header {line:?} is not Name: value"))?;
    check_field(name, value)
}

/// Why a request target cannot go on the wire as written: a space or a control character would
/// end the request line early or begin another.
pub(crate) fn check_target(path: &str) -> Result<(), String> {
    match path
        .chars()
        .find(|ch| ch.is_whitespace() || ch.is_control())
    {
        Some(bad) => Err(format!(
            "the path {path:?} holds {bad:?}: percent-encode it (%20 for a space)"
        )),
        None => Ok(()),
    }
}
