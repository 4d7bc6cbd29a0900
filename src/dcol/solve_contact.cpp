// DCOL contact query: assembly of the cone program (seed Sec. III-B) and the primal–dual
// interior-point solver (Sec. II-A).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include <Eigen/LU>

#include "cone_ops.hpp"
#include "core_distance.hpp"
#include "support_search.hpp"
#include "diffcol/dcol/contact.hpp"

#include "../minkowski_ray_cast.hpp"

namespace diffcol::dcol {

const char* status_name(SolveStatus s) {
  switch (s) {
    case SolveStatus::converged: return "converged";
    case SolveStatus::max_iterations: return "max_iterations";
    case SolveStatus::numerical_error: return "numerical_error";
    case SolveStatus::invalid_input: return "invalid_input";
    case SolveStatus::coincident_origins: return "coincident_origins";
    case SolveStatus::not_certified: return "not_certified";
  }
  return "unknown";
}

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

using detail::orthant_count;

/// Origins closer than this times the sum of the outer radii are coincident (α* = 0).
constexpr double kCoincidentOrigins = 1e-100;

// ============================================================================ assembly

/// Slack unknowns of a primitive: γ of the capsule (12), w ∈ R² of the padded polygon (25).
template <class P> constexpr int slack_count() {
  if constexpr (std::is_same_v<P, Capsule>) return 1;
  else if constexpr (std::is_same_v<P, PaddedPolygon>) return 2;
  else return 0;
}
template <class P> constexpr int soc_dimension() {
  if constexpr (std::is_same_v<P, Polytope>) return 0;
  else if constexpr (std::is_same_v<P, Cylinder> || std::is_same_v<P, Cone>) return 3;
  else return 4;
}
template <class P> int orthant_count_of(const P& p) {
  if constexpr (std::is_same_v<P, Polytope>) return p.num_faces;
  else if constexpr (std::is_same_v<P, PaddedPolygon>) return p.num_edges;
  else if constexpr (std::is_same_v<P, Capsule> || std::is_same_v<P, Cylinder>) return 2;
  else if constexpr (std::is_same_v<P, Cone>) return 1;
  else return 0;
}

/// Writes the rows of one primitive. Each row is s = aᵀy + b·α + (slack terms) with y = Qᵀ(p − r)
/// the shape-frame point; in the scaled coordinates p = origin + ℓ p̂ this is row
/// G_p = −(Q a)ᵀ, G_α = −b/ℓ, G_slack = −coefficient, h = −(Q a)ᵀ r̂, r̂ = (r − origin)/ℓ
/// (the row divided by ℓ; every a here is dimensionless, every b a length).
struct RowWriter {
  ConeKkt& k;
  Vec3 r_hat;
  double inv_scale;
  int slack0;  // column of this primitive's first slack

  void row(int i, const Vec3& Qa, double b, double slack_a = 0.0, double slack_b = 0.0) const {
    double* g = k.G[i];
    g[0] = -Qa.x();
    g[1] = -Qa.y();
    g[2] = -Qa.z();
    g[3] = -b * inv_scale;
    for (int j = 4; j < kMaxConeVars; ++j) g[j] = 0.0;
    if (slack0 >= 0) {
      g[slack0] = -slack_a;
      if (slack0 + 1 < kMaxConeVars) g[slack0 + 1] = -slack_b;
    }
    k.h[i] = -Qa.dot(r_hat);
  }
};

// Orthant rows, eq. (11), (14), (18), (21), (27).
void write_orthant(const Polytope& p, const Mat3& Q, const RowWriter& w, int i0) {
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

// ============================================================================ the solver

/// Cholesky H = L Lᵀ of the leading N×N block with dynamic regularization: a pivot below
/// 1e-15·max_j H_jj (H singular to working precision, e.g. at a face–face contact where the
/// optimal point is not unique) is raised to that value; the iterative refinement in
/// newton_direction corrects most of the perturbation. False only for non-finite entries.
template <int N>
bool cholesky(const double (&H)[N][N], double (&L)[kMaxConeVars][kMaxConeVars]) {
  double max_diag = 0.0;
  for (int j = 0; j < N; ++j) max_diag = std::max(max_diag, H[j][j]);
  if (!(max_diag > 0.0) || !std::isfinite(max_diag)) return false;
  const double floor = 1e-15 * max_diag;
  for (int j = 0; j < N; ++j) {
    double d = H[j][j];
    for (int q = 0; q < j; ++q) d -= L[j][q] * L[j][q];
    if (!std::isfinite(d)) return false;
    if (d < floor) d = floor;
    const double inv = 1.0 / std::sqrt(d);
    L[j][j] = inv;  // the reciprocal of the diagonal entry (see ConeKkt::L)
    for (int i = j + 1; i < N; ++i) {
      double v = H[i][j];
      for (int q = 0; q < j; ++q) v -= L[i][q] * L[j][q];
      L[i][j] = v * inv;
    }
  }
  return true;
}

/// Solves L Lᵀ x = b in place.
template <int N>
void cholesky_solve(const double (&L)[kMaxConeVars][kMaxConeVars], double* b) {
  for (int i = 0; i < N; ++i) {
    double v = b[i];
    for (int q = 0; q < i; ++q) v -= L[i][q] * b[q];
    b[i] = v * L[i][i];
  }
  for (int i = N - 1; i >= 0; --i) {
    double v = b[i];
    for (int q = i + 1; q < N; ++q) v -= L[q][i] * b[q];
    b[i] = v * L[i][i];
  }
}

template <int N>
struct Workspace {
  double lambda[kMaxConeRows];
  double inv_lambda[kMaxConeRows];  // 1/λ_i on the orthant rows
  double inv_w[kMaxConeRows];       // 1/w_i on the orthant rows
  double q[kMaxConeRows];      // W⁻¹ r_z
  double rx[N];
  // Constant over a solve (set by prepare_workspace):
  double GJG[2][N][N];  // per cone: Gₖᵀ J Gₖ, J = diag(1, −1, …, −1)
  int nz[kMaxConeRows][N];  // per orthant row (N > 5 only): its structurally nonzero columns
  int nz_count[kMaxConeRows];
};

/// The parts of the normal matrix that do not change during a solve (G is fixed).
template <int N>
void prepare_workspace(const ConeKkt& k, Workspace<N>& ws) {
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    for (int a = 0; a < N; ++a)
      for (int b = 0; b <= a; ++b) {
        double v = k.G[s0][a] * k.G[s0][b];
        for (int r = 1; r < d; ++r) v -= k.G[s0 + r][a] * k.G[s0 + r][b];
        ws.GJG[c][a][b] = ws.GJG[c][b][a] = v;
      }
  }
  if constexpr (N > 5) {
    for (int i = 0; i < orthant_count(k); ++i) {
      int cnt = 0;
      for (int a = 0; a < N; ++a)
        if (k.G[i][a] != 0.0) ws.nz[i][cnt++] = a;
      ws.nz_count[i] = cnt;
    }
  }
}

/// Forms H = Gᵀ W⁻² G and factors it into k.L. Orthant rows: W⁻² = diag(z_i/s_i) = diag(1/w_i²).
/// Cone k: W = β W̄ with W̄² = 2w̄w̄ᵀ − J (w̄ = W̄e, w̄ᵀJw̄ = 1), so W̄⁻² = J W̄² J = 2(Jw̄)(Jw̄)ᵀ − J and
///   Gₖᵀ W⁻² Gₖ = β⁻² (2 v vᵀ − Gₖᵀ J Gₖ),  v = Gₖᵀ J w̄,
/// with Gₖᵀ J Gₖ precomputed: no scaled copy of G is formed.
template <int N>
bool factor_normal_matrix(ConeKkt& k, Workspace<N>& ws) {
  const int l = orthant_count(k);
  double H[N][N] = {};
  if constexpr (N <= 5) {
    for (int i = 0; i < l; ++i) {
      const double* g = k.G[i];
      const double d = ws.inv_w[i] * ws.inv_w[i];
      double dg[N];
      for (int a = 0; a < N; ++a) dg[a] = d * g[a];
      for (int a = 0; a < N; ++a)
        for (int b = 0; b <= a; ++b) H[a][b] += dg[a] * g[b];
    }
  } else {
    for (int i = 0; i < l; ++i) {
      const double* g = k.G[i];
      const double d = ws.inv_w[i] * ws.inv_w[i];
      const int* nz = ws.nz[i];
      const int cnt = ws.nz_count[i];
      for (int a = 0; a < cnt; ++a) {
        const double ga = d * g[nz[a]];
        for (int b = 0; b <= a; ++b) H[nz[a]][nz[b]] += ga * g[nz[b]];
      }
    }
  }
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    const double* wb = k.soc_wbar[c];
    double v[N];
    for (int a = 0; a < N; ++a) {
      double t = k.G[s0][a] * wb[0];
      for (int r = 1; r < d; ++r) t -= k.G[s0 + r][a] * wb[r];
      v[a] = t;
    }
    const double f = 1.0 / (k.soc_beta[c] * k.soc_beta[c]);
    for (int a = 0; a < N; ++a)
      for (int b = 0; b <= a; ++b) H[a][b] += f * (2.0 * v[a] * v[b] - ws.GJG[c][a][b]);
  }
  for (int a = 0; a < N; ++a)
    for (int b = 0; b < a; ++b) H[b][a] = H[a][b];
  return cholesky<N>(H, k.L);
}

/// Newton direction for the scaled complementarity right side ds (Δs̃ + Δz̃ = ds), with
/// G̃ = W⁻¹G applied as vectors (W⁻¹ then G, or G then W⁻¹; W is symmetric):
///   H Δx = −r_x − Gᵀ W⁻¹(W⁻¹r_z + ds),  Δz̃ = W⁻¹ G Δx + W⁻¹r_z + ds,  Δs̃ = ds − Δz̃.
// GCC cannot see that the cone blocks (soc_start + soc_dim ≤ m) only read rows set above.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <int N>
void newton_direction(const ConeKkt& k, const Workspace<N>& ws, const double* ds, double* dx, double* dzt,
                      double* dst, bool refine) {
  const int m = k.m;
  double t[kMaxConeRows];
  for (int i = 0; i < m; ++i) t[i] = ws.q[i] + ds[i];
  detail::apply_scaling(k, true, t, t, ws.inv_w);
  for (int j = 0; j < N; ++j) dx[j] = -ws.rx[j];
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < N; ++j) dx[j] -= k.G[i][j] * t[i];
  cholesky_solve<N>(k.L, dx);
  double gdx[kMaxConeRows];
  for (int i = 0; i < m; ++i) {
    double v = 0.0;
    for (int j = 0; j < N; ++j) v += k.G[i][j] * dx[j];
    gdx[i] = v;
  }
  detail::apply_scaling(k, true, gdx, gdx, ws.inv_w);
  for (int i = 0; i < m; ++i) dzt[i] = ws.q[i] + ds[i] + gdx[i];
  if (!refine) {
    for (int i = 0; i < m; ++i) dst[i] = ds[i] - dzt[i];
    return;
  }
  // One step of iterative refinement on the dual equation G̃ᵀΔz̃ = −r_x (H is ill-conditioned
  // near the solution, as in every interior-point method; only needed late).
  detail::apply_scaling(k, true, dzt, t, ws.inv_w);
  double e[N];
  for (int j = 0; j < N; ++j) e[j] = -ws.rx[j];
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < N; ++j) e[j] -= k.G[i][j] * t[i];
  cholesky_solve<N>(k.L, e);
  for (int j = 0; j < N; ++j) dx[j] += e[j];
  for (int i = 0; i < m; ++i) {
    double v = 0.0;
    for (int j = 0; j < N; ++j) v += k.G[i][j] * e[j];
    gdx[i] = v;
  }
  detail::apply_scaling(k, true, gdx, gdx, ws.inv_w);
  for (int i = 0; i < m; ++i) {
    dzt[i] += gdx[i];
    dst[i] = ds[i] - dzt[i];
  }
}
#pragma GCC diagnostic pop

struct IpmOutcome {
  SolveStatus status;
  int iterations;
  double mu, pres, dres;
  StartMethod start = StartMethod::interior_point;
};

/// Shifts u into the interior of K: u ← u + (1 + a)e when a = min{t : u + t e ∈ K} ≥ 0 (cvxopt's start).
void shift_into_cone(const ConeKkt& k, double* u) {
  const int l = orthant_count(k);
  double a = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < l; ++i) a = std::max(a, -u[i]);
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double n2 = 0.0;
    for (int i = 1; i < d; ++i) n2 += u[s0 + i] * u[s0 + i];
    a = std::max(a, std::sqrt(n2) - u[s0]);
  }
  if (a < 0.0) return;
  const double t = 1.0 + a;
  for (int i = 0; i < l; ++i) u[i] += t;
  for (int c = 0; c < k.soc_count; ++c) u[k.soc_start[c]] += t;
}

