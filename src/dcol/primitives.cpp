#include "diffcol/dcol/primitives.hpp"

#include "../geometry/convex_hull.hpp"
#include "../util/rows_span.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace diffcol::dcol {
namespace {

/// The length a row is divided by when stored with a unit normal. A row within a few ulps of unit
/// length is kept as it is: the stored rows are then a fixed point of the normalization, so a
/// primitive rebuilt from its own A, b (pickling) is bit for bit the same.
double unit_row_scale(double n) {
  return std::abs(n - 1.0) <= 4.0 * std::numeric_limits<double>::epsilon() ? 1.0 : n;
}

void check_offset(const Pose& offset, const char* what) {
  if (const char* why = offset.invalid_reason())
    throw std::invalid_argument(std::string(what) + ": offset pose: " + why);
}

void check_positive(double v, const char* what, const char* name) {
  if (!std::isfinite(v) || !(v >= kMinLength) || v > kMaxLength) {
    std::ostringstream os;
    os << what << ": " << name << " must be finite and in [1e-100, 1e100] (kMinLength, kMaxLength) (got " << v << ")";
    throw std::invalid_argument(os.str());
  }
}

/// Rows a_i (k-dimensional) and offsets > 0; throws unless the set {y : A y ≤ b} is bounded.
/// Bounded ⇔ the recession cone {d : A d ≤ 0} is {0} ⇔ rank A = k and no extreme ray exists; an
/// extreme ray of the pointed cone has k − 1 independent active rows, so it is ±(a_i × a_j) in
/// 3-D and ±perp(a_i) in 2-D.
template <int K>
void check_halfspaces(const Eigen::Matrix<double, Eigen::Dynamic, K>& A, const Eigen::VectorXd& b, int max_rows,
                      int min_rows, const char* what, bool check_bounded = true) {
  const int m = static_cast<int>(A.rows());
  if (m < min_rows || m > max_rows)
    throw std::invalid_argument(std::string(what) + ": needs between " + std::to_string(min_rows) + " and " +
                                std::to_string(max_rows) + " half-spaces (got " + std::to_string(m) + ")" +
                                (K == 3 ? "; kMaxPolytopeFaces = " + std::to_string(kMaxPolytopeFaces) : std::string()));
  if (b.size() != m)
    throw std::invalid_argument(std::string(what) + ": A has " + std::to_string(m) + " rows but b has " +
                                std::to_string(b.size()) + " entries");
  if (!A.allFinite() || !b.allFinite()) throw std::invalid_argument(std::string(what) + ": non-finite entry");
  for (int i = 0; i < m; ++i) {
    if (A.row(i).norm() == 0.0) throw std::invalid_argument(std::string(what) + ": zero row " + std::to_string(i));
    if (!(b[i] > 0.0))
      throw std::invalid_argument(std::string(what) + ": offsets must be > 0 (the origin must be strictly inside)");
  }
  if (!check_bounded) return;
  Eigen::Matrix<double, Eigen::Dynamic, K> An = A;
  for (int i = 0; i < m; ++i) An.row(i).normalize();
  if (!(diffcol::detail::rows_span_volume<K>(An) > 1e-9))
    throw std::invalid_argument(std::string(what) + ": unbounded (the normals do not span the space)");
  auto is_ray = [&](const Eigen::Matrix<double, K, 1>& d) {
    if (d.norm() < 1e-12) return false;
    const Eigen::Matrix<double, K, 1> u = d.normalized();
    for (int i = 0; i < m; ++i)
      if (An.row(i).dot(u) > 1e-9) return false;
    return true;
  };
  for (int i = 0; i < m; ++i) {
    if constexpr (K == 2) {
      const Eigen::Vector2d d(-An(i, 1), An(i, 0));
      if (is_ray(d) || is_ray(-d)) throw std::invalid_argument(std::string(what) + ": unbounded");
    } else {
      for (int j = i + 1; j < m; ++j) {
        const Vec3 d = Vec3(An.row(i)).cross(Vec3(An.row(j)));
        if (is_ray(d) || is_ray(-d)) throw std::invalid_argument(std::string(what) + ": unbounded");
      }
    }
  }
}

}  // namespace

