#!/usr/bin/env python3
"""Runs `loadgen suite cases` on a set of real WSDLs and checks every body it writes.

    scripts/wsdl-corpus.py ROOT [--list docs/results/wsdl-corpus.tsv] [--loadgen PATH]

    scripts/wsdl-corpus.py ROOT --standard-schemas DIR   # the standards' schemas offline

ROOT holds each listed repository's files at ROOT/OWNER+NAME/PATH (for example from
`git -C CLONE archive COMMIT PATH | tar -x -C ROOT/OWNER+NAME`). For each WSDL: the exit
code, the cases written and the operations skipped; each document/literal body's payload
validated by xmllint against the WSDL's own schemas (its inline schemas, with the
namespaces they inherit, and what they and its WSDL imports import, by relative path; no
network); each rpc/encoded body decoded by PHP's SoapServer in WSDL mode
(wsdl/tests/php/recorder.php), which must not answer a Fault. rpc/literal bodies are
counted, not validated (their wrapper element is not a schema's). Prints a Markdown table
and the totals.

Where xmllint refuses a schema (ONVIF's content models are not deterministic, which XSD 1.0
forbids), the payloads are validated by the xmlschema package (pip) as XSD 1.1, when it is
importable: run the script with a Python that has it.

Schemas that import the standards' own by their network address (ONVIF's import OASIS'
WS-BaseNotification and W3C's xmlmime) compile only with local copies: --standard-schemas
names a folder holding them under the names of STANDARD below (python-onvif's wsdl/ folder
has all but SOAP 1.2's envelope, which cogini/onvif's wsdl/soap-envelope.xsd is, given an
import of xml.xsd), given to xmllint through an XML catalog.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from xml.dom import minidom

XSD = "http://www.w3.org/2001/XMLSchema"
WSDL = "http://schemas.xmlsoap.org/wsdl/"
HERE = os.path.dirname(os.path.abspath(__file__))
RECORDER = os.path.join(HERE, "..", "wsdl", "tests", "php", "recorder.php")
# The standards' schemas by the addresses WSDLs import them from, and their local names.
STANDARD = {
    "http://docs.oasis-open.org/wsn/b-2.xsd": "b-2.xsd",
    "http://docs.oasis-open.org/wsn/t-1.xsd": "t-1.xsd",
    "http://docs.oasis-open.org/wsrf/bf-2.xsd": "bf-2.xsd",
    "http://docs.oasis-open.org/wsrf/r-2.xsd": "r-2.xsd",
    "http://www.w3.org/2005/08/addressing/ws-addr.xsd": "ws-addr.xsd",
    "http://www.w3.org/2001/xml.xsd": "xml.xsd",
    "https://www.w3.org/2005/05/xmlmime": "xmlmime",
    "http://www.w3.org/2005/05/xmlmime": "xmlmime",
    "https://www.w3.org/2003/05/soap-envelope": "soap-envelope.xsd",
    "http://www.w3.org/2003/05/soap-envelope": "soap-envelope.xsd",
    "https://www.w3.org/2004/08/xop/include": "include",
    "http://www.w3.org/2004/08/xop/include": "include",
}


def catalog(folder, standard):
    """An XML catalog mapping STANDARD's addresses to the files in `standard`; its path."""
    lines = ['<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">']
    for address, name in STANDARD.items():
        local = "file://" + os.path.abspath(os.path.join(standard, name))
        lines.append(f'<system systemId="{address}" uri="{local}"/>')
        lines.append(f'<uri name="{address}" uri="{local}"/>')
    lines.append("</catalog>")
    path = os.path.join(folder, "catalog.xml")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))
    return path


def declarations(node):
    """The namespace declarations in scope at `node`, nearest first."""
    found = {}
    while node is not None and node.nodeType == node.ELEMENT_NODE:
        for name, value in node.attributes.items():
            if (name == "xmlns" or name.startswith("xmlns:")) and name not in found:
                found[name] = value
        node = node.parentNode
    return found


def is_local(location):
    return location and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", location)


def schemas_of(wsdl, seen):
    """(target namespace, schema text) for each inline schema of `wsdl` and of the WSDLs it
    imports by relative path, each schema standing alone."""
    wsdl = os.path.abspath(wsdl)
    if wsdl in seen:
        return []
    seen.add(wsdl)
    try:
        doc = minidom.parse(wsdl)
    except Exception:
        return []
    base = os.path.dirname(wsdl)
    found = []
    for schema in doc.getElementsByTagNameNS(XSD, "schema"):
        copy = schema.cloneNode(True)
        for name, value in declarations(schema).items():
            if not copy.hasAttribute(name):
                copy.setAttribute(name, value)
        for tag in ("import", "include", "redefine"):
            for ref in copy.getElementsByTagNameNS(XSD, tag):
                location = ref.getAttribute("schemaLocation")
                if is_local(location):
                    ref.setAttribute("schemaLocation", os.path.join(base, location))
        found.append((copy.getAttribute("targetNamespace"), copy.toxml()))
    for ref in doc.getElementsByTagNameNS(WSDL, "import"):
        location = ref.getAttribute("location")
        if is_local(location):
            found.extend(schemas_of(os.path.join(base, location), seen))
    return found


