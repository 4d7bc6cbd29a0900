#pragma once
/// @file shape.hpp
/// `Shape`: any of the strictly convex implicit primitives, as a value type.
///
/// Every shape is described in its own body frame by an implicit function φ with
/// φ < 0 inside, φ = 0 on the surface, φ > 0 outside; the body origin lies strictly inside.

#include <string>
#include <variant>

#include "diffcol/shapes/smooth_polytope.hpp"
#include "diffcol/shapes/smooth_truncated_cone.hpp"
#include "diffcol/shapes/sphere.hpp"
#include "diffcol/shapes/superellipsoid.hpp"
#include "diffcol/shapes/superelliptic_cylinder.hpp"

namespace diffcol {

enum class ShapeType : int {
  sphere = 0,
  superellipsoid = 1,
  superelliptic_cylinder = 2,
  smooth_polytope = 3,
  smooth_truncated_cone = 4,
};
constexpr int kNumShapeTypes = 5;

/// Short name used by the CLI and JSON ("sphere", "superellipsoid", ...).
const char* shape_type_name(ShapeType t);

class Shape {
 public:
  using Variant = std::variant<Sphere, Superellipsoid, SuperellipticCylinder, SmoothPolytope,
                               SmoothTruncatedCone>;

  Shape(Sphere s) : v_(std::move(s)) {}                     // NOLINT(implicit)
  Shape(Superellipsoid s) : v_(std::move(s)) {}             // NOLINT(implicit)
  Shape(SuperellipticCylinder s) : v_(std::move(s)) {}      // NOLINT(implicit)
  Shape(SmoothPolytope s) : v_(std::move(s)) {}             // NOLINT(implicit)
  Shape(SmoothTruncatedCone s) : v_(std::move(s)) {}        // NOLINT(implicit)

  ShapeType type() const { return static_cast<ShapeType>(v_.index()); }
  const Variant& variant() const { return v_; }
  template <class T>
  const T& as() const { return std::get<T>(v_); }

  /// φ, ∇φ, ∇²φ at y (body frame). Dispatches on the type at every call: for per-query
  /// work use the solver, which dispatches once per pair.
  double eval(const Vec3& y, Vec3& grad, Mat3& hess) const {
    return std::visit([&](const auto& s) { return s.eval(y, grad, hess); }, v_);
  }
  double value(const Vec3& y) const {
    return std::visit([&](const auto& s) { return s.value(y); }, v_);
  }
  double inner_radius() const {
    return std::visit([](const auto& s) { return s.inner_radius(); }, v_);
  }
  double outer_radius() const {
    return std::visit([](const auto& s) { return s.outer_radius(); }, v_);
  }
  /// One-line human-readable description, e.g. "superellipsoid(n=8, a=0.5, b=1, c=1.5)".
  std::string describe() const;

 private:
  Variant v_;
};

}  // namespace diffcol
