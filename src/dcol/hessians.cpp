// Second-order pose derivatives and shape-parameter derivatives of the DCOL contact (seed
// Sec. II-B, the IFT on the exact KKT conditions (2)–(5) carried one order further), on the
// active set of the polished solution. See include/diffcol/dcol/hessians.hpp.
#include "diffcol/dcol/hessians.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "cone_ops.hpp"
#include "cone_program.hpp"

namespace diffcol::dcol {

namespace {

constexpr int kQ = detail::kMaxKktDim;  // unknowns + multipliers of the active set
constexpr int kR = kMaxConeVars + 8;    // rows in the active set: orthant rows + two 4-dim cones
/// Parameter columns one query can touch (active rows × parameters of a row).
constexpr int kMaxTouched = 96;
using Vec12 = Eigen::Matrix<double, 12, 1>;

/// The active set of a polished solution in world units: rows s = S_x·x + (terms in θ), the
/// constraints φ_j (orthant rows, cones on their boundary or at their apex), the multipliers z,
/// the cones' curvature C = ν(I − ūūᵀ)/‖s̄‖ and the LU factors of
/// K = [[S_xᵀ C S_x, −S_xᵀΦ], [−ΦᵀS_x, 0]].
struct ActiveProblem {
  int n = 0, p = 0, q = 0, nr = 0;
  int row[kR] = {};
  int body[kR] = {};
  double sx[kR][kMaxConeVars] = {};  // ∂s/∂x: p (world), α, slacks (world lengths)
  double z[kR] = {};
  double s[kR] = {};
  double C[kR][kR] = {};
  double Phi[kR][kQ] = {};  // ∇_s φ_j
  double K[kQ][kQ] = {};
  int perm[kQ] = {};
  Vec3 zeta[2] = {Vec3::Zero(), Vec3::Zero()};  // Σ z_r ∂s_r/∂p over each body's rows
  double w[kMaxConeVars] = {};                   // the slacks (world lengths), at their columns
};

DerivativeStatus status_of(const ContactResult& res) {
  switch (res.status) {
    case SolveStatus::ok: return DerivativeStatus::ok;
    case SolveStatus::coincident_origins: return DerivativeStatus::coincident_origins;
    case SolveStatus::invalid_input: return DerivativeStatus::invalid_input;
    default: return DerivativeStatus::solve_failed;
  }
}

/// Assembles and factors the active-set problem; false when the solution has none (unpolished)
/// or K is singular.
bool build_active_problem(const ContactResult& res, ActiveProblem& A) {
  const ConeKkt& k = res.kkt;
  if (!k.polished || k.n < 4 || k.n > kMaxConeVars) return false;
  const int n = k.n;
  A.n = n;
  const double ell = k.length_scale, as = k.alpha_scale, zs = as / ell;
  const int l1 = k.orthant_rows[0];
  auto add_row = [&](int i, int body) {
    const int r = A.nr++;
    A.row[r] = i;
    A.body[r] = body;
    for (int j = 0; j < n; ++j) A.sx[r][j] = -k.G[i][j];
    A.sx[r][3] *= ell / as;
    A.z[r] = zs * k.z[i];
    A.s[r] = ell * k.s[i];
    A.zeta[body] += A.z[r] * Vec3(A.sx[r][0], A.sx[r][1], A.sx[r][2]);
    return r;
  };
  if (k.active_count < 0 || k.active_count > kMaxConeVars) return false;
  for (int a = 0; a < k.active_count; ++a) {
    const int i = k.active_rows[a];
    if (i < 0 || i >= k.m) return false;
    const int r = add_row(i, i < l1 ? 0 : 1);
    A.Phi[r][A.p++] = 1.0;
  }
  for (int c = 0; c < k.soc_count; ++c) {
    const int st = k.soc_state[c], s0 = k.soc_start[c], d = k.soc_dim[c];
    if (st == 0) continue;
    if (A.nr + d > kR || A.p + (st == 1 ? 1 : d) > kQ) return false;
    const int r0 = A.nr;
    for (int t = 0; t < d; ++t) add_row(s0 + t, k.soc_body[c]);
    if (st == 2) {
      for (int t = 0; t < d; ++t) A.Phi[r0 + t][A.p++] = 1.0;
      continue;
    }
    double nb = 0.0;
    for (int t = 1; t < d; ++t) nb += A.s[r0 + t] * A.s[r0 + t];
    nb = std::sqrt(nb);
    if (!(nb > 0.0)) return false;
    const double f = A.z[r0] / nb;  // ν/‖s̄‖
    A.Phi[r0][A.p] = 1.0;
    for (int t = 1; t < d; ++t) {
      const double ut = A.s[r0 + t] / nb;
      A.Phi[r0 + t][A.p] = -ut;
      for (int v = 1; v < d; ++v) A.C[r0 + t][r0 + v] = f * ((t == v ? 1.0 : 0.0) - ut * A.s[r0 + v] / nb);
    }
    ++A.p;
  }
  A.q = n + A.p;
  if (A.q != k.kkt_full_dim || A.q > kQ) return false;
  for (int j = 4; j < n; ++j) A.w[j] = ell * k.x[j];
  // K: M = S_xᵀ C S_x, off-diagonal −S_xᵀΦ
  double CS[kR][kMaxConeVars];
  for (int r = 0; r < A.nr; ++r)
    for (int j = 0; j < n; ++j) {
      double v = 0.0;
      for (int t = 0; t < A.nr; ++t) v += A.C[r][t] * A.sx[t][j];
      CS[r][j] = v;
    }
  for (int i = 0; i < A.q; ++i)
    for (int j = 0; j < A.q; ++j) A.K[i][j] = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double v = 0.0;
      for (int r = 0; r < A.nr; ++r) v += A.sx[r][i] * CS[r][j];
      A.K[i][j] = v;
    }
  for (int c = 0; c < A.p; ++c)
    for (int i = 0; i < n; ++i) {
      double v = 0.0;
      for (int r = 0; r < A.nr; ++r) v -= A.sx[r][i] * A.Phi[r][c];
      A.K[i][n + c] = A.K[n + c][i] = v;
    }
  return detail::lu_factor(A.K, A.perm, A.q, 1e-12);
}

/// B = ∂²ℒ/∂w∂θ for P columns of ∂s/∂θ (sθ, nr × P) and T = Σ z_r ∂²s_r/∂x∂θ (n × P):
/// B_x = S_xᵀ C sθ − T, B_μ = −Φᵀ sθ. Column c of B is written to Bc[c][0..q).
template <int P>
void assemble_b(const ActiveProblem& A, const double (&st)[kR][P], const double (&T)[kMaxConeVars][P], int cols,
                double (&Bc)[P][kQ]) {
  for (int c = 0; c < cols; ++c) {
    double cs[kR];
    for (int r = 0; r < A.nr; ++r) {
      double v = 0.0;
      for (int t = 0; t < A.nr; ++t) v += A.C[r][t] * st[t][c];
      cs[r] = v;
    }
    for (int j = 0; j < A.n; ++j) {
      double v = -T[j][c];
      for (int r = 0; r < A.nr; ++r) v += A.sx[r][j] * cs[r];
      Bc[c][j] = v;
    }
    for (int m = 0; m < A.p; ++m) {
      double v = 0.0;
      for (int r = 0; r < A.nr; ++r) v -= A.Phi[r][m] * st[r][c];
      Bc[c][A.n + m] = v;
    }
  }
}

/// ζ·D²q[e_a, e_b] for the second-order term ½ω×(ω×p + v) of a point moved by the twist [ω; v]
/// (the same for exp(η^)p and exp(−η^)p): [[½(pζᵀ + ζpᵀ) − (ζ·p)I, −½ζ^], [½ζ^, 0]].
Mat6 motion_curvature(const Vec3& zeta, const Vec3& p) {
  Mat6 N = Mat6::Zero();
  N.topLeftCorner<3, 3>() = 0.5 * (p * zeta.transpose() + zeta * p.transpose()) - zeta.dot(p) * Mat3::Identity();
  N.topRightCorner<3, 3>() = -0.5 * skew(zeta);
  N.bottomLeftCorner<3, 3>() = 0.5 * skew(zeta);
  return N;
}

}  // namespace

