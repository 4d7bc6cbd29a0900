// iDCOL contact solve: the host side (pose validation, warm starts, continuation, the result and
// the dispatch table) around the solver core of solver_core.hpp (surrogate scaling (21)-(22),
// cold starts, safeguarded Newton of Algorithm 1), which the optional CUDA solver shares.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>
#include <bit>

#include "diffcol/idcol/contact.hpp"

#include "kkt_pose_jacobian.hpp"
#include "sphere_pair.hpp"
#include "solver_core.hpp"

namespace diffcol::idcol {

namespace {

// Continuation (Sec. IV-C): every sharp shape has smoother members of its family. Stages:
// exponent n = 1, 2, 4, ... for the power-law shapes, β = 20, 80, 320, ... for the smooth-max
// shapes, each stage started from the previous one; no copies that allocate.
template <class S>
struct AtBeta {
  const S& shape;
  double beta;
  double eval(const Vec3& y, Vec3& g, Mat3& H) const { return shape.eval_at_beta(y, g, H, beta); }
};
constexpr double kContinuationBeta = 20.0;

inline int relax_stages(const Superellipsoid& s) { return s.exponent() > 1 ? std::bit_width(unsigned(s.exponent() - 1)) : 0; }
inline int relax_stages(const SuperellipticCylinder& s) { return s.exponent() > 1 ? std::bit_width(unsigned(s.exponent() - 1)) : 0; }
template <class S>
int beta_stages(const S& s) {
  int k = 0;
  for (double b = kContinuationBeta; b < s.beta(); b *= 4.0) ++k;
  return k;
}
inline int relax_stages(const SmoothPolytope& s) { return beta_stages(s); }
inline int relax_stages(const SmoothTruncatedCone& s) { return beta_stages(s); }
inline int relax_stages(const Sphere&) { return 0; }

inline Superellipsoid relaxed(const Superellipsoid& s, int k) {
  const Vec3 ax = s.semi_axes();
  return Superellipsoid(ax.x(), ax.y(), ax.z(), std::min(1 << k, s.exponent()), s.epsilon());
}
inline SuperellipticCylinder relaxed(const SuperellipticCylinder& s, int k) {
  return SuperellipticCylinder(s.radius(), s.half_height(), std::min(1 << k, s.exponent()), s.epsilon());
}
inline AtBeta<SmoothPolytope> relaxed(const SmoothPolytope& s, int k) {
  return {s, std::min(kContinuationBeta * std::pow(4.0, k), s.beta())};
}
inline AtBeta<SmoothTruncatedCone> relaxed(const SmoothTruncatedCone& s, int k) {
  return {s, std::min(kContinuationBeta * std::pow(4.0, k), s.beta())};
}
inline Sphere relaxed(const Sphere& s, int) { return s; }  // a copy: the same newton<Sphere, ·> instantiations

template <class S1, class S2>
int relax_stages(const S1& a, const S2& b) {
  return std::max(relax_stages(a), relax_stages(b));
}

// Solves the smoothed problems of the ladder from the (x, s) of z, then the original.
template <class S1, class S2>
bool continuation(const Kkt<S1, S2>& kkt, const SolveOptions& opt, Iterate& z, Vec6& f, Mat6RowMajor& J,
                  ShapeData& sd, NewtonStats& st) {
  const int n1 = relax_stages(kkt.a), n2 = relax_stages(kkt.b);
  const int total = std::max(n1, n2);
  for (int k = 0; k < total; ++k) {
    const auto a_k = relaxed(kkt.a, std::max(0, k - (total - n1)));
    const auto b_k = relaxed(kkt.b, std::max(0, k - (total - n2)));
    const Kkt<std::decay_t<decltype(a_k)>, std::decay_t<decltype(b_k)>> kkt_k{a_k, b_k, kkt.P};
    if (!newton_plain(kkt_k, opt, z, f, J, sd, st, k == 0)) return false;
  }
  return newton(kkt, opt, z, f, J, sd, st, total == 0);
}

template <class S>
const S& get(const Shape& s) {
  return *std::get_if<S>(&s.variant());
}

void fill_invalid(ContactSolution& out) {  // every field reset, closed_form included
  out = ContactSolution{};
  out.status = SolveStatus::invalid_input;
}

// The shape data at the solution and the body-1-frame quantities mapped to the world frame.
void fill_world_fields(const ShapeData& sd, const Pose& X_W1, ContactSolution& out) {
  out.grad1 = sd.g1;
  out.grad2 = sd.g2;
  out.hess1 = sd.H1;
  out.hess2 = sd.H2;
  out.x_W = X_W1 * out.x_B1;
  out.p1_W = X_W1 * out.p1_B1;
  out.p2_W = X_W1 * out.p2_B1;
  out.normal_W = X_W1.R * out.normal_B1;
}

void store_kkt(const Mat6RowMajor& JS, const Lu6& luS, double c, ContactSolution& out);

// Writes the solution in original variables (z = c·z_S for x, λ; s = s_S + log c).
void fill_solution(const ShapeData& sd, const Pose& X_W1, const Pose& X_12, const Vec3& rS, const Iterate& zS,
                   const Vec6& f, const Mat6RowMajor& JS, const Lu6& luS, double c, ContactSolution& out) {
  const Vec3& r = X_12.p;
  out.X_12 = X_12;
  out.residual_norm = f.norm();
  const double alphaS = std::exp(zS.s);
  out.alpha = c * alphaS;
  out.x_B1 = c * zS.x;
  out.lambda1 = c * zS.l1;
  out.lambda2 = c * zS.l2;
  // witness points (29) and gap (30), written with surrogate quantities so they stay finite as c → 0
  out.p1_B1 = zS.x / alphaS;
  out.p2_B1 = r + (zS.x - rS) / alphaS;
  out.gap = c * rS.norm() - rS.norm() / alphaS;  // = (1 − 1/α)‖r‖, finite as c → 0
  out.normal_B1 = sd.g1.normalized();
  fill_world_fields(sd, X_W1, out);
  store_kkt(JS, luS, c, out);
}

// J in original variables: columns x and λ divided by c (at c = 0 the surrogate J is kept);
// its factors are those of J_S with the same columns of U scaled
void store_kkt(const Mat6RowMajor& JS, const Lu6& luS, double c, ContactSolution& out) {
  out.kkt_lu = luS;
  if (c > 0.0) {
    const double ic = 1.0 / c;
    const double d[6] = {ic, ic, ic, 1.0, ic, ic};
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) out.kkt_jacobian(i, j) = JS(i, j) * d[j];
    // pivot_ratio() stays that of the equilibrated matrix (factor_equilibrated): unit-free
    const double min_pivot = out.kkt_lu.min_pivot, max_pivot = out.kkt_lu.max_pivot;
    out.kkt_lu.scale_columns(d);
    out.kkt_lu.min_pivot = min_pivot;
    out.kkt_lu.max_pivot = max_pivot;
  } else {
    out.kkt_jacobian = JS;
  }
}

// First-order warm start (SolveOptions::warm_predictor): z ← z + T_c·ξ with T_c = −J_c⁻¹G_c at the
// previous solution and ξ ≈ [vee(ΔR − ΔRᵀ)/2; R_prevᵀΔr] its body twist to X_12 (first order is
// what the predictor needs; it is returned in xi). Returns false (x, α, λ unchanged) if the step is
// large or not usable.
bool predict_warm_start(const ContactSolution& prev, const Pose& X_12, Vec3& x, double& alpha, double& l1,
                        double& l2, Vec6& xi) {
  if (!(prev.kkt_lu.pivot_ratio() > 1e-14)) return false;
  const Mat3 dR = prev.X_12.R.transpose() * X_12.R;
  xi << 0.5 * (dR(2, 1) - dR(1, 2)), 0.5 * (dR(0, 2) - dR(2, 0)), 0.5 * (dR(1, 0) - dR(0, 1)),
      prev.X_12.R.transpose() * (X_12.p - prev.X_12.p);
  if (!(xi.head<3>().squaredNorm() < 0.09)) return false;
  double G[6][6];
  detail::kkt_pose_jacobian(prev, G);
  Vec6 g;
  for (int i = 0; i < 6; ++i) {
    double v = 0.0;
    for (int j = 0; j < 6; ++j) v += G[i][j] * xi[j];
    g[i] = v;
  }
  const Vec6 dz = -prev.kkt_lu.solve(g);
  const double l1n = l1 + dz[4], l2n = l2 + dz[5];
  if (!std::isfinite(dz.sum()) || !(std::abs(dz[3]) < 0.5) || !(l1n > 0.0) || !(l2n > 0.0)) return false;
  // x moves with the bodies: more than a few times their motion means an ill-conditioned T_c
  // (nearly parallel faces, where x* slides along the faces) and a prediction to distrust
  const double motion = xi.tail<3>().norm() + xi.head<3>().norm() * (x.norm() + prev.X_12.p.norm());
  if (!(dz.head<3>().norm() <= 4.0 * motion + 1e-12 * (x.norm() + prev.X_12.p.norm()))) return false;
  x += dz.head<3>();
  alpha *= std::exp(dz[3]);
  l1 = l1n;
  l2 = l2n;
  return true;
}

// Second-order term of the warm start along a steady motion: if this pose step ξ is c times the
// previous one ξ_p (to 10%, rotation weighted by ‖r‖), the first-order prediction misses about
// ½ D²z[ξ, ξ] = c² × the previous step's miss (prev.warm_prediction_error), which is added. On the
// ergodic sweep this takes the warm Newton iterations of ellipsoid–ellipsoid from 1.46 to 1.01 and
// of poly–poly from 1.97 to 1.31.
void second_order_correction(const ContactSolution& prev, const Pose& X_12, const Vec6& xi, Vec3& x, double& alpha,
                             double& l1, double& l2) {
  const Vec6& xp = prev.warm_pose_step;
  const double L2 = X_12.p.squaredNorm();
  const auto dot = [L2](const Vec6& u, const Vec6& v) {
    return L2 * u.head<3>().dot(v.head<3>()) + u.tail<3>().dot(v.tail<3>());
  };
  const double pp = dot(xp, xp);
  if (!(pp > 0.0)) return;
  const double c = dot(xi, xp) / pp;
  const Vec6 eta = xi - c * xp;
  if (!(c > 0.0 && c <= 2.0 && dot(eta, eta) <= 0.01 * dot(xi, xi))) return;
  const Vec6 e = (c * c) * prev.warm_prediction_error;
  if (!(e.allFinite() && std::abs(e[3]) < 0.1 && l1 + e[4] > 0.0 && l2 + e[5] > 0.0)) return;
  x += e.head<3>();
  alpha *= std::exp(e[3]);
  l1 += e[4];
  l2 += e[5];
}

// Two spheres in closed form (non-coincident origins): α = ‖r‖/(R1 + R2), x = α R1 r̂, and from
// (10c)-(10d) λ_i = α R_i/(R1 + R2) (∇φ_i has norm 1/R_i and y·∇φ = 1 on a sphere). At that point,
// with P = I − r̂r̂ᵀ: ∇φ1 = r̂/R1, ∇²φ1 = P/R1², ∇φ2 = −Rᵀr̂/R2, ∇²φ2 = RᵀPR/R2², and J_c (11) is
//   [ r̂ᵀ/(αR1)   −1   0         0        ]
//   [ −r̂ᵀ/(αR2)  −1   0         0        ]
//   [ P/(αR1R2)   0   r̂/(αR1)  −r̂/(αR2) ]
//   [ 0           2   −1/α      −1/α     ]
// (Lxa = 0, y·∇²φ y = 0). The residual (10) is evaluated from the same quantities (rounding level).
void solve_sphere_pair(const Sphere& a, const Sphere& b, const Pose& X_W1, const Pose& X_12, double rn,
                       double fS, ContactSolution& out) {
  const double R1 = a.radius(), R2 = b.radius();
  const double S = R1 + R2;
  const Vec3& r = X_12.p;
  const Mat3& R = X_12.R;
  const double irn = 1.0 / rn;
  const Vec3 rhat = irn * r;
  const double alpha = rn / S, ia = S / rn;
  const double l1 = alpha * (R1 / S), l2 = alpha * (R2 / S);
  const double iR1 = 1.0 / R1, iR2 = 1.0 / R2;
  const Vec3 p1 = R1 * rhat, p2 = r - R2 * rhat;
  out.status = SolveStatus::ok;
  out.iterations = 0;
  out.jacobian_evaluations = 1;
  out.attempts = 1;
  out.warm_started = false;
  out.alpha = alpha;
  out.x_B1 = (alpha * R1) * rhat;
  out.lambda1 = l1;
  out.lambda2 = l2;
  out.p1_B1 = p1;  // (29)
  out.p2_B1 = p2;
  out.gap = rn - S;  // (30)
  out.normal_B1 = rhat;
  // (10) at y1 = R1 r̂, y2 = Rᵀ(x − r)/α = −R2 Rᵀr̂ (formed as (R1 − S) r̂, as the surrogate's
  // x_S − r_S: not from p2 − r, which loses digits when ‖r‖ ≫ R2); rows (10c) r̂ (λ1/R1 − λ2/R2)/α
  const double f0 = p1.norm() * iR1 - 1.0, f1 = ((R1 - S) * rhat).norm() * iR2 - 1.0;
  const double fc = (l1 * iR1 - l2 * iR2) * ia, f5 = 1.0 - (l1 + l2) * ia;
  out.residual_norm = std::sqrt(f0 * f0 + f1 * f1 + fc * fc + f5 * f5);
  const Mat3 P = Mat3::Identity() - rhat * rhat.transpose();
  const Vec3 w = R.transpose() * rhat;
  out.grad1 = iR1 * rhat;
  out.hess1 = (iR1 * iR1) * P;
  out.grad2 = -iR2 * w;
  out.hess2 = (iR2 * iR2) * (Mat3::Identity() - w * w.transpose());
  out.x_W = X_W1 * out.x_B1;
  out.p1_W = X_W1 * p1;
  out.p2_W = X_W1 * p2;
  out.normal_W = X_W1.R * rhat;
  out.X_12 = X_12;
  // J_c of the surrogate (21) that the general solve factors: x = c x_S, λ = c λ_S, c = ‖r‖/(f_S S),
  // i.e. the columns x and λ of J_c times c; the same equilibration, pivoting and stored factors
  const double c = rn / (fS * S), ca = c * ia;
  Mat6RowMajor JS;
  const double u1 = ca * iR1, u2 = ca * iR2;
  JS.row(0) << u1 * rhat.transpose(), -1.0, 0.0, 0.0;
  JS.row(1) << -u2 * rhat.transpose(), -1.0, 0.0, 0.0;
  JS.block<3, 3>(2, 0) = (ca * iR1 * iR2) * P;
  JS.block<3, 1>(2, 3).setZero();
  JS.block<3, 1>(2, 4) = u1 * rhat;
  JS.block<3, 1>(2, 5) = -u2 * rhat;
  JS.row(5) << 0.0, 0.0, 0.0, 2.0, -ca, -ca;
  Lu6 lu;
  factor_equilibrated(lu, JS, Equilibration(S));
  store_kkt(JS, lu, c, out);
  out.warm_pose_step.setZero();
  out.warm_prediction_error.setZero();
  out.closed_form = true;
}

// Evaluations a warm attempt may use before the next start is tried (a warm solve normally needs
// 2–4). A few warm starts land where Newton's method crawls (nearly parallel flat faces): on
// 200 000 sweep poses per pair the slowest warm solve took up to 593 evaluations (se–tc; sec–poly
// 548), with this cap at most 70 over all pairs, the mean unchanged (docs/notes/idcol.md).
constexpr int kWarmEvaluations = 24;

template <class S1, class S2, bool kClosedForm = true>
void solve_typed_at(const Shape& sh1, const Shape& sh2, const Pose& X_W1, const Pose& X_W2, const SolveOptions& opt,
                    const ContactSolution* warm, ContactSolution& out);

// Every solve records the body-1 pose it used (identity on invalid input), so that the
// derivatives need only the solution.
template <class S1, class S2, bool kClosedForm = true>
void solve_typed(const Shape& sh1, const Shape& sh2, const Pose& X_W1, const Pose& X_W2, const SolveOptions& opt,
                 const ContactSolution* warm, ContactSolution& out) {
  solve_typed_at<S1, S2, kClosedForm>(sh1, sh2, X_W1, X_W2, opt, warm, out);
  out.X_W1 = out.status == SolveStatus::invalid_input ? Pose{} : X_W1;
}

template <class S1, class S2, bool kClosedForm>
void solve_typed_at(const Shape& sh1, const Shape& sh2, const Pose& X_W1, const Pose& X_W2, const SolveOptions& opt,
                    const ContactSolution* warm, ContactSolution& out) {
  const S1& a = get<S1>(sh1);
  const S2& b = get<S2>(sh2);
  if (!X_W1.is_valid() || !X_W2.is_valid() || !opt.is_valid()) return fill_invalid(out);
  const Pose X_12 = X_W1.inverse() * X_W2;
  if (!(X_12.p.cwiseAbs().maxCoeff() < kMaxCoordinate)) return fill_invalid(out);
  if constexpr (kClosedForm && std::is_same_v<S1, Sphere> && std::is_same_v<S2, Sphere>) {
    const double rn = X_12.p.norm();
    if (rn > opt.coincident_tolerance * (a.radius() + b.radius())) return solve_sphere_pair(a, b, X_W1, X_12, rn, opt.surrogate_factor > 1.0 ? opt.surrogate_factor : 1.0, out);
  }
  const Surrogate sg = make_surrogate(a, b, X_12.R, X_12.p, opt);
  const Problem& P = sg.P;
  const double c = sg.c;
  const bool coincident = sg.coincident;
  const Kkt<S1, S2> kkt{a, b, P};

  NewtonStats st;
  Iterate z;
  Vec6 f;
  Mat6RowMajor J;
  ShapeData sd;
  bool ok = false;
  int attempts = 0;
  BestIterate best;
  out.warm_started = false;
  bool from_prediction = false;
  Vec6 pose_step = Vec6::Zero(), first_order = Vec6::Zero();
  // warm start: previous solution mapped into this surrogate
  // (sphere–sphere: the cold start below is exact, a warm start can only cost iterations; two
  // ellipsoids: the touching-point start below meets the tolerance at once, 1.00 evaluations per
  // solve on the ergodic sweep against 2.01 from the warm prediction, so it is used warm too, its
  // iteration started from the previous solution's λ2/(λ1 + λ2): 3.11 → 2.12 inverses per solve)
  constexpr bool exact_cold = std::is_same_v<S1, Sphere> && std::is_same_v<S2, Sphere>;
  Vec3 axes1, axes2;
  const bool ellipsoid_pair = ellipsoid_axes(a, axes1) && ellipsoid_axes(b, axes2);
  if (!exact_cold && !ellipsoid_pair && warm != nullptr && warm->ok() && warm->alpha > 0.0 && c > 0.0) {
    ++attempts;
    Vec3 xw = warm->x_B1;
    double aw = warm->alpha, l1w = warm->lambda1, l2w = warm->lambda2;
    const bool predicted = opt.warm_predictor && predict_warm_start(*warm, X_12, xw, aw, l1w, l2w, pose_step);
    if (predicted) {
      first_order << xw, std::log(aw), l1w, l2w;
      second_order_correction(*warm, X_12, pose_step, xw, aw, l1w, l2w);
    }
    const auto start = [&](const Vec3& x0, double a0, double m1, double m2) {
      z.x = x0 / c;
      z.s = std::clamp(std::log(a0 / c), P.s_lo, P.s_hi);
      z.l1 = m1 / c;
      z.l2 = m2 / c;
    };
    start(xw, aw, l1w, l2w);
    ok = newton(kkt, opt, z, f, J, sd, st, false, false, kWarmEvaluations);
    best.keep(kkt, ok, z, st);
    from_prediction = ok && predicted;
    if (!ok && predicted) {  // the plain previous solution, before any cold start
      ++attempts;
      start(warm->x_B1, warm->alpha, warm->lambda1, warm->lambda2);
      ok = newton(kkt, opt, z, f, J, sd, st, false, false, kWarmEvaluations);
      best.keep(kkt, ok, z, st);
    }
    out.warm_started = ok;
  }
  if (!ok) {
    const bool can_continue = opt.continuation && relax_stages(a, b) > 0;
    const auto cont = [&](Iterate& zc, Vec6& fc, Mat6RowMajor& Jc, ShapeData& sdc, NewtonStats& stc) {
      return continuation(kkt, opt, zc, fc, Jc, sdc, stc);
    };
    const bool warm_ellipsoids = ellipsoid_pair && warm != nullptr && warm->ok() && warm->lambda1 > 0.0 &&
                                 warm->lambda2 > 0.0;
    const double lambda_guess = warm_ellipsoids ? warm->lambda2 / (warm->lambda1 + warm->lambda2) : -1.0;
    ok = solve_from_cold_starts(kkt, sg, opt, can_continue, cont, z, f, J, sd, st, attempts, best, lambda_guess);
  }
  if (!ok) {
    if (best.f < std::numeric_limits<double>::infinity()) z = best.z;
    kkt(z, f, J, sd);
  }
  Lu6 lu;
  factor_equilibrated(lu, J, Equilibration(P.size));
  if (ok) polish(kkt, opt, z, f, J, sd, lu, st);
  out.iterations = st.iterations;
  out.jacobian_evaluations = st.evaluations;
  out.attempts = attempts;
  out.status = !ok ? SolveStatus::not_converged
                   : (coincident ? SolveStatus::coincident_origins : SolveStatus::ok);
  fill_solution(sd, X_W1, X_12, P.r, z, f, J, lu, c, out);
  out.closed_form = false;
  if (from_prediction) {
    out.warm_pose_step = pose_step;
    out.warm_prediction_error << out.x_B1 - first_order.head<3>(), std::log(out.alpha) - first_order[3],
        out.lambda1 - first_order[4], out.lambda2 - first_order[5];
  } else {
    out.warm_pose_step.setZero();
    out.warm_prediction_error.setZero();
  }
}

using Table = ContactPair::SolveFn[kNumShapeTypes][kNumShapeTypes];

template <class S1>
constexpr void fill_row(ContactPair::SolveFn* row) {
  row[0] = &solve_typed<S1, Sphere>;
  row[1] = &solve_typed<S1, Superellipsoid>;
  row[2] = &solve_typed<S1, SuperellipticCylinder>;
  row[3] = &solve_typed<S1, SmoothPolytope>;
  row[4] = &solve_typed<S1, SmoothTruncatedCone>;
}

// The one dispatch point: kSolve[type1][type2], rows/columns in ShapeType order
// (sphere, superellipsoid, superelliptic_cylinder, smooth_polytope, smooth_truncated_cone).
struct SolveTable {
  Table t;
  SolveTable() {
    fill_row<Sphere>(t[0]);
    fill_row<Superellipsoid>(t[1]);
    fill_row<SuperellipticCylinder>(t[2]);
    fill_row<SmoothPolytope>(t[3]);
    fill_row<SmoothTruncatedCone>(t[4]);
  }
};
const SolveTable kSolve;

ContactPair::SolveFn lookup(const Shape& s1, const Shape& s2) {
  return kSolve.t[static_cast<int>(s1.type())][static_cast<int>(s2.type())];
}

}  // namespace

