//! loadgen's long options (`--rate`, `--json FILE`, ...), each read into the draft's typed
//! options; ab's letters are in the parent module.

use std::path::PathBuf;
use std::time::SystemTime;

use host::duration;
use tls::client::{self as tls_client, Verify};

use super::values::json_out;
use super::{Draft, UsageError};
use crate::clock;
use crate::pace::Rate;
use crate::shard::Shard;
use crate::url::{Scheme, Url};

impl Draft {
    pub(super) fn long(&mut self, name: &str, value: Option<&str>) -> Result<(), UsageError> {
        let Some(value) = value else {
            match name {
                "http1.0" => self.request.http10 = true,
                "http2" => self.request.http2 = true,
                "template" => self.template = true,
                "soap-faults" => self.checks.soap_faults = true,
                "verify" => {
                    self.tls_option.get_or_insert_with(|| "--verify".to_owned());
                    if self.target.tls.verify == Verify::Off {
                        self.target.tls.verify = Verify::SystemRoots;
                    }
                }
                "tls-resume" => {
                    self.tls_option
                        .get_or_insert_with(|| "--tls-resume".to_owned());
                    self.target.tls.resume = true;
                }
                _ => unreachable!("the grammar's long flags are these"),
            }
            return Ok(());
        };
        let bad = |what: &str| UsageError::usage(format!("loadgen: --{name} {value:?}: {what}"));
        let duration = || duration::parse(value).map_err(|_| bad(duration::FORMS));
        match name {
            "threads" => {
                let n: usize = value
                    .parse()
                    .map_err(|_| bad("expected a number of threads"))?;
                if n == 0 {
                    return Err(bad("expected at least one thread"));
                }
                self.load.n_threads = Some(n);
            }
            "streams" => {
                let n: u32 = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=10_000).contains(n))
                    .ok_or_else(|| bad("expected 1 to 10000 streams a connection"))?;
                self.load.streams = Some(n);
            }
            "rate" => self.load.rate = Some(Rate::parse(value).map_err(|e| bad(&e.to_string()))?),
            "duration" => self.load.duration = Some(duration()?),
            "warmup" => self.load.warmup = Some(duration()?),
            "timeout" => self.checks.request_timeout = Some(duration()?),
            "json" => self.output.json = Some(json_out(value)),
            "series" => self.output.series_file = Some(PathBuf::from(value)),
            "metrics" => {
                self.output.metrics =
                    Some(value.parse().map_err(|_| {
                        bad("expected an address and port, such as 127.0.0.1:9100")
                    })?);
            }
            "metrics-hold" => self.output.metrics_hold = Some(duration()?),
            "prom-remote-write" => {
                let url = Url::parse(value).map_err(|error| bad(&error.to_string()))?;
                if url.scheme != Scheme::Http || !value.contains("://") {
                    return Err(bad(
                        "expected an http:// URL (a Prometheus or an agent near loadgen; https:// is not offered)",
                    ));
                }
                self.output.remote_write = Some(url);
            }
            "tls-groups" => {
                self.tls_option
                    .get_or_insert_with(|| "--tls-groups".to_owned());
                self.target.tls.groups =
                    tls_client::parse_group_list(value).map_err(|error| bad(&error.to_string()))?;
            }
            "cacert" => {
                self.tls_option.get_or_insert_with(|| "--cacert".to_owned());
                self.target.tls.verify = Verify::CaFile(PathBuf::from(value));
            }
            "expect-status" => {
                let status = value
                    .parse::<u16>()
                    .ok()
                    .and_then(|code| http::StatusCode::from_u16(code).ok())
                    .ok_or_else(|| bad("expected an HTTP status code"))?;
                self.checks.expect_status = Some(status);
            }
            "mix" => self.mix_file = Some(PathBuf::from(value)),
            "data" => self.data_file = Some(PathBuf::from(value)),
            "data-order" => {
                self.data_order = Some(
                    crate::template::DataOrder::parse(value)
                        .ok_or_else(|| bad("expected next, random or connection"))?,
                );
            }
            "seed" => {
                self.seed = Some(value.parse().map_err(|_| bad("expected a whole number"))?);
            }
            "expect-body" => self.checks.expect_body = Some(value.to_owned()),
            "reject-body" => self.checks.reject_body = Some(value.to_owned()),
            "check-xpath" => self.checks.check_xpath.push(value.to_owned()),
            "check-regex" => self.checks.check_regex.push(value.to_owned()),
            "shard" => {
                let shard = Shard::parse(value)
                    .ok_or_else(|| bad("expected I/N with 0 <= I < N, such as 0/3"))?;
                self.load.shard = Some(shard);
            }
            "start-at" => {
                let at = clock::parse_start_at(value, SystemTime::now())
                    .map_err(|error| bad(&error.to_string()))?;
                self.load.start_at = Some(at);
            }
            _ => {
                return Err(UsageError::usage(format!(
                    "loadgen: unknown option --{name}"
                )));
            }
        }
        Ok(())
    }
}
