// Complementarity-based time stepping of free DCOL bodies (time_stepping.hpp,
// docs/sim-time-stepping.md): the step's velocities and contact impulses by a primal–dual
// interior-point method, and the step's Jacobian by the implicit function theorem.
#include "diffcol/sim/time_stepping.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <Eigen/Dense>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/scene/scene.hpp"

namespace diffcol::sim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Vec3 vee(const Mat3& M) { return Vec3(M(2, 1), M(0, 2), M(1, 0)); }

/// Right Jacobian of SO(3): exp(w + δ) = exp(w)·exp(Jr(w) δ) to first order.
Mat3 right_jacobian(const Vec3& w) {
  const double t2 = w.squaredNorm();
  const Mat3 W = skew(w);
  double a, b;
  if (t2 < 1e-6) {
    a = 0.5 - t2 / 24.0;
    b = 1.0 / 6.0 - t2 / 120.0;
  } else {
    const double t = std::sqrt(t2);
    a = (1.0 - std::cos(t)) / t2;
    b = (t - std::sin(t)) / (t2 * t);
  }
  return Mat3::Identity() - a * W + b * W * W;
}

Mat3 exp_so3(const Vec3& w) {
  const double t = w.norm();
  if (t < 1e-8) return Mat3::Identity() + skew(w) + 0.5 * skew(w) * skew(w);
  return so3_exp(w);
}

struct BodyData {
  dcol::Primitive shape = dcol::Sphere(1.0);
  double mass = 0.0;
  Mat3 inertia = Mat3::Zero();
  Mat3 inertia_inv = Mat3::Zero();
  Mat3 Jd = Mat3::Zero();  // nonstandard inertia ½ tr(I)·1 − I
  bool is_static = false;
  int dyn = -1;            // index among the dynamic bodies
  double radius = 0.0;     // outer radius of the shape about the body origin
  std::string name;
};

/// φ(ω̂) = vee(F J_d − J_d Fᵀ)/h and its Jacobian, F = exp(h ω̂).
struct RotationStep {
  Mat3 F, Jr;  // exp(h ω̂), Jr(h ω̂)
  Vec3 phi;
  Mat3 dphi;
  void eval(const Vec3& w, double h, const Mat3& Jd) {
    F = exp_so3(h * w);
    Jr = right_jacobian(h * w);
    phi = vee(F * Jd - Jd * F.transpose()) / h;
    for (int j = 0; j < 3; ++j) {
      const Mat3 A = skew(h * Jr.col(j));
      dphi.col(j) = vee(F * A * Jd + Jd * A * F.transpose()) / h;
    }
  }
};

std::string body_label(const BodyData& b, int id) {
  return b.name.empty() ? "body " + std::to_string(id) : "body '" + b.name + "' (" + std::to_string(id) + ")";
}

}  // namespace

void TimeSteppingOptions::validate() const {
  auto bad = [](const std::string& what) { throw std::invalid_argument("TimeSteppingOptions: " + what); };
  if (!(dt > 0.0) || !std::isfinite(dt)) bad("dt must be finite and > 0 (got " + std::to_string(dt) + ")");
  if (!gravity.allFinite()) bad("gravity must be finite");
  if (!(margin >= 0.0) || !std::isfinite(margin)) bad("margin must be finite and >= 0");
  if (max_iterations < 1) bad("max_iterations must be >= 1");
  if (!(tolerance > 0.0) || !(tolerance < 1.0)) bad("tolerance must lie in (0, 1)");
  if (max_substeps < 1 || max_substeps > 1024 || (max_substeps & (max_substeps - 1)) != 0)
    bad("max_substeps must be a power of two in [1, 1024]");
  if (!(penetration_tolerance >= 0.0) || !(penetration_tolerance < 1.0))
    bad("penetration_tolerance must lie in [0, 1)");
  if (!(friction >= 0.0) || !std::isfinite(friction)) bad("friction must be finite and >= 0");
  if (!(friction_slip_velocity > 0.0) || !std::isfinite(friction_slip_velocity))
    bad("friction_slip_velocity must be finite and > 0");
  if (friction_passes < 1) bad("friction_passes must be >= 1");
  if (!(friction_tolerance > 0.0) || !(friction_tolerance < 1.0)) bad("friction_tolerance must lie in (0, 1)");
}

struct TimeStepper::Impl {
  TimeSteppingOptions opt;
  std::vector<BodyData> bodies;
  std::vector<int> dynamic;  // body ids of the dynamic bodies
  scene::Scene scene;

  // --- per-step workspace (sized once per step; the iterations allocate nothing) ---
  struct Pair {
    int a = -1, b = -1;      // bodies, a < b
    int da = -1, db = -1;    // their dynamic indices (−1: static)
    double alpha = 0.0, g = 0.0;
    Eigen::Matrix<double, 1, 24> grad_y = Eigen::Matrix<double, 1, 24>::Zero();  // ∂g/∂y, y = [θ δp ω̂ v̂] per side
    double lambda = 0.0, s = 0.0;
    Vec3 x_W = Vec3::Zero();  // the intersection point of the scaled shapes at the last evaluation
    bool ok = false;
  };
  std::vector<Pair> pairs;
  // Friction contacts of the current solve: u_i = J_i ν_i is the velocity of body i's point at x
  // over the step, w = u_b − u_a, the impulse on a is f(w) = μ P_n w_t/√(‖w_t‖² + ε²), on b −f.
  struct FrictionContact {
    int pair = -1;  // index into pairs
    int da = -1, db = -1;
    Vec3 n = Vec3::UnitZ();
    double mu_Pn = 0.0;
    Eigen::Matrix<double, 3, 6> Ja = Eigen::Matrix<double, 3, 6>::Zero(), Jb = Eigen::Matrix<double, 3, 6>::Zero();
  };
  std::vector<FrictionContact> friction;
  std::unique_ptr<dcol::ContactResult> res;
  dcol::ContactDerivatives der;
  double collision_seconds = 0.0;

  // step inputs
  std::vector<Pose> X0;           // poses at the start of the step (all bodies)
  std::vector<BodyState> start;   // the state at the start of the step
  // unknowns and residuals
  Eigen::VectorXd nu, nu_free, b, D, rd, dnu, rhs, trial_nu;
  Eigen::MatrixXd K, G, N;
  Eigen::VectorXd lam, s, gvec, rp, dlam, ds, dlam_aff, ds_aff, w, tmp, rc_vec, st, lt;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu, plu;
  struct Cut {
    int pair = -1;
    Eigen::RowVectorXd row;  // g ≈ row·ν + c0 beyond a kink of the pair's α
    double c0 = 0.0;
  };
  std::vector<Cut> cuts;
  Eigen::VectorXd tmp2;
  Eigen::MatrixXd Gsave;
  std::vector<int> act;
  Eigen::VectorXd pv, pl, pr;
  Eigen::MatrixXd PM;
  std::vector<RotationStep> rot;

  Impl() : res(std::make_unique<dcol::ContactResult>()) {}

  int n() const { return 6 * static_cast<int>(dynamic.size()); }

  /// Pose at the end of the step of body `id` for step variables (ω̂, v̂) and a perturbation
  /// (θ, δp) of the start pose.
  Pose end_pose(int id, const Vec3& theta, const Vec3& dp, const Vec3& w, const Vec3& v, Mat3* R_base) const {
    const BodyData& bd = bodies[static_cast<size_t>(id)];
    if (bd.is_static) return X0[static_cast<size_t>(id)];
    const double h = opt.dt;
    Mat3 Rb = X0[static_cast<size_t>(id)].R;
    if (theta.squaredNorm() > 0.0) Rb = Rb * exp_so3(theta);
    if (R_base) *R_base = Rb;
    Pose X;
    X.R = Rb * exp_so3(h * w);
    X.p = X0[static_cast<size_t>(id)].p + dp + h * v;
    return X;
  }

