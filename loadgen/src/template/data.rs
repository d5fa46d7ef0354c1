//! `--data FILE`: the rows a template's columns are filled from, read before the run: CSV
//! with a header line (RFC 4180 quoting; a UTF-8 byte order mark, as spreadsheets write, is
//! passed over) or JSON lines (`.jsonl`, `.ndjson`: an object a line, strings taken as they
//! are, numbers and booleans as written). The file is streamed, and the values kept in one
//! buffer, each ended by a NUL, with the start of every sixteenth row: a run holds about the
//! file's own size.

use std::io::{BufRead, Read};
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

/// Every how many rows the start of one is kept: a row is found from the last kept start by
/// skipping at most this many less one rows' separators with `memchr`, some tens of
/// nanoseconds, where a start for every row would cost four bytes a row, more than the
/// separators the file itself spends on it.
const ROW_STRIDE: usize = 16;

/// A data file's columns and rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Data {
    file: String,
    names: Vec<String>,
    /// Every value followed by a NUL (which no value may hold), row after row: as many
    /// bytes as the file's values and separators.
    values: Vec<u8>,
    /// Where every [`ROW_STRIDE`]-th row starts in `values`.
    starts: Vec<u32>,
    n_rows: usize,
    json: bool,
}

impl Data {
    /// Reads `path`: JSON lines when its name ends `.jsonl` or `.ndjson`, CSV otherwise. The
    /// file is streamed: only the values stay.
    pub fn read(path: &Path) -> Result<Data, TemplateError> {
        let file = path.display().to_string();
        let reader =
            host::file::stream_limited(path, MAX_DATA_FILE).map_err(|error| TemplateError {
                place: "--data".into(),
                what: error.to_string(),
            })?;
        let json = path
            .extension()
            .is_some_and(|extension| extension == "jsonl" || extension == "ndjson");
        let parsed = if json {
            Data::parse_json_lines(std::io::BufReader::new(reader), &file)
        } else {
            Data::parse_csv(reader, &file)
        };
        // The reading's own line numbers are of records; the file read again names the line.
        parsed.map_err(|error| match error {
            Failure::Record(record, what) => TemplateError {
                place: format!("{file}:{}", line_of_record(path, json, record)),
                what,
            },
            Failure::Whole(error) => error,
        })
    }

    /// Parses CSV `bytes` (named `file` in errors, which name the record, not the line).
    pub fn from_csv(bytes: &[u8], file: &str) -> Result<Data, TemplateError> {
        Data::parse_csv(bytes, file).map_err(TemplateError::from)
    }

    /// Parses JSON lines `bytes` (named `file` in errors, which name the record).
    pub fn from_json_lines(bytes: &[u8], file: &str) -> Result<Data, TemplateError> {
        Data::parse_json_lines(bytes, file).map_err(TemplateError::from)
    }

    /// Parses CSV (named `file` in errors); errors name the record (0 the header).
    pub(crate) fn parse_csv(reader: impl Read, file: &str) -> Result<Data, Failure> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(reader);
        let header = reader
            .byte_headers()
            .map_err(|error| Failure::Record(0, csv_error(&error)))?
            .clone();
        let names = header
            .iter()
            .map(|name| {
                let name = name.strip_prefix(b"\xef\xbb\xbf").unwrap_or(name);
                String::from_utf8_lossy(name).trim().to_owned()
            })
            .collect();
        let mut data = Data::new(file, names, false)?;
        let mut record = csv::ByteRecord::new();
        loop {
            let number = data.n_rows as u64 + 1;
            match reader.read_byte_record(&mut record) {
                Ok(false) => break,
                Ok(true) => data.push_row(number, record.iter())?,
                Err(error) => return Err(Failure::Record(number, csv_error(&error))),
            }
        }
        data.finish()
    }

    /// Parses JSON lines (named `file` in errors): the first object's keys are the columns,
    /// and every line must have the same. Errors name the record (from 1).
    pub(crate) fn parse_json_lines(mut reader: impl BufRead, file: &str) -> Result<Data, Failure> {
        let mut data: Option<Data> = None;
        let mut line = Vec::new();
        let mut number = 0;
        loop {
            line.clear();
            let read = reader.read_until(b'\n', &mut line).map_err(|error| {
                Failure::Whole(TemplateError {
                    place: file.to_owned(),
                    what: error.to_string(),
                })
            })?;
            if read == 0 {
                break;
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            number += 1;
            let at = |what: String| Failure::Record(number, what);
            let object: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&line)
                .map_err(|error| at(format!("not a JSON object: {error}")))?;
            let data = match &mut data {
                Some(data) => data,
                None => data.insert(Data::new(file, object.keys().cloned().collect(), true)?),
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
        data.ok_or_else(|| {
            Failure::Whole(TemplateError {
                place: file.to_owned(),
                what: "no rows: a data file needs at least one".into(),
            })
        })?
        .finish()
    }

    fn new(file: &str, names: Vec<String>, json: bool) -> Result<Data, Failure> {
        for (index, name) in names.iter().enumerate() {
            if name.is_empty() {
                return Err(Failure::Record(
                    0,
                    format!("column {} has no name", index + 1),
                ));
            }
            if names[..index].contains(name) {
                return Err(Failure::Record(
                    0,
                    format!("two columns are named {name:?}"),
                ));
            }
        }
        Ok(Data {
            file: file.to_owned(),
            names,
            values: Vec::new(),
            starts: Vec::new(),
            n_rows: 0,
            json,
        })
    }

    /// Adds record `number`'s values as a row.
    fn push_row<'a>(
        &mut self,
        number: u64,
        values: impl Iterator<Item = &'a [u8]>,
    ) -> Result<(), Failure> {
        let at = |what: String| Failure::Record(number, what);
        let start = self.values.len();
        if self.n_rows.is_multiple_of(ROW_STRIDE) {
            let start = u32::try_from(start)
                .map_err(|_| at("the values add up to more than 4 GiB".into()))?;
            self.starts.push(start);
        }
        let mut found = 0;
        for value in values {
            if memchr::memchr(0, value).is_some() {
                let name = self.names.get(found).map_or("?", String::as_str);
                return Err(at(format!(
                    "the value of {name} holds a NUL byte, which no value may"
                )));
            }
            self.values.extend_from_slice(value);
            self.values.push(0);
            found += 1;
        }
        if found != self.names.len() {
            return Err(at(format!(
                "{found} fields where the header has {}",
                self.names.len()
            )));
        }
        self.n_rows += 1;
        Ok(())
    }

    fn finish(mut self) -> Result<Data, Failure> {
        if self.n_rows == 0 {
            return Err(Failure::Whole(TemplateError {
                place: self.file,
                what: "no rows: a data file needs at least one after its header".into(),
            }));
        }
        self.values.shrink_to_fit();
        self.starts.shrink_to_fit();
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
        self.n_rows
    }

    /// Row `row`: its values, each followed by a NUL.
    pub(crate) fn row(&self, row: usize) -> &[u8] {
        let mut start = self.starts[row / ROW_STRIDE] as usize;
        let skip = (row % ROW_STRIDE) * self.names.len();
        if skip > 0 {
            start += memchr::memchr_iter(0, &self.values[start..])
                .nth(skip - 1)
                .map_or(0, |at| at + 1);
        }
        let end = memchr::memchr_iter(0, &self.values[start..])
            .nth(self.names.len() - 1)
            .map_or(self.values.len(), |at| start + at + 1);
        &self.values[start..end]
    }

    /// The value of `column` in `row`.
    pub fn value(&self, row: usize, column: usize) -> &[u8] {
        Fields::of(self.row(row)).get(column)
    }

    /// `file:line` of `row`, for errors about its values: the file is read again to find the
    /// line (only an error pays for it).
    pub fn place_of_row(&self, row: usize) -> String {
        let line = line_of_record(Path::new(&self.file), self.json, row as u64 + 1);
        format!("{}:{line}", self.file)
    }

    /// The bytes the data holds in memory.
    pub fn heap_bytes(&self) -> usize {
        self.values.capacity() + 4 * self.starts.capacity()
    }
}