/// Newton polish on the exact KKT conditions (2)–(5) (seed Sec. II-B) restricted to the active
/// set read off an interior-point iterate: orthant row i is active when s_i < z_i; a cone is
/// classified by pairing the spectral values of s and z (s₀ ∓ ‖s̄‖ with z₀ ± ‖z̄‖): none, one
/// (boundary: s, z ∈ ∂Q, z = ν(1, −ū), ū = s̄/‖s̄‖) or both (apex: s = 0) small on the s side.
/// The equations
///   c + Σ z_i g_i + Σ ν_k G_kᵀ(1, −ū_k) + Σ G_kᵀ z_k = 0,   g_iᵀx = h_i,   ‖s̄_k‖ = s_k0,   G_k x = h_k
/// are solved by Newton's method with the reduced KKT matrix [[M, Aᵀ], [A, 0]],
/// M = Σ ν_k Ḡ_kᵀ(I − ū_kū_kᵀ)Ḡ_k/‖s̄_k‖ (the cones' curvature; Ḡ_k = rows 1: of G_k). The result
/// is accepted only with a certificate: s = h − Gx ∈ K, z ∈ K, Gᵀz + c = 0 and sᵀz = 0 within
/// the tolerances. On success k.x, k.s, k.z, the active set and the LU factors of the reduced
/// matrix at the final Newton step (reused by contact_derivatives) are stored.
/// An active set with the starting multipliers of the Newton polish.
struct ActiveSet {
  int act[kMaxConeVars];          // active orthant rows
  int na = 0;
  int state[2] = {0, 0};          // per cone: 0 inactive, 1 boundary, 2 apex
  int yoff[2] = {0, 0};           // offset of each cone's multipliers in y
  int p = 0;                      // number of multipliers
  double y[detail::kMaxKktDim];   // multipliers: orthant rows, then ν (boundary) or z_k (apex)
};

template <int N>
bool polish_newton(ConeKkt& k, const SolveOptions& opt, double hnorm, IpmOutcome& out, ActiveSet& A,
                   const double* x_start);

/// Reads the active set off the interior-point iterate (k.s, k.z) and polishes from k.x.
template <int N>
bool polish(ConeKkt& k, const SolveOptions& opt, double hnorm, IpmOutcome& out) {
  const int n = k.n, l = orthant_count(k);
  ActiveSet A;
  int* act = A.act;
  double* y = A.y;
  int na = 0;
  for (int i = 0; i < l; ++i)
    if (k.s[i] < k.z[i]) {
      if (na == n) return false;  // more active rows than unknowns: degenerate, keep the IPM point
      y[na] = k.z[i];
      act[na++] = i;
    }
  int p = na;
  int state[2] = {0, 0}, yoff[2] = {0, 0};
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double sn = 0.0, zn = 0.0;
    for (int r = 1; r < d; ++r) {
      sn += k.s[s0 + r] * k.s[s0 + r];
      zn += k.z[s0 + r] * k.z[s0 + r];
    }
    sn = std::sqrt(sn);
    zn = std::sqrt(zn);
    const double sl = k.s[s0] - sn, su = k.s[s0] + sn, zl = k.z[s0] - zn, zu = k.z[s0] + zn;
    state[c] = (sl < zu) + (su < zl);
    yoff[c] = p;
    if (state[c] == 1) {
      if (p + 1 > n) return false;
      y[p++] = 0.5 * zu;
    } else if (state[c] == 2) {
      if (p + d > n) return false;
      for (int r = 0; r < d; ++r) y[p++] = k.z[s0 + r];
    }
  }
  A.na = na;
  A.p = p;
  for (int c = 0; c < 2; ++c) {
    A.state[c] = state[c];
    A.yoff[c] = yoff[c];
  }
  return polish_newton<N>(k, opt, hnorm, out, A, k.x);
}

/// Newton's method on the exact KKT conditions for the active set A from x_start (scaled
/// coordinates) and A.y, then the optimality certificate; on success the solution, the active set
/// and the LU factors are stored in k (see polish above).
template <int N>
bool polish_newton(ConeKkt& k, const SolveOptions& opt, double hnorm, IpmOutcome& out, ActiveSet& A,
                   const double* x_start) {
  constexpr int kAlpha = 3;
  constexpr int n = N;  // k.n: a template parameter so the loops over the unknowns unroll
  const int m = k.m, l = orthant_count(k);
  const int* act = A.act;
  double* y = A.y;
  const int na = A.na, p = A.p;
  const int* state = A.state;
  const int* yoff = A.yoff;
  const int q = n + p;
  // Without boundary cones the active constraints are linear and K is constant: one step is exact.
  const bool linear = state[0] != 1 && state[1] != 1;
  double (&K)[detail::kMaxKktDim][detail::kMaxKktDim] = k.kkt_lu;
  // Slack elimination (ConeKkt::elim_*): a primitive's active own-slack rows (no p-coefficients,
  // h = 0) fix slacks as linear functions of α and the other slack: x = T x̃, and each Newton
  // step solves Tᵀ K T (dimension q − 2·eliminated) instead of K.
  int ne = 0, ecol[4] = {}, eslot[4] = {}, esrc[4][2];  // zeroed: GCC -Og warns
  double ecoef[4][2];
  int gstart[2] = {0, 0}, gsize[2] = {0, 0};  // eliminations of each body: [gstart, gstart + gsize)
  // only where K is too large for the fully unrolled LU: below that the transformation costs
  // more than the smaller factorization saves (measured on the capsule pairs)
  if (q > detail::kLuUnroll) {
    const int l1 = k.orthant_rows[0];
    for (int body = 0; body < 2; ++body) {
      int rows[kMaxConeVars], nr = 0, cols[2], nsc = 0;
      bool usable = true;
      for (int a = 0; a < na; ++a) {
        const int i = act[a];
        if ((i < l1) != (body == 0)) continue;
        const double* g = k.G[i];
        if (g[0] != 0.0 || g[1] != 0.0 || g[2] != 0.0 || k.h[i] != 0.0) continue;
        if (nr == kMaxConeVars) usable = false;
        else rows[nr++] = a;
        for (int j = 4; j < n; ++j) {
          if (g[j] == 0.0) continue;
          bool seen = false;
          for (int t = 0; t < nsc; ++t) seen = seen || cols[t] == j;
          if (seen) continue;
          if (nsc == 2) usable = false;
          else cols[nsc++] = j;
        }
      }
      gstart[body] = ne;
      if (!usable || nr == 0 || nsc == 0 || nr > nsc) continue;
      if (nr == 1) {  // one column, the one with the largest coefficient, from α and the other
        const double* g = k.G[act[rows[0]]];
        const int e = nsc == 2 && std::abs(g[cols[1]]) > std::abs(g[cols[0]]) ? 1 : 0;
        const int c = cols[e];
        ecol[ne] = c;
        eslot[ne] = rows[0];
        esrc[ne][0] = kAlpha;
        ecoef[ne][0] = -g[kAlpha] / g[c];
        esrc[ne][1] = nsc == 2 ? cols[1 - e] : -1;
        ecoef[ne][1] = nsc == 2 ? -g[cols[1 - e]] / g[c] : 0.0;
        ++ne;
      } else {  // two rows fix both columns: B w = −g_α α
        const double *g0 = k.G[act[rows[0]]], *g1 = k.G[act[rows[1]]];
        const double b00 = g0[cols[0]], b01 = g0[cols[1]], b10 = g1[cols[0]], b11 = g1[cols[1]];
        const double det = b00 * b11 - b01 * b10;
        if (!(std::abs(det) > 1e-8 * (std::abs(b00 * b11) + std::abs(b01 * b10)))) continue;
        const double v0 = -(b11 * g0[kAlpha] - b01 * g1[kAlpha]) / det;
        const double v1 = -(b00 * g1[kAlpha] - b10 * g0[kAlpha]) / det;
        for (int t = 0; t < 2; ++t) {
          ecol[ne] = cols[t];
          eslot[ne] = rows[t];
          esrc[ne][0] = kAlpha;
          ecoef[ne][0] = t == 0 ? v0 : v1;
          esrc[ne][1] = -1;
          ecoef[ne][1] = 0.0;
          ++ne;
        }
      }
      gsize[body] = ne - gstart[body];
    }
  }
  const int qr = q - 2 * ne;
  // x_e = Σ_t coef·x_src on the eliminated slacks (T applied to v's kept entries)
  const auto apply_elimination = [&](double* v) {
    for (int e = 0; e < ne; ++e)
      v[ecol[e]] = ecoef[e][0] * v[esrc[e][0]] + (esrc[e][1] >= 0 ? ecoef[e][1] * v[esrc[e][1]] : 0.0);
  };
  int keep[detail::kMaxKktDim], red[detail::kMaxKktDim];  // reduced → full, full → reduced (−1: dropped)
  if (ne > 0) {
    for (int i = 0; i < q; ++i) red[i] = 0;
    for (int e = 0; e < ne; ++e) red[ecol[e]] = red[n + eslot[e]] = -1;
    int c = 0;
    for (int i = 0; i < q; ++i)
      if (red[i] == 0) {
        keep[c] = i;
        red[i] = c++;
      }
  }
  double x[kMaxConeVars];
  for (int j = 0; j < n; ++j) x[j] = x_start[j];
  apply_elimination(x);  // the start on the eliminated rows
  double Kr[detail::kMaxKktDim][detail::kMaxKktDim];  // Tᵀ K T and its LU factors
  bool converged = false;
  for (int it = 0; it < 8 && !converged; ++it) {
    double F[detail::kMaxKktDim];
    for (int i = 0; i < q; ++i) {
      F[i] = 0.0;
      for (int j = 0; j < q; ++j) K[i][j] = 0.0;
    }
    F[kAlpha] = 1.0;  // c
    for (int a = 0; a < na; ++a) {  // active orthant rows: g_iᵀx − h_i = 0
      const double* g = k.G[act[a]];
      double gx = 0.0;
      for (int j = 0; j < n; ++j) {
        gx += g[j] * x[j];
        F[j] += y[a] * g[j];
        K[j][n + a] = K[n + a][j] = g[j];
      }
      F[n + a] = gx - k.h[act[a]];
    }
    for (int c = 0; c < k.soc_count; ++c) {
      if (state[c] == 0) continue;
      const int s0 = k.soc_start[c], d = k.soc_dim[c];
      // the cone's rows padded to 4 with zero rows (d = 3 or 4), so every loop below has
      // constant bounds and unrolls; a zero row adds nothing to ‖s̄‖, ūᵀḠ or the curvature
      double Gc[4][n], sv[4];
      for (int r = 0; r < 4; ++r) {
        const bool row = r < d;
        double gx = 0.0;
        for (int j = 0; j < n; ++j) {
          Gc[r][j] = row ? k.G[s0 + r][j] : 0.0;
          gx += Gc[r][j] * x[j];
        }
        sv[r] = row ? k.h[s0 + r] - gx : 0.0;
      }
      const int o = n + yoff[c];
      if (state[c] == 1) {  // boundary: ‖s̄‖ − s₀ = 0, multiplier ν
        const double nb = std::sqrt(sv[1] * sv[1] + sv[2] * sv[2] + sv[3] * sv[3]);
        if (!(nb > 0.0)) return false;
        double u[4];
        for (int r = 1; r < 4; ++r) u[r] = sv[r] / nb;
        const double nu = y[yoff[c]];
        double ug[kMaxConeVars];  // ūᵀḠ (per column)
        for (int j = 0; j < n; ++j) {
          const double v = u[1] * Gc[1][j] + u[2] * Gc[2][j] + u[3] * Gc[3][j];
          ug[j] = v;
          const double dj = Gc[0][j] - v;  // G_kᵀ(1, −ū)
          F[j] += nu * dj;
          K[j][o] = K[o][j] = dj;
        }
        F[o] = nb - sv[0];
        const double f = nu / nb;
        for (int a = 0; a < n; ++a)
          for (int b = 0; b <= a; ++b) {
            const double t = Gc[1][a] * Gc[1][b] + Gc[2][a] * Gc[2][b] + Gc[3][a] * Gc[3][b];
            const double v = f * (t - ug[a] * ug[b]);
            K[a][b] += v;
            if (b != a) K[b][a] += v;
          }
      } else {  // apex: s = 0, multiplier z_k
        for (int r = 0; r < d; ++r) {
          for (int j = 0; j < n; ++j) {
            F[j] += y[yoff[c] + r] * k.G[s0 + r][j];
            K[j][o + r] = K[o + r][j] = k.G[s0 + r][j];
          }
          F[o + r] = -sv[r];
        }
      }
    }
    if (ne == 0) {
      if (!detail::lu_factor(K, k.kkt_perm, q, 1e-11)) return false;
      for (int i = 0; i < q; ++i) F[i] = -F[i];
      detail::lu_solve(K, k.kkt_perm, q, F);
    } else {
      // Kr = Tᵀ K T, right side −Tᵀ F; K itself stays for the eliminated rows below
      double KT[detail::kMaxKktDim][detail::kMaxKktDim], Fr[detail::kMaxKktDim];
      for (int i = 0; i < q; ++i)
        for (int jr = 0; jr < qr; ++jr) KT[i][jr] = K[i][keep[jr]];
      for (int e = 0; e < ne; ++e)
        for (int t = 0; t < 2; ++t) {
          if (esrc[e][t] < 0) continue;
          const int jr = red[esrc[e][t]];
          const double c = ecoef[e][t];
          for (int i = 0; i < q; ++i) KT[i][jr] += c * K[i][ecol[e]];
        }
      for (int ir = 0; ir < qr; ++ir) {
        for (int jr = 0; jr < qr; ++jr) Kr[ir][jr] = KT[keep[ir]][jr];
        Fr[ir] = F[keep[ir]];
      }
      for (int e = 0; e < ne; ++e)
        for (int t = 0; t < 2; ++t) {
          if (esrc[e][t] < 0) continue;
          const int ir = red[esrc[e][t]];
          const double c = ecoef[e][t];
          for (int jr = 0; jr < qr; ++jr) Kr[ir][jr] += c * KT[ecol[e]][jr];
          Fr[ir] += c * F[ecol[e]];
        }
      if (!detail::lu_factor(Kr, k.kkt_perm, qr, 1e-11)) return false;
      for (int i = 0; i < qr; ++i) Fr[i] = -Fr[i];
      detail::lu_solve(Kr, k.kkt_perm, qr, Fr);
      // the full step: kept entries, eliminated slacks by T, then the eliminated rows'
      // multipliers from their slacks' stationarity rows (F + K Δ = 0 there)
      double D[detail::kMaxKktDim];
      for (int i = 0; i < q; ++i) D[i] = red[i] >= 0 ? Fr[red[i]] : 0.0;
      apply_elimination(D);
      for (int body = 0; body < 2; ++body) {
        const int e0 = gstart[body], ng = gsize[body];
        if (ng == 0) continue;
        double rhs[2];
        for (int t = 0; t < ng; ++t) {
          const int c = ecol[e0 + t];
          double v = -F[c];
          for (int j = 0; j < q; ++j) v -= K[c][j] * D[j];  // D is 0 on the unknown multipliers
          rhs[t] = v;
        }
        if (ng == 1) {
          D[n + eslot[e0]] = rhs[0] / K[ecol[e0]][n + eslot[e0]];
        } else {  // [K[c_t][n + slot_u]] (2×2, Bᵀ of the setup, det checked there) · steps = rhs
          const double a00 = K[ecol[e0]][n + eslot[e0]], a01 = K[ecol[e0]][n + eslot[e0 + 1]];
          const double a10 = K[ecol[e0 + 1]][n + eslot[e0]], a11 = K[ecol[e0 + 1]][n + eslot[e0 + 1]];
          const double det = a00 * a11 - a01 * a10;
          D[n + eslot[e0]] = (a11 * rhs[0] - a01 * rhs[1]) / det;
          D[n + eslot[e0 + 1]] = (a00 * rhs[1] - a10 * rhs[0]) / det;
        }
      }
      for (int i = 0; i < q; ++i) F[i] = D[i];
    }
    double step = 0.0;  // max |F|; a NaN entry makes it NaN (std::max would drop it)
    for (int j = 0; j < n; ++j) {
      x[j] += F[j];
      if (!(std::abs(F[j]) <= step)) step = std::abs(F[j]);
    }
    for (int i = 0; i < p; ++i) {
      y[i] += F[n + i];
      if (!(std::abs(F[n + i]) <= step)) step = std::abs(F[n + i]);
    }
    if (!std::isfinite(step)) return false;
    converged = linear || step <= 1e-9;
  }
  if (!converged || !(x[kAlpha] > 0.0)) return false;

  // Certificate: primal s = h − Gx ∈ K, dual z ∈ K, Gᵀz + c = 0, sᵀz = 0.
  double s[kMaxConeRows], z[kMaxConeRows];
  for (int i = 0; i < m; ++i) {
    double gx = 0.0;
    for (int j = 0; j < n; ++j) gx += k.G[i][j] * x[j];
    s[i] = k.h[i] - gx;
    z[i] = 0.0;
  }
  for (int a = 0; a < na; ++a) z[act[a]] = y[a];
  double pviol = 0.0, dviol = 0.0;
  for (int i = 0; i < l; ++i) {
    pviol = std::max(pviol, -s[i]);
    dviol = std::max(dviol, -z[i]);
  }
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double sn = 0.0;
    for (int r = 1; r < d; ++r) sn += s[s0 + r] * s[s0 + r];
    sn = std::sqrt(sn);
    pviol = std::max(pviol, sn - s[s0]);
    if (state[c] == 1) {
      const double nu = y[yoff[c]];
      z[s0] = nu;
      for (int r = 1; r < d; ++r) z[s0 + r] = -nu * s[s0 + r] / sn;
      dviol = std::max(dviol, -nu);
    } else if (state[c] == 2) {
      double zn = 0.0;
      for (int r = 0; r < d; ++r) z[s0 + r] = y[yoff[c] + r];
      for (int r = 1; r < d; ++r) zn += z[s0 + r] * z[s0 + r];
      dviol = std::max(dviol, std::sqrt(zn) - z[s0]);
    }
  }
  // z is zero off the active orthant rows and the active cones: only those rows enter Gᵀz and sᵀz
  double rx[kMaxConeVars] = {}, gap = 0.0;
  rx[kAlpha] = 1.0;
  const auto add_row = [&](int i) {
    gap += s[i] * z[i];
    for (int j = 0; j < n; ++j) rx[j] += k.G[i][j] * z[i];
  };
  for (int a = 0; a < na; ++a) add_row(act[a]);
  for (int c = 0; c < k.soc_count; ++c)
    if (state[c] != 0)
      for (int r = 0; r < k.soc_dim[c]; ++r) add_row(k.soc_start[c] + r);
  double dres = 0.0;
  for (int j = 0; j < n; ++j) dres += rx[j] * rx[j];
  dres = std::sqrt(dres);
  const double pres = pviol / hnorm;
  const double tol = opt.feasibility_tolerance;
  if (!(pres <= tol) || !(dviol <= tol) || !(dres <= tol) ||
      !(std::abs(gap) <= std::max(opt.gap_tolerance, opt.gap_relative_tolerance * x[kAlpha])))
    return false;

  for (int j = 0; j < n; ++j) k.x[j] = x[j];
  for (int i = 0; i < m; ++i) {
    k.s[i] = s[i];
    k.z[i] = z[i];
  }
  for (int a = 0; a < na; ++a) k.active_rows[a] = act[a];
  k.active_count = na;
  for (int c = 0; c < 2; ++c) {
    k.soc_state[c] = c < k.soc_count ? state[c] : 0;
    k.soc_nu[c] = (c < k.soc_count && state[c] == 1) ? y[yoff[c]] : 0.0;
  }
  k.kkt_dim = qr;
  k.kkt_full_dim = q;
  k.elim_count = ne;
  for (int e = 0; e < ne; ++e) {
    k.elim_col[e] = ecol[e];
    k.elim_slot[e] = eslot[e];
    for (int t = 0; t < 2; ++t) {
      k.elim_src[e][t] = esrc[e][t];
      k.elim_coef[e][t] = ecoef[e][t];
    }
  }
  if (ne > 0)
    for (int i = 0; i < qr; ++i)
      for (int j = 0; j < qr; ++j) k.kkt_lu[i][j] = Kr[i][j];
  k.polished = true;
  out.mu = std::abs(gap) / (l + k.soc_count);
  out.pres = pres;
  out.dres = dres;
  return true;
}