  /// α and ∂g/∂y (g = (α − 1)/h) of a pair at y = [θ δp ω̂ v̂] per dynamic side (24 entries; a
  /// static side's 12 are ignored and its gradient is zero). Returns false when DCOL fails.
  bool eval_pair(const Pair& pr, const Eigen::Matrix<double, 24, 1>& y, double& alpha,
                 Eigen::Matrix<double, 1, 24>& grad) {
    if (!y.allFinite()) return false;
    const double h = opt.dt;
    Mat3 Rb[2];
    Pose X[2];
    const int ids[2] = {pr.a, pr.b};
    for (int k = 0; k < 2; ++k)
      X[k] = end_pose(ids[k], y.segment<3>(12 * k), y.segment<3>(12 * k + 3), y.segment<3>(12 * k + 6),
                      y.segment<3>(12 * k + 9), &Rb[k]);
    const auto t0 = std::chrono::steady_clock::now();
    const dcol::Primitive& s1 = bodies[static_cast<size_t>(pr.a)].shape;
    const dcol::Primitive& s2 = bodies[static_cast<size_t>(pr.b)].shape;
    bool swapped = false;
    dcol::solve_contact(s1, X[0], s2, X[1], *res);
    if (!res->ok()) {  // a pair that fails one way is retried with the shapes exchanged (as the scene does)
      dcol::solve_contact(s2, X[1], s1, X[0], *res);
      swapped = true;
    }
    bool ok = res->ok();
    if (ok) {
      dcol::contact_derivatives(*res, der, ReferenceFrame::local_world_aligned);
      ok = der.ok();
    }
    collision_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!ok) return false;
    alpha = res->alpha;
    grad.setZero();
    for (int k = 0; k < 2; ++k) {
      const BodyData& bd = bodies[static_cast<size_t>(ids[k])];
      if (bd.is_static) continue;
      const dcol::RowVec6& J = (k == 0) != swapped ? der.J_alpha_X1 : der.J_alpha_X2;
      const Eigen::Matrix<double, 1, 3> Jw = J.head<3>(), Jv = J.tail<3>();
      const Vec3 theta = y.segment<3>(12 * k), w = y.segment<3>(12 * k + 6);
      grad.segment<3>(12 * k) = Jw * Rb[k] * right_jacobian(theta) / h;
      grad.segment<3>(12 * k + 3) = Jv / h;
      grad.segment<3>(12 * k + 6) = Jw * X[k].R * right_jacobian(h * w);
      grad.segment<3>(12 * k + 9) = Jv;
    }
    return true;
  }

  Eigen::Matrix<double, 24, 1> pair_y(const Pair& pr, const Eigen::VectorXd& v) const {
    Eigen::Matrix<double, 24, 1> y = Eigen::Matrix<double, 24, 1>::Zero();
    if (pr.da >= 0) y.segment<6>(6) = v.segment<6>(6 * pr.da);
    if (pr.db >= 0) y.segment<6>(18) = v.segment<6>(6 * pr.db);
    return y;
  }

  /// Evaluates every pair at ν; false when one fails.
  bool eval_pairs(const Eigen::VectorXd& v) {
    for (Pair& pr : pairs) {
      pr.ok = eval_pair(pr, pair_y(pr, v), pr.alpha, pr.grad_y);
      if (!pr.ok) return false;
      pr.x_W = res->x_W;
      pr.g = (pr.alpha - 1.0) / opt.dt;
    }
    return true;
  }

  /// D(ν) and K = ∂D/∂ν (block diagonal).
  void eval_dynamics(const Eigen::VectorXd& v) {
    K.setZero();
    for (size_t d = 0; d < dynamic.size(); ++d) {
      const BodyData& bd = bodies[static_cast<size_t>(dynamic[d])];
      const int o = 6 * static_cast<int>(d);
      rot[d].eval(v.segment<3>(o), opt.dt, bd.Jd);
      D.segment<3>(o) = rot[d].phi;
      D.segment<3>(o + 3) = bd.mass * v.segment<3>(o + 3);
      K.block<3, 3>(o, o) = rot[d].dphi;
      K.block<3, 3>(o + 3, o + 3) = bd.mass * Mat3::Identity();
    }
    for (const FrictionContact& fc : friction) add_friction(fc, v, D, &K);
  }

  /// Adds one friction contact's impulses at ν to D (and, when K is given, their ν-derivative at
  /// fixed contact data to K).
  void add_friction(const FrictionContact& fc, const Eigen::VectorXd& v, Eigen::VectorXd& Dv, Eigen::MatrixXd* Kv) const {
    const double eps2 = opt.friction_slip_velocity * opt.friction_slip_velocity;
    Vec3 w = Vec3::Zero();
    if (fc.da >= 0) w -= fc.Ja * v.segment<6>(6 * fc.da);
    if (fc.db >= 0) w += fc.Jb * v.segment<6>(6 * fc.db);
    const Vec3 wt = w - fc.n * fc.n.dot(w);
    const double sn = std::sqrt(wt.squaredNorm() + eps2);
    const Vec3 f = fc.mu_Pn / sn * wt;
    if (fc.da >= 0) Dv.segment<6>(6 * fc.da) -= fc.Ja.transpose() * f;
    if (fc.db >= 0) Dv.segment<6>(6 * fc.db) += fc.Jb.transpose() * f;
    if (!Kv) return;
    // ∂f/∂w = μP_n (P − w_t w_tᵀ/s²)/s, P = 1 − n nᵀ (symmetric positive semidefinite)
    const Mat3 Df = fc.mu_Pn / sn * (Mat3::Identity() - fc.n * fc.n.transpose() - wt * wt.transpose() / (sn * sn));
    Eigen::MatrixXd& Km = *Kv;
    if (fc.da >= 0) Km.block<6, 6>(6 * fc.da, 6 * fc.da) += fc.Ja.transpose() * Df * fc.Ja;
    if (fc.db >= 0) Km.block<6, 6>(6 * fc.db, 6 * fc.db) += fc.Jb.transpose() * Df * fc.Jb;
    if (fc.da >= 0 && fc.db >= 0) {
      Km.block<6, 6>(6 * fc.da, 6 * fc.db) -= fc.Ja.transpose() * Df * fc.Jb;
      Km.block<6, 6>(6 * fc.db, 6 * fc.da) -= fc.Jb.transpose() * Df * fc.Ja;
    }
  }

  /// The contact data of pair c from its impulse P on the second dynamic side (world, from the
  /// first body to the second), the intersection point x_W and the step: n̂ = P/‖P‖, μP_n = μ‖P‖,
  /// u_k = v̂_k + (R_k ω̂_k) × (x_W − p_k − h v̂_k) (R_k, p_k the start pose, optionally moved by
  /// a tangent perturbation ξ = (θ, δp) per dynamic body). False when P = 0.
  bool make_friction_contact(int c, const Vec3& P, const Vec3& x_W, const Eigen::VectorXd& v,
                             const Eigen::VectorXd* xi, FrictionContact& fc) const {
    const Pair& pr = pairs[static_cast<size_t>(c)];
    const double gn = P.norm();
    if (!(gn > 0.0)) return false;
    fc = FrictionContact{};
    fc.pair = c;
    fc.da = pr.da;
    fc.db = pr.db;
    fc.n = P / gn;
    fc.mu_Pn = opt.friction * gn;
    const int ids[2] = {pr.a, pr.b};
    for (int k = 0; k < 2; ++k) {
      const int dyn = k == 0 ? pr.da : pr.db;
      if (dyn < 0) continue;
      const Pose& X = X0[static_cast<size_t>(ids[k])];
      Mat3 R = X.R;
      Vec3 p = X.p;
      if (xi) {
        R = R * exp_so3(xi->segment<3>(6 * dyn));
        p += xi->segment<3>(6 * dyn + 3);
      }
      const Vec3 r = x_W - (p + opt.dt * v.segment<3>(6 * dyn + 3));
      Eigen::Matrix<double, 3, 6>& J = k == 0 ? fc.Ja : fc.Jb;
      J.leftCols<3>() = -skew(r) * R;  // u = v̂ + (R_k ω̂) × r
      J.rightCols<3>() = Mat3::Identity();
    }
    return true;
  }

  /// The friction contacts from the pairs with a normal impulse at the current solution: the
  /// impulse of the pair's rows (its constraint and the cuts of its kinks) on its second dynamic
  /// side, P = Σ_r λ_r ∂c_r/∂v̂ (world), gives P_n = ‖P‖ and n̂ = P/‖P‖ (from the first body to the
  /// second); the lever from the end-of-step position to x*. Returns the largest change of μP_n.
  double update_friction(double relax) {
    std::vector<FrictionContact> next;
    for (size_t c = 0; c < pairs.size(); ++c) {
      const Pair& pr = pairs[c];
      Vec3 P = Vec3::Zero();
      auto add_row = [&](Eigen::Index r) {
        if (pr.db >= 0) P += lam[r] * G.block<1, 3>(r, 6 * pr.db + 3).transpose();
        else P -= lam[r] * G.block<1, 3>(r, 6 * pr.da + 3).transpose();
      };
      add_row(static_cast<Eigen::Index>(c));
      for (size_t k = 0; k < cuts.size(); ++k)
        if (cuts[k].pair == static_cast<int>(c)) add_row(static_cast<Eigen::Index>(pairs.size() + k));
      FrictionContact fc;
      if (make_friction_contact(static_cast<int>(c), P, pr.x_W, nu, nullptr, fc)) next.push_back(fc);
    }
    // relaxation towards the new bounds (contacts matched by their pair: two contacts of one body
    // with two static bodies share their dynamic indices), and the change
    double change = 0.0;
    for (FrictionContact& c : next) {
      double old = 0.0;
      for (const FrictionContact& o : friction)
        if (o.pair == c.pair) old = o.mu_Pn;
      c.mu_Pn = old + relax * (c.mu_Pn - old);
      change = std::max(change, std::abs(c.mu_Pn - old));
    }
    for (const FrictionContact& o : friction) {
      bool found = false;
      for (const FrictionContact& c : next) found = found || o.pair == c.pair;
      if (!found) change = std::max(change, o.mu_Pn);
    }
    friction = std::move(next);
    return change;
  }

  /// Constraint rows at ν: the pairs' (from their last evaluation), then the cuts' (linear).
  void fill_rows(const Eigen::VectorXd& v) {
    G.setZero();
    for (size_t c = 0; c < pairs.size(); ++c) {
      const Pair& pr = pairs[c];
      if (pr.da >= 0) G.block<1, 6>(static_cast<Eigen::Index>(c), 6 * pr.da) = pr.grad_y.segment<6>(6);
      if (pr.db >= 0) G.block<1, 6>(static_cast<Eigen::Index>(c), 6 * pr.db) = pr.grad_y.segment<6>(18);
      gvec[static_cast<Eigen::Index>(c)] = pr.g;
    }
    for (size_t k = 0; k < cuts.size(); ++k) {
      const Eigen::Index r = static_cast<Eigen::Index>(pairs.size() + k);
      G.row(r) = cuts[k].row;
      gvec[r] = cuts[k].row.dot(v) + cuts[k].c0;
    }
  }
  int rows() const { return static_cast<int>(pairs.size() + cuts.size()); }

  void resize(int m) {
    const int nn = n();
    nu.resize(nn); b.resize(nn); D.resize(nn); rd.resize(nn); dnu.resize(nn); rhs.resize(nn); trial_nu.resize(nn);
    K.resize(nn, nn); N.resize(nn, nn);
    G.resize(m, nn);
    lam.resize(m); s.resize(m); gvec.resize(m); rp.resize(m); dlam.resize(m); ds.resize(m);
    dlam_aff.resize(m); ds_aff.resize(m); w.resize(m); tmp.resize(m); rc_vec.resize(m); st.resize(m); lt.resize(m);
    rot.resize(dynamic.size());
  }

  /// The free step: φ(ω̂) = I ω_k, v̂ = v_k + h g.
  void free_velocities() {
    nu_free.resize(n());
    for (size_t d = 0; d < dynamic.size(); ++d) {
      const BodyData& bd = bodies[static_cast<size_t>(dynamic[d])];
      const BodyState& st = start[static_cast<size_t>(dynamic[d])];
      const Vec3 target = bd.inertia * st.omega_B;
      Vec3 wv = st.omega_B;
      RotationStep rs;
      for (int it = 0; it < 30; ++it) {
        rs.eval(wv, opt.dt, bd.Jd);
        const Vec3 r = rs.phi - target;
        if (r.norm() <= 1e-15 * (target.norm() + bd.inertia.norm() * 1e-300)) break;
        const Vec3 step = rs.dphi.partialPivLu().solve(r);
        wv -= step;
        if (step.norm() <= 1e-16 * (1.0 + wv.norm())) break;
      }
      nu_free.segment<3>(6 * d) = wv;
      nu_free.segment<3>(6 * d + 3) = st.v_W + opt.dt * opt.gravity;
      b.segment<3>(6 * d) = target;
      b.segment<3>(6 * d + 3) = bd.mass * (st.v_W + opt.dt * opt.gravity);
    }
  }

  /// Interior-point solve on the current pair set from nu (initial guess). Returns converged.
  bool solve(StepReport& rep) {
    int m = rows();
    const double h = opt.dt;
    const double tol = opt.tolerance;
    eval_dynamics(nu);
    if (!eval_pairs(nu)) {
      rep.message = "a DCOL solve failed at the start of the step";
      return false;
    }
    fill_rows(nu);
    // Energy scale of the complementarity: m v² of the step's momenta.
    double e_scale = 1e-12;
    for (size_t d = 0; d < dynamic.size(); ++d) {
      const BodyData& bd = bodies[static_cast<size_t>(dynamic[d])];
      e_scale += b.segment<3>(6 * d + 3).squaredNorm() / bd.mass + b.segment<3>(6 * d).dot(bd.inertia_inv * b.segment<3>(6 * d));
    }
    e_scale = std::max(e_scale / std::max<size_t>(1, dynamic.size()), 1e-6);
    {
      for (int c = 0; c < m; ++c) {
        s[c] = std::max(gvec[c], 1.0);
        lam[c] = 0.1 * e_scale / s[c];
      }
    }
    const double b_scale = 1.0 + b.lpNorm<Eigen::Infinity>();
    double polish_level = 1e-6;
    int it = 0;
    for (;; ++it) {
      rd = D - b - G.transpose() * lam;
      rp = gvec - s;
      const double res_d = rd.lpNorm<Eigen::Infinity>() / b_scale;
      const double res_p = m ? h * rp.lpNorm<Eigen::Infinity>() : 0.0;
      double res_c = 0.0;
      const double lam_scale = 1.0 + (m ? lam.lpNorm<Eigen::Infinity>() : 0.0);
      for (int c = 0; c < m; ++c) res_c = std::max(res_c, h * s[c] * lam[c] / lam_scale);
      rep.residual = std::max({res_d, res_p, res_c});
      if (!std::isfinite(rep.residual)) {
        rep.message = "a non-finite iterate";
        return false;
      }
      if (res_d <= tol && res_p <= tol && res_c <= tol) break;
      // Once the active set shows, Newton's method on its equalities finishes the solve exactly.
      if (m && res_c <= polish_level && res_p <= 1e-6 && res_d <= 1e-5) {
        int pit = 0;
        const bool done = polish(tol, b_scale, pit, rep.residual);
        it += pit;
        if (done) break;
        polish_level = 0.01 * res_c;
      }
      if (it >= opt.max_iterations) {
        std::ostringstream os;
        os << "no convergence in " << opt.max_iterations << " iterations (residual " << rep.residual << ")";
        rep.message = os.str();
        rep.iterations += it;
        return false;
      }
      // Newton matrix (K + Gᵀ S⁻¹Λ G).
      for (int c = 0; c < m; ++c) w[c] = lam[c] / s[c];
      N = K;
      if (m) N.noalias() += G.transpose() * w.asDiagonal() * G;
      lu.compute(N);
      const double mu = m ? s.dot(lam) / m : 0.0;
      auto direction = [&](const Eigen::VectorXd& rc) {  // rc: complementarity residual s∘λ − target
        for (int c = 0; c < m; ++c) tmp[c] = (rc[c] + lam[c] * rp[c]) / s[c];
        rhs = -rd;
        if (m) rhs.noalias() -= G.transpose() * tmp;
        dnu = lu.solve(rhs);
        if (m) {
          ds = G * dnu + rp;
          for (int c = 0; c < m; ++c) dlam[c] = (-rc[c] - lam[c] * ds[c]) / s[c];
        }
      };
      auto max_step = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& dx) {
        double a = 1.0;
        for (int c = 0; c < m; ++c)
          if (dx[c] < 0.0) a = std::min(a, -x[c] / dx[c]);
        return a;
      };
      double sigma = 0.0;
      if (m) {
        for (int c = 0; c < m; ++c) rc_vec[c] = s[c] * lam[c];
        direction(rc_vec);
        ds_aff = ds;
        dlam_aff = dlam;
        const double a_aff = std::min(max_step(s, ds_aff), max_step(lam, dlam_aff));
        const double mu_aff = (s + a_aff * ds_aff).dot(lam + a_aff * dlam_aff) / m;
        sigma = std::pow(std::clamp(mu_aff / mu, 0.0, 1.0), 3);
        for (int c = 0; c < m; ++c) rc_vec[c] = s[c] * lam[c] + ds_aff[c] * dlam_aff[c] - sigma * mu;
        direction(rc_vec);
      } else {
        direction(rc_vec);
      }
      const double tau = std::clamp(1.0 - mu / e_scale, 0.99, 0.9999);
      if (!dnu.allFinite() || (m && (!ds.allFinite() || !dlam.allFinite()))) {
        rep.message = "a singular Newton matrix";
        rep.iterations += it + 1;
        return false;
      }
      double a = m ? std::min(1.0, tau * std::min(max_step(s, ds), max_step(lam, dlam))) : 1.0;
      // Backtracking on the residual norm (the constraints are nonlinear in ν, and α is only
      // piecewise smooth on polytopes), and when a DCOL solve fails at the trial point.
      const double target = sigma * mu;
      const double lam_scale2 = 1.0 + (m ? lam.lpNorm<Eigen::Infinity>() : 0.0);
      auto merit = [&](const Eigen::VectorXd& sv, const Eigen::VectorXd& lv) {
        rd = D - b;
        if (m) rd.noalias() -= G.transpose() * lv;
        double f = rd.squaredNorm() / (b_scale * b_scale);
        for (int c = 0; c < m; ++c) {
          const double e1 = h * (gvec[c] - sv[c]), e2 = h * (sv[c] * lv[c] - target) / lam_scale2;
          f += e1 * e1 + e2 * e2;
        }
        return f;
      };
      const double m0 = merit(s, lam);
      tmp2 = gvec;  // rows at ν, for add_cuts
      Gsave = G;
      bool ok = false;
      double fallback_a = -1.0;
      for (int bt = 0; bt < 12; ++bt, a *= 0.5) {
        trial_nu = nu + a * dnu;
        if (!eval_pairs(trial_nu)) continue;
        eval_dynamics(trial_nu);
        fill_rows(trial_nu);
        if (m) {
          st = s + a * ds;
          lt = lam + a * dlam;
        }
        if (fallback_a < 0.0) fallback_a = a;
        if (merit(st, lt) <= (1.0 - 1e-4 * a) * m0) {
          ok = true;
          break;
        }
      }
      if ((!ok || a < 0.1 * fallback_a) && fallback_a > 0.0 && add_cuts(fallback_a)) {
        // α has a kink along the step (e.g. the contact moving to another vertex of a polytope):
        // the linearization beyond it joins as a linear constraint, and the iteration goes on
        // from the same point.
        const Eigen::VectorXd s_old = s, l_old = lam;
        const int m_old = m;
        m = rows();
        resize(m);
        s.head(m_old) = s_old;
        lam.head(m_old) = l_old;
        if (!eval_pairs(nu)) {
          rep.message = "a DCOL solve failed";
          return false;
        }
        eval_dynamics(nu);
        fill_rows(nu);
        for (int c = m_old; c < m; ++c) {
          s[c] = std::max(gvec[c], 1e-2);
          lam[c] = 1e-2 * e_scale / s[c];
        }
        continue;
      }
      if (!ok && fallback_a > 0.0) {  // no decrease: take the longest step that evaluates
        a = fallback_a;
        trial_nu = nu + a * dnu;
        ok = eval_pairs(trial_nu);
        if (m) {
          st = s + a * ds;
          lt = lam + a * dlam;
        }
      }
      if (!ok) {
        rep.message = "a DCOL solve failed along the Newton step";
        rep.iterations += it + 1;
        return false;
      }
      nu = trial_nu;
      if (m) {
        s = st;
        lam = lt;
      }
      eval_dynamics(nu);
      fill_rows(nu);
    }
    rep.iterations += it;
    for (size_t c = 0; c < pairs.size(); ++c) {
      pairs[c].lambda = lam[static_cast<Eigen::Index>(c)];
      pairs[c].s = s[static_cast<Eigen::Index>(c)];
    }
    return true;
  }

  /// Newton's method on the active set's equalities (g_A = 0, λ_I = 0) from the current iterate.
  /// On success (λ_A ≥ 0, every other constraint satisfied) the iterate is replaced; otherwise the
  /// pairs are evaluated at ν again and the interior-point iterate stands.
  bool polish(double tol, double b_scale, int& iterations, double& residual) {
    const int m = rows(), nn = n();
    const double h = opt.dt;
    act.clear();
    for (int c = 0; c < m; ++c)
      if (lam[c] > s[c]) act.push_back(c);
    const int na = static_cast<int>(act.size());
    pv = nu;
    pl.resize(na);
    for (int k = 0; k < na; ++k) pl[k] = lam[act[static_cast<size_t>(k)]];
    PM.resize(nn + na, nn + na);
    pr.resize(nn + na);
    bool conv = false, ok = true;
    double rdn = 0.0, rpn = 0.0;
    for (int k = 0;; ++k) {
      rd = D - b;
      for (int j = 0; j < na; ++j) rd -= G.row(act[static_cast<size_t>(j)]).transpose() * pl[j];
      rdn = rd.lpNorm<Eigen::Infinity>() / b_scale;
      rpn = 0.0;
      for (int j = 0; j < na; ++j) rpn = std::max(rpn, h * std::abs(gvec[act[static_cast<size_t>(j)]]));
      if (rdn <= tol && rpn <= tol) {
        conv = true;
        break;
      }
      if (k >= 12) break;
      PM.setZero();
      PM.topLeftCorner(nn, nn) = K;
      for (int j = 0; j < na; ++j) {
        PM.block(0, nn + j, nn, 1) = -G.row(act[static_cast<size_t>(j)]).transpose();
        PM.block(nn + j, 0, 1, nn) = G.row(act[static_cast<size_t>(j)]);
        pr[nn + j] = -gvec[act[static_cast<size_t>(j)]];
      }
      pr.head(nn) = -rd;
      plu.compute(PM);
      pr = plu.solve(pr);
      pv += pr.head(nn);
      pl += pr.tail(na);
      ++iterations;
      if (!pv.allFinite() || !eval_pairs(pv)) {
        ok = false;
        break;
      }
      eval_dynamics(pv);
      fill_rows(pv);
    }
    if (ok && conv) {
      for (int j = 0; j < na; ++j) ok = ok && pl[j] >= 0.0;
      for (int c = 0; c < m; ++c) ok = ok && h * gvec[c] >= -tol;
    }
    if (ok && conv) {
      nu = pv;
      for (int c = 0; c < m; ++c) {
        lam[c] = 0.0;
        s[c] = std::max(gvec[c], 0.0);
      }
      for (int j = 0; j < na; ++j) {
        lam[act[static_cast<size_t>(j)]] = pl[j];
        s[act[static_cast<size_t>(j)]] = 0.0;
      }
      residual = std::max(rdn, rpn);
      return true;
    }
    eval_pairs(nu);
    eval_dynamics(nu);
    fill_rows(nu);
    return false;
  }

  /// At the trial point nu + a·dnu (pairs evaluated there): a cut for every pair whose α departs
  /// from its linear prediction by more than a quarter of the predicted change. Returns whether any
  /// was added.
  bool add_cuts(double a) {
    trial_nu = nu + a * dnu;
    bool added = false;
    // tmp2, Gsave: the rows at ν (saved before the line search)
    if (!eval_pairs(trial_nu)) return false;
    for (size_t c = 0; c < pairs.size(); ++c) {
      const Pair& pr = pairs[c];
      const double pred = Gsave.row(static_cast<Eigen::Index>(c)).dot(trial_nu - nu);
      const double actual = pr.g - tmp2[static_cast<Eigen::Index>(c)];
      if (std::abs(actual - pred) <= 0.25 * std::abs(pred) + 1e-10 / opt.dt) continue;
      int count = 0;
      for (const Cut& k : cuts) count += k.pair == static_cast<int>(c);
      if (count >= 4 || cuts.size() >= 64) continue;
      Cut k;
      k.pair = static_cast<int>(c);
      k.row = Eigen::RowVectorXd::Zero(n());
      if (pr.da >= 0) k.row.segment<6>(6 * pr.da) = pr.grad_y.segment<6>(6);
      if (pr.db >= 0) k.row.segment<6>(6 * pr.db) = pr.grad_y.segment<6>(18);
      k.c0 = pr.g - k.row.dot(trial_nu);
      cuts.push_back(std::move(k));
      added = true;
    }
    return added;
  }

  double step_margin(const std::vector<BodyState>& st) const {
    double speed = 0.0;
    for (int id : dynamic) {
      const BodyState& x = st[static_cast<size_t>(id)];
      speed = std::max(speed, x.v_W.norm() + x.omega_B.norm() * bodies[static_cast<size_t>(id)].radius);
    }
    const double h = opt.dt;
    return opt.margin + 4.0 * h * speed + 2.0 * h * h * opt.gravity.norm();
  }

  void set_scene_poses(const std::vector<Pose>& X) { scene.set_body_poses(X); }

  void add_pair(int a, int b) {
    for (const Pair& p : pairs)
      if (p.a == a && p.b == b) return;
    Pair p;
    p.a = a;
    p.b = b;
    p.da = bodies[static_cast<size_t>(a)].dyn;
    p.db = bodies[static_cast<size_t>(b)].dyn;
    pairs.push_back(p);
  }

  void check(const std::vector<BodyState>& state) const {
    if (state.size() != bodies.size())
      throw std::invalid_argument("TimeStepper: the state has " + std::to_string(state.size()) + " bodies, the stepper " +
                                  std::to_string(bodies.size()));
    for (size_t i = 0; i < state.size(); ++i) {
      const BodyState& x = state[i];
      const std::string who = body_label(bodies[i], static_cast<int>(i));
      if (const char* why = x.X_WB.invalid_reason()) throw std::invalid_argument("TimeStepper: " + who + ": pose " + why);
      if (!x.v_W.allFinite() || !x.omega_B.allFinite())
        throw std::invalid_argument("TimeStepper: " + who + ": velocity not finite");
    }
  }

  /// The friction impulses (their part of D) at ν with the contact data recomputed from (ν, the
  /// pairs' impulses λ, ξ): the map whose fixed point the friction passes converge to. ξ = (θ, δp)
  /// per dynamic body moves the start poses (tangent coordinates, as step_jacobian's x).
  Eigen::VectorXd friction_impulses(const Eigen::VectorXd& v, const Eigen::VectorXd& lam_pairs,
                                    const Eigen::VectorXd& xi) {
    Eigen::VectorXd F = Eigen::VectorXd::Zero(n());
    for (const FrictionContact& current : friction) {
      const Pair& pr = pairs[static_cast<size_t>(current.pair)];
      Eigen::Matrix<double, 24, 1> y = pair_y(pr, v);
      if (pr.da >= 0) y.segment<6>(0) = xi.segment<6>(6 * pr.da);
      if (pr.db >= 0) y.segment<6>(12) = xi.segment<6>(6 * pr.db);
      double alpha;
      Eigen::Matrix<double, 1, 24> grad;
      if (!eval_pair(pr, y, alpha, grad))
        throw std::runtime_error("TimeStepper: a DCOL solve failed while differentiating a friction contact");
      // the pair row's impulse on its second dynamic side (update_friction; ∂g/∂v̂ = the row's v̂ entries)
      const double l = lam_pairs[current.pair];
      const Vec3 P = pr.db >= 0 ? Vec3(l * grad.segment<3>(21).transpose()) : Vec3(-l * grad.segment<3>(9).transpose());
      FrictionContact fc;
      if (make_friction_contact(current.pair, P, res->x_W, v, &xi, fc)) add_friction(fc, v, F, nullptr);
    }
    return F;
  }

  /// Adds the friction impulses' dependence through their contact data to the step Jacobian's
  /// system (A = ∂r/∂(ν, λ_active), R = −∂r/∂x): central differences of friction_impulses in ν,
  /// in the active pairs' λ and in the start poses (θ, δp). A's ν block must hold the dynamics
  /// without friction (these columns are the friction impulses' total derivative).
  void add_friction_sensitivities(Eigen::MatrixXd& A, Eigen::MatrixXd& R, const std::vector<int>& active) {
    const int nn = n(), nd = static_cast<int>(dynamic.size());
    Eigen::VectorXd lam_pairs(static_cast<Eigen::Index>(pairs.size()));
    for (size_t c = 0; c < pairs.size(); ++c) lam_pairs[static_cast<Eigen::Index>(c)] = pairs[c].lambda;
    const Eigen::VectorXd xi0 = Eigen::VectorXd::Zero(6 * nd);
    for (int i = 0; i < nn; ++i) {
      const double e = 1e-6 * (1.0 + std::abs(nu[i]));
      Eigen::VectorXd vp = nu, vm = nu;
      vp[i] += e;
      vm[i] -= e;
      A.col(i).head(nn) += (friction_impulses(vp, lam_pairs, xi0) - friction_impulses(vm, lam_pairs, xi0)) / (2.0 * e);
    }
    for (size_t k = 0; k < active.size(); ++k) {
      const Eigen::Index c = active[k];
      const double e = 1e-6 * lam_pairs[c];  // active: λ > 0 (the impulses are linear in λ)
      Eigen::VectorXd lp = lam_pairs, lm = lam_pairs;
      lp[c] += e;
      lm[c] -= e;
      A.col(nn + static_cast<Eigen::Index>(k)).head(nn) +=
          (friction_impulses(nu, lp, xi0) - friction_impulses(nu, lm, xi0)) / (2.0 * e);
    }
    for (int d = 0; d < nd; ++d)
      for (int j = 0; j < 6; ++j) {
        const double e = 1e-6 * (j < 3 ? 1.0 : bodies[static_cast<size_t>(dynamic[static_cast<size_t>(d)])].radius);
        Eigen::VectorXd xp = xi0, xm = xi0;
        xp[6 * d + j] = e;
        xm[6 * d + j] = -e;
        R.col(12 * d + j).head(nn) -= (friction_impulses(nu, lam_pairs, xp) - friction_impulses(nu, lam_pairs, xm)) / (2.0 * e);
      }
  }

  /// Jacobian d x_{k+1} / d x_k by the implicit function theorem at the converged step.
  void step_jacobian(Eigen::MatrixXd& J) {
    const int nn = n();
    const int nd = static_cast<int>(dynamic.size());
    const int nx = 12 * nd;
    const double h = opt.dt;
    std::vector<int> active;
    for (size_t c = 0; c < pairs.size(); ++c)
      if (pairs[c].lambda > pairs[c].s) active.push_back(static_cast<int>(c));
    const int na = static_cast<int>(active.size());
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(nn + na, nn + na);
    Eigen::MatrixXd R = Eigen::MatrixXd::Zero(nn + na, nx);
    if (!friction.empty()) {  // K without the friction impulses (add_friction_sensitivities adds them)
      const std::vector<FrictionContact> kept = friction;
      friction.clear();
      eval_dynamics(nu);
      friction = kept;
    }
    A.topLeftCorner(nn, nn) = K;
    for (int d = 0; d < nd; ++d) {
      const BodyData& bd = bodies[static_cast<size_t>(dynamic[static_cast<size_t>(d)])];
      R.block<3, 3>(6 * d, 12 * d + 9) = bd.inertia;                       // −∂r/∂ω_k
      R.block<3, 3>(6 * d + 3, 12 * d + 6) = bd.mass * Mat3::Identity();   // −∂r/∂v_k
    }
    // y index → (is ν, index) for one pair side
    auto map = [&](int dyn, int j, bool& is_nu) {
      const int part = j / 3, comp = j % 3;  // 0 θ, 1 δp, 2 ω̂, 3 v̂
      is_nu = part >= 2;
      if (part == 0) return 12 * dyn + comp;
      if (part == 1) return 12 * dyn + 3 + comp;
      if (part == 2) return 6 * dyn + comp;
      return 6 * dyn + 3 + comp;
    };
    for (int k = 0; k < na; ++k) {
      Pair& pr = pairs[static_cast<size_t>(active[static_cast<size_t>(k)])];
      const Eigen::Matrix<double, 24, 1> y0 = pair_y(pr, nu);
      // Hessian of g in y by central differences of the analytic gradient.
      Eigen::Matrix<double, 24, 24> H = Eigen::Matrix<double, 24, 24>::Zero();
      const int dyn[2] = {pr.da, pr.db};
      const double len[2] = {bodies[static_cast<size_t>(pr.a)].radius, bodies[static_cast<size_t>(pr.b)].radius};
      for (int side = 0; side < 2; ++side) {
        if (dyn[side] < 0) continue;
        for (int j = 0; j < 12; ++j) {
          const int part = j / 3;
          double eps = 1e-5;
          if (part == 1) eps *= len[side];
          if (part == 2) eps /= h;
          if (part == 3) eps *= len[side] / h;
          Eigen::Matrix<double, 24, 1> yp = y0, ym = y0;
          yp[12 * side + j] += eps;
          ym[12 * side + j] -= eps;
          double ap, am;
          Eigen::Matrix<double, 1, 24> gp, gm;
          if (!eval_pair(pr, yp, ap, gp) || !eval_pair(pr, ym, am, gm))
            throw std::runtime_error("TimeStepper: a DCOL solve failed while differentiating a contact");
          H.col(12 * side + j) = (gp - gm).transpose() / (2.0 * eps);
        }
      }
      H = 0.5 * (H + H.transpose()).eval();
      double a0;
      Eigen::Matrix<double, 1, 24> g0;
      eval_pair(pr, y0, a0, g0);
      const double lam = pr.lambda;
      for (int si = 0; si < 2; ++si) {
        if (dyn[si] < 0) continue;
        for (int i = 0; i < 12; ++i) {
          bool i_nu;
          const int ii = map(dyn[si], i, i_nu);
          // constraint row: ∂g/∂(ν or x)
          if (i_nu) {
            A(nn + k, ii) = g0[12 * si + i];
            A(ii, nn + k) = -g0[12 * si + i];
          } else {
            R(nn + k, ii) = -g0[12 * si + i];
          }
          if (!i_nu) continue;
          for (int sj = 0; sj < 2; ++sj) {
            if (dyn[sj] < 0) continue;
            for (int j = 0; j < 12; ++j) {
              bool j_nu;
              const int jj = map(dyn[sj], j, j_nu);
              const double hij = lam * H(12 * si + i, 12 * sj + j);
              if (j_nu) A(ii, jj) -= hij;
              else R(ii, jj) += hij;
            }
          }
        }
      }
    }
    if (!friction.empty()) add_friction_sensitivities(A, R, active);
    const Eigen::MatrixXd dz = A.partialPivLu().solve(R);
    // x_{k+1} = Ψ(ν, x_k)
    J.setZero(nx, nx);
    for (int d = 0; d < nd; ++d) {
      const BodyData& bd = bodies[static_cast<size_t>(dynamic[static_cast<size_t>(d)])];
      const RotationStep& rs = rot[static_cast<size_t>(d)];
      Eigen::Matrix<double, 12, 6> B = Eigen::Matrix<double, 12, 6>::Zero();
      B.block<3, 3>(0, 0) = h * rs.Jr;
      B.block<3, 3>(3, 3) = h * Mat3::Identity();
      B.block<3, 3>(6, 3) = Mat3::Identity();
      B.block<3, 3>(9, 0) = bd.inertia_inv * (skew(rs.F.transpose() * rs.phi) * h * rs.Jr + rs.F.transpose() * rs.dphi);
      J.block(12 * d, 0, 12, nx) = B * dz.block(6 * d, 0, 6, nx);
      J.block<3, 3>(12 * d, 12 * d) += rs.F.transpose();
      J.block<3, 3>(12 * d + 3, 12 * d + 3) += Mat3::Identity();
    }
  }
};