// ------------------------------------------------------------------------------------ Polytope

Polytope::Polytope(const Eigen::MatrixX3d& A_in, const Eigen::VectorXd& b_in, const Pose& off) : offset(off) {
  check_halfspaces<3>(A_in, b_in, kMaxPolytopeFaces, 4, "Polytope", A_in.rows() <= kInlinePolytopeFaces);
  check_offset(off, "Polytope");
  if (A_in.rows() > kInlinePolytopeFaces) {
    build_large(A_in, b_in);
    return;
  }
  num_faces = static_cast<int>(A_in.rows());
  for (int i = 0; i < num_faces; ++i) {  // unit normals: same set, better scaled rows
    const double n = unit_row_scale(A_in.row(i).norm());
    A.row(i) = A_in.row(i) / n;
    b[i] = b_in[i] / n;
  }
  inner_radius = 1e300;
  double b_max = 0.0;
  for (int i = 0; i < num_faces; ++i) {
    inner_radius = std::min(inner_radius, b[i] / A.row(i).norm());
    b_max = std::max(b_max, b[i]);
  }
  if (!(inner_radius >= kMinLength))
    throw std::invalid_argument("Polytope: a face lies closer than 1e-100 (kMinLength) to the origin");
  const double tol = 1e-9 * b_max;  // vertex tests relative to the polytope's size (any unit of length)
  // Outer radius by vertex enumeration (construction time only).
  outer_radius = 0.0;
  for (int i = 0; i < num_faces; ++i)
    for (int j = i + 1; j < num_faces; ++j)
      for (int k = j + 1; k < num_faces; ++k) {
        Mat3 M;
        M.row(0) = A.row(i);
        M.row(1) = A.row(j);
        M.row(2) = A.row(k);
        const Eigen::FullPivLU<Mat3> lu(M);
        if (lu.rank() < 3) continue;
        const Vec3 v = lu.solve(Vec3(b[i], b[j], b[k]));
        bool inside = true;
        for (int q = 0; q < num_faces && inside; ++q)
          inside = A.row(q).dot(v) <= b[q] + tol;
        if (!inside) continue;
        outer_radius = std::max(outer_radius, v.norm());
        if (!(outer_radius <= kMaxLength))
          throw std::invalid_argument("Polytope: a vertex lies beyond 1e100 (kMaxLength) from the origin");
        bool seen = false;  // more than three faces meet at a degenerate vertex
        for (int q = 0; q < num_vertices && !seen; ++q)
          seen = (V.row(q).transpose() - v).norm() <= tol;
        if (!seen && num_vertices < kInlinePolytopeVertices) V.row(num_vertices++) = v.transpose();
      }
  // each face's vertices, ordered by angle about the face's centroid (counter-clockwise about A_k)
  int used = 0;
  for (int k = 0; k < num_faces; ++k) {
    face_start[k] = static_cast<unsigned short>(used);
    const Vec3 n = A.row(k).transpose();
    int idx[kInlinePolytopeVertices], c = 0;
    Vec3 centre = Vec3::Zero();
    for (int i = 0; i < num_vertices; ++i)
      if (std::abs(n.dot(V.row(i).transpose()) - b[k]) <= tol) {
        idx[c++] = i;
        centre += V.row(i).transpose();
      }
    if (c == 0 || used + c > kInlinePolytopeFaceIncidences) continue;  // (the bound holds: never full)
    centre /= c;
    const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
    double ang[kInlinePolytopeVertices];
    for (int a = 0; a < c; ++a) {
      const Vec3 r = V.row(idx[a]).transpose() - centre;
      ang[a] = std::atan2(r.dot(t2), r.dot(t1));
    }
    for (int a = 1; a < c; ++a)  // insertion sort by angle
      for (int q = a; q > 0 && ang[q] < ang[q - 1]; --q) {
        std::swap(ang[q], ang[q - 1]);
        std::swap(idx[q], idx[q - 1]);
      }
    for (int a = 0; a < c; ++a) face_vertices[used++] = static_cast<unsigned char>(idx[a]);
  }
  face_start[num_faces] = static_cast<unsigned short>(used);
}

