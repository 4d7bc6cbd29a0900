"""One pair over N poses: time per query of diffcol.ContactBatch with chosen derivative blocks, on
1 and 2 threads, against a Python loop of solve_contact + contact_derivatives over the same poses.

For every ordered pair of the benchmark shapes (or --pairs), N poses of the pair's ergodic sweep
(strided, so that the queries are unrelated) are solved cold, body 1 at a random pose:
  loop     for each pose: diffcol.solve_contact, then diffcol.contact_derivatives (every block;
           the Python API has no cheaper call), reading sol.gap and d.J_gap_X1 in Python;
  batch    diffcol.ContactBatch(shape1, shape2, num_threads=t, blocks=...).solve(X_W1, X_W2) with
           (N, 7) pose arrays, one call per pair; the result arrays are part of the time.
Microseconds per query: per pair the best of --repeat runs (as `diffcol bench --repeat`), summed
over the pairs, over the number of queries; `cpu` is the process CPU time of the same runs per query
(all threads): equal for 1 and 2 threads when the threads add no work. Wall-clock scaling needs idle
cores: the load average is printed, and `host 2-way` is the CPU time two threads of a batch get per
wall second over one thread's on this host now (2.00x on two idle cores): the ceiling of the 1t/2t
column.

Usage:
    PYTHONPATH=build/python /usr/bin/python3 python/examples/one_pair_throughput.py [--poses N]
        [--repeat R] [--pairs sphere-poly,se-tc] [--quick]
--quick (used by python/tests/test_batch.py): 40 poses, 3 pairs, 1 run; the figures mean little.
"""
import argparse
import os
import time

import numpy as np

import diffcol


def host_line():
    """The host line of `diffcol bench` (apps/host_info.cpp): CPU, family, model, logical CPUs,
    vector ISA, smooth polytope width, compiler."""
    cpu, family, model, flags = "unknown", -1, -1, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if ":" not in line:
                    if cpu != "unknown":
                        break  # end of the first processor's block
                    continue
                key, value = (s.strip() for s in line.split(":", 1))
                if key == "model name" and cpu == "unknown" and value:
                    cpu = value
                elif key == "cpu family" and family < 0:
                    family = int(value) if value.isdigit() else -1
                elif key == "model" and model < 0:
                    model = int(value) if value.isdigit() else -1
                elif key == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    isa = "AVX-512F" if "avx512f" in flags else "AVX2+FMA" if {"avx2", "fma"} <= flags else "baseline"
    build = diffcol.build_info()
    out = f"host: {cpu}"
    if family >= 0 and model >= 0:
        out += f" (family {family}, model {model})"
    out += f", {os.cpu_count()} logical CPUs, {isa}, smooth polytope width {build['smooth_planes_width']}"
    if build["compiler"]:
        out += f", compiler {build['compiler']}"
    return out


def workload(names, n, seed=7):
    """[(shape1, shape2, X_W1 (n, 7), X_W2 (n, 7))] for the pairs 'a-b'."""
    rng = np.random.default_rng(seed)
    out = []
    for name in names:
        a, b = (diffcol.benchmark_shape(s) for s in name.split("-"))
        sweep = diffcol.ErgodicSweep.for_pair(a, b)
        X1 = np.empty((n, 7))
        X2 = np.empty((n, 7))
        for k in range(n):
            q = rng.normal(size=4)
            A = diffcol.Pose(np.concatenate([rng.normal(size=3), q / np.linalg.norm(q)]))
            X1[k] = A.to_vector()
            X2[k] = (A * sweep.pose(97 * k)).to_vector()
        out.append((a, b, X1, X2))
    return out


