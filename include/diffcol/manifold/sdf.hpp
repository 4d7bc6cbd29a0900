#pragma once
/// @file sdf.hpp
/// Smooth analytical signed-distance primitives and their smooth union / subtraction (Contax seed,
/// Sec. IV-B): superquadric (1)–(3), convex polyhedron (4)–(5), oriented point cloud (6).
///
/// Frames: every primitive has a pose X_OP (object_from_primitive) inside its SdfObject; the
/// object's SDF is evaluated at points expressed in the object (body) frame O, and values,
/// gradients and normals come back in frame O. Units: lengths in the user's unit; the
/// temperatures of (5) and of the union / subtraction are lengths too.
///
/// Sign: φ < 0 inside, φ > 0 outside. Normals are unit outward directions, normalized as
/// n = g/√(τ + ‖g‖²) with g = ∇φ (polyhedron, point cloud) or g ∝ ∇f (superquadric, footnote 2:
/// ∇φ of (3) is not monotone; g = √3·max(a, b, c)·∇(f^(ε1/2)), unit-free with ‖g‖ ≥ 1 everywhere);
/// τ = SdfObject::normal_regularization, dimensionless, so the normals do not depend on the unit
/// of length.
///
/// Evaluation is a template over the scalar (double or manifold::Dual<N>) so that the contact
/// routines can carry derivatives through it; it allocates nothing.

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include "diffcol/manifold/dual.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol::manifold {

/// One SDF evaluation in the frame of the query point.
template <class T>
struct SdfPoint {
  T value{};           ///< signed distance φ(x) (approximate away from the surface for (3), (6))
  V3<T> gradient;      ///< ∇φ(x) w.r.t. the query point
  V3<T> normal;        ///< unit outward normal (see the file comment), 0 where undefined
};

namespace detail {

/// Running logsumexp with temperature t over values v_i, carrying the softmax-weighted means of
/// two vectors (gradient and normal). t = 0 keeps the first maximal entry. Allocation-free.
template <class T>
struct LseAccumulator {
  double t = 0.0;
  bool empty = true;
  T max{};          // current shift
  T sum{};          // Σ exp((v_i − max)/t)
  V3<T> grad_sum;   // Σ exp(...)·g_i
  V3<T> normal_sum; // Σ exp(...)·n_i

  void add(const T& v, const V3<T>& g, const V3<T>& n) {
    using std::exp;
    if (empty) {
      empty = false;
      max = v;
      sum = T(1.0);
      grad_sum = g;
      normal_sum = n;
      return;
    }
    if (t == 0.0) {
      if (value_of(v) > value_of(max)) {
        max = v;
        grad_sum = g;
        normal_sum = n;
      }
      return;
    }
    if (value_of(v) > value_of(max)) {
      const T scale = exp((max - v) / t);
      sum = sum * scale + 1.0;
      grad_sum = scale * grad_sum + g;
      normal_sum = scale * normal_sum + n;
      max = v;
    } else {
      const T e = exp((v - max) / t);
      sum = sum + e;
      grad_sum = grad_sum + e * g;
      normal_sum = normal_sum + e * n;
    }
  }
  T value() const {
    using std::log;
    if (t == 0.0) return max;
    return max + t * log(sum);
  }
  V3<T> gradient() const { return t == 0.0 ? grad_sum : (T(1.0) / sum) * grad_sum; }
  V3<T> normal() const { return t == 0.0 ? normal_sum : (T(1.0) / sum) * normal_sum; }
};

/// g/√(τ + ‖g‖²); 0 for g = 0 and τ = 0.
template <class T>
V3<T> regularized_unit(const V3<T>& g, double tau) {
  using std::sqrt;
  const T n2 = squared_norm(g) + tau;
  if (value_of(n2) <= 0.0) return V3<T>(T(0.0), T(0.0), T(0.0));
  return (T(1.0) / sqrt(n2)) * g;
}

}  // namespace detail

