// Construction and validation of the SDF primitives (Contax seed, Sec. IV-B).
#include "diffcol/manifold/sdf.hpp"

#include "../util/rows_span.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>


#include "diffcol/math/smooth.hpp"

namespace diffcol::manifold {

namespace {

[[noreturn]] void fail(const std::string& msg) { throw std::invalid_argument("diffcol::manifold: " + msg); }

void validate_pose(const Pose& X, const char* what) {
  if (const char* why = X.invalid_reason()) fail(std::string(what) + ": pose: " + why);
}

}  // namespace

Superquadric::Superquadric(const Eigen::Vector3d& semi_axes, double eps1, double eps2, const Pose& X_OP)
    : semi_axes_(semi_axes), eps1_(eps1), eps2_(eps2), X_OP_(X_OP) {
  if (!semi_axes.allFinite() || (semi_axes.array() <= 0.0).any())
    fail("Superquadric: semi-axes must be finite and > 0");
  for (double e : {eps1, eps2})
    if (!std::isfinite(e) || e < 0.01 || e >= 2.0)
      fail("Superquadric: shape exponents eps1, eps2 must lie in [0.01, 2), got " + std::to_string(e));
  validate_pose(X_OP, "Superquadric");
  identity_pose_ = X_OP.R == Mat3::Identity() && X_OP.p.isZero(0.0);
  normal_scale_ = std::sqrt(3.0) * semi_axes.maxCoeff();
}

double Superquadric::inside_outside(const Eigen::Vector3d& x_O) const {
  const Eigen::Vector3d x = X_OP_.R.transpose() * (x_O - X_OP_.p);
  const Eigen::Vector3d xs = x.cwiseQuotient(semi_axes_);
  // eq. (2)
  const double A = std::pow(xs.x() * xs.x(), 1.0 / eps2_) + std::pow(xs.y() * xs.y(), 1.0 / eps2_);
  return std::pow(A, eps2_ / eps1_) + std::pow(xs.z() * xs.z(), 1.0 / eps1_);
}

Superquadric::SecondOrder Superquadric::second_order(const Eigen::Vector3d& x) const {
  // In u = x̃/s (s = max|x̃_i|, x̃ = x/(a, b, c)): g(u) = A^q + |u_z|^p1, A = |u_x|^p2 + |u_y|^p2,
  // ∇_u g = p1·t with t = (A^(q−1) sgn|u_x|^(p2−1), A^(q−1) sgn|u_y|^(p2−1), sgn|u_z|^(p1−1)). h is
  // homogeneous of degree 1 in x̃: ∇_x̃ h = G(u) = g^(ε1/2−1)·t (degree 0), ∇²_x̃ h = J_G(u)/s with
  // J_G = g^(ε1/2−1)·(J_t + (ε1/2 − 1)·p1/g·t tᵀ). Powers of |u_i| in the log domain, with
  // 0·log 0 = 0 (so |0|^0 = 1).
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const auto clamp = [](double v) {
    if (std::isnan(v)) return 0.0;
    return std::clamp(v, -kMaxSecondDerivative, kMaxSecondDerivative);
  };
  const auto log_abs = [](double a) { return a == 0.0 ? -kInf : std::log(std::abs(a)); };
  const auto times = [](double e, double l) { return e == 0.0 ? 0.0 : e * l; };  // e·log|a|
  // exp(c + e·log|a|) = e^c·|a|^e, with |0|^0 = 1 and, where e < 0 (an unbounded derivative of
  // |a|^(p−1), p < 2), 0 at a = 0: the convention of abs_pow on the plane itself
  const auto power = [](double c, double e, double l) {
    if (l == -kInf) return e == 0.0 ? std::exp(c) : 0.0;
    return std::exp(c + e * l);
  };
  const auto sign = [](double a) { return a < 0.0 ? -1.0 : 1.0; };
  SecondOrder o;
  const Eigen::Vector3d xs = x.cwiseQuotient(semi_axes_);
  const double s = xs.cwiseAbs().maxCoeff();
  const Eigen::Vector3d u = xs / s;
  const double p2 = 2.0 / eps2_, p1 = 2.0 / eps1_, q = eps2_ / eps1_;
  const double lx = log_abs(u.x()), ly = log_abs(u.y()), lz = log_abs(u.z());
  double logA = -kInf;
  if (lx > -kInf || ly > -kInf) {
    const double hi = std::max(lx, ly), lo = std::min(lx, ly);
    logA = p2 * hi + std::log1p(std::exp(p2 * (lo - hi)));
  }
  Eigen::Vector3d t = Eigen::Vector3d::Zero();
  Eigen::Matrix3d J = Eigen::Matrix3d::Zero();
  if (logA == -kInf) {
    // on the z axis: the limits along the x and y axes, d|u|^(p1−1)/du
    J(0, 0) = J(1, 1) = clamp((p1 - 1.0) * power(0.0, p1 - 2.0, -kInf));
  } else {
    t.x() = sign(u.x()) * power((q - 1.0) * logA, p2 - 1.0, lx);
    t.y() = sign(u.y()) * power((q - 1.0) * logA, p2 - 1.0, ly);
    J(0, 0) = clamp((q - 1.0) * p2 * power((q - 2.0) * logA, 2.0 * p2 - 2.0, lx) +
                    (p2 - 1.0) * power((q - 1.0) * logA, p2 - 2.0, lx));
    J(1, 1) = clamp((q - 1.0) * p2 * power((q - 2.0) * logA, 2.0 * p2 - 2.0, ly) +
                    (p2 - 1.0) * power((q - 1.0) * logA, p2 - 2.0, ly));
    J(0, 1) = J(1, 0) = clamp((q - 1.0) * p2 * sign(u.x()) * sign(u.y()) *
                              power((q - 2.0) * logA + times(p2 - 1.0, lx), p2 - 1.0, ly));
  }
  t.z() = sign(u.z()) * power(0.0, p1 - 1.0, lz);
  J(2, 2) = clamp((p1 - 1.0) * power(0.0, p1 - 2.0, lz));
  const double g = (logA == -kInf ? 0.0 : std::exp(q * logA)) + power(0.0, p1, lz);  // ≥ 1
  const double gpow = std::pow(g, 0.5 * eps1_ - 1.0);
  const double h = s * gpow * g;  // s·g^(ε1/2)
  const Eigen::Matrix3d JG = gpow * (J + (0.5 * eps1_ - 1.0) * p1 / g * t * t.transpose());
  o.gradient_h = (gpow * t).cwiseQuotient(semi_axes_);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) o.hessian_h(i, j) = clamp(JG(i, j) / (s * semi_axes_[i] * semi_axes_[j]));
  // φ = r(1 − 1/h): ∇φ = x̂(1 − 1/h) + r∇h/h², ∇²φ = (1 − 1/h)(I − x̂x̂ᵀ)/r + (x̂∇hᵀ + ∇hx̂ᵀ)/h² +
  // r∇²h/h² − 2r∇h∇hᵀ/h³
  const double r = x.norm();
  const Eigen::Vector3d xh = x / r;
  const double one_minus = 1.0 - 1.0 / h;
  const Eigen::Vector3d& gh = o.gradient_h;
  o.value = r * one_minus;
  o.gradient = one_minus * xh + (r / (h * h)) * gh;
  const Eigen::Matrix3d H = (one_minus / r) * (Eigen::Matrix3d::Identity() - xh * xh.transpose()) +
                            (xh * gh.transpose() + gh * xh.transpose()) / (h * h) + (r / (h * h)) * o.hessian_h -
                            (2.0 * r / (h * h * h)) * gh * gh.transpose();
  o.hessian = H.unaryExpr(clamp);
  return o;
}

