#pragma once
// The cone program of one DCOL pair (seed Sec. II, problem (9)) as the solver stages share it:
// the per-primitive sizes, the row writer, the outcome of a solve, the active set of the polish,
// and the entry points of the interior-point method (interior_point.cpp), the Newton polish
// (polish.cpp) and the closed-form start of two strictly convex primitives (direct_newton.cpp).
// The geometric starts (geometric_starts.hpp) and the dispatch (solve_contact.cpp) use them.
// Internal to src/dcol.
#include <type_traits>

#include "cone_ops.hpp"
#include "diffcol/dcol/contact.hpp"

namespace diffcol::dcol::detail {

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
  if constexpr (std::is_same_v<P, Polytope>) return p.large ? kInlinePolytopeFaces : p.num_faces;  // (a window, face_window.hpp)
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


struct IpmOutcome {
  SolveStatus status;
  int iterations;
  double mu, pres, dres;
  StartMethod start = StartMethod::interior_point;
};

/// An active set with the starting multipliers of the Newton polish.
struct ActiveSet {
  int act[kMaxConeVars];          // active orthant rows
  int na = 0;
  int state[2] = {0, 0};          // per cone: 0 inactive, 1 boundary, 2 apex
  int yoff[2] = {0, 0};           // offset of each cone's multipliers in y
  int p = 0;                      // number of multipliers
  double y[detail::kMaxKktDim];   // multipliers: orthant rows, then ν (boundary) or z_k (apex)
};

/// The primal-dual interior-point method (cvxopt's, seed Sec. II-B) on the rows in k with N unknowns,
/// then the polish; N = k.n = 4 + the slack unknowns (4..8).
template <int N>
IpmOutcome interior_point(ConeKkt& k, const SolveOptions& opt);

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
/// polish_newton: Newton's method on those equations for the active set A from x_start (scaled
/// coordinates) and A.y, then the optimality certificate; on success the solution, the active set
/// and the LU factors are stored in k. The interior-point method reads A off its last iterate
/// (interior_point.cpp); the starts build it from their start points (start_active_set).
template <int N>
bool polish_newton(ConeKkt& k, const SolveOptions& opt, double hnorm, IpmOutcome& out, ActiveSet& A,
                   const double* x_start);

/// The active set at a start point x0 (rows with slack ≤ tau; a cone on its boundary or, with
/// ‖s‖ ≤ tau, at its apex) and its multipliers by least squares on the stationarity c + Gᵀz = 0.
/// More tight orthant rows than the unknowns allow (a degenerate vertex: four or more faces of a
/// polytope meet there, e.g. an octahedron or a triangulated hull) → subsets of them, in
/// lexicographic order, until one has multipliers of the right signs (a basis of the degenerate
/// vertex; at most kMaxSubsets tried). False when no usable set is found (rank deficient, a
/// multiplier of the wrong sign, more cone multipliers than unknowns).
template <int N>
bool start_active_set(const ConeKkt& k, const double* x0, double tau, ActiveSet& A);

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
                   IpmOutcome& out);

}  // namespace diffcol::dcol::detail
