"""diffcol.torch: PyTorch autograd functions over diffcol's three pair formulations.

Optional: needs PyTorch (Debian's python3-torch); ``import diffcol`` does not import it.

Functions (each batched over N pairs of poses, values and gradients in one call):

    contact(shape1, X_W1, shape2, X_W2)        iDCOL (smooth shapes)   -> Contact
    dcol_contact(shape1, X_W1, shape2, X_W2)   DCOL (exact primitives) -> DcolContact
    qp_proximity(shape1, X_W1, shape2, X_W2)   DiffPills QPs (capsules, padded polygons) -> QpProximity

Poses are tensors of shape (N, 7), rows [x, y, z, qw, qx, qy, qz] (the layout of diffcol.Pose's
7-vector); a single pose (7,) is used for all N pairs (broadcast by torch, so its gradient is the
sum over the pairs; two single poses make N = 1). The quaternion need not be unit: the library normalizes it, and the gradient
includes that normalization (it is orthogonal to q). Other shapes raise ValueError. A shape
argument is one shape for every pair or a sequence of N shapes. Outputs have the poses' dtype and
device (the library computes in double on the CPU); use float64 for gradients you will check.

Values are those of the library's calls (solve_contact, dcol.solve_contact, qp.proximity) for the
same poses, bit for bit in double. Gradients are the library's pose Jacobians (world twists),
chained to the 7-vector by pose_tangent_map (below). A failed solve raises SolveError in the
forward pass; a pair whose derivatives are not available (the library's derivative status is not
ok) raises SolveError in the backward pass when that pair's incoming gradient is not zero, never
a NaN or a silent zero.

The chain rule (pose_tangent_map)
---------------------------------
The library's X1 / X2 Jacobian columns are world twists eta = [w; v], X <- exp(eta^) X: R <- exp(w^) R
and p <- exp(w^) p + v + O(|eta|^2), i.e. to first order dR = w^ R and dp = w x p + v (v is the
velocity of the point at the world origin, so a rotation alone moves p). For the 7-vector
X = [p, q~] with q = q~/|q~| (Hamilton, w first) the same motion is dq = 1/2 [0; w] (x) q, so a
change (dp, dq~) of the coordinates is the twist

    w = (2/|q~|) G(q) dq~,   G(q) = [-q_v, q_w I + [q_v]x]   (3x4; G(q) dq = vec(dq (x) q*))
    v = dp - w x p = dp + [p]x w

(the part of dq~ along q changes nothing: G(q) q = 0). As a matrix, twist = M(X) dX with

    M(X) = [ 0      (2/|q~|) G(q)      ]   (6x7)
           [ I_3    [p]x (2/|q~|) G(q) ]

so a Jacobian J (rows x 6, world twist) becomes J M(X) (rows x 7) with respect to X, and the
backward pass is grad_X = (grad_out^T J) M(X). pose_tangent_map returns M for a batch of poses.
"""

try:
    import torch as _torch
except ImportError as _error:  # pragma: no cover - exercised only where torch is absent
    raise ImportError(
        "diffcol.torch needs PyTorch, which is not installed for this interpreter. On Debian / "
        "Ubuntu: apt-get install python3-torch (bash scripts/setup.sh installs it). The rest of "
        "diffcol works without it.") from _error

import collections as _collections

import numpy as _np

from . import _diffcol
from ._diffcol import dcol as _dcol
from ._diffcol import qp as _qp

__all__ = ["contact", "dcol_contact", "qp_proximity", "Contact", "DcolContact", "QpProximity",
           "SolveError", "pose_tangent_map"]


class SolveError(RuntimeError):
    """A solve failed, or a needed derivative is not available (the message names the pair and status)."""


Contact = _collections.namedtuple("Contact", ["alpha", "gap", "p1_W", "p2_W", "normal_W"])
Contact.__doc__ = """iDCOL outputs per pair: alpha (N,), gap (N,), p1_W, p2_W, normal_W (N, 3).

alpha > 1 separated (< 1 penetrating); gap = d_D (eq. (30)); p1_W, p2_W the witness points on
body 1 and 2; normal_W from body 1 towards body 2 (see help(diffcol.solve_contact))."""

