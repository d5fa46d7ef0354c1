//! `--data FILE`: the rows a template's columns are filled from, read whole before the run:
//! CSV with a header line (RFC 4180 quoting; a UTF-8 byte order mark, as spreadsheets write,
//! is passed over) or JSON lines (`.jsonl`, `.ndjson`: an object a line, strings taken as
//! they are, numbers and booleans as written). The values sit in one buffer with an end
//! offset a field, so a run holds the file's size and four bytes a value.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::TemplateError;

/// The largest data file read: a million rows of a few hundred bytes is well within it.
pub const MAX_DATA_FILE: u64 = 1 << 30;

/// `--data-order`: which row a request takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DataOrder {
    /// Request `seq` takes row `seq mod rows`: every row in turn, round and round.
    #[default]
    Next,
    /// A row drawn for each request from `--seed` and its number.
    Random,
    /// A row a connection, for its whole life: a user's identity.
    Connection,
}

impl DataOrder {
    /// `next`, `random` or `connection`.
    pub fn parse(text: &str) -> Option<DataOrder> {
        match text {
            "next" => Some(DataOrder::Next),
            "random" => Some(DataOrder::Random),
            "connection" => Some(DataOrder::Connection),
            _ => None,
        }
    }
}

/// A data file's columns and rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Data {
    file: String,
    names: Vec<String>,
    /// Every value, row after row.
    values: Vec<u8>,
    /// Where each value ends in `values`, row-major.
    ends: Vec<u32>,
    /// The line each row starts on, for errors about a value.
    lines: Vec<u32>,
}

impl Data {
    /// Reads `path`: JSON lines when its name ends `.jsonl` or `.ndjson`, CSV otherwise.
    pub fn read(path: &Path) -> Result<Data, TemplateError> {
        let file = path.display().to_string();
        let bytes =
            host::file::read_limited(path, MAX_DATA_FILE).map_err(|error| TemplateError {
                place: "--data".into(),
                what: error.to_string(),
            })?;
        let json = path
            .extension()
            .is_some_and(|extension| extension == "jsonl" || extension == "ndjson");
        if json {
            Data::parse_json_lines(&bytes, &file)
        } else {
            Data::parse_csv(&bytes, &file)
        }
    }