namespace {

/// A direction d ≠ 0 with a_jᵀd ≤ 1e-9 for every listed unit normal (a ray of the recession cone
/// of {y : a_jᵀy ≤ b_j}), or zero when there is none (the half-spaces bound a set).
Vec3 recession_ray(const Eigen::Matrix<double, Eigen::Dynamic, 3>& A, const std::vector<int>& rows) {
  const auto is_ray = [&](const Vec3& d) {
    for (int i : rows)
      if (Vec3(A.row(i).transpose()).dot(d) > 1e-9) return false;
    return true;
  };
  Mat3 M = Mat3::Zero();
  for (int i : rows) M += A.row(i).transpose() * A.row(i);
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(M);
  if (!(eig.eigenvalues()(0) > 1e-12)) {  // the normals do not span: ± the null direction
    const Vec3 d = eig.eigenvectors().col(0);
    if (is_ray(d)) return d;
    if (is_ray(-d)) return -d;
  }
  for (size_t p = 0; p < rows.size(); ++p)
    for (size_t q = p + 1; q < rows.size(); ++q) {
      Vec3 d = Vec3(A.row(rows[p]).transpose()).cross(Vec3(A.row(rows[q]).transpose()));
      if (d.norm() < 1e-12) continue;
      d.normalize();
      if (is_ray(d)) return d;
      if (is_ray(-d)) return -d;
    }
  return Vec3::Zero();
}

}  // namespace