/// A superquadric with semi-axes (a, b, c) and shape exponents ε1 (vertical), ε2 (horizontal),
/// eq. (2), with the radial signed distance φ(x) = ‖x‖·(1 − f(x̃)^(−ε1/2)), x̃ = (x/a, y/b, z/c).
///
/// Note on eq. (3): the seed prints (1 − f^(−ε1/2))/‖x‖; the distance along the ray from the
/// center to the surface (Liu et al., the seed's ref. [30]) is ‖x‖·(1 − f^(−ε1/2)), which is what
/// is implemented (it is exact for a sphere and metric near the surface, as the seed states).
/// At the center φ is direction dependent; there the value −min(a, b, c) with zero gradient and
/// normal is returned.
class Superquadric {
 public:
  /// @param semi_axes (a, b, c) > 0.  @param eps1, eps2 ∈ [0.01, 2) (1 = round, → 0 = boxy).
  /// @param X_OP pose of the primitive in the object frame.
  /// @throws std::invalid_argument on non-positive / non-finite sizes or exponents out of range.
  Superquadric(const Eigen::Vector3d& semi_axes, double eps1, double eps2,
               const Pose& X_OP = Pose::identity());

  const Eigen::Vector3d& semi_axes() const { return semi_axes_; }
  double eps1() const { return eps1_; }
  double eps2() const { return eps2_; }
  const Pose& pose() const { return X_OP_; }

  /// φ, ∇φ and the normal (∝ ∇f) at x_O (object frame); normal normalized with τ. With
  /// value_only, only φ is computed (gradient and normal left zero).
  ///
  /// Near the primitive's coordinate planes (a coordinate of u = x̃/max|x̃_i| below 1e-100 in size,
  /// zero included, for T = Dual; a nonzero one below 1e-290 for double) the terms |u_i|^(p−1) of
  /// ∇f are formed in the log domain and Dual derivatives from the analytic Hessians of φ and h
  /// (second_order), not by dividing by |u_i|: there the fast form's 1/|u_i| overflows (0·∞ =
  /// NaN in the derivatives) and at u_i = 0 it drops the derivative of |u_i|^(p−1) (which is 1 for
  /// p = 2, an ellipsoid). Where ε > 1 the exact derivative of the normal is unbounded at u_i = 0
  /// (|u_i|^(p−2), p = 2/ε < 2): on the plane itself that term is taken as 0 (as abs_pow does),
  /// and next to it (0 < |u_i| < 1e-100) Hessian entries are clamped to ±kMaxSecondDerivative.
  template <class T>
  SdfPoint<T> evaluate(const V3<T>& x_O, double tau = 0.0, bool value_only = false) const;

  /// The inside–outside function f of eq. (2) at x_O (object frame); f = 1 on the surface.
  double inside_outside(const Eigen::Vector3d& x_O) const;

  /// Second-order evaluation at a point x of the primitive frame (x ≠ 0): φ, ∇φ, ∇h (h = f^(ε1/2),
  /// so ∇h ∝ ∇f) and the Hessians of φ and h, in double, with the log-domain forms of the near-plane
  /// path above (entries beyond ±kMaxSecondDerivative clamped).
  struct SecondOrder {
    double value = 0.0;
    Eigen::Vector3d gradient = Eigen::Vector3d::Zero(), gradient_h = Eigen::Vector3d::Zero();
    Eigen::Matrix3d hessian = Eigen::Matrix3d::Zero(), hessian_h = Eigen::Matrix3d::Zero();
  };
  SecondOrder second_order(const Eigen::Vector3d& x) const;
  /// The clamp of second derivatives where they are unbounded (see evaluate).
  static constexpr double kMaxSecondDerivative = 1e150;

 private:
  Eigen::Vector3d semi_axes_;
  double eps1_, eps2_;
  Pose X_OP_;
  bool identity_pose_ = false;  // X_OP = identity: skip the frame changes
  // √3·max(a, b, c): h = f^(ε1/2) is homogeneous of degree 1 in x̃ = (x/a, y/b, z/c), so
  // x̃ᵀ∇_x̃ h = h ≥ max|x̃_i| ≥ ‖x̃‖/√3 and ‖∇_x h‖ ≥ 1/(√3·max(a, b, c)): the normal's g = this·∇h
  // is unit-free and at least 1 long, and τ stays negligible at any unit of length.
  double normal_scale_ = 1.0;