ConvexPolyhedron ConvexPolyhedron::from_halfspaces(const Eigen::MatrixX3d& normals,
                                                   const Eigen::VectorXd& offsets, double temperature,
                                                   const Pose& X_OP) {
  smooth::validate_temperature(temperature, "ConvexPolyhedron temperature");
  validate_pose(X_OP, "ConvexPolyhedron");
  if (normals.rows() != offsets.size())
    fail("ConvexPolyhedron: " + std::to_string(normals.rows()) + " normals but " +
         std::to_string(offsets.size()) + " offsets");
  if (normals.rows() < 4) fail("ConvexPolyhedron: a bounded polyhedron needs at least 4 half-spaces");
  if (!normals.allFinite() || !offsets.allFinite()) fail("ConvexPolyhedron: non-finite half-space");
  ConvexPolyhedron P;
  P.normals_ = normals;
  P.offsets_ = offsets;
  for (int i = 0; i < normals.rows(); ++i) {
    const double len = normals.row(i).norm();
    if (len < 1e-12) fail("ConvexPolyhedron: half-space " + std::to_string(i) + " has a zero normal");
    P.normals_.row(i) /= len;
    P.offsets_[i] /= len;
    if (!(P.offsets_[i] > 0.0))
      fail("ConvexPolyhedron: the origin of the primitive frame must be strictly inside every "
           "half-space (empty polyhedra are rejected); half-space " + std::to_string(i) +
           " has offset " + std::to_string(P.offsets_[i]));
  }
  P.temperature_ = temperature;
  P.X_OP_ = X_OP;
  P.validate_bounded();
  return P;
}

