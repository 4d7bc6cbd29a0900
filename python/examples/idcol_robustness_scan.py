"""Robustness of the iDCOL solver beyond the ergodic benchmark: flat, high-aspect shapes against
much larger spheres (README, "Robustness envelope").

Body 1 is a sphere of radius R1 in [1, 1000]; body 2 a flat disc of radius Rd in [1, 100] and
half-thickness h: an ellipsoid, a superellipsoid (n = 8) or a superelliptic cylinder (n = 2, 8).
Body 2 sits at a random direction and distance d in [0.1, 30], random orientation. Prints, per
shape and per "near" (d < 0.05 R1, deep inside the sphere) / "far" class, the number of solves
that did not converge and the mean Newton iterations.

    /usr/bin/python3 python/examples/idcol_robustness_scan.py [--aspect-max A] [--solves N]
        [--last-resort-iterations K] [--seed S]

--aspect-max bounds Rd / h (default 100; the README also quotes 3000-ish scans, --aspect-max 0
draws h in [0.03, 3] independently of Rd instead).
"""
import argparse
import math
import random

import numpy as np

import diffcol


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--aspect-max", type=float, default=100.0)
    ap.add_argument("--solves", type=int, default=6000)
    ap.add_argument("--last-resort-iterations", type=int, default=diffcol.SolveOptions().last_resort_iterations)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    opt = diffcol.SolveOptions(last_resort_iterations=args.last_resort_iterations)
    total, failed, iterations = {}, {}, {}
    for _ in range(args.solves):
        R1 = 10 ** rng.uniform(0, 3)
        kind = rng.choice(["sec8", "sec2", "se8", "ellipsoid"])
        Rd = 10 ** rng.uniform(0, 2)
        if args.aspect_max > 0:
            h = Rd / 10 ** rng.uniform(0.5, math.log10(args.aspect_max))
        else:
            h = 10 ** rng.uniform(-1.5, 0.5)
        if kind == "sec8":
            disc = diffcol.SuperellipticCylinder(8, Rd, h)
        elif kind == "sec2":
            disc = diffcol.SuperellipticCylinder(2, Rd, h)
        elif kind == "se8":
            disc = diffcol.Superellipsoid(8, Rd, Rd, h)
        else:
            disc = diffcol.Superellipsoid(1, Rd, Rd, h)
        d = 10 ** rng.uniform(-1, 1.5)
        v = np.array([rng.gauss(0, 1) for _ in range(3)])
        v *= d / np.linalg.norm(v)
        q = np.array([rng.gauss(0, 1) for _ in range(4)])
        q /= np.linalg.norm(q)
        sol = diffcol.solve_contact(diffcol.Sphere(R1), diffcol.Pose.identity(), disc,
                                    diffcol.Pose.from_quaternion(v, q), opt)
        key = (kind, "near" if d / R1 < 0.05 else "far")
        total[key] = total.get(key, 0) + 1
        failed[key] = failed.get(key, 0) + (not sol.ok())
        iterations.setdefault(key, []).append(sol.iterations)
    print(f"last_resort_iterations = {args.last_resort_iterations}, aspect max = {args.aspect_max}")
    for key in sorted(total):
        print(f"  {key[0]:10s} {key[1]:5s} solves {total[key]:5d}  not converged {failed[key]:4d}  "
              f"mean Newton iterations {np.mean(iterations[key]):7.1f}")
    print(f"  all: {sum(failed.values())} of {sum(total.values())} not converged")


if __name__ == "__main__":
    main()
