#!/usr/bin/env python3
"""api-coverage.py - no OpenMP routine or runtime entry is silently missing.

Lists every routine LLVM 14's omp.h declares (from clang's JSON AST dump of
a file that includes it: the non-static function declarations whose
location is omp.h, so ompc_* for the names omp.h renames), the symbols
libdsmomp.so exports (nm -D --defined-only) and the names the API coverage
tables of doc/usage.md give (between the "api-coverage: begin" and "end"
comments, in backquotes), and fails when a routine is missing from the
library or the tables.  The same for the runtime entries of
host-kmpc-entries.txt (those whose status says they exist), and that list
must classify every entry of clang 14's OMPKinds.def.

    api-coverage.py CLANG NM LIBDSMOMP USAGE_MD ENTRIES [OMPKINDS_DEF]

Test helper, suite 'forkjoin'.  Exit status 0 when nothing is missing.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

EXISTING = {"supported", "unsupported", "tasks"}
ABSENT = {"device-only", "not-emitted"}


def omp_h_routines(clang):
    """Names of the functions omp.h declares, as the linker sees them."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "omp_h.c")
        with open(src, "w") as f:
            f.write("#include <omp.h>\n")
        out = subprocess.run(
            [clang, "-fopenmp", "-fsyntax-only", "-Xclang", "-ast-dump=json",
             src], check=True, capture_output=True, text=True).stdout
    tree = json.loads(out)
    current = None
    names = set()

    def update(loc):
        nonlocal current
        if not isinstance(loc, dict):
            return
        if "expansionLoc" in loc:      # a name a macro made (ompc_*)
            update(loc["expansionLoc"])
        elif "file" in loc:
            current = loc["file"]

    for node in tree.get("inner", []):
        update(node.get("range", {}).get("begin"))
        update(node.get("loc"))
        update(node.get("range", {}).get("end"))
        if (node.get("kind") == "FunctionDecl" and current and
                os.path.basename(current) == "omp.h" and
                node.get("storageClass") != "static"):
            names.add(node["name"])
    if len(names) < 50:
        sys.exit("api-coverage: found only %d routines in omp.h: the AST "
                 "dump was not understood" % len(names))
    return names


def exported(nm, lib):
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            syms.add(parts[2].split("@")[0])
    return syms


def documented(usage_md):
    text = open(usage_md).read()
    m = re.search(r"<!-- api-coverage: begin -->(.*?)<!-- api-coverage: end -->",
                  text, re.S)
    if not m:
        sys.exit("api-coverage: %s has no api-coverage tables" % usage_md)
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", m.group(1)))


def entry_list(path):
    entries = {}
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) != 2 or line[1] not in EXISTING | ABSENT:
            sys.exit("api-coverage: %s: bad line %r" % (path, " ".join(line)))
        entries[line[0]] = line[1]
    return entries


def omp_kinds(path):
    names = set()
    for m in re.finditer(r"^__OMP_RTL\(\s*([A-Za-z_][A-Za-z0-9_]*)",
                         open(path).read(), re.M):
        name = m.group(1)
        if not name.startswith("omp_") and name != "__last":
            names.add(name)
    return names


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    clang, nm, lib, usage_md, entries_path = sys.argv[1:6]
    kinds_path = sys.argv[6] if len(sys.argv) == 7 else ""
    routines = omp_h_routines(clang)
    syms = exported(nm, lib)
    doc = documented(usage_md)
    entries = entry_list(entries_path)
    failures = []

    def in_doc(name):
        # omp.h renames omp_*_affinity* to ompc_*: either name will do
        return name in doc or (name.startswith("ompc_") and
                               "omp_" + name[5:] in doc)

    for name in sorted(routines):
        if name not in syms:
            failures.append("omp.h routine %s: not exported by %s" %
                            (name, os.path.basename(lib)))
        if not in_doc(name):
            failures.append("omp.h routine %s: not in doc/usage.md's API "
                            "tables" % name)
    for name, status in sorted(entries.items()):
        if status in EXISTING and name not in syms:
            failures.append("runtime entry %s (%s): not exported" %
                            (name, status))
        if status in ABSENT and name in syms:
            failures.append("runtime entry %s is exported: its status in "
                            "%s should say so" % (name, entries_path))
        if name not in doc:
            failures.append("runtime entry %s: not in doc/usage.md's API "
                            "tables" % name)
    if kinds_path and os.path.exists(kinds_path):
        for name in sorted(omp_kinds(kinds_path) - set(entries)):
            failures.append("OMPKinds.def entry %s: not classified in %s" %
                            (name, os.path.basename(entries_path)))
        checked_kinds = "; every OMPKinds.def entry classified"
    else:
        checked_kinds = "; OMPKinds.def not found, not compared"
    for f in failures:
        print("api-coverage: " + f)
    print("api-coverage: %d omp.h routines, %d runtime entries (%d "
          "provided)%s; %d problem(s)" %
          (len(routines), len(entries),
           sum(1 for s in entries.values() if s in EXISTING), checked_kinds,
           len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
