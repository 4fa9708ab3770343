#!/usr/bin/env python3
"""compare.py - runs each application kernel on the same problem as
libomp (1 process), dsmomp (1 node and N nodes, under dsmrun) and MPICH
(N x T ranks), in one session, Jacobi's Fortran version with libgomp
and dsmomp, and a kernel's C++ port (SpMV) beside its C version;
prints a table of times, rates, speed-ups
and the ratios dsmomp/MPI and dsmomp/libomp, the DSM statistics of every
dsmomp run (DSM_STATS=json, per iteration), checks that every run
exits 0 and that all answers agree, and writes JSON and a PNG plot.

Driver of scripts/run-apps.sh (options: --help); needs the
build tree's apps/ programs.  Exit status 0 when every run succeeded and
agreed, 1 otherwise."""
import argparse
import json
import os
import shlex
import subprocess
import sys

# Per kernel: the programs' stem, the fields that must agree, the rate
# field and its unit, the dsmomp variants, the options for a problem size,
# and the seconds one run may take.
KERNELS = {
    "jacobi": {
        "agree": ["residual", "checksum"],
        "rate": "updates_per_s",
        "unit": "Mupd/s",
        "scale": 1e-6,
        "variants": {"sweep": ["-v", "sweep"], "region": ["-v", "region"]},
        "problem": lambda a: ["-n", str(a.jacobi_n), "-k", str(a.jacobi_k)],
        "iterations": lambda a: a.jacobi_k,
        # (what, numerator run, denominator run, bound, "max" or "min")
        "targets": [("dsmomp region time / MPI time", "dsmomp N x T region",
                     "mpi N*T ranks", 1.10, "max")],
        # the Fortran version (jacobi_omp.f90): gfortran with libgomp, and
        # dsmfort under dsmrun
        "fortran": True,
    },
    "spmv": {
        "agree": ["checksum"],
        "rate": "mflops",
        "unit": "Mflop/s",
        "scale": 1.0,
        "variants": {"nonzeros": ["-v", "nonzeros"], "rows": ["-v", "rows"]},
        "problem": lambda a: ["-g", a.spmv_matrix, "-s", str(a.spmv_s),
                              "-k", str(a.spmv_k)],
        "iterations": lambda a: a.spmv_k,
        "targets": [("dsmomp nonzeros time / MPI time",
                     "dsmomp N x T nonzeros", "mpi N*T ranks", 1.25, "max"),
                    ("dsmomp 1-node time / dsmomp nonzeros time",
                     "dsmomp 1 x T", "dsmomp N x T nonzeros", 1.8, "min"),
                    ("dsmomp C++ nonzeros time / dsmomp C nonzeros time",
                     "dsmomp N x T c++ nonzeros", "dsmomp N x T nonzeros",
                     1.10, "max")],
        # the C++ port (apps/spmv_cxx.cpp): its programs' stem
        "cxx": "spmv_cxx",
    },
    "gmres": {
        "agree": ["iterations", "solution_sum"],
        "rate": "iterations_per_s",
        "unit": "iter/s",
        "scale": 1.0,
        "variants": {"tuned": ["-v", "tuned"], "base": ["-v", "base"]},
        "problem": lambda a: ["-g", a.gmres_matrix, "-s", str(a.gmres_s),
                              "-m", str(a.gmres_m)],
        "iterations": lambda a: None,   # each run reports its own count
        "targets": [("dsmomp tuned time / MPI time", "dsmomp N x T tuned",
                     "mpi N*T ranks", 1.5, "max")],
    },
}

STAT_KEYS = ["read_faults", "write_faults", "pages_fetched", "twins",
             "diffs_sent", "diff_bytes_sent", "write_notices_sent",
             "invalidations", "barriers", "messages_sent", "rma_gets",
             "rma_puts", "pages_migrated", "eager_pages", "refreshes",
             "direct_pages", "protocol_ns"]


def parse_result(stdout, kernel):
    """The kernel's "NAME: key=value ..." line as a dict."""
    for line in stdout.splitlines():
        if line.startswith(kernel + ": "):
            pairs = (item.split("=", 1) for item in line.split()[1:])
            return {k: (float(v) if k != "version" else v) for k, v in pairs}
    return None


def parse_stats(stdout):
    """The per-node JSON objects DSM_STATS=json prints (not always on a
    line of their own)."""
    decoder = json.JSONDecoder()
    nodes, at = [], 0
    while True:
        at = stdout.find('{"node"', at)
        if at < 0:
            return nodes
        obj, end = decoder.raw_decode(stdout, at)
        nodes.append(obj)
        at = end


# counters only: the sharing report's per-page accounting would be part of
# the time measured
DSM_COUNTERS = {"DSM_STATS": "json", "DSM_REPORT": "off"}


