#pragma once
// One scene pair's narrow phase: its plan (dispatch.hpp), its warm start, and the solve that
// fills a PairResult and PairDerivatives (narrow_phase.cpp).
#include <optional>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/scene/dispatch.hpp"
#include "diffcol/scene/scene.hpp"

namespace diffcol::scene {

struct Scene::PairCache {
  PairCache(int a, int b, PairPlan p);
  int shape1, shape2;
  PairPlan plan;
  std::optional<idcol::ContactPair> idcol_pair;  // iDCOL pairs: keeps the previous solution
  // DCOL pairs: the unit normal (1 to 2) of the previous separated solution, a direction whose
  // support-function bound often proves the pair beyond the margin at the next, nearby poses
  Vec3 last_normal = Vec3::Zero();
  bool has_last_normal = false;

  void reset_warm_start() {
    if (idcol_pair) idcol_pair->reset_warm_start();
    has_last_normal = false;
  }
  // Solves at the body poses X_WB1, X_WB2 (shapes mounted at X_BS1, X_BS2). Thread-safe across
  // different pairs; allocates nothing.
  void solve(const Pose& X_WB1, const Pose& X_BS1, const Pose& X_WB2, const Pose& X_BS2, const QueryOptions& options,
             PairResult& r, PairDerivatives* d);
};

// Whether a solved pair belongs in the query's result (scene.hpp).
bool reported(const PairResult& r, const QueryOptions& options);

}  // namespace diffcol::scene