const char* SolveOptions::invalid_field() const noexcept {
  // below 1e-14 the test sits under the rounding floor, above 1e-3 "converged" is not
  if (!(tolerance >= 1e-14 && tolerance <= 1e-3)) return "tolerance must be in [1e-14, 1e-3]";
  static_assert(kMaxIterationsLimit == 100000 && kMaxAttemptsLimit == 1000 && kLastResortIterationsLimit == 100000,
                "the messages below quote the limits");
  if (max_iterations < 1 || max_iterations > kMaxIterationsLimit) return "max_iterations must be in [1, 100000]";
  if (max_attempts < 1 || max_attempts > kMaxAttemptsLimit) return "max_attempts must be in [1, 1000]";
  if (!(surrogate_factor >= 1.0) || !(surrogate_factor <= kMaxSurrogateFactor))
    return "surrogate_factor must be in [1, 1e6]";
  if (!(coincident_tolerance >= 0.0 && coincident_tolerance <= 1e-3))
    return "coincident_tolerance must be in [0, 1e-3]";
  if (!(polish_threshold >= 0.0)) return "polish_threshold must be >= 0 (+inf: never polish)";
  if (last_resort_iterations < 0 || last_resort_iterations > kLastResortIterationsLimit) return "last_resort_iterations must be in [0, 100000]";
  return nullptr;
}

