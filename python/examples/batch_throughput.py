"""Throughput of diffcol.ContactBatch on the seed's ergodic sweep, for 1, 2, ... threads.

Every ordered pair of the six benchmark shapes (36 pairs) is solved at STEPS poses of its
ergodic sweep in one call; the figure is contact solves per second (wall clock, best of REPEATS
calls), for both schedules:
  cold: every query independent (SolveOptions(warm_start=False));
  warm: each pair's poses in sequence, warm-started (consecutive sweep samples, dt = 1e-4).
Scaling needs idle cores: check `uptime` first. Usage:
    PYTHONPATH=build/python /usr/bin/python3 python/examples/batch_throughput.py [STEPS] [THREADS...]
"""
import os
import sys
import time

import numpy as np

import diffcol

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
THREADS = [int(t) for t in sys.argv[2:]] or [1, 2]
REPEATS = 5


def grid(stride):
    names = diffcol.benchmark_shape_names()
    pairs = [(diffcol.benchmark_shape(a), diffcol.benchmark_shape(b)) for a in names for b in names]
    X2 = np.empty((STEPS, len(pairs), 4, 4))
    for p, (a, b) in enumerate(pairs):
        X2[:, p] = diffcol.ErgodicSweep.for_pair(a, b).poses(STEPS * stride)[::stride]
    return pairs, X2


def main():
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {STEPS} steps x 36 pairs per call")
    for schedule, stride in [("cold", 97), ("warm", 1)]:
        pairs, X2 = grid(stride)
        base = None
        for threads in THREADS:
            batch = diffcol.ContactBatch(pairs, num_threads=threads,
                                         options=diffcol.SolveOptions(warm_start=(schedule == "warm")))
            best = float("inf")
            for _ in range(REPEATS):
                t0 = time.perf_counter()
                res = batch.solve(diffcol.Pose(), X2)
                best = min(best, time.perf_counter() - t0)
            rate = X2.shape[0] * X2.shape[1] / best
            base = base or rate
            failed = int(np.count_nonzero((res.status != 0) & (res.status != 1)))
            print(f"{schedule}  threads {threads}: {rate / 1e3:8.1f} k solves/s  ({rate / base:.2f}x)  failed {failed}")


if __name__ == "__main__":
    main()
