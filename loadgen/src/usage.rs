//! The usage text that `-h` and a usage error print: ab's, with loadgen's long options after
//! it.

/// The usage text for `program`.
pub fn usage(program: &str) -> String {
    format!(
        "Usage: {program} [options] [http[s]://]hostname[:port]/path
       {program} merge [--json FILE] [-e FILE] FILE.json [FILE.json ...]
Options are:
    -n requests     Number of requests to perform
    -c concurrency  Number of multiple requests to make at a time
    -t timelimit    Seconds to max. to spend on benchmarking
                    (no cap on the number of requests, unlike ab's 50000)
    -s timeout      Seconds to max. wait for each response
                    Default is 30 seconds
    -b windowsize   Size of TCP send/receive buffer, in bytes
    -B address      Address to bind to when making outgoing connections
    -p postfile     File containing data to POST. Remember also to set -T
    -u putfile      File containing data to PUT. Remember also to set -T
    -T content-type Content-type header to use for POST/PUT data, eg.
                    'application/x-www-form-urlencoded'
                    Default is 'text/plain'
    -v verbosity    How much troubleshooting info to print
    -w              Print out results in HTML tables
    -i              Use HEAD instead of GET
    -x attributes   String to insert as table attributes
    -y attributes   String to insert as tr attributes
    -z attributes   String to insert as td or th attributes
    -C attribute    Add cookie, eg. 'Apache=1234'. (repeatable)
    -H attribute    Add Arbitrary header line, eg. 'Accept-Encoding: gzip'
                    Inserted after all normal header lines. (repeatable)
    -A attribute    Add Basic WWW Authentication, the attributes
                    are a colon separated username and password.
    -P attribute    Add Basic Proxy Authentication, the attributes
                    are a colon separated username and password.
    -X proxy:port   Proxyserver and port number to use
    -V              Print version number and exit
    -k              Use HTTP KeepAlive feature
    -d              Do not show percentiles served table.
    -S              Do not show confidence estimators and warnings.
    -q              Do not show progress when doing more than 150 requests
    -l              Accept variable document length (use this for dynamic pages)
    -g filename     Output collected data to gnuplot format file.
    -e filename     Output CSV file with percentages served
    -r              Don't exit on socket receive errors.
    -m method       Method name
    -h              Display usage information (this message)
    -I              Disable TLS Server Name Indication (SNI) extension
    -Z ciphersuite  Specify SSL/TLS cipher suite (OpenSSL's or IANA's names,
                    colon separated; rustls has the AEAD suites of TLS 1.2 and 1.3)
    -f protocol     Specify SSL/TLS protocol
                    (TLS1.2, TLS1.3 or ALL; SSL2, SSL3, TLS1 and TLS1.1 are refused)
    -E certfile     Specify optional client certificate chain and private key
loadgen's own options (long only, so that no ab flag is shadowed):
    --threads N         Event loops (cores) to run on; default: every core
    --rate R            Open loop: R requests/second over all threads; latency
                        counted from each request's scheduled send time
    --rate A..B         Open loop rising (or falling) linearly from A to B
                        requests/second over --duration
    --duration D        Run for D (30s, 500ms, 2m); with -n, whichever ends first
    --warmup D          Send load for D first, without counting it
    --timeout D         A request unanswered after D fails (the run goes on)
    --json FILE         Every figure, the histograms and a per-second series
                        (FILE - : on stdout after the report, between marker lines)
    --series FILE       The per-second series as CSV: requests, errors and, with
                        --rate, the offered rate and the corrected p50 and p99
    --expect-status N   A response with another status is a failure
    --expect-body TEXT  A response body without TEXT is a failure
    --reject-body TEXT  A response body with TEXT is a failure (e.g. 'Fault>')
    --http1.0           Send exactly ab's HTTP/1.0 request (default: HTTP/1.1)
    --http2             HTTP/2: by ALPN over https://, with prior knowledge (h2c)
                        over http://
    --streams M         With --http2: requests each connection carries at once
                        (h2load's -m); -c M connections make -c x M at a time
    --shard I/N         Run share I (from 0) of the test split N ways: -n, -c and
                        --rate's send times divided so that the shares add up
    --start-at TIME     Connect, then send the first request at TIME: RFC 3339
                        (2026-12-04T10:00:00Z), Unix seconds, or now+30s
    --verify            Verify the server's TLS certificate against the system's
                        roots (as ab, loadgen does not verify by default)
    --cacert FILE       Verify the server's TLS certificate against FILE's (PEM)
    --tls-resume        Resume TLS sessions on new connections (ab: every
                        connection a full handshake)
    --tls-groups LIST   Key exchange groups to offer, in order (default
                        X25519MLKEM768:X25519:P-256:P-384; ab's OpenSSL 3.0: X25519)
"
    )
}
