// The dispatch rule of scene/dispatch.hpp: one family per pair of scene shapes.
#include "diffcol/scene/dispatch.hpp"

#include <stdexcept>

namespace diffcol::scene {

namespace {
// rule 2's order for mixed pairs
constexpr Family kMixedOrder[kNumFamilies] = {Family::dcol, Family::idcol, Family::qp};
}  // namespace

std::optional<Family> pair_family(const CollisionShape& shape1, const CollisionShape& shape2) {
  if (shape1.family() == shape2.family()) return shape1.family();
  for (Family f : kMixedOrder)
    if (shape1.has_representation(f) && shape2.has_representation(f)) return f;
  return std::nullopt;
}

PairPlan plan_pair(const CollisionShape& shape1, const CollisionShape& shape2) {
  if (shape1.family() == shape2.family())
    return PairPlan{shape1.family(), shape1, shape2, Pose::identity(), Pose::identity()};
  if (const auto f = pair_family(shape1, shape2)) {
    auto r1 = shape1.representation(*f);
    auto r2 = shape2.representation(*f);
    return PairPlan{*f, std::move(r1->shape), std::move(r2->shape), r1->X_SR, r2->X_SR};
  }
  throw std::invalid_argument("no formulation serves " + shape1.describe() + " against " + shape2.describe() +
                              ": the two shapes have no exact form in one family (docs/scene.md, dispatch)");
}

}  // namespace diffcol::scene
