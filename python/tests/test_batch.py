"""ContactBatch equals the one-by-one calls, bit for bit, for any thread count and pose layout."""
import threading

import numpy as np
import pytest

import diffcol
from helpers import random_pose7, same_bits

FIELDS = ["residual_norm", "alpha", "x_B1", "lambda1", "lambda2", "p1_B1", "p2_B1", "gap", "normal_B1",
          "x_W", "p1_W", "p2_W", "normal_W"]


def mixed_pairs():
    names = diffcol.benchmark_shape_names()
    pairs = [(diffcol.benchmark_shape(a), diffcol.benchmark_shape(b)) for a in names for b in names]
    box = diffcol.SmoothPolytope.box(0.3, 0.5, 0.8, beta=15.0)
    hull = diffcol.SmoothPolytope.convex_hull(
        np.array([[1, 0, 0], [-0.5, 0.8, 0], [-0.5, -0.8, 0], [0, 0, 1.2], [0.1, 0.1, -0.9]], float), beta=10.0)
    cone = diffcol.SmoothTruncatedCone(10.0, 0.8, 0.05, 0.5, 1.0)
    pairs += [(box, hull), (hull, cone), (cone, diffcol.Sphere(0.3)),
              (diffcol.Superellipsoid(3, 0.4, 0.9, 0.2), box)]
    return pairs


def trajectory(pairs, T, seed):
    """(T, P, 7) poses of body 1 and body 2: body 1 drifts slowly, body 2 moves along each pair's
    ergodic sweep relative to it (consecutive steps close: warm starts apply)."""
    rng = np.random.default_rng(seed)
    P = len(pairs)
    X1 = np.empty((T, P, 7))
    X2 = np.empty((T, P, 7))
    base = [random_pose7(rng) for _ in range(P)]
    sweeps = [diffcol.ErgodicSweep.for_pair(a, b) for a, b in pairs]
    offsets = rng.integers(0, 50000, size=P)
    for t in range(T):
        for p in range(P):
            v = base[p].copy()
            v[:3] += 0.001 * t
            A = diffcol.Pose(v)
            X1[t, p] = v
            X2[t, p] = (A * sweeps[p].pose(int(offsets[p] + 40 * t))).to_vector()
    return X1, X2


def assert_same(res_get, sol, where):
    assert int(res_get("status")) == int(sol.status), where
    assert int(res_get("iterations")) == sol.iterations, where
    assert bool(res_get("warm_started")) == sol.warm_started, where
    for f in FIELDS:
        assert same_bits(res_get(f), getattr(sol, f)), f"{where}: {f}"


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_warm_batch_over_two_calls_equals_sequential_contact_pairs(threads):
    pairs = mixed_pairs()
    T = 12
    X1, X2 = trajectory(pairs, T, seed=threads)
    batch = diffcol.ContactBatch(pairs, num_threads=threads, derivatives=True)
    assert batch.num_threads == threads and batch.num_pairs == len(pairs)
    r0 = batch.solve(X1[:5], X2[:5])          # (T, P, 7): a rollout of 5 steps
    r1 = batch.solve(X1[5:], X2[5:])          # continues the warm starts
    assert r0.alpha.shape == (5, len(pairs)) and r1.x_W.shape == (T - 5, len(pairs), 3)
    assert r1.derivatives.J_normal_W_X2.shape == (T - 5, len(pairs), 3, 6)
    refs = [diffcol.ContactPair(a, b) for a, b in pairs]
    warm = 0
    for t in range(T):
        r, tt = (r0, t) if t < 5 else (r1, t - 5)
        for p, pair in enumerate(refs):
            sol = pair.solve(X1[t, p], X2[t, p])
            warm += sol.warm_started
            assert_same(lambda f: r[f][tt, p], sol, f"threads {threads} step {t} pair {p}")
            der = pair.derivatives()
            for name in ["J_alpha_X1", "J_x_W_X2", "J_z_X12", "J_normal_B1_X12", "J_p2_W_X1"]:
                assert same_bits(r.derivatives[name][tt, p], getattr(der, name)), name
            # the per-query accessors return the same
            if t >= 5:
                assert same_bits(batch.solution(tt, p).alpha, sol.alpha)
    assert warm > T * len(pairs) // 2


