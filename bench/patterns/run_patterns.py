#!/usr/bin/env python3
"""run_patterns.py - the driver of scripts/run-patterns.sh (issue 19).

Runs every pattern kernel of bench/patterns and the three applications
(apps/: jacobi, spmv, gmres) as libomp 1x1 and 1x2, dsmomp 2x1 on one
host, dsmomp 2x1 across two namespace hosts over TCP, and MPI (2 ranks,
one host and across the hosts) where an equivalent exists, in rounds
(every run once per round, so a spell of load falls on every
configuration alike); keeps the median per configuration; writes
table.md, patterns.json and patterns.png, with the DSM statistics per
step and a cost model (the bytes that must move per step against what
dsmomp moved, and the floor the measured path gives).

The hosts (network namespaces with an sshd each) are made by the shell
script, which passes their names and addresses; without --ns1 the TCP
columns are left out.  Every run checks its own answer; a run that
fails, answers wrongly or hangs is kept in the table as such (a finding),
its processes are ended and the session goes on.  Everything a run
printed is kept in OUT/raw (NAME.CONFIG.ROUND.out/.err/.status and the
DSM_STATS_FILE files); --report-only rebuilds the tables from there.
Run it with Debian's /usr/bin/python3 (matplotlib).  Exit status 0 when
every run succeeded, 1 otherwise."""
import argparse
import datetime
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time

# kernel: (programs' stem, directory, default options, what a step is)
PATTERNS = {
    "adi": ("-n 48", "ADI 48^3: x, y sweeps over z planes, z sweep over y"),
    "fft": ("-n 32", "FFT 32^3 forward + damp + inverse, 2 transposes"),
    "mg": ("-n 64", "multigrid V(2,2)-cycle, 65^3 finest, 6 levels"),
    "cg": ("-n 48", "CG iteration, 7-point CSR 48^3, 2 dot products"),
    "wavefront": ("-n 256", "SSOR forward + backward sweep 256^2, "
                  "pipelined with flush flags"),
    "tiny": ("-n 64", "one parallel for writing 64 doubles on the "
             "master's stack"),
    "reduce": ("-n 200", "one long region with 200 omp-for reductions"),
    "ep": ("-n 131072", "131072 Gaussian pairs, one reduction"),
}
MPI_PATTERNS = {"tiny": "MPI_Bcast + MPI_Barrier per step",
                "reduce": "MPI_Allreduce per reduction"}
# application: (options, libomp/dsmomp variant, what a step is, the
# field that counts the steps or None for the -k value, the options of a
# short run whose statistics are subtracted: set-up and check alike, few
# steps)
APPS = {
    "jacobi": ("-n 1000 -k 200", "-v region", "Jacobi 1000^2 sweep "
               "(one region)", None, "-n 1000 -k 2"),
    "spmv": ("-g lap7 -s 64 -k 100", "-v nonzeros", "SpMV 7-point 64^3 "
             "(split by nonzeros)", None, "-g lap7 -s 64 -k 2"),
    "gmres": ("-g lap7 -s 32 -m 30", "-v tuned", "GMRES(30) iteration, "
              "7-point 32^3 (tuned)", "iterations",
              "-g lap7 -s 32 -m 30 -e 0.5"),
}
CONFIGS = ["libomp 1x1", "libomp 1x2", "dsmomp 2x1 one host",
           "dsmomp 2x1 TCP", "MPI 2 one host", "MPI 2 TCP"]
STAT_KEYS = ["read_faults", "write_faults", "pages_fetched", "twins",
             "diffs_sent", "diff_bytes_sent", "write_notices_sent",
             "invalidations", "refreshes", "barriers", "messages_sent",
             "bytes_sent", "rma_gets", "rma_get_bytes", "pages_migrated",
             "eager_pages", "flush_acquires", "direct_pages", "protocol_ns"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--builddir", default="build")
    p.add_argument("--out", required=True)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget", type=float, default=1.0,
                   help="seconds of timed steps per pattern run")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds one run may take before it counts as hung")
    p.add_argument("--kernels", default=",".join(list(PATTERNS) + list(APPS)))
    p.add_argument("--size", action="append", default=[],
                   metavar="KERNEL=OPTIONS",
                   help="replace a kernel's problem options, e.g. "
                        "'adi=-n 64'")
    p.add_argument("--wait-policy", default="active",
                   help="OMP_WAIT_POLICY of every run ('unset': leave it "
                        "unset)")
    p.add_argument("--report-only", action="store_true",
                   help="run nothing: rebuild the tables from OUT/raw")
    p.add_argument("--ns1", help="network namespace of host 1")
    p.add_argument("--ns2", help="network namespace of host 2")
    p.add_argument("--hosts", help="addresses of the two hosts, a1,a2")
    p.add_argument("--mpi-ssh", help="ssh wrapper for hydra")
    return p.parse_args()


