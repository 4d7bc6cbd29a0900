// Procedural 18-superquadric limbed figures (Contax scale experiments, seed Sec. V-3).
#include "diffcol/manifold/figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <iterator>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

#include <Eigen/Geometry>

#include "diffcol/manifold/surface_mesh.hpp"

#include "fail.hpp"

namespace diffcol::manifold {

namespace {

using detail::fail;

constexpr const char* kPieceNames[kFigurePieces] = {
    "pelvis",         "abdomen",       "chest",          "neck",           "head",           "tail",
    "left_upper_arm", "left_forearm",  "left_hand",      "right_upper_arm", "right_forearm", "right_hand",
    "left_thigh",     "left_shin",     "left_foot",      "right_thigh",    "right_shin",     "right_foot"};

/// Uniform draws from a standard-specified engine (mt19937_64), mapped by hand so the figure
/// does not depend on the library's distribution implementation.
class Draw {
 public:
  explicit Draw(std::uint64_t seed) : rng_(seed) {}
  double uniform(double lo, double hi) {
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;  // [0, 1)
    return lo + (hi - lo) * u;
  }
  /// 1 + spread·u, u ∈ [−1, 1).
  double jitter(double spread) { return 1.0 + spread * uniform(-1.0, 1.0); }

 private:
  std::mt19937_64 rng_;
};

/// A rotation taking e_z to the unit vector d.
Eigen::Matrix3d rotation_z_to(const Eigen::Vector3d& d) { return rotation_between(Eigen::Vector3d::UnitZ(), d); }

Superquadric blob(const Eigen::Vector3d& semi_axes, double eps1, double eps2, const Eigen::Vector3d& center,
                  const Eigen::Matrix3d& R = Eigen::Matrix3d::Identity()) {
  return Superquadric(semi_axes, eps1, eps2, Pose{R, center});
}

/// A limb segment from `joint` along unit direction d, length L, radius r; semi-axis along d
/// is L/2 + r/2 so neighbouring segments overlap at the joint. Returns the far joint.
Eigen::Vector3d segment(std::vector<Superquadric>& out, const Eigen::Vector3d& joint, const Eigen::Vector3d& d,
                        double L, double r, double eps1) {
  out.push_back(blob(Eigen::Vector3d(r, r, 0.5 * L + 0.5 * r), eps1, 1.0, joint + 0.5 * L * d, rotation_z_to(d)));
  return joint + L * d;
}

/// The 18 pieces in kPieceNames order, for a figure about 1 tall (scaled afterwards).
std::vector<Superquadric> figure_pieces(std::uint64_t seed) {
  Draw g(seed);
  std::vector<Superquadric> p;
  p.reserve(kFigurePieces);
  // Trunk, head and tail.
  p.push_back(blob(Eigen::Vector3d(0.14 * g.jitter(0.1), 0.09 * g.jitter(0.1), 0.075), g.uniform(0.5, 1.0),
                   g.uniform(0.5, 1.0), {0.0, 0.0, 0.52}));
  p.push_back(blob(Eigen::Vector3d(0.12 * g.jitter(0.1), 0.085 * g.jitter(0.1), 0.08), g.uniform(0.6, 1.0),
                   g.uniform(0.6, 1.0), {0.0, 0.005, 0.64}));
  p.push_back(blob(Eigen::Vector3d(0.17 * g.jitter(0.1), 0.10 * g.jitter(0.1), 0.10), g.uniform(0.5, 1.0),
                   g.uniform(0.5, 1.0), {0.0, 0.0, 0.78}));
  p.push_back(blob(Eigen::Vector3d(0.065, 0.065, 0.06), 1.0, 1.0, {0.0, 0.01, 0.90}));
  const double nod = g.uniform(-0.3, 0.3);
  p.push_back(blob(Eigen::Vector3d(0.075, 0.09, 0.08) * g.jitter(0.1), g.uniform(0.7, 1.0), g.uniform(0.7, 1.0),
                   {0.0, 0.03, 0.99}, Eigen::AngleAxisd(nod, Eigen::Vector3d::UnitX()).toRotationMatrix()));
  const Eigen::Vector3d tail_dir = Eigen::Vector3d(g.uniform(-0.3, 0.3), -1.0, g.uniform(-0.8, 0.2)).normalized();
  segment(p, {0.0, -0.06, 0.50}, tail_dir, 0.30 * g.jitter(0.1), 0.06 * g.jitter(0.1), g.uniform(0.6, 1.0));
  // Arms: upper arm, forearm, hand.
  for (int side = 0; side < 2; ++side) {
    const double s = side == 0 ? 1.0 : -1.0;
    const Eigen::Vector3d shoulder(s * 0.21, 0.0, 0.84);
    const Eigen::Vector3d d1 = Eigen::Vector3d(s * g.uniform(0.2, 0.8), g.uniform(-0.5, 0.5), -1.0).normalized();
    const Eigen::Vector3d elbow = segment(p, shoulder, d1, 0.23 * g.jitter(0.1), 0.065 * g.jitter(0.1), g.uniform(0.6, 1.0));
    const Eigen::Vector3d d2 = Eigen::Vector3d(s * g.uniform(0.0, 0.6), g.uniform(-0.2, 0.9), -1.0).normalized();
    const Eigen::Vector3d wrist = segment(p, elbow, d2, 0.21 * g.jitter(0.1), 0.06 * g.jitter(0.1), g.uniform(0.6, 1.0));
    p.push_back(blob(Eigen::Vector3d(0.045, 0.06, 0.065), g.uniform(0.3, 0.6), g.uniform(0.3, 0.6),
                     wrist + 0.05 * d2, rotation_z_to(d2)));
  }
  // Legs: thigh, shin, foot.
  for (int side = 0; side < 2; ++side) {
    const double s = side == 0 ? 1.0 : -1.0;
    const Eigen::Vector3d hip(s * 0.09, 0.0, 0.50);
    const Eigen::Vector3d d1 = Eigen::Vector3d(s * g.uniform(0.05, 0.25), g.uniform(-0.3, 0.3), -1.0).normalized();
    const Eigen::Vector3d knee = segment(p, hip, d1, 0.23 * g.jitter(0.1), 0.08 * g.jitter(0.1), g.uniform(0.6, 1.0));
    const Eigen::Vector3d d2 = Eigen::Vector3d(s * g.uniform(0.0, 0.15), g.uniform(-0.4, 0.1), -1.0).normalized();
    const Eigen::Vector3d ankle = segment(p, knee, d2, 0.22 * g.jitter(0.1), 0.07 * g.jitter(0.1), g.uniform(0.6, 1.0));
    p.push_back(blob(Eigen::Vector3d(0.065, 0.11, 0.045) * g.jitter(0.1), g.uniform(0.3, 0.6), g.uniform(0.3, 0.6),
                     ankle + Eigen::Vector3d(0.0, 0.05, -0.02)));
  }
  return p;
}

Superquadric scaled(const Superquadric& q, double k) {
  Pose X = q.pose();
  X.p *= k;
  return Superquadric(k * q.semi_axes(), q.eps1(), q.eps2(), X);
}

/// sign(c)·|c|^e.
double signed_power(double c, double e) { return std::copysign(std::pow(std::abs(c), e), c); }


/// x ← x − φ∇φ/‖∇φ‖², `steps` times (supplementary II-C projection onto φ = 0).
Eigen::Vector3d project_to_surface(const SdfObject& sdf, Eigen::Vector3d x, int steps) {
  for (int i = 0; i < steps; ++i) {
    const SdfPoint<double> s = sdf.evaluate(V3<double>::from(x));
    const Eigen::Vector3d g = values(s.gradient);
    const double g2 = g.squaredNorm();
    if (!(g2 > 1e-24)) break;
    x -= (s.value / g2) * g;
  }
  return x;
}

/// Shortest-edge-collapse decimation of a closed mesh down to `target` vertices (our stand-in for
/// the seed's retopology step): each collapse moves the merged vertex to the edge midpoint
/// projected onto φ = 0, and is refused when it would break the 2-manifold (link condition),
/// leave a vertex of degree < 3, or flip / degenerate a triangle.
mesh::TriangleMesh decimate(const mesh::TriangleMesh& in, const SdfObject& sdf, int target, int steps) {
  std::vector<Vec3> V = in.vertices();
  std::vector<mesh::Face> F = in.faces();
  std::vector<char> face_alive(F.size(), 1), vert_alive(V.size(), 1);
  std::vector<std::vector<int>> vf(V.size());
  for (int f = 0; f < static_cast<int>(F.size()); ++f)
    for (int c : F[f]) vf[c].push_back(f);
  int alive = static_cast<int>(V.size());
  auto faces_of = [&](int v) {
    std::vector<int> out;
    for (int f : vf[v])
      if (face_alive[f]) out.push_back(f);
    return out;
  };
  auto neighbours = [&](int v) {
    std::vector<int> out;
    for (int f : faces_of(v))
      for (int c : F[f])
        if (c != v) out.push_back(c);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  auto normal = [&](const mesh::Face& t, int u, const Vec3& pu) {
    const Vec3 a = t[0] == u ? pu : V[t[0]], b = t[1] == u ? pu : V[t[1]], c = t[2] == u ? pu : V[t[2]];
    return Vec3((b - a).cross(c - a));
  };
  auto try_collapse = [&](int u, int v) {
    const std::vector<int> nu = neighbours(u), nv = neighbours(v);
    std::vector<int> common;
    std::set_intersection(nu.begin(), nu.end(), nv.begin(), nv.end(), std::back_inserter(common));
    if (common.size() != 2) return false;  // link condition
    for (int c : common)
      if (neighbours(c).size() <= 3) return false;
    if (nu.size() + nv.size() - 4 < 3) return false;
    const Vec3 p = project_to_surface(sdf, 0.5 * (V[u] + V[v]), steps);
    for (int w : {u, v})
      for (int f : faces_of(w)) {
        const mesh::Face& t = F[f];
        const bool shared = (t[0] == u || t[1] == u || t[2] == u) && (t[0] == v || t[1] == v || t[2] == v);
        if (shared) continue;
        const Vec3 before = normal(t, -1, p), after = normal(t, w, p);
        if (!(after.dot(before) > 0.3 * after.norm() * before.norm()) || after.norm() < 1e-6 * before.norm()) return false;
      }
    V[u] = p;
    for (int f : faces_of(v)) {
      mesh::Face& t = F[f];
      if (t[0] == u || t[1] == u || t[2] == u) {
        face_alive[f] = 0;
        continue;
      }
      for (int& c : t)
        if (c == v) c = u;
      vf[u].push_back(f);
    }
    vert_alive[v] = 0;
    --alive;
    return true;
  };
  while (alive > target) {
    std::vector<std::pair<double, std::array<int, 2>>> edges;
    for (int f = 0; f < static_cast<int>(F.size()); ++f) {
      if (!face_alive[f]) continue;
      for (int i = 0; i < 3; ++i) {
        const int a = F[f][i], b = F[f][(i + 1) % 3];
        if (a < b) edges.push_back({(V[a] - V[b]).squaredNorm(), {a, b}});
      }
    }
    std::sort(edges.begin(), edges.end());
    std::vector<char> touched(V.size(), 0);
    int collapsed = 0;
    for (const auto& e : edges) {
      if (alive <= target) break;
      const int a = e.second[0], b = e.second[1];
      if (touched[a] || touched[b] || !vert_alive[a] || !vert_alive[b]) continue;
      if (!try_collapse(a, b)) continue;
      touched[a] = touched[b] = 1;
      for (int c : neighbours(a)) touched[c] = 1;
      ++collapsed;
    }
    if (collapsed == 0) break;
  }
  // Compact.
  std::vector<int> index(V.size(), -1);
  std::vector<Vec3> out_v;
  for (int i = 0; i < static_cast<int>(V.size()); ++i)
    if (vert_alive[i]) {
      index[i] = static_cast<int>(out_v.size());
      out_v.push_back(V[i]);
    }
  std::vector<mesh::Face> out_f;
  for (int f = 0; f < static_cast<int>(F.size()); ++f)
    if (face_alive[f]) out_f.push_back({index[F[f][0]], index[F[f][1]], index[F[f][2]]});
  return mesh::TriangleMesh(std::move(out_v), std::move(out_f));
}

}  // namespace

void FigureOptions::validate() const {
  const char* fn = "FigureOptions";
  if (!std::isfinite(height) || !(height > 0.0)) fail(fn, "height must be positive and finite");
  if (!std::isfinite(blend_fraction) || blend_fraction < 0.0 || blend_fraction >= 0.1)
    fail(fn, "blend_fraction must be in [0, 0.1)");
  if (target_vertices < 100 || target_vertices > 20000) fail(fn, "target_vertices must be in [100, 20000]");
  if (projection_steps < 0 || projection_steps > 100) fail(fn, "projection_steps must be in [0, 100]");
  if (piece_rings < 1 || piece_rings > 16) fail(fn, "piece_rings must be in [1, 16]");
  if (piece_segments < 3 || piece_segments > 32) fail(fn, "piece_segments must be in [3, 32]");
  if (num_pieces < 1 || num_pieces > kFigurePieces) fail(fn, "num_pieces must be in [1, 18]");
}

const char* figure_piece_name(int i) {
  if (i < 0 || i >= kFigurePieces) throw std::invalid_argument("diffcol::manifold::figure_piece_name: index out of range");
  return kPieceNames[i];
}

mesh::TriangleMesh superquadric_surface_mesh(const Superquadric& sq, int rings, int segments) {
  if (rings < 1 || rings > 16) fail("superquadric_surface_mesh", "rings must be in [1, 16]");
  if (segments < 3 || segments > 32) fail("superquadric_surface_mesh", "segments must be in [3, 32]");
  const Eigen::Vector3d& a = sq.semi_axes();
  const double e1 = sq.eps1(), e2 = sq.eps2();
  const Pose& X = sq.pose();
  // Parametric surface (η latitude, ω longitude): f = 1 exactly (eq. (2)).
  auto point = [&](double eta, double omega) {
    const double ce = signed_power(std::cos(eta), e1);
    const Eigen::Vector3d local(a.x() * ce * signed_power(std::cos(omega), e2),
                                a.y() * ce * signed_power(std::sin(omega), e2), a.z() * signed_power(std::sin(eta), e1));
    return Eigen::Vector3d(X.R * local + X.p);
  };
  const double pi = 3.14159265358979323846;
  std::vector<Vec3> v;
  v.reserve(static_cast<std::size_t>(rings * segments + 2));
  v.push_back(point(-0.5 * pi, 0.0));  // south pole
  for (int i = 0; i < rings; ++i) {
    const double eta = -0.5 * pi + pi * (i + 1) / (rings + 1);
    for (int j = 0; j < segments; ++j) v.push_back(point(eta, 2.0 * pi * (j + 0.5 * (i % 2)) / segments));
  }
  v.push_back(point(0.5 * pi, 0.0));  // north pole
  const int south = 0, north = rings * segments + 1;
  auto ring = [&](int i, int j) { return 1 + i * segments + (j % segments); };
  std::vector<mesh::Face> f;
  for (int j = 0; j < segments; ++j) f.push_back({south, ring(0, j + 1), ring(0, j)});
  for (int i = 0; i + 1 < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      f.push_back({ring(i, j), ring(i, j + 1), ring(i + 1, j)});
      f.push_back({ring(i, j + 1), ring(i + 1, j + 1), ring(i + 1, j)});
    }
  for (int j = 0; j < segments; ++j) f.push_back({north, ring(rings - 1, j), ring(rings - 1, j + 1)});
  // Orient outward: flip every face if the signed volume is negative.
  double vol = 0.0;
  for (const mesh::Face& t : f) vol += v[t[0]].dot(v[t[1]].cross(v[t[2]]));
  if (vol < 0.0)
    for (mesh::Face& t : f) std::swap(t[1], t[2]);
  return mesh::TriangleMesh(std::move(v), std::move(f));
}

LimbedFigure make_limbed_figure(const FigureOptions& options) {
  options.validate();
  const double k = options.height;
  std::vector<Superquadric> pieces;
  for (const Superquadric& q : figure_pieces(options.seed))
    if (static_cast<int>(pieces.size()) < options.num_pieces) pieces.push_back(scaled(q, k));
  SdfObject sdf(options.blend_fraction * k);
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
  Eigen::Vector3d hi = -lo;
  for (const Superquadric& q : pieces) {
    sdf.add(q);
    const double r = q.semi_axes().maxCoeff();  // bounding sphere of the piece
    lo = lo.cwiseMin(q.pose().p - Eigen::Vector3d::Constant(r));
    hi = hi.cwiseMax(q.pose().p + Eigen::Vector3d::Constant(r));
  }
  lo.array() -= options.blend_fraction * k * 4.0;  // the blend grows the union by ≤ t·log(18)
  hi.array() += options.blend_fraction * k * 4.0;

  // A mesh at cell size h, or none if the extraction fails or loses a piece.
  auto try_mesh = [&](double h) -> std::optional<mesh::TriangleMesh> {
    IsoSurfaceOptions iso;
    iso.lower = lo - Eigen::Vector3d::Constant(2.0 * h);
    iso.upper = hi + Eigen::Vector3d::Constant(2.0 * h);
    iso.cell_size = h;
    iso.projection_steps = options.projection_steps;
    try {
      mesh::TriangleMesh m = mesh_from_sdf(sdf, iso);
      for (const Superquadric& q : pieces)
        if (!mesh::contains(m, q.pose().p)) return std::nullopt;
      return m;
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
  };
  // Vertex counts scale like 1/h²: one probe predicts the cell size of kOversample·target
  // vertices; from there down, the first (coarsest) grid whose mesh keeps every piece.
  constexpr double kOversample = 8.0;
  const double target = options.target_vertices;
  double h_guess = 0.05 * k;
  for (int probe = 0; probe < 4; ++probe) {
    const std::optional<mesh::TriangleMesh> m = try_mesh(h_guess);
    if (!m) {
      h_guess *= 0.7;
      continue;
    }
    h_guess *= std::sqrt(m->num_vertices() / (kOversample * target));
    break;
  }
  std::optional<mesh::TriangleMesh> fine;
  double fine_h = 0.0;
  for (int i = 0; i < 24 && !fine; ++i) {
    fine_h = h_guess * std::pow(0.95, i);
    fine = try_mesh(fine_h);
  }
  if (!fine) fail("make_limbed_figure", "no iso-surface cell size gave a valid mesh containing every piece");
  // Down to the target by edge collapses (vertices stay on φ = 0).
  std::optional<mesh::TriangleMesh> best;
  try {
    best = decimate(*fine, sdf, options.target_vertices, std::max(options.projection_steps, 1));
    for (const Superquadric& q : pieces)
      if (!mesh::contains(*best, q.pose().p)) {
        best.reset();
        break;
      }
  } catch (const std::invalid_argument&) {
    best.reset();
  }
  if (!best) fail("make_limbed_figure", "the decimated mesh lost a piece or failed validation");
  const double best_h = fine_h;
  std::vector<mesh::TriangleMesh> convex;
  convex.reserve(pieces.size());
  for (const Superquadric& q : pieces)
    convex.push_back(superquadric_surface_mesh(q, options.piece_rings, options.piece_segments));
  return LimbedFigure{std::move(pieces), std::move(sdf), std::move(*best), std::move(convex), best_h};
}

}  // namespace diffcol::manifold