void contact_hessians(const ContactResult& res, ContactHessians& out, ReferenceFrame frame) {
  out.frame = frame;
  out.H_alpha_X12.setZero();
  out.H_alpha.setZero();
  out.H_gap.setZero();
  out.status = status_of(res);
  if (!out.ok()) return;
  ActiveProblem A;
  if (!build_active_problem(res, A)) {
    out.status = DerivativeStatus::singular;
    return;
  }
  const Vec3 p = res.x_W;
  // ∂s/∂η_b for row r of body b: [(∂s/∂p × p)ᵀ, −(∂s/∂p)ᵀ] (y = X_WS⁻¹·exp(−η^)·p)
  double st[kR][12] = {};
  double T[kMaxConeVars][12] = {};
  for (int r = 0; r < A.nr; ++r) {
    const Vec3 g(A.sx[r][0], A.sx[r][1], A.sx[r][2]);
    const Vec3 gp = g.cross(p);
    const int c0 = 6 * A.body[r];
    for (int a = 0; a < 3; ++a) {
      st[r][c0 + a] = gp[a];
      st[r][c0 + 3 + a] = -g[a];
    }
  }
  // T = Σ z_r ∂²s_r/∂x∂θ: on the p rows and ω columns, ∂²q/∂p∂ω gives −ζ^
  for (int b = 0; b < 2; ++b) {
    const Mat3 S = skew(A.zeta[b]);
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) T[a][6 * b + c] = -S(a, c);
  }
  double Bc[12][kQ];
  assemble_b<12>(A, st, T, 12, Bc);
  Mat12 H;
  Vec12 grad;
  for (int a = 0; a < 12; ++a) {
    double g = 0.0;
    for (int r = 0; r < A.nr; ++r) g -= A.z[r] * st[r][a];
    grad[a] = g;
  }
  // ∂²ℒ/∂θ² = sθᵀ C sθ − Σ_b ζ_b·D²q_b
  for (int a = 0; a < 12; ++a)
    for (int b = a; b < 12; ++b) {
      double v = 0.0;
      for (int r = 0; r < A.nr; ++r)
        for (int t = 0; t < A.nr; ++t) v += st[r][a] * A.C[r][t] * st[t][b];
      H(a, b) = v;
    }
  for (int b = 0; b < 2; ++b) {
    const Mat6 N = motion_curvature(A.zeta[b], p);
    for (int i = 0; i < 6; ++i)
      for (int j = i; j < 6; ++j) H(6 * b + i, 6 * b + j) -= N(i, j);
  }
  // − Bᵀ K⁻¹ B
  for (int b = 0; b < 12; ++b) {
    double x[kQ];
    for (int i = 0; i < A.q; ++i) x[i] = Bc[b][i];
    detail::lu_solve(A.K, A.perm, A.q, x);
    for (int a = 0; a <= b; ++a) {
      double v = 0.0;
      for (int i = 0; i < A.q; ++i) v += Bc[a][i] * x[i];
      H(a, b) -= v;
    }
  }
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < a; ++b) H(a, b) = H(b, a);
  if (!H.allFinite() || !grad.allFinite()) {
    out.status = DerivativeStatus::singular;
    return;
  }
  // gap = (1 − 1/α)·D, D = ‖r_2 − r_1‖, r_i = exp(η_i^)·r_i
  const double alpha = res.alpha;
  const Vec3 r1 = res.X_WS1.p, r2 = res.X_WS2.p, r12 = r2 - r1;
  const double D = r12.norm();
  const Vec3 u = r12 / D;
  Eigen::Matrix<double, 3, 12> dr;  // d(r_2 − r_1)/dη
  dr.block<3, 3>(0, 0) = skew(r1);
  dr.block<3, 3>(0, 3) = -Mat3::Identity();
  dr.block<3, 3>(0, 6) = -skew(r2);
  dr.block<3, 3>(0, 9) = Mat3::Identity();
  const Vec12 dD = dr.transpose() * u;
  Mat12 HD = dr.transpose() * ((Mat3::Identity() - u * u.transpose()) / D) * dr;
  HD.topLeftCorner<6, 6>() -= motion_curvature(u, r1);
  HD.bottomRightCorner<6, 6>() += motion_curvature(u, r2);
  const double ia = 1.0 / alpha;
  const Vec12 df = ia * ia * grad;                                      // d(1 − 1/α)
  const Mat12 Hf = ia * ia * H - 2.0 * ia * ia * ia * grad * grad.transpose();  // d²(1 − 1/α)
  out.H_gap = D * Hf + (1.0 - ia) * HD + df * dD.transpose() + dD * df.transpose();
  out.H_alpha = H;
  {
    const Mat6 Ad = adjoint(res.X_WB2);
    const Mat6 HX = Ad.transpose() * H.bottomRightCorner<6, 6>() * Ad;
    out.H_alpha_X12 = 0.5 * (HX + HX.transpose());
  }
  if (frame != ReferenceFrame::world) {
    Mat12 M = Mat12::Zero();
    M.topLeftCorner<6, 6>() = world_twist_from_frame(frame, res.X_WB1);
    M.bottomRightCorner<6, 6>() = world_twist_from_frame(frame, res.X_WB2);
    out.H_alpha = M.transpose() * out.H_alpha * M;
    out.H_gap = M.transpose() * out.H_gap * M;
  }
  // exactly symmetric (the products above round each triangle differently)
  out.H_alpha = 0.5 * (out.H_alpha + out.H_alpha.transpose()).eval();
  out.H_gap = 0.5 * (out.H_gap + out.H_gap.transpose()).eval();
  if (!out.H_gap.allFinite()) {
    out = ContactHessians{};
    out.frame = frame;
    out.status = DerivativeStatus::singular;
  }
}