DcolContact = _collections.namedtuple("DcolContact", ["alpha", "gap", "p1_W", "p2_W", "x_W"])
DcolContact.__doc__ = """DCOL outputs per pair: alpha (N,), gap (N,), p1_W, p2_W, x_W (N, 3).

gap is d_D, the signed eq. (30) (not the Euclidean distance); p1_W, p2_W the contact points (29); x_W the intersection point of
the scaled primitives (see help(diffcol.dcol.solve_contact))."""

QpProximity = _collections.namedtuple(
    "QpProximity", ["signed_distance", "phi", "core1_W", "core2_W", "p1_W", "p2_W", "normal_W"])
QpProximity.__doc__ = """DiffPills outputs per pair: signed_distance, phi (N,); core1_W, core2_W, p1_W,
p2_W, normal_W (N, 3).

core1_W, core2_W are the witness points on the cores (segment / polygon), p1_W, p2_W those
on the padded surfaces, phi = |p1 - p2|^2 - (R1 + R2)^2 (see help(diffcol.qp.proximity))."""


# ---- the chain rule: world twist -> [p, q~]


def _skew(a):
    """[a]x for a batch of 3-vectors (N, 3) -> (N, 3, 3)."""
    z = _torch.zeros_like(a[:, 0])
    return _torch.stack([_torch.stack([z, -a[:, 2], a[:, 1]], -1),
                         _torch.stack([a[:, 2], z, -a[:, 0]], -1),
                         _torch.stack([-a[:, 1], a[:, 0], z], -1)], -2)


def pose_tangent_map(X):
    """M(X) (N, 6, 7): the world twist [w; v] that a change dX of the poses X (N, 7) makes.

    J_X = J_twist @ M(X) turns a Jacobian with respect to the world twist (the library's X1 / X2
    blocks) into one with respect to [x, y, z, qw, qx, qy, qz] (quaternion not necessarily unit:
    the normalization is included). The derivation is in the module docstring.
    """
    X = _as_pose_tensor(X, "X")
    p, q_raw = X[:, :3], X[:, 3:]
    n = _torch.linalg.norm(q_raw, dim=1)
    q = q_raw / n[:, None]
    eye = _torch.eye(3, dtype=X.dtype, device=X.device).expand(X.shape[0], 3, 3)
    G = _torch.cat([-q[:, 1:, None], q[:, :1, None] * eye + _skew(q[:, 1:])], dim=2)  # (N, 3, 4)
    dw_dq = (2.0 / n)[:, None, None] * G
    M = X.new_zeros((X.shape[0], 6, 7))
    M[:, :3, 3:] = dw_dq
    M[:, 3:, :3] = eye
    M[:, 3:, 3:] = _skew(p) @ dw_dq
    return M


# ---- input checks