def main_schema(wsdl, folder):
    """A schema that brings in every schema of `wsdl`, written in `folder`; its path."""
    by_namespace = {}
    for index, (namespace, text) in enumerate(schemas_of(wsdl, set())):
        path = os.path.join(folder, f"s{index}.xsd")
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        by_namespace.setdefault(namespace, []).append(path)
    lines = [f'<xs:schema xmlns:xs="{XSD}">']
    for index, (namespace, paths) in enumerate(sorted(by_namespace.items())):
        if not namespace:
            lines += [f'<xs:include schemaLocation="{p}"/>' for p in paths]
            continue
        wrapper = os.path.join(folder, f"ns{index}.xsd")
        with open(wrapper, "w", encoding="utf-8") as out:
            out.write(f'<xs:schema xmlns:xs="{XSD}" targetNamespace="{namespace}">')
            out.write("".join(f'<xs:include schemaLocation="{p}"/>' for p in paths))
            out.write("</xs:schema>")
        lines.append(f'<xs:import namespace="{namespace}" schemaLocation="{wrapper}"/>')
    lines.append("</xs:schema>")
    path = os.path.join(folder, "main.xsd")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))
    return path


def body_children(envelope_text):
    doc = minidom.parseString(envelope_text.encode("utf-8"))
    envelope = doc.documentElement
    body = [n for n in envelope.childNodes if n.nodeType == n.ELEMENT_NODE and n.localName == "Body"]
    if not body:
        return envelope, []
    return envelope, [n for n in body[0].childNodes if n.nodeType == n.ELEMENT_NODE]


def xmllint(schema, paths, env):
    """The paths xmllint finds valid, and its report of the others."""
    valid, report = set(), []
    for start in range(0, len(paths), 400):
        chunk = paths[start:start + 400]
        run = subprocess.run(
            ["xmllint", "--nonet", "--noout", "--schema", schema, *chunk],
            capture_output=True, text=True, env=env,
        )
        for line in run.stderr.splitlines():
            if line.endswith(" validates"):
                valid.add(line[: -len(" validates")])
            elif "fails to validate" not in line:
                report.append(line)
    return valid, report


def xsd11(row, schema, payloads, wrappers, standard, why):
    """The payloads validated by the xmlschema package as XSD 1.1, for a schema xmllint
    cannot compile (ONVIF's content models are not deterministic, which XSD 1.0 forbids and
    XSD 1.1 allows of wildcards); else none, saying why."""
    try:
        import xmlschema
    except ImportError:
        row["why"] = f"not validated: xmllint refuses the schema ({why}); pip's xmlschema would read it as XSD 1.1"
        return row
    local = {address: "file://" + os.path.abspath(os.path.join(standard or ".", name))
             for address, name in STANDARD.items()}
    compiled = xmlschema.XMLSchema11(schema, uri_mapper=lambda uri: local.get(uri, uri), allow="local")
    row["validator"] = "xmlschema (XSD 1.1)"
    counted = set()
    for path in payloads:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        errors = list(compiled.iter_errors(text))
        if errors and "is not an element of the schema" in str(errors[0]):
            if wrappers[path] not in counted:
                row["rpc"] += 1
                counted.add(wrappers[path])
            continue
        row["validated"] += 1
        if not errors:
            row["valid"] += 1
        elif not row["why"]:
            row["why"] = "xmlschema: " + re.sub(r"\s+", " ", str(errors[0]))[:200]
    return row


