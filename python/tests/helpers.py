"""Helpers of the pytest suite: numpy SE(3), random poses, the C++ reference runner."""
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