ContactHessians contact_hessians(const ContactResult& result, ReferenceFrame frame) {
  ContactHessians h;
  contact_hessians(result, h, frame);
  return h;
}

// ================================================================ shape parameters

namespace {

const Polytope* as_polytope(const Primitive& s) { return std::get_if<Polytope>(&s); }

void check_parameterizable(const Primitive& s, const char* who) {
  if (const Polytope* p = as_polytope(s); p && p->is_large())
    throw std::invalid_argument(std::string(who) + ": a polytope with more than kInlinePolytopeFaces = " +
                                std::to_string(kInlinePolytopeFaces) + " faces has no parameter derivatives");
}

/// Calls emit(parameter, ∂a, ∂b, ∂σ_0, ∂σ_1) for the parameters of one row of `shape`, the row
/// s = aᵀy + bα + σᵀw (y shape-frame point, w the primitive's slacks; primitives.hpp, the rows
/// of solve_contact.cpp). `cone_row`: a row of the primitive's second-order cone, `li` its index
/// there (else the index among the primitive's orthant rows).
template <class F>
void row_parameters(const Primitive& shape, bool cone_row, int li, F&& emit) {
  const Vec3 O = Vec3::Zero();
  std::visit(
      [&](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Polytope>) {
          if (cone_row) return;
          const int m = s.num_faces;  // s = −A_iᵀy + b_i α
          emit(li, O, 1.0, 0.0, 0.0);
          for (int j = 0; j < 3; ++j) emit(m + 3 * li + j, Vec3(-Vec3::Unit(j)), 0.0, 0.0, 0.0);
        } else if constexpr (std::is_same_v<T, Capsule> || std::is_same_v<T, Cylinder>) {
          if (!cone_row) emit(1, O, 0.5, 0.0, 0.0);  // αL/2 ∓ (γ or y_1)
          else if (li == 0) emit(0, O, 1.0, 0.0, 0.0);  // αR
        } else if constexpr (std::is_same_v<T, Cone>) {
          if (!cone_row) {
            emit(0, O, 0.25, 0.0, 0.0);  // αH/4 − y_1
          } else if (li == 0) {  // tan β (y_1 + α 3H/4)
            const double sec2 = 1.0 + s.tan_beta * s.tan_beta;
            emit(0, O, 0.75 * s.tan_beta, 0.0, 0.0);
            emit(1, Vec3(sec2, 0.0, 0.0), 0.75 * s.H * sec2, 0.0, 0.0);
          }
        } else if constexpr (std::is_same_v<T, Ellipsoid>) {
          if (!cone_row || li == 0) return;
          // rows ρ·U_i y (ρ = inner radius, held fixed: the cone is invariant under scaling);
          // P = UᵀU, dU = Ψ(U⁻ᵀ dP U⁻¹)·U, Ψ the upper triangle with the diagonal halved
          const Mat3 Ui = s.U.inverse();
          const double rho = s.inner_radius;
          static constexpr int pi[6] = {0, 1, 2, 0, 0, 1}, pj[6] = {0, 1, 2, 1, 2, 2};
          for (int t = 0; t < 6; ++t) {
            Mat3 dP = Mat3::Zero();
            dP(pi[t], pj[t]) = 1.0;
            dP(pj[t], pi[t]) = 1.0;
            const Mat3 W = Ui.transpose() * dP * Ui;
            Mat3 Psi = Mat3::Zero();
            for (int a = 0; a < 3; ++a)
              for (int b = a; b < 3; ++b) Psi(a, b) = a == b ? 0.5 * W(a, b) : W(a, b);
            const Mat3 dU = Psi * s.U;
            emit(t, Vec3(rho * dU.row(li - 1).transpose()), 0.0, 0.0, 0.0);
          }
        } else if constexpr (std::is_same_v<T, PaddedPolygon>) {
          if (cone_row) {
            if (li == 0) emit(0, O, 1.0, 0.0, 0.0);  // αR
            return;
          }
          const int m = s.num_edges;  // α d_i − C_i w
          emit(1 + li, O, 1.0, 0.0, 0.0);
          emit(1 + m + 2 * li, O, 0.0, -1.0, 0.0);
          emit(2 + m + 2 * li, O, 0.0, 0.0, -1.0);
        } else if constexpr (std::is_same_v<T, Sphere>) {
          if (cone_row && li == 0) emit(0, O, 1.0, 0.0, 0.0);
        }
      },
      shape);
}