def _as_pose_tensor(X, name):
    if not isinstance(X, _torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor of poses (N, 7), got {type(X).__name__}")
    if X.is_complex() or not X.is_floating_point():
        raise TypeError(f"{name}: expected a real floating-point tensor (float32 / float64), got {X.dtype}")
    if X.dim() == 1:
        X = X.unsqueeze(0)
    if X.dim() != 2 or X.shape[1] != 7:
        raise ValueError(f"{name}: expected poses of shape (N, 7) [x, y, z, qw, qx, qy, qz] or one "
                         f"pose (7,), got shape {tuple(X.shape)} (a 4x4 matrix T converts with "
                         f"diffcol.Pose.from_matrix(T).to_vector())")
    return X


def _poses(X_W1, X_W2):
    """Both poses as (N, 7) tensors of one dtype and device; a single pose is broadcast."""
    single1, single2 = (isinstance(X, _torch.Tensor) and X.dim() == 1 for X in (X_W1, X_W2))
    X1, X2 = _as_pose_tensor(X_W1, "X_W1"), _as_pose_tensor(X_W2, "X_W2")
    if X1.device != X2.device:
        raise ValueError(f"X_W1 is on {X1.device}, X_W2 on {X2.device}: put both on one device")
    dtype = _torch.promote_types(X1.dtype, X2.dtype)
    X1, X2 = X1.to(dtype), X2.to(dtype)
    if single1 and not single2:
        X1 = X1.expand(X2.shape[0], 7)
    elif single2 and not single1:
        X2 = X2.expand(X1.shape[0], 7)
    elif X1.shape[0] != X2.shape[0]:
        raise ValueError(f"X_W1 has {X1.shape[0]} poses, X_W2 {X2.shape[0]}: give N poses each, "
                         "or one pose (7,) for all pairs")
    return X1, X2


def _shape_list(shape, n, name):
    if isinstance(shape, (list, tuple)):
        if len(shape) != n:
            raise ValueError(f"{name}: {len(shape)} shapes for {n} poses: give one shape, or one per pose")
        return list(shape)
    return [shape] * n


# ---- the three formulations: values (N, ...) and world-twist Jacobians (N, d, 6) per output


def _solve_idcol(shape1, X1, shape2, X2, need_jacobians, options, num_threads):
    n = X1.shape[0]
    kwargs = {"num_threads": num_threads, "derivatives": need_jacobians}
    if need_jacobians:  # only the blocks used below
        kwargs["blocks"] = [f"J_{name}_X{i}" for name in Contact._fields for i in (1, 2)]
    if options is not None:
        kwargs["options"] = options
    # A fresh batch solves each pair once from a cold start: solve_contact's numbers, bit for bit.
    batch = _diffcol.ContactBatch(list(zip(_shape_list(shape1, n, "shape1"),
                                           _shape_list(shape2, n, "shape2"))), **kwargs)
    res = batch.solve(X1, X2)
    for k in _np.flatnonzero(res.status != int(_diffcol.SolveStatus.ok)):
        status = _diffcol.SolveStatus(int(res.status[k])).name
        raise SolveError(f"diffcol.torch.contact: pair {k} of {n}: solve status {status}")
    values = [res.alpha, res.gap, res.p1_W, res.p2_W, res.normal_W]
    if not need_jacobians:
        return values, None
    d = res.derivatives
    jac = {i: [getattr(d, f"J_{name}_X{i}") for name in Contact._fields] for i in (1, 2)}
    bad = [(k, _diffcol.DerivativeStatus(int(s)).name) for k, s in enumerate(d.status)
           if s != int(_diffcol.DerivativeStatus.ok)]
    return values, (jac, bad)


def _solve_dcol(shape1, X1, shape2, X2, need_jacobians, options):
    n = X1.shape[0]
    s1, s2 = _shape_list(shape1, n, "shape1"), _shape_list(shape2, n, "shape2")
    extra = () if options is None else (options,)
    values = [[] for _ in DcolContact._fields]
    jac = {1: [[] for _ in DcolContact._fields], 2: [[] for _ in DcolContact._fields]}
    bad = []
    for k in range(n):
        r = _dcol.solve_contact(s1[k], X1[k], s2[k], X2[k], *extra)
        if not r.ok:
            raise SolveError(f"diffcol.torch.dcol_contact: pair {k} of {n}: solve status {r.status.name}")
        for j, name in enumerate(DcolContact._fields):
            values[j].append(getattr(r, name))
        if need_jacobians:
            d = _dcol.contact_derivatives(r)
            if not d.ok:
                bad.append((k, d.status.name))
            for i in (1, 2):
                for j, name in enumerate(DcolContact._fields):
                    jac[i][j].append(getattr(d, f"J_{name}_X{i}"))
    return _stack(values, jac, need_jacobians, bad, n, DcolContact)


_QP_ONE_SIDED = ("non_unique_minimizer", "cores_touch")


def _solve_qp(shape1, X1, shape2, X2, need_jacobians, options, accept_one_sided):
    n = X1.shape[0]
    s1, s2 = _shape_list(shape1, n, "shape1"), _shape_list(shape2, n, "shape2")
    extra = () if options is None else (options,)
    values = [[] for _ in QpProximity._fields]
    jac = {1: [[] for _ in QpProximity._fields], 2: [[] for _ in QpProximity._fields]}
    bad = []
    for k in range(n):
        r = _qp.proximity(s1[k], X1[k], s2[k], X2[k], *extra)
        if not r.ok:
            raise SolveError(f"diffcol.torch.qp_proximity: pair {k} of {n}: solve status {r.status.name}")
        for j, name in enumerate(QpProximity._fields):
            values[j].append(getattr(r, name))
        if need_jacobians:
            d = _qp.proximity_derivatives(s1[k], X1[k], s2[k], X2[k], r)
            status = d.status.name
            if status != "ok" and not (accept_one_sided and status in _QP_ONE_SIDED):
                bad.append((k, status))
            for i in (1, 2):
                for j, name in enumerate(QpProximity._fields):
                    jac[i][j].append(getattr(d, f"J_{name}_X{i}"))
    return _stack(values, jac, need_jacobians, bad, n, QpProximity)


def _stack(values, jac, need_jacobians, bad, n, fields):
    def stack(rows, tail):
        return _np.asarray(rows, dtype=float).reshape((n,) + tail)
    dims = [(3,) if name.endswith("_W") else () for name in fields._fields]
    values = [stack(v, dim) for v, dim in zip(values, dims)]
    if not need_jacobians:
        return values, None
    jac = {i: [stack(jac[i][j], dims[j] + (6,)) for j in range(len(dims))] for i in (1, 2)}
    return values, (jac, bad)


# ---- the autograd function shared by the three


class _PairFunction(_torch.autograd.Function):
    """Forward: solve (and differentiate) every pair in double; backward: the chain rule above."""

    @staticmethod
    def forward(ctx, query, X1, X2):
        need = bool(ctx.needs_input_grad[1] or ctx.needs_input_grad[2])
        X1d = _np.ascontiguousarray(X1.detach().to("cpu", _torch.float64).numpy())
        X2d = _np.ascontiguousarray(X2.detach().to("cpu", _torch.float64).numpy())
        values, derivatives = query.solve(X1d, X2d, need)
        outputs = tuple(_torch.from_numpy(_np.ascontiguousarray(v)).to(X1.device, X1.dtype)
                        for v in values)
        if need:
            jac, bad = derivatives
            ctx.query_name = query.name
            ctx.bad = bad
            ctx.jac = {i: [_torch.from_numpy(_np.ascontiguousarray(J)) for J in jac[i]] for i in (1, 2)}
            ctx.save_for_backward(X1, X2)
        return outputs

    @staticmethod
    @_torch.autograd.function.once_differentiable
    def backward(ctx, *grads):
        X1, X2 = ctx.saved_tensors
        grads = [g.detach().to("cpu", _torch.float64) for g in grads]
        n = X1.shape[0]
        for k, status in ctx.bad:
            if any(bool((g[k] != 0).any()) for g in grads):
                raise SolveError(
                    f"diffcol.torch.{ctx.query_name}: pair {k} of {n}: derivative status {status}: "
                    "its gradient is not available (the library returns no Jacobian there)")
        result = [None]
        for i, X in ((1, X1), (2, X2)):
            if not ctx.needs_input_grad[i]:
                result.append(None)
                continue
            # grad_twist = sum over outputs of grad_out^T J (N, 6), then grad_X = grad_twist M(X).
            g_twist = _torch.zeros((n, 6), dtype=_torch.float64)
            for g, J in zip(grads, ctx.jac[i]):
                g_twist += _torch.einsum("nr,nrc->nc", g.reshape(n, -1), J.reshape(n, -1, 6))
            M = pose_tangent_map(X.detach().to("cpu", _torch.float64))
            g_X = _torch.einsum("nc,ncj->nj", g_twist, M)
            result.append(g_X.to(X.device, X.dtype))
        return tuple(result)


class _Query:
    def __init__(self, name, solve):
        self.name, self.solve = name, solve


def _run(name, fields, solve, X_W1, X_W2):
    X1, X2 = _poses(X_W1, X_W2)
    if X1.shape[0] == 0:
        return fields(*[X1.new_zeros((0, 3) if f.endswith("_W") else (0,)) for f in fields._fields])
    return fields(*_PairFunction.apply(_Query(name, solve), X1, X2))


def contact(shape1, X_W1, shape2, X_W2, options=None, num_threads=0):
    """iDCOL contact of N pairs (diffcol.solve_contact), differentiable with respect to the poses.

    Args:
      shape1, shape2: iDCOL shapes (Sphere, Superellipsoid, SmoothPolytope, ..., Shape), one for
        every pair or a sequence of N.
      X_W1, X_W2: world poses, tensors (N, 7) [x, y, z, qw, qx, qy, qz], or one pose (7,).
      options: diffcol.SolveOptions (default SolveOptions()).
      num_threads: threads of the diffcol.ContactBatch that solves the pairs (0: all cores).
    Returns:
      Contact(alpha, gap, p1_W, p2_W, normal_W), tensors (N,) and (N, 3).
    Raises:
      SolveError when a solve does not converge (forward) or, in backward, when a pair with a
      non-zero incoming gradient has no derivatives (status ill_conditioned, singular, ...).
      ValueError / TypeError for invalid poses or shapes.
    """
    solve = lambda X1, X2, need: _solve_idcol(shape1, X1, shape2, X2, need, options, num_threads)  # noqa: E731
    return _run("contact", Contact, solve, X_W1, X_W2)


def dcol_contact(shape1, X_W1, shape2, X_W2, options=None):
    """DCOL contact of N pairs of primitives (diffcol.dcol.solve_contact), differentiable.

    Args:
      shape1, shape2: diffcol.dcol primitives (Polytope, Capsule, Cylinder, Cone, Ellipsoid,
        PaddedPolygon, Sphere; an offset moves with its body), one for every pair or N of them.
      X_W1, X_W2: world poses of the bodies, tensors (N, 7) or one pose (7,).
      options: diffcol.dcol.SolveOptions (default dcol.SolveOptions()).
    Returns:
      DcolContact(alpha, gap, p1_W, p2_W, x_W).
    Raises:
      SolveError for a failed solve (forward) or, in backward, a pair with a non-zero incoming
      gradient whose derivative status is not ok (e.g. singular).
    """
    solve = lambda X1, X2, need: _solve_dcol(shape1, X1, shape2, X2, need, options)  # noqa: E731
    return _run("dcol_contact", DcolContact, solve, X_W1, X_W2)


def qp_proximity(shape1, X_W1, shape2, X_W2, options=None, accept_one_sided=False):
    """DiffPills proximity of N pairs of capsules / padded polygons (diffcol.qp.proximity).

    Args:
      shape1, shape2: diffcol.qp.Capsule or diffcol.qp.PaddedPolygon, one for every pair or N.
      X_W1, X_W2: world poses, tensors (N, 7) or one pose (7,).
      options: diffcol.qp.ProximityOptions (default ProximityOptions()).
      accept_one_sided: where the outputs have a kink (derivative status non_unique_minimizer:
        parallel overlapping segments / edges / faces; cores_touch: touching capsule cores), use
        the library's documented one-sided Jacobians (docs/qp.md, "Derivatives") instead of
        raising SolveError in backward.
    Returns:
      QpProximity(signed_distance, phi, core1_W, core2_W, p1_W, p2_W, normal_W).
    Raises:
      SolveError for a failed solve (forward) or, in backward, a pair with a non-zero incoming
      gradient whose derivative status is not ok (see accept_one_sided).
    """
    solve = lambda X1, X2, need: _solve_qp(shape1, X1, shape2, X2, need, options, accept_one_sided)  # noqa: E731
    return _run("qp_proximity", QpProximity, solve, X_W1, X_W2)
