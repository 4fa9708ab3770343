#!/usr/bin/env python3
"""report_check.py - checks of the job's statistics and sharing report, for
tests/report/report_test.sh and tests/hosts/hosts_test.sh.  Each command
exits 0 when the check holds and prints what is wrong otherwise (exit 1).

  table FILE NODES DSM_H    the job's output holds exactly one table: a
                            header with a column per node and a total, one
                            row per member of dsm_stats_t (read from DSM_H,
                            not from the runtime) with NODES + 1 numbers,
                            totals that add up, nothing else inside it
  json FILE NODES DSM_H     FILE (the program's output may precede it)
                            holds one JSON document with NODES nodes, every
                            counter per node and in the total
  entry FILE PATTERN WHAT...  the sharing report has an entry whose first
                            line holds every WHAT (e.g. "global `hits'", or
                            "heap block allocated at" and
                            "report_false_sharing.c:27 ") with PATTERN
  flush FILE WHERE          the report's flushes by call site name WHERE
  no-report FILE            no sharing report in the output
  auto FILE                 DSM_REPORT=auto's choice: the report follows
                            the table when some node's protocol, flush and
                            atomic time reach 5% of its run, and only then
                            (within the table's rounding)
"""
import json
import re
import sys


def fail(msg, text=None):
    if text is not None:
        sys.stdout.write(text)
    print("FAIL: " + msg)
    sys.exit(1)


def counters(dsm_h):
    src = open(dsm_h).read()
    body = re.search(r"typedef struct dsm_stats \{(.*?)\} dsm_stats_t;", src,
                     re.S)
    if not body:
        fail("no dsm_stats_t in " + dsm_h)
    body = re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S)
    names = re.findall(r"uint64_t\s+(\w+)\s*;", body)
    if not names:
        fail("no counters in dsm_stats_t")
    return names


def table(path, nodes, dsm_h):
    text = open(path, errors="replace").read()
    lines = text.splitlines()
    starts = [i for i, l in enumerate(lines) if l.startswith("dsm statistics:")]
    if len(starts) != 1:
        fail("%d tables (want 1)" % len(starts), text)
    at = starts[0]
    if not re.match(r"dsm statistics: %d nodes? x \d+ threads?, [0-9.]+ s"
                    % nodes, lines[at]):
        fail("table title: " + lines[at], text)
    head = lines[at + 1].split()
    want = ["counter"] + sum((["node", str(k)] for k in range(nodes)), []) + \
        ["total"]
    if head != want:
        fail("table header %r, want %r" % (head, want), text)
    rows = {}
    i = at + 2
    number = r"-?[0-9]+(?:\.[0-9]+)?"
    row = re.compile(r"^(\S.*?)\s+((?:%s\s+){%d}%s)$" % (number, nodes, number))
    while i < len(lines):
        m = row.match(lines[i])
        if not m:
            break
        label = m.group(1).strip()
        if label in rows:
            fail("row %r twice" % label, text)
        rows[label] = [float(v) for v in m.group(2).split()]
        i += 1
    # the table ends at the end of the output or at the sharing report
    if i < len(lines) and not lines[i].startswith("dsm sharing report:"):
        fail("line %d inside or after the table is not a row of %d nodes: "
             "%r" % (i + 1, nodes, lines[i]), text)
    for name in counters(dsm_h):
        if name not in rows:
            fail("no row for counter %s" % name, text)
        v = rows[name]
        if sum(v[:-1]) != v[-1]:
            fail("counter %s: total %d is not the sum of %r"
                 % (name, v[-1], v[:-1]), text)
    for derived in ("run time (s)", "protocol time (% of run)",
                    "faults per second"):
        if derived not in rows:
            fail("no derived row %r" % derived, text)
    if not any(k.startswith("bytes moved per ") for k in rows):
        fail("no 'bytes moved per ...' row", text)
    if not any(k.startswith("msg ") for k in rows):
        fail("no message rows", text)