def commands(a, kernel):
    """(config, command, extra environment) of every run of KERNEL."""
    dsmrun = os.path.abspath(os.path.join(a.builddir, "runtime", "launcher",
                                          "dsmrun"))
    if kernel in PATTERNS:
        where = os.path.abspath(os.path.join(a.builddir, "bench", "patterns"))
        options = shlex.split(a.sizes.get(kernel, PATTERNS[kernel][0]))
        options += ["-T", str(a.budget), "-s", "100000000", "-w", "1"]
        libomp = [os.path.join(where, kernel + "_libomp")] + options
        dsm = [os.path.join(where, kernel + "_dsm")] + options
        mpi = ([os.path.join(where, kernel + "_mpi")] + options
               if kernel in MPI_PATTERNS else None)
    else:
        where = os.path.abspath(os.path.join(a.builddir, "apps"))
        problem, variant = APPS[kernel][0], APPS[kernel][1]
        options = shlex.split(a.sizes.get(kernel, problem))
        libomp = ([os.path.join(where, kernel + "_libomp")] + options +
                  shlex.split(variant))
        dsm = ([os.path.join(where, kernel + "_dsm")] + options +
               shlex.split(variant))
        mpi = [os.path.join(where, kernel + "_mpi")] + options
    yield "libomp 1x1", libomp, {"OMP_NUM_THREADS": "1"}
    yield "libomp 1x2", libomp, {"OMP_NUM_THREADS": "2"}
    yield "dsmomp 2x1 one host", [dsmrun, "-n", "2", "-t", "1"] + dsm, {}
    if a.ns1:
        yield ("dsmomp 2x1 TCP",
               ["ip", "netns", "exec", a.ns1, dsmrun, "--hosts", a.hosts] +
               dsm, {"UCX_TLS": "tcp"})
    if mpi:
        yield "MPI 2 one host", ["mpiexec", "-n", "2"] + mpi, {}
        if a.ns1:
            yield ("MPI 2 TCP",
                   ["ip", "netns", "exec", a.ns1, "mpiexec", "-launcher",
                    "ssh", "-launcher-exec", a.mpi_ssh, "-hosts", a.hosts,
                    "-iface", "eth0", "-ppn", "1", "-n", "2", "-genv",
                    "UCX_TLS", "tcp"] + mpi, {})


def end_strays(a, program):
    """Ends what a failed run left in the namespace hosts: the processes
    named PROGRAM there (all started by this session)."""
    for ns in (a.ns1, a.ns2):
        if not ns:
            continue
        try:
            pids = subprocess.run(["ip", "netns", "pids", ns],
                                  capture_output=True, text=True).stdout
        except OSError:
            continue
        for pid in pids.split():
            try:
                with open("/proc/%s/comm" % pid) as f:
                    if f.read().strip() == program[:15]:
                        os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass


def run_one(a, command, env_extra, stem):
    """Runs COMMAND; returns (status or 'timeout', stdout, stderr, seconds).
    The run is its own process group, ended whole on a timeout."""
    env = dict(os.environ, **env_extra)
    if "OMP_NUM_THREADS" not in env_extra:
        env.pop("OMP_NUM_THREADS", None)   # dsmomp: NODES x THREADS
    if a.wait_policy != "unset":
        env["OMP_WAIT_POLICY"] = a.wait_policy
    env["DSM_STATS"] = "json"
    env["DSM_STATS_FILE"] = stem + ".stats.%d"
    # counters only: the per-page accounting of the sharing report would
    # be part of the time measured
    env.setdefault("DSM_REPORT", "off")
    env["DSM_TIMEOUT"] = env.get("DSM_TIMEOUT", "30")
    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=a.timeout)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        status = "timeout"
    seconds = time.monotonic() - start
    with open(stem + ".out", "w") as f:
        f.write(out)
    with open(stem + ".err", "w") as f:
        f.write(err)
    with open(stem + ".status", "w") as f:
        f.write("%s %.3f\n" % (status, seconds))
    if status != 0:
        for word in command:
            if word.endswith(("_dsm", "_mpi")):
                end_strays(a, os.path.basename(word))
    return status, out, err, seconds


