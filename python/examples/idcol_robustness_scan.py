"""Robustness of the iDCOL solver beyond the ergodic benchmark (README, "Robustness envelope").

--family discs (default): flat, high-aspect shapes against much larger spheres. Body 1 is a
sphere of radius R1 in [1, 1000]; body 2 a flat disc of radius Rd in [1, 100] and half-thickness
h: an ellipsoid, a superellipsoid (n = 8) or a superelliptic cylinder (n = 2, 8). Body 2 sits at a
random direction and distance d in [0.1, 30], random orientation. Prints, per shape and per
"near" (d < 0.05 R1, deep inside the sphere) / "far" class, the number of solves that did not
converge and the mean Newton iterations.

--family plates: thin smooth-polytope plates (half-sizes a in [0.1, 3], b in [0.3, 1]·a,
half-thickness h = a / aspect, sharpness β in {5, 20, 50} with the characteristic length L = h)
against a box, a sphere, an ellipsoid, an se8 block, a sec8 cylinder, a truncated cone or another
thin plate, of size s in [0.01, 3]; distance in [0.01, 5]·a, random orientations, both orders
(the plate as body 1 and as body 2). Prints per partner shape.

    /usr/bin/python3 python/examples/idcol_robustness_scan.py [--family discs|plates]
        [--aspect-max A] [--solves N] [--last-resort-iterations K] [--seed S]

--aspect-max bounds the aspect ratio (disc Rd / h, plate a / h; default 100; the README also
quotes 3000-ish scans; for discs, --aspect-max 0 draws h in [0.03, 3] independently of Rd).
"""
import argparse
import math
import random

import numpy as np

import diffcol


class Tally:
    """Solves, failures and Newton iterations per class."""

    def __init__(self):
        self.total, self.failed, self.iterations = {}, {}, {}

    def add(self, key, sol):
        self.total[key] = self.total.get(key, 0) + 1
        self.failed[key] = self.failed.get(key, 0) + (not sol.ok)
        self.iterations.setdefault(key, []).append(sol.iterations)

    def report(self, header):
        print(header)
        for key in sorted(self.total):
            print(f"  {key} solves {self.total[key]:5d}  not converged {self.failed[key]:4d}  "
                  f"mean Newton iterations {np.mean(self.iterations[key]):7.1f}")
        print(f"  all: {sum(self.failed.values())} of {sum(self.total.values())} not converged")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", choices=["discs", "plates"], default="discs")
    ap.add_argument("--aspect-max", type=float, default=100.0)
    ap.add_argument("--solves", type=int, default=6000)
    ap.add_argument("--last-resort-iterations", type=int, default=diffcol.SolveOptions().last_resort_iterations)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    opt = diffcol.SolveOptions(last_resort_iterations=args.last_resort_iterations)
    if args.family == "plates":
        return plates(args, rng, opt)
    tally = Tally()
    for _ in range(args.solves):
        R1 = 10 ** rng.uniform(0, 3)
        kind = rng.choice(["sec8", "sec2", "se8", "ellipsoid"])
        Rd = 10 ** rng.uniform(0, 2)
        if args.aspect_max > 0:
            h = Rd / 10 ** rng.uniform(0.5, math.log10(args.aspect_max))
        else:
            h = 10 ** rng.uniform(-1.5, 0.5)
        if kind == "sec8":
            disc = diffcol.SuperellipticCylinder(Rd, h, 8)
        elif kind == "sec2":
            disc = diffcol.SuperellipticCylinder(Rd, h, 2)
        elif kind == "se8":
            disc = diffcol.Superellipsoid(Rd, Rd, h, 8)
        else:
            disc = diffcol.Superellipsoid(Rd, Rd, h, 1)
        d = 10 ** rng.uniform(-1, 1.5)
        v = np.array([rng.gauss(0, 1) for _ in range(3)])
        v *= d / np.linalg.norm(v)
        q = np.array([rng.gauss(0, 1) for _ in range(4)])
        q /= np.linalg.norm(q)
        sol = diffcol.solve_contact(diffcol.Sphere(R1), diffcol.Pose.identity(), disc,
                                    diffcol.Pose.from_quaternion(v, q), opt)
        tally.add(f"{kind:10s} {'near' if d / R1 < 0.05 else 'far':5s}", sol)
    tally.report(f"last_resort_iterations = {args.last_resort_iterations}, aspect max = {args.aspect_max}")


def random_pose(rng, distance):
    v = np.array([rng.gauss(0, 1) for _ in range(3)])
    v *= distance / np.linalg.norm(v)
    q = np.array([rng.gauss(0, 1) for _ in range(4)])
    q /= np.linalg.norm(q)
    return diffcol.Pose.from_quaternion(v, q)


def thin_plate(rng, a, aspect_max, beta):
    h = a / 10 ** rng.uniform(1, math.log10(max(aspect_max, 10.0)))
    b = a * rng.uniform(0.3, 1.0)
    return diffcol.SmoothPolytope.box(a, b, h, beta, min(h, b))


def plates(args, rng, opt):
    tally = Tally()
    for _ in range(args.solves // 2):
        a = 10 ** rng.uniform(-1, 0.5)
        plate = thin_plate(rng, a, args.aspect_max, rng.choice([5.0, 20.0, 50.0]))
        s = 10 ** rng.uniform(-2, 0.5)
        kind = rng.choice(["box", "sphere", "ellipsoid", "se8", "sec8", "tc", "plate"])
        if kind == "box":
            other = diffcol.SmoothPolytope.box(s, s * rng.uniform(0.2, 1), s * rng.uniform(0.2, 1), 20.0, 0.2 * s)
        elif kind == "sphere":
            other = diffcol.Sphere(s)
        elif kind == "ellipsoid":
            other = diffcol.Superellipsoid(s, 0.5 * s, 0.3 * s, 1)
        elif kind == "se8":
            other = diffcol.Superellipsoid(s, 0.7 * s, 0.4 * s, 8)
        elif kind == "sec8":
            other = diffcol.SuperellipticCylinder(0.3 * s, s, 8)
        elif kind == "tc":
            other = diffcol.SmoothTruncatedCone(0.5 * s, 0.2 * s, 0.5 * s, 0.5 * s, 20.0)
        else:
            other = thin_plate(rng, s, args.aspect_max, 20.0)
        X2 = random_pose(rng, 10 ** rng.uniform(-2, 0.7) * a)
        for sol in (diffcol.solve_contact(plate, diffcol.Pose.identity(), other, X2, opt),
                    diffcol.solve_contact(other, diffcol.Pose.identity(), plate, X2, opt)):
            tally.add(f"{kind:10s}", sol)
    tally.report(f"plates: last_resort_iterations = {args.last_resort_iterations}, aspect max = {args.aspect_max}")


if __name__ == "__main__":
    main()
