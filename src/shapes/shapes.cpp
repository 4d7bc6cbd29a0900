// Construction, validation and bounding radii of the implicit shapes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "diffcol/shapes/shape.hpp"
#include "../geometry/convex_hull.hpp"

namespace diffcol {
namespace {

void require_positive(double v, const char* shape, const char* what) {
  if (!std::isfinite(v) || !(v > 0.0) || v > kMaxLength) {
    std::ostringstream os;
    os << shape << ": " << what << " must be finite, > 0 and at most 1e100 (kMaxLength) (got " << v << ")";
    throw std::invalid_argument(os.str());
  }
}

// A size: in [kMinLength, kMaxLength] (below 1e-100 products of lengths underflow and the
// gradients lose their direction: a sphere of radius 1e-300 had NaN normals).
void require_length(double v, const char* shape, const char* what) {
  if (!std::isfinite(v) || !(v >= kMinLength) || v > kMaxLength) {
    std::ostringstream os;
    os << shape << ": " << what << " must be finite and in [1e-100, 1e100] (kMinLength, kMaxLength) (got " << v
       << ")";
    throw std::invalid_argument(os.str());
  }
}

// The supporting planes of the convex hull of a point set (defined with the convex hull below).
void hull_planes(const std::vector<Vec3>& P, const char* what, std::vector<Vec3>& normals,
                 std::vector<double>& offsets);

// Up to this many half-spaces the polytope's vertices are enumerated by brute force: O(m³)
// triples, each checked against all planes (O(m⁴), about 20 ms at 64), exact for any aspect
// ratio. Larger polytopes use the polar hull (O(m·faces)).
constexpr int kBruteForceFaces = 64;

// Appends v unless a vertex within 1e-9 (relative) is already there.
void add_vertex(std::vector<Vec3>& out, const Vec3& v) {
  for (const Vec3& w : out)
    if ((w - v).norm() <= 1e-9 * (1.0 + v.norm())) return;
  out.push_back(v);
}

const char* const kUnbounded = "smooth_polytope: the polytope A y <= b is unbounded";

// Bounded iff no direction d ≠ 0 has A d ≤ 0; the extreme rays of that cone lie on intersections
// of two of its facets, so the candidates are ±(a_i × a_j). Then the vertices: triples of tight
// planes that satisfy all others.
std::vector<Vec3> brute_force_vertices(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b) {
  const int m = static_cast<int>(A.rows());
  Eigen::FullPivLU<Eigen::MatrixX3d> lu(A);
  bool bounded = lu.rank() == 3;
  for (int i = 0; i < m && bounded; ++i)
    for (int j = i + 1; j < m && bounded; ++j) {
      Vec3 d = A.row(i).transpose().cross(A.row(j).transpose());
      if (d.norm() < 1e-12 * A.row(i).norm() * A.row(j).norm()) continue;
      d.normalize();
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        const Eigen::VectorXd ad = A * (sgn * d);
        double worst = -1e300;
        for (int k = 0; k < m; ++k) worst = std::max(worst, ad[k] / A.row(k).norm());
        if (worst <= 1e-12) bounded = false;
      }
    }
  if (!bounded) throw std::invalid_argument(kUnbounded);
  std::vector<Vec3> out;
  for (int i = 0; i < m; ++i)
    for (int j = i + 1; j < m; ++j)
      for (int k = j + 1; k < m; ++k) {
        Mat3 M;
        M.row(0) = A.row(i);
        M.row(1) = A.row(j);
        M.row(2) = A.row(k);
        if (std::abs(M.determinant()) < 1e-12 * M.row(0).norm() * M.row(1).norm() * M.row(2).norm())
          continue;
        const Vec3 v = M.partialPivLu().solve(Vec3(b[i], b[j], b[k]));
        bool inside = true;
        for (int l = 0; l < m && inside; ++l) inside = A.row(l).dot(v) <= b[l] + 1e-9 * (1.0 + std::abs(b[l]));
        if (inside) add_vertex(out, v);
      }
  return out;
}

// The polar route: with d_i = a_i/b_i, each facet nᵀd ≤ c of conv{d_i} is a vertex v = n/c of
// {A y ≤ b}, and the polytope is bounded iff the origin lies strictly inside conv{d_i} (every
// c > 0). The hull's tolerance is relative to the largest d_i, so a polytope more elongated than
// about 1e9 : 1 counts as unbounded here.
std::vector<Vec3> polar_vertices(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b) {
  const int m = static_cast<int>(A.rows());
  std::vector<Vec3> dual(static_cast<size_t>(m));
  double scale = 0.0;
  for (int i = 0; i < m; ++i) {
    dual[static_cast<size_t>(i)] = A.row(i).transpose() / b[i];
    scale = std::max(scale, dual[static_cast<size_t>(i)].norm());
  }
  const double tol = 1e-9 * scale;
  std::vector<Vec3> normals;
  std::vector<double> offsets;
  hull_planes(dual, "smooth_polytope: vertex enumeration", normals, offsets);
  bool bounded = normals.size() >= 4;
  for (size_t f = 0; f < offsets.size() && bounded; ++f) bounded = offsets[f] > tol;
  if (!bounded) throw std::invalid_argument(kUnbounded);
  std::vector<Vec3> out;
  for (size_t f = 0; f < normals.size(); ++f) add_vertex(out, normals[f] / offsets[f]);
  return out;
}

void require_bounded_extent(double outer, const char* shape) {
  if (!(outer <= kMaxLength)) {
    std::ostringstream os;
    os << shape << ": the shape reaches " << outer << " from its origin; at most 1e100 (kMaxLength)";
    throw std::invalid_argument(os.str());
  }
}

void require_epsilon(double eps, const char* shape) {
  if (!std::isfinite(eps) || eps < 0.0 || eps >= 0.1) {
    std::ostringstream os;
    os << shape << ": epsilon must be in [0, 0.1) (got " << eps << ")";
    throw std::invalid_argument(os.str());
  }
}

void require_exponent(int n, const char* shape) {
  if (n < 1 || n > 64) {
    std::ostringstream os;
    os << shape << ": exponent n must be an integer in [1, 64] (got " << n << ")";
    throw std::invalid_argument(os.str());
  }
}

// ‖v‖_q with q = 2n/(n−1) (q = ∞ for n = 1): the circumscribed radius of a superquadric.
template <int N>
double dual_norm(const Eigen::Matrix<double, N, 1>& v, int n) {
  if (n == 1) return v.maxCoeff();
  const double q = 2.0 * n / (n - 1.0);
  const double vmax = v.maxCoeff();
  double s = 0.0;
  for (int i = 0; i < N; ++i) s += std::pow(v[i] / vmax, q);
  return vmax * std::pow(s, 1.0 / q);
}

}  // namespace