// The options are checked before anything is allocated (a throwing constructor runs no destructor).
TimeStepper::TimeStepper(const TimeSteppingOptions& options) : impl_((options.validate(), new Impl)) {
  impl_->opt = options;
}
TimeStepper::~TimeStepper() { delete impl_; }
TimeStepper::TimeStepper(TimeStepper&& o) noexcept : impl_(o.impl_) { o.impl_ = nullptr; }
TimeStepper& TimeStepper::operator=(TimeStepper&& o) noexcept {
  std::swap(impl_, o.impl_);
  return *this;
}

int TimeStepper::add_body(const dcol::Primitive& shape, double mass, const Mat3& inertia_B, std::string name) {
  if (!(mass > 0.0) || !std::isfinite(mass))
    throw std::invalid_argument("TimeStepper::add_body: mass must be finite and > 0 (got " + std::to_string(mass) + ")");
  if (!inertia_B.allFinite() || (inertia_B - inertia_B.transpose()).norm() > 1e-9 * inertia_B.norm())
    throw std::invalid_argument("TimeStepper::add_body: the inertia must be finite and symmetric");
  Eigen::SelfAdjointEigenSolver<Mat3> es(inertia_B);
  if (!(es.eigenvalues().minCoeff() > 0.0))
    throw std::invalid_argument("TimeStepper::add_body: the inertia must be positive definite");
  BodyData bd;
  bd.shape = shape;
  bd.mass = mass;
  bd.inertia = 0.5 * (inertia_B + inertia_B.transpose());
  bd.inertia_inv = bd.inertia.inverse();
  bd.Jd = 0.5 * bd.inertia.trace() * Mat3::Identity() - bd.inertia;
  bd.dyn = static_cast<int>(impl_->dynamic.size());
  bd.radius = dcol::outer_radius(shape) + dcol::primitive_offset(shape).p.norm();
  bd.name = std::move(name);
  const int id = impl_->scene.add_body(Pose::identity(), false, bd.name);
  impl_->scene.add_shape(id, scene::CollisionShape(shape));
  impl_->dynamic.push_back(id);
  impl_->bodies.push_back(std::move(bd));
  return id;
}