void ConvexPolyhedron::validate_bounded() const {
  // Bounded ⇔ the recession cone {d : N d ≤ 0} is {0}. It is pointed iff rank N = 3, and a
  // nonzero pointed cone in R³ has an extreme ray ±(n_i × n_j).
  const int n = num_planes();
  if (!(diffcol::detail::rows_span_volume<3>(normals_) > 1e-9))
    fail("ConvexPolyhedron: unbounded (normals do not span R^3)");
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const Eigen::Vector3d c = normals_.row(i).transpose().cross(normals_.row(j).transpose());
      if (c.norm() < 1e-9) continue;
      for (double sgn : {1.0, -1.0}) {
        const Eigen::Vector3d d = sgn * c.normalized();
        if ((normals_ * d).maxCoeff() <= 1e-12)
          fail("ConvexPolyhedron: unbounded (a direction leaves every half-space)");
      }
    }
}

ConvexPolyhedron ConvexPolyhedron::from_vertices(const Eigen::MatrixX3d& vertices, double temperature,
                                                 const Pose& X_OP) {
  smooth::validate_temperature(temperature, "ConvexPolyhedron temperature");
  validate_pose(X_OP, "ConvexPolyhedron");
  const int n = static_cast<int>(vertices.rows());
  if (n < 4) fail("ConvexPolyhedron::from_vertices: needs at least 4 vertices, got " + std::to_string(n));
  if (n > 64) fail("ConvexPolyhedron::from_vertices: at most 64 vertices, got " + std::to_string(n));
  if (!vertices.allFinite()) fail("ConvexPolyhedron::from_vertices: non-finite vertex");
  const double scale = (vertices.rowwise() - vertices.colwise().mean()).rowwise().norm().maxCoeff();
  if (!(scale > 0.0)) fail("ConvexPolyhedron::from_vertices: all vertices coincide");
  const double tol = 1e-9 * scale;
  std::vector<Eigen::Vector3d> nrm;
  std::vector<double> off;
  // Every supporting plane through three vertices is a facet plane (brute force).
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        Eigen::Vector3d c = (vertices.row(j) - vertices.row(i)).transpose().cross(
            (vertices.row(k) - vertices.row(i)).transpose());
        if (c.norm() < 1e-9 * scale * scale) continue;
        c.normalize();
        const double h = c.dot(vertices.row(i).transpose());
        const Eigen::VectorXd s = vertices * c - Eigen::VectorXd::Constant(n, h);
        double sgn = 0.0;
        if (s.maxCoeff() <= tol) sgn = 1.0;
        else if (s.minCoeff() >= -tol) sgn = -1.0;
        if (sgn == 0.0) continue;
        const Eigen::Vector3d nn = sgn * c;
        const double hh = sgn * h;
        bool dup = false;
        for (size_t m = 0; m < nrm.size() && !dup; ++m)
          dup = (nrm[m] - nn).norm() < 1e-9 && std::abs(off[m] - hh) < tol;
        if (!dup) {
          nrm.push_back(nn);
          off.push_back(hh);
        }
      }
  if (nrm.size() < 4) fail("ConvexPolyhedron::from_vertices: the vertices are flat (zero volume)");
  ConvexPolyhedron P;
  P.normals_.resize(static_cast<long>(nrm.size()), 3);
  P.offsets_.resize(static_cast<long>(nrm.size()));
  for (size_t m = 0; m < nrm.size(); ++m) {
    P.normals_.row(static_cast<long>(m)) = nrm[m].transpose();
    P.offsets_[static_cast<long>(m)] = off[m];
  }
  P.temperature_ = temperature;
  P.X_OP_ = X_OP;
  P.validate_bounded();
  return P;
}

