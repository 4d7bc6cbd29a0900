// DCOL contact query, the dispatch: the cone program of a pair is assembled (seed Sec. III-B), a
// start is chosen by the pair's types (the closed form of two strictly convex primitives,
// direct_newton.cpp; the geometric starts, geometric_starts.hpp), and the primal–dual
// interior-point method (Sec. II-A, interior_point.cpp) runs when no start is certified.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include <Eigen/LU>

#include "cone_program.hpp"
#include "geometric_starts.hpp"
#include "diffcol/dcol/contact.hpp"

namespace diffcol::dcol {

const char* start_method_name(StartMethod s) {
  switch (s) {
    case StartMethod::none: return "none";
    case StartMethod::closed_form: return "closed_form";
    case StartMethod::exact: return "exact";
    case StartMethod::ray_cast: return "ray_cast";
    case StartMethod::interior_point: return "interior_point";
  }
  return "unknown";
}

namespace {

using namespace detail;  // the solver stages (cone_program.hpp, geometric_starts.hpp)

/// Interior-point solves of a window of a large polytope's faces, at most (face_window.hpp).
constexpr int kMaxWindowRounds = 16;

/// Origins closer than this times the sum of the outer radii are coincident (α* = 0).
constexpr double kCoincidentOrigins = 1e-100;

// ============================================================================ assembly

// Orthant rows, eq. (11), (14), (18), (21), (27).
void write_orthant(const Polytope& p, const Mat3& Q, const RowWriter& w, int i0) {
  if (p.large) return;  // its window's rows (FaceWindow::write)
  for (int i = 0; i < p.num_faces; ++i) w.row(i0 + i, -(Q * p.A.row(i).transpose()), p.b[i]);
}
void write_orthant(const Capsule& p, const Mat3&, const RowWriter& w, int i0) {
  w.row(i0, Vec3::Zero(), 0.5 * p.L, -1.0);     // αL/2 − γ ≥ 0
  w.row(i0 + 1, Vec3::Zero(), 0.5 * p.L, 1.0);  // αL/2 + γ ≥ 0
}
void write_orthant(const Cylinder& p, const Mat3& Q, const RowWriter& w, int i0) {
  w.row(i0, -Q.col(0), 0.5 * p.L);  // αL/2 − y_1 ≥ 0   (17)
  w.row(i0 + 1, Q.col(0), 0.5 * p.L);  // αL/2 + y_1 ≥ 0   (16)
}
void write_orthant(const Cone& p, const Mat3& Q, const RowWriter& w, int i0) {
  w.row(i0, -Q.col(0), 0.25 * p.H);  // αH/4 − y_1 ≥ 0   (20)
}
void write_orthant(const Ellipsoid&, const Mat3&, const RowWriter&, int) {}
void write_orthant(const PaddedPolygon& p, const Mat3&, const RowWriter& w, int i0) {
  for (int i = 0; i < p.num_edges; ++i) w.row(i0 + i, Vec3::Zero(), p.d[i], -p.C(i, 0), -p.C(i, 1));  // αd − Cw (27)
}
void write_orthant(const Sphere&, const Mat3&, const RowWriter&, int) {}

// Second-order cone rows, eq. (15), (22), (24), (28).
[[maybe_unused]] void write_soc(const Polytope&, const Mat3&, const RowWriter&, int) {}
void write_soc(const Capsule& p, const Mat3& Q, const RowWriter& w, int i0) {
  w.row(i0, Vec3::Zero(), p.R);           // αR
  w.row(i0 + 1, Q.col(0), 0.0, -1.0);     // y − γ e_x
  w.row(i0 + 2, Q.col(1), 0.0);
  w.row(i0 + 3, Q.col(2), 0.0);
}
void write_soc(const Cylinder& p, const Mat3& Q, const RowWriter& w, int i0) {
  w.row(i0, Vec3::Zero(), p.R);  // ‖(y_2, y_3)‖ ≤ αR
  w.row(i0 + 1, Q.col(1), 0.0);
  w.row(i0 + 2, Q.col(2), 0.0);
}
void write_soc(const Cone& p, const Mat3& Q, const RowWriter& w, int i0) {
  w.row(i0, p.tan_beta * Q.col(0), 0.75 * p.H * p.tan_beta);  // tan β (y_1 + α 3H/4)   (22)
  w.row(i0 + 1, Q.col(1), 0.0);
  w.row(i0 + 2, Q.col(2), 0.0);
}
void write_soc(const Ellipsoid& p, const Mat3& Q, const RowWriter& w, int i0) {
  // ρ·(α, U y) with ρ = inner radius (a length; the cone is invariant under positive scaling)   (24)
  const double rho = p.inner_radius;
  w.row(i0, Vec3::Zero(), rho);
  for (int i = 0; i < 3; ++i) w.row(i0 + 1 + i, rho * (Q * p.U.row(i).transpose()), 0.0);
}
void write_soc(const PaddedPolygon& p, const Mat3& Q, const RowWriter& w, int i0) {
  w.row(i0, Vec3::Zero(), p.R);                 // αR
  w.row(i0 + 1, Q.col(0), 0.0, -1.0, 0.0);      // y − (w_1, w_2, 0)   (28)
  w.row(i0 + 2, Q.col(1), 0.0, 0.0, -1.0);
  w.row(i0 + 3, Q.col(2), 0.0);
}
void write_soc(const Sphere& p, const Mat3& Q, const RowWriter& w, int i0) {
  w.row(i0, Vec3::Zero(), p.R);
  for (int i = 0; i < 3; ++i) w.row(i0 + 1 + i, Q.col(i), 0.0);
}

/// The window of a large polytope (face_window.hpp), its rows zero until the start picks it.
[[gnu::noinline]] void open_window(const Polytope& s, const Mat3& Q, const RowWriter& w, int row0, FaceWindow& f,
                                   const Vec3& target) {
  f.poly = &s;
  f.Q = Q;
  f.w = &w;
  f.row0 = row0;
  f.count = 0;
  f.sticky_count = 0;
  f.target = target;
  for (int j = 0; j < kInlinePolytopeFaces; ++j) w.row(row0 + j, Vec3::Zero(), 0.0);
}

/// Records which face each row of a window is (ConeKkt::window_face) with the outcome.
IpmOutcome record_windows(const FaceWindows& win, ConeKkt& k, const IpmOutcome& outcome) {
  for (int b = 0; b < 2; ++b) {
    const FaceWindow& f = win.body[b];
    k.window_count[b] = f.active() ? f.count : 0;
    for (int j = 0; j < k.window_count[b]; ++j) k.window_face[b][j] = f.face[j];
  }
  return outcome;
}

/// The interior-point method with large polytopes, by cutting planes: the solve on the windows,
/// then every face is checked at its solution; a violated one enters the window (the faces of
/// least slack there, the window's active faces kept) and the windows are solved again.
template <int N>
[[gnu::noinline]] IpmOutcome interior_point_windows(ConeKkt& k, const SolveOptions& opt, FaceWindows& win) {
  for (FaceWindow& f : win.body)
    if (f.active() && f.count == 0) {  // not picked by a start: the faces facing the other origin
      f.select_towards(f.target);
      f.write();
    }
  IpmOutcome res{};
  for (int round = 0; round < kMaxWindowRounds; ++round) {
    res = interior_point<N>(k, opt);
    if (res.status != SolveStatus::ok) return res;
    double hnorm = 0.0;
    for (int i = 0; i < k.m; ++i) hnorm += k.h[i] * k.h[i];
    hnorm = std::max(1.0, std::sqrt(hnorm));
    if (win.min_slack(k.x) >= -opt.feasibility_tolerance * hnorm) return res;
    win.select(k.x, &k);
  }
  res.status = SolveStatus::not_converged;
  return res;
}

template <class P> constexpr bool is_strictly_convex() {
  return std::is_same_v<P, Sphere> || std::is_same_v<P, Ellipsoid>;
}

template <class P1, class P2>
IpmOutcome solve_pair(const P1& s1, const Pose& X1, const P2& s2, const Pose& X2, double shift, ConeKkt& k,
                      const SolveOptions& opt) {
  constexpr int n1 = slack_count<P1>(), n2 = slack_count<P2>();
  constexpr int N = 4 + n1 + n2;
  constexpr int d1 = soc_dimension<P1>(), d2 = soc_dimension<P2>();
  k.n = N;
  k.orthant_rows[0] = orthant_count_of(s1);
  k.orthant_rows[1] = orthant_count_of(s2);
  const int l = k.orthant_rows[0] + k.orthant_rows[1];
  k.soc_count = 0;
  int row = l;
  if constexpr (d1 > 0) {
    k.soc_start[k.soc_count] = row;
    k.soc_dim[k.soc_count] = d1;
    k.soc_body[k.soc_count] = 0;
    ++k.soc_count;
    row += d1;
  }
  if constexpr (d2 > 0) {
    k.soc_start[k.soc_count] = row;
    k.soc_dim[k.soc_count] = d2;
    k.soc_body[k.soc_count] = 1;
    ++k.soc_count;
    row += d2;
  }
  k.m = row;
  // positions in units of ℓ_p = length_scale, sizes in units of ℓ_b = length_scale/alpha_scale
  const double inv_p = 1.0 / k.length_scale, inv_b = k.alpha_scale / k.length_scale;
  const RowWriter w1{k, (X1.p - k.origin) * inv_p, inv_b, n1 > 0 ? 4 : -1};
  const RowWriter w2{k, (X2.p - k.origin) * inv_p, inv_b, n2 > 0 ? 4 + n1 : -1};
  write_orthant(s1, X1.R, w1, 0);
  write_orthant(s2, X2.R, w2, k.orthant_rows[0]);
  if constexpr (d1 > 0) write_soc(s1, X1.R, w1, l);
  if constexpr (d2 > 0) write_soc(s2, X2.R, w2, l + d1);
  // large polytopes: a window of their faces (face_window.hpp)
  constexpr bool polytope_pair = std::is_same_v<P1, Polytope> || std::is_same_v<P2, Polytope>;
  [[maybe_unused]] FaceWindows win;
  if constexpr (std::is_same_v<P1, Polytope>)
    if (s1.large) open_window(s1, X1.R, w1, 0, win.body[0], w2.r_hat);
  if constexpr (std::is_same_v<P2, Polytope>)
    if (s2.large) open_window(s2, X2.R, w2, k.orthant_rows[0], win.body[1], w1.r_hat);
  if constexpr (is_strictly_convex<P1>() && is_strictly_convex<P2>()) {
    IpmOutcome direct;
    if (opt.direct_newton && opt.polish && !(opt.barrier_target > 0.0) && direct_newton(k, opt, w1.r_hat, w2.r_hat,
                      std::is_same_v<P1, Sphere> && std::is_same_v<P2, Sphere>, direct)) {
      direct.start = StartMethod::closed_form;
      return direct;
    }
  } else {
    IpmOutcome direct;
    if (opt.direct_newton && opt.polish && !(opt.barrier_target > 0.0) &&
        ray_cast_newton(PlacedPrimitive<P1>{s1, X1.R, w1}, PlacedPrimitive<P2>{s2, X2.R, w2}, shift, k, opt, direct,
                        polytope_pair && win.any() ? &win : nullptr))
      return polytope_pair && win.any() ? record_windows(win, k, direct) : direct;
  }
  if constexpr (polytope_pair)
    if (win.any()) return record_windows(win, k, interior_point_windows<N>(k, opt, win));
  return interior_point<N>(k, opt);
}

}  // namespace

const char* SolveOptions::invalid_field() const noexcept {
  auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  // stopping tolerances: below 1e-14 they sit under the rounding floor, above 1e-3 a
  // "converged" answer is not one
  auto sane = [](double v) { return v >= 1e-14 && v <= 1e-3; };
  if (!sane(feasibility_tolerance)) return "feasibility_tolerance must be in [1e-14, 1e-3]";
  if (!sane(gap_tolerance)) return "gap_tolerance must be in [1e-14, 1e-3]";
  if (!sane(gap_relative_tolerance)) return "gap_relative_tolerance must be in [1e-14, 1e-3]";
  if (max_iterations < 1 || max_iterations > 100000) return "max_iterations must be in [1, 100000]";
  if (!(barrier_target >= 0.0) || !std::isfinite(barrier_target)) return "barrier_target must be finite and >= 0";
  if (final_centering_steps < 0 || final_centering_steps > 1000) return "final_centering_steps must be in [0, 1000]";
  if (!positive(final_centering_tolerance)) return "final_centering_tolerance must be finite and > 0";
  if (!positive(polish_start)) return "polish_start must be finite and > 0";
  return nullptr;
}

bool SolveOptions::is_valid() const noexcept { return invalid_field() == nullptr; }

void SolveOptions::validate() const {
  if (const char* why = invalid_field()) throw std::invalid_argument(std::string("dcol::SolveOptions: ") + why);
}

void solve_contact(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2, const Pose& X_WB2,
                   ContactResult& out, const SolveOptions& options) {
  out.status = SolveStatus::invalid_input;
  out.iterations = 0;
  out.start = StartMethod::none;
  out.alpha = out.gap = out.duality_measure = out.primal_residual = out.dual_residual = 0.0;
  out.certificate_gap = 0.0;
  out.x_W.setZero();
  out.p1_W.setZero();
  out.p2_W.setZero();
  out.X_WB1 = X_WB1;
  out.X_WB2 = X_WB2;
  out.kkt.factored = false;
  out.kkt.polished = false;
  out.kkt.n = out.kkt.m = 0;
  out.kkt.window_count[0] = out.kkt.window_count[1] = 0;
  // a large polytope's rows are a window of its faces (face_window.hpp): exact at the optimum, but
  // the barrier of a smoothed solve (barrier_target > 0) would sum over the window only
  const auto is_large = [](const Primitive& s) {
    const Polytope* p = std::get_if<Polytope>(&s);
    return p && p->large;
  };
  const bool smoothed_large = options.barrier_target > 0.0 && (is_large(shape1) || is_large(shape2));
  if (!X_WB1.is_valid() || !X_WB2.is_valid() || !options.is_valid() || smoothed_large) {
    out.X_WB1 = out.X_WB2 = out.X_WS1 = out.X_WS2 = Pose::identity();  // every field finite
    return;
  }
  out.X_WS1 = X_WB1 * primitive_offset(shape1);
  out.X_WS2 = X_WB2 * primitive_offset(shape2);
  const Vec3 r1 = out.X_WS1.p, r2 = out.X_WS2.p;
  const Vec3 r12 = r2 - r1;
  const double dist = r12.norm();
  if (!(dist <= 1e150)) return;
  const double R1 = outer_radius(shape1), R2 = outer_radius(shape2);
  if (!(dist > kCoincidentOrigins * (R1 + R2))) {
    out.status = SolveStatus::coincident_origins;
    out.x_W = out.p1_W = out.p2_W = r1;
    return;
  }
  // D = (S1 − r1) ⊕ (−(S2 − r2)) contains the ball of radius inner1 + inner2: half of it is the
  // ray cast's interior point distance
  const double shift = 0.5 * (inner_radius(shape1) + inner_radius(shape2));
  // Problem (9) is 1-homogeneous in r_2 − r_1: it is solved for origins one unit apart and shapes
  // in units of ℓ_b = max(R1, R2), then scaled back (α = alpha_scale·α̂): the same well-scaled
  // instance whether the origins are 1e-10 or 1e8 shape sizes apart, in any unit of length.
  // With smoothing (barrier_target > 0) the barrier level must not depend on the pose: positions
  // then in units of ℓ_b too (the smoothed problem is not homogeneous, and its derivatives hold the
  // scaling fixed).
  ConeKkt& k = out.kkt;
  const double size = std::max(R1, R2);
  const bool smoothed = options.barrier_target > 0.0;
  k.origin = r1;
  k.length_scale = smoothed ? size : dist;
  k.alpha_scale = smoothed ? 1.0 : dist / size;
  // One solve, read back into `out`; the certificate (certify) decides whether `ok` stands.
  const auto solve = [&](const SolveOptions& opt) {
    const IpmOutcome res = std::visit(
        [&](const auto& a, const auto& b) { return solve_pair(a, out.X_WS1, b, out.X_WS2, shift, k, opt); }, shape1,
        shape2);
    out.status = res.status;
    out.iterations = res.iterations;
    out.start = res.start;
    // a non-finite measure only comes with a failed solve: 0 then (every field stays finite)
    const auto finite_or_zero = [&](double v) {
      if (std::isfinite(v)) return v;
      out.status = SolveStatus::numerical_error;
      return 0.0;
    };
    out.duality_measure = finite_or_zero(res.mu);
    out.primal_residual = finite_or_zero(res.pres);
    out.dual_residual = finite_or_zero(res.dres);
    out.certificate_gap = 0.0;
    const double alpha_hat = k.x[3];
    const Vec3 x_hat(k.x[0], k.x[1], k.x[2]);  // x* − r_1 in units of ‖r_2 − r_1‖
    const double alpha = k.alpha_scale * alpha_hat;
    const Vec3 x = k.origin + k.length_scale * x_hat;
    if (!std::isfinite(alpha) || !x.allFinite() || !(alpha_hat > 0.0)) {
      out.status = SolveStatus::numerical_error;
      out.alpha = out.gap = 0.0;
      out.x_W = out.p1_W = r1;
      out.p2_W = r2;
      k.factored = k.polished = false;
      return;
    }
    // (29), (30) from the unit instance: (x − r_i)/α = ℓ_p·(x̂ − r̂_i)/(σ·α̂), ‖r_2 − r_1‖/α = ℓ_p/(σ·α̂)
    const double f = k.length_scale / alpha;
    out.alpha = alpha;
    out.x_W = x;
    out.p1_W = r1 + f * x_hat;
    out.p2_W = r2 + f * (x_hat - r12 / k.length_scale);
    out.gap = dist - dist / alpha;
    // (the smoothed problem's α, barrier_target > 0, is above α* by design: not certified)
    if (out.status == SolveStatus::ok && !(opt.barrier_target > 0.0))
      out.certificate_gap = certify(shape1, shape2, out).gap();
  };
  solve(options);
  if (out.status == SolveStatus::ok && !(out.certificate_gap <= kCertificateTolerance)) {
    // a geometric start that passed the polish's own test but not the certificate: the
    // interior-point route once more, then the status says what holds
    if (out.start != StartMethod::interior_point) {
      SolveOptions ipm = options;
      ipm.direct_newton = false;
      solve(ipm);
    }
    if (out.status == SolveStatus::ok && !(out.certificate_gap <= kCertificateTolerance))
      out.status = SolveStatus::not_certified;
  }
}

ContactResult solve_contact(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2, const Pose& X_WB2,
                            const SolveOptions& options) {
  ContactResult out;
  solve_contact(shape1, X_WB1, shape2, X_WB2, out, options);
  return out;
}

}  // namespace diffcol::dcol
