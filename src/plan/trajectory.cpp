// The direct-transcription NLP over a scene (include/diffcol/plan/trajectory.hpp, docs/plan.md).
#include "diffcol/plan/trajectory.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <optional>
#include <unordered_map>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/hessians.hpp"
#include "diffcol/scene/dispatch.hpp"

namespace diffcol::plan {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("plan: " + what); }

std::uint64_t key(int a, int b) {
  if (a > b) std::swap(a, b);
  return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
}

// J_l(r) = I + a(t)·S + b(t)·S², S = r^, t = ‖r‖: a = (1 − cos t)/t², b = (t − sin t)/t³, and
// a'(t)/t, b'(t)/t. Below t = 0.1 the closed forms lose digits to cancellation (b a thousandth at
// t = 1e-6), so there the four are Taylor series (truncated below 1e-14 relative for a, b; 1e-15
// absolute for a'/t, b'/t).
struct LeftJacobianCoefficients {
  double a, b, a1, b1;
};
LeftJacobianCoefficients left_jacobian_coefficients(double t2) {
  if (t2 < 1e-2) {
    const double t4 = t2 * t2, t6 = t4 * t2;
    return {0.5 - t2 / 24.0 + t4 / 720.0 - t6 / 40320.0, 1.0 / 6.0 - t2 / 120.0 + t4 / 5040.0 - t6 / 362880.0,
            -1.0 / 12.0 + t2 / 180.0 - t4 / 6720.0 + t6 / 453600.0,
            -1.0 / 60.0 + t2 / 1260.0 - t4 / 60480.0 + t6 / 4989600.0};
  }
  const double t = std::sqrt(t2), c = std::cos(t), s = std::sin(t);
  return {(1.0 - c) / t2, (t - s) / (t2 * t), (t * s - 2.0 + 2.0 * c) / (t2 * t2),
          (t * (1.0 - c) - 3.0 * t + 3.0 * s) / (t2 * t2 * t)};
}

// The left Jacobian of SO(3): d/dt exp(r^) = (J_l(r)·ṙ)^·exp(r^).
Mat3 so3_left_jacobian(const Vec3& r) {
  const LeftJacobianCoefficients k = left_jacobian_coefficients(r.squaredNorm());
  const Mat3 S = skew(r);
  return Mat3::Identity() + k.a * S + k.b * S * S;
}

// ∂J_l(r)/∂r_a.
Mat3 so3_left_jacobian_derivative(const Vec3& r, int axis) {
  const LeftJacobianCoefficients k = left_jacobian_coefficients(r.squaredNorm());
  const Mat3 S = skew(r), E = skew(Vec3::Unit(axis));
  return k.a1 * r[axis] * S + k.a * E + k.b1 * r[axis] * S * S + k.b * (E * S + S * E);
}

// The world twist η(δ) with exp(η^)·X(c) = X(c + δ), to second order: η = A·δ + ½·δᵀ∇²η·δ.
// Fills A (6 × n) and S = Σ_k g_k·∇²η_k (n × n) for a world-twist gradient g = [g_ω; g_v].
// With ω(δ) and the body origin's step Δp(δ) (linear here), v = Δp − ω×p − ½·ω×Δp + O(3);
// pose6: ω = J_l(r)·δ_r + ½·Σ_ab ∂_a J_l(r)[:, b]·δ_a·δ_b + O(3).
void free_body_world_chain(const FreeBody& fb, const double* c, const Vec6& g, Eigen::Matrix<double, 6, 6>& A,
                           Eigen::Matrix<double, 6, 6>& S) {
  const int n = num_coordinates(fb.parametrization);
  const Vec3 p = free_body_pose(fb, c).p;
  Eigen::Matrix<double, 3, 6> Jw = Eigen::Matrix<double, 3, 6>::Zero(), Jp = Eigen::Matrix<double, 3, 6>::Zero();
  switch (fb.parametrization) {
    case Parametrization::translation: Jp.leftCols<3>().setIdentity(); break;
    case Parametrization::planar:
      Jp(0, 0) = 1.0;
      Jp(1, 1) = 1.0;
      Jw(2, 2) = 1.0;
      break;
    case Parametrization::pose6:
      Jp.leftCols<3>().setIdentity();
      Jw.rightCols<3>() = so3_left_jacobian(Vec3(c[3], c[4], c[5]));
      break;
  }
  A.setZero();
  A.topRows<3>() = Jw;
  A.bottomRows<3>() = Jp + skew(p) * Jw;
  const Vec3 gw = g.head<3>(), gv = g.tail<3>();
  S.setZero();
  // −½·g_v·(ω1 × Δp): the quadratic form δᵀMδ, Hessian M + Mᵀ
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const double mab = -0.5 * gv.dot(Vec3(Jw.col(a)).cross(Vec3(Jp.col(b))));
      S(a, b) += mab;
      S(b, a) += mab;
    }
  if (fb.parametrization == Parametrization::pose6) {
    // ω's curvature, weighted by g_ω + g_v × p (v carries p × ω)
    const Vec3 w = gw + gv.cross(p);
    const Vec3 r(c[3], c[4], c[5]);
    Mat3 T;  // T(a, b) = wᵀ ∂_a J_l[:, b]
    for (int a = 0; a < 3; ++a) T.row(a) = w.transpose() * so3_left_jacobian_derivative(r, a);
    S.block<3, 3>(3, 3) += 0.5 * (T + T.transpose());
  }
}

void check_finite(const Eigen::VectorXd& v, const char* name) {
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) fail(std::string(name) + "[" + std::to_string(i) + "] is not finite");
}

void check_size(const Eigen::VectorXd& v, int n, const char* name, bool allow_empty) {
  if (allow_empty && v.size() == 0) return;
  if (v.size() != n)
    fail(std::string(name) + " has " + std::to_string(v.size()) + " entries, expected " + std::to_string(n));
}

// Bounds: sizes, no NaN, lower ≤ upper (±inf allowed). Empty: ±inf (or `lo`, `hi` defaults).
void check_bounds(Eigen::VectorXd& lower, Eigen::VectorXd& upper, int n, const char* name) {
  check_size(lower, n, (std::string(name) + "_lower").c_str(), true);
  check_size(upper, n, (std::string(name) + "_upper").c_str(), true);
  if (lower.size() == 0) lower = Eigen::VectorXd::Constant(n, -kInf);
  if (upper.size() == 0) upper = Eigen::VectorXd::Constant(n, kInf);
  for (int i = 0; i < n; ++i) {
    if (std::isnan(lower[i]) || std::isnan(upper[i]))
      fail(std::string(name) + " bound " + std::to_string(i) + " is NaN");
    if (lower[i] > upper[i])
      fail(std::string(name) + " bound " + std::to_string(i) + ": lower " + std::to_string(lower[i]) + " > upper " +
           std::to_string(upper[i]));
  }
}

double measure_floor(CollisionMeasure m) { return m == CollisionMeasure::alpha ? 1.0 : 0.0; }

}  // namespace

const char* parametrization_name(Parametrization p) {
  switch (p) {
    case Parametrization::translation: return "translation";
    case Parametrization::planar: return "planar";
    case Parametrization::pose6: return "pose6";
  }
  return "unknown";
}

int num_coordinates(Parametrization p) { return p == Parametrization::pose6 ? 6 : 3; }

const char* collision_measure_name(CollisionMeasure m) {
  switch (m) {
    case CollisionMeasure::alpha: return "alpha";
    case CollisionMeasure::gap: return "gap";
    case CollisionMeasure::distance: return "distance";
  }
  return "unknown";
}

Pose free_body_pose(const FreeBody& b, const double* c) {
  Pose X;
  switch (b.parametrization) {
    case Parametrization::translation:
      X.R = b.reference.R;
      X.p = Vec3(c[0], c[1], c[2]);
      break;
    case Parametrization::planar: {
      const double ct = std::cos(c[2]), st = std::sin(c[2]);
      Mat3 Rz;
      Rz << ct, -st, 0.0, st, ct, 0.0, 0.0, 0.0, 1.0;
      X.R = Rz * b.reference.R;
      X.p = Vec3(c[0], c[1], b.reference.p.z());
      break;
    }
    case Parametrization::pose6:
      X.R = so3_exp(Vec3(c[3], c[4], c[5])) * b.reference.R;
      X.p = Vec3(c[0], c[1], c[2]);
      break;
  }
  return X;
}