def parse_pattern(out):
    for line in out.splitlines():
        if line.startswith("result: "):
            kv = dict(item.split("=", 1) for item in line.split()[1:])
            return {"per_step_us": float(kv["per_step_us"]),
                    "steps": int(kv["steps"]), "ok": kv["check"] == "ok",
                    "error": float(kv["error"])}
    return None


def parse_app(out, kernel):
    for line in out.splitlines():
        if line.startswith(kernel + ": "):
            kv = dict(item.split("=", 1) for item in line.split()[1:])
            return kv
    return None


def harness_stats(out):
    """Per-step statistics summed over nodes from the "stats:" line."""
    for line in out.splitlines():
        if line.startswith("stats: "):
            doc = json.loads(line[len("stats: "):])
            steps = max(doc["steps"], 1)
            return {k: sum(n.get(k, 0) for n in doc["nodes"]) / steps
                    for k in STAT_KEYS}, len(doc["nodes"])
    return None, 0


def file_totals(stem):
    """Statistics summed over nodes from DSM_STATS_FILE (the whole run):
    node 0 writes one document for the job ("%d" in the name becomes 0)."""
    path = "%s.stats.0" % stem
    if not os.path.exists(path):
        return None, 0
    with open(path) as f:
        doc = json.load(f)
    total = {k: doc["total"].get(k, 0) for k in STAT_KEYS}
    return total, len(doc["nodes"])


def app_steps(a, kernel, kv, options):
    field = APPS[kernel][3]
    if field:
        return int(float(kv[field]))
    words = shlex.split(options)
    return int(words[words.index("-k") + 1])


def app_baseline(a, kernel, config, command):
    """Statistics and steps of the application's short run (once per
    configuration: counts do not depend on the load)."""
    key = (kernel, config)
    if key not in a.baselines:
        full = shlex.split(a.sizes.get(kernel, APPS[kernel][0]))
        short = shlex.split(APPS[kernel][4])
        at = len(command) - len(full) - len(shlex.split(APPS[kernel][1]))
        short_command = command[:at] + short + command[at + len(full):]
        stem = stem_of(a, kernel, config, "baseline")
        if not a.report_only:
            remove_stats(stem)
            run_one(a, short_command, a.env_of[key], stem)
        status, out, _, _ = read_run(stem)
        kv = parse_app(out, kernel)
        totals, _ = file_totals(stem)
        a.baselines[key] = ((totals, app_steps(a, kernel, kv, APPS[kernel][4]))
                            if status == 0 and kv and totals else None)
    return a.baselines[key]


def remove_stats(stem):
    for node in range(8):
        if os.path.exists("%s.stats.%d" % (stem, node)):
            os.remove("%s.stats.%d" % (stem, node))


def stem_of(a, kernel, config, round_number):
    return os.path.join(a.raw, "%s.%s.%s" % (kernel, config.replace(" ", "_"),
                                              round_number))


def read_run(stem):
    """(status, stdout, stderr, seconds) of a run recorded under STEM."""
    def text(suffix):
        try:
            with open(stem + suffix) as f:
                return f.read()
        except OSError:
            return ""
    words = text(".status").split()
    status = words[0] if words else "unknown"
    status = int(status) if status.lstrip("-").isdigit() else status
    seconds = float(words[1]) if len(words) > 1 else 0.0
    return status, text(".out"), text(".err"), seconds


def measure(a, kernel, config, command, env_extra, round_number):
    stem = stem_of(a, kernel, config, round_number)
    remove_stats(stem)
    run_one(a, command, env_extra, stem)
    return parse_run(a, kernel, config, round_number, command)


