//! `--mix FILE` and `-p FILE@W`: the command line's mix, and `--template`'s options,
//! checked against the rest of it.

use super::{Draft, UsageError};
use crate::mix::{self, Mix};
use crate::options::Templating;

impl Draft {
    /// The mix of `--mix FILE` or of `-p FILE@W` given more than once, checked against the
    /// rest of the command line.
    pub(super) fn mix(&mut self) -> Result<Option<Mix>, UsageError> {
        let seed = self.seed.unwrap_or(mix::DEFAULT_SEED);
        // A mix that does not read is a value's fault, not the command line's: no usage text.
        let refused = |error: mix::MixError| UsageError::value(format!("loadgen: {error}"));
        let mix = match (self.mix_file.take(), self.weighted.is_empty()) {
            (Some(_), false) => {
                return Err(UsageError::usage(
                    "loadgen: --mix with -p FILE@W: the mix file gives the bodies",
                ));
            }
            (Some(file), true) => {
                if self.request.body_file.is_some() || self.head || self.method_given {
                    return Err(UsageError::usage(
                        "loadgen: --mix with -p, -u, -i or -m: the mix file gives each part's method and body",
                    ));
                }
                Mix::read(&file, seed).map_err(refused)?
            }
            (None, false) => {
                if self.request.body_file.is_some() {
                    return Err(UsageError::usage(
                        "loadgen: -p FILE with -p FILE@W: give every body of a mix a weight",
                    ));
                }
                Mix::new(std::mem::take(&mut self.weighted), seed).map_err(refused)?
            }
            (None, true) => {
                if self.seed.is_some() && !self.template && self.data_file.is_none() {
                    return Err(UsageError::usage(
                        "loadgen: --seed orders a mix and a template's random values: give --mix FILE, -p FILE@W or --template",
                    ));
                }
                return Ok(None);
            }
        };
        Ok(Some(mix))
    }
}

impl Draft {
    /// `--template`, `--data FILE` and a mix's `--save` (which imply it) and `--data-order`,
    /// checked against the rest of the command line.
    pub(super) fn templating(&self) -> Result<Option<Templating>, UsageError> {
        if self.data_order.is_some() && self.data_file.is_none() {
            return Err(UsageError::usage(
                "loadgen: --data-order orders the rows of --data FILE: give it",
            ));
        }
        let flow = self.request.mix.as_ref().and_then(|mix| mix.flow.as_ref());
        if flow.is_some() && self.request.http2 {
            return Err(UsageError::usage(
                "loadgen: a [flow] with --http2: flows are run over HTTP/1.x only, so far",
            ));
        }
        // A saved value goes into templates: `--save` implies `--template`.
        let saves =
            (self.request.mix.iter()).any(|mix| mix.parts.iter().any(|p| !p.saves.is_empty()));
        if !self.template && self.data_file.is_none() && !saves {
            return Ok(None);
        }
        if self.request.http2 {
            return Err(UsageError::usage(
                "loadgen: --template with --http2: templates are sent over HTTP/1.x only, so far",
            ));
        }
        Ok(Some(Templating {
            data: self.data_file.clone(),
            order: self.data_order.unwrap_or_default(),
            seed: self.seed.unwrap_or(mix::DEFAULT_SEED),
        }))
    }
}