const char* shape_type_name(ShapeType t) {
  switch (t) {
    case ShapeType::sphere: return "sphere";
    case ShapeType::superellipsoid: return "superellipsoid";
    case ShapeType::superelliptic_cylinder: return "superelliptic_cylinder";
    case ShapeType::smooth_polytope: return "smooth_polytope";
    case ShapeType::smooth_truncated_cone: return "smooth_truncated_cone";
  }
  return "unknown";
}

// ---------------------------------------------------------------- sphere
Sphere::Sphere(double radius) : R_(radius), inv_R_(1.0 / radius) { require_length(radius, "sphere", "radius"); }

// ---------------------------------------------------------------- superellipsoid
Superellipsoid::Superellipsoid(double a, double b, double c, int n, double epsilon)
    : n_(n), eps_(n > 1 ? epsilon : 0.0), sqrt_count_(detail::sqrt_count_for(n)) {
  require_exponent(n, "superellipsoid");
  require_length(a, "superellipsoid", "semi-axis a");
  require_length(b, "superellipsoid", "semi-axis b");
  require_length(c, "superellipsoid", "semi-axis c");
  if (n > 1) require_epsilon(epsilon, "superellipsoid");  // n = 1 does not use ε
  inv_axes_ = Vec3(1.0 / a, 1.0 / b, 1.0 / c);
  axes_ = Vec3(a, b, c);
  // Σ u_i^n ≤ (Σ u_i)^n, so ‖ȳ‖² ≤ 1 − 3ε implies φ ≤ 0.
  inner_ = std::min({a, b, c}) * std::sqrt(1.0 - 3.0 * eps_);
  outer_ = dual_norm<3>(Vec3(a, b, c), n);
}

double Superellipsoid::value(const Vec3& y) const {
  Vec3 g;
  Mat3 H;
  return eval(y, g, H);
}

// ---------------------------------------------------------------- superelliptic cylinder
SuperellipticCylinder::SuperellipticCylinder(double radius, double half_height, int n, double epsilon)
    : n_(n), eps_(n > 1 ? epsilon : 0.0), sqrt_count_(detail::sqrt_count_for(n)) {
  require_exponent(n, "superelliptic_cylinder");
  require_length(radius, "superelliptic_cylinder", "radius R");
  require_length(half_height, "superelliptic_cylinder", "half-height h");
  if (n > 1) require_epsilon(epsilon, "superelliptic_cylinder");  // n = 1 does not use ε
  invR_ = 1.0 / radius;
  invh_ = 1.0 / half_height;
  R_ = radius;
  h_ = half_height;
  inner_ = std::min(radius, half_height) * std::sqrt(1.0 - 2.0 * eps_);
  outer_ = dual_norm<2>(Eigen::Vector2d(radius, half_height), n);
}