int TimeStepper::add_static_body(const dcol::Primitive& shape, std::string name) {
  BodyData bd;
  bd.shape = shape;
  bd.is_static = true;
  bd.radius = dcol::outer_radius(shape) + dcol::primitive_offset(shape).p.norm();
  bd.name = std::move(name);
  const int id = impl_->scene.add_body(Pose::identity(), true, bd.name);
  impl_->scene.add_shape(id, scene::CollisionShape(shape));
  impl_->bodies.push_back(std::move(bd));
  return id;
}

void TimeStepper::disable_pair(int a, int b) { impl_->scene.disable_body_pair(a, b); }
int TimeStepper::num_bodies() const { return static_cast<int>(impl_->bodies.size()); }
int TimeStepper::num_dynamic() const { return static_cast<int>(impl_->dynamic.size()); }
bool TimeStepper::is_static(int body) const { return impl_->bodies.at(static_cast<size_t>(body)).is_static; }
double TimeStepper::mass(int body) const { return impl_->bodies.at(static_cast<size_t>(body)).mass; }
const Mat3& TimeStepper::inertia(int body) const { return impl_->bodies.at(static_cast<size_t>(body)).inertia; }
const dcol::Primitive& TimeStepper::shape(int body) const { return impl_->bodies.at(static_cast<size_t>(body)).shape; }
const std::string& TimeStepper::name(int body) const { return impl_->bodies.at(static_cast<size_t>(body)).name; }
const TimeSteppingOptions& TimeStepper::options() const { return impl_->opt; }
void TimeStepper::set_options(const TimeSteppingOptions& options) {
  options.validate();
  impl_->opt = options;
}
const scene::Scene& TimeStepper::scene() const { return impl_->scene; }

