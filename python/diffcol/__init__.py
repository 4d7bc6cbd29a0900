"""diffcol: differentiable collision detection (iDCOL) for robotics.

The compiled core is ``diffcol._diffcol`` (C++ through pybind11); everything in it is
re-exported here. Start with ``help(diffcol.solve_contact)`` for the frames, the twist
convention [w; v] and the Jacobian layout, and see docs/python.md for a quickstart.

Contents
--------
Poses and SE(3): Pose, se3_exp, se3_log, so3_exp, so3_log, skew, adjoint
Shapes: Sphere, Superellipsoid, SuperellipticCylinder, SmoothPolytope (box, convex_hull),
    SmoothTruncatedCone, Shape, ShapeType, benchmark_shape, benchmark_shape_names
Contact: solve_contact, SolveOptions, ContactSolution, ContactStatus, ContactPair
Derivatives: contact_derivatives, ContactDerivatives, DerivativeStatus,
    alpha_gradient_envelope, alpha_gradient_envelope_world
Penalty wrenches: HertzModel, hertz_wrenches, ContactWrenches
Generalized coordinates: BodyJacobian, TwistConvention, to_coordinates, world_twist_map,
    shape_body_twist_map
Gradient checker: check_pose_gradient, check_gradient, numeric_jacobian, perturb,
    GradientCheckOptions, GradientCheckResult, OutputBlock, FdMethod, PerturbationSide
Ergodic sweep: ErgodicSweep
Batches: ContactBatch, BatchResult, BatchDerivatives, available_cores
Viewer: view (writes the self-contained HTML page), has_viewer, three_version

Submodules
----------
diffcol.dcol: DCOL's exact convex primitives (polytope, capsule, cylinder, cone, ellipsoid,
    padded polygon, sphere) as cone programs: solve_contact, contact_derivatives, the DCOL.jl
    (r, q) layout. See help(diffcol.dcol).
diffcol.qp: DiffPills capsule / padded-polygon proximity QPs: proximity,
    proximity_derivatives (world or body twists), quaternion coordinates. See help(diffcol.qp).

Invalid input raises ValueError with the C++ library's message.
"""

import sys as _sys

from ._diffcol import *  # noqa: F401,F403
from ._diffcol import __doc__ as _core_doc  # noqa: F401
from ._diffcol import dcol, qp  # noqa: F401

# `import diffcol.dcol` / `from diffcol.qp import proximity` work like for package modules.
_sys.modules[__name__ + ".dcol"] = dcol
_sys.modules[__name__ + ".qp"] = qp

__all__ = [name for name in dir() if not name.startswith("_")]
