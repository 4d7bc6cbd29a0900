"""diffcol.torch: the PyTorch autograd functions over the iDCOL, DCOL and QP pair queries.

- The chain rule world twist -> (position, raw quaternion) (pose_tangent_map) against torch's own
  autograd of an explicit formula (a body-fixed point, R(q/|q|) c + p), and against the QP
  layer's C++ (r, q) chain rule (qp.to_position_quaternion).
- torch.autograd.gradcheck (double precision, finite differences of the 7-vector poses, raw
  quaternions of norm != 1) on random separated pairs of every formulation and penetrating iDCOL
  and DCOL pairs: all outputs, both poses, one pose broadcast over the batch; the same check
  fails with the chain rule broken.
- Values equal the library's one-by-one calls bit for bit.
- Errors: wrong pose shapes and dtypes, a failed solve, a missing derivative needed by backward;
  `import diffcol` does not import torch, and diffcol.torch without torch names python3-torch.
"""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import diffcol
from diffcol import dcol, qp
from diffcol import torch as dt



@pytest.fixture(autouse=True)
def double_precision():
    """Tensors made here from Python lists are float64; the default is restored afterwards."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(previous)


def random_quaternion(rng):
    """A raw quaternion (w, x, y, z) of norm in [0.5, 2] (the layer normalizes it)."""
    q = rng.normal(size=4)
    return q / np.linalg.norm(q) * rng.uniform(0.5, 2.0)


def separated_poses(rng, n, r1, r2, gap=(0.3, 1.0)):
    """(N, 7) pose pairs whose bounding spheres (radii r1, r2 about the origins) are `gap` apart."""
    X1, X2 = [], []
    for _ in range(n):
        p1 = rng.uniform(-1.0, 1.0, size=3)
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        p2 = p1 + u * (r1 + r2 + rng.uniform(*gap))
        X1.append(np.concatenate([p1, random_quaternion(rng)]))
        X2.append(np.concatenate([p2, random_quaternion(rng)]))
    return (torch.tensor(np.array(X1), requires_grad=True), torch.tensor(np.array(X2), requires_grad=True))


# ---- the chain rule on its own


def test_pose_tangent_map_against_autograd_of_a_body_point():
    # f(X) = R(q/|q|) c + p moves with the body: its world-twist Jacobian is [-[f]x, I]
    # (df = w x f + v); J @ M(X) must equal torch's derivative of the explicit quaternion formula.
    rng = np.random.default_rng(1)
    c = torch.tensor([0.3, -1.2, 0.7])

    def point(X):
        p, q = X[:3], X[3:] / torch.linalg.norm(X[3:])
        w, v = q[0], q[1:]
        return p + c + 2.0 * torch.cross(v, torch.cross(v, c) + w * c)

    for _ in range(5):
        X = torch.tensor(np.concatenate([rng.normal(size=3) * 2.0, random_quaternion(rng)]))
        f = point(X)
        J_twist = torch.cat([-dt._skew(f[None])[0], torch.eye(3)], dim=1)        # (3, 6)
        J_pose = J_twist @ dt.pose_tangent_map(X[None])[0]                       # (3, 7)
        assert torch.allclose(J_pose, torch.autograd.functional.jacobian(point, X), rtol=0, atol=1e-12)


def test_pose_tangent_map_equals_the_qp_layers_chain_rule():
    rng = np.random.default_rng(2)
    cap, rect = qp.Capsule(0.5, 2.0), qp.PaddedPolygon.rectangle(1.0, 0.6, 0.2)
    X1, X2 = (X.detach() for X in separated_poses(rng, 4, 1.5, 1.2))
    for a, b in zip(X1.numpy(), X2.numpy()):
        r = qp.proximity(cap, a, rect, b)
        d = qp.proximity_derivatives(cap, a, rect, b, r)
        c = qp.to_position_quaternion(d, a[:3], a[3:], b[:3], b[3:])
        M1, M2 = dt.pose_tangent_map(torch.tensor(np.array([a, b]))).numpy()
        for name in ["phi", "signed_distance", "core1_W", "p2_W", "normal_W"]:
            np.testing.assert_allclose(getattr(d, f"J_{name}_X1") @ M1, getattr(c, f"J_{name}_rq1"), atol=1e-12)
            np.testing.assert_allclose(getattr(d, f"J_{name}_X2") @ M2, getattr(c, f"J_{name}_rq2"), atol=1e-12)


# ---- gradcheck per formulation

IDCOL_PAIRS = [("poly", "ellipsoid"), ("se", "sphere"), ("tc", "sec"), ("ellipsoid", "poly")]
DCOL_PAIRS = [("polytope", "ellipsoid"), ("capsule", "cone"), ("cylinder", "sphere"), ("padded_polygon", "capsule")]
QP_SHAPES = {"capsule": qp.Capsule(0.5, 2.0), "capsule_thin": qp.Capsule(0.3, 1.2),
             "rect": qp.PaddedPolygon.rectangle(1.0, 0.6, 0.2),
             "pentagon": qp.PaddedPolygon.from_vertices(
                 [[1.0, 0.0], [0.3, 0.9], [-0.8, 0.6], [-0.7, -0.7], [0.4, -0.9]], 0.1)}
QP_PAIRS = [("capsule", "capsule_thin"), ("capsule", "rect"), ("pentagon", "capsule"), ("rect", "pentagon")]


# Central differences of step 1e-6 on every pose coordinate against the analytic backward, every
# output; |analytic - numeric| <= atol + rtol |numeric|. On these cases the largest difference is
# 3e-8 (iDCOL poly-ellipsoid), 2e-9 elsewhere.
GRADCHECK = dict(eps=1e-6, atol=1e-6, rtol=1e-5)


def gradcheck(f, X1, X2):
    assert torch.autograd.gradcheck(lambda a, b: tuple(f(a, b)), (X1, X2), **GRADCHECK)


@pytest.mark.parametrize("names", IDCOL_PAIRS, ids="-".join)
def test_gradcheck_idcol(names):
    s1, s2 = (diffcol.benchmark_shape(n) for n in names)
    rng = np.random.default_rng(10 + IDCOL_PAIRS.index(names))
    X1, X2 = separated_poses(rng, 3, s1.outer_radius, s2.outer_radius)
    gradcheck(lambda a, b: dt.contact(s1, a, s2, b, num_threads=1), X1, X2)


@pytest.mark.parametrize("names", DCOL_PAIRS, ids="-".join)
def test_gradcheck_dcol(names):
    s1, s2 = (dcol.benchmark_primitive(n) for n in names)
    rng = np.random.default_rng(20 + DCOL_PAIRS.index(names))
    X1, X2 = separated_poses(rng, 3, dcol.outer_radius(s1), dcol.outer_radius(s2))
    gradcheck(lambda a, b: dt.dcol_contact(s1, a, s2, b), X1, X2)


@pytest.mark.parametrize("names", QP_PAIRS, ids="-".join)
def test_gradcheck_qp(names):
    s1, s2 = (QP_SHAPES[n] for n in names)
    rng = np.random.default_rng(30 + QP_PAIRS.index(names))
    radius = {"capsule": 1.5, "capsule_thin": 0.9, "rect": 1.4, "pentagon": 1.2}
    X1, X2 = separated_poses(rng, 3, radius[names[0]], radius[names[1]])
    gradcheck(lambda a, b: dt.qp_proximity(s1, a, s2, b), X1, X2)


def test_gradcheck_penetrating():
    # Bounding spheres overlapping by 0.6-1.2: some pairs penetrate (alpha < 1).
    rng = np.random.default_rng(60)
    s1, s2 = diffcol.benchmark_shape("poly"), diffcol.benchmark_shape("ellipsoid")
    X1, X2 = separated_poses(rng, 3, s1.outer_radius, s2.outer_radius, gap=(-1.2, -0.6))
    assert (dt.contact(s1, X1, s2, X2).alpha < 1).any()
    gradcheck(lambda a, b: dt.contact(s1, a, s2, b), X1, X2)
    rng = np.random.default_rng(61)
    p1, p2 = dcol.benchmark_primitive("polytope"), dcol.benchmark_primitive("cone")
    X1, X2 = separated_poses(rng, 3, dcol.outer_radius(p1), dcol.outer_radius(p2), gap=(-1.2, -0.6))
    assert (dt.dcol_contact(p1, X1, p2, X2).alpha < 1).any()
    gradcheck(lambda a, b: dt.dcol_contact(p1, a, p2, b), X1, X2)


def test_gradcheck_one_pose_for_all_pairs_and_a_shape_per_pair():
    # X_W1 (7,) broadcast over 3 pairs (its gradient sums over them); body 2 has one shape per pair.
    rng = np.random.default_rng(40)
    poly = diffcol.benchmark_shape("poly")
    shapes2 = [diffcol.benchmark_shape(n) for n in ["sphere", "ellipsoid", "se"]]
    X1 = torch.tensor(np.concatenate([[0.2, -0.1, 0.3], random_quaternion(rng)]), requires_grad=True)
    X2 = torch.tensor(np.array([np.concatenate([X1.detach().numpy()[:3] + 3.5 * u / np.linalg.norm(u),
                                                random_quaternion(rng)])
                                for u in rng.normal(size=(3, 3))]), requires_grad=True)
    out = dt.contact(poly, X1, shapes2, X2)
    assert out.alpha.shape == (3,) and out.p1_W.shape == (3, 3)
    gradcheck(lambda a, b: dt.contact(poly, a, shapes2, b), X1, X2)


@pytest.mark.parametrize("mistake", ["half_quaternion_rate", "twist_about_body_origin"])
def test_gradcheck_catches_a_wrong_chain_rule(monkeypatch, mistake):
    # The same check with the chain rule broken must fail: the rotation rate off by the factor 2
    # of dq = 1/2 [0; w] (x) q, or v read as the velocity of the body origin (no [p]x w term).
    rng = np.random.default_rng(10)
    s1, s2 = diffcol.benchmark_shape("poly"), diffcol.benchmark_shape("ellipsoid")
    X1, X2 = separated_poses(rng, 2, s1.outer_radius, s2.outer_radius)
    right = dt.pose_tangent_map

    def wrong(X):
        M = right(X).clone()
        if mistake == "half_quaternion_rate":
            M[:, :, 3:] *= 0.5
        else:
            M[:, 3:, 3:] = 0.0
        return M

    def f(a, b):
        return tuple(dt.contact(s1, a, s2, b))

    assert torch.autograd.gradcheck(f, (X1, X2), **GRADCHECK)
    monkeypatch.setattr(dt, "pose_tangent_map", wrong)
    assert not torch.autograd.gradcheck(f, (X1, X2), raise_exception=False, **GRADCHECK)


# ---- values, dtypes, errors


def test_values_equal_the_library_calls_bit_for_bit():
    rng = np.random.default_rng(50)
    poly, ell = diffcol.benchmark_shape("poly"), diffcol.benchmark_shape("ellipsoid")
    box, cone = dcol.benchmark_primitive("polytope"), dcol.benchmark_primitive("cone")
    cap, rect = QP_SHAPES["capsule"], QP_SHAPES["rect"]
    X1, X2 = (X.detach() for X in separated_poses(rng, 4, 1.5, 1.5, gap=(-0.5, 1.0)))
    a, b, c = dt.contact(poly, X1, ell, X2), dt.dcol_contact(box, X1, cone, X2), dt.qp_proximity(cap, X1, rect, X2)
    for k, (x1, x2) in enumerate(zip(X1.numpy(), X2.numpy())):
        s = diffcol.solve_contact(poly, x1, ell, x2)
        r = dcol.solve_contact(box, x1, cone, x2)
        p = qp.proximity(cap, x1, rect, x2)
        for out, ref in [(a, s), (b, r), (c, p)]:
            for name in out._fields:
                assert np.array_equal(getattr(out, name)[k].numpy(), np.asarray(getattr(ref, name))), name


def test_float32_and_no_grad():
    poly, ell = diffcol.benchmark_shape("poly"), diffcol.benchmark_shape("ellipsoid")
    X1 = torch.tensor([0, 0, 0, 1, 0, 0, 0], dtype=torch.float32)
    X2 = torch.tensor([[2.0, 0.3, 0.1, 1, 0, 0, 0]], dtype=torch.float32, requires_grad=True)
    out = dt.contact(poly, X1, ell, X2)
    assert out.alpha.dtype == torch.float32 and out.alpha.requires_grad
    out.gap.sum().backward()
    assert X2.grad.dtype == torch.float32 and torch.isfinite(X2.grad).all()
    with torch.no_grad():
        assert not dt.contact(poly, X1, ell, X2).alpha.requires_grad
    empty = dt.contact(poly, X1, ell, torch.zeros((0, 7)))
    assert empty.alpha.shape == (0,) and empty.p1_W.shape == (0, 3)


def test_bad_poses_raise():
    poly, ell = diffcol.benchmark_shape("poly"), diffcol.benchmark_shape("ellipsoid")
    good = torch.tensor([[2.0, 0.3, 0.1, 1, 0, 0, 0]])
    with pytest.raises(ValueError, match=r"\(N, 7\)"):
        dt.contact(poly, torch.eye(4)[None], ell, good)
    with pytest.raises(ValueError, match=r"\(N, 7\)"):
        dt.contact(poly, torch.zeros((2, 6)), ell, good)
    with pytest.raises(ValueError, match="poses"):
        dt.contact(poly, torch.tensor([[0, 0, 0, 1, 0, 0, 0.]] * 2), ell, torch.cat([good] * 3))
    with pytest.raises(TypeError, match="floating-point"):
        dt.contact(poly, torch.tensor([0, 0, 0, 1, 0, 0, 0]), ell, good)
    with pytest.raises(TypeError, match="Tensor"):
        dt.contact(poly, [0, 0, 0, 1, 0, 0, 0], ell, good)
    with pytest.raises(ValueError, match="shapes"):
        dt.contact(poly, good, [ell, ell], good)
    with pytest.raises(ValueError):                              # the library's: zero quaternion
        dt.dcol_contact(dcol.benchmark_primitive("sphere"), torch.zeros(7), dcol.benchmark_primitive("cone"), good)


def test_failed_solve_raises():
    # Coincident origins: iDCOL and DCOL have no contact point to scale towards.
    X = torch.tensor([[0.0, 0, 0, 1, 0, 0, 0]])
    with pytest.raises(dt.SolveError, match="pair 0 of 1: solve status coincident_origins"):
        dt.contact(diffcol.benchmark_shape("sphere"), X, diffcol.benchmark_shape("poly"), X)
    with pytest.raises(dt.SolveError, match="coincident_origins"):
        dt.dcol_contact(dcol.benchmark_primitive("sphere"), X, dcol.benchmark_primitive("cone"), X)


def test_missing_derivative_raises_in_backward_only_when_needed():
    # Two parallel capsules side by side: the minimizer is not unique (non_unique_minimizer).
    cap = qp.Capsule(0.3, 2.0)
    X1 = torch.tensor([[0.0, 0, 0, 1, 0, 0, 0], [0.0, 0, 0, 1, 0, 0, 0]], requires_grad=True)
    X2 = torch.tensor([[0.2, 1.0, 0, 1, 0, 0, 0], [0.0, 1.0, 0, 0.9, 0.1, 0.2, 0.3]], requires_grad=True)
    out = dt.qp_proximity(cap, X1, cap, X2)
    with pytest.raises(dt.SolveError, match="pair 0 of 2: derivative status non_unique_minimizer"):
        out.phi.sum().backward(retain_graph=True)
    (out.phi * torch.tensor([0.0, 1.0])).sum().backward(retain_graph=True)   # pair 0 not needed
    assert torch.isfinite(X2.grad).all() and (X2.grad[0] == 0).all()
    out = dt.qp_proximity(cap, X1, cap, X2, accept_one_sided=True)
    out.phi.sum().backward()
    assert torch.isfinite(X1.grad).all()


def python(code, env_path):
    env = dict(os.environ, PYTHONPATH=env_path)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_import_diffcol_does_not_import_torch():
    path = os.pathsep.join(p for p in sys.path if p)
    r = python("import sys, diffcol; diffcol.solve_contact; assert 'torch' not in sys.modules", path)
    assert r.returncode == 0, r.stderr
    # Without torch (an import hook refuses it), diffcol works and diffcol.torch names the package.
    block = ("import sys\nclass Block:\n def find_spec(self, name, path=None, target=None):\n"
             "  if name == 'torch' or name.startswith('torch.'): raise ImportError('no torch here')\n"
             "sys.meta_path.insert(0, Block())\nimport diffcol\n")
    r = python(block + "import diffcol.torch", path)
    assert r.returncode != 0 and "ImportError" in r.stderr and "python3-torch" in r.stderr, r.stderr
    r = python(block + "assert diffcol.solve_contact(diffcol.Sphere(1), [0,0,0,1,0,0,0], diffcol.Sphere(1),"
               " [3,0,0,1,0,0,0]).ok", path)
    assert r.returncode == 0, r.stderr