void TimeStepper::check_state(const std::vector<BodyState>& state) {
  Impl& I = *impl_;
  I.check(state);
  std::vector<Pose> X(state.size());
  for (size_t i = 0; i < state.size(); ++i) X[i] = state[i].X_WB;
  I.set_scene_poses(X);
  I.X0 = X;
  const std::vector<std::pair<int, int>> cand = I.scene.candidate_pairs(0.0);
  for (const auto& [a, b] : cand) {
    Impl::Pair pr;
    pr.a = a;
    pr.b = b;
    pr.da = I.bodies[static_cast<size_t>(a)].dyn;
    pr.db = I.bodies[static_cast<size_t>(b)].dyn;
    double alpha = 0.0;
    Eigen::Matrix<double, 1, 24> g;
    const bool ok = I.eval_pair(pr, Eigen::Matrix<double, 24, 1>::Zero(), alpha, g);
    if (!ok || alpha < 1.0 - I.opt.penetration_tolerance) {
      std::ostringstream os;
      os << "TimeStepper: " << body_label(I.bodies[static_cast<size_t>(a)], a) << " and "
         << body_label(I.bodies[static_cast<size_t>(b)], b) << " interpenetrate";
      if (ok) os << " (alpha = " << alpha << " < 1)";
      else os << " (the DCOL solve failed: coincident origins?)";
      throw std::invalid_argument(os.str());
    }
  }
}