def parse_run(a, kernel, config, round_number, command):
    """The run recorded under its stem in raw/, as a dict: per-step time,
    check, statistics per step; a failure's symptom."""
    stem = stem_of(a, kernel, config, round_number)
    status, out, err, wall = read_run(stem)
    run = {"command": shlex.join(command), "status": status, "wall_s": wall,
           "ok": False}
    if kernel in PATTERNS:
        result = parse_pattern(out)
        if result:
            run.update(result)
            run["ok"] = result["ok"] and status in (0, "timeout")
            if config.startswith("dsmomp"):
                run["stats"], run["stats_nodes"] = harness_stats(out)
                run["stats_scope"] = "timed steps"
    else:
        kv = parse_app(out, kernel)
        if kv and "time" in kv:
            steps = app_steps(a, kernel, kv,
                              a.sizes.get(kernel, APPS[kernel][0]))
            run["steps"] = steps
            run["per_step_us"] = 1e6 * float(kv["time"]) / max(steps, 1)
            run["ok"] = status in (0, "timeout")
            totals, nodes = file_totals(stem)
            base = (app_baseline(a, kernel, config, command)
                    if config.startswith("dsmomp") and totals else None)
            if base and steps > base[1]:
                run["stats"] = {k: (totals[k] - base[0][k]) /
                                (steps - base[1]) for k in STAT_KEYS}
                # a time, not a count: the difference of two runs can be
                # below zero on a loaded machine
                run["stats"]["protocol_ns"] = max(
                    run["stats"]["protocol_ns"], 0.0)
                run["stats_nodes"] = nodes
                run["stats_scope"] = ("difference of %d and %d steps" %
                                      (steps, base[1]))
    if run["ok"] and status == "timeout":
        # seen with MPICH over TCP: a rank spinning in MPI_Finalize after
        # the answer was printed; the figure counts, the hang is noted
        run["note"] = "answered, then hung until the timeout (ended)"
        print("run-patterns: %s %s round %s: %s" %
              (kernel, config, round_number, run["note"]), flush=True)
    if not run["ok"]:
        tail = (err.strip().splitlines() or [""])[-3:]
        run["symptom"] = ("hung: ended after the timeout"
                          if status == "timeout" else
                          "status %s: %s" % (status, " | ".join(tail)))
        print("run-patterns: %s %s round %s FAILED: %s" %
              (kernel, config, round_number, run["symptom"]), flush=True)
    return run


def perftest(a, args, port):
    """One ucx_perftest pair across the hosts over TCP (server in host 2);
    returns the numbers of its "Final:" line or None."""
    env = dict(os.environ, UCX_TLS="tcp,self", UCX_NET_DEVICES="eth0")
    server = subprocess.Popen(["ip", "netns", "exec", a.ns2, "ucx_perftest",
                               "-p", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env,
                              start_new_session=True)
    out = ""
    for _ in range(10):         # the server may take a while to listen
        time.sleep(0.5)
        try:
            done = subprocess.run(["ip", "netns", "exec", a.ns1,
                                   "ucx_perftest", a.hosts.split(",")[1],
                                   "-p", str(port)] + args,
                                  capture_output=True, text=True, env=env,
                                  timeout=60)
        except subprocess.TimeoutExpired:
            break
        out = done.stdout
        if done.returncode == 0 or server.poll() is not None:
            break
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    for line in out.splitlines():
        if line.startswith("Final:"):
            return [float(x) for x in line.split()[1:]]
    return None


def floors(a, round_number):
    """The transport across the hosts over TCP, measured in the session:
    our transport layer (bench/transport_bench under dsmrun --hosts: an
    8-byte active message one way, a get of one 4 KiB page, a fetch-add)
    and ucx_perftest (8-byte AM latency, put bandwidth of 64 KiB
    messages).  Microseconds and MB/s."""
    result = {}
    bench = os.path.abspath(os.path.join(a.builddir, "bench",
                                         "transport_bench"))
    dsmrun = os.path.abspath(os.path.join(a.builddir, "runtime", "launcher",
                                          "dsmrun"))
    stem = os.path.join(a.raw, "floor.transport_bench.%d" % round_number)
    status, out, _, _ = run_one(a, ["ip", "netns", "exec", a.ns1, dsmrun,
                                    "--hosts", a.hosts, bench, "3000"],
                                {"UCX_TLS": "tcp"}, stem)
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] == "RESULT":
            result["dsm_" + f[1]] = float(f[2])             # mean
        elif len(f) >= 4 and f[0] == "PERCENTILES" and f[2] == "p50":
            result["dsm_" + f[1] + "_p50"] = float(f[3])    # median
    port = 20000 + (os.getpid() + round_number) % 20000
    lat = perftest(a, ["-t", "ucp_am_lat", "-s", "8", "-n", "10000"], port)
    if lat:
        result["perftest_am_lat_8_us"] = lat[1]        # typical (median)
        result["perftest_am_lat_8_avg_us"] = lat[3]    # overall mean
    bw = perftest(a, ["-t", "ucp_put_bw", "-s", "65536", "-n", "3000"],
                  port + 1)
    if bw:
        result["perftest_put_bw_64k_MBps"] = bw[5]     # overall
    with open(stem + ".json", "w") as f:
        json.dump(result, f)
    return result