@pytest.mark.parametrize("threads", [1, 2])
def test_cold_batch_equals_solve_contact_with_matrix_poses(threads):
    pairs = mixed_pairs()
    X1, X2 = trajectory(pairs, 4, seed=10 + threads)
    M1 = np.array([[diffcol.Pose(v).matrix() for v in row] for row in X1])
    M2 = np.array([[diffcol.Pose(v).matrix() for v in row] for row in X2])
    opts = diffcol.SolveOptions(warm_start=False)
    batch = diffcol.ContactBatch(pairs, num_threads=threads, options=opts)
    res = batch.solve(M1, M2)  # (T, P, 4, 4)
    assert res.derivatives is None
    for t in range(4):
        for p, (a, b) in enumerate(pairs):
            sol = diffcol.solve_contact(a, M1[t, p], b, M2[t, p], opts)
            assert_same(lambda f: res[f][t, p], sol, f"step {t} pair {p}")
            assert same_bits(res.X_12[t, p], sol.X_12.matrix())


def test_single_pose_broadcasts_to_every_pair():
    pairs = mixed_pairs()
    _, X2 = trajectory(pairs, 1, seed=3)
    batch = diffcol.ContactBatch(pairs, options=diffcol.SolveOptions(warm_start=False))
    res = batch.solve(diffcol.Pose(), X2[0])  # body 1 at the identity for every pair, (P, 7)
    assert res.alpha.shape == (len(pairs),) and res.steps == 1
    for p, (a, b) in enumerate(pairs):
        sol = diffcol.solve_contact(a, diffcol.Pose(), b, X2[0, p])
        assert same_bits(res.alpha[p], sol.alpha)


def test_batch_runs_in_python_threads_and_releases_the_gil():
    # two batches solved from two Python threads at once give the same results as alone
    pairs = mixed_pairs()
    X1, X2 = trajectory(pairs, 6, seed=4)
    opts = diffcol.SolveOptions(warm_start=False)
    expected = diffcol.ContactBatch(pairs, num_threads=1, options=opts).solve(X1, X2).alpha
    results = {}

    def work(k):
        b = diffcol.ContactBatch(pairs, num_threads=1, options=opts)
        results[k] = b.solve(X1, X2).alpha

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for k in range(3):
        assert same_bits(results[k], expected)


def test_reset_warm_start_and_add_pair():
    batch = diffcol.ContactBatch(num_threads=2)
    assert batch.num_pairs == 0
    assert batch.add_pair(diffcol.Sphere(1.0), diffcol.benchmark_shape("poly")) == 0
    assert batch.add_pair(diffcol.benchmark_shape("tc"), diffcol.Sphere(0.5)) == 1
    X2 = np.array([[3.0, 0.2, 0.1, 1, 0, 0, 0], [0.5, 2.5, 0.0, 0.9, 0.1, 0.2, 0.3]])
    batch.solve(np.eye(4), X2)
    r = batch.solve(np.eye(4), X2)
    assert r.warm_started.all()
    batch.reset_warm_start()
    r = batch.solve(np.eye(4), X2)
    assert not r.warm_started.any()
    s1, s2 = batch.shapes(1)
    assert s1.type == diffcol.ShapeType.smooth_truncated_cone and s2.type == diffcol.ShapeType.sphere


def test_batch_rejects_bad_input_with_value_error():
    pairs = mixed_pairs()[:3]
    batch = diffcol.ContactBatch(pairs)
    good = np.tile(np.r_[2.0, 0, 0, 1, 0, 0, 0], (3, 1))
    with pytest.raises(ValueError, match="number of pairs"):
        batch.solve(np.eye(4), good[:2])
    with pytest.raises(ValueError, match="same leading shape"):
        batch.solve(good[None].repeat(2, axis=0), np.stack([good] * 3))
    with pytest.raises(ValueError, match="expected poses of shape"):
        batch.solve(np.eye(4), np.zeros((3, 5)))
    bad = good.copy()
    bad[1, 3:] = 0.0
    with pytest.raises(ValueError, match=r"X_W2 \(pose 1\): pose: quaternion has zero norm"):
        batch.solve(np.eye(4), bad)
    bad = good.copy()
    bad[2, 0] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        batch.solve(bad, good)
    skew = np.tile(np.eye(4), (3, 1, 1))
    skew[0, 0, 1] = 0.5
    with pytest.raises(ValueError, match="not a rotation"):
        batch.solve(skew, good)
    with pytest.raises(ValueError, match="num_threads"):
        diffcol.ContactBatch(pairs, num_threads=-1)
    batch.solve(np.eye(4), good)
    with pytest.raises(IndexError):
        batch.solution(1, 0)
    with pytest.raises(RuntimeError, match="derivatives"):
        batch.contact_derivatives(0, 0)