  /// evaluate() near the coordinate planes, at x in the primitive frame (see evaluate).
  template <class T>
  SdfPoint<T> evaluate_near_planes(const V3<T>& x, double tau, bool value_only) const;
};

/// A convex polyhedron {x : n_iᵀx ≤ h_i} with the smooth SDF (5) φ = LSE_t(n_iᵀx − h_i)
/// (t = 0: the max of eq. (4), exact on and inside the faces' Voronoi regions, a lower bound
/// elsewhere).
class ConvexPolyhedron {
 public:
  /// From half-spaces n_iᵀx ≤ h_i in the primitive frame. Normals are normalized. The origin
  /// of the primitive frame must be strictly inside (every h_i > 0 after normalization): this
  /// rules out empty polyhedra; unbounded ones are rejected too.
  /// @param normals N × 3, @param offsets N, @param temperature t ≥ 0 of eq. (5) (a length).
  /// @throws std::invalid_argument on non-finite input, zero normals, N < 4, an origin not
  /// strictly inside, an unbounded set or an invalid temperature.
  static ConvexPolyhedron from_halfspaces(const Eigen::MatrixX3d& normals,
                                          const Eigen::VectorXd& offsets, double temperature,
                                          const Pose& X_OP = Pose::identity());
  /// The convex hull of a vertex set (N × 3, primitive frame), facets found by brute force
  /// (O(N⁴), meant for the small hulls of collision primitives, N ≤ 64).
  /// @throws std::invalid_argument on non-finite input, N < 4, N > 64, a flat (zero-volume)
  /// set or an invalid temperature.
  static ConvexPolyhedron from_vertices(const Eigen::MatrixX3d& vertices, double temperature,
                                        const Pose& X_OP = Pose::identity());

  int num_planes() const { return static_cast<int>(offsets_.size()); }
  const Eigen::MatrixX3d& normals() const { return normals_; }
  const Eigen::VectorXd& offsets() const { return offsets_; }
  double temperature() const { return temperature_; }
  const Pose& pose() const { return X_OP_; }

  template <class T>
  SdfPoint<T> evaluate(const V3<T>& x_O, double tau = 0.0) const;

 private:
  ConvexPolyhedron() = default;
  void validate_bounded() const;
  Eigen::MatrixX3d normals_;
  Eigen::VectorXd offsets_;
  double temperature_ = 0.0;
  Pose X_OP_;
};

/// An oriented point cloud {(p_i, n_i)} with the RBF SDF (6), Gaussian kernels of one bandwidth σ:
/// φ(x) = Σ B_i n_iᵀ(x − p_i) / Σ B_i, B_i = exp(−‖x − p_i‖²/(2σ²)). The weights are a softmax,
/// unchanged when every logit is shifted by one value: the logits are taken relative to the
/// centre c of the points' bounding box, −(‖x − p_i‖² − ‖x − c‖²)/(2σ²) = (2(x − c)ᵀ(p_i − c) −
/// ‖p_i − c‖²)/(2σ²), whose rounding grows with ‖x − c‖·size/σ² instead of ‖x − c‖²/σ² (far
/// queries keep their digits), and the softmax is shifted by its running maximum (no overflow).
class OrientedPointCloud {
 public:
  /// @param points N × 3, @param normals N × 3 (normalized here), @param bandwidth σ ≥ 1e-150
  /// (1/σ² must not overflow).
  /// @throws std::invalid_argument on N = 0, size mismatch, non-finite input, zero normals or
  /// σ ≤ 0.
  OrientedPointCloud(const Eigen::MatrixX3d& points, const Eigen::MatrixX3d& normals,
                     double bandwidth, const Pose& X_OP = Pose::identity());