template <int N>
IpmOutcome interior_point(ConeKkt& k, const SolveOptions& opt) {
  constexpr int kAlpha = 3;
  const int m = k.m;
  const int degree = orthant_count(k) + k.soc_count;
  Workspace<N> ws;
  prepare_workspace<N>(k, ws);
  double hnorm = 0.0;
  for (int i = 0; i < m; ++i) hnorm += k.h[i] * k.h[i];
  hnorm = std::max(1.0, std::sqrt(hnorm));

  // --- start (cvxopt): W = I; x̂ = argmin ‖Gx − h‖, ŝ = h − Gx̂; ẑ = argmin ‖z‖ s.t. Gᵀz + c = 0.
  for (int i = 0; i < orthant_count(k); ++i) k.w[i] = ws.inv_w[i] = 1.0;
  for (int c = 0; c < k.soc_count; ++c) {
    k.soc_beta[c] = 1.0;
    k.soc_wbar[c][0] = 1.0;
    for (int i = 1; i < 4; ++i) k.soc_wbar[c][i] = 0.0;
  }
  if (!factor_normal_matrix<N>(k, ws)) return {SolveStatus::numerical_error, 0, 0.0, 0.0, 0.0};
  double xh[N] = {}, cz[N] = {};
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < N; ++j) xh[j] += k.G[i][j] * k.h[i];
  cholesky_solve<N>(k.L, xh);
  cz[kAlpha] = 1.0;
  cholesky_solve<N>(k.L, cz);
  for (int i = 0; i < m; ++i) {
    double gx = 0.0, gc = 0.0;
    for (int j = 0; j < N; ++j) {
      gx += k.G[i][j] * xh[j];
      gc += k.G[i][j] * cz[j];
    }
    k.s[i] = k.h[i] - gx;
    k.z[i] = -gc;
  }
  for (int j = 0; j < N; ++j) k.x[j] = xh[j];
  for (int j = N; j < kMaxConeVars; ++j) k.x[j] = 0.0;
  shift_into_cone(k, k.s);
  shift_into_cone(k, k.z);

  // Smoothing: centre at μ_target (user level). Otherwise, once converged, centre at the final
  // μ for up to opt.final_centering_steps Newton steps (polish): on curved boundaries a feasible
  // point with gap δ can be O(√δ) from x*, the central point at μ only O(μ), and the IFT
  // derivatives are exact for the central point.
  bool smoothing = opt.barrier_target > 0.0;
  double mu_target = opt.barrier_target;
  double centring_tol = 1e-8;
  int polish_left = -1;
  // The converged iterate before polishing, restored if polishing fails numerically.
  double saved_x[N], saved_s[kMaxConeRows], saved_z[kMaxConeRows];
  double saved_mu = 0.0, saved_pres = 0.0, saved_dres = 0.0;
  auto restore = [&](int iters) -> IpmOutcome {
    for (int j = 0; j < N; ++j) k.x[j] = saved_x[j];
    for (int i = 0; i < m; ++i) {
      k.s[i] = saved_s[i];
      k.z[i] = saved_z[i];
    }
    k.factored = detail::compute_scaling(k, ws.lambda, ws.inv_w, ws.inv_lambda) && factor_normal_matrix<N>(k, ws);
    return {SolveStatus::converged, iters, saved_mu, saved_pres, saved_dres};
  };
  double polish_gap = opt.polish_start;
  // the relative gap at which the next polish is tried
  double rz[kMaxConeRows];
  double mu = 0.0, pres = 0.0, dres = 0.0;
  int it = 0;
  for (;; ++it) {
    // --- residuals r_x = Gᵀz + c, r_z = s + Gx − h, and the duality measure
    for (int j = 0; j < N; ++j) ws.rx[j] = 0.0;
    ws.rx[kAlpha] = 1.0;
    double gap = 0.0, rz2 = 0.0;
    for (int i = 0; i < m; ++i) {
      const double* g = k.G[i];
      double gx = 0.0;
      for (int j = 0; j < N; ++j) {
        gx += g[j] * k.x[j];
        ws.rx[j] += g[j] * k.z[i];
      }
      rz[i] = k.s[i] + gx - k.h[i];
      rz2 += rz[i] * rz[i];
      gap += k.s[i] * k.z[i];
    }
    double rx2 = 0.0;
    for (int j = 0; j < N; ++j) rx2 += ws.rx[j] * ws.rx[j];
    pres = std::sqrt(rz2) / hnorm;
    dres = std::sqrt(rx2);
    mu = gap / degree;
    if (polish_left >= 0 && (!std::isfinite(pres) || !std::isfinite(dres) || !(mu > 0.0) ||
                             pres > opt.feasibility_tolerance || dres > opt.feasibility_tolerance))
      return restore(it);
    if (!std::isfinite(pres) || !std::isfinite(dres) || !std::isfinite(mu)) {
      k.factored = false;
      return {SolveStatus::numerical_error, it, mu, pres, dres};
    }

    // --- scaling at the current iterate; its factorization is kept for the derivatives
    const bool scaled = detail::compute_scaling(k, ws.lambda, ws.inv_w, ws.inv_lambda);
    const bool factored = scaled && factor_normal_matrix<N>(k, ws);
    k.factored = factored;

    const bool feasible = pres <= opt.feasibility_tolerance && dres <= opt.feasibility_tolerance;
    // Newton polish on the exact KKT conditions once the active set is readable (or at the end).
    const bool ipm_done = feasible && (gap <= opt.gap_tolerance || gap <= opt.gap_relative_tolerance * std::abs(k.x[kAlpha]));
    if (!smoothing && opt.polish && polish_left < 0 &&
        (ipm_done || (pres <= opt.polish_start && dres <= opt.polish_start &&
                      gap <= polish_gap * std::max(std::abs(k.x[kAlpha]), 1e-6)))) {
      IpmOutcome o{SolveStatus::converged, it, mu, pres, dres};
      if (polish<N>(k, opt, hnorm, o)) {
        k.factored = false;
        return o;
      }
      polish_gap = gap * 1e-2 / std::max(std::abs(k.x[kAlpha]), 1e-6);
    }
    bool done;
    if (smoothing) {
      // centred at μ_target: ‖λ∘λ − μ_t e‖_∞ ≤ 1e-8 μ_t
      double dev = 0.0;
      if (scaled) {
        double ll[kMaxConeRows];
        detail::jordan_product(k, ws.lambda, ws.lambda, ll);
        for (int i = 0; i < orthant_count(k); ++i) ll[i] -= mu_target;
        for (int c = 0; c < k.soc_count; ++c) ll[k.soc_start[c]] -= mu_target;
        for (int i = 0; i < m; ++i) dev = std::max(dev, std::abs(ll[i]));
      }
      done = feasible && scaled && dev <= centring_tol * mu_target;
      if (polish_left == 0) done = true;
      if (polish_left > 0) --polish_left;
    } else {
      done = feasible && (gap <= opt.gap_tolerance || gap <= opt.gap_relative_tolerance * std::abs(k.x[kAlpha]));
      // The gap has closed to rounding level but a residual stalls just above its tolerance
      // (ill-conditioned H): accept within 1000× the feasibility tolerance, do not polish.
      const bool stalled = gap <= 1e-13 && pres <= 1e3 * opt.feasibility_tolerance &&
                           dres <= 1e3 * opt.feasibility_tolerance;
      if (!done && stalled) return {SolveStatus::converged, it, mu, pres, dres};
      if (done && opt.final_centering_steps > 0 && factored) {
        for (int j = 0; j < N; ++j) saved_x[j] = k.x[j];
        for (int i = 0; i < m; ++i) {
          saved_s[i] = k.s[i];
          saved_z[i] = k.z[i];
        }
        saved_mu = mu;
        saved_pres = pres;
        saved_dres = dres;
        smoothing = true;
        mu_target = mu;
        centring_tol = opt.final_centering_tolerance;
        polish_left = opt.final_centering_steps;
        done = false;
      }
    }
    if (done) return {SolveStatus::converged, it, mu, pres, dres};
    if (polish_left >= 0 && (it >= opt.max_iterations || !factored)) return restore(it);
    if (it >= opt.max_iterations) return {SolveStatus::max_iterations, it, mu, pres, dres};
    if (!factored) return {SolveStatus::numerical_error, it, mu, pres, dres};

    detail::apply_scaling(k, true, rz, ws.q, ws.inv_w);  // W⁻¹ r_z

    const bool refine = mu < 1e-9;
    // --- predictor (affine scaling): Δs̃ + Δz̃ = −λ
    double ds[kMaxConeRows], dx[N], dzt[kMaxConeRows], dst[kMaxConeRows];
    for (int i = 0; i < m; ++i) ds[i] = -ws.lambda[i];
    const bool centring = smoothing && mu <= 2.0 * mu_target;
    double sigma_mu;
    double cross[kMaxConeRows];
    if (!centring) {
      newton_direction<N>(k, ws, ds, dx, dzt, dst, refine);
      const double t_aff =
          std::min(1.0, std::min(detail::max_step(k, ws.lambda, ws.inv_lambda, dst), detail::max_step(k, ws.lambda, ws.inv_lambda, dzt)));
      const double sigma = (1.0 - t_aff) * (1.0 - t_aff) * (1.0 - t_aff);
      sigma_mu = sigma * mu;
      if (smoothing) sigma_mu = std::max(sigma_mu, mu_target);
      detail::jordan_product(k, dst, dzt, cross);  // Mehrotra's second-order term
    } else {
      sigma_mu = mu_target;  // pure Newton on s∘z = μ_t e
      for (int i = 0; i < m; ++i) cross[i] = 0.0;
    }

    // --- combined step: λ∘(Δs̃ + Δz̃) = −λ∘λ − Δs̃_a∘Δz̃_a + σμe
    double rhs[kMaxConeRows];
    detail::jordan_product(k, ws.lambda, ws.lambda, rhs);
    for (int i = 0; i < m; ++i) rhs[i] = -rhs[i] - cross[i];
    for (int i = 0; i < orthant_count(k); ++i) rhs[i] += sigma_mu;
    for (int c = 0; c < k.soc_count; ++c) rhs[k.soc_start[c]] += sigma_mu;
    detail::jordan_divide(k, ws.lambda, rhs, ds, ws.inv_lambda);
    newton_direction<N>(k, ws, ds, dx, dzt, dst, refine);
    const double t_max = std::min(detail::max_step(k, ws.lambda, ws.inv_lambda, dst), detail::max_step(k, ws.lambda, ws.inv_lambda, dzt));
    const double t = std::min(1.0, 0.99 * t_max);

    // --- update: Δz = W⁻¹ Δz̃; Δs = −r_z − GΔx from the primal equation itself (the same as
    // W Δs̃ in exact arithmetic, but it keeps the primal residual shrinking by (1 − t) exactly)
    detail::apply_scaling(k, true, dzt, dzt, ws.inv_w);
    for (int i = 0; i < m; ++i) {
      double v = -rz[i];
      for (int j = 0; j < N; ++j) v -= k.G[i][j] * dx[j];
      dst[i] = v;
    }
    for (int j = 0; j < N; ++j) k.x[j] += t * dx[j];
    for (int i = 0; i < m; ++i) {
      k.s[i] += t * dst[i];
      k.z[i] += t * dzt[i];
    }
  }
}

