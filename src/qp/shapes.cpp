#include "diffcol/qp/shapes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace diffcol::qp {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

double cross2(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

}  // namespace

// ------------------------------------------------------------------------------ Capsule

Capsule::Capsule(double radius, double length) {
  require(std::isfinite(length) && length >= 0.0,
          "qp::Capsule: length must be finite and >= 0 (full length L of the core, eq. (23)-(24)), got " +
              std::to_string(length));
  require(std::isfinite(radius) && radius >= 0.0,
          "qp::Capsule: radius must be finite and >= 0, got " + std::to_string(radius));
  require(length <= kMaxShapeCoordinate && radius <= kMaxShapeCoordinate,
          "qp::Capsule: length and radius must be at most 1e150 (kMaxShapeCoordinate)");
  a_B_ = Vec3(0.5 * length, 0.0, 0.0);
  b_B_ = Vec3(-0.5 * length, 0.0, 0.0);
  radius_ = radius;
}

Capsule Capsule::from_end_points(const Vec3& a_B, const Vec3& b_B, double radius) {
  require(a_B.allFinite() && b_B.allFinite(), "qp::Capsule::from_end_points: end points must be finite");
  require(std::isfinite(radius) && radius >= 0.0,
          "qp::Capsule::from_end_points: radius must be finite and >= 0, got " + std::to_string(radius));
  require(a_B.cwiseAbs().maxCoeff() <= kMaxShapeCoordinate && b_B.cwiseAbs().maxCoeff() <= kMaxShapeCoordinate &&
              radius <= kMaxShapeCoordinate,
          "qp::Capsule::from_end_points: coordinates and radius must be at most 1e150 in magnitude "
          "(kMaxShapeCoordinate)");
  Capsule c;
  c.a_B_ = a_B;
  c.b_B_ = b_B;
  c.radius_ = radius;
  return c;
}

// ------------------------------------------------------------------------ PaddedPolygon

PaddedPolygon::PaddedPolygon(const Eigen::MatrixX2d& C, const Eigen::VectorXd& d, double radius) {
  init(C, d, radius);
}

void PaddedPolygon::init(const Eigen::MatrixX2d& C, const Eigen::VectorXd& d, double radius) {
  const long m = C.rows();
  require(d.size() == m, "qp::PaddedPolygon: C has " + std::to_string(m) + " rows but d has " +
                             std::to_string(d.size()) + " entries");
  require(m >= 3 && m <= kMaxPolygonEdges, "qp::PaddedPolygon: need 3 to " + std::to_string(kMaxPolygonEdges) +
                                               " constraints (kMaxPolygonEdges), got " + std::to_string(m));
  require(C.allFinite() && d.allFinite(), "qp::PaddedPolygon: C and d must be finite");
  require(std::isfinite(radius) && radius >= 0.0,
          "qp::PaddedPolygon: radius must be finite and >= 0, got " + std::to_string(radius));
  require(radius <= kMaxShapeCoordinate, "qp::PaddedPolygon: radius must be at most 1e150 (kMaxShapeCoordinate)");
  m_ = static_cast<int>(m);
  radius_ = radius;
  double dscale = 0.0;
  for (int i = 0; i < m_; ++i) {
    // a row within a few ulps of unit length is kept as it is: the stored rows are a fixed point
    // of the normalization (a polygon rebuilt from its own C, d is bit for bit the same)
    const double n0 = C.row(i).norm();
    const double n = std::abs(n0 - 1.0) <= 4.0 * std::numeric_limits<double>::epsilon() ? 1.0 : n0;
    require(n > 0.0, "qp::PaddedPolygon: row " + std::to_string(i) + " of C is zero");
    C_[static_cast<std::size_t>(i)] = C.row(i).transpose() / n;
    d_[static_cast<std::size_t>(i)] = d(i) / n;
    require(std::abs(d_[static_cast<std::size_t>(i)]) <= kMaxShapeCoordinate,
            "qp::PaddedPolygon: offset d_i/|C_i| of row " + std::to_string(i) +
                " is above 1e150 in magnitude (kMaxShapeCoordinate)");
    dscale = std::max(dscale, std::abs(d_[static_cast<std::size_t>(i)]));
  }
  // Bounded iff the unit normals positively span R²: every angular gap between consecutive
  // normals is < π.
  std::array<double, kMaxPolygonEdges> ang{};
  for (int i = 0; i < m_; ++i) ang[static_cast<std::size_t>(i)] = std::atan2(C_[static_cast<std::size_t>(i)].y(), C_[static_cast<std::size_t>(i)].x());
  std::sort(ang.begin(), ang.begin() + m_);
  double max_gap = ang[0] + 2.0 * M_PI - ang[static_cast<std::size_t>(m_ - 1)];
  for (int i = 1; i < m_; ++i) max_gap = std::max(max_gap, ang[static_cast<std::size_t>(i)] - ang[static_cast<std::size_t>(i - 1)]);
  require(max_gap < M_PI - 1e-12,
          "qp::PaddedPolygon: polygon C y <= d is unbounded (the rows of C do not positively span the plane)");

  // Vertices: feasible pairwise intersections of the constraint lines.
  const double tol = 1e-10 * dscale;  // relative to the polygon's offsets: any unit of length
  std::vector<Vec2> pts;
  for (int i = 0; i < m_; ++i) {
    for (int j = i + 1; j < m_; ++j) {
      const Vec2& ci = C_[static_cast<std::size_t>(i)];
      const Vec2& cj = C_[static_cast<std::size_t>(j)];
      const double det = cross2(ci, cj);
      if (std::abs(det) < 1e-12) continue;
      const double di = d_[static_cast<std::size_t>(i)], dj = d_[static_cast<std::size_t>(j)];
      const Vec2 y((di * cj.y() - dj * ci.y()) / det, (ci.x() * dj - cj.x() * di) / det);
      if (!contains(y, tol)) continue;
      bool dup = false;
      for (const Vec2& q : pts) dup = dup || (q - y).norm() <= tol;
      if (!dup) pts.push_back(y);
    }
  }
  require(pts.size() >= 3, "qp::PaddedPolygon: polygon C y <= d is empty or has zero area");
  Vec2 centroid = Vec2::Zero();
  for (const Vec2& q : pts) centroid += q;
  centroid /= static_cast<double>(pts.size());
  std::sort(pts.begin(), pts.end(), [&](const Vec2& a, const Vec2& b) {
    return std::atan2(a.y() - centroid.y(), a.x() - centroid.x()) < std::atan2(b.y() - centroid.y(), b.x() - centroid.x());
  });
  double area2 = 0.0;
  for (std::size_t k = 0; k < pts.size(); ++k) area2 += cross2(pts[k], pts[(k + 1) % pts.size()]);
  double extent = 0.0;
  for (const Vec2& q : pts) extent = std::max(extent, (q - centroid).norm());
  require(area2 > 1e-12 * extent * extent && extent > 0.0,
          "qp::PaddedPolygon: polygon C y <= d is empty or has zero area");
  vertices_ = std::move(pts);
  core_radius_ = 0.0;
  for (const Vec2& q : vertices_) core_radius_ = std::max(core_radius_, q.norm());
}