StepReport TimeStepper::step(std::vector<BodyState>& state, Eigen::MatrixXd* jacobian) {
  StepReport rep = step_once(state, jacobian);
  const TimeSteppingOptions saved = impl_->opt;
  if (rep.converged || saved.max_substeps <= 1) return rep;
  struct Restore {
    Impl* impl;
    TimeSteppingOptions opt;
    ~Restore() { impl->opt = opt; }
  } restore{impl_, saved};
  for (int sub = 2; sub <= saved.max_substeps; sub *= 2) {
    impl_->opt.dt = saved.dt / sub;
    std::vector<BodyState> x = state;
    Eigen::MatrixXd J, Jk;
    if (jacobian) J = Eigen::MatrixXd::Identity(tangent_dimension(), tangent_dimension());
    StepReport agg;
    agg.converged = true;
    agg.min_alpha = kInf;
    agg.substeps = sub;
    agg.iterations = rep.iterations;
    agg.collision_seconds = rep.collision_seconds;
    for (int i = 0; i < sub && agg.converged; ++i) {
      const StepReport r = step_once(x, jacobian ? &Jk : nullptr);
      agg.converged = r.converged;
      agg.iterations += r.iterations;
      agg.collision_seconds += r.collision_seconds;
      agg.residual = std::max(agg.residual, r.residual);
      agg.pairs = std::max(agg.pairs, r.pairs);
      agg.active = std::max(agg.active, r.active);
      agg.max_impulse = std::max(agg.max_impulse, r.max_impulse);
      if (r.converged) agg.min_alpha = std::min(agg.min_alpha, r.min_alpha);
      if (jacobian && r.converged) J = (Jk * J).eval();
    }
    if (agg.converged) {
      state = x;
      if (jacobian) *jacobian = J;
      return agg;
    }
    rep.iterations = agg.iterations;
    rep.collision_seconds = agg.collision_seconds;
  }
  return rep;
}