  int size() const { return static_cast<int>(points_.rows()); }
  double bandwidth() const { return bandwidth_; }
  const Pose& pose() const { return X_OP_; }

  template <class T>
  SdfPoint<T> evaluate(const V3<T>& x_O, double tau = 0.0) const;

 private:
  Eigen::MatrixX3d points_;
  Eigen::MatrixX3d normals_;
  double bandwidth_;
  Pose X_OP_;
  Eigen::Vector3d center_ = Eigen::Vector3d::Zero();  // of the points' bounding box (primitive frame)
};

/// Any primitive.
using SdfPrimitive = std::variant<Superquadric, ConvexPolyhedron, OrientedPointCloud>;

/// An object's SDF: the smooth union of its additive primitives, minus its subtractive ones
/// (Sec. IV-B): φ = LSE_t( −LSE_t(−φ_1, …, −φ_L), −ψ_1, …, −ψ_M ) with t = blend_temperature
/// (t = 0: min / max). Gradients and normals are the matching softmax-weighted combinations
/// (normals of subtracted primitives are flipped), renormalized with τ.
class SdfObject {
 public:
  /// @param blend_temperature t ≥ 0 of the union / subtraction (a length).
  /// @param normal_regularization τ ≥ 0 of the normal normalization n = g/√(τ + ‖g‖²)
  /// (dimensionless: every primitive's g is unit-free; keep it small, e.g. 1e-12).
  /// @throws std::invalid_argument on invalid temperatures.
  explicit SdfObject(double blend_temperature = 0.0, double normal_regularization = 1e-12);

  /// Adds a primitive to the union. @return *this.
  SdfObject& add(const SdfPrimitive& primitive);
  /// Adds a primitive to subtract. @return *this.
  SdfObject& subtract(const SdfPrimitive& primitive);

  int num_added() const { return static_cast<int>(added_.size()); }
  int num_subtracted() const { return static_cast<int>(subtracted_.size()); }
  double blend_temperature() const { return blend_temperature_; }
  double normal_regularization() const { return tau_; }

  /// φ, ∇φ and n at x_O (object frame). Requires at least one added primitive (else the value
  /// is +inf with zero gradient and normal).
  template <class T>
  SdfPoint<T> evaluate(const V3<T>& x_O) const;
  /// φ only at x_O (object frame), the same value as evaluate(x_O).value (cheaper: superquadrics
  /// skip their gradients).
  template <class T>
  T evaluate_value(const V3<T>& x_O) const;

  /// A lower bound of φ at x_O (object frame): φ(x_O) ≥ lower_bound(x_O). Each superquadric's
  /// value is bounded by the distance to the box of its semi-axes (−‖semi-axes‖ inside it), the
  /// union by −t·log Σ_l exp(−L_l/t) over those bounds, and subtraction only raises φ. A static
  /// bounding-volume hierarchy over the boxes stands in for whole subtrees (c primitives beyond
  /// the node's box distance L: c·exp(−L/t)) that lie more than t·(40 + log n) beyond the nearest
  /// bound or beyond `above` + t·log n (then the bound exceeds `above`, which is all a caller
  /// testing "φ > above" needs). −inf where an added primitive has no bound (polyhedra, point
  /// clouds) or there are more than 64; +inf without any. Allocation-free.
  double lower_bound(const Eigen::Vector3d& x_O,
                     double above = -std::numeric_limits<double>::infinity()) const;

  /// Double convenience: φ(x_O).
  double value(const Eigen::Vector3d& x_O) const { return evaluate(V3<double>::from(x_O)).value; }
  /// Double convenience: ∇φ(x_O).
  Eigen::Vector3d gradient(const Eigen::Vector3d& x_O) const {
    return values(evaluate(V3<double>::from(x_O)).gradient);
  }
  /// Double convenience: the unit normal at x_O.
  Eigen::Vector3d normal(const Eigen::Vector3d& x_O) const {
    return values(evaluate(V3<double>::from(x_O)).normal);
  }

