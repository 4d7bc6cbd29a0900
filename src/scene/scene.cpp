// Scene bookkeeping: bodies, shapes, filters and the broad phase (scene/scene.hpp). The narrow
// phase is in narrow_phase.cpp.
#include "diffcol/scene/scene.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "diffcol/batch/thread_pool.hpp"
#include "pair_cache.hpp"

namespace diffcol::scene {

namespace {

std::uint64_t pair_key(int a, int b) {
  const auto lo = static_cast<std::uint64_t>(std::min(a, b)), hi = static_cast<std::uint64_t>(std::max(a, b));
  return (lo << 32) | hi;
}

void check_pose(const Pose& X, const char* what) {
  if (const char* why = X.invalid_reason()) throw std::invalid_argument(std::string(what) + " is not a valid pose: " + why);
}

}  // namespace

void QueryOptions::validate() const {
  if (!(margin >= 0.0) || !std::isfinite(margin))
    throw std::invalid_argument("QueryOptions::margin must be finite and >= 0 (got " + std::to_string(margin) + ")");
  if (num_threads < 0 || num_threads > 1024)
    throw std::invalid_argument("QueryOptions::num_threads must be in [0, 1024] (got " + std::to_string(num_threads) + ")");
  if (frame != ReferenceFrame::world && frame != ReferenceFrame::local && frame != ReferenceFrame::local_world_aligned)
    throw std::invalid_argument("QueryOptions::frame is not a ReferenceFrame");
}

Scene::Scene() = default;
Scene::~Scene() = default;
Scene::Scene(Scene&&) noexcept = default;
Scene& Scene::operator=(Scene&&) noexcept = default;

Scene::Scene(const Scene& other)
    : bodies_(other.bodies_), shapes_(other.shapes_), disabled_(other.disabled_), boxes_(other.boxes_),
      radii_(other.radii_), centres_(other.centres_), fixed_(other.fixed_) {}

Scene& Scene::operator=(const Scene& other) {
  if (this != &other) *this = Scene(other);
  return *this;
}

void Scene::check_body(int body) const {
  if (body < 0 || body >= num_bodies())
    throw std::invalid_argument("unknown body id " + std::to_string(body) + " (the scene has " +
                                std::to_string(num_bodies()) + " bodies)");
}

const Body& Scene::body(int id) const {
  check_body(id);
  return bodies_[static_cast<size_t>(id)];
}

const SceneShape& Scene::shape(int id) const {
  if (id < 0 || id >= num_shapes())
    throw std::invalid_argument("unknown shape id " + std::to_string(id) + " (the scene has " +
                                std::to_string(num_shapes()) + " shapes)");
  return shapes_[static_cast<size_t>(id)];
}

Pose Scene::shape_pose(int id) const {
  const SceneShape& s = shape(id);
  return bodies_[static_cast<size_t>(s.body)].X_WB * s.X_BS;
}

int Scene::add_body(const Pose& X_WB, bool is_static, std::string name) {
  check_pose(X_WB, "add_body: X_WB");
  Body b;
  b.name = name.empty() ? "body" + std::to_string(bodies_.size()) : std::move(name);
  b.X_WB = X_WB;
  b.is_static = is_static;
  bodies_.push_back(std::move(b));
  return num_bodies() - 1;
}

int Scene::add_shape(int body, CollisionShape shape, const Pose& X_BS, CollisionFilter filter, std::string name) {
  check_body(body);
  check_pose(X_BS, "add_shape: X_BS");
  SceneShape s{name.empty() ? "shape" + std::to_string(shapes_.size()) : std::move(name), body, std::move(shape),
               Pose::identity(), filter};
  s.X_BS = X_BS * s.shape.folded_offset();
  // refuse now a pair that no formulation could serve later
  const Body& b = bodies_[static_cast<size_t>(body)];
  for (const SceneShape& other : shapes_) {
    if (other.body == body) continue;
    if (b.is_static && bodies_[static_cast<size_t>(other.body)].is_static) continue;
    if (!(s.filter.group & other.filter.mask) || !(other.filter.group & s.filter.mask)) continue;
    if (std::binary_search(disabled_.begin(), disabled_.end(), pair_key(body, other.body))) continue;
    if (!pair_family(other.shape, s.shape))
      throw std::invalid_argument("add_shape: shape '" + s.name + "' (" + s.shape.describe() + ") on body '" + b.name +
                                  "' cannot be paired with shape '" + other.name + "' (" + other.shape.describe() +
                                  ") on body '" + bodies_[static_cast<size_t>(other.body)].name +
                                  "': no formulation serves both (docs/scene.md, dispatch); disable the body pair "
                                  "or set collision filters before adding it");
  }
  radii_.push_back(s.shape.outer_radius());
  shapes_.push_back(std::move(s));
  bodies_[static_cast<size_t>(body)].shapes.push_back(num_shapes() - 1);
  return num_shapes() - 1;
}

void Scene::set_body_pose(int body, const Pose& X_WB) {
  check_body(body);
  check_pose(X_WB, "set_body_pose: X_WB");
  bodies_[static_cast<size_t>(body)].X_WB = X_WB;
}

void Scene::set_body_poses(const std::vector<Pose>& X_WB) {
  if (X_WB.size() != bodies_.size())
    throw std::invalid_argument("set_body_poses: " + std::to_string(X_WB.size()) + " poses for " +
                                std::to_string(bodies_.size()) + " bodies");
  for (size_t i = 0; i < X_WB.size(); ++i)
    if (X_WB[i].invalid_reason()) check_pose(X_WB[i], ("set_body_poses: pose " + std::to_string(i)).c_str());
  for (size_t i = 0; i < X_WB.size(); ++i) bodies_[i].X_WB = X_WB[i];
}

void Scene::disable_body_pair(int body_a, int body_b) {
  check_body(body_a);
  check_body(body_b);
  const std::uint64_t key = pair_key(body_a, body_b);
  const auto it = std::lower_bound(disabled_.begin(), disabled_.end(), key);
  if (it == disabled_.end() || *it != key) disabled_.insert(it, key);
}

std::vector<std::pair<int, int>> Scene::disabled_body_pairs() const {
  std::vector<std::pair<int, int>> v;
  v.reserve(disabled_.size());
  for (const std::uint64_t key : disabled_) v.emplace_back(static_cast<int>(key >> 32), static_cast<int>(key & 0xFFFFFFFFu));
  return v;
}

bool Scene::may_collide(int a, int b) const {
  const SceneShape& sa = shape(a);
  const SceneShape& sb = shape(b);
  if (sa.body == sb.body) return false;
  if (bodies_[static_cast<size_t>(sa.body)].is_static && bodies_[static_cast<size_t>(sb.body)].is_static) return false;
  if (!(sa.filter.group & sb.filter.mask) || !(sb.filter.group & sa.filter.mask)) return false;
  return !std::binary_search(disabled_.begin(), disabled_.end(), pair_key(sa.body, sb.body));
}

void Scene::update_boxes() {
  boxes_.resize(shapes_.size());
  centres_.resize(shapes_.size());
  fixed_.resize(shapes_.size());
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const SceneShape& s = shapes_[i];
    fixed_[i] = bodies_[static_cast<size_t>(s.body)].is_static;
    centres_[i] = bodies_[static_cast<size_t>(s.body)].X_WB * s.X_BS.p;
    boxes_[i] = Aabb::ball(centres_[i], radii_[i]);
  }
}