def run(command, env_extra, timeout):
    env = dict(os.environ, **env_extra)
    done = subprocess.run(command, capture_output=True, text=True, env=env,
                          timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def ratio(rows, numerator, denominator):
    times = {r["label"]: r["time"] for r in rows if r["ok"]}
    if numerator not in times or denominator not in times:
        return float("nan")      # a missing run meets no target
    return times[numerator] / times[denominator]


def runs_for(kernel, spec, a):
    """(label, command, environment, is_dsm) for every run of KERNEL."""
    bins = a.bindir
    problem = spec["problem"](a)
    first_variant = list(spec["variants"].values())[0]
    workers = a.nodes * a.threads
    dsmrun = os.path.join(a.builddir, "runtime", "launcher", "dsmrun")
    libomp = os.path.join(bins, kernel + "_libomp")
    dsm = os.path.join(bins, kernel + "_dsm")
    mpi = os.path.join(bins, kernel + "_mpi")
    yield ("libomp 1 x 1", [libomp] + problem + first_variant,
           {"OMP_NUM_THREADS": "1"}, False)
    yield ("libomp 1 x N*T", [libomp] + problem + first_variant,
           {"OMP_NUM_THREADS": str(workers)}, False)
    yield ("dsmomp 1 x T",
           [dsmrun, "-n", "1", "-t", str(a.threads), dsm] + problem +
           first_variant, DSM_COUNTERS, True)
    for name, flags in spec["variants"].items():
        yield ("dsmomp N x T " + name,
               [dsmrun, "-n", str(a.nodes), "-t", str(a.threads), dsm] +
               problem + flags, DSM_COUNTERS, True)
    yield ("mpi N*T ranks", ["mpiexec", "-n", str(workers), mpi] + problem,
           {}, False)
    if spec.get("fortran"):
        gomp = os.path.join(bins, kernel + "_fortran_libgomp")
        fdsm = os.path.join(bins, kernel + "_fortran_dsm")
        yield ("libgomp fortran 1 x N*T", [gomp] + problem + first_variant,
               {"OMP_NUM_THREADS": str(workers)}, False)
        for name, flags in spec["variants"].items():
            yield ("dsmomp N x T fortran " + name,
                   [dsmrun, "-n", str(a.nodes), "-t", str(a.threads), fdsm] +
                   problem + flags, {"DSM_STATS": "json"}, True)
    if "cxx" in spec:
        cxx_libomp = os.path.join(bins, spec["cxx"] + "_libomp")
        cxx_dsm = os.path.join(bins, spec["cxx"] + "_dsm")
        yield ("libomp 1 x N*T c++", [cxx_libomp] + problem + first_variant,
               {"OMP_NUM_THREADS": str(workers)}, False)
        for name, flags in spec["variants"].items():
            yield ("dsmomp N x T c++ " + name,
                   [dsmrun, "-n", str(a.nodes), "-t", str(a.threads),
                    cxx_dsm] + problem + flags, {"DSM_STATS": "json"}, True)


def measure(kernel, spec, a):
    """Best of a.repeat runs of every version, taken in rounds (every
    version once per round), so that a spell of load on the shared machine
    falls on every version alike rather than on one."""
    runs = list(runs_for(kernel, spec, a))
    best = [None] * len(runs)
    for _ in range(a.repeat):
        for i, (label, command, env, is_dsm) in enumerate(runs):
            if best[i] is not None and not best[i]["ok"]:
                continue
            status, out, err = run(command, env, a.timeout)
            result = parse_result(out, kernel)
            if status != 0 or result is None:
                sys.stderr.write(err)
                print("compare: %s failed (status %d): %s" %
                      (label, status, shlex.join(command)))
                best[i] = {"label": label, "ok": False, "status": status,
                           "command": shlex.join(command)}
                continue
            if best[i] is None or result["time"] < best[i]["time"]:
                best[i] = dict(result, label=label, ok=True,
                               command=shlex.join(command))
                if is_dsm:
                    best[i]["dsm_stats"] = parse_stats(out)
    return best


def agreement(rows, fields):
    good = [r for r in rows if r["ok"]]
    problems = []
    for r in good[1:]:
        for f in fields:
            want, got = good[0][f], r[f]
            if abs(got - want) > 1e-9 * max(abs(want), 1e-300):
                problems.append("%s %s=%r differs from %s %r" %
                                (r["label"], f, got, good[0]["label"], want))
    return problems


def print_table(kernel, spec, rows, a):
    base = next((r["time"] for r in rows
                 if r["ok"] and r["label"] == "libomp 1 x 1"), None)
    mpi = next((r["time"] for r in rows
                if r["ok"] and r["label"].startswith("mpi")), None)
    lib = next((r["time"] for r in rows if r["ok"] and
                r["label"] == "libomp 1 x N*T"), None)
    print("\n%s: %s   (N=%d nodes, T=%d threads, best of %d)" %
          (kernel, " ".join(spec["problem"](a)), a.nodes, a.threads,
           a.repeat))
    print("%-24s %10s %10s %9s %10s %12s" %
          ("run", "time s", spec["unit"], "speed-up", "x MPI", "x libomp"))
    for r in rows:
        if not r["ok"]:
            print("%-24s FAILED (status %d)" % (r["label"], r["status"]))
            continue
        cells = [r["time"], r[spec["rate"]] * spec["scale"],
                 base / r["time"] if base else float("nan")]
        dsm = r["label"].startswith("dsmomp")
        cells.append(r["time"] / mpi if dsm and mpi else float("nan"))
        cells.append(r["time"] / lib if dsm and lib else float("nan"))
        r.update(speedup=cells[2], vs_mpi=cells[3], vs_libomp=cells[4])
        print("%-24s %10.4f %10.1f %9.2f %10.2f %12.2f" %
              tuple([r["label"]] + cells))
    iterations = spec["iterations"](a)
    print("DSM statistics per iteration (summed over nodes; protocol time "
          "in ms):")
    print("%-24s" % "run" + "".join(" %10s" % k[:10] for k in STAT_KEYS))
    for r in rows:
        if r["ok"] and r.get("dsm_stats"):
            total = {k: sum(n.get(k, 0) for n in r["dsm_stats"])
                     for k in STAT_KEYS}
            total["protocol_ns"] /= 1e6
            count = iterations or max(r.get("iterations", 1), 1)
            print("%-24s" % r["label"] + "".join(
                " %10.1f" % (total[k] / count) for k in STAT_KEYS))


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("compare: matplotlib missing, no plot written")
        return
    fig, axes = plt.subplots(1, len(results), squeeze=False,
                             figsize=(6 * len(results), 4))
    for ax, (kernel, entry) in zip(axes[0], results.items()):
        rows = [r for r in entry["runs"] if r["ok"]]
        rate = KERNELS[kernel]["rate"]
        scale = KERNELS[kernel]["scale"]
        ax.barh([r["label"] for r in rows], [r[rate] * scale for r in rows])
        ax.set_xlabel(KERNELS[kernel]["unit"])
        ax.set_title(kernel)
        ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print("compare: plot written to", path)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--builddir", default="build")
    p.add_argument("--nodes", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--kernels", default=",".join(KERNELS))
    p.add_argument("--jacobi-n", type=int, default=1000)
    p.add_argument("--jacobi-k", type=int, default=100)
    p.add_argument("--spmv-matrix", default="lap7",
                   choices=["lap7", "lap27", "band"])
    p.add_argument("--spmv-s", type=int, default=64)
    p.add_argument("--spmv-k", type=int, default=100)
    p.add_argument("--gmres-matrix", default="lap7",
                   choices=["lap7", "lap27", "band"])
    p.add_argument("--gmres-s", type=int, default=32)
    p.add_argument("--gmres-m", type=int, default=30)
    p.add_argument("--out", default=None,
                   help="directory for apps.json and apps.png "
                        "(default BUILDDIR/apps-results)")
    a = p.parse_args()
    a.bindir = os.path.join(a.builddir, "apps")
    out = a.out or os.path.join(a.builddir, "apps-results")
    os.makedirs(out, exist_ok=True)
    results, failed = {}, False
    for kernel in a.kernels.split(","):
        if kernel not in KERNELS:
            print("compare: unknown kernel '%s'" % kernel, file=sys.stderr)
            return 2
        spec = KERNELS[kernel]
        rows = measure(kernel, spec, a)
        print_table(kernel, spec, rows, a)
        problems = agreement(rows, spec["agree"])
        failed |= bool(problems) or not all(r["ok"] for r in rows)
        for line in problems:
            print("compare: DISAGREE:", line)
        if not problems and all(r["ok"] for r in rows):
            print("all %d runs agree on %s" % (len(rows),
                                               ", ".join(spec["agree"])))
        targets = []
        for what, num, den, bound, kind in spec["targets"]:
            value = ratio(rows, num, den)
            met = value <= bound if kind == "max" else value >= bound
            print("target %s %s %.2f: %.2f %s" %
                  (what, "<=" if kind == "max" else ">=", bound, value,
                   "met" if met else "MISSED"))
            targets.append({"what": what, "bound": bound, "kind": kind,
                            "value": value, "met": met})
        results[kernel] = {"problem": spec["problem"](a), "runs": rows,
                           "agree": not problems, "targets": targets}
    meta = {"nodes": a.nodes, "threads": a.threads, "repeat": a.repeat}
    with open(os.path.join(out, "apps.json"), "w") as f:
        json.dump({"setup": meta, "kernels": results}, f, indent=1)
    print("compare: results written to", os.path.join(out, "apps.json"))
    plot(results, os.path.join(out, "apps.png"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
