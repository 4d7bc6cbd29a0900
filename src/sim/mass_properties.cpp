// Mass properties of shapes of uniform density (sim/rigid_body.hpp): closed forms where they exist,
// radial quadrature otherwise.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "diffcol/sim/rigid_body.hpp"

namespace diffcol::sim {

namespace {

constexpr double kPi = std::numbers::pi;
using qp::Vec2;

// Inertia about the centre of mass from the second moment Σ = ∫ρ (x−c)(x−c)ᵀ: I = tr(Σ)·1 − Σ.
Mat3 inertia_from_second_moment(const Mat3& S) { return S.trace() * Mat3::Identity() - S; }

MassProperties diagonal(double mass, double Ixx, double Iyy, double Izz) {
  MassProperties m;
  m.mass = mass;
  m.inertia = Vec3(Ixx, Iyy, Izz).asDiagonal();
  return m;
}

// Solid ball of radius R about its centre.
MassProperties ball(double R, double density) {
  const double m = density * 4.0 / 3.0 * kPi * R * R * R;
  const double I = 0.4 * m * R * R;
  return diagonal(m, I, I, I);
}

// Solid ellipsoid {x : xᵀPx ≤ 1}: V = 4π/(3√det P), ∫x xᵀ = V/5 · P⁻¹.
MassProperties ellipsoid(const Mat3& P, double density) {
  const double volume = 4.0 / 3.0 * kPi / std::sqrt(P.determinant());
  const double m = density * volume;
  MassProperties out;
  out.mass = m;
  out.inertia = inertia_from_second_moment(m / 5.0 * P.inverse());
  return out;
}

// Solid cylinder of radius R and length L along x, centred.
MassProperties cylinder_x(double R, double L, double density) {
  const double m = density * kPi * R * R * L;
  const double It = m * (3.0 * R * R + L * L) / 12.0;
  return diagonal(m, 0.5 * m * R * R, It, It);
}

// Capsule: the points within R of the segment from −L/2·e_x to L/2·e_x. The two hemispheres
// (together a ball of mass m_s) have their centroids 3R/8 beyond the segment's ends; about its own
// centroid a hemisphere has transverse inertia 83/320·m_h·R².
MassProperties capsule_x(double R, double L, double density) {
  const MassProperties c = cylinder_x(R, L, density);
  const double ms = density * 4.0 / 3.0 * kPi * R * R * R;
  const double d = 0.5 * L + 3.0 * R / 8.0;
  const double It = c.inertia(1, 1) + ms * (83.0 / 320.0 * R * R + d * d);
  return diagonal(c.mass + ms, c.inertia(0, 0) + 0.4 * ms * R * R, It, It);
}

// DCOL cone: height H along x, apex at −3H/4, base of radius r = H·tan β at +H/4 (the centroid at
// the origin). Axial 3/10·m·r², transverse m·(3/20·r² + 3/80·H²) about the centroid.
MassProperties cone_x(double H, double tan_beta, double density) {
  const double r = H * tan_beta;
  const double m = density * kPi * r * r * H / 3.0;
  const double It = m * (3.0 / 20.0 * r * r + 3.0 / 80.0 * H * H);
  return diagonal(m, 0.3 * m * r * r, It, It);
}

// Polytope: the fan of tetrahedra (origin, v0, v_j, v_j+1) over every face (the origin lies
// inside). Per tetrahedron with edge vectors a, b, c from the origin: volume det/6, first moment
// V·(a+b+c)/4, second moment V/20·(Σ_i v_i v_iᵀ + (Σ v_i)(Σ v_i)ᵀ) (the origin a vertex).
MassProperties polytope(const dcol::Polytope& P, double density) {
  double volume = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();
  for (int k = 0; k < P.num_faces; ++k) {
    const int begin = P.face_begin(k), end = P.face_begin(k + 1);
    if (end - begin < 3) continue;
    const Vec3 a = P.vertex(P.face_vertex(begin));
    for (int j = begin + 1; j + 1 < end; ++j) {
      const Vec3 b = P.vertex(P.face_vertex(j)), c = P.vertex(P.face_vertex(j + 1));
      const double v = a.dot(b.cross(c)) / 6.0;
      const Vec3 s = a + b + c;
      volume += v;
      first += v * s / 4.0;
      second += v / 20.0 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
    }
  }
  if (!(volume > 0.0)) throw std::invalid_argument("mass_properties: the polytope has no volume");
  MassProperties out;
  out.mass = density * volume;
  out.com = first / volume;
  out.inertia = inertia_from_second_moment(density * (second - volume * out.com * out.com.transpose()));
  return out;
}

// Gauss–Legendre nodes and weights on [−1, 1] (Newton on P_n from the Chebyshev guesses).
void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w) {
  x.assign(static_cast<std::size_t>(n), 0.0);
  w.assign(static_cast<std::size_t>(n), 0.0);
  for (int i = 0; i < (n + 1) / 2; ++i) {
    double z = std::cos(kPi * (i + 0.75) / (n + 0.5)), dp = 0.0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1.0, p1 = 0.0;
      for (int k = 1; k <= n; ++k) {
        const double p2 = p1;
        p1 = p0;
        p0 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p2) / k;
      }
      dp = n * (z * p0 - p1) / (z * z - 1.0);
      const double dz = p0 / dp;
      z -= dz;
      if (std::abs(dz) < 1e-16) break;
    }
    x[static_cast<std::size_t>(i)] = -z;
    x[static_cast<std::size_t>(n - 1 - i)] = z;
    w[static_cast<std::size_t>(i)] = w[static_cast<std::size_t>(n - 1 - i)] = 2.0 / ((1.0 - z * z) * dp * dp);
  }
}

