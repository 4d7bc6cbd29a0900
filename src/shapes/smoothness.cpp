// Smoothness parameters from a distance tolerance (shapes/smoothness.hpp).
#include "diffcol/shapes/smoothness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>

namespace diffcol {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Euclidean distance from v to the convex body K = {φ ≤ 0}, for φ(0) < 0 < φ(v). Dual of
// min ½‖x − v‖² s.t. φ(x) ≤ 0: x(λ) = argmin ½‖x − v‖² + λφ(x) (strictly convex: damped Newton)
// and the λ* > 0 with g(λ) = φ(x(λ)) = 0 (g decreases; safeguarded Newton on λ with
// g'(λ) = −∇φᵀ(I + λ∇²φ)⁻¹∇φ). `scale` is the size of the problem (|v|); `foot` receives the
// nearest point.
template <class Phi>
double distance_to_body(const Phi& phi, const Vec3& v, double scale, Vec3* foot = nullptr) {
  Vec3 g;
  Mat3 H;
  // start: the boundary point on the segment from the origin to v. φ is convex along the ray and
  // changes sign, so Newton from v (outside) decreases t monotonically to the root; bisection
  // where it does not (rounding)
  double t_in = 0.0, t_out = 1.0, t = 1.0;
  for (int k = 0; k < 200; ++k) {
    const double val = phi(t * v, g, H);
    (val <= 0.0 ? t_in : t_out) = t;
    const double slope = g.dot(v);
    if (std::abs(val) <= 1e-15 * std::abs(slope) || t_out - t_in <= 1e-15) break;
    const double next = t - val / slope;
    t = (slope > 0.0 && next > t_in && next < t_out) ? next : 0.5 * (t_in + t_out);
  }
  Vec3 x = t * v;
  if (foot) *foot = x;
  phi(x, g, H);
  const double radial = (1.0 - t) * v.norm();  // about an upper bound of the distance
  double lam = radial / std::max(g.norm(), 1e-300);
  double lo = 0.0, hi = kInf;
  const double xtol = 1e-14 * scale;
  double best = radial;
  for (int outer = 0; outer < 200; ++outer) {
    // inner: minimize f(x) = ½‖x − v‖² + λφ(x) from the previous x
    double fx = 0.5 * (x - v).squaredNorm() + lam * phi(x, g, H);
    Eigen::LDLT<Mat3> ldlt;
    for (int inner = 0; inner < 100; ++inner) {
      const Vec3 F = x - v + lam * g;
      ldlt.compute(Mat3::Identity() + lam * H);
      const Vec3 dx = -ldlt.solve(F);
      if (dx.norm() <= xtol) break;
      double step = 1.0;
      bool moved = false;
      for (int ls = 0; ls < 60; ++ls) {
        Vec3 gt;
        Mat3 Ht;
        const Vec3 xt = x + step * dx;
        const double ft = 0.5 * (xt - v).squaredNorm() + lam * phi(xt, gt, Ht);
        // Armijo on f, or (near the solution, where f's decrease drowns in rounding) a halving of ‖F‖
        if (std::isfinite(ft) && (ft <= fx + 1e-4 * step * F.dot(dx) || (xt - v + lam * gt).norm() <= 0.5 * F.norm())) {
          x = xt;
          fx = ft;
          g = gt;
          H = Ht;
          moved = true;
          break;
        }
        step *= 0.5;
      }
      if (!moved) break;  // at the rounding floor
    }
    const double val = phi(x, g, H);
    const double gn = g.norm();
    if (std::abs(val) <= 1e-14 * scale * gn || (hi < kInf && hi - lo <= 1e-15 * hi)) {
      best = (x - v).norm();
      if (foot) *foot = x;
      break;
    }
    if (val > 0.0) lo = lam;
    else hi = lam;
    best = (x - v).norm();
    if (foot) *foot = x;
    // Newton step on g(λ) = φ(x(λ)), kept inside the bracket
    ldlt.compute(Mat3::Identity() + lam * H);
    const double dg = -g.dot(ldlt.solve(g));
    double next = dg < 0.0 ? lam - val / dg : kInf;
    if (!(next > lo && next < hi)) next = hi < kInf ? 0.5 * (lo + hi) : 2.0 * std::max(lam, lo);
    lam = next;
  }
  return best;
}

std::string num(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

void require_tolerance(double tolerance, double inradius, const char* fn) {
  if (!std::isfinite(tolerance) || !(tolerance > 0.0))
    throw std::invalid_argument(std::string(fn) + ": tolerance must be finite and > 0 (got " + num(tolerance) + ")");
  if (!(tolerance < inradius))
    throw std::invalid_argument(std::string(fn) + ": tolerance " + num(tolerance) +
                                " is not below the exact shape's inradius about its origin, " + num(inradius) +
                                " (a smooth shape that far inside approximates nothing)");
}

// ---------------------------------------------------------------- smooth polytope

// Distance at sharpness β from vertex v of P's exact polytope to the smooth shape. Only the faces
// that can weigh near v enter: on the smooth surface max c ≥ −log(m)/β, and a face with
// c_i < max c − 40/β weighs < e⁻⁴⁰ in (A1); the surface near v lies within the inner polytope's
// extent along v (faces moved in by L·log(m)/β), and c_i changes by at most ‖a_i‖/L per unit
// length. The foot point is checked against the full sum (else the full sum is used).
double vertex_distance(const SmoothPolytope& P, const Vec3& v, double beta, double scale) {
  const SmoothPolytope::FaceData f = P.face_data();
  const double logm = std::log(static_cast<double>(f.m));
  double t_in = 1.0;
  for (int i = 0; i < f.m; ++i) {
    const double av = f.ax[i] * v.x() + f.ay[i] * v.y() + f.az[i] * v.z();
    if (av > 0.0) t_in = std::min(t_in, (f.b[i] - logm / beta) / av);
  }
  const double reach = 2.0 * (1.0 - std::max(t_in, 0.0)) * v.norm();
  std::vector<double> ax, ay, az, b;
  for (int i = 0; i < f.m; ++i) {
    const double c = f.ax[i] * v.x() + f.ay[i] * v.y() + f.az[i] * v.z() - f.b[i];
    const double grad = std::sqrt(f.ax[i] * f.ax[i] + f.ay[i] * f.ay[i] + f.az[i] * f.az[i]);
    if (c + grad * reach >= -(logm + 40.0) / beta) {
      ax.push_back(f.ax[i]);
      ay.push_back(f.ay[i]);
      az.push_back(f.az[i]);
      b.push_back(f.b[i]);
    }
  }
  const int k = static_cast<int>(b.size());
  const auto full = [&](const Vec3& y, Vec3& g, Mat3& H) { return P.eval_at_beta(y, g, H, beta); };
  if (k == f.m) return distance_to_body(full, v, scale);
  const auto local = [&](const Vec3& y, Vec3& g, Mat3& H) {
    return detail::smooth_planes_eval(ax.data(), ay.data(), az.data(), b.data(), k, y, g, H, beta);
  };
  Vec3 x;
  const double d = distance_to_body(local, v, scale, &x);
  Vec3 g1, g2;
  Mat3 H1, H2;
  const double p1 = local(x, g1, H1), p2 = full(x, g2, H2);
  if (std::abs(p2 - p1) <= 1e-14 * scale * g2.norm()) return d;
  return distance_to_body(full, v, scale);
}

// Distances at sharpness β from the vertices idx of P's exact polytope to the smooth shape;
// +inf when β is below beta_min (the origin not safely inside).
struct PolytopeProblem {
  const SmoothPolytope& P;
  double beta_min;
  double scale;

  double distance(int i, double beta) const {
    if (!(beta > beta_min)) return kInf;
    return vertex_distance(P, P.vertices()[static_cast<size_t>(i)], beta, scale);
  }
  double max_distance(const std::vector<int>& idx, double beta, std::vector<double>* out = nullptr) const {
    double m = 0.0;
    if (out) out->assign(P.vertices().size(), 0.0);
    for (int i : idx) {
      const double d = distance(i, beta);
      if (out) (*out)[static_cast<size_t>(i)] = d;
      m = std::max(m, d);
      if (!(m < kInf)) break;
    }
    return m;
  }
};

// The smallest β (to 1e-6 relative) with Hausdorff distance ≤ tolerance. The distance is a
// decreasing function of β (smax_β decreases in β: the smooth shapes grow with β) and ~ L·D/β for
// large β (D from the cone of faces at the worst vertex). The search runs on the vertices within
// 10% of the worst one; a check on all vertices at the end adds any that exceed.
double fit_beta(const SmoothPolytope& P, double tolerance, double& hausdorff) {
  const int m = P.num_faces();
  const double L = P.length();
  double bmin = kInf, amin = kInf;
  for (int i = 0; i < m; ++i) {
    const double an = P.normal(i).norm();
    bmin = std::min(bmin, P.offset(i));
    amin = std::min(amin, an);
  }
  const double logm = std::log(static_cast<double>(m));
  // SmoothPolytope's constructor needs b_i − L log(m)/β > 0 for every i
  const PolytopeProblem prob{P, L * logm / bmin * (1.0 + 1e-9), P.outer_radius()};
  std::vector<int> all(P.vertices().size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);

  // the face offsets L·log(m)/(β‖a_i‖) equal to the tolerance: a start above beta_min
  double beta = std::max(L * logm / (tolerance * amin), 2.0 * prob.beta_min);
  std::vector<double> d;
  double H = prob.max_distance(all, beta, &d);
  // bracket: H(lo) > tolerance ≥ H(hi); at beta_min the shape is not valid (H = inf)
  double lo = prob.beta_min, Hlo = kInf, hi = kInf, Hhi = 0.0;
  std::vector<int> cand;
  const auto take = [&](double s, double Hs) {
    if (Hs <= tolerance) {
      hi = s;
      Hhi = Hs;
      return true;
    }
    lo = std::max(lo, s);
    Hlo = Hs;
    return false;
  };
  for (int round = 0; round < 20; ++round) {
    cand.clear();
    for (int i : all)
      if (d[static_cast<size_t>(i)] >= 0.9 * H) cand.push_back(i);
    take(beta, H);
    // an upper end: the 1/β model's β for the tolerance, a little beyond, at least doubling
    for (int k = 0; k < 100 && !(hi < kInf); ++k) {
      beta = std::isfinite(H) ? std::max(1.01 * beta * H / tolerance, 1.1 * beta) : 2.0 * beta;
      if (!(beta < kMaxLength))
        throw std::invalid_argument("fit_smooth_polytope: no sharpness below 1e100 meets the tolerance");
      H = prob.max_distance(cand, beta);
      take(beta, H);
    }
    // regula falsi on log H − log tolerance over log β; a geometric bisection step when the
    // secant falls near an end or has moved the same end twice in a row
    int same = 0;
    bool last_hi = false;
    for (int k = 0; k < 200; ++k) {
      if (hi / lo - 1.0 <= 1e-6 || Hhi >= tolerance * (1.0 - 1e-6)) break;
      double s = std::sqrt(lo * hi);
      if (same < 2) {
        double guess;
        if (std::isfinite(Hlo)) {
          const double fl = std::log(Hlo / tolerance), fh = std::log(Hhi / tolerance);
          guess = std::exp((std::log(lo) * fh - std::log(hi) * fl) / (fh - fl));
        } else {
          guess = hi * Hhi / tolerance;  // the 1/β model from the upper end
        }
        const double w = std::log(hi / lo), gl = std::log(guess / lo);
        if (gl > 0.02 * w && gl < 0.98 * w) s = guess;
      }
      const bool now_hi = take(s, prob.max_distance(cand, s));
      same = (k > 0 && now_hi == last_hi) ? same + 1 : 0;
      last_hi = now_hi;
    }
    // every vertex at hi
    beta = hi;
    H = prob.max_distance(all, beta, &d);
    if (H <= tolerance) {
      hausdorff = H;
      return beta;
    }
    // another vertex is worse: search again with it among the candidates
    hi = kInf;
    Hhi = 0.0;
  }
  throw std::runtime_error("fit_smooth_polytope: the search for beta did not converge");
}

SmoothPolytope rebuild(const SmoothPolytope& P, double beta) {
  const int m = P.num_faces();
  Eigen::MatrixX3d A(m, 3);
  Eigen::VectorXd b(m);
  for (int i = 0; i < m; ++i) {
    A.row(i) = P.normal(i).transpose();
    b[i] = P.offset(i);
  }
  return SmoothPolytope(A, b, beta, P.length());
}

SmoothPolytopeFit fit_polytope(const SmoothPolytope& P, double tolerance, const char* fn) {
  double inradius = kInf;
  for (int i = 0; i < P.num_faces(); ++i) inradius = std::min(inradius, P.offset(i) / P.normal(i).norm());
  require_tolerance(tolerance, inradius, fn);
  if (!(tolerance >= kMinFitRelativeTolerance * P.outer_radius()))
    throw std::invalid_argument(std::string(fn) + ": tolerance " + num(tolerance) + " is below 1e-8 × the outer radius " +
                                num(P.outer_radius()) + " (kMinFitRelativeTolerance): double rounding in phi is that large");
  double hausdorff = 0.0;
  const double beta = fit_beta(P, tolerance, hausdorff);
  return SmoothPolytopeFit{beta, P.length(), hausdorff, rebuild(P, beta)};
}

// ---------------------------------------------------------------- superellipsoid, cylinder

template <class S>
double distance_from(const S& s, const Vec3& v) {
  const auto phi = [&](const Vec3& y, Vec3& g, Mat3& H) { return s.eval(y, g, H); };
  return distance_to_body(phi, v, v.norm());
}

// The smallest n in [1, 64] with make(n)'s distance ≤ tolerance (scanned upwards: the distance
// decreases with n).
template <class Fit, class Make, class Measure>
Fit fit_exponent(double tolerance, double inradius, const char* fn, const Make& make, const Measure& measure) {
  require_tolerance(tolerance, inradius, fn);
  double d = kInf;
  for (int n = 1; n <= 64; ++n) {
    auto s = make(n);
    d = measure(s);
    if (d <= tolerance) return Fit{n, d, s};
  }
  throw std::invalid_argument(std::string(fn) + ": tolerance " + num(tolerance) + " is below the distance " + num(d) +
                              " at n = 64, the largest exponent (a smooth polytope reaches smaller tolerances)");
}

}  // namespace

double smooth_polytope_hausdorff_distance(const SmoothPolytope& shape) {
  double m = 0.0;
  for (const Vec3& v : shape.vertices()) m = std::max(m, vertex_distance(shape, v, shape.beta(), shape.outer_radius()));
  return m;
}

double superellipsoid_box_hausdorff_distance(const Superellipsoid& shape) {
  return distance_from(shape, shape.semi_axes());
}

double superelliptic_cylinder_hausdorff_distance(const SuperellipticCylinder& shape) {
  return distance_from(shape, Vec3(shape.half_height(), shape.radius(), 0.0));
}

SmoothPolytopeFit fit_smooth_polytope(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b, double tolerance,
                                      double length) {
  // the exact polytope: any valid β reads its faces and vertices
  return fit_polytope(SmoothPolytope(A, b, kMaxLength, length), tolerance, "fit_smooth_polytope");
}

SmoothPolytopeFit fit_smooth_box(double hx, double hy, double hz, double tolerance, double length) {
  return fit_polytope(SmoothPolytope::box(hx, hy, hz, kMaxLength, length), tolerance, "fit_smooth_box");
}

SmoothPolytopeFit fit_smooth_convex_hull(const std::vector<Vec3>& points, double tolerance, double length) {
  return fit_polytope(SmoothPolytope::convex_hull(points, kMaxLength, length), tolerance, "fit_smooth_convex_hull");
}

SuperellipsoidFit fit_superellipsoid_to_box(double hx, double hy, double hz, double tolerance, double epsilon) {
  Superellipsoid(hx, hy, hz, 2, epsilon);  // validates the half-extents and ε (n = 1 ignores ε)
  return fit_exponent<SuperellipsoidFit>(
      tolerance, std::min({hx, hy, hz}), "fit_superellipsoid_to_box",
      [&](int n) { return Superellipsoid(hx, hy, hz, n, epsilon); },
      [](const Superellipsoid& s) { return superellipsoid_box_hausdorff_distance(s); });
}

SuperellipticCylinderFit fit_superelliptic_cylinder(double radius, double half_height, double tolerance,
                                                    double epsilon) {
  SuperellipticCylinder(radius, half_height, 2, epsilon);  // validates R, h and ε
  return fit_exponent<SuperellipticCylinderFit>(
      tolerance, std::min(radius, half_height), "fit_superelliptic_cylinder",
      [&](int n) { return SuperellipticCylinder(radius, half_height, n, epsilon); },
      [](const SuperellipticCylinder& s) { return superelliptic_cylinder_hausdorff_distance(s); });
}

}  // namespace diffcol