 private:
  /// A box (pose R, p and half extents) that bounds an added primitive's value from below:
  /// φ_l(x) ≥ distance from x to the box outside it, ≥ −‖half‖ inside. Superquadrics have one:
  /// their value (1) is a radial distance, at least the Euclidean distance to the surface, and
  /// the shape lies in the box of its semi-axes. Other primitives are never culled.
  struct PrimitiveBound {
    bool valid = false;
    Mat3 R = Mat3::Identity();
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    Eigen::Vector3d half = Eigen::Vector3d::Zero();
    double lower(const Eigen::Vector3d& x) const {
      if (!valid) return -std::numeric_limits<double>::infinity();
      const Eigen::Vector3d q = (R.transpose() * (x - p)).cwiseAbs() - half;
      const double d = q.cwiseMax(0.0).norm();
      return d > 0.0 ? d : -half.norm();
    }
  };
  /// Objects with at most this many added primitives skip far primitives in the union.
  static constexpr int kMaxCulledPrimitives = 64;
  /// A node of the bounding-volume hierarchy over the primitive boxes (axis-aligned in the object
  /// frame): a leaf holds one primitive. lower(x) ≤ every bound below the node: the distance to
  /// the node's box outside it, −(largest ‖half‖ below) inside.
  struct BoundNode {
    Eigen::Vector3d lo = Eigen::Vector3d::Zero(), hi = Eigen::Vector3d::Zero();
    double inner = 0.0;
    int left = -1, right = -1, primitive = -1, count = 0;
    double lower(const Eigen::Vector3d& x) const {
      const double d = (lo - x).cwiseMax(x - hi).cwiseMax(0.0).norm();
      return d > 0.0 ? d : -inner;
    }
  };
  int build_bound_tree(int* first, int count);  // returns the node index
  template <class T>
  SdfPoint<T> evaluate_impl(const V3<T>& x_O, bool value_only) const;

  std::vector<SdfPrimitive> added_;
  std::vector<PrimitiveBound> added_bounds_;  // one per added_ entry
  std::vector<BoundNode> bound_tree_;          // root at 0; empty unless every added primitive has a bound
  std::vector<SdfPrimitive> subtracted_;
  double blend_temperature_;
  double tau_;
};

// ---------------------------------------------------------------------------------------------
// Template definitions
// ---------------------------------------------------------------------------------------------