// The radial quadrature of a star-shaped solid about the origin: ∫ over directions u of
// ρ(u)³/3, ρ⁴/4·u, ρ⁵/5·u uᵀ, with ρ(u) the boundary radius along u from `boundary`.
template <class Boundary>
MassProperties radial_quadrature(const Boundary& boundary, double density, const MassIntegrationOptions& opt) {
  if (opt.polar_points < 8 || opt.polar_points > 1024 || opt.azimuth_points < 8 || opt.azimuth_points > 4096)
    throw std::invalid_argument("mass_properties: polar_points must lie in [8, 1024] and azimuth_points in [8, 4096] (got " +
                                std::to_string(opt.polar_points) + ", " + std::to_string(opt.azimuth_points) + ")");
  std::vector<double> mu, wmu;
  gauss_legendre(opt.polar_points, mu, wmu);
  const double dphi = 2.0 * kPi / opt.azimuth_points;
  double volume = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();
  for (int i = 0; i < opt.polar_points; ++i) {
    const double c = mu[static_cast<std::size_t>(i)], s = std::sqrt(std::max(0.0, 1.0 - c * c));
    for (int j = 0; j < opt.azimuth_points; ++j) {
      const double phi = (j + 0.5) * dphi;
      const Vec3 u(s * std::cos(phi), s * std::sin(phi), c);
      const double r = boundary(u), w = wmu[static_cast<std::size_t>(i)] * dphi;
      const double r3 = r * r * r;
      volume += w * r3 / 3.0;
      first += (w * r3 * r / 4.0) * u;
      second += (w * r3 * r * r / 5.0) * (u * u.transpose());
    }
  }
  MassProperties out;
  out.mass = density * volume;
  out.com = first / volume;
  out.inertia = inertia_from_second_moment(density * (second - volume * out.com * out.com.transpose()));
  return out;
}

// Boundary radius along u of the solid {x : inside(x)} (convex, the origin inside, within
// `outer` of it): bisection to rounding.
template <class Inside>
double bisect_boundary(const Inside& inside, const Vec3& u, double outer) {
  double lo = 0.0, hi = outer;
  while (inside(hi * u)) {
    lo = hi;
    hi *= 2.0;
  }
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (inside(mid * u) ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Boundary radius along u of an iDCOL shape: safeguarded Newton on f(r) = φ(r·u) (convex in r,
// f(0) < 0), bisection when a Newton step leaves the bracket.
double shape_boundary(const Shape& shape, const Vec3& u, double outer) {
  double lo = 0.0, hi = outer;
  while (shape.value(hi * u) < 0.0) {
    lo = hi;
    hi *= 2.0;
  }
  double r = 0.5 * (lo + hi);
  Vec3 g;
  Mat3 H;
  for (int it = 0; it < 200; ++it) {
    const double f = shape.eval(r * u, g, H);
    if (f < 0.0) lo = r;
    else hi = r;
    const double df = g.dot(u);
    double next = df > 0.0 ? r - f / df : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::abs(next - r) <= 1e-15 * r || hi - lo <= 1e-15 * hi) return next;
    r = next;
  }
  return r;
}

// Distance from y to the convex polygon with counter-clockwise vertices V (0 inside).
template <class Vertices>
double polygon_distance(const Vertices& V, int n, const Vec2& y) {
  bool inside = true;
  double best = 1e300;
  for (int i = 0; i < n; ++i) {
    const Vec2 a = V(i), b = V((i + 1) % n), e = b - a, d = y - a;
    if (e.x() * d.y() - e.y() * d.x() < 0.0) inside = false;
    const double t = std::clamp(d.dot(e) / e.squaredNorm(), 0.0, 1.0);
    best = std::min(best, (d - t * e).norm());
  }
  return inside ? 0.0 : best;
}

// A convex polygon (x–y plane) swept by a ball of radius R.
template <class Vertices>
MassProperties padded_polygon(const Vertices& V, int n, double R, double outer, double density,
                              const MassIntegrationOptions& opt) {
  const auto inside = [&](const Vec3& x) {
    const double d = polygon_distance(V, n, Vec2(x.x(), x.y()));
    return d * d + x.z() * x.z() <= R * R;
  };
  return radial_quadrature([&](const Vec3& u) { return bisect_boundary(inside, u, outer); }, density, opt);
}

MassProperties primitive_properties(const dcol::Primitive& p, double density, const MassIntegrationOptions& opt) {
  struct Visitor {
    double rho;
    const MassIntegrationOptions& opt;
    MassProperties operator()(const dcol::Polytope& s) const { return polytope(s, rho); }
    MassProperties operator()(const dcol::Capsule& s) const { return capsule_x(s.R, s.L, rho); }
    MassProperties operator()(const dcol::Cylinder& s) const { return cylinder_x(s.R, s.L, rho); }
    MassProperties operator()(const dcol::Cone& s) const { return cone_x(s.H, s.tan_beta, rho); }
    MassProperties operator()(const dcol::Ellipsoid& s) const { return ellipsoid(s.P, rho); }
    MassProperties operator()(const dcol::Sphere& s) const { return ball(s.R, rho); }
    MassProperties operator()(const dcol::PaddedPolygon& s) const {
      const auto V = [&](int i) { return Vec2(s.V(i, 0), s.V(i, 1)); };
      return padded_polygon(V, s.num_vertices, s.R, s.outer_radius, rho, opt);
    }
  };
  return transform(std::visit(Visitor{density, opt}, p), dcol::primitive_offset(p));
}

MassProperties qp_capsule(const qp::Capsule& c, double density) {
  const Vec3 axis = c.a_B() - c.b_B();
  const double L = axis.norm();
  MassProperties out = capsule_x(c.radius(), L, density);
  Pose X;  // x axis along the segment, origin at its midpoint
  X.p = 0.5 * (c.a_B() + c.b_B());
  if (L > 0.0) X.R = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitX(), axis / L).toRotationMatrix();
  return transform(out, X);
}

}  // namespace

