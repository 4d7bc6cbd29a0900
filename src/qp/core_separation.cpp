#include "core_separation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace diffcol::qp::detail {

CoreVertices core_vertices(const Capsule& c, const Pose& X, const Vec3& origin, double inv_unit) {
  CoreVertices cv;
  const Vec3 o = (X.p - origin) * inv_unit;
  cv.v_B[0] = c.a_B();
  cv.v_B[1] = c.b_B();
  cv.count = c.a_B() == c.b_B() ? 1 : 2;
  for (int k = 0; k < cv.count; ++k) cv.v[k] = X.R * (cv.v_B[k] * inv_unit) + o;
  return cv;
}

CoreVertices core_vertices(const PaddedPolygon& p, const Pose& X, const Vec3& origin, double inv_unit) {
  CoreVertices cv;
  const Vec3 o = (X.p - origin) * inv_unit;
  cv.polygon = true;
  cv.count = static_cast<int>(p.vertices().size());
  cv.face_normal = X.R.col(2);
  for (int k = 0; k < cv.count; ++k) {
    const Vec2& y = p.vertices()[static_cast<std::size_t>(k)];
    cv.v_B[k] = Vec3(y.x(), y.y(), 0.0);
    cv.v[k] = X.R * (cv.v_B[k] * inv_unit) + o;
  }
  return cv;
}

namespace {

double max_dot(const CoreVertices& c, const Vec3& n) {
  double m = -std::numeric_limits<double>::infinity();
  for (int k = 0; k < c.count; ++k) m = std::max(m, n.dot(c.v[k]));
  return m;
}
double min_dot(const CoreVertices& c, const Vec3& n) {
  double m = std::numeric_limits<double>::infinity();
  for (int k = 0; k < c.count; ++k) m = std::min(m, n.dot(c.v[k]));
  return m;
}

// Signed distance of q (in the polygon's plane) outside the polygon c: ≤ 0 inside.
double outside_polygon(const CoreVertices& c, const Vec3& q) {
  double worst = -std::numeric_limits<double>::infinity();
  for (int k = 0; k < c.count; ++k) {
    const Vec3 e = c.v[c.edge_end(k)] - c.v[k];
    const Vec3 out = e.cross(c.face_normal);  // outward in the plane (counter-clockwise about the normal)
    const double len = out.norm();
    if (len > 0.0) worst = std::max(worst, out.dot(q - c.v[k]) / len);
  }
  return worst;
}

// Face axis n = sign·normal of polygon `face`: the witness vertex of `other` (support along −n
// for face1, +n for face2) whose projection onto the face lies in it, else the extreme one.
void face_witness(const CoreVertices& face, const CoreVertices& other, const Vec3& n, bool face_is_1,
                  const Vec3* hint_other, SeparatingAxis& ax) {
  const double ext = face_is_1 ? min_dot(other, n) : max_dot(other, n);
  const double plane = n.dot(face.v[0]);
  double scale = 0.0;
  for (int k = 0; k < other.count; ++k) scale = std::max(scale, other.v[k].norm());
  const double tie = 1e-12 * (1.0 + scale);
  int best = -1;
  double best_out = std::numeric_limits<double>::infinity();
  for (int k = 0; k < other.count; ++k) {
    if (std::abs(n.dot(other.v[k]) - ext) > tie) continue;
    const Vec3 q = other.v[k] - (n.dot(other.v[k]) - plane) * n;
    const double o = outside_polygon(face, q);
    if (o < best_out) best_out = o, best = k;
  }
  ax.i = best;
  Vec3 w = other.v[best];
  // No support vertex projects into the face (a support edge / face of `other` parallel to it):
  // a common point of the cores, when given and on the support set, does.
  if (best_out > tie && hint_other != nullptr && std::abs(n.dot(*hint_other) - ext) <= tie) {
    const Vec3 qh = *hint_other - (n.dot(*hint_other) - plane) * n;
    if (outside_polygon(face, qh) < best_out) w = *hint_other, ax.i = -1;
  }
  const Vec3 q = w - (n.dot(w) - plane) * n;
  if (face_is_1) {
    ax.a = q;
    ax.b = w;
  } else {
    ax.a = w;
    ax.b = q;
  }
}

// Closest points p + t1·u, r + t2·w of two non-parallel lines.
void line_parameters(const Vec3& p, const Vec3& u, const Vec3& r, const Vec3& w, double& t1, double& t2) {
  const Vec3 r0 = p - r;
  const double uu = u.squaredNorm(), uw = u.dot(w), ww = w.squaredNorm();
  const double det = u.cross(w).squaredNorm();
  t1 = (uw * w.dot(r0) - ww * u.dot(r0)) / det;
  t2 = (uu * w.dot(r0) - uw * u.dot(r0)) / det;
}

}  // namespace

