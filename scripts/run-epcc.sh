#!/usr/bin/env bash
# run-epcc.sh - EPCC-style overheads of every OpenMP construct and loop
# schedule on dsmomp, beside libomp and MPI, measured in one session:
#
#   1 node  x 2 threads   libomp (clang -fopenmp) and dsmomp (dsmrun -n 1 -t 2)
#   2 nodes x 1 thread    dsmomp (dsmrun -n 2 -t 1) and MPI (mpiexec -n 2)
#   2 nodes x 2 threads   dsmomp (dsmrun -n 2 -t 2)
#   the GNU column        the same programs built by gcc: against libgomp
#                         (1 x 2) and by dsmgcc (GCC's ABI on dsmomp, every
#                         layout above)
#   transport floors      bench/run-transport-bench.sh (UCX, same session)
#
# Prints a table (rows: construct and layout; columns: libomp, dsmomp, MPI,
# ratios, Intel Cluster OpenMP's published InfiniBand figure, then libgomp
# and dsmomp built by gcc) and checks the targets of issue 6; writes the
# raw outputs, epcc.json and epcc.png.
#
# Usage: scripts/run-epcc.sh [OUTDIR]      (default BUILD/epcc-results)
# Environment:
#   DSM_BUILDDIR     build directory (default build); built by
#                    scripts/setup.sh when a program is missing
#   EPCC_POLICIES    OMP_WAIT_POLICY values, one whole session and table
#                    each (default "active passive": libomp's PARALLEL is
#                    bimodal on 2 cores unless active; spinning threads
#                    steal the core of the other node, so both are shown)
#   EPCC_ARGS        options of every benchmark (default "-r 20 -t 1000
#                    -d 0.1": 20 outer repetitions of 1 ms, 0.1 us delay)
#   EPCC_REPEATS     every run is repeated this many times and, per row,
#                    the least disturbed run (smallest standard deviation
#                    over its outer repetitions) is kept, on every side
#                    alike: the machine is shared (default 3); the MPI
#                    targets use the median over the repeats of the ratio
#                    measured in the same repeat
#   EPCC_STAT        figure the table uses: median (default) or mean
#   EPCC_TRANSPORT_ITERS  iterations of the transport floors (default 20000;
#                    0 skips them)
# Figures are microseconds of overhead per construct.
set -euo pipefail
cd "$(dirname "$0")/.."

builddir=${DSM_BUILDDIR:-build}
policies=${EPCC_POLICIES:-active passive}
epcc_args=${EPCC_ARGS:--r 20 -t 1000 -d 0.1}
repeats=${EPCC_REPEATS:-3}
stat=${EPCC_STAT:-median}
transport_iters=${EPCC_TRANSPORT_ITERS:-20000}

bench=$builddir/bench/epcc
dsmrun=$builddir/runtime/launcher/dsmrun
programs=("$dsmrun" "$bench/syncbench_dsmomp" "$bench/schedbench_dsmomp"
          "$bench/syncbench_libomp" "$bench/schedbench_libomp"
          "$bench/syncbench_dsmgnu" "$bench/schedbench_dsmgnu"
          "$bench/syncbench_libgomp" "$bench/schedbench_libgomp"
          "$bench/mpibench")
for p in "${programs[@]}"; do
    if [ ! -x "$p" ]; then
        DSM_BUILDDIR=$builddir scripts/setup.sh
        break
    fi
done
for p in "${programs[@]}"; do
    [ -x "$p" ] || { echo "run-epcc: $p was not built" >&2; exit 2; }
done

out=${1:-$builddir/epcc-results}
rm -rf "$out/raw"
mkdir -p "$out/raw"
raw=$out/raw

# run NAME COMMAND...: one benchmark run, its output kept in
# raw/POLICY/NAME.REPEAT.txt.
run() {
    local name=$1
    shift
    echo "run-epcc: $OMP_WAIT_POLICY #$k $name: $*" >&2
    # shellcheck disable=SC2086
    "$@" $epcc_args >"$raw/$OMP_WAIT_POLICY/$name.$k.txt"
}

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "EPCC_ARGS=$epcc_args; per row the least disturbed of $repeats runs"
    echo "statistic: $stat"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "command: scripts/run-epcc.sh $*"
} >"$raw/session.txt"