MassProperties radial_mass_properties(const Shape& shape, double density, const MassIntegrationOptions& options) {
  if (!(density > 0.0) || !std::isfinite(density))
    throw std::invalid_argument("mass_properties: the density must be positive and finite (got " + std::to_string(density) + ")");
  const double outer = shape.outer_radius();
  return radial_quadrature([&](const Vec3& u) { return shape_boundary(shape, u, outer); }, density, options);
}

MassProperties mass_properties(const scene::CollisionShape& shape, double density, const MassIntegrationOptions& options) {
  if (!(density > 0.0) || !std::isfinite(density))
    throw std::invalid_argument("mass_properties: the density must be positive and finite (got " + std::to_string(density) + ")");
  struct Visitor {
    double rho;
    const MassIntegrationOptions& opt;
    MassProperties operator()(const Shape& s) const {
      if (s.type() == ShapeType::sphere) return ball(s.as<diffcol::Sphere>().radius(), rho);
      if (s.type() == ShapeType::superellipsoid && s.as<Superellipsoid>().exponent() == 1) {
        const Vec3 a = s.as<Superellipsoid>().semi_axes();
        return ellipsoid(a.cwiseInverse().cwiseAbs2().asDiagonal(), rho);
      }
      return radial_mass_properties(s, rho, opt);
    }
    MassProperties operator()(const dcol::Primitive& p) const { return primitive_properties(p, rho, opt); }
    MassProperties operator()(const qp::Capsule& c) const { return qp_capsule(c, rho); }
    MassProperties operator()(const qp::PaddedPolygon& p) const {
      const auto& V = p.vertices();
      double outer = 0.0;
      for (const Vec2& v : V) outer = std::max(outer, v.norm());
      return padded_polygon([&](int i) { return V[static_cast<std::size_t>(i)]; }, static_cast<int>(V.size()),
                            p.radius(), outer + p.radius(), rho, opt);
    }
  };
  // in the frame the shape was given in: a DCOL primitive's offset, folded out of the primitive
  // by CollisionShape, is applied here
  return transform(std::visit(Visitor{density, options}, shape.variant()), shape.folded_offset());
}

MassProperties transform(const MassProperties& props, const Pose& X_BS) {
  MassProperties out;
  out.mass = props.mass;
  out.com = X_BS * props.com;
  out.inertia = X_BS.R * props.inertia * X_BS.R.transpose();
  return out;
}

MassProperties combine(const std::vector<MassProperties>& parts) {
  MassProperties out;
  for (const MassProperties& p : parts) {
    out.mass += p.mass;
    out.com += p.mass * p.com;
  }
  if (!(out.mass > 0.0) || !std::isfinite(out.mass))
    throw std::invalid_argument("combine: the total mass must be positive and finite (got " + std::to_string(out.mass) + ")");
  out.com /= out.mass;
  for (const MassProperties& p : parts) {
    const Vec3 d = p.com - out.com;
    out.inertia += p.inertia + p.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  return out;
}

double kinetic_energy(double mass, const Mat3& inertia_B, const BodyState& state) {
  return 0.5 * mass * state.v_W.squaredNorm() + 0.5 * state.omega_B.dot(inertia_B * state.omega_B);
}

}  // namespace diffcol::sim
