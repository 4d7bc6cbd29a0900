#pragma once
/// @file dispatch.hpp
/// The one place that decides which formulation serves a pair of scene shapes.
///
/// Rule (docs/scene.md):
///  1. two shapes of one family use that family (iDCOL, DCOL or the QPs);
///  2. a mixed pair uses the first family, in the order DCOL, iDCOL, QP, in which both shapes
///     have an exact representation (CollisionShape::representation): a QP capsule against a DCOL
///     box is a DCOL capsule–box pair, an iDCOL sphere against a QP polygon a DCOL sphere–padded
///     polygon pair, a DCOL ellipsoid (diagonal P) against an iDCOL superellipsoid an iDCOL pair.
///     DCOL comes first because its cone program serves every primitive exactly and reports α and
///     d_D; the QPs last because they report neither;
///  3. otherwise the pair is refused (std::invalid_argument naming both shapes): an iDCOL
///     superellipsoid (n > 1) has no exact DCOL or QP form and a DCOL cylinder no iDCOL one.
/// Swapping the two shapes swaps the plan's shapes and nothing else.
#include <optional>

#include "diffcol/scene/collision_shape.hpp"

namespace diffcol::scene {

/// How one pair is solved: the family and both shapes in it, with their frames R_i in the
/// shapes' frames S_i (the identity where a shape is used as given).
struct PairPlan {
  Family family;
  CollisionShape shape1, shape2;
  Pose X_S1R1, X_S2R2;
};

/// The family that serves shape1 against shape2 by the rule above, or nothing.
std::optional<Family> pair_family(const CollisionShape& shape1, const CollisionShape& shape2);

/// The plan for shape1 against shape2.
/// @throws std::invalid_argument naming both shapes when no family serves them.
PairPlan plan_pair(const CollisionShape& shape1, const CollisionShape& shape2);

}  // namespace diffcol::scene