OrientedPointCloud::OrientedPointCloud(const Eigen::MatrixX3d& points, const Eigen::MatrixX3d& normals,
                                       double bandwidth, const Pose& X_OP)
    : points_(points), normals_(normals), bandwidth_(bandwidth), X_OP_(X_OP) {
  if (points.rows() == 0) fail("OrientedPointCloud: empty point cloud");
  if (normals.rows() != points.rows())
    fail("OrientedPointCloud: " + std::to_string(points.rows()) + " points but " +
         std::to_string(normals.rows()) + " normals");
  if (!points.allFinite() || !normals.allFinite()) fail("OrientedPointCloud: non-finite point or normal");
  if (!std::isfinite(bandwidth) || bandwidth < 1e-150)  // 1/σ² must not overflow
    fail("OrientedPointCloud: bandwidth must be finite and at least 1e-150, got " + std::to_string(bandwidth));
  validate_pose(X_OP, "OrientedPointCloud");
  for (int i = 0; i < normals_.rows(); ++i) {
    const double len = normals_.row(i).norm();
    if (len < 1e-12) fail("OrientedPointCloud: normal " + std::to_string(i) + " is zero");
    normals_.row(i) /= len;
  }
  center_ = 0.5 * (points_.colwise().minCoeff() + points_.colwise().maxCoeff()).transpose();
}

SdfObject::SdfObject(double blend_temperature, double normal_regularization)
    : blend_temperature_(blend_temperature), tau_(normal_regularization) {
  smooth::validate_temperature(blend_temperature, "SdfObject blend temperature");
  if (!std::isfinite(normal_regularization) || normal_regularization < 0.0)
    fail("SdfObject: normal_regularization must be finite and >= 0");
}

SdfObject& SdfObject::add(const SdfPrimitive& primitive) {
  added_.push_back(primitive);
  PrimitiveBound bound;
  if (const auto* sq = std::get_if<Superquadric>(&primitive)) {
    bound.valid = true;
    bound.R = sq->pose().R;
    bound.p = sq->pose().p;
    bound.half = sq->semi_axes();
  }
  added_bounds_.push_back(bound);
  bound_tree_.clear();
  const int n = num_added();
  bool bounded = n <= kMaxCulledPrimitives;
  for (const PrimitiveBound& b : added_bounds_) bounded = bounded && b.valid;
  if (bounded) {
    int index[kMaxCulledPrimitives];
    for (int l = 0; l < n; ++l) index[l] = l;
    bound_tree_.reserve(2 * n);
    build_bound_tree(index, n);
  }
  return *this;
}