void free_body_jacobian(const FreeBody& b, const double* c, Eigen::Matrix<double, 6, Eigen::Dynamic>& J) {
  const int n = num_coordinates(b.parametrization);
  J.setZero(6, n);
  switch (b.parametrization) {
    case Parametrization::translation:
      J.bottomRows<3>().setIdentity();
      break;
    case Parametrization::planar:
      J(3, 0) = 1.0;
      J(4, 1) = 1.0;
      J(2, 2) = 1.0;
      break;
    case Parametrization::pose6:
      J.block<3, 3>(3, 0).setIdentity();
      J.block<3, 3>(0, 3) = so3_left_jacobian(Vec3(c[3], c[4], c[5]));
      break;
  }
}

Eigen::VectorXd free_body_coordinates(const FreeBody& b, const Pose& X_WB) {
  Eigen::VectorXd c(num_coordinates(b.parametrization));
  const Mat3 Rrel = X_WB.R * b.reference.R.transpose();
  switch (b.parametrization) {
    case Parametrization::translation:
      c = X_WB.p;
      break;
    case Parametrization::planar:
      c << X_WB.p.x(), X_WB.p.y(), std::atan2(Rrel(1, 0), Rrel(0, 0));
      break;
    case Parametrization::pose6:
      c << X_WB.p, so3_log(Rrel);
      break;
  }
  return c;
}

struct TrajectoryProblem::Impl {
  scene::Scene* scene = nullptr;
  TrajectorySpec spec;
  int N = 0, nq = 0, ns = 0, nu = 0, nz = 0, nrobot = 0, nr = 0;
  std::vector<int> free_offset;     // per free body, its first q entry
  std::vector<int> body_free;       // scene body -> free body index or -1
  std::vector<char> body_robot;     // scene body is a link of the robot
  std::vector<std::pair<int, int>> pairs;
  std::vector<double> caps;
  std::unordered_map<std::uint64_t, int> pair_index;
  std::vector<std::vector<int>> pair_cols;  // q columns per pair, sorted
  std::vector<int> pair_nnz_offset;         // within a knot's block
  int knot_nnz = 0;
  std::vector<int> knots;                          // knots with rows at t = 0
  std::vector<std::pair<int, double>> samples;     // (k, t): rows at (1 − t)·q_k + t·q_{k+1}
  std::vector<Eigen::Index> sample_nnz_offset;     // into coll_jac
  Eigen::Index coll_nnz = 0;
  std::vector<int> dyn_rows, dyn_cols;  // one interval's pattern (relative)
  // evaluation cache
  Eigen::VectorXd cache_x;
  bool have_values = false, have_jac = false;
  Eigen::VectorXd coll_values, coll_jac;  // rows, nnz
  bool fd = false;
  double fd_step = 1e-6;
  double coll_seconds = 0.0;
  long coll_queries = 0;
  scene::QueryResult qr;
  scene::RobotQueryResult rqr;
  Eigen::Matrix<double, 6, Eigen::Dynamic> G;
  Eigen::VectorXd knot_values, fd_plus, fd_minus;
  Eigen::MatrixXd knot_jac;  // P × nq
  Eigen::VectorXd qtmp, qsample, dyn_scratch;

  // exact Lagrangian Hessian (lagrangian_hessian_values)
  struct HessianPair {
    std::optional<idcol::ContactPair> pair;
    Pose X_S1R1, X_S2R2;
  };
  std::vector<HessianPair> hess_pairs;
  std::vector<Eigen::MatrixXd> hess_diag, hess_cross;  // per knot: z_k × z_k, z_k × z_{k−1}
  std::vector<std::vector<Eigen::MatrixXd>> hess_far;  // per knot: z_k × z_{k−j}, j = 2..bandwidth (k ≥ j)
  std::vector<HessianEntry> hess_entries;
  Eigen::MatrixXd hess_q, hess_dyn;
  Eigen::VectorXd hess_z0, hess_z1;
  idcol::ContactDerivatives hess_d;
  idcol::ContactHessians hess_h;
  struct HessianSide {  // one body of a pair: its q columns [off, off + n), A (6 × n) and S (n × n)
    int off = -1, n = 0;
    Eigen::Matrix<double, 6, Eigen::Dynamic> A;
    Eigen::MatrixXd S;
  };
  HessianSide hess_side[2];
  Eigen::Matrix<double, 6, Eigen::Dynamic> hess_HA[2][2];
  Eigen::Matrix<double, 6, 6> hess_A6, hess_S6;

  int P() const { return static_cast<int>(pairs.size()); }
  int collision_rows() const { return static_cast<int>(samples.size()) * P(); }
  int dyn_row_count() const { return (N - 1) * nr; }

  void apply(const Eigen::Ref<const Eigen::VectorXd>& q) {
    if (spec.robot) spec.robot->set_configuration(q.head(nrobot), spec.robot->base_pose());
    for (size_t i = 0; i < spec.bodies.size(); ++i)
      scene->set_body_pose(spec.bodies[i].body, free_body_pose(spec.bodies[i], q.data() + free_offset[i]));
  }

  double measure_of(const scene::PairResult& r, bool& use_gap) const {
    use_gap = false;
    switch (spec.collision.measure) {
      case CollisionMeasure::alpha: return r.alpha;
      case CollisionMeasure::gap: return r.gap;
      case CollisionMeasure::distance:
        if (r.has_distance) return r.distance;
        use_gap = true;  // touching or overlapping α-family pair: d_D, 0 at contact like the distance
        return r.gap;
    }
    return 0.0;
  }

  // Values (P) at q and, when jac, the dense P × nq Jacobian (analytic), by one query.
  void query_knot(const Eigen::Ref<const Eigen::VectorXd>& q, bool jac, Eigen::VectorXd& values, Eigen::MatrixXd* J) {
    apply(q);
    scene::QueryOptions o;
    o.margin = spec.collision.activation_margin;
    o.euclidean = spec.collision.measure == CollisionMeasure::distance;
    o.derivatives = jac;
    o.num_threads = spec.collision.num_threads;
    const scene::QueryResult* res;
    if (spec.robot) {
      spec.robot->query(o, rqr, jac);
      res = &rqr.scene;
    } else {
      scene->query(o, qr);
      res = &qr;
    }
    ++coll_queries;
    values.resize(P());
    for (int p = 0; p < P(); ++p) values[p] = caps[static_cast<size_t>(p)];
    if (J) J->setZero(P(), nq);
    for (size_t i = 0; i < res->pairs.size(); ++i) {
      const scene::PairResult& r = res->pairs[i];
      const auto it = pair_index.find(key(r.shape1, r.shape2));
      if (it == pair_index.end()) continue;
      const int p = it->second;
      if (r.status == diffcol::SolveStatus::coincident_origins) {
        values[p] = std::min(caps[static_cast<size_t>(p)], measure_floor(spec.collision.measure) - 1.0);
        continue;
      }
      bool use_gap = false;
      const double m = measure_of(r, use_gap);
      if (!r.ok() || !std::isfinite(m)) {
        values[p] = std::min(caps[static_cast<size_t>(p)], measure_floor(spec.collision.measure) - 1.0);
        continue;
      }
      if (m >= caps[static_cast<size_t>(p)]) continue;
      values[p] = m;
      if (!J) continue;
      const scene::PairDerivatives& d = res->derivatives[i];
      if (!d.ok) continue;
      const scene::RowVec12& Jx = spec.collision.measure == CollisionMeasure::alpha ? d.J_alpha
                                  : (spec.collision.measure == CollisionMeasure::gap || use_gap) ? d.J_gap
                                                                                                 : d.J_distance;
      if (spec.robot) {
        const scene::ReusableMatrix& Jq = spec.collision.measure == CollisionMeasure::alpha ? rqr.J_alpha_q
                                    : (spec.collision.measure == CollisionMeasure::gap || use_gap) ? rqr.J_gap_q
                                                                                                   : rqr.J_distance_q;
        J->row(p).head(nrobot) += Jq.row(static_cast<Eigen::Index>(i));
      }
      const int bodies[2] = {r.body1, r.body2};
      for (int s = 0; s < 2; ++s) {
        const int f = body_free[static_cast<size_t>(bodies[s])];
        if (f < 0) continue;
        Eigen::Matrix<double, 1, 6> block = Jx.segment<6>(6 * s);
        express_in_frame(block, ReferenceFrame::local_world_aligned, scene->body(bodies[s]).X_WB);
        const FreeBody& fb = spec.bodies[static_cast<size_t>(f)];
        free_body_jacobian(fb, q.data() + free_offset[static_cast<size_t>(f)], G);
        J->row(p).segment(free_offset[static_cast<size_t>(f)], G.cols()) += block * G;
      }
    }
  }