template <class T>
SdfPoint<T> Superquadric::evaluate(const V3<T>& x_O, double tau, bool value_only) const {
  using std::sqrt;
  SdfPoint<T> out;
  const V3<T> x = identity_pose_ ? x_O : inverse_transform(X_OP_.R, X_OP_.p, x_O);
  const V3<T> xs(x.x / semi_axes_.x(), x.y / semi_axes_.y(), x.z / semi_axes_.z());
  // s = max |x̃_i| makes u = x̃/s lie on the unit cube surface: no over/underflow in f(u).
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (std::abs(value_of(xs[i])) > std::abs(value_of(xs[k]))) k = i;
  const T s = value_of(xs[k]) < 0.0 ? T(-xs[k]) : xs[k];
  if (value_of(s) == 0.0) {
    out.value = T(-semi_axes_.minCoeff());
    return out;  // center: gradient and normal 0
  }
  const V3<T> u = (T(1.0) / s) * xs;
  {
    // near a coordinate plane: the careful path (see the declaration)
    const double m = std::min({std::abs(value_of(u.x)), std::abs(value_of(u.y)), std::abs(value_of(u.z))});
    if (std::is_same_v<T, double> ? (m > 0.0 && m < 1e-290) : m < 1e-100) return evaluate_near_planes(x, tau, value_only);
  }
  const double p2 = 2.0 / eps2_, p1 = 2.0 / eps1_, q = eps2_ / eps1_;
  // A = |u_x|^p2 + |u_y|^p2 in the log domain: A^q and A^(q−1)·|u|^(p2−1) stay finite even
  // where A underflows (tiny ε2), eq. (2).
  using std::exp;
  using std::log;
  using std::log1p;
  const bool x0 = value_of(u.x) == 0.0, y0 = value_of(u.y) == 0.0;
  const T ax = value_of(u.x) < 0.0 ? T(-u.x) : u.x;
  const T ay = value_of(u.y) < 0.0 ? T(-u.y) : u.y;
  // A^q, and the shares w_x = |u_x|^p2/A, w_y = |u_y|^p2/A of A (for the gradient below)
  T Aq(0.0), lx(0.0), ly(0.0), logA(0.0), e(0.0);
  const bool x_leads = !x0 && (y0 || value_of(ax) >= value_of(ay));  // e = (smaller/larger)^p2 ∈ [0, 1]
  if (!(x0 && y0)) {
    // |u_k| = 1 for the largest coordinate k: its logarithm is 0 (one call fewer)
    lx = x0 || k == 0 ? T(0.0) : T(log(ax));
    ly = y0 || k == 1 ? T(0.0) : T(log(ay));
    if (x0) logA = p2 * ly;
    else if (y0) logA = p2 * lx;
    else {
      e = exp(x_leads ? T(p2 * (ly - lx)) : T(p2 * (lx - ly)));
      logA = p2 * (x_leads ? lx : ly) + log1p(e);
    }
    Aq = exp(q * logA);
  }
  const T zp = k == 2 ? T(1.0) : abs_pow(u.z, p1);  // |u_z|^p1, 1 where z is the largest
  const T g = Aq + zp;                 // f(u) ≥ 1, eq. (2)
  const T gh = pos_pow(g, 0.5 * eps1_);
  const T h = s * gh;                  // h = f(x̃)^(ε1/2), homogeneous of degree 1
  const T r = sqrt(squared_norm(x));
  const T one_minus = 1.0 - T(1.0) / h;
  out.value = r * one_minus;
  if (value_only) return out;
  // ∇_x̃ h = g^(ε1/2 − 1)·[A^(q−1) sgn|u_x|^(p2−1), A^(q−1) sgn|u_y|^(p2−1), sgn|u_z|^(p1−1)]
  // with A^(q−1)|u_x|^(p2−1) = A^q·w_x/|u_x| (w_x = 1/(1 + e) or e/(1 + e)), g^(ε1/2 − 1) = gh/g
  // and sgn|u_z|^(p1−1) = |u_z|^p1/u_z: divisions instead of exp / pow. Where the smaller share
  // underflows toward the subnormals its term is formed in the log domain instead.
  T tx(0.0), ty(0.0);
  if (!(x0 && y0)) {
    const T big = 1.0 / (1.0 + e);  // the larger share
    auto share = [&](const T& a, const T& l, bool leads) -> T {
      if (leads) return Aq * big / a;
      if (value_of(e) > 1e-280) return Aq * (e * big) / a;
      return exp((q - 1.0) * logA + (p2 - 1.0) * l);
    };
    if (!x0) tx = share(ax, lx, x_leads);
    if (!y0) ty = share(ay, ly, !x_leads);
    if (value_of(u.x) < 0.0) tx = -tx;
    if (value_of(u.y) < 0.0) ty = -ty;
  }
  const T gpow = gh / g;
  const T tz = value_of(u.z) == 0.0 ? T(0.0) : T(zp / u.z);
  V3<T> grad_h(gpow * tx / semi_axes_.x(), gpow * ty / semi_axes_.y(), gpow * tz / semi_axes_.z());
  // ∇φ = (x/‖x‖)(1 − 1/h) + ‖x‖ ∇h / h².
  const V3<T> grad = (one_minus / r) * x + (r / (h * h)) * grad_h;
  out.gradient = identity_pose_ ? grad : rotate(X_OP_.R, grad);
  const V3<T> g_n = normal_scale_ * grad_h;  // unit-free, ‖g_n‖ ≥ 1 (see normal_scale_)
  out.normal = detail::regularized_unit(identity_pose_ ? g_n : rotate(X_OP_.R, g_n), tau);
  return out;
}