double SuperellipticCylinder::value(const Vec3& y) const {
  Vec3 g;
  Mat3 H;
  return eval(y, g, H);
}

// ---------------------------------------------------------------- smooth polytope
SmoothPolytope::SmoothPolytope(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b, double beta,
                               double length)
    : beta_(beta), L_(length) {
  require_positive(beta, "smooth_polytope", "beta");
  require_length(length, "smooth_polytope", "characteristic length L");
  const int m = static_cast<int>(A.rows());
  if (b.size() != m) {
    std::ostringstream os;
    os << "smooth_polytope: A has " << m << " rows but b has " << b.size() << " entries";
    throw std::invalid_argument(os.str());
  }
  if (m < 4) throw std::invalid_argument("smooth_polytope: a bounded polytope needs at least 4 half-spaces");
  if (m > kMaxFaces) {
    std::ostringstream os;
    os << "smooth_polytope: " << m << " half-spaces; at most " << kMaxFaces
       << " (SmoothPolytope::kMaxFaces: every evaluation sums over all of them)";
    throw std::invalid_argument(os.str());
  }
  if (!A.allFinite() || !b.allFinite()) throw std::invalid_argument("smooth_polytope: A or b is not finite");
  for (int i = 0; i < m; ++i) {
    if (!(A.row(i).norm() > 0.0)) throw std::invalid_argument("smooth_polytope: A has a zero row");
    if (!(b[i] > 0.0))
      throw std::invalid_argument(
          "smooth_polytope: every b_i must be > 0 (the body origin must lie strictly inside A y <= b)");
  }
  // Boundedness and the vertices of the exact polytope: by brute force up to kBruteForceFaces
  // half-spaces (exact for any aspect ratio), from the polar hull above (polar_vertices).
  std::vector<Vec3> verts = m <= kBruteForceFaces ? brute_force_vertices(A, b) : polar_vertices(A, b);

  A_ = A;
  b_ = b;
  ax_.resize(m);
  ay_.resize(m);
  az_.resize(m);
  offsets_.resize(m);
  for (int i = 0; i < m; ++i) {
    ax_[i] = A(i, 0) / L_;
    ay_[i] = A(i, 1) / L_;
    az_[i] = A(i, 2) / L_;
    offsets_[i] = b[i] / L_;
  }
  double outer2 = 0.0;
  for (const Vec3& v : verts) outer2 = std::max(outer2, v.squaredNorm());
  vertices_ = std::move(verts);
  outer_ = std::sqrt(outer2);
  require_bounded_extent(outer_, "smooth_polytope");
  // max c ≤ −log(m)/β implies φ ≤ 0
  const double slack = L_ * std::log(static_cast<double>(m)) / beta_;
  inner_ = 1e300;
  for (int i = 0; i < m; ++i) inner_ = std::min(inner_, (b[i] - slack) / A.row(i).norm());
  if (!(inner_ >= kMinLength) && value(Vec3::Zero()) < 0.0 && inner_ > 0.0) {
    std::ostringstream os;
    os << "smooth_polytope: inner radius " << inner_ << " below 1e-100 (kMinLength)";
    throw std::invalid_argument(os.str());
  }
  if (!(value(Vec3::Zero()) < 0.0) || !(inner_ > 0.0)) {
    std::ostringstream os;
    os << "smooth_polytope: the body origin is not strictly inside the smooth shape at beta = " << beta
       << " (increase beta or move the origin away from the faces)";
    throw std::invalid_argument(os.str());
  }
}

SmoothPolytope SmoothPolytope::box(double hx, double hy, double hz, double beta, double length) {
  require_length(hx, "smooth_polytope box", "half-extent x");
  require_length(hy, "smooth_polytope box", "half-extent y");
  require_length(hz, "smooth_polytope box", "half-extent z");
  Eigen::MatrixX3d A(6, 3);
  A << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1;
  Eigen::VectorXd b(6);
  b << hx, hx, hy, hy, hz, hz;
  return SmoothPolytope(A, b, beta, length);
}

namespace {

// Supporting planes (unit normal n, offset d: n·p ≤ d for every point, tight at ≥ 3) of the convex
// hull of `points` by Qhull (src/geometry/convex_hull.cpp), coplanar facets merged. Empty if the
// points span no volume.
void hull_planes(const std::vector<Vec3>& P, const char* what, std::vector<Vec3>& normals,
                 std::vector<double>& offsets) {
  diffcol::detail::HullFacets hull;
  std::string why;
  if (!diffcol::detail::qhull_facets(P, hull, why, what)) return;
  normals = std::move(hull.normals);
  offsets = std::move(hull.offsets);
}

}  // namespace

