#!/usr/bin/env bash
# Checks the suite's index.html in a real browser (headless Chromium): the page renders with
# every test, target and chart, its sorting script runs, and it asks for nothing outside
# itself. Saves a screenshot beside it (report.png).
#
# Usage: scripts/check-report.sh [DIR]
#   DIR: a folder that `loadgen suite --out` wrote. Without it, the script makes one: a run
#   of every test against wstest and the ceiling (target/report-check/base), then a second
#   with --baseline the first (target/report-check/report), and checks the second.
# Needs: chromium and python3 (installed when missing, as root).
#
# What "nothing outside itself" means here, checked two ways:
#  1. The page as it is: its content security policy forbids every fetch, and Chromium logs
#     each attempt as a policy violation: there must be none.
#  2. A copy without that policy, rendered under Chromium's network log: no request may start
#     from the page (Chromium's own update and account traffic, which is no page's, is told
#     apart by its isolation key).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
ensure_debian_packages chromium:chromium python3:python3

dir=${1:-}
if [ -z "$dir" ]; then
    ensure_debian_packages make:make
    cargo build --release -q -p loadgen-cli -p server -p ceiling --manifest-path "$root/Cargo.toml"
    work="$root/target/report-check"
    rm -rf "$work"
    mkdir -p "$work"
    common=(--stack wstest --stack ceiling --duration 1s --warmup 0.2s --repeat 3 --latency)
    "$root/target/release/loadgen" suite "${common[@]}" --out "$work/base" >/dev/null
    # The exit code of a comparison with no --fail-on-regression is that of the run itself.
    "$root/target/release/loadgen" suite "${common[@]}" --baseline "$work/base" --out "$work/report"
    dir="$work/report"
fi
[ -f "$dir/index.html" ] || die "$dir has no index.html (run loadgen suite --out $dir, or --redraw $dir)"
[ -f "$dir/results.json" ] || die "$dir has no results.json"
dir=$(cd "$dir" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

chromium_run() {
    # A fresh profile each time; no sandbox (root in a container has none to give).
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$scratch/profile" --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --disable-default-apps "$@"
}

# 1. The page with its policy: the DOM after the script ran (sorted by the first target's
# column, descending, as a click would), and the console.
chromium_run --enable-logging=stderr --v=0 --dump-dom "file://$dir/index.html#sort=2-desc" \
    >"$scratch/dom.html" 2>"$scratch/console.txt" || die "chromium failed: $(tail -5 "$scratch/console.txt")"
# 2. A copy without the policy, under the network log.
sed 's|<meta http-equiv="Content-Security-Policy"[^>]*>||' "$dir/index.html" >"$scratch/open.html"
chromium_run --log-net-log="$scratch/netlog.json" --dump-dom "file://$scratch/open.html" \
    >/dev/null 2>"$scratch/open-console.txt" || die "chromium failed on the copy without its policy"
# The screenshot: the top of the page, where the table and the changes are.
chromium_run --window-size=1280,2000 --screenshot="$dir/report.png" "file://$dir/index.html" \
    >/dev/null 2>&1 || die "chromium made no screenshot"

python3 - "$dir" "$scratch" <<'PY'
import html.parser, json, os, sys

dir, scratch = sys.argv[1], sys.argv[2]
results = json.load(open(os.path.join(dir, "results.json")))
dom = open(os.path.join(scratch, "dom.html"), encoding="utf-8").read()
problems = []

class Page(html.parser.HTMLParser):
    """The rendered page: the results table's text and rows, every image, every reference."""
    def __init__(self):
        super().__init__()
        self.in_table = 0
        self.table_text = []
        self.rows = []
        self.images = []
        self.references = []
        self.sorted = None
        self.cell = None
    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "href", "srcset", "poster", "action", "data"):
            if name in attrs and attrs[name] is not None:
                self.references.append((tag, name, attrs[name]))
        if "style" in attrs and "url(" in (attrs["style"] or ""):
            self.references.append((tag, "style", attrs["style"]))
        if tag == "table" and attrs.get("id") == "results":
            self.in_table = 1
            self.sorted = attrs.get("data-sorted")
        elif tag == "table" and self.in_table:
            self.in_table += 1
        if self.in_table and tag == "tr":
            self.rows.append([])
        if self.in_table and tag in ("td", "th") and self.rows:
            self.rows[-1].append(attrs.get("data-v"))
        if tag == "img":
            self.images.append(attrs)
    def handle_endtag(self, tag):
        if tag == "table" and self.in_table:
            self.in_table -= 1
    def handle_data(self, data):
        if self.in_table:
            self.table_text.append(data)

page = Page()
page.feed(dom)
table = " ".join(page.table_text)
for test in results["tests"]:
    if test not in table:
        problems.append(f"test {test} is not in the rendered table")
for target in results["targets"]:
    if target["name"] not in table:
        problems.append(f"target {target['name']} is not in the rendered table")
charts = [name for name in os.listdir(dir) if name.endswith(".svg")]
expected_images = len(charts) + 2 * len(results["tests"]) * len(results["concurrencies"])
if len(page.images) != expected_images:
    problems.append(f"{len(page.images)} images rendered, expected {expected_images} "
                    f"({len(charts)} charts of the folder, 2 per test and concurrency)")
for image in page.images:
    if not (image.get("alt") or "").strip():
        problems.append(f"an image has no alt text: {str(image)[:80]}")
for tag, name, value in page.references:
    if not (value.startswith("data:") or value.startswith("#")):
        problems.append(f"<{tag} {name}={value[:80]!r}> refers outside the page")
if page.sorted != "2-desc":
    problems.append(f"the sorting script did not run (data-sorted={page.sorted!r})")
else:
    values = [float(row[2]) for row in page.rows[1:] if len(row) > 2 and row[2] is not None]
    if values != sorted(values, reverse=True):
        problems.append(f"the rows are not sorted by the first target's column: {values}")
console = open(os.path.join(scratch, "console.txt"), encoding="utf-8", errors="replace").read()
for line in console.splitlines():
    if "Content Security Policy" in line:
        problems.append("the page tried to fetch something: " + line.split('"')[1][:160])
netlog = json.load(open(os.path.join(scratch, "netlog.json")))
start_job = netlog["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
for event in netlog["events"]:
    params = event.get("params", {})
    if event["type"] != start_job or not params.get("network_isolation_key", "").startswith("file://"):
        continue
    url = params.get("url", "")
    if not (url.startswith("file://") or url.startswith("data:")):
        problems.append(f"the page requested {url[:100]}")
if problems:
    print("check-report: " + dir + "/index.html:", file=sys.stderr)
    for problem in problems:
        print("  " + problem, file=sys.stderr)
    sys.exit(1)
print(f"check-report: {dir}/index.html renders in Chromium with {len(results['tests'])} tests, "
      f"{len(results['targets'])} targets and {len(page.images)} charts, sorts, and fetches nothing; "
      f"screenshot {dir}/report.png")
PY