bool PaddedPolygon::contains(const Vec2& y, double tol) const {
  for (int i = 0; i < m_; ++i)
    if (C_[static_cast<std::size_t>(i)].dot(y) > d_[static_cast<std::size_t>(i)] + tol) return false;
  return true;
}

PaddedPolygon PaddedPolygon::from_vertices(const std::vector<Vec2>& v, double radius) {
  const std::size_t n = v.size();
  require(n >= 3 && n <= static_cast<std::size_t>(kMaxPolygonEdges),
          "qp::PaddedPolygon::from_vertices: need 3 to " + std::to_string(kMaxPolygonEdges) + " vertices, got " +
              std::to_string(n));
  Eigen::MatrixX2d C(static_cast<long>(n), 2);
  Eigen::VectorXd d(static_cast<long>(n));
  for (std::size_t k = 0; k < n; ++k) {
    require(v[k].allFinite(), "qp::PaddedPolygon::from_vertices: vertices must be finite");
    const Vec2 e = v[(k + 1) % n] - v[k];
    const Vec2 e2 = v[(k + 2) % n] - v[(k + 1) % n];
    require(cross2(e, e2) > 0.0,
            "qp::PaddedPolygon::from_vertices: vertices must be distinct, strictly convex and counter-clockwise "
            "(turn at vertex " + std::to_string((k + 1) % n) + " is not a left turn)");
    const Vec2 nrm(e.y(), -e.x());  // outward for a counter-clockwise polygon
    C.row(static_cast<long>(k)) = nrm.transpose();
    d(static_cast<long>(k)) = nrm.dot(v[k]);
  }
  // A counter-clockwise sequence with left turns everywhere can still wind more than once.
  double area2 = 0.0;
  for (std::size_t k = 0; k < n; ++k) area2 += cross2(v[k], v[(k + 1) % n]);
  require(area2 > 0.0, "qp::PaddedPolygon::from_vertices: vertices are not counter-clockwise");
  PaddedPolygon p;
  p.init(C, d, radius);
  require(p.vertices_.size() == n,
          "qp::PaddedPolygon::from_vertices: vertices do not form a simple convex polygon");
  return p;
}

PaddedPolygon PaddedPolygon::rectangle(double half_x, double half_y, double radius) {
  require(std::isfinite(half_x) && std::isfinite(half_y) && half_x > 0.0 && half_y > 0.0,
          "qp::PaddedPolygon::rectangle: half sizes must be finite and > 0");
  Eigen::MatrixX2d C(4, 2);
  C << 1, 0, 0, 1, -1, 0, 0, -1;
  Eigen::VectorXd d(4);
  d << half_x, half_y, half_x, half_y;
  return PaddedPolygon(C, d, radius);
}

}  // namespace diffcol::qp