const std::vector<std::pair<int, int>>& Scene::candidate_pairs(double margin) {
  if (!(margin >= 0.0) || !std::isfinite(margin))
    throw std::invalid_argument("candidate_pairs: margin must be finite and >= 0 (got " + std::to_string(margin) + ")");
  find_candidates(margin, nullptr);
  return candidates_;
}

void Scene::find_candidates(double margin, batch::ThreadPool* pool) {
  update_boxes();
  // (two static bodies' shapes never pair: their boxes are not tested)
  sap_.find_pairs(boxes_, margin, [&](int a, int b) { return may_collide(a, b); }, candidates_, pool, &fixed_);
}

Scene::PairCache& Scene::cache_for(int a, int b) {
  auto& slot = caches_[pair_key(a, b)];
  if (!slot) {
    const SceneShape& sa = shapes_[static_cast<size_t>(a)];
    const SceneShape& sb = shapes_[static_cast<size_t>(b)];
    slot = std::make_unique<PairCache>(a, b, plan_pair(sa.shape, sb.shape));
  }
  return *slot;
}

void Scene::reset_warm_starts() {
  for (auto& [key, cache] : caches_) cache->reset_warm_start();
}

void Scene::query(const QueryOptions& options, QueryResult& out) {
  options.validate();
  const int threads = options.num_threads == 0 ? batch::available_cores() : options.num_threads;
  if (threads > 1 && (!pool_ || pool_->num_threads() != threads)) pool_ = std::make_unique<batch::ThreadPool>(threads);
  find_candidates(options.margin, threads > 1 ? pool_.get() : nullptr);
  // the previous query's pairs, then this one's
  previous_work_.swap(work_);
  previous_keys_.swap(work_keys_);
  work_.clear();
  work_keys_.clear();
  size_t k = 0;  // cursor in previous_keys_ (both lists are sorted by key)
  for (const auto& [a, b] : candidates_) {
    // the bounding balls themselves: farther than the margin, the pair cannot be reported
    const auto ia = static_cast<size_t>(a), ib = static_cast<size_t>(b);
    if ((centres_[ia] - centres_[ib]).norm() - radii_[ia] - radii_[ib] > options.margin) continue;
    const std::uint64_t key = pair_key(a, b);
    while (k < previous_keys_.size() && previous_keys_[k] < key) ++k;
    work_.push_back(k < previous_keys_.size() && previous_keys_[k] == key ? previous_work_[k] : &cache_for(a, b));
    work_keys_.push_back(key);
  }
  out.candidates = static_cast<int>(work_.size());
  const size_t n = work_.size();
  scratch_results_.resize(n);
  if (options.derivatives) scratch_derivatives_.resize(n);

  auto body = [&](long begin, long end) {
    for (long i = begin; i < end; ++i) {
      PairCache& c = *work_[static_cast<size_t>(i)];
      const SceneShape& s1 = shapes_[static_cast<size_t>(c.shape1)];
      const SceneShape& s2 = shapes_[static_cast<size_t>(c.shape2)];
      const Body& b1 = bodies_[static_cast<size_t>(s1.body)];
      const Body& b2 = bodies_[static_cast<size_t>(s2.body)];
      PairResult& r = scratch_results_[static_cast<size_t>(i)];
      r.shape1 = c.shape1;
      r.shape2 = c.shape2;
      r.body1 = s1.body;
      r.body2 = s2.body;
      c.solve(b1.X_WB, s1.X_BS, b2.X_WB, s2.X_BS, options, r,
              options.derivatives ? &scratch_derivatives_[static_cast<size_t>(i)] : nullptr);
    }
  };
  if (threads > 1 && n > 1) pool_->parallel_for(static_cast<long>(n), 1, body);
  else body(0, static_cast<long>(n));

  out.pairs.clear();
  out.derivatives.clear();
  for (size_t i = 0; i < n; ++i) {
    const PairResult& r = scratch_results_[i];
    if (!reported(r, options)) continue;
    out.pairs.push_back(r);
    if (options.derivatives) out.derivatives.push_back(scratch_derivatives_[i]);
  }
}

QueryResult Scene::query(const QueryOptions& options) {
  QueryResult r;
  query(options, r);
  return r;
}

}  // namespace diffcol::scene