// Above kInlinePolytopeFaces: the vertices from the polar hull (Qhull): with d_i = a_i/b_i, each
// facet nᵀd ≤ c of conv{d_i} is a vertex n/c of {A y ≤ b} (refined by least squares on the faces
// through it), the faces through it are the facet's points, and the set is bounded iff the origin
// lies strictly inside conv{d_i} (every c > 0).
void Polytope::build_large(const Eigen::MatrixX3d& A_in, const Eigen::VectorXd& b_in) {
  const int m = static_cast<int>(A_in.rows());
  auto L = std::make_shared<LargePolytopeData>();
  L->A.resize(m, 3);
  L->b.resize(m);
  for (int i = 0; i < m; ++i) {
    const double n = unit_row_scale(A_in.row(i).norm());
    L->A.row(i) = A_in.row(i) / n;
    L->b[i] = b_in[i] / n;
  }
  num_faces = m;
  inner_radius = L->b.minCoeff();
  if (!(inner_radius >= kMinLength))
    throw std::invalid_argument("Polytope: a face lies closer than 1e-100 (kMinLength) to the origin");
  std::vector<Vec3> dual(static_cast<size_t>(m));
  double scale = 0.0;
  for (int i = 0; i < m; ++i) {
    dual[static_cast<size_t>(i)] = L->A.row(i).transpose() / L->b[i];
    scale = std::max(scale, dual[static_cast<size_t>(i)].norm());
  }
  diffcol::detail::HullFacets H;
  std::string why;
  if (!diffcol::detail::qhull_facets(dual, H, why, "Polytope: vertex enumeration"))
    throw std::invalid_argument("Polytope: unbounded (the normals do not span the space)");
  const int nv = static_cast<int>(H.normals.size());
  L->V.resize(nv, 3);
  outer_radius = 0.0;
  std::vector<std::vector<int>> on_face(static_cast<size_t>(m));
  for (int f = 0; f < nv; ++f) {
    const double c = H.offsets[static_cast<size_t>(f)];
    if (!(c > 1e-12 * scale)) throw std::invalid_argument("Polytope: unbounded");
    Vec3 v = H.normals[static_cast<size_t>(f)] / c;
    Mat3 M = Mat3::Zero();
    Vec3 r = Vec3::Zero();
    for (int i : H.vertices[static_cast<size_t>(f)]) {
      M += L->A.row(i).transpose() * L->A.row(i);
      r += L->A.row(i).transpose() * L->b[i];
      on_face[static_cast<size_t>(i)].push_back(f);
    }
    const Vec3 ls = M.fullPivLu().solve(r);  // least squares on the faces through the vertex
    if (ls.allFinite() && (ls - v).norm() <= 1e-6 * (1.0 + v.norm())) v = ls;
    L->V.row(f) = v.transpose();
    outer_radius = std::max(outer_radius, v.norm());
  }
  if (!(outer_radius <= kMaxLength))
    throw std::invalid_argument("Polytope: a vertex lies beyond 1e100 (kMaxLength) from the origin");
  num_vertices = nv;
  // each face's vertices counter-clockwise about its normal (as for the inline faces)
  L->face_start.assign(static_cast<size_t>(m) + 1, 0);
  std::vector<std::pair<int, int>> edges;
  for (int k = 0; k < m; ++k) {
    L->face_start[static_cast<size_t>(k)] = static_cast<int>(L->face_vertices.size());
    std::vector<int>& idx = on_face[static_cast<size_t>(k)];
    if (idx.empty()) continue;
    const Vec3 n = L->A.row(k).transpose();
    Vec3 centre = Vec3::Zero();
    for (int i : idx) centre += L->V.row(i).transpose();
    centre /= static_cast<double>(idx.size());
    const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
    std::vector<std::pair<double, int>> ang;
    for (int i : idx) {
      const Vec3 r = L->V.row(i).transpose() - centre;
      ang.push_back({std::atan2(r.dot(t2), r.dot(t1)), i});
    }
    std::sort(ang.begin(), ang.end());
    for (size_t a = 0; a < ang.size(); ++a) {
      L->face_vertices.push_back(ang[a].second);
      const int u = ang[a].second, w = ang[(a + 1) % ang.size()].second;
      if (ang.size() > 1 && u != w) edges.push_back({std::min(u, w), std::max(u, w)});
    }
  }
  L->face_start[static_cast<size_t>(m)] = static_cast<int>(L->face_vertices.size());
  // the vertex graph (the polytope's edges: consecutive vertices of a face)
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<int> degree(static_cast<size_t>(nv), 0);
  for (const auto& [u, w] : edges) ++degree[static_cast<size_t>(u)], ++degree[static_cast<size_t>(w)];
  L->neighbour_start.assign(static_cast<size_t>(nv) + 1, 0);
  for (int i = 0; i < nv; ++i) L->neighbour_start[static_cast<size_t>(i) + 1] = L->neighbour_start[static_cast<size_t>(i)] + degree[static_cast<size_t>(i)];
  L->neighbours.assign(static_cast<size_t>(L->neighbour_start.back()), 0);
  std::vector<int> fill(L->neighbour_start.begin(), L->neighbour_start.end() - 1);
  for (const auto& [u, w] : edges) {
    L->neighbours[static_cast<size_t>(fill[static_cast<size_t>(u)]++)] = w;
    L->neighbours[static_cast<size_t>(fill[static_cast<size_t>(w)]++)] = u;
  }
  // the support function's starts: the extreme vertices along 26 directions; none (every vertex
  // visited) unless the vertex graph is connected with every degree at least 3, as a polytope's is
  bool graph_ok = nv >= 4;
  for (int i = 0; i < nv && graph_ok; ++i) graph_ok = degree[static_cast<size_t>(i)] >= 3;
  if (graph_ok) {
    std::vector<int> stack{0};
    std::vector<unsigned char> seen(static_cast<size_t>(nv), 0);
    seen[0] = 1;
    int reached = 1;
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      for (int j = L->neighbour_start[static_cast<size_t>(u)]; j < L->neighbour_start[static_cast<size_t>(u) + 1]; ++j) {
        const int w = L->neighbours[static_cast<size_t>(j)];
        if (!seen[static_cast<size_t>(w)]) seen[static_cast<size_t>(w)] = 1, ++reached, stack.push_back(w);
      }
    }
    graph_ok = reached == nv;
  }
  for (int c = 0; c < 27 && graph_ok; ++c) {
    const Vec3 d(c % 3 - 1.0, (c / 3) % 3 - 1.0, c / 9 - 1.0);
    if (c == 13) continue;  // the zero direction
    Eigen::Index best = 0;
    (L->V * d).maxCoeff(&best);
    const int i = static_cast<int>(best);
    if (std::find(L->support_seeds.begin(), L->support_seeds.end(), i) == L->support_seeds.end())
      L->support_seeds.push_back(i);
  }
  // bounding faces: the faces most aligned with the 6 axes and the 8 diagonals, then, while their
  // half-spaces leave a recession ray d, the face maximizing a_iᵀd
  const auto add_best = [&](const Vec3& d) {
    Eigen::Index best = 0;
    (L->A * d).maxCoeff(&best);
    const int i = static_cast<int>(best);
    if (std::find(L->bounding_faces.begin(), L->bounding_faces.end(), i) == L->bounding_faces.end())
      L->bounding_faces.push_back(i);
  };
  for (int a = 0; a < 3; ++a)
    for (const double sg : {1.0, -1.0}) add_best(sg * Vec3::Unit(a));
  for (int c = 0; c < 8; ++c) add_best(Vec3(c & 1 ? 1.0 : -1.0, c & 2 ? 1.0 : -1.0, c & 4 ? 1.0 : -1.0).normalized());
  for (Vec3 d = recession_ray(L->A, L->bounding_faces); d.squaredNorm() > 0.0;
       d = recession_ray(L->A, L->bounding_faces)) {
    const size_t before = L->bounding_faces.size();
    add_best(d);
    if (L->bounding_faces.size() == before || L->bounding_faces.size() > static_cast<size_t>(kMaxBoundingFaces))
      throw std::invalid_argument("Polytope: no bounded subset of at most " + std::to_string(kMaxBoundingFaces) +
                                  " faces found (a polytope too elongated for its face count)");
  }
  L->is_bounding.assign(static_cast<size_t>(m), 0);
  for (int i : L->bounding_faces) L->is_bounding[static_cast<size_t>(i)] = 1;
  large = std::move(L);
}