def summarise(runs):
    good = [r for r in runs if r["ok"]]
    entry = {"runs": runs, "ok": len(good) == len(runs) and bool(runs)}
    if good:
        entry["per_step_us"] = statistics.median(r["per_step_us"]
                                                 for r in good)
        with_stats = [r["stats"] for r in good if r.get("stats")]
        if with_stats:
            entry["stats"] = {k: statistics.median(s[k] for s in with_stats)
                              for k in STAT_KEYS}
            entry["stats_scope"] = good[0].get("stats_scope")
    notes = [r["note"] for r in runs if r.get("note")]
    if notes:
        entry["notes"] = notes
    if not entry["ok"]:
        entry["failures"] = ["%s" % r.get("symptom", "wrong answer")
                             for r in runs if not r["ok"]]
    return entry


def fmt_time(us):
    if us is None:
        return "–"
    if us >= 1e4:
        return "%.0f" % us
    if us >= 100:
        return "%.0f" % us
    if us >= 10:
        return "%.1f" % us
    return "%.2f" % us


def cell(entry):
    if entry is None:
        return "–"
    if "per_step_us" not in entry:
        return "**FAILED** (%s)" % entry["failures"][0][:60]
    mark = "" if entry["ok"] else " **(%d failed)**" % len(entry["failures"])
    return fmt_time(entry["per_step_us"]) + mark


def ratio(entry, base):
    if not entry or not base or "per_step_us" not in entry or \
            "per_step_us" not in base:
        return "–"
    return "%.1f" % (entry["per_step_us"] / base["per_step_us"])


def option(options, flag, default):
    words = shlex.split(options)
    return int(words[words.index(flag) + 1]) if flag in words else default


