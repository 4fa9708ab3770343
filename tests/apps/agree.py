#!/usr/bin/env python3
"""agree.py - runs several versions of one application kernel on the same
problem and checks that every one exits 0 and that their answers agree:
the "key=value" fields named by --fields, compared with a relative
tolerance (reductions may sum in different orders), and with --expect
against a known answer.

Test helper for tests/apps (suite 'apps').  Usage:
  agree.py --fields residual,checksum [--tolerance 1e-12]
           [--expect checksum=21.3125] "CMD1" "CMD2" ...
Exit status 0 when all agree, 1 otherwise."""
import argparse
import shlex
import subprocess
import sys


def fields_of(output, names):
    for line in output.splitlines():
        pairs = dict(item.split("=", 1) for item in line.split() if "=" in item)
        if all(name in pairs for name in names):
            return {name: float(pairs[name]) for name in names}
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fields", required=True)
    parser.add_argument("--tolerance", type=float, default=1e-12)
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("commands", nargs="+")
    args = parser.parse_args()
    names = args.fields.split(",")
    reference = None
    if args.expect:
        known = dict(item.split("=", 1) for item in args.expect)
        reference = ("--expect", {k: float(v) for k, v in known.items()})
        names = sorted(set(names) | set(known))  # found must have both
    failed = False
    for command in args.commands:
        run = subprocess.run(shlex.split(command), capture_output=True,
                             text=True, timeout=60)
        sys.stdout.write(run.stdout)
        sys.stderr.write(run.stderr)
        if run.returncode != 0:
            print(f"agree: '{command}' exited {run.returncode}")
            failed = True
            continue
        found = fields_of(run.stdout, names)
        if found is None:
            print(f"agree: '{command}' printed no line with {names}")
            failed = True
            continue
        if reference is None:
            reference = (command, found)
            continue
        for name in reference[1]:
            want, got = reference[1][name], found[name]
            if abs(got - want) > args.tolerance * max(abs(want), 1e-300):
                print(f"agree: {name} {got!r} from '{command}' differs from "
                      f"{want!r} from '{reference[0]}'")
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
