// The compiled part of the diffcol Python package (imported as diffcol._diffcol; the package's
// __init__.py re-exports it). Each library layer is bound by its own bind_<layer>.cpp; add a
// layer by writing that file, declaring its function in bindings.hpp and calling it below
// (python/CMakeLists.txt picks up every python/src/*.cpp).
#include "bindings.hpp"

namespace dp = diffcol::python;

PYBIND11_MODULE(_diffcol, m) {
  m.doc() = R"(diffcol: differentiable collision detection (iDCOL) for robotics.

Compiled core of the `diffcol` package. See help(diffcol.solve_contact) for the frames,
the twist convention [w; v] and the Jacobian layout used everywhere. Submodules: dcol (DCOL
exact primitives), qp (DiffPills capsule / padded-polygon QPs), mesh (closed triangle meshes),
smooth (soft operators), manifold (Contax contact manifolds), ssdf (SSDF and the soft-minimum
contact model); view(...), view_manifold(...), view_rollout(...) write the HTML viewer.)";
  dp::bind_math(m);
  dp::bind_status(m);   // the statuses shared by every contact layer
  dp::bind_shapes(m);
  dp::bind_idcol(m);
  dp::bind_gradient_check(m);
  dp::bind_batch(m);
  dp::bind_dcol(m);  // submodule diffcol.dcol
  dp::bind_qp(m);    // submodule diffcol.qp (after bind_idcol: reuses ReferenceFrame)
  dp::bind_scene(m);     // diffcol.Scene (after dcol and qp: takes their shapes)
  dp::bind_plan(m);      // submodule diffcol.plan (after scene)
  dp::bind_sim(m);       // submodule diffcol.sim (after scene)
  dp::bind_mesh(m);      // submodule diffcol.mesh
  dp::bind_smooth(m);    // submodule diffcol.smooth
  dp::bind_manifold(m);  // submodule diffcol.manifold (after mesh: uses TriangleMesh)
  dp::bind_ssdf(m);      // submodule diffcol.ssdf (after mesh)
  dp::bind_dynamics(m);  // diffcol.ssdf.Scene, step, rollout (after ssdf)
  dp::bind_view(m);      // diffcol.view, view_manifold, view_rollout (RuntimeError without the viewer)
}