  // Collision rows of every constrained knot (and their Jacobian values) at x.
  void evaluate(const Eigen::VectorXd& x, bool jac) {
    if (cache_x.size() == x.size() && cache_x == x && have_values && (have_jac || !jac)) return;
    const auto t0 = Clock::now();
    cache_x = x;
    have_values = true;
    have_jac = jac;
    coll_values.resize(collision_rows());
    coll_jac.resize(coll_nnz);
    for (size_t i = 0; i < samples.size(); ++i) {
      const auto [k, t] = samples[i];
      qsample = x.segment(static_cast<Eigen::Index>(k) * nz, nq);
      if (t > 0.0) qsample = (1.0 - t) * qsample + t * x.segment(static_cast<Eigen::Index>(k + 1) * nz, nq);
      const Eigen::VectorXd& q = qsample;
      if (!jac) {
        query_knot(q, false, knot_values, nullptr);
      } else if (!fd) {
        query_knot(q, true, knot_values, &knot_jac);
      } else {
        query_knot(q, false, knot_values, nullptr);
        knot_jac.setZero(P(), nq);
        qtmp = q;
        for (int j = 0; j < nq; ++j) {
          const double h = fd_step * std::max(1.0, std::abs(q[j]));
          qtmp[j] = q[j] + h;
          query_knot(qtmp, false, fd_plus, nullptr);
          qtmp[j] = q[j] - h;
          query_knot(qtmp, false, fd_minus, nullptr);
          qtmp[j] = q[j];
          knot_jac.col(j) = (fd_plus - fd_minus) / (2.0 * h);
        }
      }
      coll_values.segment(static_cast<Eigen::Index>(i) * P(), P()) = knot_values;
      if (jac) {
        double* out = coll_jac.data() + sample_nnz_offset[i];
        for (int p = 0; p < P(); ++p) {
          const std::vector<int>& cols = pair_cols[static_cast<size_t>(p)];
          if (t == 0.0) {
            for (int c : cols) *out++ = knot_jac(p, c);
          } else {
            for (int c : cols) *out++ = (1.0 - t) * knot_jac(p, c);
            for (int c : cols) *out++ = t * knot_jac(p, c);
          }
        }
      }
    }
    coll_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  }

  void check_x(const Eigen::VectorXd& x) const {
    if (x.size() != static_cast<Eigen::Index>(N) * nz)
      fail("x has " + std::to_string(x.size()) + " entries, expected " + std::to_string(N * nz));
  }

  std::string pair_name(int p) const {
    const auto& pr = pairs[static_cast<size_t>(p)];
    auto name = [&](int s) {
      const scene::SceneShape& sh = scene->shape(s);
      return sh.name.empty() ? "shape " + std::to_string(s) : "'" + sh.name + "'";
    };
    return name(pr.first) + " and " + name(pr.second);
  }

  // Σ_p w_p·∇²c_p(q) (nq × nq) into hess_q: the collision rows at configuration q, weights w.
  void collision_hessian(const Eigen::Ref<const Eigen::VectorXd>& q, const double* w) {
    hess_q.setZero(nq, nq);
    apply(q);
    const bool alpha = spec.collision.measure == CollisionMeasure::alpha;
    for (int p = 0; p < P(); ++p) {
      if (w[p] == 0.0) continue;
      HessianPair& hp = hess_pairs[static_cast<size_t>(p)];
      const scene::SceneShape& s1 = scene->shape(pairs[static_cast<size_t>(p)].first);
      const scene::SceneShape& s2 = scene->shape(pairs[static_cast<size_t>(p)].second);
      const Pose& X_WB1 = scene->body(s1.body).X_WB;
      const Pose& X_WB2 = scene->body(s2.body).X_WB;
      const idcol::ContactSolution& sol = hp.pair->solve(X_WB1 * (s1.X_BS * hp.X_S1R1), X_WB2 * (s2.X_BS * hp.X_S2R2));
      if (sol.status != diffcol::SolveStatus::ok) continue;
      const double m = alpha ? sol.alpha : sol.gap;
      if (!std::isfinite(m) || m >= caps[static_cast<size_t>(p)]) continue;  // capped: constant row
      idcol::contact_derivatives(sol, hess_d, ReferenceFrame::world);
      idcol::contact_hessians(hp.pair->shape1(), hp.pair->shape2(), sol, hess_h, ReferenceFrame::world,
                              idcol::HessianOutputs::scalars);
      if (!hess_d.ok() || !hess_h.ok()) continue;
      const idcol::Mat12& H = alpha ? hess_h.H_alpha : hess_h.H_gap;
      const Vec6 g[2] = {alpha ? hess_d.J_alpha_X1.transpose() : hess_d.J_gap_X1.transpose(),
                         alpha ? hess_d.J_alpha_X2.transpose() : hess_d.J_gap_X2.transpose()};
      const int bodies[2] = {s1.body, s2.body};
      for (int i = 0; i < 2; ++i) {
        HessianSide& side = hess_side[i];
        side.off = -1;
        const int f = body_free[static_cast<size_t>(bodies[i])];
        if (f >= 0) {
          const FreeBody& fb = spec.bodies[static_cast<size_t>(f)];
          side.off = free_offset[static_cast<size_t>(f)];
          side.n = num_coordinates(fb.parametrization);
          free_body_world_chain(fb, q.data() + side.off, g[i], hess_A6, hess_S6);
          side.A = hess_A6.leftCols(side.n);
          side.S = hess_S6.topLeftCorner(side.n, side.n);
        } else if (body_robot[static_cast<size_t>(bodies[i])]) {
          side.off = 0;
          side.n = nrobot;
          robot_link_chain(spec.robot->body_link(bodies[i]), g[i], side);
        }
        if (side.off >= 0) hess_q.block(side.off, side.off, side.n, side.n) += w[p] * side.S;
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          const HessianSide &a = hess_side[i], &b = hess_side[j];
          if (a.off < 0 || b.off < 0) continue;
          Eigen::Matrix<double, 6, Eigen::Dynamic>& HA = hess_HA[i][j];  // sized once per body kind
          HA.noalias() = H.block<6, 6>(6 * i, 6 * j) * b.A;
          hess_q.block(a.off, b.off, a.n, b.n).noalias() += w[p] * a.A.transpose() * HA;
        }
    }
  }

  // A robot link's world twist η(δ) with exp(η^)·X_WL(q) = X_WL(q + δ): by the product of
  // exponentials X_WL(q + δ) = exp(δ_1·ξ_1^)···exp(δ_n·ξ_n^)·X_WL(q), ξ_a the columns of the
  // spatial Jacobian (joints in chain order, root first), and Baker–Campbell–Hausdorff,
  // η = Σ_a ξ_a·δ_a + ½·Σ_{a<b} [ξ_a, ξ_b]·δ_a·δ_b + O(3). Fills A = J and S = Σ_k g_k·∇²η_k.
  void robot_link_chain(int link, const Vec6& g, HessianSide& side) {
    spec.robot->model().link_jacobian(spec.robot->link_poses(), link, ReferenceFrame::world, side.A);
    side.S.setZero(nrobot, nrobot);
    const Vec3 gw = g.head<3>(), gv = g.tail<3>();
    for (int a = 0; a < nrobot; ++a) {
      const Vec3 wa = side.A.col(a).head<3>(), va = side.A.col(a).tail<3>();
      if (wa.isZero(0.0) && va.isZero(0.0)) continue;  // not on the link's path
      for (int b = a + 1; b < nrobot; ++b) {
        const Vec3 wb = side.A.col(b).head<3>(), vb = side.A.col(b).tail<3>();
        // [ξ_a, ξ_b] = (ω_a × ω_b, ω_a × v_b − ω_b × v_a)
        const double s = 0.5 * (gw.dot(wa.cross(wb)) + gv.dot(wa.cross(vb) - wb.cross(va)));
        side.S(a, b) += s;
        side.S(b, a) += s;
      }
    }
  }

