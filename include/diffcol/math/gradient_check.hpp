#pragma once
/// @file gradient_check.hpp
/// Finite-difference checks of analytic Jacobians of functions of one or two rigid poses (or of
/// a plain vector, e.g. generalized coordinates).
///
/// A pose is perturbed along twists ordered [ω; v] in GradientCheckOptions::frame (ReferenceFrame,
/// math/se3.hpp):
///   world:               X ← exp(h·e_k^)·X  (the "X1"/"X2" Jacobians by default),
///   local:               X ← X·exp(h·e_k^)  (body twist; the "X12" Jacobians),
///   local_world_aligned: R ← exp(h·ω^)·R, p ← p + h·v  (rotation about the body origin in
///                        world axes, the origin translated along world axes).
/// For two poses the 12 columns are [twist of pose 1 | twist of pose 2].
///
/// Each column is built from central differences D(h) = (f(+h) − f(−h))/(2h):
///   FdMethod::central:    D(h)                                  (2 evaluations, error O(h²))
///   FdMethod::richardson: (4·D(h/2) − D(h))/3                   (4 evaluations, error O(h⁴))
///   FdMethod::ridders:    Ridders' polynomial extrapolation over h, h/1.4, h/1.4², … (up to
///                         ridders_levels steps, 2 evaluations each), keeping per entry the estimate with the
///                         smallest error estimate (Numerical Recipes' dfridr). The default: it
///                         adapts to the function's scale and reports an error estimate.
///                         It is run from h, h/10, h/100, … (at least twice, at most
///                         ridders_restarts + 1 times): an entry is accepted once two successive
///                         runs agree to 0.1·max(abs_tolerance, rel_tolerance·|value|), else the
///                         best-agreeing pair is kept; the reported error estimate is the larger
///                         of that disagreement and Ridders' own. A start a little larger than the
///                         scale on which f varies is fine; a much smaller one can hit the
///                         function's noise floor (or, for an iterative solver, a perturbation too
///                         small to move its solution).
/// Evaluations that return non-finite values are skipped by Ridders' method where it can
/// (a smaller step may still succeed); with the other methods they make the column non-finite.
///
/// Error measure: for every entry, abs = |A − N| and rel = abs / scale with scale = max(|A|, |N|)
/// (column_group = 1), or the largest max(|A|, |N|) in the same row over the group of column_group
/// consecutive columns that holds the entry (e.g. 3: the ω or the v part of a twist; an entry
/// that is tiny next to the other components of the same directional derivative is then judged
/// relative to them, which is what finite differences can resolve). An entry passes
/// if abs ≤ abs_tolerance or rel ≤ rel_tolerance. Per output block the worst abs, the worst rel
/// among entries whose abs exceeds abs_tolerance (0 when none does), and the entry with the
/// largest min(abs/abs_tolerance, rel/rel_tolerance) are reported. Non-finite values fail.
///
/// Example:
///   auto f = [&](const Pose& A, const Pose& B) { ... return Eigen::VectorXd(...); };
///   GradientCheckOptions opt;
///   opt.blocks = {{"alpha", 0, 1}, {"x_W", 1, 3}};
///   const GradientCheckResult res = check_pose_gradient(f, X1, X2, J_analytic, opt);
///   if (!res.passed()) std::cerr << res.report();

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"

