//! `loadgen suite cases`: test cases from any WSDL 1.1, for the suite to run as it runs WSTest's.
//! The `wsdl` crate reads the WSDL and writes each operation's request; this front end fetches
//! the documents (files, or `http://` and `https://` URLs, the server's certificate verified
//! against `--cacert` when given) and writes the post files and their manifest into `--out`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Parser as _;

use crate::USAGE_EXIT_CODE;

/// Writes a post file per operation of a WSDL, and the manifest that runs them.
#[derive(Debug, clap::Parser)]
#[command(
    name = "loadgen suite cases",
    version,
    after_help = "Then: loadgen suite --manifest DIR/manifest.toml --target NAME=URL (the service's address)."
)]
struct Args {
    /// The WSDL: a file, or an http:// or https:// URL (`http://host:port/WSTest?wsdl`).
    /// A file's relative imports are followed wherever they lead; a URL's on its own scheme,
    /// host and port; another host's only with --allow-host.
    #[arg(long, value_name = "URL|FILE")]
    wsdl: String,
    /// The folder the post files and manifest.toml go into (made if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Items in each repeated element, and levels of each recursive type.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    size: u32,
    /// Only this SOAP binding (by its name in the WSDL); every SOAP binding by default.
    #[arg(long, value_name = "NAME")]
    binding: Option<String>,
    /// A host besides the WSDL's own whose documents its imports may fetch (repeatable): a
    /// WCF WSDL saved to a file imports `http://HOST/Service.svc?xsd=xsd0`.
    #[arg(long, value_name = "HOST")]
    allow_host: Vec<String>,
    /// Refuse the WSDL (exit 1, nothing written) when an operation cannot be written, rather
    /// than skip it and write the others.
    #[arg(long)]
    strict: bool,
    /// For a WSDL by URL: how long each document may take to come whole (a server that
    /// drips it is cut here, as one that stops).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = host::duration::parse)]
    timeout: std::time::Duration,
    /// For an https:// WSDL: the CA certificate (PEM) its server's certificate must chain to;
    /// without it the certificate is not verified.
    #[arg(long, value_name = "FILE")]
    cacert: Option<PathBuf>,
}

/// Runs `loadgen suite cases ARGS`; the exit code (0, 1 for a WSDL that cannot be read or
/// holds what is not supported, 2 for a usage error).
pub(crate) fn run(argv: &[String]) -> anyhow::Result<i32> {
    let args = match Args::try_parse_from(
        std::iter::once("loadgen suite cases".to_owned()).chain(argv.iter().cloned()),
    ) {
        Ok(args) => args,
        Err(error) => {
            let _ = error.print();
            return Ok(if error.use_stderr() {
                USAGE_EXIT_CODE
            } else {
                0
            });
        }
    };
    let location = wsdl::Location::parse(&args.wsdl);
    let mut loader = Fetch {
        ca: args.cacert.clone(),
        limits: loadgen::exchange::Limits {
            deadline: args.timeout,
            max_body: wsdl::MAX_DOCUMENT_BYTES,
        },
    };
    let options = wsdl::Options {
        size: args.size,
        binding: args.binding.clone(),
        strict: args.strict,
        allow_hosts: args.allow_host.clone(),
    };
    let generated = wsdl::generate(&location, &mut loader, &options)
        .with_context(|| format!("generating cases from {}", args.wsdl))?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    for case in &generated.cases {
        write_file(&args.out, &case.file, case.body.as_bytes())?;
    }
    let manifest = args.out.join("manifest.toml");
    write_file(
        &args.out,
        "manifest.toml",
        wsdl::manifest(&generated.cases, &args.wsdl).as_bytes(),
    )?;
    let test_width = generated
        .cases
        .iter()
        .map(|case| case.test.len())
        .max()
        .unwrap_or(0);
    let binding_width = generated
        .cases
        .iter()
        .map(|case| case.binding.len())
        .max()
        .unwrap_or(0);
    // What the WSDL named is printed with its control characters escaped.
    use host::printable;
    for case in &generated.cases {
        host::outln!(
            "{:<test_width$}  {:>9} bytes  {:<binding_width$}  {}",
            printable(&case.test),
            case.body.len(),
            printable(&case.binding),
            printable(&case.content_type)
        );
    }
    for skipped in &generated.skipped {
        host::outln!("skipped: {}", printable(skipped));
    }
    for (binding, address) in &generated.addresses {
        host::outln!("{} listens at {}", printable(binding), printable(address));
    }
    host::outln!(
        "{} cases and {} written",
        generated.cases.len(),
        manifest.display()
    );
    Ok(0)
}

/// Writes `bytes` as `dir/name`, replacing what is there: through a new file renamed over the
/// name, so that a link planted at the name is replaced, never written through.
fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write as _;
    let path = dir.join(name);
    let temporary = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&temporary, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.with_context(|| format!("writing {}", path.display()))
}

/// Reads files, and fetches URLs with one GET each.
struct Fetch {
    ca: Option<PathBuf>,
    /// How long a document may take to come whole, and how large it may be.
    limits: loadgen::exchange::Limits,
}

impl wsdl::Loader for Fetch {
    fn load(&mut self, location: &wsdl::Location) -> Result<String, String> {
        match location {
            wsdl::Location::File(path) => {
                host::file::read_text_limited(path, wsdl::MAX_DOCUMENT_BYTES as u64)
                    .map_err(|error| error.to_string())
            }
            wsdl::Location::Url(url) => {
                get(url, self.ca.as_deref(), self.limits).map_err(|error| format!("{error:#}"))
            }
        }
    }
}

fn get(url: &str, ca: Option<&Path>, limits: loadgen::exchange::Limits) -> anyhow::Result<String> {
    let parsed = loadgen::url::Url::parse(url).map_err(|error| anyhow::anyhow!("{error}"))?;
    let (status, body) = loadgen::exchange::exchange(&parsed, ca, "GET", &[], &[], limits)?;
    anyhow::ensure!(status == 200, "GET answered {status}");
    String::from_utf8(body).context("the document is not UTF-8")
}