  // Throws when configuration q (a fixed knot) is in collision.
  void check_fixed(const Eigen::VectorXd& q, const char* which) {
    query_knot(q, false, knot_values, nullptr);
    const double floor = measure_floor(spec.collision.measure);
    for (int p = 0; p < P(); ++p)
      if (knot_values[p] <= floor) {
        std::ostringstream os;
        os << "the " << which << " configuration is in collision: " << pair_name(p) << " ("
           << collision_measure_name(spec.collision.measure) << " " << knot_values[p] << ", contact at " << floor
           << "); move it out of the obstacle";
        fail(os.str());
      }
  }
};

TrajectoryProblem::TrajectoryProblem(scene::Scene& scene, TrajectorySpec spec) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.scene = &scene;
  if (spec.num_knots < 2) fail("num_knots must be at least 2 (got " + std::to_string(spec.num_knots) + ")");
  if (spec.num_extra_states < 0 || spec.num_controls < 0) fail("num_extra_states and num_controls must be ≥ 0");
  if (!spec.robot && spec.bodies.empty()) fail("nothing moves: give a robot or at least one free body");
  m.N = spec.num_knots;
  m.nrobot = spec.robot ? spec.robot->num_positions() : 0;
  m.body_free.assign(static_cast<size_t>(scene.num_bodies()), -1);
  m.body_robot.assign(static_cast<size_t>(scene.num_bodies()), 0);
  if (spec.robot)
    for (int l = 0; l < spec.robot->model().num_links(); ++l) {
      const int b = spec.robot->link_body(l);
      if (b < 0 || b >= scene.num_bodies()) fail("the robot's links are not bodies of this scene");
      m.body_robot[static_cast<size_t>(b)] = 1;
    }
  int offset = m.nrobot;
  for (size_t i = 0; i < spec.bodies.size(); ++i) {
    const FreeBody& fb = spec.bodies[i];
    if (fb.body < 0 || fb.body >= scene.num_bodies())
      fail("free body " + std::to_string(i) + ": unknown scene body " + std::to_string(fb.body));
    if (scene.body(fb.body).is_static) fail("free body " + std::to_string(i) + ": body " + std::to_string(fb.body) + " is static");
    if (m.body_robot[static_cast<size_t>(fb.body)]) fail("free body " + std::to_string(i) + " is a link of the robot");
    if (m.body_free[static_cast<size_t>(fb.body)] >= 0) fail("body " + std::to_string(fb.body) + " is given twice");
    if (const char* why = fb.reference.invalid_reason()) fail("free body " + std::to_string(i) + ": reference pose: " + why);
    m.body_free[static_cast<size_t>(fb.body)] = static_cast<int>(i);
    m.free_offset.push_back(offset);
    offset += num_coordinates(fb.parametrization);
  }
  m.nq = offset;
  m.ns = spec.num_extra_states;
  m.nu = spec.num_controls;
  m.nz = m.nq + m.ns + m.nu;

  // sizes, finiteness, bounds
  check_size(spec.start, m.nq, "start", false);
  check_finite(spec.start, "start");
  check_size(spec.goal, m.nq, "goal", false);
  check_finite(spec.goal, "goal");
  check_size(spec.start_extra, m.ns, "start_extra", true);
  check_finite(spec.start_extra, "start_extra");
  check_size(spec.goal_extra, m.ns, "goal_extra", true);
  check_finite(spec.goal_extra, "goal_extra");
  check_size(spec.coordinate_weights, m.nq, "coordinate_weights", true);
  check_finite(spec.coordinate_weights, "coordinate_weights");
  if (spec.coordinate_weights.size() == 0) spec.coordinate_weights = Eigen::VectorXd::Ones(m.nq);
  if ((spec.coordinate_weights.array() < 0.0).any()) fail("coordinate_weights must be ≥ 0");
  for (const auto& [w, name] : {std::pair{spec.smoothness_weight, "smoothness_weight"}, std::pair{spec.goal_weight, "goal_weight"},
                                std::pair{spec.control_weight, "control_weight"}})
    if (!std::isfinite(w) || w < 0.0) fail(std::string(name) + " must be finite and ≥ 0");
  if (spec.robot) {
    const Eigen::VectorXd lo = spec.robot->model().lower_limits(), hi = spec.robot->model().upper_limits();
    const bool had_lower = spec.q_lower.size() > 0, had_upper = spec.q_upper.size() > 0;
    check_bounds(spec.q_lower, spec.q_upper, m.nq, "q");
    if (!had_lower) spec.q_lower.head(m.nrobot) = lo;
    if (!had_upper) spec.q_upper.head(m.nrobot) = hi;
  } else {
    check_bounds(spec.q_lower, spec.q_upper, m.nq, "q");
  }
  check_bounds(spec.extra_lower, spec.extra_upper, m.ns, "extra");
  check_bounds(spec.control_lower, spec.control_upper, m.nu, "control");
  for (int i = 0; i < m.nq; ++i) {
    if (spec.start[i] < spec.q_lower[i] || spec.start[i] > spec.q_upper[i])
      fail("start[" + std::to_string(i) + "] = " + std::to_string(spec.start[i]) + " is outside its bounds");
    if (spec.fix_goal && (spec.goal[i] < spec.q_lower[i] || spec.goal[i] > spec.q_upper[i]))
      fail("goal[" + std::to_string(i) + "] = " + std::to_string(spec.goal[i]) + " is outside its bounds");
  }
  for (const CostFunction& c : spec.costs)
    if (!c) fail("a user cost is empty");
  if (!spec.cost_hessians.empty() && spec.cost_hessians.size() != spec.costs.size())
    fail("cost_hessians has " + std::to_string(spec.cost_hessians.size()) + " entries, expected 0 or one per cost (" +
         std::to_string(spec.costs.size()) + ")");
  if (spec.cost_hessian_bandwidth < 1) fail("cost_hessian_bandwidth must be ≥ 1");

  // dynamics
  m.nr = spec.dynamics.num_residuals;
  if (m.nr < 0) fail("dynamics.num_residuals must be ≥ 0");
  if (m.nr > 0) {
    if (!spec.dynamics.residual) fail("dynamics.num_residuals > 0 but no residual function");
    if (spec.dynamics.sparsity.empty()) {
      for (int r = 0; r < m.nr; ++r)
        for (int c = 0; c < 2 * m.nz; ++c) {
          m.dyn_rows.push_back(r);
          m.dyn_cols.push_back(c);
        }
    } else {
      for (const auto& [r, c] : spec.dynamics.sparsity) {
        if (r < 0 || r >= m.nr || c < 0 || c >= 2 * m.nz)
          fail("dynamics.sparsity entry (" + std::to_string(r) + ", " + std::to_string(c) + ") out of range");
        m.dyn_rows.push_back(r);
        m.dyn_cols.push_back(c);
      }
    }
  }

  // collision rows
  m.spec = std::move(spec);
  const CollisionConstraints& cc = m.spec.collision;
  if (cc.enabled) {
    if (!std::isfinite(cc.activation_margin) || !(cc.activation_margin > 0.0))
      fail("collision.activation_margin must be finite and > 0");
    if (!std::isfinite(cc.bound)) fail("collision.bound must be finite");
    if (cc.measure == CollisionMeasure::distance && !(cc.bound > 0.0)) fail("collision.bound must be > 0 for the distance");
    if (cc.measure == CollisionMeasure::alpha && !(cc.bound > 0.0)) fail("collision.bound (α ≥ 1 + bound) must be > 0");
    if (cc.num_threads < 0) fail("collision.num_threads must be ≥ 0");
    auto moving = [&](int shape) {
      const int b = scene.shape(shape).body;
      return m.body_free[static_cast<size_t>(b)] >= 0 || m.body_robot[static_cast<size_t>(b)];
    };
    std::vector<std::pair<int, int>> chosen;
    if (cc.selection == PairSelection::all) {
      for (int a = 0; a < scene.num_shapes(); ++a)
        for (int b = a + 1; b < scene.num_shapes(); ++b)
          if ((moving(a) || moving(b)) && scene.may_collide(a, b)) chosen.emplace_back(a, b);
    } else {
      if (!std::isfinite(cc.selection_margin) || cc.selection_margin < 0.0)
        fail("collision.selection_margin must be finite and ≥ 0");
      std::vector<std::uint64_t> seen;
      for (int k = 0; k < m.N; ++k)
        for (int line = 0; line < 2; ++line) {
          const double t = static_cast<double>(k) / (m.N - 1);
          const Eigen::VectorXd q = line == 0 && k < m.N - 1 ? m.spec.start : Eigen::VectorXd((1.0 - t) * m.spec.start + t * m.spec.goal);
          m.apply(q);
          for (const auto& pr : scene.candidate_pairs(cc.selection_margin))
            if ((moving(pr.first) || moving(pr.second))) {
              const std::uint64_t k2 = key(pr.first, pr.second);
              if (std::find(seen.begin(), seen.end(), k2) == seen.end()) {
                seen.push_back(k2);
                chosen.push_back(pr);
              }
            }
        }
      std::sort(chosen.begin(), chosen.end());
    }
    if (chosen.empty())
      fail("no pair of collision shapes may touch a moving body (the scene has " + std::to_string(scene.num_shapes()) +
           " shapes): nothing to constrain; set collision.enabled = false for a problem without obstacles");
    m.pairs = chosen;
    for (size_t p = 0; p < chosen.size(); ++p) {
      const auto [a, b] = chosen[p];
      m.pair_index[key(a, b)] = static_cast<int>(p);
      const auto fam = scene::pair_family(scene.shape(a).shape, scene.shape(b).shape);
      if (cc.measure != CollisionMeasure::distance && fam && *fam == scene::Family::qp)
        fail("shapes " + std::to_string(a) + " and " + std::to_string(b) + " are a QP pair, which has no α or d_D: use CollisionMeasure::distance");
      double cap = cc.activation_margin;
      if (cc.measure == CollisionMeasure::alpha)
        cap = 1.0 + cc.activation_margin / (scene.shape(a).shape.outer_radius() + scene.shape(b).shape.outer_radius());
      const double lower = cc.measure == CollisionMeasure::alpha ? 1.0 + cc.bound : cc.bound;
      if (!(lower < cap)) {
        std::ostringstream os;
        os << "collision bound " << lower << " is not below the cap " << cap << " of " << m.pair_name(static_cast<int>(p))
           << " (docs/plan.md): raise collision.activation_margin";
        m.caps.push_back(cap);
        fail(os.str());
      }
      m.caps.push_back(cap);
      std::vector<int> cols;
      const int bodies[2] = {scene.shape(a).body, scene.shape(b).body};
      bool robot = false;
      for (int bd : bodies) {
        if (m.body_robot[static_cast<size_t>(bd)]) robot = true;
        const int f = m.body_free[static_cast<size_t>(bd)];
        if (f >= 0)
          for (int c = 0; c < num_coordinates(m.spec.bodies[static_cast<size_t>(f)].parametrization); ++c)
            cols.push_back(m.free_offset[static_cast<size_t>(f)] + c);
      }
      if (robot)
        for (int c = 0; c < m.nrobot; ++c) cols.push_back(c);
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      m.pair_nnz_offset.push_back(m.knot_nnz);
      m.knot_nnz += static_cast<int>(cols.size());
      m.pair_cols.push_back(std::move(cols));
    }
    const int last = m.spec.fix_goal ? m.N - 1 : m.N;
    for (int k = 1; k < last; ++k) m.knots.push_back(k);
    if (cc.interval_samples < 0) fail("collision.interval_samples must be ≥ 0");
    for (int k = 0; k < m.N; ++k)
      for (int j = 0; j <= (k + 1 < m.N ? cc.interval_samples : 0); ++j) {
        if (j == 0 && (k == 0 || k >= last)) continue;
        const double t = static_cast<double>(j) / (cc.interval_samples + 1);
        m.sample_nnz_offset.push_back(m.coll_nnz);
        m.coll_nnz += (j == 0 ? 1 : 2) * m.knot_nnz;
        m.samples.emplace_back(k, t);
      }
    m.check_fixed(m.spec.start, "start");
    if (m.spec.fix_goal) m.check_fixed(m.spec.goal, "goal");
    m.apply(m.spec.start);
    m.coll_seconds = 0.0;
    m.coll_queries = 0;
  }
}