int SdfObject::build_bound_tree(int* first, int count) {
  // Object-frame box of a primitive's oriented box: centre p, half extents |R|·half.
  auto box_of = [&](int l, Eigen::Vector3d& lo, Eigen::Vector3d& hi) {
    const PrimitiveBound& b = added_bounds_[l];
    const Eigen::Vector3d e = b.R.cwiseAbs() * b.half;
    lo = b.p - e;
    hi = b.p + e;
  };
  const int node = static_cast<int>(bound_tree_.size());
  bound_tree_.emplace_back();
  BoundNode nd;
  nd.lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
  nd.hi = -nd.lo;
  for (int i = 0; i < count; ++i) {
    Eigen::Vector3d lo, hi;
    box_of(first[i], lo, hi);
    nd.lo = nd.lo.cwiseMin(lo);
    nd.hi = nd.hi.cwiseMax(hi);
    nd.inner = std::max(nd.inner, added_bounds_[first[i]].half.norm());
  }
  if (count == 1) {
    nd.primitive = first[0];
    nd.count = 1;
  } else {
    // Median split of the box centres along the node's longest axis.
    int axis = 0;
    (nd.hi - nd.lo).maxCoeff(&axis);
    std::sort(first, first + count, [&](int a, int b) { return added_bounds_[a].p[axis] < added_bounds_[b].p[axis]; });
    const int half = count / 2;
    nd.left = build_bound_tree(first, half);
    nd.right = build_bound_tree(first + half, count - half);
    nd.count = count;
  }
  bound_tree_[node] = nd;
  return node;
}

double SdfObject::lower_bound(const Eigen::Vector3d& x, double above) const {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (added_.empty()) return inf;
  if (bound_tree_.empty()) return -inf;
  const int n = num_added();
  const double t = blend_temperature_;
  const double log_n = std::log(static_cast<double>(n));
  const double margin = t * (40.0 + log_n);
  // Terms of the union bound −t·log Σ c_i exp(−L_i/t): visited primitives (c = 1, their bound)
  // and pruned subtrees (c = their primitive count, the node's bound, below each of theirs).
  double L[2 * kMaxCulledPrimitives + 2];
  int count[2 * kMaxCulledPrimitives + 2];
  int m = 0;
  double lmin = inf;
  int stack[kMaxCulledPrimitives + 1];  // depth-first, nearer child first (depth ≤ n)
  int top = 0;
  auto prune = [&](const BoundNode& nd, double l) {
    // Far beyond the nearest bound (weight < e^-40/n each), or beyond `above` + t·log n.
    if (!(l - lmin > margin || (above > -inf && l > above + t * log_n))) return false;
    L[m] = l;
    count[m++] = nd.count;
    return true;
  };
  const BoundNode& root = bound_tree_[0];
  if (!prune(root, root.lower(x))) stack[top++] = 0;
  while (top > 0) {
    const BoundNode& nd = bound_tree_[stack[--top]];
    if (nd.primitive >= 0) {
      const double l = added_bounds_[nd.primitive].lower(x);
      L[m] = l;
      count[m++] = 1;
      lmin = std::min(lmin, l);
      continue;
    }
    const BoundNode &a = bound_tree_[nd.left], &b = bound_tree_[nd.right];
    const double la = a.lower(x), lb = b.lower(x);
    const bool a_first = la <= lb;
    const int near = a_first ? nd.left : nd.right, far = a_first ? nd.right : nd.left;
    if (!prune(bound_tree_[far], std::max(la, lb))) stack[top++] = far;
    if (!prune(bound_tree_[near], std::min(la, lb))) stack[top++] = near;
  }
  double low = inf;
  for (int i = 0; i < m; ++i) low = std::min(low, L[i]);
  if (t == 0.0 || m == 1) return t == 0.0 ? low : low - t * std::log(static_cast<double>(count[0]));
  double sum = 0.0;
  for (int i = 0; i < m; ++i) sum += count[i] * std::exp(-(L[i] - low) / t);
  return low - t * std::log(sum);
}

SdfObject& SdfObject::subtract(const SdfPrimitive& primitive) {
  subtracted_.push_back(primitive);
  return *this;
}

}  // namespace diffcol::manifold