    /// Parses CSV `bytes` (named `file` in errors).
    pub fn parse_csv(bytes: &[u8], file: &str) -> Result<Data, TemplateError> {
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let at = |line: u64, what: String| TemplateError {
            place: format!("{file}:{line}"),
            what,
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(bytes);
        let header = reader
            .byte_headers()
            .map_err(|error| at(1, csv_error(&error)))?
            .clone();
        let names = header
            .iter()
            .map(|name| String::from_utf8_lossy(name).trim().to_owned())
            .collect();
        let mut data = Data::new(file, names)?;
        let mut record = csv::ByteRecord::new();
        // The line a record starts on, counted from its byte offset: the reader's own count
        // passes over line breaks inside quotes. The offset may point at the line break
        // before the record, which is passed over.
        let line_at = |position: Option<&csv::Position>| {
            let mut offset = position.map_or(0, |position| position.byte() as usize);
            offset = offset.min(bytes.len());
            while offset < bytes.len() && matches!(bytes[offset], b'\r' | b'\n') {
                offset += 1;
            }
            memchr::memchr_iter(b'\n', &bytes[..offset]).count() as u64 + 1
        };
        loop {
            let start = reader.position().clone();
            match reader.read_byte_record(&mut record) {
                Ok(false) => break,
                Ok(true) => data.push_row(line_at(record.position()), record.iter())?,
                Err(error) => {
                    let line = line_at(error.position().or(Some(&start)));
                    return Err(at(line, csv_error(&error)));
                }
            }
        }
        data.finish()
    }

    /// Parses JSON lines (named `file` in errors): the first object's keys are the columns,
    /// and every line must have the same.
    pub fn parse_json_lines(bytes: &[u8], file: &str) -> Result<Data, TemplateError> {
        let mut data: Option<Data> = None;
        for (index, line) in bytes.split(|&byte| byte == b'\n').enumerate() {
            let number = index as u64 + 1;
            let at = |what: String| TemplateError {
                place: format!("{file}:{number}"),
                what,
            };
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let object: serde_json::Map<String, serde_json::Value> =
                serde_json::from_slice(line)
                    .map_err(|error| at(format!("not a JSON object: {error}")))?;
            let data = match &mut data {
                Some(data) => data,
                None => data.insert(Data::new(file, object.keys().cloned().collect())?),
            };
            if object.len() != data.names.len() {
                return Err(at(format!(
                    "{} keys where the first line has {} ({})",
                    object.len(),
                    data.names.len(),
                    data.names.join(", ")
                )));
            }
            let mut values = Vec::with_capacity(object.len());
            for name in &data.names {
                let value = object
                    .get(name)
                    .ok_or_else(|| at(format!("no key {name:?}, which the first line has")))?;
                values.push(match value {
                    serde_json::Value::String(text) => text.clone(),
                    serde_json::Value::Null => String::new(),
                    serde_json::Value::Bool(_) | serde_json::Value::Number(_) => value.to_string(),
                    serde_json::Value::Array(_) | serde_json::Value::Object(_) => {
                        return Err(at(format!(
                            "the value of {name:?} is an array or an object: a value is a string, a number or a boolean"
                        )));
                    }
                });
            }
            data.push_row(number, values.iter().map(String::as_bytes))?;
        }
        data.ok_or_else(|| TemplateError {
            place: file.to_owned(),
            what: "no rows: a data file needs at least one".into(),
        })?
        .finish()
    }

    fn new(file: &str, names: Vec<String>) -> Result<Data, TemplateError> {
        let at = |what: String| TemplateError {
            place: format!("{file}:1"),
            what,
        };
        for (index, name) in names.iter().enumerate() {
            if name.is_empty() {
                return Err(at(format!("column {} has no name", index + 1)));
            }
            if names[..index].contains(name) {
                return Err(at(format!("two columns are named {name:?}")));
            }
        }
        Ok(Data {
            file: file.to_owned(),
            names,
            values: Vec::new(),
            ends: Vec::new(),
            lines: Vec::new(),
        })
    }

    fn push_row<'a>(
        &mut self,
        line: u64,
        values: impl Iterator<Item = &'a [u8]>,
    ) -> Result<(), TemplateError> {
        let at = |what: String| TemplateError {
            place: format!("{}:{line}", self.file),
            what,
        };
        let before = self.ends.len();
        for value in values {
            self.values.extend_from_slice(value);
            let end = u32::try_from(self.values.len())
                .map_err(|_| at("the values add up to more than 4 GiB".into()))?;
            self.ends.push(end);
        }
        let found = self.ends.len() - before;
        if found != self.names.len() {
            return Err(at(format!(
                "{found} fields where the header has {}",
                self.names.len()
            )));
        }
        self.lines.push(u32::try_from(line).unwrap_or(u32::MAX));
        Ok(())
    }

    fn finish(mut self) -> Result<Data, TemplateError> {
        if self.lines.is_empty() {
            return Err(TemplateError {
                place: self.file,
                what: "no rows: a data file needs at least one after its header".into(),
            });
        }
        self.values.shrink_to_fit();
        self.ends.shrink_to_fit();
        Ok(self)
    }

    /// The file's name as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The columns' names, in the file's order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|column| column == name)
    }

    pub fn n_rows(&self) -> usize {
        self.lines.len()
    }

    /// The value of `column` in `row`.
    pub fn value(&self, row: usize, column: usize) -> &[u8] {
        let index = row * self.names.len() + column;
        let start = match index {
            0 => 0,
            _ => self.ends[index - 1] as usize,
        };
        &self.values[start..self.ends[index] as usize]
    }

    /// `file:line` of `row`, for errors about its values.
    pub fn place_of_row(&self, row: usize) -> String {
        format!("{}:{}", self.file, self.lines[row])
    }

    /// The bytes the data holds in memory.
    pub fn heap_bytes(&self) -> usize {
        self.values.capacity() + 4 * (self.ends.capacity() + self.lines.capacity())
    }
}

/// A CSV error without its position (the caller names the line).
fn csv_error(error: &csv::Error) -> String {
    match error.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields where the header has {expected_len}"),
        csv::ErrorKind::Utf8 { err, .. } => format!("not UTF-8: {err}"),
        _ => error.to_string(),
    }
}