for policy in $policies; do
    export OMP_WAIT_POLICY=$policy
    mkdir -p "$raw/$policy"
    for k in $(seq "$repeats"); do
        for b in syncbench schedbench; do
            OMP_NUM_THREADS=2 run "${b}_libomp_1x2" "$bench/${b}_libomp"
            run "${b}_dsmomp_1x2" "$dsmrun" -n 1 -t 2 "$bench/${b}_dsmomp"
            run "${b}_dsmomp_2x1" "$dsmrun" -n 2 -t 1 "$bench/${b}_dsmomp"
            run "${b}_dsmomp_2x2" "$dsmrun" -n 2 -t 2 "$bench/${b}_dsmomp"
            OMP_NUM_THREADS=2 run "${b}_libgomp_1x2" "$bench/${b}_libgomp"
            run "${b}_dsmgnu_1x2" "$dsmrun" -n 1 -t 2 "$bench/${b}_dsmgnu"
            run "${b}_dsmgnu_2x1" "$dsmrun" -n 2 -t 1 "$bench/${b}_dsmgnu"
            run "${b}_dsmgnu_2x2" "$dsmrun" -n 2 -t 2 "$bench/${b}_dsmgnu"
        done
        run mpibench_mpi_2x1 mpiexec -n 2 "$bench/mpibench"
    done
done
unset OMP_WAIT_POLICY
if [ "$transport_iters" -gt 0 ]; then
    echo "run-epcc: transport floors" >&2
    bench/run-transport-bench.sh "$builddir" "$transport_iters" 1 \
        >"$raw/transport.txt"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" \
    >>"$raw/session.txt"

/usr/bin/python3 - "$out" "$stat" $policies <<'PYTHON'
import json, os, sys

out, stat, policies = sys.argv[1], sys.argv[2], sys.argv[3:]
raw = os.path.join(out, "raw")
COLUMNS = ["mean", "median", "min", "max", "sd", "outliers", "inner",
           "reference"]
# Intel Cluster OpenMP, 2 nodes, InfiniBand (published EPCC figures; the
# 2x2 rows are set beside its 4 threads per node figures).
INTEL = {"2x1": {"PARALLEL_FOR": 464, "BARRIER": 464, "REDUCTION": 465},
         "2x2": {"PARALLEL_FOR": 777, "BARRIER": 631, "REDUCTION": 1195}}
INTEL_SMALLEST = 464   # the bar for constructs it published no figure for
MPI_EQUIVALENT = {"PARALLEL": "BCAST_BARRIER",
                  "PARALLEL_FOR": "BCAST_BARRIER",
                  "BARRIER": "BARRIER", "REDUCTION": "ALLREDUCE"}
LIBOMP_FLOOR = 0.05   # the method's resolution here, us (at the least)


def parse(path):
    header, rows = "", {}
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "#":
            header = line[2:].strip()
        elif f[0] != "test" and len(f) == 9:
            rows[f[0]] = dict(zip(COLUMNS, map(float, f[1:])))
    return header, rows


def load(policy):
    """Every run of a policy; per test the least disturbed repeat (smallest
    sd: the smallest figure would pick the most negative noise)."""
    runs, folder = {}, os.path.join(raw, policy)
    for file in sorted(os.listdir(folder)):
        name = file.rsplit(".", 2)[0]
        header, rows = parse(os.path.join(folder, file))
        run = runs.setdefault(name, {"header": header, "repeats": [],
                                     "best": {}})
        run["repeats"].append(rows)
        for test, row in rows.items():
            best = run["best"].get(test)
            if best is None or row["sd"] < best["sd"]:
                run["best"][test] = row
    return runs


def ratio(a, b):
    return None if a is None or b is None or b <= 0 else a / b