namespace detail {
/// A scalar with value v and gradient g (w.r.t. the point x): v for double, v + gᵀdx for Dual.
inline double with_gradient(double v, const Eigen::Vector3d& /*g*/, const V3<double>& /*x*/) { return v; }
template <int N>
Dual<N> with_gradient(double v, const Eigen::Vector3d& g, const V3<Dual<N>>& x) {
  Dual<N> r(v, typename Dual<N>::NoInit{});
  for (int i = 0; i < N; ++i) r.d[i] = g.x() * x.x.d[i] + g.y() * x.y.d[i] + g.z() * x.z.d[i];
  return r;
}
}  // namespace detail

template <class T>
SdfPoint<T> Superquadric::evaluate_near_planes(const V3<T>& x, double tau, bool value_only) const {
  const SecondOrder so = second_order(values(x));
  SdfPoint<T> out;
  out.value = detail::with_gradient(so.value, so.gradient, x);
  if (value_only) return out;
  V3<T> grad, gh;
  for (int i = 0; i < 3; ++i) {
    grad[i] = detail::with_gradient(so.gradient[i], so.hessian.row(i).transpose(), x);
    gh[i] = detail::with_gradient(normal_scale_ * so.gradient_h[i], normal_scale_ * so.hessian_h.row(i).transpose(), x);
  }
  out.gradient = identity_pose_ ? grad : rotate(X_OP_.R, grad);
  out.normal = detail::regularized_unit(identity_pose_ ? gh : rotate(X_OP_.R, gh), tau);
  return out;
}

template <class T>
SdfPoint<T> ConvexPolyhedron::evaluate(const V3<T>& x_O, double tau) const {
  const V3<T> x = inverse_transform(X_OP_.R, X_OP_.p, x_O);
  detail::LseAccumulator<T> lse;
  lse.t = temperature_;
  for (int i = 0; i < num_planes(); ++i) {
    const V3<T> n = V3<T>::from(normals_.row(i).transpose());
    lse.add(dot(n, x) - offsets_[i], n, n);  // eq. (5)
  }
  SdfPoint<T> out;
  out.value = lse.value();
  out.gradient = rotate(X_OP_.R, lse.gradient());
  out.normal = detail::regularized_unit(out.gradient, tau);
  return out;
}

template <class T>
SdfPoint<T> OrientedPointCloud::evaluate(const V3<T>& x_O, double tau) const {
  using std::exp;
  const V3<T> x = inverse_transform(X_OP_.R, X_OP_.p, x_O);
  const double inv_s2 = 1.0 / (bandwidth_ * bandwidth_);
  const V3<T> xc = x - V3<T>::from(center_);
  // Streaming softmax over the centre-shifted logits a_i = (2(x − c)ᵀ(p_i − c) − ‖p_i − c‖²)/(2σ²)
  // (= −‖x − p_i‖²/(2σ²) + ‖x − c‖²/(2σ²), the same weights), accumulating Σw, Σw n, Σw d,
  // Σw (p − c) and Σw d (p − c) with d_i = n_iᵀ(x − p_i).
  T amax{}, sw(0.0), swd(0.0);
  V3<T> swn, swp, swdp;
  for (int i = 0; i < size(); ++i) {
    const Eigen::Vector3d pc = points_.row(i).transpose() - center_;
    const V3<T> n = V3<T>::from(normals_.row(i).transpose());
    const T a = inv_s2 * (dot(xc, V3<T>::from(pc)) - 0.5 * pc.squaredNorm());
    const T d = dot(n, xc) - n.x * pc.x() - n.y * pc.y() - n.z * pc.z();
    T w(1.0);
    if (i == 0) {
      amax = a;
    } else if (value_of(a) > value_of(amax)) {
      const T scale = exp(amax - a);
      sw = scale * sw;
      swd = scale * swd;
      swn = scale * swn;
      swp = scale * swp;
      swdp = scale * swdp;
      amax = a;
    } else {
      w = exp(a - amax);
    }
    sw = sw + w;
    swd = swd + w * d;
    swn = swn + w * n;
    swp = swp + w * V3<T>::from(pc);
    swdp = swdp + (w * d) * V3<T>::from(pc);
  }
  const T inv = T(1.0) / sw;
  SdfPoint<T> out;
  out.value = swd * inv;  // eq. (6)
  // ∇φ = Σw n/Σw + Σw (d_i − φ) ∇a_i/Σw with ∇a_i = (p_i − c)/σ² (the shift is common to every i
  // and cancels, Σw (d_i − φ) = 0): no ‖x − c‖-sized terms that cancel.
  const V3<T> grad = inv * swn + (inv_s2 * inv) * (swdp - out.value * swp);
  out.gradient = rotate(X_OP_.R, grad);
  out.normal = detail::regularized_unit(out.gradient, tau);
  return out;
}