bool SolveOptions::is_valid() const noexcept { return invalid_field() == nullptr; }

void SolveOptions::validate() const {
  if (const char* why = invalid_field()) throw std::invalid_argument(std::string("SolveOptions: ") + why);
}

ContactSolution solve_contact(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                              const SolveOptions& options) {
  ContactSolution out;
  lookup(shape1, shape2)(shape1, shape2, X_W1, X_W2, options, nullptr, out);
  return out;
}

namespace detail {
ContactSolution solve_contact_general(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                                      const SolveOptions& options) {
  ContactSolution out;
  if (shape1.type() == ShapeType::sphere && shape2.type() == ShapeType::sphere)
    solve_typed<Sphere, Sphere, false>(shape1, shape2, X_W1, X_W2, options, nullptr, out);
  else
    lookup(shape1, shape2)(shape1, shape2, X_W1, X_W2, options, nullptr, out);
  return out;
}
}  // namespace detail

ContactPair::ContactPair(Shape shape1, Shape shape2, SolveOptions options)
    : s1_(std::move(shape1)), s2_(std::move(shape2)), opt_(options), fn_(lookup(s1_, s2_)) {
  opt_.validate();
}

const ContactSolution& ContactPair::solve(const Pose& X_W1, const Pose& X_W2) {
  fn_(s1_, s2_, X_W1, X_W2, opt_, (opt_.warm_start && has_warm_) ? &last_ : nullptr, last_);
  has_warm_ = last_.ok();
  return last_;
}

const ContactSolution& ContactPair::solve_cold(const Pose& X_W1, const Pose& X_W2) {
  fn_(s1_, s2_, X_W1, X_W2, opt_, nullptr, last_);
  has_warm_ = last_.ok();
  return last_;
}

const ContactSolution& ContactPair::solve_from(const Pose& X_W1, const Pose& X_W2, const ContactSolution& guess) {
  const ContactSolution g = guess;  // guess may alias last_
  fn_(s1_, s2_, X_W1, X_W2, opt_, &g, last_);
  has_warm_ = last_.ok();
  return last_;
}

}  // namespace diffcol::idcol