/// A row's values, split once for a request's placeholders: the first [`Fields::KEPT`]
/// values' ends are found in one pass (a scan a placeholder was a third of rendering's time),
/// a further one by scanning.
#[derive(Clone, Copy)]
pub(crate) struct Fields<'a> {
    row: &'a [u8],
    ends: [u32; Fields::KEPT],
    kept: usize,
}

impl<'a> Fields<'a> {
    const KEPT: usize = 32;

    pub(crate) fn of(row: &'a [u8]) -> Fields<'a> {
        let mut ends = [0; Fields::KEPT];
        let mut kept = 0;
        for (slot, end) in ends.iter_mut().zip(memchr::memchr_iter(0, row)) {
            *slot = end as u32;
            kept += 1;
        }
        Fields { row, ends, kept }
    }

    /// The value of `column`.
    pub(crate) fn get(&self, column: usize) -> &'a [u8] {
        if column < self.kept {
            let start = match column {
                0 => 0,
                _ => self.ends[column - 1] as usize + 1,
            };
            return &self.row[start..self.ends[column] as usize];
        }
        self.row
            .split(|&byte| byte == 0)
            .nth(column)
            .unwrap_or_default()
    }
}

/// Why data did not read: at a record (the reading knows its number, not its line), or as a
/// whole.
#[derive(Debug)]
pub(crate) enum Failure {
    Record(u64, String),
    Whole(TemplateError),
}

impl From<Failure> for TemplateError {
    fn from(failure: Failure) -> TemplateError {
        match failure {
            Failure::Record(record, what) => TemplateError {
                place: format!("record {record}"),
                what,
            },
            Failure::Whole(error) => error,
        }
    }
}

/// The line record `record` (0 the header of a CSV file, else the data's records from 1)
/// starts on, found by reading the file again; 0 when it cannot be.
fn line_of_record(path: &Path, json: bool, record: u64) -> u64 {
    let Ok(bytes) = host::file::read_limited(path, MAX_DATA_FILE) else {
        return 0;
    };
    if json {
        return bytes
            .split(|&byte| byte == b'\n')
            .enumerate()
            .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
            .nth(record.saturating_sub(1) as usize)
            .map_or(0, |(index, _)| index as u64 + 1);
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes.as_slice());
    let mut current = csv::ByteRecord::new();
    let mut offset = bytes.len();
    for _ in 0..=record {
        let before = reader.position().byte() as usize;
        match reader.read_byte_record(&mut current) {
            Ok(true) => offset = current.position().map_or(before, |p| p.byte() as usize),
            // A record that does not read starts where the reader stood.
            _ => {
                offset = before;
                break;
            }
        }
    }
    // A record's offset may point at the line break before it.
    let mut offset = offset.min(bytes.len());
    while offset < bytes.len() && matches!(bytes[offset], b'\r' | b'\n') {
        offset += 1;
    }
    super::line_of(&bytes, offset) as u64
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