template <class P> constexpr bool is_strictly_convex() {
  return std::is_same_v<P, Sphere> || std::is_same_v<P, Ellipsoid>;
}

/// The direct Newton solve for two strictly convex primitives (sphere, ellipsoid; rows: one 4-dim
/// cone each, nothing else): the optimal active set is known — both cones on their boundary — so
/// Newton's method on the exact KKT conditions (the polish) can start from a geometric guess
/// instead of an interior-point iterate. In scaled coordinates shape k at scale α is
/// {ĉ_k + y : ‖A_k y‖ ≤ α}, A_k = −Ḡ_k,p ℓ/ρ_k (its cone rows), with support point
/// σ_k(d) = Q_k d/√(dᵀQ_k d), Q_k = (A_kᵀA_k)⁻¹. At the optimum the two scaled shapes touch with
/// opposite normals d, −d, so α(σ₁(d) − σ₂(−d)) = ĉ₂ − ĉ₁: d is the normal of the Minkowski sum
/// E₁ ⊕ (−E₂) where the centre line u = (ĉ₂ − ĉ₁)/D meets it. Guess for d: the normal along u of
/// the outer ellipsoid Q_t = (1 + 1/t)Q₁ + (1 + t)Q₂, t = h₂(u)/h₁(u) (h_k(d) = √(dᵀQ_k d)), which
/// touches the sum in direction u: d = Q_t⁻¹u normalised (one round; a second one measured slower
/// overall). Then α₀ = D/uᵀ(σ₁(d) − σ₂(−d)), p₀ = ĉ₁ + α₀σ₁(d). Two spheres: d = u, exact. The
/// multipliers from the α-row of the stationarity, 1 = Σ ν_k ρ_k/ℓ, and the balance
/// ν₁‖Ḡ₁ᵀū₁‖ = ν₂‖Ḡ₂ᵀū₂‖ of its p-rows. Accepted only with the polish's certificate.
bool direct_newton(ConeKkt& k, const SolveOptions& opt, const Vec3& c1, const Vec3& c2, bool two_spheres,
                   IpmOutcome& out) {
  if (k.soc_count != 2 || orthant_count(k) != 0 || k.n != 4 || k.soc_dim[0] != 4 || k.soc_dim[1] != 4) return false;
  const Vec3 r12 = c2 - c1;
  const double D = r12.norm();
  if (!(D > 0.0) || !std::isfinite(D)) return false;
  const Vec3 u = r12 / D;
  double nu[2], mnorm[2];
  double a0;
  Vec3 p0;
  if (two_spheres) {  // radii ρ_k/(ℓ‖Ḡ_k u‖)
    double e[2];
    for (int c = 0; c < 2; ++c) {
      const int s0 = k.soc_start[c];
      Vec3 gu;
      for (int r = 0; r < 3; ++r)
        gu[r] = k.G[s0 + 1 + r][0] * u.x() + k.G[s0 + 1 + r][1] * u.y() + k.G[s0 + 1 + r][2] * u.z();
      e[c] = -k.G[s0][3] / gu.norm();
    }
    if (!(e[0] > 0.0) || !(e[1] > 0.0) || !std::isfinite(e[0] + e[1])) return false;
    a0 = D / (e[0] + e[1]);
    p0 = c1 + (a0 * e[0]) * u;
  } else {
    Mat3 Q[2];
    for (int c = 0; c < 2; ++c) {
      const int s0 = k.soc_start[c];
      const double scale = 1.0 / -k.G[s0][3];  // ℓ/ρ_k
      Mat3 A;
      for (int r = 0; r < 3; ++r)
        for (int j = 0; j < 3; ++j) A(r, j) = -k.G[s0 + 1 + r][j] * scale;
      bool invertible = false;
      double det = 0.0;
      (A.transpose() * A).eval().computeInverseAndDetWithCheck(Q[c], det, invertible, 0.0);
      if (!invertible || !(det > 0.0) || !Q[c].allFinite()) return false;
    }
    const double t = std::sqrt(u.dot(Q[1] * u) / u.dot(Q[0] * u));
    const Vec3 dq = ((1.0 + 1.0 / t) * Q[0] + (1.0 + t) * Q[1]).inverse() * u;
    if (!dq.allFinite() || !(dq.norm() > 0.0)) return false;
    const Vec3 d = dq.normalized();
    const Vec3 q1 = Q[0] * d, q2 = Q[1] * d;
    const Vec3 y1 = q1 / std::sqrt(d.dot(q1)), y2 = -q2 / std::sqrt(d.dot(q2));  // σ₁(d), σ₂(−d)
    const double reach = u.dot(y1 - y2);
    if (!(reach > 0.0) || !std::isfinite(reach)) return false;
    a0 = D / reach;
    p0 = c1 + a0 * y1;
  }
  double x0[kMaxConeVars] = {};
  x0[0] = p0.x();
  x0[1] = p0.y();
  x0[2] = p0.z();
  x0[3] = a0;
  double denom = 0.0;
  for (int c = 0; c < 2; ++c) {
    const int s0 = k.soc_start[c];
    double sv[3];
    for (int r = 0; r < 3; ++r) {
      const double* g = k.G[s0 + 1 + r];
      sv[r] = k.h[s0 + 1 + r] - (g[0] * x0[0] + g[1] * x0[1] + g[2] * x0[2] + g[3] * x0[3]);
    }
    const double sn = std::sqrt(sv[0] * sv[0] + sv[1] * sv[1] + sv[2] * sv[2]);
    if (!(sn > 0.0)) return false;
    Vec3 m = Vec3::Zero();  // Ḡ_pᵀ ū
    for (int r = 0; r < 3; ++r)
      for (int j = 0; j < 3; ++j) m[j] += k.G[s0 + 1 + r][j] * sv[r] / sn;
    mnorm[c] = m.norm();
    if (!(mnorm[c] > 0.0)) return false;
    denom += -k.G[s0][3] / mnorm[c];
  }
  for (int c = 0; c < 2; ++c) nu[c] = 1.0 / (denom * mnorm[c]);
  double hnorm = 0.0;
  for (int i = 0; i < k.m; ++i) hnorm += k.h[i] * k.h[i];
  hnorm = std::max(1.0, std::sqrt(hnorm));
  ActiveSet A;
  A.na = 0;
  A.p = 2;
  A.state[0] = A.state[1] = 1;
  A.yoff[0] = 0;
  A.yoff[1] = 1;
  A.y[0] = nu[0];
  A.y[1] = nu[1];
  out = {SolveStatus::converged, 0, 0.0, 0.0, 0.0};
  if (!polish_newton<4>(k, opt, hnorm, out, A, x0)) return false;
  k.factored = false;
  return true;
}

/// Slack unknowns at a start point p̂ (scaled coordinates) and scale α: the capsule's γ clamped
/// to the scaled segment, the padded polygon's w projected onto the scaled polygon (the optimal
/// slacks for that p̂, α). Other primitives have none.
template <class P>
void start_slacks([[maybe_unused]] const P& s, [[maybe_unused]] const Mat3& Q, [[maybe_unused]] const RowWriter& w,
                  [[maybe_unused]] double inv, [[maybe_unused]] double alpha, [[maybe_unused]] double* x) {
  if constexpr (std::is_same_v<P, Capsule>) {
    const Vec3 y = Q.transpose() * (Vec3(x[0], x[1], x[2]) - w.r_hat);
    const double half = 0.5 * alpha * s.L * inv;
    x[w.slack0] = std::clamp(y.x(), -half, half);
  } else if constexpr (std::is_same_v<P, PaddedPolygon>) {
    const Vec3 y = Q.transpose() * (Vec3(x[0], x[1], x[2]) - w.r_hat);
    const Eigen::Vector2d q(y.x(), y.y());
    const double a = alpha * inv;
    bool inside = true;
    for (int i = 0; i < s.num_edges && inside; ++i) inside = s.C(i, 0) * q.x() + s.C(i, 1) * q.y() <= a * s.d[i];
    Eigen::Vector2d best = q;
    if (!inside) {
      double bd = 1e300;
      for (int i = 0; i < s.num_vertices; ++i) {
        const int j = i + 1 == s.num_vertices ? 0 : i + 1;
        const Eigen::Vector2d v0 = a * s.V.row(i).transpose(), e = a * s.V.row(j).transpose() - v0;
        const double ee = e.squaredNorm();
        const double t = ee > 0.0 ? std::clamp((q - v0).dot(e) / ee, 0.0, 1.0) : 0.0;
        const Eigen::Vector2d c = v0 + t * e;
        const double dd = (c - q).squaredNorm();
        if (dd < bd) bd = dd, best = c;
      }
    }
    x[w.slack0] = best.x();
    x[w.slack0 + 1] = best.y();
  }
}