StepReport TimeStepper::step_once(std::vector<BodyState>& state, Eigen::MatrixXd* jacobian) {
  Impl& I = *impl_;
  I.collision_seconds = 0.0;
  check_state(state);  // sets X0 and the scene poses
  StepReport rep;
  I.start = state;
  const double h = I.opt.dt;
  const int nd = num_dynamic();
  I.pairs.clear();
  I.cuts.clear();
  I.friction.clear();
  for (const auto& [a, b] : I.scene.candidate_pairs(I.step_margin(state))) I.add_pair(a, b);
  I.resize(I.rows());
  I.free_velocities();
  I.nu = I.nu_free;
  bool ok = I.solve(rep);
  // Pairs the broad phase passes at the end of the step but not at its start join, and the step is solved again.
  for (int pass = 0; ok && pass < 4; ++pass) {
    std::vector<Pose> X1(state.size());
    for (size_t i = 0; i < state.size(); ++i) {
      const BodyData& bd = I.bodies[i];
      X1[i] = bd.is_static ? I.X0[i]
                           : I.end_pose(static_cast<int>(i), Vec3::Zero(), Vec3::Zero(), I.nu.segment<3>(6 * bd.dyn),
                                        I.nu.segment<3>(6 * bd.dyn + 3), nullptr);
    }
    I.set_scene_poses(X1);
    const size_t before = I.pairs.size();
    for (const auto& [a, b] : I.scene.candidate_pairs(I.opt.margin)) I.add_pair(a, b);
    if (I.pairs.size() == before) break;
    I.cuts.clear();
    const Eigen::VectorXd nu = I.nu;
    I.resize(I.rows());
    I.nu = nu;
    ok = I.solve(rep);
  }
  // Friction: the contacts of the frictionless solution get their tangential impulses, and the
  // step is solved again until the normal impulses settle.
  if (I.opt.friction > 0.0) {
    bool settled = false;
    // The plain iteration while it contracts (each change at most half the one before); an active
    // set that alternates between two solves (a rocking contact) makes it cycle, and from the
    // first pass that does not contract on the bounds are running means of the solutions.
    double previous = std::numeric_limits<double>::infinity();
    int averaged_from = -1;
    for (int pass = 0; ok && pass < I.opt.friction_passes; ++pass) {
      const double change = I.update_friction(averaged_from < 0 ? 1.0 : 1.0 / (pass - averaged_from + 1));
      double scale = 0.0;
      for (const auto& fc : I.friction) scale = std::max(scale, fc.mu_Pn);
      if (I.friction.empty() || (pass > 0 && change <= I.opt.friction_tolerance * (1e-12 + scale))) {
        settled = true;
        break;
      }
      if (averaged_from < 0 && pass >= 2 && !(change <= 0.5 * previous)) averaged_from = pass;
      previous = change;
      I.cuts.clear();
      const Eigen::VectorXd nu = I.nu;
      I.resize(I.rows());
      I.nu = nu;
      ok = I.solve(rep);
    }
    if (ok && !settled) {
      ok = false;
      rep.message = "the normal impulses with friction did not settle in " + std::to_string(I.opt.friction_passes) + " solves";
    }
  }
  rep.pairs = static_cast<int>(I.pairs.size());
  rep.collision_seconds = I.collision_seconds;
  if (ok) {
    // Frictionless inelastic impulses take kinetic energy out (they project the free velocities
    // onto the admissible ones in the mass metric, to first order in h): a solution that adds more
    // than 1 % to the free step's is a spurious one (a linear constraint from across a kink that
    // no longer applies) and the step fails (and is retried as substeps).
    double e_free = 0.0, e_new = 0.0;
    for (int d = 0; d < nd; ++d) {
      const BodyData& bd = I.bodies[static_cast<size_t>(I.dynamic[static_cast<size_t>(d)])];
      auto energy = [&](const Eigen::VectorXd& v) {
        return 0.5 * bd.mass * v.segment<3>(6 * d + 3).squaredNorm() +
               0.5 * v.segment<3>(6 * d).dot(bd.inertia * v.segment<3>(6 * d));
      };
      e_free += energy(I.nu_free);
      e_new += energy(I.nu);
    }
    if (e_new > 1.01 * e_free + 1e-12) {
      ok = false;
      std::ostringstream os;
      os << "the contact impulses added kinetic energy (" << e_free << " -> " << e_new << ")";
      rep.message = os.str();
    }
  }
  rep.converged = ok;
  if (!ok) return rep;
  rep.min_alpha = kInf;
  for (const auto& pr : I.pairs) {
    rep.min_alpha = std::min(rep.min_alpha, pr.alpha);
    if (pr.lambda > pr.s) ++rep.active;
    rep.max_impulse = std::max(rep.max_impulse, pr.lambda);
  }
  // rot[] holds the rotation step at the solution (eval_dynamics at the last iterate).
  if (jacobian) I.step_jacobian(*jacobian);
  for (int d = 0; d < nd; ++d) {
    const int id = I.dynamic[static_cast<size_t>(d)];
    const BodyData& bd = I.bodies[static_cast<size_t>(id)];
    BodyState& x = state[static_cast<size_t>(id)];
    const RotationStep& rs = I.rot[static_cast<size_t>(d)];
    Mat3 R = x.X_WB.R * rs.F;
    // re-orthonormalize (rounding drift over many steps)
    const Eigen::Quaterniond q(R);
    x.X_WB.R = q.normalized().toRotationMatrix();
    x.X_WB.p += h * I.nu.segment<3>(6 * d + 3);
    x.v_W = I.nu.segment<3>(6 * d + 3);
    x.omega_B = bd.inertia_inv * (rs.F.transpose() * rs.phi);
  }
  rep.collision_seconds = I.collision_seconds;
  return rep;
}