TrajectoryProblem::~TrajectoryProblem() = default;
TrajectoryProblem::TrajectoryProblem(TrajectoryProblem&&) noexcept = default;
TrajectoryProblem& TrajectoryProblem::operator=(TrajectoryProblem&&) noexcept = default;

const TrajectorySpec& TrajectoryProblem::spec() const { return impl_->spec; }
scene::Scene& TrajectoryProblem::scene() { return *impl_->scene; }
void TrajectoryProblem::set_num_threads(int num_threads) {
  if (num_threads < 0 || num_threads > 1024)
    throw std::invalid_argument("TrajectoryProblem::set_num_threads: expected 0 (all cores) to 1024, got " +
                                std::to_string(num_threads));
  impl_->spec.collision.num_threads = num_threads;
}
int TrajectoryProblem::num_knots() const { return impl_->N; }
int TrajectoryProblem::num_configuration() const { return impl_->nq; }
int TrajectoryProblem::knot_size() const { return impl_->nz; }
int TrajectoryProblem::num_variables() const { return impl_->N * impl_->nz; }
int TrajectoryProblem::num_dynamics_rows() const { return impl_->dyn_row_count(); }
int TrajectoryProblem::num_collision_rows() const { return impl_->collision_rows(); }
int TrajectoryProblem::num_constraints() const { return impl_->dyn_row_count() + impl_->collision_rows(); }
const std::vector<std::pair<int, int>>& TrajectoryProblem::pairs() const { return impl_->pairs; }
const std::vector<int>& TrajectoryProblem::constrained_knots() const { return impl_->knots; }
const std::vector<std::pair<int, double>>& TrajectoryProblem::collision_samples() const { return impl_->samples; }

void TrajectoryProblem::variable_bounds(Eigen::VectorXd& lower, Eigen::VectorXd& upper) const {
  const Impl& m = *impl_;
  const TrajectorySpec& s = m.spec;
  lower.resize(num_variables());
  upper.resize(num_variables());
  for (int k = 0; k < m.N; ++k) {
    const int o = k * m.nz;
    lower.segment(o, m.nq) = s.q_lower;
    upper.segment(o, m.nq) = s.q_upper;
    lower.segment(o + m.nq, m.ns) = s.extra_lower;
    upper.segment(o + m.nq, m.ns) = s.extra_upper;
    lower.segment(o + m.nq + m.ns, m.nu) = s.control_lower;
    upper.segment(o + m.nq + m.ns, m.nu) = s.control_upper;
  }
  lower.head(m.nq) = upper.head(m.nq) = s.start;
  const int last = (m.N - 1) * m.nz;
  if (s.fix_goal) lower.segment(last, m.nq) = upper.segment(last, m.nq) = s.goal;
  if (s.start_extra.size()) lower.segment(m.nq, m.ns) = upper.segment(m.nq, m.ns) = s.start_extra;
  if (s.goal_extra.size()) lower.segment(last + m.nq, m.ns) = upper.segment(last + m.nq, m.ns) = s.goal_extra;
  lower.segment(last + m.nq + m.ns, m.nu).setZero();
  upper.segment(last + m.nq + m.ns, m.nu).setZero();
}

void TrajectoryProblem::constraint_bounds(Eigen::VectorXd& lower, Eigen::VectorXd& upper) const {
  const Impl& m = *impl_;
  lower.setZero(num_constraints());
  upper.setZero(num_constraints());
  const double lo = m.spec.collision.measure == CollisionMeasure::alpha ? 1.0 + m.spec.collision.bound : m.spec.collision.bound;
  lower.tail(m.collision_rows()).setConstant(lo);
  upper.tail(m.collision_rows()).setConstant(kInf);
}

Eigen::VectorXd TrajectoryProblem::static_guess() const {
  const Impl& m = *impl_;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(num_variables());
  for (int k = 0; k < m.N; ++k) {
    x.segment(k * m.nz, m.nq) = m.spec.start;
    if (m.spec.start_extra.size()) x.segment(k * m.nz + m.nq, m.ns) = m.spec.start_extra;
  }
  if (m.spec.fix_goal) x.segment((m.N - 1) * m.nz, m.nq) = m.spec.goal;
  if (m.spec.goal_extra.size()) x.segment((m.N - 1) * m.nz + m.nq, m.ns) = m.spec.goal_extra;
  return x;
}

