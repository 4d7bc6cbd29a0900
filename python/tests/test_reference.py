"""Python results equal the C++ ones bit for bit.

The C++ side is python/tests/reference_solver.cpp (linked against the same library, no Python),
fed the same 7-vector poses as text with 17 significant digits (which read back exactly), and,
when it is built, the `diffcol query` CLI's JSON. Every field of ContactSolution and every block
of ContactDerivatives is compared bit for bit, on every ordered pair of benchmark shapes.
"""
import json
import subprocess

import numpy as np
import pytest

import diffcol
from helpers import ergodic_queries, query_line, run_reference, same_bits

N_PER_PAIR = 6  # 36 ordered pairs x 6 poses


def solution_fields():
    return ["residual_norm", "alpha", "x_B1", "lambda1", "lambda2", "p1_B1", "p2_B1", "gap", "normal_B1",
            "x_W", "p1_W", "p2_W", "normal_W"]


def derivative_blocks():
    return [n for n in dir(diffcol.ContactDerivatives) if n.startswith("J_")]


def compare(sol, der, ref, where):
    assert int(sol.status) == int(ref["status"][0]), where
    assert sol.iterations == int(ref["iterations"][0]), where
    assert sol.attempts == int(ref["attempts"][0]), where
    assert sol.warm_started == bool(ref["warm_started"][0]), where
    for name in solution_fields():
        assert same_bits(np.ravel(getattr(sol, name)), ref[name]), f"{where}: {name}"
    assert int(der.status) == int(ref["derivative_status"][0]), where
    blocks = derivative_blocks()
    assert len(blocks) == 33
    for name in blocks:
        assert same_bits(np.ravel(getattr(der, name)), ref[name]), f"{where}: {name}"


def test_derivative_block_names_match_the_cpp_table(reference_exe):
    ref = run_reference(reference_exe, [query_line("cold", "sphere", "se", np.r_[0, 0, 0, 1, 0, 0, 0],
                                                   np.r_[3, 0, 0, 1, 0, 0, 0])])[0]
    cpp_blocks = sorted(k for k in ref if k.startswith("J_"))
    assert cpp_blocks == sorted(derivative_blocks())


def test_solve_contact_equals_cpp_bit_for_bit(reference_exe):
    queries = ergodic_queries(N_PER_PAIR, seed=11)
    refs = run_reference(reference_exe, [query_line("cold", *q) for q in queries])
    for (a, b, p1, p2), ref in zip(queries, refs):
        s1, s2 = diffcol.benchmark_shape(a), diffcol.benchmark_shape(b)
        sol = diffcol.solve_contact(s1, p1, s2, p2)
        der = diffcol.contact_derivatives(sol)
        compare(sol, der, ref, f"{a}-{b} at {p1}, {p2}")


def test_contact_pair_warm_sequence_equals_cpp_bit_for_bit(reference_exe):
    # consecutive poses of each pair along its sweep: the solves warm-start
    queries = []
    for a in ["poly", "se", "tc"]:
        for b in ["ellipsoid", "sec", "poly"]:
            sweep = diffcol.ErgodicSweep.for_pair(diffcol.benchmark_shape(a), diffcol.benchmark_shape(b))
            for i in range(20):
                queries.append((a, b, np.r_[0.1, -0.2, 0.3, 1.0, 0.1, 0.0, 0.2], sweep.pose(50 * i).to_vector()))
    refs = run_reference(reference_exe, [query_line("warm", *q) for q in queries])
    pairs = {}
    warm = 0
    for (a, b, p1, p2), ref in zip(queries, refs):
        pair = pairs.setdefault((a, b), diffcol.ContactPair(diffcol.benchmark_shape(a), diffcol.benchmark_shape(b)))
        sol = pair.solve(p1, p2)
        warm += sol.warm_started
        compare(sol, pair.derivatives(), ref, f"{a}-{b} (warm)")
    assert warm > len(queries) // 2  # the sequence did exercise warm starts


def test_batch_equals_cpp_bit_for_bit(reference_exe):
    queries = ergodic_queries(2, seed=5)  # 72 pairs, one pose each: one batch step
    refs = run_reference(reference_exe, [query_line("cold", *q) for q in queries])
    pairs = [(diffcol.benchmark_shape(a), diffcol.benchmark_shape(b)) for a, b, _, _ in queries]
    X1 = np.array([q[2] for q in queries])
    X2 = np.array([q[3] for q in queries])
    batch = diffcol.ContactBatch(pairs, num_threads=2, blocks="all")
    res = batch.solve(X1, X2)  # first call of a warm-start batch: every pair starts cold
    for p, ref in enumerate(refs):
        assert int(res.status[p]) == int(ref["status"][0])
        for name in solution_fields():
            assert same_bits(np.ravel(res[name][p]), ref[name]), name
        for name in derivative_blocks():
            assert same_bits(np.ravel(res.derivatives[name][p]), ref[name]), name


def test_solve_contact_equals_cli_json(cli_exe):
    # a few queries (one process each): the CLI prints doubles with 17 significant digits
    queries = ergodic_queries(1, seed=3)[::5]
    for a, b, p1, p2 in queries:
        args = [cli_exe, "query", "--shape1", a, "--shape2", b, "--derivatives",
                "--pose1", ",".join(repr(float(v)) for v in p1), "--pose2", ",".join(repr(float(v)) for v in p2)]
        out = subprocess.run(args, capture_output=True, text=True)
        assert out.returncode in (0, 1), out.stderr
        ref = json.loads(out.stdout)
        s1, s2 = diffcol.benchmark_shape(a), diffcol.benchmark_shape(b)
        sol = diffcol.solve_contact(s1, p1, s2, p2)
        der = diffcol.contact_derivatives(sol)
        assert ref["status"] == diffcol.status_name(sol.status)
        assert ref["iterations"] == sol.iterations
        for name in solution_fields():
            assert same_bits(np.ravel(getattr(sol, name)), np.ravel(ref[name])), f"{a}-{b}: {name}"
        assert same_bits(sol.kkt_jacobian, np.array(ref["kkt_jacobian"]))
        for name in derivative_blocks():
            assert same_bits(np.ravel(getattr(der, name)), np.ravel(ref["derivatives"][name])), f"{a}-{b}: {name}"


@pytest.mark.parametrize("layout", ["vector", "list", "matrix", "pose"])
def test_pose_input_forms_give_identical_results(layout):
    # a 4x4 matrix built from the Pose's own R and p is exactly that pose
    s1, s2 = diffcol.benchmark_shape("tc"), diffcol.benchmark_shape("sec")
    v1 = np.array([0.3, -0.1, 0.2, 0.9, 0.1, -0.3, 0.2])
    v2 = np.array([1.5, 2.0, -0.4, 0.2, 0.7, 0.1, -0.5])
    base = diffcol.solve_contact(s1, diffcol.Pose(v1), s2, diffcol.Pose(v2))
    conv = {"vector": lambda v: v, "list": lambda v: list(v), "matrix": lambda v: diffcol.Pose(v).matrix(),
            "pose": lambda v: diffcol.Pose(v)}[layout]
    sol = diffcol.solve_contact(s1, conv(v1), s2, conv(v2))
    for name in solution_fields():
        assert same_bits(getattr(sol, name), getattr(base, name)), name