def check(wsdl, loadgen, folder, standard):
    out = os.path.join(folder, "cases")
    run = subprocess.run(
        [loadgen, "suite", "cases", "--wsdl", wsdl, "--out", out],
        capture_output=True, text=True, timeout=120,
    )
    row = {
        "exit": run.returncode,
        "cases": 0,
        "skipped": 0,
        "validated": 0, "valid": 0, "encoded": 0, "decoded": 0, "rpc": 0,
        "why": "",
        "validator": "xmllint",
    }
    if run.returncode != 0:
        first = (run.stderr.strip().splitlines() or [""])[0]
        second = (run.stderr.strip().splitlines() + ["", ""])[1].strip()
        row["why"] = (first + " " + second).replace(wsdl, "WSDL")[:240]
        return row
    row["skipped"] = sum(1 for line in run.stdout.splitlines() if line.startswith("skipped:"))
    files = sorted(f for f in os.listdir(out) if f.endswith(".xml"))
    row["cases"] = len(files)
    schema = main_schema(wsdl, folder)
    payloads, wrappers = [], {}
    for name in files:
        with open(os.path.join(out, name), encoding="utf-8") as f:
            text = f.read()
        envelope, children = body_children(text)
        if envelope.hasAttribute("xmlns:soapenc"):
            row["encoded"] += 1
            php = subprocess.run(
                ["php", RECORDER, wsdl, os.path.join(out, name)],
                capture_output=True, text=True, timeout=60,
            )
            if php.returncode == 0 and "Fault" not in php.stdout:
                row["decoded"] += 1
            elif not row["why"]:
                row["why"] = "PHP: " + re.sub(r"\s+", " ", php.stdout + php.stderr)[:200]
            continue
        for index, child in enumerate(children):
            path = os.path.join(folder, f"{name}.{index}.payload")
            with open(path, "w", encoding="utf-8") as f:
                f.write(child.toxml())
            payloads.append(path)
            wrappers[path] = name
    env = dict(os.environ)
    if standard:
        env["XML_CATALOG_FILES"] = catalog(folder, standard)
    valid, report = xmllint(schema, payloads, env) if payloads else (set(), [])
    if any("failed to compile" in line for line in report):
        first = next((line for line in report if "error" in line), report[0])
        why = first.replace(folder, "").replace(os.path.dirname(wsdl), "")[:160]
        return xsd11(row, schema, payloads, wrappers, standard, why)
    # A body whose element is not any schema's is an rpc/literal wrapper, not validated.
    undeclared = {line.split(":")[0] for line in report
                  if "No matching global declaration available for the validation root" in line}
    counted = set()
    for path in payloads:
        name = wrappers[path]
        if path in undeclared:
            if name not in counted:
                row["rpc"] += 1
                counted.add(name)
            continue
        row["validated"] += 1
        if path in valid:
            row["valid"] += 1
        elif not row["why"]:
            lines = [line for line in report if line.startswith(path)]
            row["why"] = "xmllint: " + (lines[0] if lines else "?").replace(folder, "")[:200]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root")
    parser.add_argument("--list", default=os.path.join(HERE, "..", "docs", "results", "wsdl-corpus.tsv"))
    parser.add_argument("--standard-schemas", help="a folder of the standards' schemas (see STANDARD)")
    parser.add_argument("--loadgen", default=os.path.join(HERE, "..", "target", "release", "loadgen"))
    args = parser.parse_args()
    for tool in ("xmllint", "php"):
        if shutil.which(tool) is None:
            sys.exit(f"wsdl-corpus: {tool} is needed (Debian's libxml2-utils, php-cli and php-soap)")
    entries = []
    with open(args.list, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                repo, commit, path, licence, service = line.rstrip("\n").split("\t")
                entries.append((repo, commit, path, licence, service))
    print("| service | WSDL | exit | cases | skipped | valid | by | decoded (PHP) | rpc/literal | note |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|---|")
    totals = {"wsdls": 0, "giving": 0, "cases": 0, "validated": 0, "valid": 0, "encoded": 0, "decoded": 0, "rpc": 0, "skipped": 0}
    for repo, commit, path, licence, service in entries:
        wsdl = os.path.join(args.root, repo.replace("/", "+"), path)
        folder = tempfile.mkdtemp(prefix="wsdl-corpus-")
        try:
            row = check(wsdl, args.loadgen, folder, args.standard_schemas)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        totals["wsdls"] += 1
        totals["giving"] += row["cases"] > 0
        for key in ("cases", "validated", "valid", "encoded", "decoded", "rpc", "skipped"):
            totals[key] += row[key]
        note = row["why"].replace("|", "\\|")
        print(f"| {service} | `{repo}` `{path}` | {row['exit']} | {row['cases']} | {row['skipped']} "
              f"| {row['valid']}/{row['validated']} | {row['validator'] if row['validated'] else ''} "
              f"| {row['decoded']}/{row['encoded']} | {row['rpc']} | {note} |",
              flush=True)
    print()
    print(f"{totals['giving']} of {totals['wsdls']} WSDLs give cases; {totals['cases']} cases, "
          f"{totals['skipped']} operations skipped; {totals['valid']} of {totals['validated']} "
          f"document/literal payloads valid (xmllint, or xmlschema as XSD 1.1 where xmllint refuses the schema); {totals['decoded']} of {totals['encoded']} "
          f"rpc/encoded bodies decoded by PHP's SoapServer; {totals['rpc']} rpc/literal bodies not validated.")


if __name__ == "__main__":
    main()