int LargePolytopeData::support_vertex(const Vec3& d, int hint) const {
  const double *x = V.col(0).data(), *y = V.col(1).data(), *z = V.col(2).data();
  const auto value = [&](int i) { return x[i] * d.x() + y[i] * d.y() + z[i] * d.z(); };
  const int nv = static_cast<int>(V.rows());
  if (support_seeds.empty()) {  // no climb (the vertex graph did not check out): every vertex
    int best = 0;
    double bv = -1e300;
    for (int i = 0; i < nv; ++i) {
      const double v = value(i);
      const bool gt = v > bv;
      bv = gt ? v : bv;
      best = gt ? i : best;
    }
    return best;
  }
  int v = hint >= 0 && hint < nv ? hint : support_seeds.front();
  double bv = value(v);
  for (int s : support_seeds) {
    const double val = value(s);
    if (val > bv) bv = val, v = s;
  }
  // at most one visit per vertex: the values increase along the climb
  for (int step = 0; step < nv; ++step) {
    int next = v;
    for (int j = neighbour_start[static_cast<size_t>(v)]; j < neighbour_start[static_cast<size_t>(v) + 1]; ++j) {
      const int u = neighbours[static_cast<size_t>(j)];
      const double val = value(u);
      if (val > bv) bv = val, next = u;
    }
    if (next == v) break;
    v = next;
  }
  return v;
}

Vec3 Polytope::large_support(const Vec3& d) const {
  if (!(d.squaredNorm() > 0.0)) return Vec3::Zero();
  return large->V.row(large->support_vertex(d)).transpose();
}

Polytope Polytope::convex_hull(const std::vector<Vec3>& points, const Pose& offset) {
  for (const Vec3& p : points)
    if (!p.allFinite()) throw std::invalid_argument("Polytope::convex_hull: a point is not finite");
  diffcol::detail::HullFacets H;
  std::string why;
  if (!diffcol::detail::qhull_facets(points, H, why, "Polytope::convex_hull"))
    throw std::invalid_argument("Polytope::convex_hull: " + why);
  const int m = static_cast<int>(H.normals.size());
  if (m > kMaxPolytopeFaces)
    throw std::invalid_argument("Polytope::convex_hull: the hull has " + std::to_string(m) + " faces; at most " +
                                std::to_string(kMaxPolytopeFaces) + " (kMaxPolytopeFaces): simplify the points first");
  Eigen::MatrixX3d A(m, 3);
  Eigen::VectorXd b(m);
  for (int f = 0; f < m; ++f) {
    A.row(f) = H.normals[static_cast<size_t>(f)].transpose();
    b[f] = H.offsets[static_cast<size_t>(f)];
    if (!(b[f] > 0.0))
      throw std::invalid_argument("Polytope::convex_hull: the shape origin is not strictly inside the hull "
                                  "(translate the points, e.g. by their centroid, and use the offset pose)");
  }
  return Polytope(A, b, offset);
}

