"""ContactBatch equals the one-by-one calls, bit for bit, for any thread count and pose layout; one
pair over N poses; the derivative blocks asked for (blocks=) equal those of the full computation."""
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
    cone = diffcol.SmoothTruncatedCone(0.8, 0.05, 0.5, 1.0, 10.0)
    pairs += [(box, hull), (hull, cone), (cone, diffcol.Sphere(0.3)),
              (diffcol.Superellipsoid(0.4, 0.9, 0.2, 3), box)]
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
    batch = diffcol.ContactBatch(pairs, num_threads=threads, blocks="all")
    assert batch.num_threads == threads and batch.num_pairs == len(pairs) and batch.derivatives
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


# ---------------------------------------------------------------- one pair over N poses

def one_pair_poses(a, b, n, seed):
    """(N, 7) poses of body 1 and body 2 of one pair: body 2 along the pair's sweep relative to body 1."""
    rng = np.random.default_rng(seed)
    sweep = diffcol.ErgodicSweep.for_pair(a, b)
    X1 = np.array([random_pose7(rng) for _ in range(n)])
    X2 = np.array([(diffcol.Pose(X1[k]) * sweep.pose(61 * k + 5)).to_vector() for k in range(n)])
    return X1, X2


@pytest.mark.parametrize("threads", [1, 2])
def test_one_pair_over_n_poses_equals_the_n_by_1_layout_bit_for_bit(threads):
    pairs = mixed_pairs()
    for p in [3, 20, len(pairs) - 2]:
        a, b = pairs[p]
        X1, X2 = one_pair_poses(a, b, 60, seed=p)
        ref = diffcol.ContactBatch([(a, b)], num_threads=1, blocks="all",
                                   options=diffcol.SolveOptions(warm_start=False)).solve(X1[:, None], X2[:, None])
        # default options (warm_start=True): (N, 7) is still N independent cold solves
        one = diffcol.ContactBatch(a, b, num_threads=threads, blocks="all")
        assert one.num_pairs == 1
        res = one.solve(X1, X2)
        assert res.alpha.shape == (60,) and res.x_W.shape == (60, 3) and res.steps == 60 and res.pairs == 1
        assert res.derivatives.J_normal_W_X2.shape == (60, 3, 6) and res.derivatives.J_z_X12.shape == (60, 6, 6)
        for name, arr in res.as_dict().items():
            assert same_bits(arr, ref[name][:, 0]), f"pair {p}: {name}"
        for name, arr in res.derivatives.as_dict().items():
            assert same_bits(arr, ref.derivatives[name][:, 0]), f"pair {p}: {name}"
        assert not res.warm_started.any()
        # 4x4 stacks and a single pose for body 1 (used for every query)
        M2 = np.array([diffcol.Pose(v).matrix() for v in X2])
        res = one.solve(X1, M2)
        assert same_bits(res.alpha, ref.alpha[:, 0]) and same_bits(res.derivatives.J_gap_X1, ref.derivatives.J_gap_X1[:, 0])
        P0 = np.array([0.3, -0.2, 0.1, 1.0, 0.0, 0.0, 0.0])
        ref1 = diffcol.ContactBatch([(a, b)], num_threads=1, options=diffcol.SolveOptions(warm_start=False)).solve(
            np.tile(P0, (60, 1, 1)), X2[:, None])
        res = one.solve(diffcol.Pose(P0), X2)
        assert same_bits(res.alpha, ref1.alpha[:, 0]) and same_bits(res.p2_W, ref1.p2_W[:, 0])
        # the per-query accessors: query i is (i, 0)
        assert same_bits(one.solution(7, 0).alpha, res.alpha[7])