int slack_count_of(const Primitive& s) {
  return std::visit([](const auto& p) { return detail::slack_count<std::decay_t<decltype(p)>>(); }, s);
}
int primitive_orthant_rows(const Primitive& s) {
  return std::visit([](const auto& p) { return detail::orthant_count_of(p); }, s);
}

}  // namespace

int shape_parameter_count(const Primitive& shape) {
  check_parameterizable(shape, "dcol::shape_parameter_count");
  return std::visit(
      [](const auto& s) -> int {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Polytope>) return 4 * s.num_faces;
        else if constexpr (std::is_same_v<T, PaddedPolygon>) return 1 + 3 * s.num_edges;
        else if constexpr (std::is_same_v<T, Ellipsoid>) return 6;
        else if constexpr (std::is_same_v<T, Sphere>) return 1;
        else return 2;
      },
      shape);
}

std::string shape_parameter_name(const Primitive& shape, int i) {
  const int count = shape_parameter_count(shape);
  if (i < 0 || i >= count)
    throw std::out_of_range("dcol::shape_parameter_name: index " + std::to_string(i) + " outside [0, " +
                            std::to_string(count) + ")");
  const auto idx = [](const char* n, int a) { return std::string(n) + "[" + std::to_string(a) + "]"; };
  const auto idx2 = [](const char* n, int a, int b) {
    return std::string(n) + "[" + std::to_string(a) + "][" + std::to_string(b) + "]";
  };
  switch (primitive_type(shape)) {
    case PrimitiveType::polytope: {
      const int m = std::get<Polytope>(shape).num_faces;
      return i < m ? idx("b", i) : idx2("A", (i - m) / 3, (i - m) % 3);
    }
    case PrimitiveType::capsule:
    case PrimitiveType::cylinder: return i == 0 ? "radius" : "length";
    case PrimitiveType::cone: return i == 0 ? "height" : "half_angle";
    case PrimitiveType::ellipsoid: {
      static constexpr int pi[6] = {0, 1, 2, 0, 0, 1}, pj[6] = {0, 1, 2, 1, 2, 2};
      return idx2("P", pi[i], pj[i]);
    }
    case PrimitiveType::padded_polygon: {
      const int m = std::get<PaddedPolygon>(shape).num_edges;
      if (i == 0) return "radius";
      if (i <= m) return idx("d", i - 1);
      return idx2("C", (i - 1 - m) / 2, (i - 1 - m) % 2);
    }
    case PrimitiveType::sphere: return "radius";
  }
  return "";
}