def json_doc(path, nodes, dsm_h):
    text = open(path, errors="replace").read()
    at = text.find('{"version"')
    if at < 0:
        fail("no JSON document", text)
    doc, end = json.JSONDecoder().raw_decode(text, at)
    if text[end:].strip():
        fail("text after the JSON document: %r" % text[end:end + 200])
    if text.find('{"version"', end) >= 0:
        fail("two JSON documents")
    if doc.get("size") != nodes or len(doc.get("nodes", [])) != nodes:
        fail("size %r, %d nodes (want %d)"
             % (doc.get("size"), len(doc.get("nodes", [])), nodes))
    for name in counters(dsm_h):
        if name not in doc["counters"]:
            fail("counter %s missing from \"counters\"" % name)
        for k, node in enumerate(doc["nodes"]):
            if node.get("node") != k or name not in node:
                fail("node %d: no %s" % (k, name))
        if doc["total"].get(name) != sum(n[name] for n in doc["nodes"]):
            fail("total of %s is not the nodes' sum" % name)
    for key in ("protocol_share", "faults_per_second", "bytes_moved_per_step"):
        if len(doc["derived"].get(key, [])) != nodes + 1:
            fail("derived %s: want %d values" % (key, nodes + 1))


def entries(text):
    """(first line, pattern) of each numbered entry of the sharing report."""
    out = []
    lines = text.splitlines()
    for i, l in enumerate(lines):
        m = re.match(r"^\s*\d+\. (.*)$", l)
        if m and i + 1 < len(lines):
            p = re.match(r"^\s+pattern: ([^;]*);", lines[i + 1])
            if p:
                out.append((m.group(1), p.group(1)))
    return out


def entry(path, pattern, what):
    text = open(path, errors="replace").read()
    if "dsm sharing report:" not in text:
        fail("no sharing report", text)
    found = [e for e in entries(text) if all(w in e[0] for w in what)]
    if not found:
        fail("the report does not name %r" % what, text)
    if not any(p == pattern for _, p in found):
        fail("%r is reported as %r, not %r"
             % (what, [p for _, p in found], pattern), text)


def flush(path, where):
    text = open(path, errors="replace").read()
    part = text.split("flushes by call site", 1)
    if len(part) != 2 or where not in part[1]:
        fail("no flush call site %r" % where, text)


def no_report(path):
    text = open(path, errors="replace").read()
    if "dsm sharing report:" in text:
        fail("a sharing report was printed", text)


AUTO_SHARE = 5.0     # per cent, coh_report.c


def auto(path):
    text = open(path, errors="replace").read()
    shares = None
    for label in ("protocol time (% of run)", "flush time (% of run)",
                  "atomic time (% of run)"):
        for line in text.splitlines():
            if line.startswith(label):
                values = [float(v) for v in line[len(label):].split()][:-1]
                shares = values if shares is None else \
                    [a + b for a, b in zip(shares, values)]
    if shares is None:
        fail("no protocol time row", text)
    top = max(shares)
    printed = "dsm sharing report:" in text
    # each row is rounded to 0.1: up to three of them in the sum
    if abs(top - AUTO_SHARE) <= 0.15:
        return
    if (top >= AUTO_SHARE) != printed:
        fail("largest protocol share %.1f%%, report %s"
             % (top, "printed" if printed else "not printed"), text)
    print("largest protocol share %.1f%%: report %s"
          % (top, "printed" if printed else "not printed"))


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, path = argv[1], argv[2]
    if cmd == "table":
        table(path, int(argv[3]), argv[4])
    elif cmd == "json":
        json_doc(path, int(argv[3]), argv[4])
    elif cmd == "entry":
        entry(path, argv[3], argv[4:])
    elif cmd == "flush":
        flush(path, argv[3])
    elif cmd == "auto":
        auto(path)
    elif cmd == "no-report":
        no_report(path)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