/// Multipliers y (p of them) by least squares on the stationarity c + Σ_a y_a·col_a = 0,
/// c = e_α (component 3): BᵀB y = −Bᵀc by Cholesky. False if B is (nearly) rank deficient: a
/// column whose component outside the span of the previous ones is below 1e-5 of its norm.
template <int N>
bool stationarity_multipliers(const double (&B)[kMaxConeVars][kMaxConeVars], int p, double* y) {
  constexpr int n = N;  // the unknowns: a template parameter so the column products unroll
  double M[kMaxConeVars][kMaxConeVars];
  for (int a = 0; a < p; ++a) {
    for (int b = 0; b <= a; ++b) {
      double v = 0.0;
      for (int j = 0; j < n; ++j) v += B[j][a] * B[j][b];
      M[a][b] = v;
    }
    y[a] = -B[3][a];
  }
  for (int a = 0; a < p; ++a) {
    for (int b = 0; b < a; ++b) {
      double v = M[a][b];
      for (int q = 0; q < b; ++q) v -= M[a][q] * M[b][q];
      M[a][b] = v / M[b][b];
    }
    double v = M[a][a];
    for (int q = 0; q < a; ++q) v -= M[a][q] * M[a][q];
    if (!(v > 1e-10 * M[a][a])) return false;  // column a (nearly) in the span of the others
    M[a][a] = std::sqrt(v);
  }
  for (int a = 0; a < p; ++a) {
    for (int q = 0; q < a; ++q) y[a] -= M[a][q] * y[q];
    y[a] /= M[a][a];
  }
  for (int a = p - 1; a >= 0; --a) {
    for (int q = a + 1; q < p; ++q) y[a] -= M[q][a] * y[q];
    y[a] /= M[a][a];
  }
  return true;
}

/// The active set at a start point x0 (rows with slack ≤ tau; a cone on its boundary or, with
/// ‖s‖ ≤ tau, at its apex) and its multipliers by least squares on the stationarity c + Gᵀz = 0.
/// More tight orthant rows than the unknowns allow (a degenerate vertex: four or more faces of a
/// polytope meet there, e.g. an octahedron or a triangulated hull) → subsets of them, in
/// lexicographic order, until one has multipliers of the right signs (a basis of the degenerate
/// vertex; at most kMaxSubsets tried). False when no usable set is found (rank deficient, a
/// multiplier of the wrong sign, more cone multipliers than unknowns).
template <int N>
bool start_active_set(const ConeKkt& k, const double* x0, double tau, ActiveSet& A) {
  constexpr int kMaxCandidates = 12, kMaxSubsets = 64;
  constexpr int n = N;  // k.n, at compile time (the row products unroll)
  const int l = orthant_count(k);
  int cand[kMaxCandidates];
  int nc = 0;
  for (int i = 0; i < l; ++i) {
    double gx = 0.0;
    for (int j = 0; j < n; ++j) gx += k.G[i][j] * x0[j];
    if (k.h[i] - gx > tau) continue;
    if (nc == kMaxCandidates) return false;
    cand[nc++] = i;
  }
  double C[kMaxConeVars][kMaxConeVars];  // cone columns: G_kᵀ(1, −ū) (boundary) or G_kᵀ e_r (apex)
  int pc = 0;
  for (int c = 0; c < 2; ++c) A.state[c] = A.yoff[c] = 0;
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double sv[4], sn = 0.0;
    for (int r = 0; r < d; ++r) {
      double gx = 0.0;
      for (int j = 0; j < n; ++j) gx += k.G[s0 + r][j] * x0[j];
      sv[r] = k.h[s0 + r] - gx;
      if (r > 0) sn += sv[r] * sv[r];
    }
    sn = std::sqrt(sn);
    if (sv[0] - sn > tau) continue;
    A.yoff[c] = pc;  // offset among the cone multipliers; shifted by the orthant count below
    if (sn > tau) {  // boundary
      if (pc == n) return false;
      A.state[c] = 1;
      for (int j = 0; j < n; ++j) {
        double v = k.G[s0][j];
        for (int r = 1; r < d; ++r) v -= sv[r] / sn * k.G[s0 + r][j];
        C[j][pc] = v;
      }
      ++pc;
    } else {  // apex: every row of the cone
      if (pc + d > n) return false;
      A.state[c] = 2;
      for (int r = 0; r < d; ++r, ++pc)
        for (int j = 0; j < n; ++j) C[j][pc] = k.G[s0 + r][j];
    }
  }
  const int r = std::min(nc, n - pc);  // orthant rows per subset
  if (r + pc == 0) return false;
  int pick[kMaxConeVars];
  for (int a = 0; a < r; ++a) pick[a] = a;
  for (int tried = 0; tried < kMaxSubsets; ++tried) {
    double B[kMaxConeVars][kMaxConeVars], y[kMaxConeVars];
    for (int a = 0; a < r; ++a)
      for (int j = 0; j < n; ++j) B[j][a] = k.G[cand[pick[a]]][j];
    for (int a = 0; a < pc; ++a)
      for (int j = 0; j < n; ++j) B[j][r + a] = C[j][a];
    bool ok = stationarity_multipliers<N>(B, r + pc, y);
    for (int a = 0; a < r && ok; ++a) ok = y[a] >= -1e-9;
    for (int c = 0; c < k.soc_count && ok; ++c) ok = A.state[c] != 1 || y[r + A.yoff[c]] >= -1e-9;
    if (ok) {
      A.na = r;
      for (int a = 0; a < r; ++a) A.act[a] = cand[pick[a]];
      for (int c = 0; c < k.soc_count; ++c) A.yoff[c] += r;
      for (int a = 0; a < r + pc; ++a) A.y[a] = y[a];
      A.p = r + pc;
      return true;
    }
    // next combination of r out of nc
    int a = r - 1;
    while (a >= 0 && pick[a] == nc - r + a) --a;
    if (a < 0) return false;
    ++pick[a];
    for (int b2 = a + 1; b2 < r; ++b2) pick[b2] = pick[b2 - 1] + 1;
  }
  return false;
}

/// One primitive as the ray-cast start sees it: its support function in scaled world
/// coordinates and its slack projection (a template, so the supports inline into the ray cast).
template <class P>
struct PlacedPrimitive {
  const P& shape;
  const Mat3& Q;
  const RowWriter& w;

  /// Support point of the placed shape about its origin, scaled coordinates.
  Vec3 support(const Vec3& d) const {
    const Vec3 y = shape.support(Q.transpose() * d);
    const double inv = w.inv_scale;
    return Vec3(inv * (Q(0, 0) * y.x() + Q(0, 1) * y.y() + Q(0, 2) * y.z()),
                inv * (Q(1, 0) * y.x() + Q(1, 1) * y.y() + Q(1, 2) * y.z()),
                inv * (Q(2, 0) * y.x() + Q(2, 1) * y.y() + Q(2, 2) * y.z()));
  }
  void slacks(double inv, double alpha, double* x) const { start_slacks(shape, Q, w, inv, alpha, x); }
};

/// The first of the n placed vertices maximizing vᵀd (branch-free, as Polytope::support).
int placed_vertex_argmax(const double (*V)[3], int n, const Vec3& d) {
  int best = 0;
  double bv = -1e300;
  for (int i = 0; i < n; ++i) {
    const double v = V[i][0] * d.x() + V[i][1] * d.y() + V[i][2] * d.z();
    const bool gt = v > bv;
    bv = gt ? v : bv;
    best = gt ? i : best;
  }
  return best;
}

/// A polytope's vertices are placed once (rotated and scaled into the ray cast's coordinates), so
/// each support call is the arg max alone.
template <>
struct PlacedPrimitive<Polytope> {
  const Polytope& shape;
  const Mat3& Q;
  const RowWriter& w;
  double V[kMaxPolytopeVertices][3];

  PlacedPrimitive(const Polytope& s, const Mat3& Q_, const RowWriter& w_) : shape(s), Q(Q_), w(w_) {
    const Mat3 M = w.inv_scale * Q;
    for (int i = 0; i < s.num_vertices; ++i) {
      const Vec3 v = M * Vec3(s.V(i, 0), s.V(i, 1), s.V(i, 2));
      V[i][0] = v.x();
      V[i][1] = v.y();
      V[i][2] = v.z();
    }
  }
  Vec3 support(const Vec3& d) const {
    const int best = placed_vertex_argmax(V, shape.num_vertices, d);
    return d.squaredNorm() > 0.0 ? Vec3(V[best][0], V[best][1], V[best][2]) : Vec3::Zero();
  }
  void slacks(double inv, double alpha, double* x) const { start_slacks(shape, Q, w, inv, alpha, x); }
};

/// Ball-like primitives in ray-cast coordinates: R·d/‖d‖ does not depend on the frame, so the
/// sphere, the capsule's and the padded polygon's round parts need no rotation per call; the
/// capsule's segment end is picked by the sign of d along its placed axis, the ellipsoid uses
/// its placed matrix Q P⁻¹ Qᵀ (same supports as the shape-frame ones, up to rounding).
template <>
struct PlacedPrimitive<Sphere> {
  const Sphere& shape;
  const Mat3& Q;
  const RowWriter& w;
  double R;
  PlacedPrimitive(const Sphere& s, const Mat3& Q_, const RowWriter& w_) : shape(s), Q(Q_), w(w_), R(w_.inv_scale * s.R) {}
  Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    return n > 0.0 ? Vec3((R / n) * d) : Vec3::Zero();
  }
  void slacks(double, double, double*) const {}
};

template <>
struct PlacedPrimitive<Capsule> {
  const Capsule& shape;
  const Mat3& Q;
  const RowWriter& w;
  double R;
  Vec3 axis, half;  // placed unit axis, and half the segment along it (scaled)
  PlacedPrimitive(const Capsule& s, const Mat3& Q_, const RowWriter& w_)
      : shape(s), Q(Q_), w(w_), R(w_.inv_scale * s.R), axis(Q_.col(0)), half((0.5 * s.L * w_.inv_scale) * Q_.col(0)) {}
  Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    if (!(n > 0.0)) return Vec3::Zero();
    const double t = axis.dot(d);
    return (R / n) * d + (t > 0.0 ? half : (t < 0.0 ? Vec3(-half) : Vec3::Zero()));
  }
  void slacks(double inv, double alpha, double* x) const { start_slacks(shape, Q, w, inv, alpha, x); }
};

template <>
struct PlacedPrimitive<Ellipsoid> {
  const Ellipsoid& shape;
  const Mat3& Q;
  const RowWriter& w;
  Mat3 W;  // Q P⁻¹ Qᵀ
  PlacedPrimitive(const Ellipsoid& s, const Mat3& Q_, const RowWriter& w_)
      : shape(s), Q(Q_), w(w_), W(Q_ * s.P_inverse * Q_.transpose()) {}
  Vec3 support(const Vec3& d) const {
    const Vec3 q = W * d;
    const double n = d.dot(q);
    return n > 0.0 ? Vec3((w.inv_scale / std::sqrt(n)) * q) : Vec3::Zero();
  }
  void slacks(double, double, double*) const {}
};

template <>
struct PlacedPrimitive<PaddedPolygon> {
  const PaddedPolygon& shape;
  const Mat3& Q;
  const RowWriter& w;
  double R;
  double V[kMaxPolygonEdges][3];  // placed polygon vertices
  PlacedPrimitive(const PaddedPolygon& s, const Mat3& Q_, const RowWriter& w_)
      : shape(s), Q(Q_), w(w_), R(w_.inv_scale * s.R) {
    const double inv = w.inv_scale;
    for (int i = 0; i < s.num_vertices; ++i)
      for (int r = 0; r < 3; ++r) V[i][r] = inv * (Q(r, 0) * s.V(i, 0) + Q(r, 1) * s.V(i, 1));
  }
  Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    if (!(n > 0.0)) return Vec3::Zero();
    const int best = placed_vertex_argmax(V, shape.num_vertices, d);
    return Vec3(V[best][0], V[best][1], V[best][2]) + (R / n) * d;
  }
  void slacks(double inv, double alpha, double* x) const { start_slacks(shape, Q, w, inv, alpha, x); }
};

// ============================================================================ ball-padded pairs
// Sphere, capsule and padded polygon are a core K (a point, a segment, a convex polygon) padded by
// a ball of radius R. For two of them the ray t·u leaves D = A ⊕ (−B) where
//   g(t) = dist(K1, t·u + K2) − (R1 + R2) = 0.
// g is convex (the distance to a convex set along a line) with g(0) = −(R1 + R2) < 0, so Newton's
// method from an upper bound t0 ≥ t* decreases monotonically to t*, quadratically once the closest
// features settle; g'(t) = n̂ᵀu with n̂ the unit vector between the closest points. The hit is exact
// to rounding (a = p + R1 n̂, b = q − R2 n̂), so the polish needs one Newton step instead of the
// two or three that follow the MPR finish, and no portal refinements run.

/// Active-set threshold after the exact start (relative, as the MPR start's 1e-5).
constexpr double kExactStartActiveTolerance = 1e-9;

template <class P> constexpr bool has_ball_core() {
  return std::is_same_v<P, Sphere> || std::is_same_v<P, Capsule> || std::is_same_v<P, PaddedPolygon>;
}
template <class P> constexpr bool is_revolved() { return std::is_same_v<P, Cylinder> || std::is_same_v<P, Cone>; }
/// The pairs that take the exact start: both ball-padded, not two spheres (direct_newton), or a
/// sphere, capsule or padded polygon and a cylinder or cone (R2 = 0: the whole solid is the core;
/// its closest point to a point is a 2-D one in the meridian plane, to a segment Newton's method
/// along it, to a polygon the simplex walk of closest_flat_curved). Two polygons cost m1·m2 edge
/// pairs per Newton step and still gain (measured: 2.70 → 2.42 µs). A polytope against a cylinder
/// or cone (ρ = 0: the distance itself goes to 0 at t*) by the same walk measured slower than the
/// ray cast (stop 33: cone–polytope 1.56 → 2.61 µs, polytope–cylinder at par; docs/dcol.md).
template <class P1, class P2> constexpr bool has_exact_ball_start() {
  return (has_ball_core<P1>() && has_ball_core<P2>() && !(std::is_same_v<P1, Sphere> && std::is_same_v<P2, Sphere>)) ||
         (has_ball_core<P1>() && is_revolved<P2>()) || (is_revolved<P1>() && has_ball_core<P2>()) ||
         (std::is_same_v<P1, Polytope> && has_ball_core<P2>()) || (has_ball_core<P1>() && std::is_same_v<P2, Polytope>);
}