def floor_model(kernel, options):
    """What must cross between the two nodes per step, whatever the
    programming model (as an MPI code would send it): (bytes, one-way
    latencies on the critical path, how).  2 nodes, 8-byte doubles."""
    if kernel == "adi":
        n = option(options, "-n", 48)
        return (8 * n ** 3, 2, "2 redistributions, each half of each "
                "node's part of the %d^3 grid" % n)
    if kernel == "fft":
        n = option(options, "-n", 32)
        return (16 * n ** 3, 2, "2 transposes, each a quarter of the "
                "complex %d^3 array each way" % n)
    if kernel == "mg":
        n = option(options, "-n", 64)
        planes, level = 0, n
        while level >= 4:
            planes += (level + 1) ** 2
            level //= 2
        return (6 * 2 * 8 * planes, 7 * 5, "halo planes: 4 smoothings, "
                "residual, restriction per level, each way")
    if kernel == "cg":
        n = option(options, "-n", 48)
        return (2 * 8 * n * n, 5, "halo plane of p each way; 2 "
                "allreduces")
    if kernel == "wavefront":
        n = option(options, "-n", 256)
        return (2 * 2 * n * 16, 2, "%d hand-offs of one value and a "
                "flag; pipeline fill twice" % (2 * n))
    if kernel == "tiny":
        return (8, 3, "broadcast + barrier")
    if kernel == "reduce":
        r = option(options, "-n", 200)
        return (2 * 8 * r, 2 * r, "%d allreduces of one double" % r)
    if kernel == "ep":
        return (2 * 32, 2, "one allreduce of 4 values")
    if kernel == "jacobi":
        n = option(options, "-n", 1000)
        return (2 * 8 * (n + 2), 1, "one halo row each way")
    if kernel == "spmv":
        return (0, 2, "nothing (x does not change between products); "
                "one barrier")
    if kernel == "gmres":
        size, m = option(options, "-s", 32), option(options, "-m", 30)
        return (2 * 8 * size * size, 1 + 2 * (m // 2 + 2),
                "halo plane each way; ~%d allreduces" % (m // 2 + 2))
    return None


def cost_table(results, meta, add):
    """Per kernel: the bytes that must move per step against what the DSM
    moved (gets and message bytes, diffs included, both nodes), and the
    floor in time (bytes / bandwidth + latencies x one-way latency) against
    dsmomp's time over TCP beyond libomp 1x2."""
    fl = meta.get("floors") or {}
    bandwidth = fl.get("perftest_put_bw_64k_MBps") or 1000.0
    latency = fl.get("perftest_am_lat_8_us") or 6.0
    add("")
    add("Cost model over TCP: what must move per step (as MPI would send "
        "it) against what dsmomp moved, and the floor %.0f MB/s and %.1f µs "
        "one way give (%s):" % (bandwidth, latency,
                                "measured above" if fl else "assumed"))
    add("")
    add("| kernel | must move | bytes | one-way latencies | floor µs "
        "| dsmomp KiB moved | × bytes | dsmomp TCP − libomp 1×2 µs "
        "| × floor |")
    add("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kernel, per in results.items():
        model = floor_model(kernel, meta["sizes"].get(kernel, ""))
        if not model:
            continue
        nbytes, hops, how = model
        floor_us = nbytes / bandwidth + hops * latency   # MB/s = bytes/µs
        tcp = per.get("dsmomp 2x1 TCP") or {}
        lib = per.get("libomp 1x2") or {}
        moved = extra = "–"
        over_bytes = over_floor = "–"
        if tcp.get("stats"):
            total = tcp["stats"]["rma_get_bytes"] + tcp["stats"]["bytes_sent"]
            moved = "%.1f" % (total / 1024)
            over_bytes = "%.1f" % (total / nbytes) if nbytes else "–"
        if "per_step_us" in tcp and "per_step_us" in lib:
            delta = tcp["per_step_us"] - lib["per_step_us"]
            extra = "%.0f" % delta
            over_floor = "%.0f" % (delta / floor_us)
        add("| %s | %s | %s | %d | %.0f | %s | %s | %s | %s |" %
            (kernel, how, "%.1f KiB" % (nbytes / 1024), hops, floor_us,
             moved, over_bytes, extra, over_floor))


def table(results, meta):
    lines = []
    add = lines.append
    add("# Patterns benchmark (issue 19)")
    add("")
    add("%s; commit %s; load average %s at the start, %s at the end; "
        "OMP_WAIT_POLICY=%s; %d rounds, median per configuration; pattern "
        "runs: %.1f s of timed steps each after one untimed step." %
        (meta["date"], meta["commit"], meta["load_start"], meta["load_end"],
         meta["wait_policy"], meta["repeats"], meta["budget"]))
    add("")
    add("Time per step in µs (the machine is shared and has 2 cores: "
        "times are noisy, counts are not).  ×lib: ratio to libomp 1×2.  "
        "TCP: two network-namespace hosts, UCX_TLS=tcp.")
    add("")
    fl = meta.get("floors") or {}
    if fl:
        # the same statistic for both tools: the median of the iterations
        # (ucx_perftest's "typical") and the mean; on a loaded machine the
        # mean is set by the preempted iterations
        add("Transport across the two hosts over TCP, same session (medians "
            "over the rounds of each run's median / mean): our transport "
            "(transport_bench): 8-byte active message one way %s / %s µs, "
            "get of a 4 KiB page %s / %s µs, fetch-add %s / %s µs; "
            "ucx_perftest: 8-byte AM %s / %s µs, put bandwidth "
            "(64 KiB messages) %s MB/s." % tuple(
                "%.1f" % fl[k] if k in fl else "–" for k in (
                    "dsm_am_lat_8_p50", "dsm_am_lat_8",
                    "dsm_get_4k_p50", "dsm_get_4k",
                    "dsm_fadd64_p50", "dsm_fadd64",
                    "perftest_am_lat_8_us", "perftest_am_lat_8_avg_us",
                    "perftest_put_bw_64k_MBps")))
        add("")
    add("| kernel | step | libomp 1×1 | libomp 1×2 | dsmomp 2×1 one host "
        "| ×lib | **dsmomp 2×1 TCP** | **×lib** | MPI 2 one host "
        "| MPI 2 TCP | dsm/MPI TCP |")
    add("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: |")
    for kernel, per in results.items():
        what = PATTERNS[kernel][1] if kernel in PATTERNS else APPS[kernel][2]
        lib = per.get("libomp 1x2")
        add("| %s | %s | %s | %s | %s | %s | **%s** | **%s** | %s | %s | %s |"
            % (kernel, what, cell(per.get("libomp 1x1")), cell(lib),
               cell(per.get("dsmomp 2x1 one host")),
               ratio(per.get("dsmomp 2x1 one host"), lib),
               cell(per.get("dsmomp 2x1 TCP")),
               ratio(per.get("dsmomp 2x1 TCP"), lib),
               cell(per.get("MPI 2 one host")), cell(per.get("MPI 2 TCP")),
               ratio(per.get("dsmomp 2x1 TCP"), per.get("MPI 2 TCP"))))
    for config in ("dsmomp 2x1 TCP", "dsmomp 2x1 one host"):
        add("")
        add("DSM statistics per step, %s, summed over both nodes (medians "
            "over the rounds; pattern kernels: the timed steps only; "
            "applications: a short run's counts subtracted, divided by the "
            "difference in steps):" % config)
        add("")
        add("| kernel | read faults | write faults | pages fetched | twins "
            "| diffs | diff KiB | notices | invalidations | refreshes "
            "| migrations | messages | message KiB | gets | get KiB "
            "| barriers | flush acquires | protocol ms |")
        add("| --- |" + " ---: |" * 17)
        for kernel, per in results.items():
            s = (per.get(config) or {}).get("stats")
            if not s:
                add("| %s | %s |" % (kernel, "no statistics"))
                continue
            add("| %s | %s |" % (kernel, " | ".join([
                "%.1f" % s["read_faults"], "%.1f" % s["write_faults"],
                "%.1f" % s["pages_fetched"], "%.1f" % s["twins"],
                "%.1f" % s["diffs_sent"],
                "%.1f" % (s["diff_bytes_sent"] / 1024),
                "%.1f" % s["write_notices_sent"],
                "%.1f" % s["invalidations"], "%.1f" % s["refreshes"],
                "%.2f" % s["pages_migrated"], "%.1f" % s["messages_sent"],
                "%.1f" % (s["bytes_sent"] / 1024), "%.1f" % s["rma_gets"],
                "%.1f" % (s["rma_get_bytes"] / 1024), "%.1f" % s["barriers"],
                "%.1f" % s["flush_acquires"],
                "%.3f" % (s["protocol_ns"] / 1e6)])))
    cost_table(results, meta, add)
    failures = [(k, c, f) for k, per in results.items()
                for c, e in per.items() for f in e.get("failures", [])]
    if failures:
        add("")
        add("Failed runs (kept: findings):")
        add("")
        for kernel, config, symptom in failures:
            add("- %s, %s: %s" % (kernel, config, symptom))
    notes = [(k, c, n) for k, per in results.items()
             for c, e in per.items() for n in e.get("notes", [])]
    if notes:
        add("")
        add("Runs that answered and then hung (their figures count):")
        add("")
        for kernel, config, note in notes:
            add("- %s, %s: %s" % (kernel, config, note))
    return "\n".join(lines) + "\n"


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run-patterns: matplotlib missing, no plot written")
        return
    kernels = list(results)
    shown = ["libomp 1x1", "dsmomp 2x1 one host", "dsmomp 2x1 TCP",
             "MPI 2 one host", "MPI 2 TCP"]
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(kernels)), 4.5))
    width = 0.8 / len(shown)
    for j, config in enumerate(shown):
        xs, ys = [], []
        for i, kernel in enumerate(kernels):
            lib = results[kernel].get("libomp 1x2") or {}
            e = results[kernel].get(config) or {}
            if "per_step_us" in e and "per_step_us" in lib:
                xs.append(i + (j - len(shown) / 2 + 0.5) * width)
                ys.append(e["per_step_us"] / lib["per_step_us"])
        ax.bar(xs, ys, width, label=config)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(kernels, rotation=30)
    ax.set_ylabel("time per step / libomp 1x2")
    ax.set_title("Patterns: time per step relative to libomp 1x2 "
                 "(2 cores, shared machine)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    a = parse_args()
    a.sizes = {}
    for item in a.size:
        kernel, _, options = item.partition("=")
        a.sizes[kernel] = options
    kernels = a.kernels.split(",")
    for k in kernels:
        if k not in PATTERNS and k not in APPS:
            print("run-patterns: unknown kernel '%s'" % k, file=sys.stderr)
            return 2
    a.baselines, a.env_of = {}, {}
    a.raw = os.path.abspath(os.path.join(a.out, "raw"))
    os.makedirs(a.raw, exist_ok=True)
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "unknown"
    session = os.path.join(a.raw, "session.json")
    if a.report_only:
        with open(session) as f:
            meta = json.load(f)
        a.sizes.update(meta["sizes"])
        if meta.get("hosts"):    # only to name the commands
            a.ns1, a.ns2, a.hosts, a.mpi_ssh = "NS1", "NS2", "H1,H2", "ssh"
    else:
        meta = {"date": datetime.datetime.utcnow().strftime(
                    "%Y-%m-%d %H:%M UTC"),
                "commit": commit or "unknown", "load_start": load(),
                "wait_policy": a.wait_policy, "repeats": a.repeats,
                "budget": a.budget, "hosts": bool(a.ns1),
                "sizes": {k: a.sizes.get(k, (PATTERNS.get(k) or APPS[k])[0])
                          for k in kernels}}
        with open(session, "w") as f:
            json.dump(meta, f)
    runs = {k: {} for k in kernels}
    floor_runs = []
    for round_number in range(1, meta["repeats"] + 1):
        if a.report_only:
            try:
                with open(os.path.join(a.raw, "floor.transport_bench.%d.json"
                                       % round_number)) as f:
                    floor_runs.append(json.load(f))
            except OSError:
                pass
        elif a.ns1 and shutil.which("ucx_perftest"):
            print("run-patterns: round %d transport floors" % round_number,
                  flush=True)
            floor_runs.append(floors(a, round_number))
        for kernel in kernels:
            for config, command, env in commands(a, kernel):
                a.env_of[(kernel, config)] = env
                if a.report_only:
                    if os.path.exists(stem_of(a, kernel, config,
                                              round_number) + ".out"):
                        runs[kernel].setdefault(config, []).append(
                            parse_run(a, kernel, config, round_number,
                                      command))
                    continue
                print("run-patterns: round %d %s %s" %
                      (round_number, kernel, config), flush=True)
                runs[kernel].setdefault(config, []).append(
                    measure(a, kernel, config, command, env, round_number))
    if not a.report_only:
        meta["load_end"] = load()
        with open(session, "w") as f:
            json.dump(meta, f)
    keys = sorted({k for f in floor_runs for k in f})
    meta["floors"] = {k: statistics.median(f[k] for f in floor_runs if k in f)
                      for k in keys}
    results = {k: {c: summarise(r) for c, r in per.items()}
               for k, per in runs.items()}
    text = table(results, meta)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "patterns.json"), "w") as f:
        json.dump({"setup": meta, "kernels": results}, f, indent=1)
    plot(results, os.path.join(a.out, "patterns.png"))
    print(text)
    print("run-patterns: table.md, patterns.json and patterns.png in", a.out)
    return 0 if all(e["ok"] for per in results.values()
                    for e in per.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