def paired(runs, run, test, other, op):
    """run's test over other's op measured in the same round (the runs'
    Kth repeats), the median over the rounds: a spell of load falls on
    both sides of each ratio alike."""
    a = runs.get(run, {}).get("repeats", [])
    b = runs.get(other, {}).get("repeats", [])
    r = sorted(x[test][stat] / y[op][stat] for x, y in zip(a, b)
               if test in x and op in y and y[op][stat] > 0)
    return r[len(r) // 2] if r else None


def analyse(runs):
    def fig(run, test):
        r = runs.get(run, {}).get("best", {}).get(test)
        return None if r is None else r[stat]

    def over_rounds(run, test):
        """The median over the rounds: the 1x2 check compares these, not
        the least disturbed runs.  A round whose reference loop was
        disturbed moves by the reference's own error and can still have
        the smallest spread (libomp's GUIDED_32 came out at -1.6 us in
        two such rounds, reference 22.5 us instead of 13)."""
        r = sorted(x[test][stat] for x in
                   runs.get(run, {}).get("repeats", []) if test in x)
        return r[len(r) // 2] if r else None

    def floor(run, test):
        """A libomp figure is known only to within its run's spread: a
        schedule test's reference loop is 13-30 us, and its figure moves
        by tenths of a microsecond (often below zero); 3 x such a figure
        says nothing.  So it is floored at the spread (sd over the outer
        repetitions) of the run it comes from, and at LIBOMP_FLOOR."""
        r = runs.get(run, {}).get("best", {}).get(test)
        return LIBOMP_FLOOR if r is None else max(LIBOMP_FLOOR, r["sd"])
    table, checks = [], []
    for bench in ("syncbench", "schedbench"):
        for test in runs.get(bench + "_dsmomp_2x1", {}).get("best", {}):
            for layout in ("1x2", "2x1", "2x2"):
                d = fig(f"{bench}_dsmomp_{layout}", test)
                lib = fig(f"{bench}_libomp_1x2", test) if layout == "1x2" else None
                lib_floor = floor(f"{bench}_libomp_1x2", test)
                mpi_op = MPI_EQUIVALENT.get(test) if (
                    bench == "syncbench" and layout == "2x1") else None
                mpi = fig("mpibench_mpi_2x1", mpi_op) if mpi_op else None
                pair = paired(runs, f"{bench}_dsmomp_{layout}", test,
                              "mpibench_mpi_2x1", mpi_op) if mpi_op else None
                intel = (INTEL.get(layout, {}).get(test)
                         if bench == "syncbench" else None)
                gomp = (fig(f"{bench}_libgomp_1x2", test)
                        if layout == "1x2" else None)
                d_gnu = fig(f"{bench}_dsmgnu_{layout}", test)
                table.append({
                    "benchmark": bench, "construct": test, "layout": layout,
                    "libomp": lib, "dsmomp": d, "mpi": mpi, "mpi_op": mpi_op,
                    "dsmomp_over_libomp": ratio(d, max(lib, lib_floor))
                    if lib is not None else None,
                    "dsmomp_over_mpi": ratio(d, mpi),
                    "dsmomp_over_mpi_same_round": pair,
                    "intel_cluster_openmp": intel,
                    "intel_over_dsmomp": ratio(intel, d),
                    "libgomp": gomp, "dsmomp_gcc": d_gnu,
                    "dsmomp_gcc_over_dsmomp": ratio(d_gnu, d)})
                if d is None:
                    continue
                if lib is not None:
                    d_r = over_rounds(f"{bench}_dsmomp_1x2", test)
                    lib_r = over_rounds(f"{bench}_libomp_1x2", test)
                    shown = (f"{lib_r:.3f}" if lib_r >= lib_floor else
                             f"{lib_r:.3f}, floored at {lib_floor:.3f}")
                    checks.append((f"{test} 1x2 <= 3 x libomp",
                                   d_r <= 3 * max(lib_r, lib_floor),
                                   f"{d_r:.3f} vs 3 x {shown}, medians "
                                   "over the rounds"))
                if layout == "2x1" and bench == "syncbench":
                    if pair is not None and test != "PARALLEL":
                        checks.append((f"{test} 2x1 <= 2 x MPI {mpi_op}",
                                       pair <= 2,
                                       f"{pair:.2f} x, same round "
                                       f"(least disturbed: {d:.3f} vs "
                                       f"{mpi:.3f})"))
                    ref = intel if intel is not None else INTEL_SMALLEST
                    note = "" if intel is not None else ", smallest published"
                    checks.append((f"{test} 2x1 100x below Cluster OpenMP "
                                   f"({ref} us{note})", d * 100 <= ref,
                                   f"{d:.3f} vs {ref / 100:.2f}"))
    return table, checks


def cell(v, fmt="{:.2f}"):
    return "-" if v is None else fmt.format(v)


session = open(os.path.join(raw, "session.txt")).read()
lines = [session.rstrip()]
report = {"session": session, "statistic": stat, "policies": {}}
fmt = ("{:<14} {:>6} {:>9} {:>10} {:>9} {:>10} {:>8} {:>8} {:>10} {:>10}"
       " | {:>8} {:>9} {:>8}")
for policy in policies:
    runs = load(policy)
    table, checks = analyse(runs)
    report["policies"][policy] = {
        "runs": runs, "table": table,
        "targets": [{"target": n, "met": ok, "detail": d}
                    for n, ok, d in checks]}
    lines += ["", f"== OMP_WAIT_POLICY={policy}: EPCC overheads, us per "
              f"construct ({stat} of the outer repetitions, least disturbed "
              "run); ClusterOMP: Intel's published figure, 2 nodes, "
              "InfiniBand (2x2 rows: its 4 threads per node figure)", "",
              "dsm/MPI: of the figures shown; round: the median over the "
              "rounds of the ratio measured in the same round", "",
              "GNU column (after |): the same program built by gcc, against "
              "libgomp (1x2) and by dsmgcc (GCC's ABI on dsmomp); gnu/clang: "
              "dsmomp built by gcc over dsmomp built by clang", "",
              fmt.format("construct", "layout", "libomp", "dsmomp", "MPI",
                         "dsm/libomp", "dsm/MPI", "round", "ClusterOMP",
                         "CluOMP/dsm", "libgomp", "dsm(gcc)", "gnu/clang")]
    last = None
    for r in table:
        if r["benchmark"] != last:
            lines.append(f"-- {r['benchmark']}")
            last = r["benchmark"]
        lines.append(fmt.format(
            r["construct"], r["layout"], cell(r["libomp"]), cell(r["dsmomp"]),
            cell(r["mpi"]), cell(r["dsmomp_over_libomp"], "{:.1f}"),
            cell(r["dsmomp_over_mpi"], "{:.1f}"),
            cell(r["dsmomp_over_mpi_same_round"], "{:.2f}"),
            cell(r["intel_cluster_openmp"], "{:.0f}"),
            cell(r["intel_over_dsmomp"], "{:.0f}"),
            cell(r["libgomp"]), cell(r["dsmomp_gcc"]),
            cell(r["dsmomp_gcc_over_dsmomp"], "{:.1f}")))
    mpi = runs.get("mpibench_mpi_2x1", {}).get("best", {})
    lines += ["", "MPI (MPICH, mpiexec -n 2): " + ", ".join(
        f"{k} {v[stat]:.2f}" for k, v in mpi.items()),
        "", f"targets ({policy}; a libomp figure is floored at its run's "
        f"sd, and at {LIBOMP_FLOOR} us):"]
    for name, ok, detail in checks:
        lines.append(f"  {'met   ' if ok else 'MISSED'} {name}: {detail}")
    lines.append(f"  {sum(ok for _, ok, _ in checks)} of {len(checks)} met")

transport = os.path.join(raw, "transport.txt")
if os.path.exists(transport):
    report["transport"] = open(transport).read()
    lines += ["", "transport floors (same session):",
              report["transport"].rstrip()]
text = "\n".join(lines) + "\n"
open(os.path.join(out, "table.txt"), "w").write(text)
sys.stdout.write(text)
with open(os.path.join(out, "epcc.json"), "w") as f:
    json.dump(report, f, indent=1)

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig_, axes = plt.subplots(len(policies), 1, squeeze=False,
                          figsize=(12, 4.5 * len(policies)))
for ax, policy in zip(axes[:, 0], policies):
    runs = report["policies"][policy]["runs"]
    def fig(run, test):
        r = runs.get(run, {}).get("best", {}).get(test)
        return None if r is None else r[stat]

    tests = list(runs.get("syncbench_dsmomp_2x1", {}).get("best", {}))
    series = [
        ("libomp 1x2", lambda t: fig("syncbench_libomp_1x2", t)),
        ("dsmomp 1x2", lambda t: fig("syncbench_dsmomp_1x2", t)),
        ("dsmomp 2x1", lambda t: fig("syncbench_dsmomp_2x1", t)),
        ("MPI 2 procs", lambda t: fig("mpibench_mpi_2x1", MPI_EQUIVALENT[t])
         if t in MPI_EQUIVALENT else None),
        ("dsmomp 2x2", lambda t: fig("syncbench_dsmomp_2x2", t)),
        ("libgomp 1x2", lambda t: fig("syncbench_libgomp_1x2", t)),
        ("dsmomp (gcc) 2x1", lambda t: fig("syncbench_dsmgnu_2x1", t)),
        ("Cluster OpenMP 2x1 (IB)", lambda t: INTEL["2x1"].get(t))]
    width = 0.8 / len(series)
    for i, (label, get) in enumerate(series):
        xs, ys = [], []
        for j, t in enumerate(tests):
            v = get(t)
            if v is not None:
                xs.append(j + i * width)
                ys.append(max(v, 0.01))   # log scale: noise <= 0 at 0.01
        ax.bar(xs, ys, width, label=label)
    ax.set_yscale("log")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(tests))])
    ax.set_xticklabels(tests, rotation=20)
    ax.set_ylabel(f"overhead, us ({stat}, log)")
    ax.set_title(f"EPCC syncbench overheads, OMP_WAIT_POLICY={policy}")
    ax.legend(fontsize=8, ncol=3)
fig_.tight_layout()
fig_.savefig(os.path.join(out, "epcc.png"), dpi=100)
print(f"wrote {out}/table.txt, {out}/epcc.json, {out}/epcc.png")
PYTHON