/// A support point of the core of a placed primitive (a polytope is its own core).
template <class P> Vec3 core_support(const PlacedPrimitive<P>& b, const Vec3& d) {
  if constexpr (std::is_same_v<P, Polytope>) {
    return b.support(d);
  } else if constexpr (std::is_same_v<P, Sphere>) {
    return Vec3::Zero();
  } else if constexpr (std::is_same_v<P, Capsule>) {
    return b.axis.dot(d) >= 0.0 ? b.half : Vec3(-b.half);
  } else {
    static_assert(std::is_same_v<P, PaddedPolygon>);
    const int i = placed_vertex_argmax(b.V, b.shape.num_vertices, d);
    return Vec3(b.V[i][0], b.V[i][1], b.V[i][2]);
  }
}

/// The padding radius of a placed primitive in ray-cast coordinates (0 for a cylinder or cone).
template <class P> double padding(const PlacedPrimitive<P>& b) {
  if constexpr (has_ball_core<P>()) return b.R;
  else return 0.0;
}

/// The meridian profile (axial, radial; counter-clockwise) of a placed cylinder or cone, scaled,
/// axis Q.col(0). Returns the vertex count.
inline int revolved_profile(const PlacedPrimitive<Cylinder>& b, double (&P)[4][2]) {
  const double h = 0.5 * b.shape.L * b.w.inv_scale, R = b.shape.R * b.w.inv_scale;
  const double v[4][2] = {{-h, 0.0}, {h, 0.0}, {h, R}, {-h, R}};
  for (int i = 0; i < 4; ++i) P[i][0] = v[i][0], P[i][1] = v[i][1];
  return 4;
}
inline int revolved_profile(const PlacedPrimitive<Cone>& b, double (&P)[4][2]) {
  const double H = b.shape.H * b.w.inv_scale;
  const double v[3][2] = {{-0.75 * H, 0.0}, {0.25 * H, 0.0}, {0.25 * H, H * b.shape.tan_beta}};
  for (int i = 0; i < 3; ++i) P[i][0] = v[i][0], P[i][1] = v[i][1];
  return 3;
}

/// What closest_cores keeps between the Newton steps on t: GJK's simplex, the segment parameter,
/// the flat core's feature (its vertex indices: a vertex, an edge or a face).
struct CoreState {
  detail::GjkSimplex simplex;
  double s = 0.5;
  int feature[3] = {0, 0, 0};
  int feature_size = 0;
};

// ---------------------------------------------------------------------------- flat against curved
// A padded polygon's core F (vertices, edges, its face) against a solid of revolution C (a
// closed-form projection). The closest points come from a simplex walk over F's vertices, as
// GJK's but with exact sub-problems: for a simplex S of F's vertices (a point, a segment, a
// triangle) the closest points of conv(S) and C are exact (a vertex's projection,
// Newton's method along a segment, a triangle's interior by C's support point along its normal);
// S shrinks to the face that holds them. Optimality is the separating-plane condition on F's side
// (C's side holds by construction): every vertex y of F has n̂ᵀ(y − p) ≥ 0, n̂ = (p − q)/‖p − q‖.
// A violating vertex (the least n̂ᵀy) joins S. The simplex is kept for the next Newton step on t.

/// The closest point of a placed cylinder or cone (about its origin) to x; false where x lies in it.
template <class P> bool revolved_projection(const PlacedPrimitive<P>& c, const Vec3& x, Vec3& q) {
  double Pr[4][2], delta, f1, f2;
  const int n = revolved_profile(c, Pr);
  return detail::revolved_distance(Pr, n, c.Q.col(0), x, Vec3::Zero(), q, delta, f1, f2);
}
/// Closest points of the segment [x0, x1] and a placed cylinder or cone (detail::closest_segment_revolved).
template <class P>
bool revolved_segment(const PlacedPrimitive<P>& c, const Vec3& x0, const Vec3& x1, double& s, Vec3& p, Vec3& q) {
  double Pr[4][2];
  const int n = revolved_profile(c, Pr);
  return detail::closest_segment_revolved(Pr, n, c.Q.col(0), x0, x1, s, p, q);
}

/// A simplex of flat-core vertices and the closest points of its hull and the curved solid.
struct FlatSimplex {
  int idx[3];
  int n = 0;
  Vec3 p, q;     ///< closest points (C's frame): p ∈ conv(S), q ∈ C
  double d = 0;  ///< ‖p − q‖
};

/// Closest points of conv(S) and C for the simplex S of the vertices y (C's frame); S reduced to
/// the face holding p. s: the segment parameter (start and result). False where conv(S) and C
/// meet or a sub-problem fails.
template <class PC, class Vertex>
bool solve_flat_simplex(const PlacedPrimitive<PC>& c, const Vertex& y, FlatSimplex& S, double& s) {
  const auto segment = [&](int i0, int i1, FlatSimplex& out, double& sp) -> bool {
    if (!revolved_segment(c, y(i0), y(i1), sp, out.p, out.q)) return false;
    out.d = (out.p - out.q).norm();
    if (sp <= 0.0) {
      out.n = 1;
      out.idx[0] = i0;
    } else if (sp >= 1.0) {
      out.n = 1;
      out.idx[0] = i1;
    } else {
      out.n = 2;
      out.idx[0] = i0;
      out.idx[1] = i1;
    }
    return true;
  };
  // a triangle: its interior (C's support point along the normal facing C, projected), else the
  // best of its edges
  const auto triangle = [&](int i0, int i1, int i2, FlatSimplex& out, double& sp) -> bool {
    const Vec3 y0 = y(i0), y1 = y(i1), y2 = y(i2);
    const Vec3 m0 = (y1 - y0).cross(y2 - y0);
    const double mm = m0.squaredNorm();
    if (mm > 0.0) {
      // C's side of the plane: where its origin is (C's support beyond the plane otherwise fails)
      const Vec3 m = m0.dot(y0) > 0.0 ? Vec3(-m0) : m0;
      const Vec3 qc = c.support(Vec3(-m));
      const double h = (qc - y0).dot(m) / mm;  // the height over the plane, in units of ‖m‖
      if (h > 0.0) {
        const Vec3 pc = qc - h * m;
        // barycentric coordinates of pc: the sub-triangle areas along m
        const double w0 = (y1 - pc).cross(y2 - pc).dot(m0), w1 = (y2 - pc).cross(y0 - pc).dot(m0),
                     w2 = (y0 - pc).cross(y1 - pc).dot(m0);
        if (w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0) {
          out.n = 3;
          out.idx[0] = i0;
          out.idx[1] = i1;
          out.idx[2] = i2;
          out.p = pc;
          out.q = qc;
          out.d = (pc - qc).norm();
          return true;
        }
      }
    }
    FlatSimplex e{};
    double se = 0.5;
    out.d = std::numeric_limits<double>::infinity();
    const int pairs[3][2] = {{i0, i1}, {i1, i2}, {i2, i0}};
    for (const auto& pr : pairs) {
      se = 0.5;
      if (!segment(pr[0], pr[1], e, se)) return false;
      if (e.d < out.d) {
        out = e;
        sp = se;
      }
    }
    return true;
  };
  if (S.n == 1) {
    S.p = y(S.idx[0]);
    if (!revolved_projection(c, S.p, S.q)) return false;
    S.d = (S.p - S.q).norm();
    return true;
  }
  if (S.n == 2) return segment(S.idx[0], S.idx[1], S, s);
  return triangle(S.idx[0], S.idx[1], S.idx[2], S, s);
}

/// Closest points pF ∈ F + shift and qC ∈ C of the flat core F (placed vertices f.V, shifted into
/// C's frame) and the curved solid C at the origin, which do not meet: the simplex walk above,
/// from the previous call's simplex (st) or F's vertex farthest towards C. False where it does
/// not settle.
template <class PF, class PC>
bool closest_flat_curved(const PlacedPrimitive<PF>& f, const PlacedPrimitive<PC>& c, const Vec3& shift, CoreState& st,
                         Vec3& pF, Vec3& qC) {
  const int nv = f.shape.num_vertices;
  const auto vertex = [&](int i) { return Vec3(f.V[i][0] + shift.x(), f.V[i][1] + shift.y(), f.V[i][2] + shift.z()); };
  FlatSimplex S;
  S.n = st.feature_size;
  for (int i = 0; i < S.n; ++i) S.idx[i] = st.feature[i];
  if (S.n == 0) {
    S.n = 1;
    S.idx[0] = placed_vertex_argmax(f.V, nv, Vec3(-shift));
  }
  if (!solve_flat_simplex(c, vertex, S, st.s)) return false;
  for (int it = 0; it < 16; ++it) {
    if (!(S.d > 0.0) || !std::isfinite(S.d)) return false;
    const Vec3 nh = (S.p - S.q) / S.d;
    const int j = placed_vertex_argmax(f.V, nv, Vec3(-nh));
    if (nh.dot(vertex(j) - S.p) >= -1e-12) break;
    bool in = false;
    for (int i = 0; i < S.n; ++i) in = in || S.idx[i] == j;
    if (in || S.n == 3) break;  // a vertex already in S, or a polygon's face: the rounding floor
    FlatSimplex T = S;
    T.idx[T.n++] = j;
    double s = 0.5;
    if (!solve_flat_simplex(c, vertex, T, s)) return false;
    if (!(T.d < S.d)) break;  // no progress: the rounding floor
    S = T;
    st.s = s;
  }
  st.feature_size = S.n;
  for (int i = 0; i < S.n; ++i) st.feature[i] = S.idx[i];
  pF = S.p;
  qC = S.q;
  return true;
}

/// Pairs whose cores' closest points come from GJK: a polytope, or a polygon against a segment or
/// a polygon (measured: padded_polygon–padded_polygon 2.44 → 1.66 µs, capsule–padded_polygon
/// 1.49 → 1.35 µs against the closed forms over every vertex and edge pair; a point against a
/// polygon is faster in closed form).
template <class P1, class P2> constexpr bool uses_gjk() {
  return !is_revolved<P1>() && !is_revolved<P2>() &&
         (std::is_same_v<P1, Polytope> || std::is_same_v<P2, Polytope> ||
          (std::is_same_v<P1, PaddedPolygon> && !std::is_same_v<P2, Sphere>) ||
          (std::is_same_v<P2, PaddedPolygon> && !std::is_same_v<P1, Sphere>));
}

/// Closest points p ∈ K1 and q ∈ K2 (each about its own origin, ray-cast coordinates) of K1 and
/// the translate o + K2; the cores do not meet (o = t·u with t ≥ t*). GJK pairs start from the
/// simplex of the previous call, a segment against a solid of revolution from its parameter.
template <class P1, class P2>
bool closest_cores(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& o, Vec3& p, Vec3& q,
                   CoreState& state) {
  if constexpr (uses_gjk<P1, P2>()) {
    return detail::gjk_closest_points([&](const Vec3& d) { return core_support(b1, d); },
                                      [&](const Vec3& d) { return core_support(b2, d); }, o, state.simplex, p, q);
  } else if constexpr (std::is_same_v<P1, PaddedPolygon> && is_revolved<P2>()) {
    // F's vertices in C's frame: v − o
    if (!closest_flat_curved(b1, b2, Vec3(-o), state, p, q)) return false;
    p += o;
    return true;
  } else if constexpr (is_revolved<P1>() && std::is_same_v<P2, PaddedPolygon>) {
    if (!closest_flat_curved(b2, b1, o, state, q, p)) return false;
    q -= o;
    return true;
  } else if constexpr (std::is_same_v<P1, Capsule> && is_revolved<P2>()) {
    // the segment against the solid, both relative to the solid's origin o
    if (!revolved_segment(b2, Vec3(-b1.half - o), Vec3(b1.half - o), state.s, p, q)) return false;
    p += o;
    return true;
  } else if constexpr (is_revolved<P1>() && std::is_same_v<P2, Capsule>) {
    if (!revolved_segment(b1, Vec3(o - b2.half), Vec3(o + b2.half), state.s, q, p)) return false;
    q -= o;
    return true;
  } else if constexpr (std::is_same_v<P1, Sphere>) {
    p.setZero();
    if constexpr (std::is_same_v<P2, Capsule>) {
      q = detail::closest_on_segment(Vec3(o - b2.half), Vec3(o + b2.half), Vec3::Zero()) - o;
    } else if constexpr (is_revolved<P2>()) {
      double P[4][2];
      const int n = revolved_profile(b2, P);
      q = detail::closest_on_revolved(P, n, b2.Q.col(0), -o);
    } else {
      q = detail::closest_on_polygon(b2.V, b2.shape.num_vertices, b2.Q.col(2), -o);
    }
  } else if constexpr (std::is_same_v<P2, Sphere>) {
    q.setZero();
    if constexpr (std::is_same_v<P1, Capsule>) {
      p = detail::closest_on_segment(Vec3(-b1.half), b1.half, o);
    } else if constexpr (is_revolved<P1>()) {
      double P[4][2];
      const int n = revolved_profile(b1, P);
      p = detail::closest_on_revolved(P, n, b1.Q.col(0), o);
    } else {
      p = detail::closest_on_polygon(b1.V, b1.shape.num_vertices, b1.Q.col(2), o);
    }
  } else {
    static_assert(std::is_same_v<P1, Capsule> && std::is_same_v<P2, Capsule>);
    detail::closest_segment_points(-b1.half, b1.half, o - b2.half, o + b2.half, p, q);
    q -= o;
  }
  return true;
}

