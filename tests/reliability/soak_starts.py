#!/usr/bin/env python3
"""soak_starts.py - many consecutive job starts and stops, then checks that
none of them left anything behind.

Layer: tests, suite 'soak'.  Usage: soak_starts.py DSMRUN NODE_PROGRAM
Runs `dsmrun -v -n 2 NODE_PROGRAM busy 0` (wire-up over UCX, two
barriers, shut-down) STARTS times: 100 x $SOAK_SCALE (default 1;
SOAK_SCALE=10 gives the 1,000 of doc/reliability.md).  Every tenth job
runs with UCX_POSIX_USE_PROC_LINK=n, the setting in which UCX keeps its
shared-memory files and dsmrun has to remove them.

What counts as left behind, attributed by the jobs' own ids and pids
(other users of the machine cannot make this test fail):
  - a process whose environment holds one of the jobs' DSM_JOB_ID (its
    sockets, memfds and UCX mappings would live on with it);
  - a listening TCP socket on one of the jobs' rendezvous ports;
  - /dev/shm/dsmomp-JOB (the private UCX directory);
  - a SysV shared-memory segment created by one of the jobs' processes.
Prints "figure:" lines; exit status 1 if anything was left or a job failed.
"""
import os
import re
import subprocess
import sys
import time


def listening_ports():
    """Ports with a TCP socket in LISTEN state, IPv4 and IPv6."""
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == "0A":
                        ports.add(int(fields[1].rsplit(":", 1)[1], 16))
        except OSError:
            pass
    return ports


def job_processes(job_ids):
    """(pid, job) of every live process of one of the jobs."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        m = re.search(rb"(?:^|\0)DSM_JOB_ID=([^\0]*)", env)
        if m and m.group(1).decode() in job_ids:
            found.append((int(name), m.group(1).decode()))
    return found


def sysv_segments(pids):
    left = []
    try:
        with open("/proc/sysvipc/shm") as f:
            next(f)
            for line in f:
                fields = line.split()
                if int(fields[4]) in pids:
                    left.append(int(fields[1]))
    except OSError:
        pass
    return left


def main():
    dsmrun, program = sys.argv[1], sys.argv[2]
    scale = int(os.environ.get("SOAK_SCALE", "1") or "1")
    starts = 100 * scale
    job_ids, pids, ports = set(), set(), set()
    failures = 0
    durations = []
    shm_before = set(os.listdir("/dev/shm"))
    began = time.monotonic()
    for i in range(starts):
        env = dict(os.environ)
        if i % 10 == 9:
            env["UCX_POSIX_USE_PROC_LINK"] = "n"
            env.pop("UCX_POSIX_DIR", None)
        t0 = time.monotonic()
        run = subprocess.run([dsmrun, "-v", "-n", "2", program, "busy", "0"],
                             env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=60)
        durations.append(time.monotonic() - t0)
        out = run.stdout.decode(errors="replace")
        m = re.search(r"dsmrun: job (\S+): .* rendezvous [^:]+:(\d+):", out)
        if m:
            job_ids.add(m.group(1))
            ports.add(int(m.group(2)))
        pids.update(int(p) for p in re.findall(r"dsmrun: node \d+ pid (\d+)",
                                                out))
        if run.returncode != 0 or not m:
            failures += 1
            print(f"job {i} failed (exit status {run.returncode}):\n{out}")
    elapsed = time.monotonic() - began

    left_processes = job_processes(job_ids)
    left_ports = sorted(ports & listening_ports())
    left_dirs = [d for d in os.listdir("/dev/shm")
                 if d.startswith("dsmomp-") and d[7:] in job_ids]
    left_segments = sysv_segments(pids)
    new_shm = sorted(set(os.listdir("/dev/shm")) - shm_before)
    durations.sort()
    print(f"figure: {starts} jobs (2 nodes) started and stopped in "
          f"{elapsed:.1f} s; per job median {durations[len(durations) // 2]:.3f}"
          f" s, max {durations[-1]:.3f} s; {failures} failed")
    print(f"figure: left behind: {len(left_processes)} processes, "
          f"{len(left_ports)} listening rendezvous ports, {len(left_dirs)} "
          f"/dev/shm/dsmomp-* directories, {len(left_segments)} SysV segments"
          f" ({len(new_shm)} new /dev/shm entries from anyone: {new_shm[:5]})")
    for pid, job in left_processes:
        print(f"left: process {pid} of job {job}")
    ok = (failures == 0 and not left_processes and not left_ports and
          not left_dirs and not left_segments and len(job_ids) == starts)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