double separation(const CoreVertices& c1, const CoreVertices& c2, const Vec3& n) {
  return min_dot(c2, n) - max_dot(c1, n);
}

double support_gap1(const CoreVertices& c1, const Vec3& n, const Vec3& a0) {
  return std::max(0.0, max_dot(c1, n) - n.dot(a0));
}
double support_gap2(const CoreVertices& c2, const Vec3& n, const Vec3& b0) {
  return std::max(0.0, n.dot(b0) - min_dot(c2, n));
}

SeparatingAxis best_separating_axis(const CoreVertices& c1, const CoreVertices& c2, const Vec3* hint1,
                                    const Vec3* hint2) {
  SeparatingAxis ax;
  auto consider = [&](const Vec3& n, AxisKind kind, int i, int j, double sign) {
    const double s = separation(c1, c2, n);
    if (s > ax.s) {
      ax.s = s;
      ax.n = n;
      ax.kind = kind;
      ax.i = i;
      ax.j = j;
      ax.sign = sign;
    }
  };
  for (double sg : {1.0, -1.0}) {
    if (c1.polygon) consider(sg * c1.face_normal, AxisKind::face1, -1, -1, sg);
    if (c2.polygon) consider(sg * c2.face_normal, AxisKind::face2, -1, -1, sg);
  }
  for (int i = 0; i < c1.edge_count(); ++i) {
    const Vec3 e1 = c1.v[c1.edge_end(i)] - c1.v[i];
    for (int j = 0; j < c2.edge_count(); ++j) {
      const Vec3 e2 = c2.v[c2.edge_end(j)] - c2.v[j];
      const Vec3 c = e1.cross(e2);
      const double cn = c.norm();
      if (!(cn > 1e-9 * e1.norm() * e2.norm())) continue;  // (nearly) parallel edges: no face of the difference
      const Vec3 n = c / cn;
      for (const double sg : {1.0, -1.0}) {
        // An edge pair spans a face of the difference only where the closest points of the two
        // lines lie on both edges; near-ties keep the earlier (face) axis.
        const double s = separation(c1, c2, sg * n);
        if (!(s > ax.s + 1e-12 * (1.0 + std::abs(ax.s)))) continue;
        double t1, t2;
        line_parameters(c1.v[i], e1, c2.v[j], e2, t1, t2);
        if (t1 < -1e-9 || t1 > 1.0 + 1e-9 || t2 < -1e-9 || t2 > 1.0 + 1e-9) continue;
        // ... and where the two edges are the supports along ±n (their gap along n is s).
        const Vec3 gap = (c2.v[j] + t2 * e2) - (c1.v[i] + t1 * e1);
        if (std::abs(sg * n.dot(gap) - s) > 1e-9 * (1.0 + std::abs(s))) continue;
        consider(sg * n, AxisKind::edges, i, j, sg);
      }
    }
  }
  switch (ax.kind) {
    case AxisKind::face1: face_witness(c1, c2, ax.n, true, hint2, ax); break;
    case AxisKind::face2: face_witness(c2, c1, ax.n, false, hint1, ax); break;
    case AxisKind::edges: {
      // Closest points of the two edge lines (their difference is along n).
      const Vec3& p = c1.v[ax.i];
      const Vec3 u = c1.v[c1.edge_end(ax.i)] - p;
      const Vec3& r = c2.v[ax.j];
      const Vec3 w = c2.v[c2.edge_end(ax.j)] - r;
      double t1, t2;
      line_parameters(p, u, r, w, t1, t2);
      ax.a = p + t1 * u;
      ax.b = r + t2 * w;
      break;
    }
    case AxisKind::none: break;
  }
  return ax;
}

}  // namespace diffcol::qp::detail