/// The exact exit point of the ray t·u from D for two ball-padded primitives (see above): Newton's
/// method on g from t0 = h_D(u) = uᵀ(s_A(u) − s_B(−u)) ≥ t*. False where it does not settle.
template <class P1, class P2>
bool ball_core_hit(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& u,
                   diffcol::detail::MinkowskiRayHit& hit) {
  const double rho = padding(b1) + padding(b2);
  double t = u.dot(b1.support(u) - b2.support(-u));
  if (!(t > 0.0) || !std::isfinite(t)) return false;
  Vec3 p, q, n;
  CoreState state;
  int it = 0;
  for (;; ++it) {
    if (it == 40) return false;
    if (!closest_cores(b1, b2, Vec3(t * u), p, q, state)) return false;
    const Vec3 e = t * u + q - p;
    const double d = e.norm();
    if (!(d > 0.0) || !std::isfinite(d)) return false;
    n = e / d;
    const double slope = n.dot(u);
    if (!(slope > 0.0)) return false;
    const double step = (d - rho) / slope;
    // from the right every step is positive; one at rounding level (or below 0, past the root by
    // rounding) ends the iteration with p, q, n̂ taken at t
    if (step <= 1e-15 * t) break;
    t -= step;
    if (!(t > 0.0)) return false;
  }
  hit.t = t;
  hit.a = p + padding(b1) * n;
  hit.b = q - padding(b2) * n;
  hit.normal = n;
  hit.iterations = it;
  return true;
}

/// The ellipsoid of an ellipsoid pair and the other primitive, in either body order.
template <class PX, class P1, class P2>
std::pair<const PlacedPrimitive<Ellipsoid>*, const PlacedPrimitive<PX>*> ellipsoid_and_other(const PlacedPrimitive<P1>& b1,
                                                                                            const PlacedPrimitive<P2>& b2) {
  if constexpr (std::is_same_v<P1, Ellipsoid>) return {&b1, &b2};
  else return {&b2, &b1};
}

/// An ellipsoid against a polytope: the map x ↦ L x, L = U Qᵀ/ℓ (P = UᵀU, Q the ellipsoid's
/// rotation, ℓ the ray cast's length unit), takes the placed ellipsoid to the unit ball and the
/// polytope to a polytope. Problem (9) is invariant under linear maps (both shapes scale about
/// their own origins, and so do their images), so the exact start of a sphere against a polytope
/// applies in the mapped coordinates: α = ‖L r₁₂‖/t′ and a = L⁻¹a′ for the hit t′, a′ there.
template <class P1, class P2>
bool ellipsoid_polytope_hit(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& r12,
                            diffcol::detail::MinkowskiRayHit& hit) {
  constexpr bool ellipsoid_first = std::is_same_v<P1, Ellipsoid>;
  const auto split = ellipsoid_and_other<Polytope>(b1, b2);
  const PlacedPrimitive<Ellipsoid>* e = split.first;
  const PlacedPrimitive<Polytope>* poly = split.second;
  static const Sphere unit(1.0);
  const Mat3 L = e->shape.U * e->Q.transpose() / e->w.inv_scale;
  PlacedPrimitive<Polytope> mapped(*poly);
  for (int i = 0; i < poly->shape.num_vertices; ++i) {
    const Vec3 v = L * Vec3(poly->V[i][0], poly->V[i][1], poly->V[i][2]);
    mapped.V[i][0] = v.x();
    mapped.V[i][1] = v.y();
    mapped.V[i][2] = v.z();
  }
  PlacedPrimitive<Sphere> ball(unit, e->Q, e->w);
  ball.R = 1.0;
  const Vec3 r = L * r12;
  const double Dm = r.norm();
  if (!(Dm > 0.0) || !std::isfinite(Dm)) return false;
  diffcol::detail::MinkowskiRayHit h;
  const bool ok = ellipsoid_first ? ball_core_hit(ball, mapped, Vec3(r / Dm), h) : ball_core_hit(mapped, ball, Vec3(r / Dm), h);
  if (!ok) return false;
  // back: t = ‖r₁₂‖/α, a = L⁻¹a′ = ℓ Q U⁻¹ a′
  hit.t = r12.norm() * h.t / Dm;
  const Vec3 ua = e->shape.U.triangularView<Eigen::Upper>().solve(h.a);
  hit.a = e->w.inv_scale * (e->Q * ua);
  hit.b = e->w.inv_scale * (e->Q * Vec3(e->shape.U.triangularView<Eigen::Upper>().solve(h.b)));
  hit.normal = h.normal;
  hit.iterations = h.iterations;
  return std::isfinite(hit.t) && hit.a.allFinite();
}

/// The primitives that an ellipsoid meets through ellipsoid_core_hit.
template <class P> constexpr bool has_support_search_partner() {
  return std::is_same_v<P, Capsule> || std::is_same_v<P, PaddedPolygon> || std::is_same_v<P, Cylinder> ||
         std::is_same_v<P, Cone>;
}

/// An ellipsoid against a capsule, padded polygon, cylinder or cone: the ray's exit as the minimum
/// of D's support function over the chart d = u + e₁w₁ + e₂w₂ (src/dcol/support_search.hpp). With
/// the ellipsoid E and the other primitive X, h_D(d) = ‖d‖_W + h_X(σd), σ = +1 where X is body 1
/// and −1 where it is body 2 (E is symmetric): R‖d‖ + max_i σV_iᵀd for a capsule or padded polygon
/// (padding R, core vertices V_i), R‖(I − aaᵀ)d‖ + max(±(L/2)aᵀd) for a cylinder, apex and base
/// circle for a cone. The hit is exact to rounding: a = σ_E(d*) (E first) or t·u − σ_E(d*) (X first).
template <class P1, class P2>
bool ellipsoid_core_hit(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& u,
                        diffcol::detail::MinkowskiRayHit& hit) {
  constexpr bool ellipsoid_first = std::is_same_v<P1, Ellipsoid>;
  using PX = std::conditional_t<ellipsoid_first, P2, P1>;
  const auto split = ellipsoid_and_other<PX>(b1, b2);
  const PlacedPrimitive<Ellipsoid>* e = split.first;
  const PlacedPrimitive<PX>* x = split.second;
  const double sigma = ellipsoid_first ? -1.0 : 1.0;
  // e₁, e₂ ⊥ u (Duff et al. 2017)
  const double sg = std::copysign(1.0, u.z()), aa = -1.0 / (sg + u.z()), bb = u.x() * u.y() * aa;
  const Vec3 e1(1.0 + sg * u.x() * u.x() * aa, sg * bb, -sg * u.x());
  const Vec3 e2(bb, sg + u.y() * u.y() * aa, -u.y());
  detail::SupportObjective P;
  const Vec3 Wu = e->W * u, We1 = e->W * e1, We2 = e->W * e2;
  P.nq = 2;
  P.rho[0] = e->w.inv_scale;
  P.c[0] = u.dot(Wu);
  P.g[0][0] = e1.dot(Wu);
  P.g[0][1] = e2.dot(Wu);
  P.M[0][0] = e1.dot(We1);
  P.M[0][1] = e1.dot(We2);
  P.M[0][2] = e2.dot(We2);
  [[maybe_unused]] detail::SupportCone C;
  if constexpr (std::is_same_v<PX, Cone>) P.nq = 1;
  if constexpr (!std::is_same_v<PX, Cylinder> && !std::is_same_v<PX, Cone>) {  // the padding ball: R‖d‖
    P.rho[1] = x->R;
    P.c[1] = 1.0;
    P.M[1][0] = P.M[1][2] = 1.0;
  }
  static_assert(detail::kMaxSupportPieces >= kMaxPolygonEdges);
  const auto add_piece = [&](const Vec3& v) {  // σ vᵀd for a core vertex v
    P.a[P.na] = sigma * v.dot(u);
    P.b[P.na][0] = sigma * v.dot(e1);
    P.b[P.na][1] = sigma * v.dot(e2);
    ++P.na;
  };
  if constexpr (std::is_same_v<PX, Capsule>) {
    add_piece(x->half);
    add_piece(-x->half);
  } else if constexpr (std::is_same_v<PX, Cylinder>) {
    // h(d) = R‖(I − aaᵀ)d‖ + (L/2)abs(aᵀd), a the placed axis (symmetric: σ drops out)
    const Vec3 ax = x->Q.col(0);
    const double R = x->shape.R * x->w.inv_scale, half = 0.5 * x->shape.L * x->w.inv_scale;
    const double au = ax.dot(u), a1 = ax.dot(e1), a2 = ax.dot(e2);
    detail::set_radial_term(P, 1, R, au, a1, a2);
    add_piece(half * ax);
    add_piece(-half * ax);
  } else if constexpr (std::is_same_v<PX, Cone>) {
    // h(y) = max(−(3H/4)aᵀy, (H/4)aᵀy + r‖(I − aaᵀ)y‖), y = σd: the apex and the base circle
    const Vec3 ax = x->Q.col(0);
    const double H = x->shape.H * x->w.inv_scale, r = H * x->shape.tan_beta;
    const double au = ax.dot(u), a1 = ax.dot(e1), a2 = ax.dot(e2);
    C.apex_a = -0.75 * H * sigma * au, C.apex_b[0] = -0.75 * H * sigma * a1, C.apex_b[1] = -0.75 * H * sigma * a2;
    C.rim_a = 0.25 * H * sigma * au, C.rim_b[0] = 0.25 * H * sigma * a1, C.rim_b[1] = 0.25 * H * sigma * a2;
    C.rim.nq = 1;
    detail::set_radial_term(C.rim, 0, r, au, a1, a2);
  } else {
    static_assert(std::is_same_v<PX, PaddedPolygon>);
    P.polygon = true;
    for (int i = 0; i < x->shape.num_vertices; ++i) add_piece(Vec3(x->V[i][0], x->V[i][1], x->V[i][2]));
  }
  detail::SupportMinimum m;
  if constexpr (std::is_same_v<PX, Cone>) {
    if (!detail::minimize_support_cone(P, C, m)) return false;
  } else {
    if (!detail::minimize_support(P, m)) return false;
  }
  const Vec3 d = u + m.w[0] * e1 + m.w[1] * e2;
  const Vec3 q = e->W * d;
  const double n = d.dot(q);
  if (!(n > 0.0) || !(m.F > 0.0)) return false;
  const Vec3 se = (e->w.inv_scale / std::sqrt(n)) * q;
  hit.t = m.F;
  hit.a = ellipsoid_first ? se : Vec3(m.F * u - se);
  hit.b = hit.a - m.F * u;
  hit.normal = d.normalized();
  hit.iterations = m.iterations;
  return std::isfinite(hit.t) && hit.a.allFinite();
}

/// The primitives written as square roots and max structures in the chart (minimize_support_pair):
/// cylinder, cone, padded polygon, polytope (its vertices; its faces as face states). (A capsule
/// against a cylinder or cone measured at par with ball_core_hit, which never falls back there: it
/// stays on that start.)
template <class P> constexpr bool is_support_pair_body() {
  return std::is_same_v<P, Cylinder> || std::is_same_v<P, Cone> || std::is_same_v<P, PaddedPolygon> ||
         std::is_same_v<P, Polytope>;
}
/// The pairs that take the support-function start of two max structures: a cylinder or a cone
/// against a cylinder, a cone or a padded polygon, and a cylinder against a polytope. (Two padded
/// polygons: ball_core_hit, faster. A polytope against a cone has no square-root term: F is
/// piecewise affine but for the base circle, the search walks the polytope's vertices one tie at
/// a time, and it measured slower than the ray cast: 1.30 → 1.48 µs.)
template <class P1, class P2> constexpr bool has_support_pair_start() {
  constexpr bool polytope_cone = (std::is_same_v<P1, Polytope> && std::is_same_v<P2, Cone>) ||
                                 (std::is_same_v<P1, Cone> && std::is_same_v<P2, Polytope>);
  return is_support_pair_body<P1>() && is_support_pair_body<P2>() && (is_revolved<P1>() || is_revolved<P2>()) &&
         !polytope_cone;
}