template <class T>
SdfPoint<T> SdfObject::evaluate(const V3<T>& x_O) const {
  return evaluate_impl(x_O, false);
}

template <class T>
SdfPoint<T> SdfObject::evaluate_impl(const V3<T>& x_O, bool value_only) const {
  // value_only: superquadrics skip their gradient and normal (the value is the same).
  auto eval = [&](const SdfPrimitive& prim) {
    return std::visit(
        [&](const auto& q) {
          if constexpr (std::is_same_v<std::decay_t<decltype(q)>, Superquadric>) return q.evaluate(x_O, tau_, value_only);
          else return q.evaluate(x_O, tau_);
        },
        prim);
  };
  SdfPoint<T> out;
  if (added_.empty()) {
    out.value = T(std::numeric_limits<double>::infinity());
    return out;
  }
  if (added_.size() == 1 && subtracted_.empty()) {
    // One primitive: the LSE of a single entry is the entry itself (weights 1), exactly.
    const SdfPoint<T> p = eval(added_[0]);
    out.value = p.value;
    out.gradient = p.gradient;
    out.normal = detail::regularized_unit(p.normal, tau_);
    return out;
  }
  // Smooth union: −LSE(−φ_l) (normals combined with the same weights).
  detail::LseAccumulator<T> uni;
  uni.t = blend_temperature_;
  const int n = static_cast<int>(added_.size());
  if (n <= kMaxCulledPrimitives) {
    // Culling, exact to rounding: a primitive whose lower bound exceeds the smallest value found
    // so far by 40 t has a union weight below e^-40 relative to it (for t = 0: cannot be the
    // minimum), so it is not evaluated. The primitive with the smallest bound goes first.
    const Eigen::Vector3d xv(value_of(x_O.x), value_of(x_O.y), value_of(x_O.z));
    double lower[kMaxCulledPrimitives];
    int first = 0;
    for (int l = 0; l < n; ++l) {
      lower[l] = added_bounds_[l].lower(xv);
      if (lower[l] < lower[first]) first = l;
    }
    const double margin = 40.0 * blend_temperature_;
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k < n; ++k) {
      const int l = k == 0 ? first : (k == first ? 0 : k);
      if (lower[l] - best > margin) continue;
      const SdfPoint<T> p = eval(added_[l]);
      uni.add(-p.value, -p.gradient, p.normal);
      best = std::min(best, value_of(p.value));
    }
  } else {
    for (const SdfPrimitive& prim : added_) {
      const SdfPoint<T> p = eval(prim);
      uni.add(-p.value, -p.gradient, p.normal);
    }
  }
  detail::LseAccumulator<T> sub;
  sub.t = blend_temperature_;
  sub.add(-uni.value(), -uni.gradient(), uni.normal());
  // Smooth subtraction: LSE(φ, −ψ_m).
  for (const SdfPrimitive& prim : subtracted_) {
    const SdfPoint<T> p = eval(prim);
    sub.add(-p.value, -p.gradient, -p.normal);
  }
  out.value = sub.value();
  out.gradient = sub.gradient();
  out.normal = detail::regularized_unit(sub.normal(), tau_);
  return out;
}

template <class T>
T SdfObject::evaluate_value(const V3<T>& x_O) const {
  return evaluate_impl(x_O, true).value;
}

}  // namespace diffcol::manifold