Polytope Polytope::convex_hull(const mesh::TriangleMesh& mesh, const Pose& offset) {
  return convex_hull(mesh.vertices(), offset);
}

Polytope Polytope::box(double hx, double hy, double hz, const Pose& offset) {
  check_positive(hx, "Polytope::box", "hx");
  check_positive(hy, "Polytope::box", "hy");
  check_positive(hz, "Polytope::box", "hz");
  Eigen::MatrixX3d A(6, 3);
  A << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1;
  Eigen::VectorXd b(6);
  b << hx, hx, hy, hy, hz, hz;
  return Polytope(A, b, offset);
}

// ------------------------------------------------------------------------- round primitives

Capsule::Capsule(double R_, double L_, const Pose& off) : R(R_), L(L_), offset(off) {
  check_positive(R_, "Capsule", "R");
  check_positive(L_, "Capsule", "L");
  check_offset(off, "Capsule");
}

Cylinder::Cylinder(double R_, double L_, const Pose& off) : R(R_), L(L_), offset(off) {
  check_positive(R_, "Cylinder", "R");
  check_positive(L_, "Cylinder", "L");
  check_offset(off, "Cylinder");
}

Cone::Cone(double H_, double beta_, const Pose& off) : H(H_), beta(beta_), offset(off) {
  check_positive(H_, "Cone", "H");
  if (!std::isfinite(beta_) || beta_ <= 0.0 || beta_ >= 0.5 * M_PI)
    throw std::invalid_argument("Cone: half-angle beta must be in (0, pi/2) radians (got " + std::to_string(beta_) +
                                ")");
  check_offset(off, "Cone");
  tan_beta = std::tan(beta_);
}

Ellipsoid::Ellipsoid(const Mat3& P_, const Pose& off) : P(P_), offset(off) {
  if (!P_.allFinite()) throw std::invalid_argument("Ellipsoid: P has a non-finite entry");
  if ((P_ - P_.transpose()).norm() > 1e-12 * P_.norm()) throw std::invalid_argument("Ellipsoid: P is not symmetric");
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(P_);
  const double lmin = eig.eigenvalues()(0), lmax = eig.eigenvalues()(2);
  if (!(lmin > 1e-14 * lmax) || !(lmin > 0.0)) throw std::invalid_argument("Ellipsoid: P is not positive definite");
  check_offset(off, "Ellipsoid");
  const Eigen::LLT<Mat3> llt(P_);
  if (llt.info() != Eigen::Success) throw std::invalid_argument("Ellipsoid: Cholesky factorization of P failed");
  U = llt.matrixU();
  P_inverse = llt.solve(Mat3::Identity());
  P_inverse = 0.5 * (P_inverse + P_inverse.transpose()).eval();
  inner_radius = 1.0 / std::sqrt(lmax);
  outer_radius = 1.0 / std::sqrt(lmin);
  if (!(inner_radius >= kMinLength) || !(outer_radius <= kMaxLength))
    throw std::invalid_argument("Ellipsoid: semi-axes must lie in [1e-100, 1e100] (kMinLength, kMaxLength)");
}

Ellipsoid Ellipsoid::from_semi_axes(double a, double b, double c, const Pose& offset) {
  check_positive(a, "Ellipsoid", "a");
  check_positive(b, "Ellipsoid", "b");
  check_positive(c, "Ellipsoid", "c");
  return Ellipsoid(Vec3(1.0 / (a * a), 1.0 / (b * b), 1.0 / (c * c)).asDiagonal().toDenseMatrix(), offset);
}