def best_loop(a, b, X1, X2, repeat):
    """Best of `repeat` runs of the Python loop over one pair's poses: (wall, process CPU) seconds."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        acc = 0.0
        for k in range(X1.shape[0]):
            sol = diffcol.solve_contact(a, X1[k], b, X2[k])
            d = diffcol.contact_derivatives(sol)
            acc += sol.gap + d.J_gap_X1[3]
        best = min(best, (time.perf_counter() - t0, time.process_time() - c0))
    return best


def best_batch(batch, X1, X2, repeat):
    """Best of `repeat` calls of batch.solve on one pair's poses, after one call that sizes the
    result grid: (wall, process CPU) seconds."""
    batch.solve(X1, X2)
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        res = batch.solve(X1, X2)
        best = min(best, (time.perf_counter() - t0, time.process_time() - c0))
    assert res.alpha.shape == (X1.shape[0],)
    return best


def host_two_way(a, b, X1, X2):
    """The CPU time two threads get per wall second over one thread's, on this host now: the same
    values-only batch on 1 and on 2 threads, best of 5 each (2.00 with two idle cores)."""
    times = {}
    reps = -(-4000 // X1.shape[0])  # at least 4000 queries a call: the hand-offs' spin is then negligible
    X1, X2 = np.tile(X1, (reps, 1)), np.tile(X2, (reps, 1))
    for threads in (1, 2):
        batch = diffcol.ContactBatch(a, b, num_threads=threads, derivatives=False)
        wall, cpu = best_batch(batch, X1, X2, 5)
        times[threads] = cpu / max(wall, 1e-12)  # CPU seconds per wall second
    return times[2] / times[1]


def main(argv=None):
    names = [f"{a}-{b}" for a in diffcol.benchmark_shape_names() for b in diffcol.benchmark_shape_names()]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--poses", type=int, default=1000, help="poses per pair (default 1000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs; the best is kept (default 3)")
    ap.add_argument("--pairs", default=",".join(names), help="comma-separated a-b pairs (default: all 36)")
    ap.add_argument("--quick", action="store_true", help="40 poses, 3 pairs, 1 run")
    args = ap.parse_args(argv)
    if args.quick:
        args.poses, args.repeat, args.pairs = 40, 1, "sphere-poly,se-tc,ellipsoid-sec"
    pairs = args.pairs.split(",")
    work = workload(pairs, args.poses)
    queries = len(pairs) * args.poses
    configs = [("J_gap, J_alpha (default)", ["J_gap", "J_alpha"]), ("J_gap_X1, J_p1_W", ["J_gap_X1", "J_p1_W"]),
               ("all 33 blocks", "all"), ("none (values only)", None)]

    print(host_line())
    print(f"load average {os.getloadavg()[0]:.2f} at start; {len(pairs)} pairs x {args.poses} poses = {queries} cold "
          f"queries; per pair the best of {args.repeat} runs")
    # per pair the best of --repeat runs, as `diffcol bench --repeat` (a burst of load then
    # spoils one run of a pair, not all of them); summed over the pairs
    rows = []

    def total(runs):  # [(wall, cpu)] -> microseconds per query
        return tuple(sum(r[i] for r in runs) / queries * 1e6 for i in (0, 1))

    loop, loop_cpu = total([best_loop(a, b, X1, X2, args.repeat) for a, b, X1, X2 in work])
    rows.append(("python loop: solve_contact + contact_derivatives", "all (33)", loop, loop_cpu, None))
    for label, blocks in configs:
        per = {}
        for threads in (1, 2):
            kw = {"num_threads": threads} if blocks is None else {"num_threads": threads, "blocks": blocks}
            per[threads], cpu = total([best_batch(diffcol.ContactBatch(a, b, **kw), X1, X2, args.repeat)
                                       for a, b, X1, X2 in work])
            rows.append((f"batch, {threads} thread{'s' if threads > 1 else ''}", label, per[threads], cpu,
                         per[1] / per[threads] if threads > 1 else None))
    print(f"{'method':<50} {'blocks':<26} {'us/query':>9} {'cpu':>7} {'loop/this':>9} {'1t/2t':>6}")
    for method, blocks, us, cpu, scale in rows:
        print(f"{method:<50} {blocks:<26} {us:9.2f} {cpu:7.2f} {loop / us:8.2f}x "
              f"{'' if scale is None else f'{scale:5.2f}x':>6}")
    print(f"host 2-way: {host_two_way(*work[0]):.2f}x (two threads' CPU share over one's, values-only batch); "
          f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