Eigen::VectorXd TrajectoryProblem::linear_guess() const {
  const Impl& m = *impl_;
  Eigen::VectorXd x = static_guess();
  for (int k = 0; k < m.N; ++k) {
    const double t = static_cast<double>(k) / (m.N - 1);
    x.segment(k * m.nz, m.nq) = (1.0 - t) * m.spec.start + t * m.spec.goal;
  }
  return x;
}

Eigen::VectorXd TrajectoryProblem::path_guess(const Eigen::MatrixXd& P) const {
  const Impl& m = *impl_;
  if (P.rows() < 1 || P.cols() != m.nq)
    fail("path_guess: waypoints must have at least one row and " + std::to_string(m.nq) + " columns");
  if (!P.allFinite()) fail("path_guess: waypoints are not finite");
  const Eigen::ArrayXd W = m.spec.coordinate_weights.array();
  std::vector<double> s(static_cast<size_t>(P.rows()), 0.0);  // cumulative length at each waypoint
  for (Eigen::Index i = 1; i < P.rows(); ++i)
    s[static_cast<size_t>(i)] = s[static_cast<size_t>(i - 1)] + ((P.row(i) - P.row(i - 1)).transpose().array() * W).matrix().norm();
  Eigen::VectorXd x = static_guess();
  size_t seg = 0;
  for (int k = 0; k < m.N; ++k) {
    const double target = s.back() * k / (m.N - 1);
    while (seg + 2 < s.size() && s[seg + 1] < target) ++seg;
    Eigen::VectorXd q;
    if (P.rows() == 1) {
      q = P.row(0).transpose();
    } else {
      const double len = s[seg + 1] - s[seg];
      const double t = len > 0.0 ? std::clamp((target - s[seg]) / len, 0.0, 1.0) : 0.0;
      q = ((1.0 - t) * P.row(static_cast<Eigen::Index>(seg)) + t * P.row(static_cast<Eigen::Index>(seg + 1))).transpose();
    }
    x.segment(k * m.nz, m.nq) = q;
  }
  x.head(m.nq) = m.spec.start;
  if (m.spec.fix_goal) x.segment((m.N - 1) * m.nz, m.nq) = m.spec.goal;
  return x;
}

double TrajectoryProblem::objective(const Eigen::VectorXd& x) {
  const Impl& m = *impl_;
  m.check_x(x);
  const TrajectorySpec& s = m.spec;
  const auto W = s.coordinate_weights.array();
  double f = 0.0;
  for (int k = 0; k + 1 < m.N; ++k) {
    const auto d = (x.segment((k + 1) * m.nz, m.nq) - x.segment(k * m.nz, m.nq)).array() * W;
    f += s.smoothness_weight * d.square().sum();
    if (m.nu) f += s.control_weight * x.segment(k * m.nz + m.nq + m.ns, m.nu).squaredNorm();
  }
  if (!s.fix_goal) f += s.goal_weight * ((x.segment((m.N - 1) * m.nz, m.nq) - s.goal).array() * W).square().sum();
  for (const CostFunction& c : s.costs) f += c(x, nullptr);
  return f;
}

void TrajectoryProblem::objective_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) {
  const Impl& m = *impl_;
  m.check_x(x);
  const TrajectorySpec& s = m.spec;
  const auto W = s.coordinate_weights.array();
  g.setZero(num_variables());
  for (int k = 0; k + 1 < m.N; ++k) {
    for (int i = 0; i < m.nq; ++i) {
      const double d = 2.0 * s.smoothness_weight * W[i] * W[i] * (x[(k + 1) * m.nz + i] - x[k * m.nz + i]);
      g[(k + 1) * m.nz + i] += d;
      g[k * m.nz + i] -= d;
    }
    if (m.nu) g.segment(k * m.nz + m.nq + m.ns, m.nu) += 2.0 * s.control_weight * x.segment(k * m.nz + m.nq + m.ns, m.nu);
  }
  if (!s.fix_goal)
    g.segment((m.N - 1) * m.nz, m.nq).array() += 2.0 * s.goal_weight * W.square() * (x.segment((m.N - 1) * m.nz, m.nq) - s.goal).array();
  for (const CostFunction& c : s.costs) c(x, g.data());
}

void TrajectoryProblem::objective_hessian_structure(std::vector<int>& rows, std::vector<int>& cols) const {
  const Impl& m = *impl_;
  rows.clear();
  cols.clear();
  for (int k = 0; k < m.N; ++k) {
    for (int i = 0; i < m.nq; ++i) {
      rows.push_back(k * m.nz + i);
      cols.push_back(k * m.nz + i);
      if (k > 0) {
        rows.push_back(k * m.nz + i);
        cols.push_back((k - 1) * m.nz + i);
      }
    }
    for (int i = 0; i < m.nu; ++i) {
      rows.push_back(k * m.nz + m.nq + m.ns + i);
      cols.push_back(k * m.nz + m.nq + m.ns + i);
    }
  }
}