Rollout TimeStepper::rollout(const std::vector<BodyState>& initial, int steps, bool jacobian) {
  if (steps < 0) throw std::invalid_argument("TimeStepper::rollout: steps must be >= 0");
  check_state(initial);
  Rollout out;
  out.states.reserve(static_cast<size_t>(steps) + 1);
  out.states.push_back(initial);
  const int nx = tangent_dimension();
  if (jacobian) out.jacobian = Eigen::MatrixXd::Identity(nx, nx);
  Eigen::MatrixXd Jk;
  std::vector<BodyState> x = initial;
  out.converged = true;
  for (int k = 0; k < steps; ++k) {
    StepReport rep = step(x, jacobian ? &Jk : nullptr);
    out.reports.push_back(rep);
    if (!rep.converged) {
      out.converged = false;
      break;
    }
    if (jacobian) out.jacobian = (Jk * out.jacobian).eval();
    out.states.push_back(x);
  }
  return out;
}

void TimeStepper::retract(std::vector<BodyState>& state, const Eigen::VectorXd& delta) const {
  if (delta.size() != tangent_dimension())
    throw std::invalid_argument("TimeStepper::retract: delta has " + std::to_string(delta.size()) + " entries, expected " +
                                std::to_string(tangent_dimension()));
  if (state.size() != impl_->bodies.size()) throw std::invalid_argument("TimeStepper::retract: wrong state size");
  for (int d = 0; d < num_dynamic(); ++d) {
    BodyState& x = state[static_cast<size_t>(impl_->dynamic[static_cast<size_t>(d)])];
    x.X_WB.R = x.X_WB.R * exp_so3(delta.segment<3>(12 * d));
    x.X_WB.p += delta.segment<3>(12 * d + 3);
    x.v_W += delta.segment<3>(12 * d + 6);
    x.omega_B += delta.segment<3>(12 * d + 9);
  }
}

std::vector<TimeStepper::PairAlpha> TimeStepper::all_pair_alphas(const std::vector<BodyState>& state) const {
  impl_->check(state);
  std::vector<PairAlpha> out;
  auto res = std::make_unique<dcol::ContactResult>();
  const auto& B = impl_->bodies;
  for (int a = 0; a < num_bodies(); ++a)
    for (int b = a + 1; b < num_bodies(); ++b) {
      if (!impl_->scene.may_collide(a, b)) continue;
      PairAlpha p;
      p.a = a;
      p.b = b;
      dcol::solve_contact(B[static_cast<size_t>(a)].shape, state[static_cast<size_t>(a)].X_WB, B[static_cast<size_t>(b)].shape,
                          state[static_cast<size_t>(b)].X_WB, *res);
      if (!res->ok())
        dcol::solve_contact(B[static_cast<size_t>(b)].shape, state[static_cast<size_t>(b)].X_WB,
                            B[static_cast<size_t>(a)].shape, state[static_cast<size_t>(a)].X_WB, *res);
      p.ok = res->ok();
      p.alpha = res->alpha;
      out.push_back(p);
    }
  return out;
}

Vec3 TimeStepper::linear_momentum(const std::vector<BodyState>& state) const {
  Vec3 P = Vec3::Zero();
  for (int id : impl_->dynamic) P += impl_->bodies[static_cast<size_t>(id)].mass * state.at(static_cast<size_t>(id)).v_W;
  return P;
}

Vec3 TimeStepper::angular_momentum(const std::vector<BodyState>& state) const {
  Vec3 L = Vec3::Zero();
  for (int id : impl_->dynamic) {
    const BodyData& bd = impl_->bodies[static_cast<size_t>(id)];
    const BodyState& x = state.at(static_cast<size_t>(id));
    L += x.X_WB.p.cross(bd.mass * x.v_W) + x.X_WB.R * (bd.inertia * x.omega_B);
  }
  return L;
}

double TimeStepper::kinetic_energy(const std::vector<BodyState>& state) const {
  double E = 0.0;
  for (int id : impl_->dynamic) {
    const BodyData& bd = impl_->bodies[static_cast<size_t>(id)];
    const BodyState& x = state.at(static_cast<size_t>(id));
    E += sim::kinetic_energy(bd.mass, bd.inertia, x);
  }
  return E;
}

}  // namespace diffcol::sim