void shape_derivatives(const Primitive& shape1, const Primitive& shape2, const ContactResult& res,
                       ShapeDerivatives& out) {
  check_parameterizable(shape1, "dcol::shape_derivatives");
  check_parameterizable(shape2, "dcol::shape_derivatives");
  const int c1 = shape_parameter_count(shape1), c2 = shape_parameter_count(shape2), P = c1 + c2;
  out.count1 = c1;
  out.count2 = c2;
  out.d_alpha.setZero(P);
  out.d_gap.setZero(P);
  out.d_x_W.setZero(3, P);
  out.d_p1_W.setZero(3, P);
  out.d_p2_W.setZero(3, P);
  out.status = status_of(res);
  if (!out.ok()) return;
  const ConeKkt& k = res.kkt;
  const int ns1 = slack_count_of(shape1), ns2 = slack_count_of(shape2);
  if (k.n != 4 + ns1 + ns2 || k.orthant_rows[0] != primitive_orthant_rows(shape1) ||
      k.orthant_rows[1] != primitive_orthant_rows(shape2))
    throw std::invalid_argument("dcol::shape_derivatives: the shapes do not match the result's cone program");
  ActiveProblem A;
  if (!build_active_problem(res, A)) {
    out.status = DerivativeStatus::singular;
    return;
  }
  const Primitive* shapes[2] = {&shape1, &shape2};
  const Pose* X[2] = {&res.X_WS1, &res.X_WS2};
  const int slack0[2] = {4, 4 + ns1}, off[2] = {0, c1};
  const Vec3 y[2] = {X[0]->R.transpose() * (res.x_W - X[0]->p), X[1]->R.transpose() * (res.x_W - X[1]->p)};
  const double alpha = res.alpha;
  const int l1 = k.orthant_rows[0], l2 = k.orthant_rows[1];
  // compact columns: the parameters the active rows touch
  int col_of[kMaxPairParameters];
  for (int c = 0; c < P; ++c) col_of[c] = -1;
  int param_of[kMaxTouched];
  int nc = 0;
  double st[kR][kMaxTouched] = {};
  double T[kMaxConeVars][kMaxTouched] = {};
  bool overflow = false;
  for (int r = 0; r < A.nr; ++r) {
    const int i = A.row[r], b = A.body[r];
    bool cone_row = i >= l1 + l2;
    int li = b == 0 ? i : i - l1;
    if (cone_row)
      for (int c = 0; c < k.soc_count; ++c)
        if (i >= k.soc_start[c] && i < k.soc_start[c] + k.soc_dim[c]) li = i - k.soc_start[c];
    const Mat3& Q = X[b]->R;
    const double w0 = A.w[slack0[b]], w1 = slack0[b] + 1 < k.n ? A.w[slack0[b] + 1] : 0.0;
    row_parameters(*shapes[b], cone_row, li, [&](int param, const Vec3& da, double db, double ds0, double ds1) {
      const int g = off[b] + param;
      if (col_of[g] < 0) {
        if (nc == kMaxTouched) {
          overflow = true;
          return;
        }
        col_of[g] = nc;
        param_of[nc++] = g;
      }
      const int c = col_of[g];
      st[r][c] += da.dot(y[b]) + db * alpha + ds0 * w0 + ds1 * w1;
      const Vec3 qa = Q * da;
      for (int a = 0; a < 3; ++a) T[a][c] += A.z[r] * qa[a];
      T[3][c] += A.z[r] * db;
      if (ds0 != 0.0) T[slack0[b]][c] += A.z[r] * ds0;
      if (ds1 != 0.0) T[slack0[b] + 1][c] += A.z[r] * ds1;
    });
  }
  if (overflow) {
    out.status = DerivativeStatus::singular;
    return;
  }
  double Bc[kMaxTouched][kQ];
  assemble_b<kMaxTouched>(A, st, T, nc, Bc);
  // rows 0–3 of K⁻¹ (K symmetric): dx_{0:4} = −(K⁻¹)_{0:4,:}·B
  double Y[4][kQ];
  for (int a = 0; a < 4; ++a) {
    for (int i = 0; i < A.q; ++i) Y[a][i] = i == a ? 1.0 : 0.0;
    detail::lu_solve(A.K, A.perm, A.q, Y[a]);
  }
  const Vec3 r1 = res.X_WS1.p, r2 = res.X_WS2.p;
  const double D = (r2 - r1).norm(), ia = 1.0 / alpha;
  for (int c = 0; c < nc; ++c) {
    double da = 0.0;  // envelope theorem: dα/dθ = −zᵀ ∂s/∂θ
    for (int r = 0; r < A.nr; ++r) da -= A.z[r] * st[r][c];
    Vec3 dx;
    for (int a = 0; a < 3; ++a) {
      double v = 0.0;
      for (int i = 0; i < A.q; ++i) v -= Y[a][i] * Bc[c][i];
      dx[a] = v;
    }
    const int g = param_of[c];
    out.d_alpha[g] = da;
    out.d_gap[g] = D * ia * ia * da;
    out.d_x_W.col(g) = dx;
    out.d_p1_W.col(g) = ia * dx - (ia * ia * da) * (res.x_W - r1);
    out.d_p2_W.col(g) = ia * dx - (ia * ia * da) * (res.x_W - r2);
  }
  if (!out.d_alpha.allFinite() || !out.d_x_W.allFinite()) {
    out.d_alpha.setZero(P);
    out.d_gap.setZero(P);
    out.d_x_W.setZero(3, P);
    out.d_p1_W.setZero(3, P);
    out.d_p2_W.setZero(3, P);
    out.status = DerivativeStatus::singular;
  }
}

ShapeDerivatives shape_derivatives(const Primitive& shape1, const Primitive& shape2, const ContactResult& result) {
  ShapeDerivatives d;
  shape_derivatives(shape1, shape2, result, d);
  return d;
}

}  // namespace diffcol::dcol