void TrajectoryProblem::objective_hessian_values(Eigen::VectorXd& values) const {
  const Impl& m = *impl_;
  const TrajectorySpec& s = m.spec;
  std::vector<double> v;
  for (int k = 0; k < m.N; ++k) {
    for (int i = 0; i < m.nq; ++i) {
      const double w2 = s.coordinate_weights[i] * s.coordinate_weights[i];
      const int neighbours = (k > 0) + (k + 1 < m.N);
      double d = 2.0 * s.smoothness_weight * w2 * neighbours;
      if (k == m.N - 1 && !s.fix_goal) d += 2.0 * s.goal_weight * w2;
      v.push_back(d);
      if (k > 0) v.push_back(-2.0 * s.smoothness_weight * w2);
    }
    for (int i = 0; i < m.nu; ++i) v.push_back(k + 1 < m.N ? 2.0 * s.control_weight : 0.0);
  }
  values = Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

void TrajectoryProblem::constraints(const Eigen::VectorXd& x, Eigen::VectorXd& g) {
  Impl& m = *impl_;
  m.check_x(x);
  g.resize(num_constraints());
  for (int k = 0; m.nr && k + 1 < m.N; ++k)
    m.spec.dynamics.residual(k, x.segment(k * m.nz, m.nz), x.segment((k + 1) * m.nz, m.nz), g.segment(k * m.nr, m.nr),
                             nullptr);
  if (m.collision_rows()) {
    m.evaluate(x, false);
    g.tail(m.collision_rows()) = m.coll_values;
  }
}

void TrajectoryProblem::jacobian_structure(std::vector<int>& rows, std::vector<int>& cols) const {
  const Impl& m = *impl_;
  rows.clear();
  cols.clear();
  for (int k = 0; k + 1 < m.N; ++k)
    for (size_t i = 0; i < m.dyn_rows.size(); ++i) {
      rows.push_back(k * m.nr + m.dyn_rows[i]);
      cols.push_back(k * m.nz + m.dyn_cols[i]);
    }
  const int d = m.dyn_row_count();
  for (size_t i = 0; i < m.samples.size(); ++i) {
    const auto [k, t] = m.samples[i];
    for (int p = 0; p < m.P(); ++p)
      for (int knot = k; knot <= (t > 0.0 ? k + 1 : k); ++knot)
        for (int c : m.pair_cols[static_cast<size_t>(p)]) {
          rows.push_back(d + static_cast<int>(i) * m.P() + p);
          cols.push_back(knot * m.nz + c);
        }
  }
}

void TrajectoryProblem::jacobian_values(const Eigen::VectorXd& x, Eigen::VectorXd& values) {
  Impl& m = *impl_;
  m.check_x(x);
  const Eigen::Index dyn_nnz = static_cast<Eigen::Index>(m.dyn_rows.size());
  values.resize(dyn_nnz * (m.N - 1) + m.coll_nnz);
  if (m.nr) {
    m.dyn_scratch.resize(m.nr);
    for (int k = 0; k + 1 < m.N; ++k) {
      double* out = values.data() + k * dyn_nnz;
      m.spec.dynamics.residual(k, x.segment(k * m.nz, m.nz), x.segment((k + 1) * m.nz, m.nz), m.dyn_scratch, out);
    }
  }
  if (m.collision_rows()) {
    m.evaluate(x, true);
    values.tail(m.coll_jac.size()) = m.coll_jac;
  }
}

Eigen::MatrixXd TrajectoryProblem::jacobian_dense(const Eigen::VectorXd& x) {
  std::vector<int> rows, cols;
  jacobian_structure(rows, cols);
  Eigen::VectorXd v;
  jacobian_values(x, v);
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(num_constraints(), num_variables());
  for (size_t i = 0; i < rows.size(); ++i) J(rows[i], cols[i]) += v[static_cast<Eigen::Index>(i)];
  return J;
}

std::string TrajectoryProblem::exact_hessian_unsupported() const {
  const Impl& m = *impl_;
  for (size_t i = 0; i < m.spec.costs.size(); ++i)
    if (m.spec.cost_hessians.empty() || !m.spec.cost_hessians[i])
      return "user cost " + std::to_string(i) + " without a Hessian (TrajectorySpec::cost_hessians)";
  if (m.nr && !m.spec.dynamics.hessian) return "dynamics without Dynamics::hessian";
  if (m.collision_rows() == 0) return "";
  if (m.spec.collision.measure == CollisionMeasure::distance)
    return "the distance measure (collision.measure alpha or gap have second derivatives)";
  for (int p = 0; p < m.P(); ++p) {
    const auto [a, b] = m.pairs[static_cast<size_t>(p)];
    const std::optional<scene::Family> f = scene::pair_family(m.scene->shape(a).shape, m.scene->shape(b).shape);
    if (!f || *f != scene::Family::idcol)
      return "the pair " + m.pair_name(p) + ", served by " + (f ? scene::family_name(*f) : "no family") +
             " (collision rows have second derivatives for iDCOL pairs only)";
  }
  return "";
}

void TrajectoryProblem::lagrangian_hessian_structure(std::vector<int>& rows, std::vector<int>& cols) const {
  const Impl& m = *impl_;
  const std::string why = exact_hessian_unsupported();
  if (!why.empty()) fail("the exact Hessian does not cover " + why);
  rows.clear();
  cols.clear();
  for (int k = 0; k < m.N; ++k) {
    for (int i = 0; i < m.nz; ++i)
      for (int j = 0; j <= i; ++j) {
        rows.push_back(k * m.nz + i);
        cols.push_back(k * m.nz + j);
      }
    for (int d = 1; d <= std::min(k, m.spec.cost_hessian_bandwidth); ++d)
      for (int i = 0; i < m.nz; ++i)
        for (int j = 0; j < m.nz; ++j) {
          rows.push_back(k * m.nz + i);
          cols.push_back((k - d) * m.nz + j);
        }
  }
}

void TrajectoryProblem::lagrangian_hessian_values(const Eigen::VectorXd& x, double sigma, const Eigen::VectorXd& lambda,
                                                   Eigen::VectorXd& values) {
  Impl& m = *impl_;
  m.check_x(x);
  if (lambda.size() != num_constraints())
    fail("lambda has " + std::to_string(lambda.size()) + " entries, expected " + std::to_string(num_constraints()));
  if (!std::isfinite(sigma) || !lambda.allFinite()) fail("the Hessian's sigma or lambda is not finite");
  if (m.hess_diag.empty()) {
    const std::string why = exact_hessian_unsupported();
    if (!why.empty()) fail("the exact Hessian does not cover " + why);
    m.hess_diag.assign(static_cast<size_t>(m.N), Eigen::MatrixXd::Zero(m.nz, m.nz));
    m.hess_cross.assign(static_cast<size_t>(m.N), Eigen::MatrixXd::Zero(m.nz, m.nz));
    m.hess_far.assign(static_cast<size_t>(m.N), {});
    for (int k = 0; k < m.N; ++k)
      for (int d = 2; d <= std::min(k, m.spec.cost_hessian_bandwidth); ++d)
        m.hess_far[static_cast<size_t>(k)].push_back(Eigen::MatrixXd::Zero(m.nz, m.nz));
    m.hess_pairs = std::vector<Impl::HessianPair>(static_cast<size_t>(m.P()));
    for (int p = 0; p < m.P(); ++p) {
      const auto [a, b] = m.pairs[static_cast<size_t>(p)];
      scene::PairPlan plan = scene::plan_pair(m.scene->shape(a).shape, m.scene->shape(b).shape);
      Impl::HessianPair& hp = m.hess_pairs[static_cast<size_t>(p)];
      hp.pair.emplace(plan.shape1.idcol(), plan.shape2.idcol());
      hp.X_S1R1 = plan.X_S1R1;
      hp.X_S2R2 = plan.X_S2R2;
    }
  }
  for (int k = 0; k < m.N; ++k) {
    m.hess_diag[static_cast<size_t>(k)].setZero();
    m.hess_cross[static_cast<size_t>(k)].setZero();
    for (Eigen::MatrixXd& F : m.hess_far[static_cast<size_t>(k)]) F.setZero();
  }
  // σ·∇²f, the built-in terms (objective_hessian_values)
  const TrajectorySpec& s = m.spec;
  for (int k = 0; k < m.N; ++k) {
    Eigen::MatrixXd& D = m.hess_diag[static_cast<size_t>(k)];
    for (int i = 0; i < m.nq; ++i) {
      const double w2 = s.coordinate_weights[i] * s.coordinate_weights[i];
      const int neighbours = (k > 0) + (k + 1 < m.N);
      double d = 2.0 * s.smoothness_weight * w2 * neighbours;
      if (k == m.N - 1 && !s.fix_goal) d += 2.0 * s.goal_weight * w2;
      D(i, i) += sigma * d;
      if (k > 0) m.hess_cross[static_cast<size_t>(k)](i, i) -= sigma * 2.0 * s.smoothness_weight * w2;
    }
    if (k + 1 < m.N)
      for (int i = 0; i < m.nu; ++i) D(m.nq + m.ns + i, m.nq + m.ns + i) += sigma * 2.0 * s.control_weight;
  }
  // σ·∇²(user costs), entries into the band
  m.hess_entries.clear();
  for (const CostHessian& ch : s.cost_hessians) ch(x, sigma, m.hess_entries);
  const int n = num_variables();
  for (const HessianEntry& e : m.hess_entries) {
    if (e.row < 0 || e.row >= n || e.col < 0 || e.col >= n || !std::isfinite(e.value))
      fail("a cost Hessian entry (" + std::to_string(e.row) + ", " + std::to_string(e.col) + ") is out of range or not finite");
    const int r = std::max(e.row, e.col), c = std::min(e.row, e.col), kr = r / m.nz, d = kr - c / m.nz;
    const int a = r % m.nz, b = c % m.nz;
    if (d == 0) {
      m.hess_diag[static_cast<size_t>(kr)](a, b) += e.value;
      if (a != b) m.hess_diag[static_cast<size_t>(kr)](b, a) += e.value;
    } else if (d == 1) {
      m.hess_cross[static_cast<size_t>(kr)](a, b) += e.value;
    } else if (d <= s.cost_hessian_bandwidth) {
      m.hess_far[static_cast<size_t>(kr)][static_cast<size_t>(d - 2)](a, b) += e.value;
    } else {
      fail("a cost Hessian entry (" + std::to_string(e.row) + ", " + std::to_string(e.col) + ") couples knots " +
           std::to_string(d) + " apart, beyond cost_hessian_bandwidth " + std::to_string(s.cost_hessian_bandwidth));
    }
  }
  // Σ μ·∇²(dynamics)
  for (int k = 0; m.nr && k + 1 < m.N; ++k) {
    m.hess_dyn.setZero(2 * m.nz, 2 * m.nz);
    m.hess_z0 = x.segment(k * m.nz, m.nz);
    m.hess_z1 = x.segment((k + 1) * m.nz, m.nz);
    s.dynamics.hessian(k, m.hess_z0, m.hess_z1, lambda.segment(k * m.nr, m.nr), m.hess_dyn);
    Eigen::MatrixXd& D0 = m.hess_diag[static_cast<size_t>(k)];
    Eigen::MatrixXd& D1 = m.hess_diag[static_cast<size_t>(k + 1)];
    Eigen::MatrixXd& C1 = m.hess_cross[static_cast<size_t>(k + 1)];
    for (int i = 0; i < 2 * m.nz; ++i)
      for (int j = 0; j <= i; ++j) {  // the lower triangle only
        const double v = m.hess_dyn(i, j);
        if (v == 0.0) continue;
        if (i >= m.nz && j < m.nz) {
          C1(i - m.nz, j) += v;
          continue;
        }
        Eigen::MatrixXd& D = i < m.nz ? D0 : D1;
        const int a = i < m.nz ? i : i - m.nz, b = i < m.nz ? j : j - m.nz;
        D(a, b) += v;
        if (a != b) D(b, a) += v;
      }
  }
  // Σ λ·∇²(collision rows), chained through q = (1 − t)·q_k + t·q_{k+1}
  const auto t0 = Clock::now();
  const double* lam = lambda.data() + m.dyn_row_count();
  for (size_t i = 0; i < m.samples.size(); ++i) {
    const auto [k, t] = m.samples[i];
    const double* w = lam + static_cast<Eigen::Index>(i) * m.P();
    bool any = false;
    for (int p = 0; p < m.P(); ++p) any = any || w[p] != 0.0;
    if (!any) continue;
    m.qsample = x.segment(static_cast<Eigen::Index>(k) * m.nz, m.nq);
    if (t > 0.0) m.qsample = (1.0 - t) * m.qsample + t * x.segment(static_cast<Eigen::Index>(k + 1) * m.nz, m.nq);
    m.collision_hessian(m.qsample, w);
    m.hess_diag[static_cast<size_t>(k)].topLeftCorner(m.nq, m.nq) += (1.0 - t) * (1.0 - t) * m.hess_q;
    if (t > 0.0) {
      m.hess_diag[static_cast<size_t>(k + 1)].topLeftCorner(m.nq, m.nq) += t * t * m.hess_q;
      m.hess_cross[static_cast<size_t>(k + 1)].topLeftCorner(m.nq, m.nq) += t * (1.0 - t) * m.hess_q;
    }
  }
  m.coll_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  Eigen::Index blocks = m.N - 1;
  for (int k = 0; k < m.N; ++k) blocks += static_cast<Eigen::Index>(m.hess_far[static_cast<size_t>(k)].size());
  values.resize(static_cast<Eigen::Index>(m.N) * m.nz * (m.nz + 1) / 2 + blocks * m.nz * m.nz);
  double* out = values.data();
  for (int k = 0; k < m.N; ++k) {
    const Eigen::MatrixXd& D = m.hess_diag[static_cast<size_t>(k)];
    for (int i = 0; i < m.nz; ++i)
      for (int j = 0; j <= i; ++j) *out++ = 0.5 * (D(i, j) + D(j, i));
    if (k > 0)
      for (int i = 0; i < m.nz; ++i)
        for (int j = 0; j < m.nz; ++j) *out++ = m.hess_cross[static_cast<size_t>(k)](i, j);
    for (const Eigen::MatrixXd& F : m.hess_far[static_cast<size_t>(k)])
      for (int i = 0; i < m.nz; ++i)
        for (int j = 0; j < m.nz; ++j) *out++ = F(i, j);
  }
}

Eigen::MatrixXd TrajectoryProblem::lagrangian_hessian_dense(const Eigen::VectorXd& x, double sigma, const Eigen::VectorXd& lambda) {
  std::vector<int> rows, cols;
  lagrangian_hessian_structure(rows, cols);
  Eigen::VectorXd v;
  lagrangian_hessian_values(x, sigma, lambda, v);
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(num_variables(), num_variables());
  for (size_t i = 0; i < rows.size(); ++i) {
    H(rows[i], cols[i]) += v[static_cast<Eigen::Index>(i)];
    if (rows[i] != cols[i]) H(cols[i], rows[i]) += v[static_cast<Eigen::Index>(i)];
  }
  return H;
}

void TrajectoryProblem::set_fd_gradients(bool on, double step) {
  if (!std::isfinite(step) || !(step > 0.0)) fail("fd_step must be finite and > 0");
  impl_->fd = on;
  impl_->fd_step = step;
  impl_->have_values = impl_->have_jac = false;
}

Eigen::MatrixXd TrajectoryProblem::configurations(const Eigen::VectorXd& x) const {
  const Impl& m = *impl_;
  m.check_x(x);
  Eigen::MatrixXd Q(m.N, m.nq);
  for (int k = 0; k < m.N; ++k) Q.row(k) = x.segment(k * m.nz, m.nq).transpose();
  return Q;
}

void TrajectoryProblem::apply_configuration(const Eigen::Ref<const Eigen::VectorXd>& q) {
  if (q.size() != impl_->nq) fail("a configuration has " + std::to_string(q.size()) + " entries, expected " + std::to_string(impl_->nq));
  impl_->apply(q);
}

std::vector<Pose> TrajectoryProblem::body_poses(const Eigen::Ref<const Eigen::VectorXd>& q) {
  apply_configuration(q);
  std::vector<Pose> out(static_cast<size_t>(impl_->scene->num_bodies()));
  for (int b = 0; b < impl_->scene->num_bodies(); ++b) out[static_cast<size_t>(b)] = impl_->scene->body(b).X_WB;
  return out;
}

std::vector<std::vector<Pose>> TrajectoryProblem::animation(const Eigen::MatrixXd& Q, int subdivisions) {
  if (Q.cols() != impl_->nq || Q.rows() < 1) fail("configurations must be a matrix with nq columns");
  if (subdivisions < 1) fail("subdivisions must be ≥ 1");
  std::vector<std::vector<Pose>> frames;
  for (Eigen::Index k = 0; k < Q.rows(); ++k) {
    const int steps = k + 1 < Q.rows() ? subdivisions : 1;
    for (int s = 0; s < steps; ++s) {
      const double t = static_cast<double>(s) / subdivisions;
      const Eigen::VectorXd q = k + 1 < Q.rows() ? Eigen::VectorXd((1.0 - t) * Q.row(k) + t * Q.row(k + 1))
                                                 : Eigen::VectorXd(Q.row(k).transpose());
      frames.push_back(body_poses(q));
    }
  }
  return frames;
}

double TrajectoryProblem::collision_seconds() const { return impl_->coll_seconds; }
long TrajectoryProblem::collision_queries() const { return impl_->coll_queries; }
void TrajectoryProblem::reset_counters() {
  impl_->coll_seconds = 0.0;
  impl_->coll_queries = 0;
}

CheckResult check_trajectory(TrajectoryProblem& problem, const Eigen::MatrixXd& Q, const CheckOptions& options) {
  if (Q.rows() < 1 || Q.cols() != problem.num_configuration())
    fail("check_trajectory: configurations must have " + std::to_string(problem.num_configuration()) + " columns");
  if (!Q.allFinite()) fail("check_trajectory: configurations are not finite");
  if (options.subdivisions < 1) fail("check_trajectory: subdivisions must be ≥ 1");
  if (!std::isfinite(options.margin) || !(options.margin > 0.0)) fail("check_trajectory: margin must be finite and > 0");
  scene::Scene target = options.scene ? *options.scene : problem.scene();  // the caller's scene stays untouched
  if (target.num_bodies() != problem.scene().num_bodies())
    fail("check_trajectory: the check scene has another number of bodies");
  CheckResult out;
  out.min_distance = options.margin;
  scene::QueryOptions o;
  o.margin = options.margin;
  o.euclidean = true;
  scene::QueryResult r;
  const int n = static_cast<int>(Q.rows());
  for (int k = 0; k < n; ++k) {
    const int steps = k + 1 < n ? options.subdivisions : 1;
    for (int j = 0; j < steps; ++j) {
      const double t = static_cast<double>(j) / options.subdivisions;
      const Eigen::VectorXd q = k + 1 < n ? Eigen::VectorXd((1.0 - t) * Q.row(k) + t * Q.row(k + 1)) : Eigen::VectorXd(Q.row(k).transpose());
      target.set_body_poses(problem.body_poses(q));
      target.query(o, r);
      ++out.samples;
      for (const scene::PairResult& p : r.pairs) {
        double d;
        if (p.status == diffcol::SolveStatus::coincident_origins) {
          d = -kInf;
        } else if (!p.ok()) {
          ++out.failed_pairs;
          continue;
        } else if (p.has_distance) {
          d = p.distance;
        } else if (p.has_gap) {
          d = std::min(p.gap, 0.0);  // overlapping (d_D ≤ 0) or touching
        } else {
          d = 0.0;
        }
        if (d < out.min_distance) {
          out.min_distance = std::isfinite(d) ? d : -1.0;
          out.min_at = k + t;
          out.shape1 = p.shape1;
          out.shape2 = p.shape2;
        }
      }
    }
  }
  return out;
}

}  // namespace diffcol::plan