namespace diffcol {

/// A named range of output rows [offset, offset + size).
struct OutputBlock {
  std::string name;
  int offset = 0;
  int size = 0;
};

enum class FdMethod : int { central = 0, richardson = 1, ridders = 2 };

struct GradientCheckOptions {
  double step = 1e-3;        ///< initial h (rad for ω, length for v; plain units for vector inputs)
  /// Per-column initial steps (6, 12 or n entries); when non-empty it replaces `step`, e.g. to
  /// give the ω and v columns of a twist steps suited to their own scales.
  /// @throws std::invalid_argument (from the check) if its size is not the number of columns.
  Eigen::VectorXd column_steps;
  FdMethod method = FdMethod::ridders;
  int ridders_levels = 16;   ///< steps h/1.4^k, k < ridders_levels (stops early once every entry has settled)
  int ridders_restarts = 4;  ///< further runs from 10× smaller steps while entries disagree
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twist of the columns
  double rel_tolerance = 1e-6;
  double abs_tolerance = 1e-8;
  int column_group = 1;      ///< see "Error measure" above; 1 = entrywise relative errors
  /// Output blocks; empty: one block "output" with every row. Rows in no block are not checked.
  std::vector<OutputBlock> blocks;
};

struct BlockError {
  std::string name;
  int offset = 0, size = 0;
  double max_abs_error = 0.0;  ///< max |A − N| over the block
  double max_rel_error = 0.0;  ///< max |A − N|/max(|A|,|N|) over entries with |A − N| > abs_tolerance
  int worst_row = -1, worst_col = -1;  ///< entry with the largest min(abs/abs_tol, rel/rel_tol)
  double worst_analytic = 0.0, worst_numeric = 0.0;
  double worst_ratio = 0.0;    ///< min(abs/abs_tol, rel/rel_tol) at the worst entry; ≤ 1 passes
  double worst_fd_error = 0.0; ///< the finite-difference error estimate at the worst entry (Ridders; else 0)
  bool passed = true;
};

struct GradientCheckResult {
  std::vector<BlockError> blocks;
  Eigen::MatrixXd numeric;     ///< the finite-difference Jacobian
  Eigen::MatrixXd fd_error;    ///< its estimated error per entry (Ridders), zero for the other methods
  bool shape_ok = true;        ///< analytic and numeric Jacobians have the same size
  bool passed() const;
  double max_abs_error() const;
  double max_rel_error() const;
  /// Multi-line human-readable summary (one line per block).
  std::string report() const;
};

using PoseFunction = std::function<Eigen::VectorXd(const Pose&)>;
using PosePairFunction = std::function<Eigen::VectorXd(const Pose&, const Pose&)>;
using VectorFunction = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

/// X moved by the twist ξ in `frame` (see the file comment). @throws std::invalid_argument on a non-finite X or ξ,
/// or a result that overflows.
Pose perturb(const Pose& X, const Vec6& xi, ReferenceFrame frame);

/// Finite-difference Jacobians (rows = outputs): 6 columns, 12 columns ([pose 1 | pose 2]), n columns.
/// If error is given it receives the per-entry error estimate (Ridders; zeros otherwise).
Eigen::MatrixXd numeric_jacobian(const PoseFunction& f, const Pose& X, const GradientCheckOptions& options = {},
                                 Eigen::MatrixXd* error = nullptr);
Eigen::MatrixXd numeric_jacobian(const PosePairFunction& f, const Pose& X1, const Pose& X2,
                                 const GradientCheckOptions& options = {}, Eigen::MatrixXd* error = nullptr);
Eigen::MatrixXd numeric_jacobian(const VectorFunction& f, const Eigen::VectorXd& q,
                                 const GradientCheckOptions& options = {}, Eigen::MatrixXd* error = nullptr);

/// Compares an analytic Jacobian with a numeric one (per block, as described above).
GradientCheckResult compare_jacobians(const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& numeric,
                                      const GradientCheckOptions& options = {},
                                      const Eigen::MatrixXd& fd_error = Eigen::MatrixXd());

/// numeric_jacobian + compare_jacobians.
GradientCheckResult check_pose_gradient(const PoseFunction& f, const Pose& X, const Eigen::MatrixXd& analytic,
                                        const GradientCheckOptions& options = {});
GradientCheckResult check_pose_gradient(const PosePairFunction& f, const Pose& X1, const Pose& X2,
                                        const Eigen::MatrixXd& analytic, const GradientCheckOptions& options = {});
GradientCheckResult check_gradient(const VectorFunction& f, const Eigen::VectorXd& q, const Eigen::MatrixXd& analytic,
                                   const GradientCheckOptions& options = {});

}  // namespace diffcol
