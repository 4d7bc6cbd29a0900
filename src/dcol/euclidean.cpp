// Euclidean distance of two DCOL primitives (include/diffcol/dcol/euclidean.hpp): GJK on the
// support functions with the support-function lower bound, then Newton's method on the closest
// points of the two local features, accepted only when certified.
#include "diffcol/dcol/euclidean.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

#include <Eigen/Cholesky>

#include "../geometry/closest_points_ift.hpp"
#include "../geometry/gjk_distance.hpp"
#include "outside_measure.hpp"

namespace diffcol::dcol {

const char* feature_name(FeatureKind k) {
  switch (k) {
    case FeatureKind::none: return "none";
    case FeatureKind::vertex: return "vertex";
    case FeatureKind::edge: return "edge";
    case FeatureKind::face: return "face";
    case FeatureKind::sphere: return "sphere";
    case FeatureKind::cylinder: return "cylinder";
    case FeatureKind::circle: return "circle";
    case FeatureKind::cone: return "cone";
    case FeatureKind::ellipsoid: return "ellipsoid";
  }
  return "unknown";
}

bool DistanceOptions::is_valid() const noexcept {
  return tolerance >= 1e-14 && tolerance <= 1e-2 && max_iterations >= 1 && max_iterations <= 100000;
}

void DistanceOptions::validate() const {
  if (!(tolerance >= 1e-14 && tolerance <= 1e-2))
    throw std::invalid_argument("DistanceOptions.tolerance must lie in [1e-14, 1e-2], got " + std::to_string(tolerance));
  if (!(max_iterations >= 1 && max_iterations <= 100000))
    throw std::invalid_argument("DistanceOptions.max_iterations must lie in [1, 100000], got " +
                                std::to_string(max_iterations));
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kPhaseOneGap = 1e-6;

/// A primitive placed in the query's coordinates (world axes, origin at shape 1's origin).
struct Placed {
  const Primitive* shape = nullptr;
  Mat3 R = Mat3::Identity();
  Vec3 o = Vec3::Zero();  // shape origin
  double outer = 0.0;
  Vec3 support(const Vec3& d) const {
    const Vec3 ds = R.transpose() * d;
    const Vec3 y = std::visit([&](const auto& s) { return s.support(ds); }, *shape);
    return R * y + o;
  }
  Vec3 to_shape(const Vec3& x) const { return R.transpose() * (x - o); }
};

// --------------------------------------------------------------------------- local features

/// A boundary feature in query coordinates. c: point / centre / apex / point of a line or plane;
/// a: unit direction (edge), normal (face) or axis (cylinder, circle, cone, from apex to base).
struct Feat {
  FeatureKind kind = FeatureKind::none;
  Vec3 c = Vec3::Zero(), a = Vec3::UnitX();
  double r = 0.0;            // sphere, cylinder, circle radius
  double cb = 1.0, sb = 0.0; // cone: cos β, sin β
  Mat3 U = Mat3::Identity(), Uinv = Mat3::Identity();  // ellipsoid: ‖U(y − c)‖ = 1
};

/// The feature's coordinates at a point y on it: tangent columns J, second derivatives D2 (3-vectors).
struct Frame {
  int dim = 0;
  Eigen::Matrix<double, 3, 2> J = Eigen::Matrix<double, 3, 2>::Zero();
  Vec3 D2[2][2] = {{Vec3::Zero(), Vec3::Zero()}, {Vec3::Zero(), Vec3::Zero()}};
  Vec3 u = Vec3::Zero(), q = Vec3::Zero();  // auxiliary (radial unit, axis point / unit-sphere point)
  double l = 0.0, rho = 0.0;
};

Vec3 unit_or(const Vec3& v, const Vec3& fallback) {
  const double n = v.norm();
  return n > 0.0 ? Vec3(v / n) : fallback;
}

/// Snaps y onto the feature (its nearest point, radially for curved ones).
Vec3 project(const Feat& f, const Vec3& y) {
  switch (f.kind) {
    case FeatureKind::vertex: return f.c;
    case FeatureKind::edge: return f.c + (y - f.c).dot(f.a) * f.a;
    case FeatureKind::face: return y - (y - f.c).dot(f.a) * f.a;
    case FeatureKind::sphere: return f.c + f.r * unit_or(y - f.c, f.a.unitOrthogonal());
    case FeatureKind::cylinder: {
      const Vec3 q = f.c + (y - f.c).dot(f.a) * f.a;
      return q + f.r * unit_or(y - q, f.a.unitOrthogonal());
    }
    case FeatureKind::circle: {
      const Vec3 w = (y - f.c) - (y - f.c).dot(f.a) * f.a;
      return f.c + f.r * unit_or(w, f.a.unitOrthogonal());
    }
    case FeatureKind::cone: {
      const Vec3 w = (y - f.c) - (y - f.c).dot(f.a) * f.a;
      const Vec3 g = f.cb * f.a + f.sb * unit_or(w, f.a.unitOrthogonal());
      return f.c + std::max((y - f.c).dot(g), 1e-6 * f.r) * g;  // f.r: the cone's height here
    }
    case FeatureKind::ellipsoid: {
      const double s = (f.U * (y - f.c)).norm();
      return s > 0.0 ? Vec3(f.c + (y - f.c) / s) : Vec3(f.c + f.Uinv * f.a.unitOrthogonal());
    }
    case FeatureKind::none: break;
  }
  return y;
}

Frame frame_at(const Feat& f, const Vec3& y) {
  Frame F;
  Vec3 t1, t2;
  switch (f.kind) {
    case FeatureKind::vertex:
    case FeatureKind::none: break;
    case FeatureKind::edge:
      F.dim = 1;
      F.J.col(0) = f.a;
      break;
    case FeatureKind::face:
      F.dim = 2;
      detail::tangent_basis(f.a, t1, t2);
      F.J.col(0) = t1;
      F.J.col(1) = t2;
      break;
    case FeatureKind::sphere:
      F.dim = 2;
      F.u = unit_or(y - f.c, f.a.unitOrthogonal());
      detail::tangent_basis(F.u, t1, t2);
      F.J.col(0) = t1;
      F.J.col(1) = t2;
      F.D2[0][0] = F.D2[1][1] = -F.u / f.r;
      break;
    case FeatureKind::cylinder:
      F.dim = 2;
      F.q = f.c + (y - f.c).dot(f.a) * f.a;
      F.u = unit_or(y - F.q, f.a.unitOrthogonal());
      F.J.col(0) = f.a;
      F.J.col(1) = f.a.cross(F.u);
      F.D2[1][1] = -F.u / f.r;
      break;
    case FeatureKind::circle:
      F.dim = 1;
      F.u = unit_or((y - f.c) - (y - f.c).dot(f.a) * f.a, f.a.unitOrthogonal());
      F.J.col(0) = f.a.cross(F.u);
      F.D2[0][0] = -F.u / f.r;
      break;
    case FeatureKind::cone: {
      F.dim = 2;
      F.u = unit_or((y - f.c) - (y - f.c).dot(f.a) * f.a, f.a.unitOrthogonal());
      const Vec3 g = f.cb * f.a + f.sb * F.u;
      F.l = std::max((y - f.c).dot(g), 1e-12 * f.r);
      F.rho = F.l * f.sb;
      const Vec3 t = f.a.cross(F.u);
      F.J.col(0) = g;
      F.J.col(1) = t;
      F.D2[1][1] = -F.u / F.rho;
      F.D2[0][1] = F.D2[1][0] = t / F.l;
      break;
    }
    case FeatureKind::ellipsoid: {
      F.dim = 2;
      F.u = unit_or(f.U * (y - f.c), Vec3::UnitX());  // on the unit sphere
      detail::tangent_basis(F.u, t1, t2);
      F.q.setZero();
      F.J.col(0) = f.Uinv * t1;
      F.J.col(1) = f.Uinv * t2;
      F.D2[0][0] = F.D2[1][1] = -(f.Uinv * F.u);
      break;
    }
  }
  return F;
}

/// The point at coordinates dθ from y (exact on the feature).
Vec3 move(const Feat& f, const Frame& F, const Vec3& y, const double* dt) {
  switch (f.kind) {
    case FeatureKind::vertex:
    case FeatureKind::none: return y;
    case FeatureKind::edge: return y + dt[0] * f.a;
    case FeatureKind::face: return y + dt[0] * F.J.col(0) + dt[1] * F.J.col(1);
    case FeatureKind::sphere: return f.c + f.r * (F.u + (dt[0] * F.J.col(0) + dt[1] * F.J.col(1)) / f.r).normalized();
    case FeatureKind::cylinder: return F.q + dt[0] * f.a + f.r * (F.u + (dt[1] / f.r) * F.J.col(1)).normalized();
    case FeatureKind::circle: return f.c + f.r * (F.u + (dt[0] / f.r) * F.J.col(0)).normalized();
    case FeatureKind::cone: {
      const Vec3 u = (F.u + (dt[1] / F.rho) * F.J.col(1)).normalized();
      return f.c + std::max(F.l + dt[0], 1e-12 * f.r) * (f.cb * f.a + f.sb * u);
    }
    case FeatureKind::ellipsoid: {
      Vec3 t1, t2;
      detail::tangent_basis(F.u, t1, t2);
      return f.c + f.Uinv * (F.u + dt[0] * t1 + dt[1] * t2).normalized();
    }
  }
  return y;
}

/// The derivatives' view of the feature at y (orthonormal tangents, curvature form for the
/// outward normal m).
LocalFeature local_feature(const Feat& f, const Vec3& y, const Vec3& m) {
  LocalFeature L;
  L.kind = f.kind;
  if (f.kind == FeatureKind::ellipsoid) {
    const Vec3 g = f.U.transpose() * (f.U * (y - f.c));  // ∇(½ yᵀPy)
    const Vec3 nu = unit_or(g, m);
    Vec3 t1, t2;
    detail::tangent_basis(nu, t1, t2);
    L.dim = 2;
    L.T.col(0) = t1;
    L.T.col(1) = t2;
    const Mat3 P = f.U.transpose() * f.U;
    L.Q = L.T.transpose() * P * L.T / g.norm();
    return L;
  }
  const Frame F = frame_at(f, y);
  L.dim = F.dim;
  L.T = F.J;
  for (int a = 0; a < F.dim; ++a)
    for (int b = 0; b < F.dim; ++b) L.Q(a, b) = -m.dot(F.D2[a][b]);
  return L;
}

// ------------------------------------------------------------------ candidate features per shape

constexpr int kMaxCandidates = 3;
struct Candidates {
  Feat f[kMaxCandidates];
  int n = 0;
  void add(const Feat& x) {
    if (n < kMaxCandidates) f[n++] = x;
  }
};

Feat make(FeatureKind k, const Vec3& c, const Vec3& a, double r = 0.0) {
  Feat f;
  f.kind = k;
  f.c = c;
  f.a = a;
  f.r = r;
  return f;
}

// Shape-frame candidates at the witness y, outward normal estimate m, tolerance δ (a length).
void candidates(const Polytope& s, const Vec3& y, const Vec3& m, double delta, Candidates& C) {
  // active faces, most aligned with m first (at most 3 kept)
  int act[3] = {-1, -1, -1};
  double score[3] = {-1e300, -1e300, -1e300};
  int nact = 0;
  for (int i = 0; i < s.num_faces; ++i) {
    if (s.normal(i).dot(y) < s.face_offset(i) - delta) continue;
    ++nact;
    const double sc = s.normal(i).dot(m);
    for (int k = 0; k < 3; ++k) {
      if (sc > score[k]) {
        for (int j = 2; j > k; --j) act[j] = act[j - 1], score[j] = score[j - 1];
        act[k] = i;
        score[k] = sc;
        break;
      }
    }
  }
  if (nact >= 3) {  // a vertex nearby
    int best = 0;
    double bd = 1e300;
    for (int i = 0; i < s.num_vertices; ++i) {
      const double dd = (s.vertex(i) - y).norm();
      if (dd < bd) bd = dd, best = i;
    }
    if (bd <= 10.0 * delta) C.add(make(FeatureKind::vertex, s.vertex(best), Vec3::UnitX()));
  }
  if (nact >= 2 && act[1] >= 0) {  // the edge of the two best-aligned active faces
    const Vec3 a1 = s.normal(act[0]), a2 = s.normal(act[1]);
    const Vec3 dir = a1.cross(a2);
    if (dir.norm() > 1e-9) {
      // the point of both planes nearest y: y + α a1 + β a2
      Eigen::Matrix2d M;
      M << 1.0, a1.dot(a2), a1.dot(a2), 1.0;
      const Eigen::Vector2d rhs(s.face_offset(act[0]) - a1.dot(y), s.face_offset(act[1]) - a2.dot(y));
      const Eigen::Vector2d ab = M.inverse() * rhs;
      C.add(make(FeatureKind::edge, y + ab[0] * a1 + ab[1] * a2, dir.normalized()));
    }
  }
  if (act[0] >= 0) {
    const Vec3 a = s.normal(act[0]);
    C.add(make(FeatureKind::face, s.face_offset(act[0]) * a, a));
  }
}

void candidates(const Sphere& s, const Vec3&, const Vec3&, double, Candidates& C) {
  C.add(make(FeatureKind::sphere, Vec3::Zero(), Vec3::UnitX(), s.R));
}

void candidates(const Ellipsoid& s, const Vec3&, const Vec3&, double, Candidates& C) {
  Feat f = make(FeatureKind::ellipsoid, Vec3::Zero(), Vec3::UnitX());
  f.U = s.U;
  f.Uinv = s.U.inverse();
  C.add(f);
}

void candidates(const Capsule& s, const Vec3& y, const Vec3&, double delta, Candidates& C) {
  const double h = 0.5 * s.L;
  const Feat side = make(FeatureKind::cylinder, Vec3::Zero(), Vec3::UnitX(), s.R);
  const Feat end = make(FeatureKind::sphere, Vec3(y.x() >= 0.0 ? h : -h, 0.0, 0.0), Vec3::UnitX(), s.R);
  if (std::abs(y.x()) >= h - delta) {
    C.add(end);
    C.add(side);
  } else {
    C.add(side);
    C.add(end);
  }
}

void candidates(const Cylinder& s, const Vec3& y, const Vec3&, double delta, Candidates& C) {
  const double h = 0.5 * s.L, sg = y.x() >= 0.0 ? 1.0 : -1.0;
  const bool side = std::hypot(y.y(), y.z()) >= s.R - delta, cap = std::abs(y.x()) >= h - delta;
  const Feat rim = make(FeatureKind::circle, Vec3(sg * h, 0.0, 0.0), Vec3::UnitX(), s.R);
  const Feat capf = make(FeatureKind::face, Vec3(sg * h, 0.0, 0.0), Vec3(sg, 0.0, 0.0));
  const Feat sidef = make(FeatureKind::cylinder, Vec3::Zero(), Vec3::UnitX(), s.R);
  if (side && cap) {
    C.add(rim);
    C.add(capf);
    C.add(sidef);
  } else if (cap) {
    C.add(capf);
    C.add(rim);
  } else {
    C.add(sidef);
    C.add(rim);
  }
}

void candidates(const Cone& s, const Vec3& y, const Vec3&, double delta, Candidates& C) {
  const Vec3 apex(-0.75 * s.H, 0.0, 0.0), base(0.25 * s.H, 0.0, 0.0);
  const double rb = s.H * s.tan_beta;
  Feat sidef = make(FeatureKind::cone, apex, Vec3::UnitX(), s.H);
  sidef.cb = std::cos(s.beta);
  sidef.sb = std::sin(s.beta);
  const Feat apexf = make(FeatureKind::vertex, apex, Vec3::UnitX());
  const Feat rim = make(FeatureKind::circle, base, Vec3::UnitX(), rb);
  const Feat capf = make(FeatureKind::face, base, Vec3::UnitX());
  const bool near_apex = (y - apex).norm() <= 10.0 * delta;
  const bool cap = y.x() >= 0.25 * s.H - delta;
  const bool side = (std::hypot(y.y(), y.z()) - s.tan_beta * (y.x() + 0.75 * s.H)) * sidef.cb >= -delta;
  if (near_apex) {
    C.add(apexf);
    C.add(sidef);
  } else if (cap && side) {
    C.add(rim);
    C.add(capf);
    C.add(sidef);
  } else if (cap) {
    C.add(capf);
    C.add(rim);
  } else {
    C.add(sidef);
    C.add(rim);
    C.add(apexf);
  }
}

void candidates(const PaddedPolygon& s, const Vec3& y, const Vec3&, double delta, Candidates& C) {
  const Eigen::Vector2d w(y.x(), y.y());
  bool inside = true;
  for (int i = 0; i < s.num_edges; ++i) inside = inside && s.C.row(i).dot(w) <= s.d[i] + delta;
  const int nv = s.num_vertices;
  // nearest boundary point of the polygon
  int best_edge = 0;
  double best_t = 0.0, bd = 1e300;
  for (int i = 0; i < nv; ++i) {
    const Eigen::Vector2d a = s.V.row(i).transpose(), b = s.V.row((i + 1) % nv).transpose();
    const Eigen::Vector2d e = b - a;
    const double t = std::clamp((w - a).dot(e) / e.squaredNorm(), 0.0, 1.0);
    const double dd = (w - a - t * e).norm();
    if (dd < bd) bd = dd, best_edge = i, best_t = t;
  }
  const int i0 = best_edge, i1 = (best_edge + 1) % nv;
  const Vec3 v0(s.V(i0, 0), s.V(i0, 1), 0.0), v1(s.V(i1, 0), s.V(i1, 1), 0.0);
  const double len = (v1 - v0).norm();
  const Feat edge = make(FeatureKind::cylinder, v0, (v1 - v0) / len, s.R);
  const bool at0 = best_t * len <= delta, at1 = (1.0 - best_t) * len <= delta;
  const Feat corner = make(FeatureKind::sphere, at1 || (!at0 && best_t > 0.5) ? v1 : v0, Vec3::UnitX(), s.R);
  const double sz = y.z() >= 0.0 ? 1.0 : -1.0;
  const Feat face = make(FeatureKind::face, Vec3(0.0, 0.0, sz * s.R), Vec3(0.0, 0.0, sz));
  if (inside && bd > delta) {
    C.add(face);
    C.add(edge);
  } else if (at0 || at1) {
    C.add(corner);
    C.add(edge);
    if (inside) C.add(face);
  } else {
    C.add(edge);
    if (inside) C.add(face);
    C.add(corner);
  }
}

/// The candidates of a placed primitive at the query-coordinate witness x, in query coordinates.
void placed_candidates(const Placed& P, const Vec3& x, const Vec3& m_world, double delta, Candidates& C) {
  const Vec3 y = P.to_shape(x), m = P.R.transpose() * m_world;
  std::visit([&](const auto& s) { candidates(s, y, m, delta, C); }, *P.shape);
  for (int i = 0; i < C.n; ++i) {
    Feat& f = C.f[i];
    f.c = P.R * f.c + P.o;
    f.a = P.R * f.a;
    if (f.kind == FeatureKind::ellipsoid) {
      f.U = f.U * P.R.transpose();
      f.Uinv = P.R * f.Uinv;
    }
  }
}

// ------------------------------------------------------------------ membership and the certificate


double placed_outside(const Placed& P, const Vec3& x) {
  const Vec3 y = P.to_shape(x);
  return std::visit([&](const auto& s) { return diffcol::detail::outside_measure(s, y); }, *P.shape);
}

/// The support-function lower bound along the unit u (from 1 to 2): uᵀ(s2(−u) − s1(u)).
double lower_bound(const Placed& P1, const Placed& P2, const Vec3& u) {
  return u.dot(P2.support(Vec3(-u)) - P1.support(u));
}

/// Unit directions (at most 2, orthonormal, ⊥ m) along which the shape's face exposed by the outward
/// normal m is flat: the support point jumps by more than 1e-5 outer radii between m ± 1e-10·t.
int flat_directions(const Placed& P, const Vec3& m, Vec3 (&dirs)[2]) {
  Vec3 t[2];
  detail::tangent_basis(m, t[0], t[1]);
  const double eps = 1e-10, thr = 1e-5 * P.outer;
  int k = 0;
  for (const Vec3& ti : t) {
    Vec3 j = P.support(Vec3(m + eps * ti)) - P.support(Vec3(m - eps * ti));
    j -= j.dot(m) * m;
    if (k == 1) j -= j.dot(dirs[0]) * dirs[0];
    if (j.norm() > thr) dirs[k++] = j.normalized();
  }
  return k;
}

/// The feature's own outward unit normal at y where it has one (surfaces), for the certificate:
/// with a flat exposed face (a polytope face or edge, a cylinder's or cone's side) the support bound
/// is first-order in the error of its direction, and (y2 − y1)/d carries the rounding of the points
/// divided by d. False for vertices, edges and circles.
bool feature_normal(const Feat& f, const Vec3& y, const Vec3& m, Vec3& out) {
  switch (f.kind) {
    case FeatureKind::face: out = f.a.dot(m) >= 0.0 ? f.a : Vec3(-f.a); return true;
    case FeatureKind::sphere: out = unit_or(y - f.c, m); return true;
    case FeatureKind::cylinder: {
      const Vec3 q = f.c + (y - f.c).dot(f.a) * f.a;
      out = unit_or(y - q, m);
      return true;
    }
    case FeatureKind::cone: {
      const Vec3 u = unit_or((y - f.c) - (y - f.c).dot(f.a) * f.a, m);
      out = f.cb * u - f.sb * f.a;
      return true;
    }
    case FeatureKind::ellipsoid: out = unit_or(f.U.transpose() * (f.U * (y - f.c)), m); return true;
    default: return false;
  }
}

// ---------------------------------------------------------------------------------- refinement

struct Refined {
  Vec3 y1, y2;
  int iterations = 0;
};

/// Newton's method on ½‖y1 − y2‖² over the two features, from the projections of x1, x2.
Refined refine(const Feat& f1, const Feat& f2, const Vec3& x1, const Vec3& x2, double sigma) {
  Refined R;
  R.y1 = project(f1, x1);
  R.y2 = project(f2, x2);
  double f = 0.5 * (R.y1 - R.y2).squaredNorm();
  for (int it = 0; it < 40; ++it) {
    const Frame F1 = frame_at(f1, R.y1), F2 = frame_at(f2, R.y2);
    const int k1 = F1.dim, k2 = F2.dim;
    if (k1 + k2 == 0) break;
    const Vec3 e = R.y1 - R.y2;
    Eigen::Matrix4d H = Eigen::Matrix4d::Identity();
    Eigen::Vector4d g = Eigen::Vector4d::Zero();
    for (int a = 0; a < k1; ++a) {
      g[a] = F1.J.col(a).dot(e);
      for (int b = 0; b < k1; ++b) H(a, b) = F1.J.col(a).dot(F1.J.col(b)) + e.dot(F1.D2[a][b]);
      for (int b = 0; b < k2; ++b) H(a, k1 + b) = H(k1 + b, a) = -F1.J.col(a).dot(F2.J.col(b));
    }
    for (int a = 0; a < k2; ++a) {
      g[k1 + a] = -F2.J.col(a).dot(e);
      for (int b = 0; b < k2; ++b) H(k1 + a, k1 + b) = F2.J.col(a).dot(F2.J.col(b)) - e.dot(F2.D2[a][b]);
    }
    // Cholesky of the fixed-size 4×4 (H is symmetric; positive definite on a non-degenerate pair)
    const Eigen::LLT<Eigen::Matrix4d> llt(H);
    const Eigen::Vector4d D = llt.matrixLLT().diagonal().cwiseAbs2();
    if (llt.info() != Eigen::Success || !(D.minCoeff() > 1e-12 * std::max(1.0, D.maxCoeff()))) break;
    const Eigen::Vector4d step = -llt.solve(g);
    const double slope = g.dot(step);
    double t = 1.0;
    bool moved = false;
    for (int ls = 0; ls < 30; ++ls, t *= 0.5) {
      double d1[2] = {t * step[0], k1 > 1 ? t * step[1] : 0.0};
      double d2[2] = {t * step[k1], k2 > 1 ? t * step[k1 + 1] : 0.0};
      const Vec3 n1 = move(f1, F1, R.y1, d1), n2 = move(f2, F2, R.y2, d2);
      const double fn = 0.5 * (n1 - n2).squaredNorm();
      // near the optimum f stalls at its rounding (~ε f) long before the points do: steps below
      // 1e-6·σ are Newton's local steps and are taken whole
      if (fn <= f + 1e-4 * t * slope || (t == 1.0 && step.norm() <= 1e-6 * sigma)) {
        R.y1 = n1;
        R.y2 = n2;
        f = std::min(f, fn);
        moved = true;
        break;
      }
    }
    ++R.iterations;
    if (!moved || t * step.norm() <= 4.0 * kEps * sigma) break;
  }
  return R;
}

void set_invalid(DistanceResult& out, const Pose& X_WB1, const Pose& X_WB2) {
  out = DistanceResult{};
  out.status = DistanceStatus::invalid_input;
  (void)X_WB1;
  (void)X_WB2;
}

void solve(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2, const Pose& X_WB2,
           const ContactResult* warm, DistanceResult& out, const DistanceOptions& options) {
  if (!options.is_valid() || !X_WB1.is_valid() || !X_WB2.is_valid()) return set_invalid(out, X_WB1, X_WB2);
  out = DistanceResult{};
  out.X_WB1 = X_WB1;
  out.X_WB2 = X_WB2;
  out.X_WS1 = X_WB1 * primitive_offset(shape1);
  out.X_WS2 = X_WB2 * primitive_offset(shape2);
  if (!out.X_WS1.is_finite() || !out.X_WS2.is_finite()) return set_invalid(out, X_WB1, X_WB2);
  Placed P1, P2;
  P1.shape = &shape1;
  P1.R = out.X_WS1.R;
  P1.o = Vec3::Zero();
  P1.outer = outer_radius(shape1);
  P2.shape = &shape2;
  P2.R = out.X_WS2.R;
  P2.o = out.X_WS2.p - out.X_WS1.p;
  P2.outer = outer_radius(shape2);
  const Vec3 base = out.X_WS1.p;
  const double sigma = P2.o.norm() + P1.outer + P2.outer;
  const double floor = 64.0 * kEps * (sigma + base.norm());
  // relative to the larger of the distance and the pair's size: at distances far below the shapes'
  // size the normal (p2 − p1)/d carries the points' rounding divided by d, and a flat exposed face
  // turns that into a first-order error of the support bound
  const double size = P1.outer + P2.outer;
  const auto target = [&](double d) { return std::max(options.tolerance * std::max(d, size), floor); };

  // ---- GJK: Y = K1 − K2, v its point nearest the origin, p1 − p2 = v
  detail::GjkSimplex s;
  Vec3 dir = P2.o;
  if (warm != nullptr && warm->ok()) {
    detail::GjkVertex& w = s.v[s.n++];
    w.p = warm->p1_W - base;
    w.q = warm->p2_W - base;
    w.y = w.p - w.q;
  }
  if (!(dir.squaredNorm() > 0.0)) dir = Vec3::UnitX();
  if (s.n == 0) {
    detail::GjkVertex& w = s.v[s.n++];
    w.p = P1.support(dir);
    w.q = P2.support(Vec3(-dir));
    w.y = w.p - w.q;
  }
  double lambda[4] = {1.0, 0.0, 0.0, 0.0};
  double lb = -std::numeric_limits<double>::infinity();
  Vec3 v = s.v[0].y, p = s.v[0].p, q = s.v[0].q;
  bool overlap = false, stalled = false, maybe_overlap = false;
  int it = 0;
  // phase 1 to a coarse gap (curved shapes), then refinement, then GJK on to the tolerance
  const auto run_gjk = [&](double rel) {
    for (; it < options.max_iterations; ++it) {
      if (stalled) return;
      if (!detail::reduce_simplex(s, lambda)) {  // the origin inside a tetrahedron: the sets meet, or
        stalled = true;                          // (nearly touching) a flat simplex fails the test: the
        maybe_overlap = !(lb > floor);           // refinement decides, from the last point
        return;
      }
      v.setZero();
      p.setZero();
      q.setZero();
      for (int i = 0; i < s.n; ++i) {
        v += lambda[i] * s.v[i].y;
        p += lambda[i] * s.v[i].p;
        q += lambda[i] * s.v[i].q;
      }
      const double vn = v.norm();
      if (!(vn > 1e-12 * sigma) || !std::isfinite(vn)) {
        overlap = true;
        return;
      }
      detail::GjkVertex w;
      w.p = P1.support(Vec3(-v));
      w.q = P2.support(v);
      w.y = w.p - w.q;
      lb = std::max(lb, v.dot(w.y) / vn);
      if (vn - lb <= std::max(rel * std::max(vn, size), floor)) {
        ++it;  // this iteration's support call counts
        return;
      }
      bool dup = false;
      for (int i = 0; i < s.n && !dup; ++i) dup = (w.y - s.v[i].y).squaredNorm() <= 1e-28 * w.y.squaredNorm();
      if (dup || vn * vn - v.dot(w.y) <= 8.0 * kEps * vn * w.y.norm()) {  // no progress left
        stalled = true;
        return;
      }
      if (s.n == 4) return;  // cannot happen after a reduction; defensive
      s.v[s.n++] = w;
    }
  };
  // Phase 1 to a coarse gap, then the refinement; where it is not accepted, GJK on to 1e-9 (the
  // GJK iterate at which the features are read reliably on curved shapes) and the refinement once
  // more, then GJK on to the tolerance. GJK resumes where it stopped: its iterates are those of one
  // run to the tolerance.
  const auto overlapping = [&] {
    out.status = DistanceStatus::touching_or_overlapping;
    out.iterations = it;
    out.lower_bound = std::min(lb, 0.0);
    if (!std::isfinite(out.lower_bound)) out.lower_bound = 0.0;
    out.p1_W = out.p2_W = base + 0.5 * (p + q);
  };
  Vec3 best1, best2;
  double best_d = 0.0;
  bool accepted = false;
  const auto refine_here = [&] {
    best1 = p;
    best2 = q;
    best_d = (p - q).norm();
    // ---- refinement on the local features
    const Vec3 m = -v / v.norm();  // from 1 to 2
    Candidates C1, C2;
    placed_candidates(P1, p, m, 1e-5 * P1.outer, C1);
    placed_candidates(P2, q, Vec3(-m), 1e-5 * P2.outer, C2);
    for (int i = 0; i < C1.n; ++i) {
      for (int j = 0; j < C2.n; ++j) {
        const Refined R = refine(C1.f[i], C2.f[j], p, q, sigma);
        const Vec3 e = R.y2 - R.y1;
        const double d = e.norm();
        if (!(d > 1e-12 * sigma) || !std::isfinite(d)) continue;
        const Vec3 n = e / d;
        double lbn = lower_bound(P1, P2, n);
        Vec3 u;
        if (feature_normal(C1.f[i], R.y1, n, u)) lbn = std::max(lbn, lower_bound(P1, P2, u));
        if (feature_normal(C2.f[j], R.y2, Vec3(-n), u)) lbn = std::max(lbn, lower_bound(P1, P2, Vec3(-u)));
        if (C1.f[i].kind == FeatureKind::edge && C2.f[j].kind == FeatureKind::edge) {
          u = C1.f[i].a.cross(C2.f[j].a);
          if (u.norm() > 1e-6) lbn = std::max(lbn, lower_bound(P1, P2, Vec3(u.dot(n) >= 0.0 ? u.normalized() : Vec3(-u.normalized()))));
        }
        const double tol_in = 1e-9;
        if (placed_outside(P1, R.y1) > tol_in * P1.outer + floor || placed_outside(P2, R.y2) > tol_in * P2.outer + floor)
          continue;
        if (d - std::max(lbn, lb) > target(d)) continue;
        // the smallest certified pair (a feature of the wrong kind can only be farther), never worse than GJK's
        if (d > best_d + floor || (accepted && d >= best_d - floor)) continue;
        accepted = true;
        lb = std::max(lb, lbn);
        best1 = R.y1;
        best2 = R.y2;
        best_d = d;
        out.refined = true;
        out.refine_iterations = R.iterations;
        out.feature1 = local_feature(C1.f[i], R.y1, n);
        out.feature2 = local_feature(C2.f[j], R.y2, Vec3(-n));
      }
    }
  };
  const double fine = std::max(1e-9, options.tolerance);
  run_gjk(std::max(kPhaseOneGap, fine));
  if (overlap) return overlapping();
  refine_here();
  if (!accepted && kPhaseOneGap > fine) {
    run_gjk(fine);
    if (overlap) return overlapping();
    refine_here();
  }
  if (!accepted) {
    run_gjk(options.tolerance);
    if (overlap || (maybe_overlap && !(lb > floor))) {
      out.status = DistanceStatus::touching_or_overlapping;
      out.iterations = it;
      out.lower_bound = 0.0;
      out.p1_W = out.p2_W = base + 0.5 * (p + q);
      return;
    }
    best1 = p;
    best2 = q;
    best_d = (p - q).norm();
  }
  out.iterations = it;
  out.distance = best_d;
  out.lower_bound = std::isfinite(lb) ? std::min(lb, best_d) : 0.0;
  out.p1_W = base + best1;
  out.p2_W = base + best2;
  out.normal_W = (best2 - best1) / best_d;
  out.status = best_d - lb <= target(best_d) ? DistanceStatus::separated : DistanceStatus::not_certified;
  // parallel flat patches at the normal: the closest points are not unique
  Vec3 f1[2], f2[2];
  const int k1 = flat_directions(P1, out.normal_W, f1), k2 = flat_directions(P2, Vec3(-out.normal_W), f2);
  if (k1 == 2 || k2 == 2) out.unique = k1 + k2 < 3 && !(k1 == 2 && k2 >= 1) && !(k2 == 2 && k1 >= 1);
  else if (k1 == 1 && k2 == 1) out.unique = f1[0].cross(f2[0]).norm() > 1e-6;
}

}  // namespace

void euclidean_distance(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2, const Pose& X_WB2,
                        DistanceResult& out, const DistanceOptions& options) {
  solve(shape1, X_WB1, shape2, X_WB2, nullptr, out, options);
}

DistanceResult euclidean_distance(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2,
                                  const Pose& X_WB2, const DistanceOptions& options) {
  DistanceResult out;
  solve(shape1, X_WB1, shape2, X_WB2, nullptr, out, options);
  return out;
}

DistanceResult euclidean_distance(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2,
                                  const Pose& X_WB2, const ContactResult& warm, const DistanceOptions& options) {
  DistanceResult out;
  solve(shape1, X_WB1, shape2, X_WB2, &warm, out, options);
  return out;
}

}  // namespace diffcol::dcol