def test_requested_blocks_equal_the_full_computation_and_the_others_are_absent():
    pairs = mixed_pairs()
    a, b = pairs[9]
    X1, X2 = one_pair_poses(a, b, 80, seed=1)
    full = diffcol.ContactBatch(a, b, num_threads=2, blocks="all").solve(X1, X2).derivatives
    assert len(full.blocks) == 33
    # a copied subset: the same bits as the full computation
    sub = diffcol.ContactBatch(a, b, num_threads=2, blocks=["J_p1_W", "J_normal_W_X2", "J_z"]).solve(X1, X2).derivatives
    assert sub.blocks == ["J_z_X12", "J_p1_W_X1", "J_p1_W_X2", "J_normal_W_X2"]
    assert sorted(sub.as_dict()) == sorted(sub.blocks + ["status"])
    for name in sub.blocks + ["status"]:
        assert same_bits(sub[name], full[name]), name
    # absent blocks: AttributeError / KeyError naming what was computed
    assert "J_p1_W_X1" in sub and "J_normal_W_X1" not in sub
    assert "J_p1_W_X1" in dir(sub) and "J_normal_W_X1" not in dir(sub) and "status" in dir(sub)
    with pytest.raises(AttributeError, match=r"J_normal_W_X1 was not computed \(this solve computed: J_z_X12, "):
        sub.J_normal_W_X1
    with pytest.raises(KeyError, match="J_gap_X1 was not computed"):
        sub["J_gap_X1"]
    with pytest.raises(KeyError, match="no block named 'J_nope'"):
        sub["J_nope"]
    # the default: gap and alpha by the envelope theorem, equal to the full path to the solve's accuracy
    batch = diffcol.ContactBatch(a, b, num_threads=2, derivatives=True)
    assert batch.blocks == ["J_alpha_X12", "J_gap_X12", "J_alpha_X1", "J_gap_X1", "J_alpha_X2", "J_gap_X2"]
    env = batch.solve(X1, X2).derivatives
    assert env.blocks == batch.blocks and "J_p1_W_X1" not in env
    ok = full.ok
    assert ok.sum() > 70 and (env.ok[ok]).all()
    for name in env.blocks:
        err = np.linalg.norm(env[name][ok] - full[name][ok], axis=-1)
        assert (err <= 1e-6 * np.linalg.norm(full[name][ok], axis=-1) + 1e-9).all(), name
    # blocks can change between calls
    batch.blocks = "J_gap_X2"
    d = batch.solve(X1, X2).derivatives
    assert d.blocks == ["J_gap_X2"] and same_bits(d.J_gap_X2, env.J_gap_X2)
    # the pair batch takes blocks= too, and the derivatives stay off without them
    many = diffcol.ContactBatch(pairs[:3], blocks=["J_gap"])
    assert many.derivatives and many.solve(diffcol.Pose(), np.tile([3.0, 0, 0, 1, 0, 0, 0], (3, 1))).derivatives.J_gap_X12.shape == (3, 6)
    assert diffcol.ContactBatch(a, b).solve(X1, X2).derivatives is None


def test_one_pair_bad_shapes_and_block_names_raise_clear_errors():
    a, b = mixed_pairs()[4]
    one = diffcol.ContactBatch(a, b)
    X = np.tile([2.5, 0.1, 0.0, 1, 0, 0, 0], (5, 1))
    with pytest.raises(ValueError, match=r"same leading shape, got \(5,\) and \(4,\)"):
        one.solve(X, X[:4])
    with pytest.raises(ValueError, match=r"number of pairs \(1\).*one pair over N poses: \(N, 7\) or \(N, 4, 4\)"):
        one.solve(diffcol.Pose(), np.stack([X[:2]] * 3))  # (3, 2, 7): two pairs
    with pytest.raises(ValueError, match=r"expected poses of shape .*\(N, 7\) or \(N, 4, 4\)\), got an array of shape \(5, 6\)"):
        one.solve(diffcol.Pose(), X[:, :6])
    many = np.tile([2.5, 0.1, 0.0, 1, 0, 0, 0], (2000, 1))
    many[[1500, 700], 3:] = 0.0  # the poses are converted on the threads: the error names the first one
    with pytest.raises(ValueError, match=r"X_W2 \(pose 700\): pose: quaternion has zero norm"):
        diffcol.ContactBatch(a, b, num_threads=2).solve(diffcol.Pose(), many)
    with pytest.raises(ValueError, match=r"unknown name \"J_gap_X3\"; valid names: \"all\", \"J_z\", "):
        diffcol.ContactBatch(a, b, blocks=["J_gap", "J_gap_X3"])
    with pytest.raises(ValueError, match=r"unknown name \"gap\""):
        one.blocks = ["gap"]
    with pytest.raises(TypeError, match="blocks: expected"):
        diffcol.ContactBatch(a, b, blocks=[1, 2])
    with pytest.raises(ValueError, match="derivatives=False"):
        diffcol.ContactBatch(a, b, derivatives=False, blocks=["J_gap"])
    with pytest.raises(TypeError):
        diffcol.ContactBatch(a)  # neither pairs nor two shapes


def test_one_pair_throughput_example_runs_in_quick_mode(capsys):
    # python/examples/one_pair_throughput.py --quick: prints the host line and the table (no timing checks)
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "examples" / "one_pair_throughput.py"
    spec = importlib.util.spec_from_file_location("one_pair_throughput", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--quick"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("host: ") and "logical CPUs" in lines[0] and "smooth polytope width" in lines[0]
    assert any(line.startswith("python loop") for line in lines)
    assert sum(line.startswith("batch, 2 threads") for line in lines) == 4
