"""Helpers of the pytest suite: numpy SE(3), random poses, finite differences on SE(3), the C++
reference runner."""
import subprocess

import numpy as np

import diffcol

# The SE(3) exponential in numpy (independent of the module), twists [w; v].


def skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def se3_exp(xi):
    """exp of the twist xi = [w; v] as a 4x4 matrix (Rodrigues, with the series near 0)."""
    w, v = np.asarray(xi[:3], float), np.asarray(xi[3:], float)
    th2 = float(w @ w)
    W = skew(w)
    if th2 < 1e-10:
        A, B, C = 1.0 - th2 / 6.0, 0.5 - th2 / 24.0, 1.0 / 6.0 - th2 / 120.0
    else:
        th = np.sqrt(th2)
        A, B, C = np.sin(th) / th, (1.0 - np.cos(th)) / th2, (th - np.sin(th)) / (th2 * th)
    T = np.eye(4)
    T[:3, :3] = np.eye(3) + A * W + B * W @ W
    T[:3, 3] = (np.eye(3) + B * W + C * W @ W) @ v
    return T


# ---- central finite differences on SE(3) (Richardson-extrapolated, best of several steps)

FD_STEPS = [1e-3, 3e-4, 1e-4, 3e-5]
FD_REL = 1e-6


def richardson(f, h):
    """d f / d t at t = 0 for f(t) -> {name: array}: Richardson on central differences at h, h/2."""
    fp, fm, fp2, fm2 = f(h), f(-h), f(h / 2), f(-h / 2)
    return {k: (4 * (fp2[k] - fm2[k]) / h - (fp[k] - fm[k]) / (2 * h)) / 3 for k in fp}


def best_of(at_step, names, steps=FD_STEPS):
    """Per block, the finer estimate of the pair of successive steps that agree best."""
    est = [at_step(h) for h in steps]
    out = {}
    for n in names:
        diffs = [np.max(np.abs(est[i + 1][n] - est[i][n])) for i in range(len(steps) - 1)]
        out[n] = est[int(np.argmin(diffs)) + 1][n]
    return out


def check_block(analytic, numeric, where, rel=FD_REL):
    """Row-scaled relative error (scale max(|A|, |N|, 1e-3) per row) at most rel; returns the worst."""
    A, N = np.atleast_2d(analytic), np.atleast_2d(numeric)
    assert A.shape == N.shape, where
    scale = np.maximum(np.max(np.maximum(np.abs(A), np.abs(N)), axis=1, keepdims=True), 1e-3)
    worst = float((np.abs(A - N) / scale).max())
    assert worst <= rel, f"{where}: worst relative error {worst:.3e}\nanalytic\n{A}\nnumeric\n{N}"
    return worst


def perturbed(T1, T2, wrt, xi, convention="world"):
    """(T1, T2) moved by the twist xi: wrt "X1" / "X2" moves that body (world twist: exp(xi) T on
    the left; body twist: T exp(xi) on the right); "X12" is the body twist of body 2 relative to
    body 1 (T2 exp(xi))."""
    D = se3_exp(xi)
    if wrt == "X12":
        return T1, T2 @ D
    move = (lambda T: D @ T) if convention == "world" else (lambda T: T @ D)
    return (move(T1), T2) if wrt == "X1" else (T1, move(T2))


def twist_jacobians_fd(evaluate, T1, T2, wrt, names, convention="world"):
    """{name: (rows, 6)} finite-difference Jacobians of evaluate(A, B) -> {name: array} with
    respect to the twist `wrt` (see perturbed), columns [w; v]."""
    def at_step(h):
        cols = []
        for k in range(6):
            e = np.zeros(6)
            e[k] = 1.0
            cols.append(richardson(lambda t: evaluate(*perturbed(T1, T2, wrt, t * e, convention)), h))
        return {n: np.stack([c[n] for c in cols], axis=-1) for n in names}

    return best_of(at_step, names)


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def random_pose7(rng, scale=1.0):
    """A random [x, y, z, qw, qx, qy, qz] (unnormalized quaternion: the library normalizes)."""
    return np.concatenate([scale * rng.normal(size=3), rng.normal(size=4)])


def ergodic_queries(n_per_pair, seed=1):
    """(name1, name2, pose1 (7,), pose2 (7,)) over every ordered pair of benchmark shapes:
    body 1 at a random pose, body 2 at body 1 composed with poses of the pair's ergodic sweep."""
    rng = np.random.default_rng(seed)
    names = diffcol.benchmark_shape_names()
    out = []
    for a in names:
        for b in names:
            sweep = diffcol.ErgodicSweep.for_pair(diffcol.benchmark_shape(a), diffcol.benchmark_shape(b))
            for k in range(n_per_pair):
                p1 = random_pose7(rng)
                X1 = diffcol.Pose(p1)
                X2 = X1 * sweep.pose(int(rng.integers(0, 100000)))
                out.append((a, b, p1, X2.to_vector()))
    return out


def run_reference(exe, lines):
    """Runs the C++ reference on query lines; returns one dict {field: np.array} per query."""
    text = "\n".join(lines) + "\n"
    out = subprocess.run([exe], input=text, capture_output=True, text=True, check=True).stdout
    results, cur = [], {}
    for line in out.splitlines():
        if line == "end":
            results.append(cur)
            cur = {}
            continue
        name, *vals = line.split()
        cur[name] = np.array([float(v) for v in vals])
    assert len(results) == len(lines)
    return results


def query_line(mode, a, b, p1, p2):
    # repr() of a Python float reads back to the same double
    return " ".join([mode, a, b] + [repr(float(v)) for v in p1] + [repr(float(v)) for v in p2])


def same_bits(a, b):
    """True if the two float arrays are identical bit for bit (so -0.0 != 0.0, NaN == same NaN)."""
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    b = np.ascontiguousarray(np.asarray(b, dtype=np.float64))
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))