/// Writes body s's terms of h_D in the chart (σ = +1 for body 1, h₁(d); −1 for body 2, h₂(−d)):
/// its padding ball or cylinder radius as a root (a ball merged into `ball`), its core as set s.
template <class P>
void add_support_body(const PlacedPrimitive<P>& b, int s, const Vec3& u, const Vec3& e1, const Vec3& e2,
                      detail::SupportPair& F, int (&owner)[2], double& ball) {
  const double sigma = s == 0 ? 1.0 : -1.0;
  detail::SupportSet& S = F.set[s];
  const auto add_piece = [&](const Vec3& v) {
    S.a[S.n] = sigma * v.dot(u);
    S.b[S.n][0] = sigma * v.dot(e1);
    S.b[S.n][1] = sigma * v.dot(e2);
    ++S.n;
  };
  if constexpr (std::is_same_v<P, PaddedPolygon>) {
    ball += b.R;
    S.polygon = true;
    static_assert(detail::kMaxSetPieces >= kMaxPolygonEdges);
    for (int i = 0; i < b.shape.num_vertices; ++i) add_piece(Vec3(b.V[i][0], b.V[i][1], b.V[i][2]));
  } else if constexpr (std::is_same_v<P, Polytope>) {
    static_assert(detail::kMaxSetPieces >= kMaxPolytopeVertices);
    for (int i = 0; i < b.shape.num_vertices; ++i) add_piece(Vec3(b.V[i][0], b.V[i][1], b.V[i][2]));
    S.num_faces = b.shape.num_faces;
    S.face_start = b.shape.face_start.data();
    S.face_vertices = b.shape.face_vertices.data();
  } else {
    const Vec3 ax = b.Q.col(0);
    const double au = ax.dot(u), a1 = ax.dot(e1), a2 = ax.dot(e2);
    if constexpr (std::is_same_v<P, Cylinder>) {
      const double R = b.shape.R * b.w.inv_scale, half = 0.5 * b.shape.L * b.w.inv_scale;
      owner[F.nq] = s;
      detail::set_radial_root(F.q[F.nq++], R, au, a1, a2);
      add_piece(half * ax);
      add_piece(-half * ax);
    } else {
      static_assert(std::is_same_v<P, Cone>);
      const double H = b.shape.H * b.w.inv_scale, r = H * b.shape.tan_beta;
      S.cone = true;
      add_piece(-0.75 * H * ax);  // the apex
      add_piece(0.25 * H * ax);   // the base centre (+ the rim root)
      detail::set_radial_root(S.rim, r, au, a1, a2);
    }
  }
}

/// Body s's contact point (its support point in direction σd, σ = ±1 as above) from the weights
/// of the minimum: the core's active vertices, plus the padding ball or radius along d.
template <class P>
Vec3 support_pair_point(const PlacedPrimitive<P>& b, int s, const Vec3& d, const detail::SupportPairMinimum& m) {
  const Vec3 y = s == 0 ? d : Vec3(-d);
  Vec3 p = Vec3::Zero();
  const auto vertex = [&](int i) -> Vec3 {
    if constexpr (std::is_same_v<P, PaddedPolygon> || std::is_same_v<P, Polytope>)
      return Vec3(b.V[i][0], b.V[i][1], b.V[i][2]);
    else if constexpr (std::is_same_v<P, Cylinder>) return (i == 0 ? 0.5 : -0.5) * b.shape.L * b.w.inv_scale * b.Q.col(0);
    else return (i == 0 ? -0.75 : 0.25) * b.shape.H * b.w.inv_scale * b.Q.col(0);
  };
  for (int a = 0; a < m.na[s]; ++a) p += m.lambda[s][a] * vertex(m.active[s][a]);
  if constexpr (std::is_same_v<P, PaddedPolygon>) {
    p += (b.R / y.norm()) * y;
  } else if constexpr (is_revolved<P>()) {
    const Vec3 ax = b.Q.col(0);
    const Vec3 radial = y - ax.dot(y) * ax;
    const double n = radial.norm();
    if (!(n > 0.0)) return p;
    if constexpr (std::is_same_v<P, Cylinder>) {
      p += (b.shape.R * b.w.inv_scale / n) * radial;
    } else {  // the rim point, with the base circle's weight
      double lr = 0.0;
      for (int a = 0; a < m.na[s]; ++a) lr += m.active[s][a] == 1 ? m.lambda[s][a] : 0.0;
      p += (lr * b.shape.H * b.shape.tan_beta * b.w.inv_scale / n) * radial;
    }
  }
  return p;
}

/// The pairs of has_support_pair_start: the ray's exit as the minimum of h_D over the chart (detail::minimize_support_pair). The hit is exact to rounding:
/// a from body 1's active features, or from body 2's where body 1's kink holds the minimum.
template <class P1, class P2>
bool support_pair_hit(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& u,
                      diffcol::detail::MinkowskiRayHit& hit) {
  const double sg = std::copysign(1.0, u.z()), aa = -1.0 / (sg + u.z()), bb = u.x() * u.y() * aa;
  const Vec3 e1(1.0 + sg * u.x() * u.x() * aa, sg * bb, -sg * u.x());
  const Vec3 e2(bb, sg + u.y() * u.y() * aa, -u.y());
  detail::SupportPair F;
  int owner[2] = {0, 0};
  double ball = 0.0;
  add_support_body(b1, 0, u, e1, e2, F, owner, ball);
  add_support_body(b2, 1, u, e1, e2, F, owner, ball);
  if (ball > 0.0) {
    owner[F.nq] = -1;
    detail::set_ball_root(F.q[F.nq++], ball);
  }
  detail::SupportPairMinimum m;
  constexpr int nq = (std::is_same_v<P1, Cylinder> ? 1 : 0) + (std::is_same_v<P2, Cylinder> ? 1 : 0) +
                     (std::is_same_v<P1, PaddedPolygon> || std::is_same_v<P2, PaddedPolygon> ? 1 : 0);
  if (!detail::minimize_support_pair<std::is_same_v<P1, Cone>, std::is_same_v<P2, Cone>, nq>(F, m) || !(m.F > 0.0))
    return false;
  const Vec3 d = u + m.w[0] * e1 + m.w[1] * e2;
  const int kink_body = m.kink < 0 ? -1 : m.kink < 2 ? owner[m.kink] : m.kink - 2;
  if (kink_body == 0) {
    hit.b = support_pair_point(b2, 1, d, m);
    hit.a = hit.b + m.F * u;
  } else {
    hit.a = support_pair_point(b1, 0, d, m);
    hit.b = hit.a - m.F * u;
  }
  hit.t = m.F;
  hit.normal = d.normalized();
  hit.iterations = m.iterations;
  return std::isfinite(hit.t) && hit.a.allFinite();
}

/// The geometric start for any pair (SolveOptions::direct_newton): a ray cast on the Minkowski
/// difference of the two shapes (support functions, MPR) gives α and p̂ to within a tolerance, the
/// slacks follow by projection, the active set and multipliers from the slacks at that point;
/// then the polish's Newton method and certificate. False (nothing changed but k's scratch) when
/// any step declines: the caller runs the interior-point method.
template <class P1, class P2>
bool ray_cast_newton(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, double shift, ConeKkt& k,
                     const SolveOptions& opt, IpmOutcome& out) {
  const RowWriter& w1 = b1.w;
  const RowWriter& w2 = b2.w;
  const double inv = w1.inv_scale;
  const Vec3 r12 = w2.r_hat - w1.r_hat;
  const double D = r12.norm();
  if (!(D > 0.0) || !std::isfinite(D)) return false;
  const Vec3 u = r12 / D;
  auto sa = [&](const Vec3& d) -> Vec3 { return b1.support(d); };
  auto sb = [&](const Vec3& d) -> Vec3 { return b2.support(d); };
  double hnorm = 0.0;
  for (int i = 0; i < k.m; ++i) hnorm += k.h[i] * k.h[i];
  hnorm = std::max(1.0, std::sqrt(hnorm));
  // From a hit: the start x0, the active set (rows with slack ≤ tau·α) and the polish.
  const auto polish_from = [&](const diffcol::detail::MinkowskiRayHit& hit, double tau) -> bool {
    const double alpha = D / hit.t;
    if (!(alpha > 0.0) || !std::isfinite(alpha)) return false;
    double x0[kMaxConeVars] = {};
    const Vec3 p0 = w1.r_hat + alpha * hit.a;
    x0[0] = p0.x();
    x0[1] = p0.y();
    x0[2] = p0.z();
    x0[3] = alpha;
    b1.slacks(inv, alpha, x0);
    b2.slacks(inv, alpha, x0);
    ActiveSet A;
    if (!start_active_set<4 + slack_count<P1>() + slack_count<P2>()>(k, x0, tau * alpha, A)) return false;
    out = {SolveStatus::converged, 0, 0.0, 0.0, 0.0};
    if (!polish_newton<4 + slack_count<P1>() + slack_count<P2>()>(k, opt, hnorm, out, A, x0)) return false;
    k.factored = false;
    return true;
  };
  // Two ball-padded primitives: the exact hit (ball_core_hit), rows with slack ≤ 1e-9·α active;
  // where that fails, the ray cast below.
  if constexpr (has_support_pair_start<P1, P2>()) {
    diffcol::detail::MinkowskiRayHit hit;
    if (support_pair_hit(b1, b2, u, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
      out.start = StartMethod::exact;
      return true;
    }
    if constexpr (has_exact_ball_start<P1, P2>()) {  // (it settles some that the ray cast misses)
      if (ball_core_hit(b1, b2, u, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
        out.start = StartMethod::exact;
        return true;
      }
    }
  } else if constexpr (has_exact_ball_start<P1, P2>()) {
    diffcol::detail::MinkowskiRayHit hit;
    if (ball_core_hit(b1, b2, u, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
      out.start = StartMethod::exact;
      return true;
    }
  } else if constexpr ((std::is_same_v<P1, Ellipsoid> && has_support_search_partner<P2>()) ||
                       (std::is_same_v<P2, Ellipsoid> && has_support_search_partner<P1>())) {
    diffcol::detail::MinkowskiRayHit hit;
    if (ellipsoid_core_hit(b1, b2, u, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
      out.start = StartMethod::exact;
      return true;
    }
  } else if constexpr ((std::is_same_v<P1, Ellipsoid> && std::is_same_v<P2, Polytope>) ||
                       (std::is_same_v<P1, Polytope> && std::is_same_v<P2, Ellipsoid>)) {
    diffcol::detail::MinkowskiRayHit hit;
    if (ellipsoid_polytope_hit(b1, b2, r12, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
      out.start = StartMethod::exact;
      return true;
    }
  }
  // (The loop below repeats polish_from's body: through the lambda, capsule–cylinder and
  // capsule–cone measured 7–9% slower.)
  // The ray cast stops 1e-4 (relative to the inner radii) from D's boundary and Newton's method
  // finishes; rows with slack ≤ 30× that distance times α (same scale) are active. On a curved D
  // the hit point is much less accurate along the portal than across it, so the threshold grows
  // with the tolerance: with 1e-5·α at every tolerance, casts looser than 1e-6 misread the active
  // sets. Measured on the ergodic sweep against (1e-6, 1e-5): 28% fewer portal refinements, 10%
  // more Newton steps, the same fallbacks, curved pairs 6–15% faster (docs/dcol.md). When the
  // active set is rejected — near-degenerate contacts, where D is nearly flat along the portal —
  // the ray is cast once more to 1e-11, rows with slack ≤ 1e-5·α active.
  for (const double rel : {1e-4, 1e-11}) {
    const double tol = rel * shift * inv;
    const double tau = std::max(1e-5, 30.0 * rel) * shift * inv;
    diffcol::detail::MinkowskiRayHit hit;
    if (!diffcol::detail::minkowski_ray_cast(sa, sb, u, shift * inv, tol, 64, hit)) return false;
    const double alpha = D / hit.t;
    if (!(alpha > 0.0) || !std::isfinite(alpha)) return false;
    double x0[kMaxConeVars] = {};
    const Vec3 p0 = w1.r_hat + alpha * hit.a;
    x0[0] = p0.x();
    x0[1] = p0.y();
    x0[2] = p0.z();
    x0[3] = alpha;
    b1.slacks(inv, alpha, x0);
    b2.slacks(inv, alpha, x0);
    ActiveSet A;
    if (!start_active_set<4 + slack_count<P1>() + slack_count<P2>()>(k, x0, tau * alpha, A)) continue;
    out = {SolveStatus::converged, 0, 0.0, 0.0, 0.0};
    if (!polish_newton<4 + slack_count<P1>() + slack_count<P2>()>(k, opt, hnorm, out, A, x0)) continue;
    k.factored = false;
    out.start = StartMethod::ray_cast;
    return true;
  }
  return false;
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
        ray_cast_newton(PlacedPrimitive<P1>{s1, X1.R, w1}, PlacedPrimitive<P2>{s2, X2.R, w2}, shift, k, opt, direct))
      return direct;
  }
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
  out.alpha = out.distance = out.duality_measure = out.primal_residual = out.dual_residual = 0.0;
  out.certificate_gap = 0.0;
  out.x_W.setZero();
  out.p1_W.setZero();
  out.p2_W.setZero();
  out.X_WB1 = X_WB1;
  out.X_WB2 = X_WB2;
  out.kkt.factored = false;
  out.kkt.polished = false;
  out.kkt.n = out.kkt.m = 0;
  if (!X_WB1.is_valid() || !X_WB2.is_valid() || !options.is_valid()) {
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
  // One solve, read back into `out`; the certificate (certify) decides whether `converged` stands.
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
      out.alpha = out.distance = 0.0;
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
    out.distance = dist - dist / alpha;
    // (the smoothed problem's α, barrier_target > 0, is above α* by design: not certified)
    if (out.status == SolveStatus::converged && !(opt.barrier_target > 0.0))
      out.certificate_gap = certify(shape1, shape2, out).gap();
  };
  solve(options);
  if (out.status == SolveStatus::converged && !(out.certificate_gap <= kCertificateTolerance)) {
    // a geometric start that passed the polish's own test but not the certificate: the
    // interior-point route once more, then the status says what holds
    if (out.start != StartMethod::interior_point) {
      SolveOptions ipm = options;
      ipm.direct_newton = false;
      solve(ipm);
    }
    if (out.status == SolveStatus::converged && !(out.certificate_gap <= kCertificateTolerance))
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