PaddedPolygon::PaddedPolygon(const Eigen::MatrixX2d& C_in, const Eigen::VectorXd& d_in, double R_, const Pose& off)
    : R(R_), offset(off) {
  check_halfspaces<2>(C_in, d_in, kMaxPolygonEdges, 3, "PaddedPolygon");
  check_positive(R_, "PaddedPolygon", "R");
  check_offset(off, "PaddedPolygon");
  num_edges = static_cast<int>(C_in.rows());
  for (int i = 0; i < num_edges; ++i) {  // unit normals: same set, better scaled rows
    const double n = unit_row_scale(C_in.row(i).norm());
    C.row(i) = C_in.row(i) / n;
    d[i] = d_in[i] / n;
  }
  double inner = 1e300, outer = 0.0;
  const double tol = 1e-9 * d.head(num_edges).maxCoeff();  // relative to the polygon's size
  for (int i = 0; i < num_edges; ++i) {
    inner = std::min(inner, d[i] / C.row(i).norm());
    for (int j = i + 1; j < num_edges; ++j) {
      Eigen::Matrix2d M;
      M.row(0) = C.row(i);
      M.row(1) = C.row(j);
      if (std::abs(M.determinant()) < 1e-12 * M.norm() * M.norm()) continue;
      const Eigen::Vector2d v = M.inverse() * Eigen::Vector2d(d[i], d[j]);
      bool inside = true;
      for (int q = 0; q < num_edges && inside; ++q) inside = C.row(q).dot(v) <= d[q] + tol;
      if (!inside) continue;
      outer = std::max(outer, v.norm());
      if (!(outer <= kMaxLength))
        throw std::invalid_argument("PaddedPolygon: a vertex lies beyond 1e100 (kMaxLength) from the origin");
      bool seen = false;
      for (int q = 0; q < num_vertices && !seen; ++q) seen = (V.row(q).transpose() - v).norm() <= tol;
      if (!seen && num_vertices < kMaxPolygonEdges) V.row(num_vertices++) = v.transpose();
    }
  }
  // counter-clockwise order (the origin is strictly inside)
  std::array<int, kMaxPolygonEdges> order{};
  for (int i = 0; i < num_vertices; ++i) order[static_cast<size_t>(i)] = i;
  std::sort(order.begin(), order.begin() + num_vertices,
            [&](int a, int b) { return std::atan2(V(a, 1), V(a, 0)) < std::atan2(V(b, 1), V(b, 0)); });
  const Eigen::Matrix<double, kMaxPolygonEdges, 2> unsorted = V;
  for (int i = 0; i < num_vertices; ++i) V.row(i) = unsorted.row(order[static_cast<size_t>(i)]);
  inner_radius = R + inner;
  outer_radius = R + outer;
}

PaddedPolygon PaddedPolygon::rectangle(double hx, double hy, double R, const Pose& offset) {
  check_positive(hx, "PaddedPolygon::rectangle", "hx");
  check_positive(hy, "PaddedPolygon::rectangle", "hy");
  Eigen::MatrixX2d C(4, 2);
  C << 1, 0, -1, 0, 0, 1, 0, -1;
  Eigen::VectorXd d(4);
  d << hx, hx, hy, hy;
  return PaddedPolygon(C, d, R, offset);
}

Sphere::Sphere(double R_, const Pose& off) : R(R_), offset(off) {
  check_positive(R_, "Sphere", "R");
  check_offset(off, "Sphere");
}

// ------------------------------------------------------------------------------ the variant

const char* primitive_type_name(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::polytope: return "polytope";
    case PrimitiveType::capsule: return "capsule";
    case PrimitiveType::cylinder: return "cylinder";
    case PrimitiveType::cone: return "cone";
    case PrimitiveType::ellipsoid: return "ellipsoid";
    case PrimitiveType::padded_polygon: return "padded_polygon";
    case PrimitiveType::sphere: return "sphere";
  }
  return "unknown";
}

const Pose& primitive_offset(const Primitive& p) {
  return std::visit([](const auto& s) -> const Pose& { return s.offset; }, p);
}

