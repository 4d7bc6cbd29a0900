#!/usr/bin/env python3
"""Runs `diffcol scene-bench --quick --json` and checks its JSON: the host record, the four cases
with their timings, ratios and pair counts (docs/cli.md). Exit status 1 with the reasons on failure."""
import argparse
import json
import math
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--diffcol", required=True)
    args = ap.parse_args()
    out = subprocess.run([args.diffcol, "scene-bench", "--quick", "--json"], check=True,
                         capture_output=True, text=True).stdout
    doc = json.loads(out)
    errors = []

    def need(cond, what):
        if not cond:
            errors.append(what)

    def positive(c, key):
        v = c.get(key)
        need(isinstance(v, (int, float)) and math.isfinite(v) and v > 0, f"{c.get('name')}: {key} = {v!r}")

    need(doc.get("command") == "scene-bench", "command")
    host = doc.get("host", {})
    for k in ("cpu", "logical_cpus", "isa", "compiler"):
        need(k in host, f"host.{k}")
    need(doc.get("host_line", "").startswith("host: "), "host_line")
    fcl = doc.get("fcl")
    need(isinstance(fcl, bool), "fcl")
    cases = {c.get("name"): c for c in doc.get("cases", [])}
    need(set(cases) == {"robot_arm7", "bodies_1000", "hull1000_box", "hull1000_capsule"}, f"cases {sorted(cases)}")
    for name, c in cases.items():
        for k in ("description", "fcl_computes", "ours_us", "fcl_us", "ratio_to_fcl"):
            need(k in c, f"{name}: {k} missing")
        positive(c, "ours_us")
        positive(c, "ours_cpu_us")
        if fcl:
            positive(c, "fcl_us")
            positive(c, "ratio_to_fcl")
            if all(isinstance(c.get(k), (int, float)) for k in ("ours_us", "fcl_us", "ratio_to_fcl")):
                need(abs(c["ratio_to_fcl"] - c["ours_us"] / c["fcl_us"]) <= 1e-9 * c["ratio_to_fcl"],
                     f"{name}: ratio_to_fcl is not ours_us / fcl_us")
        else:
            need(c.get("fcl_us") is None and c.get("ratio_to_fcl") is None, f"{name}: FCL numbers without FCL")
    r = cases.get("robot_arm7", {})
    need(r.get("configurations") == 200, "robot_arm7: --quick runs 200 configurations")
    positive(r, "ours_us_no_derivatives")
    need(isinstance(r.get("pairs_ours"), int) and r.get("pairs_ours", 0) > 0, "robot_arm7: pairs_ours")
    need(r.get("pairs_not_ok") == 0, f"robot_arm7: pairs_not_ok = {r.get('pairs_not_ok')}")
    if fcl:
        # both sides report the same pairs, up to pairs within FCL's tolerance of the margin
        only = (r.get("pairs_only_ours") or 0) + (r.get("pairs_only_fcl") or 0)
        need(isinstance(r.get("pairs_fcl"), int), "robot_arm7: pairs_fcl")
        need(only <= 0.01 * r.get("pairs_ours", 0), f"robot_arm7: {only} pairs reported by one side only")
    b = cases.get("bodies_1000", {})
    for k in ("ours_us_2_threads", "speedup_2_threads"):
        positive(b, k)
    need(b.get("bodies") == 1000 and b.get("queries") == 5, "bodies_1000: sizes")
    if fcl:
        positive(b, "fcl_distance_us")
        need(abs(b.get("pairs_ours", 0) - b.get("pairs_fcl", -1)) <= 0.02 * b.get("pairs_ours", 0),
             f"bodies_1000: contacts ours {b.get('pairs_ours')} FCL {b.get('pairs_fcl')}")
    for name in ("hull1000_box", "hull1000_capsule"):
        c = cases.get(name, {})
        need(c.get("faces") == 1000 and c.get("poses") == 100, f"{name}: faces / poses")
        need(c.get("not_ok") == 0, f"{name}: not_ok = {c.get('not_ok')}")
    if errors:
        print("scene-bench JSON check failed:\n  " + "\n  ".join(errors))
        return 1
    print("scene-bench JSON ok: " + ", ".join(f"{n} {c['ours_us']:.2f} us" for n, c in cases.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