SmoothPolytope SmoothPolytope::convex_hull(const std::vector<Vec3>& points, double beta, double length) {
  const int n = static_cast<int>(points.size());
  if (n < 4) throw std::invalid_argument("smooth_polytope convex_hull: need at least 4 points");
  for (const Vec3& p : points)
    if (!p.allFinite()) throw std::invalid_argument("smooth_polytope convex_hull: a point is not finite");
  std::vector<Vec3> normals;
  std::vector<double> offsets;
  hull_planes(points, "smooth_polytope convex_hull: hull construction", normals, offsets);
  if (normals.size() < 4)
    throw std::invalid_argument("smooth_polytope convex_hull: the points are coplanar or collinear (no volume)");
  if (normals.size() > static_cast<size_t>(kMaxFaces)) {
    std::ostringstream os;
    os << "smooth_polytope convex_hull: the hull has " << normals.size() << " faces; at most " << kMaxFaces
       << " (SmoothPolytope::kMaxFaces): simplify the point set first";
    throw std::invalid_argument(os.str());
  }
  Eigen::MatrixX3d A(normals.size(), 3);
  Eigen::VectorXd b(normals.size());
  for (size_t f = 0; f < normals.size(); ++f) {
    A.row(f) = normals[f].transpose();
    b[f] = offsets[f];
  }
  return SmoothPolytope(A, b, beta, length);
}

double SmoothPolytope::value(const Vec3& y) const {
  Vec3 g;
  Mat3 H;
  return eval(y, g, H);
}

// ---------------------------------------------------------------- smooth truncated cone
SmoothTruncatedCone::SmoothTruncatedCone(double bottom_radius, double top_radius, double a, double b,
                                         double beta)
    : beta_(beta), Rb_(bottom_radius), Rt_(top_radius), a_(a), b_(b) {
  require_positive(beta, "smooth_truncated_cone", "beta");
  require_length(bottom_radius, "smooth_truncated_cone", "bottom radius");
  require_length(top_radius, "smooth_truncated_cone", "top radius");
  require_length(a, "smooth_truncated_cone", "bottom extent a");
  require_length(b, "smooth_truncated_cone", "top extent b");
  inva_ = 1.0 / a;
  invb_ = 1.0 / b;
  kappa_ = (Rt_ - Rb_) / (a + b);
  R0_ = Rb_ + kappa_ * a;  // R(0)
  Rfloor_ = 0.5 * std::min(Rb_, Rt_);
  outer_ = std::max(std::hypot(a, Rb_), std::hypot(b, Rt_));
  // max c ≤ −δ (δ = log 3/β) implies φ ≤ 0; the set max c ≤ −δ holds a ball of radius
  // min(a(1−δ), b(1−δ), dist(0, line r = √(1−δ)(R0 + κ y1))).
  const double delta = std::log(3.0) / beta;
  const double s = std::sqrt(std::max(0.0, 1.0 - delta));
  const double side = s * R0_ / std::sqrt(1.0 + s * s * kappa_ * kappa_);
  inner_ = std::min({a * (1.0 - delta), b * (1.0 - delta), side});
  if (!(inner_ > 0.0) || !(value(Vec3::Zero()) < 0.0)) {
    std::ostringstream os;
    os << "smooth_truncated_cone: beta = " << beta << " is too small: the body origin is not safely inside";
    throw std::invalid_argument(os.str());
  }
}

double SmoothTruncatedCone::value(const Vec3& y) const {
  Vec3 g;
  Mat3 H;
  return eval(y, g, H);
}

// ---------------------------------------------------------------- Shape
std::string Shape::describe() const {
  std::ostringstream os;
  os << shape_type_name(type()) << "(";
  switch (type()) {
    case ShapeType::sphere: os << "R=" << as<Sphere>().radius(); break;
    case ShapeType::superellipsoid: {
      const auto& s = as<Superellipsoid>();
      const Vec3 ax = s.semi_axes();
      os << "n=" << s.exponent() << ", a=" << ax.x() << ", b=" << ax.y() << ", c=" << ax.z();
      break;
    }
    case ShapeType::superelliptic_cylinder: {
      const auto& s = as<SuperellipticCylinder>();
      os << "n=" << s.exponent() << ", R=" << s.radius() << ", h=" << s.half_height();
      break;
    }
    case ShapeType::smooth_polytope: {
      const auto& s = as<SmoothPolytope>();
      os << "faces=" << s.num_faces() << ", beta=" << s.beta() << ", L=" << s.length();
      break;
    }
    case ShapeType::smooth_truncated_cone: {
      const auto& s = as<SmoothTruncatedCone>();
      os << "beta=" << s.beta() << ", Rb=" << s.bottom_radius() << ", Rt=" << s.top_radius()
         << ", a=" << s.bottom_extent() << ", b=" << s.top_extent();
      break;
    }
  }
  os << ")";
  return os.str();
}

}  // namespace diffcol