namespace {
struct RadiusVisitor {
  bool outer;
  double operator()(const Polytope& s) const { return outer ? s.outer_radius : s.inner_radius; }
  double operator()(const Capsule& s) const { return outer ? 0.5 * s.L + s.R : s.R; }
  double operator()(const Cylinder& s) const {
    return outer ? std::hypot(s.R, 0.5 * s.L) : std::min(s.R, 0.5 * s.L);
  }
  double operator()(const Cone& s) const {
    // apex at 3H/4, base rim at (H/4, H tan β); inside: base plane at H/4, lateral surface at (3H/4) sin β
    return outer ? std::max(0.75 * s.H, std::hypot(0.25 * s.H, s.H * s.tan_beta))
                 : std::min(0.25 * s.H, 0.75 * s.H * std::sin(s.beta));
  }
  double operator()(const Ellipsoid& s) const { return outer ? s.outer_radius : s.inner_radius; }
  double operator()(const PaddedPolygon& s) const { return outer ? s.outer_radius : s.inner_radius; }
  double operator()(const Sphere& s) const { return s.R; }
};
}  // namespace

double inner_radius(const Primitive& p) { return std::visit(RadiusVisitor{false}, p); }
double outer_radius(const Primitive& p) { return std::visit(RadiusVisitor{true}, p); }

Primitive benchmark_primitive(const char* name_c) {
  const std::string name = name_c ? name_c : "";
  if (name == "polytope") {
    Eigen::MatrixX3d A(8, 3);
    A << 1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1, -1, 1, 1, 1, -1, 1, 1, 1, -1;
    Eigen::VectorXd b(8);
    b << 1, 1, 1, 1, 5.0 / 3, 5.0 / 3, 5.0 / 3, 5.0 / 3;
    return Polytope(A, b);
  }
  if (name == "capsule") return Capsule(0.5, 2.0);
  if (name == "cylinder") return Cylinder(0.75, 2.0);
  if (name == "cone") return Cone(2.0, M_PI / 6.0);
  if (name == "ellipsoid") return Ellipsoid::from_semi_axes(0.5, 1.0, 1.5);
  if (name == "padded_polygon") return PaddedPolygon::rectangle(1.0, 0.6, 0.2);
  if (name == "sphere") return Sphere(1.0);
  throw std::invalid_argument("unknown DCOL benchmark primitive '" + name +
                              "' (expected polytope, capsule, cylinder, cone, ellipsoid, padded_polygon or sphere)");
}

const char* const* benchmark_primitive_names() {
  static const char* const names[kNumPrimitiveTypes] = {"polytope",  "capsule",        "cylinder", "cone",
                                                        "ellipsoid", "padded_polygon", "sphere"};
  return names;
}

Primitive make_primitive(const std::string& type, const std::map<std::string, double>& params) {
  auto take = [&](std::initializer_list<const char*> keys) {
    for (const auto& [k, v] : params) {
      bool known = false;
      for (const char* key : keys) known = known || k == key;
      if (!known) throw std::invalid_argument("make_primitive: unknown parameter '" + k + "' for " + type);
    }
    std::array<double, 3> out{};
    int i = 0;
    for (const char* key : keys) {
      const auto it = params.find(key);
      if (it == params.end())
        throw std::invalid_argument("make_primitive: missing parameter '" + std::string(key) + "' for " + type);
      out[static_cast<size_t>(i++)] = it->second;
    }
    return out;
  };
  if (type == "polytope") {
    const auto p = take({"hx", "hy", "hz"});
    return Polytope::box(p[0], p[1], p[2]);
  }
  if (type == "capsule") {
    const auto p = take({"R", "L"});
    return Capsule(p[0], p[1]);
  }
  if (type == "cylinder") {
    const auto p = take({"R", "L"});
    return Cylinder(p[0], p[1]);
  }
  if (type == "cone") {
    const auto p = take({"H", "beta"});
    return Cone(p[0], p[1]);
  }
  if (type == "ellipsoid") {
    const auto p = take({"a", "b", "c"});
    return Ellipsoid::from_semi_axes(p[0], p[1], p[2]);
  }
  if (type == "padded_polygon") {
    const auto p = take({"hx", "hy", "R"});
    return PaddedPolygon::rectangle(p[0], p[1], p[2]);
  }
  if (type == "sphere") {
    const auto p = take({"R"});
    return Sphere(p[0]);
  }
  throw std::invalid_argument("make_primitive: unknown primitive type '" + type +
                              "' (expected polytope, capsule, cylinder, cone, ellipsoid, padded_polygon or sphere)");
}

}  // namespace diffcol::dcol
