"""diffcol: differentiable collision detection (iDCOL) for robotics.

The compiled core is ``diffcol._diffcol`` (C++ through pybind11); everything in it is
re-exported here. Start with ``help(diffcol.solve_contact)`` for the frames, the twist
convention [w; v] and the Jacobian layout, and see docs/python.md for a quickstart.

Contents
--------
Poses and SE(3): Pose, se3_exp, se3_log, so3_exp, so3_log, skew, adjoint
Shapes: Sphere, Superellipsoid, SuperellipticCylinder, SmoothPolytope (box, convex_hull),
    SmoothTruncatedCone, Shape, ShapeType, benchmark_shape, benchmark_shape_names
Smoothness from a distance tolerance: fit_smooth_box, fit_smooth_polytope, fit_smooth_convex_hull,
    fit_superellipsoid_to_box, fit_superelliptic_cylinder, smooth_polytope_hausdorff_distance,
    superellipsoid_box_hausdorff_distance, superelliptic_cylinder_hausdorff_distance
Statuses of every contact layer (idcol, dcol, qp, scene): SolveStatus, DerivativeStatus,
    DistanceStatus, DistanceDerivativeStatus, status_name
Contact: solve_contact, SolveOptions, ContactSolution, ContactPair
Derivatives: contact_derivatives, ContactDerivatives,
    alpha_gradient_envelope, alpha_gradient_envelope_world
Penalty wrenches: HertzModel, hertz_wrenches, ContactWrenches
Frames and generalized coordinates: ReferenceFrame, world_twist_from_frame, express_in_frame, BodyJacobian, to_coordinates,
    shape_body_twist_map
Gradient checker: check_pose_gradient, check_gradient, numeric_jacobian, perturb,
    GradientCheckOptions, GradientCheckResult, OutputBlock, FdMethod, ReferenceFrame
Ergodic sweep: ErgodicSweep
Batches: ContactBatch, BatchResult, BatchDerivatives, available_cores
Viewer: view (writes the self-contained HTML page), view_manifold (a Contax manifold),
    view_rollout (animated meshes, e.g. a simulation), render_png (a page drawn into a PNG with
    headless Chromium), find_chromium, has_viewer, three_version

Submodules
----------
diffcol.dcol: DCOL's exact convex primitives (polytope, capsule, cylinder, cone, ellipsoid,
    padded polygon, sphere) as cone programs: solve_contact, contact_derivatives, the DCOL.jl
    (r, q) layout. See help(diffcol.dcol).
diffcol.qp: DiffPills capsule / padded-polygon proximity QPs: proximity,
    proximity_derivatives (twists in any ReferenceFrame), quaternion coordinates. See help(diffcol.qp).
diffcol.mesh: closed triangle meshes (TriangleMesh, load_mesh, make_box, make_icosphere,
    make_t_shape, contains, signed_distance).
diffcol.smooth: soft operators with temperatures (sigmoid, softplus, soft_clip, logsumexp,
    soft_top_k, ...); t = 0 is the hard operator.
diffcol.manifold: Contax contact manifolds: SDF primitives and objects, iso-surface meshes,
    ContactObject, compute_manifold, compute_manifold_derivatives, limbed figures.
diffcol.ssdf: AOPC, soft signed distance, smooth separation, collision points, SCM forces, and
    the dynamics (Scene, State, Control, step, step_jacobian, rollout).
diffcol.torch (optional: needs PyTorch, Debian's python3-torch; `import diffcol` does not import
    it): autograd functions contact, dcol_contact, qp_proximity over (N, 7) pose tensors.
diffcol.dask (optional: needs dask.distributed, Debian's python3-distributed): map_contact_batch
    and map_scene_query spread batches over the workers of a dask cluster.

Shapes of every family, Scene and RobotModel pickle (a Robot does not: rebuild it from its
pickled Scene and RobotModel).

Invalid input raises ValueError with the C++ library's message.
"""

import sys as _sys

from ._diffcol import *  # noqa: F401,F403
from ._diffcol import __doc__ as _core_doc  # noqa: F401
from ._diffcol import dcol, manifold, mesh, plan, qp, sim, smooth, ssdf  # noqa: F401

# `import diffcol.dcol` / `from diffcol.qp import proximity` work like for package modules.
for _name in ("dcol", "qp", "mesh", "smooth", "manifold", "ssdf", "plan", "sim"):
    _sys.modules[__name__ + "." + _name] = globals()[_name]
    # pickle finds the submodules' classes by their __module__, diffcol._diffcol.<name>
    _sys.modules[__name__ + "._diffcol." + _name] = globals()[_name]

__all__ = [name for name in dir() if not name.startswith("_")]
