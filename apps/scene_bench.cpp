// `diffcol scene-bench`: the scene layer (scene/scene.hpp, scene/robot.hpp) and large DCOL hulls
// against FCL on the same geometry, measured in the same run (docs/cli.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "cli.hpp"
#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/euclidean.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/scene/robot.hpp"
#include "diffcol/scene/scene.hpp"
#include "host_info.hpp"
#include "timing.hpp"

#ifdef DIFFCOL_HAVE_FCL
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/ellipsoid.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>
#endif

#ifndef DIFFCOL_SOURCE_DIR
#define DIFFCOL_SOURCE_DIR ""
#endif

namespace diffcol::cli {
namespace {

namespace fs = std::filesystem;
using namespace diffcol::scene;

constexpr double kRobotMargin = 0.05;

struct BenchOptions {
  long configurations = 10000;
  long queries = 200;     // case (b): scene queries per measurement
  long hull_poses = 2000;  // case (c)
  int obstacles = 50;
  int bodies = 1000;
  unsigned seed = 1;
  bool json = false;
  bool fcl_libccd = true;  // FCL's GJK: libccd's (GST_LIBCCD, FCL's default) or its own (GST_INDEP)
  std::string urdf, srdf;
  std::string cases = "robot,bodies,hull";  // --cases
};

/// Seconds of wall time of f(); the calling thread's CPU seconds into *cpu when given (less
/// sensitive to preemption on a busy machine; single-threaded runs only).
template <class F>
double seconds(F&& f, double* cpu = nullptr) {
  const double c0 = thread_cpu_seconds();
  const auto t0 = BenchClock::now();
  f();
  const double wall = std::chrono::duration<double>(BenchClock::now() - t0).count();
  if (cpu) *cpu = thread_cpu_seconds() - c0;
  return wall;
}

// ------------------------------------------------------------------ the robot files

/// The folder of the running program (/proc/self/exe), or "" when unknown.
fs::path exe_dir() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p.parent_path();
}

/// arm7.urdf: --urdf, else the first existing of <exe>/../tests/data/robots,
/// <exe>/../../tests/data/robots (a build folder inside the source tree),
/// <exe>/../share/diffcol/robots (installed) and the source tree this program was built from.
std::string find_urdf(const std::string& given) {
  if (!given.empty()) {
    if (!fs::exists(given)) throw InputError("--urdf: no such file '" + given + "'");
    return given;
  }
  std::vector<fs::path> dirs;
  const fs::path e = exe_dir();
  if (!e.empty()) {
    dirs.push_back(e / ".." / "tests" / "data" / "robots");
    dirs.push_back(e / ".." / ".." / "tests" / "data" / "robots");
    dirs.push_back(e / ".." / "share" / "diffcol" / "robots");
  }
  if (std::string(DIFFCOL_SOURCE_DIR).size() > 0) dirs.push_back(fs::path(DIFFCOL_SOURCE_DIR) / "tests" / "data" / "robots");
  std::string tried;
  for (const fs::path& d : dirs) {
    const fs::path f = d / "arm7.urdf";
    if (fs::exists(f)) return fs::weakly_canonical(f).string();
    tried += " " + f.string();
  }
  throw InputError("scene-bench: arm7.urdf not found (tried" + tried + "); pass --urdf PATH");
}

/// The SRDF beside a URDF (same name, .srdf), or "" when there is none.
std::string srdf_beside(const std::string& urdf) {
  fs::path p(urdf);
  p.replace_extension(".srdf");
  return fs::exists(p) ? p.string() : std::string();
}

// ------------------------------------------------------------------ random geometry

Pose random_rotation_pose(std::mt19937& rng, const Vec3& p) {
  std::normal_distribution<double> N(0.0, 1.0);
  return Pose::from_quaternion(p, N(rng), N(rng), N(rng), N(rng));
}

/// A convex hull of n points at radii [0.7, 1]·size in random directions (origin inside).
dcol::Polytope random_hull(std::mt19937& rng, int n, double size) {
  std::normal_distribution<double> N(0.0, 1.0);
  std::uniform_real_distribution<double> U(0.7, 1.0);
  for (;;) {
    std::vector<Vec3> pts;
    for (int i = 0; i < n; ++i) pts.push_back(size * U(rng) * Vec3(N(rng), N(rng), N(rng)).normalized());
    try {
      return dcol::Polytope::convex_hull(pts);
    } catch (const std::invalid_argument&) {  // origin not strictly inside: draw again
    }
  }
}

/// One of six kinds (box, cylinder, sphere, capsule, icosphere hull, point-cloud hull) with sizes
/// in [lo, hi].
dcol::Primitive random_primitive(std::mt19937& rng, int kind, double lo, double hi) {
  std::uniform_real_distribution<double> S(lo, hi);
  switch (kind % 6) {
    case 0: return dcol::Polytope::box(S(rng), S(rng), S(rng));
    case 1: return dcol::Cylinder(S(rng), 2.0 * S(rng));
    case 2: return dcol::Sphere(S(rng));
    case 3: return dcol::Capsule(0.6 * S(rng), 2.0 * S(rng));
    case 4: return dcol::Polytope::convex_hull(mesh::make_icosphere(S(rng), 1));  // 80 faces
    default: return random_hull(rng, 24, S(rng));
  }
}

/// The 1,000-face hull: 502 random points on the unit sphere (every point a vertex, triangular
/// faces: F = 2V − 4).
dcol::Polytope thousand_face_hull(std::mt19937& rng) {
  std::normal_distribution<double> N(0.0, 1.0);
  std::vector<Vec3> pts;
  for (int i = 0; i < 502; ++i) pts.push_back(Vec3(N(rng), N(rng), N(rng)).normalized());
  return dcol::Polytope::convex_hull(pts);
}

// ------------------------------------------------------------------ FCL side

#ifdef DIFFCOL_HAVE_FCL
const char* const kFclDescriptionRobot =
    "FCL 0.7: robot links and obstacles in two DynamicAABBTreeCollisionManagers, every object's AABB "
    "grown by margin/2; per configuration: forward kinematics (RobotModel), setTransform + computeAABB "
    "of each link shape, update(), robot.collide(robot) (self, same exclusions) and "
    "robot.collide(obstacles); each AABB-overlapping pair runs fcl::distance (GJK per --fcl-solver, "
    "nearest points on, distance_tolerance 1e-6, unsigned: -1 in contact) and counts when < margin. "
    "No gradients.";
const char* const kFclDescriptionBodies =
    "FCL 0.7: one DynamicAABBTreeCollisionManager; per query: setTransform + computeAABB of every "
    "body, update(), self collide; 'collide': fcl::collide (one contact, boolean) on each "
    "AABB-overlapping pair; 'distance': fcl::distance (GJK per --fcl-solver, unsigned) on each such pair.";
const char* const kFclDescriptionHull =
    "FCL 0.7: fcl::distance of fcl::Convex (the same 1,000 faces) against fcl::Box / fcl::Capsule "
    "(GJK per --fcl-solver, nearest points on, distance_tolerance 1e-6; -1 in contact). No gradients.";

/// FCL's geometry for a DCOL primitive, and the FCL frame in the shape frame (FCL's cylinders and
/// capsules lie along z, DCOL's along x).
std::shared_ptr<fcl::CollisionGeometryd> fcl_geometry(const dcol::Primitive& p, Mat3& align) {
  align.setIdentity();
  const Mat3 z_to_x = (Mat3() << 0, 0, 1, 1, 0, 0, 0, 1, 0).finished();
  if (const auto* b = std::get_if<dcol::Polytope>(&p)) {
    // a centred axis-aligned box (Polytope::box, URDF boxes) as fcl::Box: FCL's GJK on fcl::Convex
    // stops early on some poses (distances off by up to ~1e-2 seen), its box support is exact
    bool box = b->num_faces == 6;
    Vec3 half = Vec3::Zero();
    for (int i = 0; i < b->num_faces && box; ++i) {
      const Vec3 n = b->normal(i);
      int axis;
      box = std::abs(n.cwiseAbs().maxCoeff(&axis) - 1.0) < 1e-15;
      if (box && half[axis] == 0.0) half[axis] = b->face_offset(i);
      box = box && half[axis] == b->face_offset(i);
    }
    if (box && (half.array() > 0.0).all()) return std::make_shared<fcl::Boxd>(2.0 * half);
    auto v = std::make_shared<std::vector<fcl::Vector3d>>();
    for (int i = 0; i < b->num_vertices; ++i) v->push_back(b->vertex(i));
    auto f = std::make_shared<std::vector<int>>();
    for (int k = 0; k < b->num_faces; ++k) {
      f->push_back(b->face_begin(k + 1) - b->face_begin(k));
      for (int j = b->face_begin(k); j < b->face_begin(k + 1); ++j) f->push_back(b->face_vertex(j));
    }
    return std::make_shared<fcl::Convexd>(v, b->num_faces, f);
  }
  if (const auto* c = std::get_if<dcol::Capsule>(&p)) {
    align = z_to_x;
    return std::make_shared<fcl::Capsuled>(c->R, c->L);
  }
  if (const auto* c = std::get_if<dcol::Cylinder>(&p)) {
    align = z_to_x;
    return std::make_shared<fcl::Cylinderd>(c->R, c->L);
  }
  if (const auto* s = std::get_if<dcol::Sphere>(&p)) return std::make_shared<fcl::Sphered>(s->R);
  if (const auto* e = std::get_if<dcol::Ellipsoid>(&p))
    return std::make_shared<fcl::Ellipsoidd>(1.0 / std::sqrt(e->P(0, 0)), 1.0 / std::sqrt(e->P(1, 1)),
                                             1.0 / std::sqrt(e->P(2, 2)));
  throw std::invalid_argument("scene-bench: no FCL geometry for a DCOL " +
                              std::string(dcol::primitive_type_name(dcol::primitive_type(p))));
}

/// A collision object whose world AABB can be grown (FCL keeps it in a protected member).
struct FclObject : fcl::CollisionObjectd {
  FclObject(std::shared_ptr<fcl::CollisionGeometryd> g, const Mat3& a, int shape_id)
      : fcl::CollisionObjectd(g, fcl::Transform3d::Identity()), align(a), id(shape_id) {}
  void place(const Pose& X_WS, double pad) {
    fcl::Transform3d T = fcl::Transform3d::Identity();
    T.linear() = X_WS.R * align;
    T.translation() = X_WS.p;
    setTransform(T);
    computeAABB();
    aabb.min_.array() -= pad;
    aabb.max_.array() += pad;
  }
  Mat3 align;
  int id;
};

std::vector<std::unique_ptr<FclObject>> fcl_objects(const Scene& scene, const std::vector<int>& ids) {
  std::vector<std::unique_ptr<FclObject>> out;
  for (int id : ids) {
    Mat3 align;
    auto g = fcl_geometry(scene.shape(id).shape.dcol(), align);
    out.push_back(std::make_unique<FclObject>(g, align, id));
  }
  return out;
}

/// What a broad-phase callback does with an AABB-overlapping pair.
struct FclPairs {
  enum Mode { distance, collide } mode = distance;
  double margin = 0.0;
  const std::vector<char>* paired = nullptr;  // n×n: may the shapes collide (scene.may_collide)
  int n = 0;
  fcl::DistanceRequestd dreq;
  fcl::CollisionRequestd creq;
  std::vector<std::pair<int, int>>* found = nullptr;  // reserved beforehand
  long count = 0;
};

bool fcl_pair_callback(fcl::CollisionObjectd* a, fcl::CollisionObjectd* b, void* data) {
  auto* d = static_cast<FclPairs*>(data);
  const int i = static_cast<FclObject*>(a)->id, j = static_cast<FclObject*>(b)->id;
  if (d->paired && !(*d->paired)[static_cast<size_t>(i) * d->n + j]) return false;
  bool hit;
  if (d->mode == FclPairs::distance) {
    fcl::DistanceResultd r;
    hit = fcl::distance(a, b, d->dreq, r) < d->margin;
  } else {
    fcl::CollisionResultd r;
    hit = fcl::collide(a, b, d->creq, r) > 0;
  }
  if (hit) {
    ++d->count;
    if (d->found) d->found->emplace_back(std::min(i, j), std::max(i, j));
  }
  return false;  // go on
}

bool g_fcl_libccd = true;  // --fcl-solver

fcl::DistanceRequestd fcl_distance_request() {
  fcl::DistanceRequestd req;
  req.enable_nearest_points = true;
  req.gjk_solver_type = g_fcl_libccd ? fcl::GST_LIBCCD : fcl::GST_INDEP;
  req.distance_tolerance = 1e-6;
  return req;
}
#endif

/// ours_us, fcl_us, ratio_to_fcl (wall) and the same of the thread CPU times.
Json timing_pair(double ours_s, double fcl_s, long n, double ours_cpu, double fcl_cpu) {
  Json j;
  const double per = 1e6 / static_cast<double>(n);
  j["ours_us"] = ours_s * per;
  j["fcl_us"] = fcl_s > 0 ? Json(fcl_s * per) : Json(nullptr);
  j["ratio_to_fcl"] = fcl_s > 0 ? Json(ours_s / fcl_s) : Json(nullptr);
  j["ours_cpu_us"] = ours_cpu * per;
  j["fcl_cpu_us"] = fcl_s > 0 ? Json(fcl_cpu * per) : Json(nullptr);
  j["ratio_to_fcl_cpu"] = fcl_s > 0 && fcl_cpu > 0 ? Json(ours_cpu / fcl_cpu) : Json(nullptr);
  return j;
}

// ------------------------------------------------------------------ (a) the robot among obstacles

Json robot_case(const BenchOptions& o) {
  std::mt19937 rng(o.seed);
  const std::string urdf = find_urdf(o.urdf);
  const std::string srdf = o.srdf.empty() ? srdf_beside(urdf) : o.srdf;
  Scene scene;
  Robot robot(scene, RobotModel::from_urdf_file(urdf, srdf));
  const RobotModel& model = robot.model();
  // obstacles around the workspace: 0.3–0.9 m from the base axis, 0–1.2 m high, 3–10 cm sizes
  std::uniform_real_distribution<double> Ur(0.3, 0.9), Ut(0.0, 2.0 * M_PI), Uz(0.0, 1.2);
  for (int k = 0; k < o.obstacles; ++k) {
    const double r = Ur(rng), t = Ut(rng);
    const int b = scene.add_body(random_rotation_pose(rng, Vec3(r * std::cos(t), r * std::sin(t), Uz(rng))), true,
                                 "obstacle" + std::to_string(k));
    scene.add_shape(b, random_primitive(rng, k, 0.03, 0.1));
  }
  // configurations uniform within the limits (±π for unlimited joints)
  const int nq = model.num_positions();
  Eigen::VectorXd lo = model.lower_limits(), hi = model.upper_limits();
  for (int i = 0; i < nq; ++i) {
    if (!std::isfinite(lo[i])) lo[i] = -M_PI;
    if (!std::isfinite(hi[i])) hi[i] = M_PI;
  }
  std::uniform_real_distribution<double> U01(0.0, 1.0);
  const long N = o.configurations;
  std::vector<Eigen::VectorXd> qs(static_cast<size_t>(N), Eigen::VectorXd(nq));
  for (auto& q : qs)
    for (int i = 0; i < nq; ++i) q[i] = lo[i] + (hi[i] - lo[i]) * U01(rng);

  QueryOptions qo;
  qo.margin = kRobotMargin;
  qo.euclidean = true;
  qo.num_threads = 1;
  RobotQueryResult res;
  std::vector<std::vector<std::pair<int, int>>> ours(static_cast<size_t>(N));
  long failed = 0, candidates = 0;
  const long warm = std::min<long>(N, 200);
  for (long c = 0; c < warm; ++c) {
    robot.set_configuration(qs[static_cast<size_t>(c)]);
    robot.query(qo, res, true);
  }
  for (auto& v : ours) v.reserve(64);
  double ours_cpu = 0, fcl_cpu = 0;
  const double ours_s = seconds([&] {
    for (long c = 0; c < N; ++c) {
      robot.set_configuration(qs[static_cast<size_t>(c)]);
      robot.query(qo, res, true);
      candidates += res.scene.candidates;
      auto& v = ours[static_cast<size_t>(c)];
      for (const PairResult& p : res.scene.pairs) {
        if (!p.ok()) ++failed;
        v.emplace_back(p.shape1, p.shape2);
      }
    }
  }, &ours_cpu);
  long ours_pairs = 0;
  for (const auto& v : ours) ours_pairs += static_cast<long>(v.size());
  // the same without derivatives (pairs, distances and closest points only)
  const double ours_nd_s = seconds([&] {
    for (long c = 0; c < N; ++c) {
      robot.set_configuration(qs[static_cast<size_t>(c)]);
      robot.query(qo, res, false);
    }
  });

  Json j;
  j["name"] = "robot_arm7";
  j["description"] = "arm7 (" + std::to_string(model.num_links()) + " links, " +
                     std::to_string(robot.num_positions()) + " joints) among " + std::to_string(o.obstacles) +
                     " static obstacles; set_configuration + query, margin 0.05, self-collision, "
                     "Euclidean distances, joint-space derivatives";
  j["urdf"] = urdf;
  j["configurations"] = N;
  j["shapes"] = scene.num_shapes();
  j["margin"] = kRobotMargin;
  double fcl_s = 0;
  long fcl_pairs = -1, only_ours = -1, only_fcl = -1;
#ifdef DIFFCOL_HAVE_FCL
  {
    std::vector<int> robot_ids, obstacle_ids;
    for (int s = 0; s < scene.num_shapes(); ++s)
      (robot.body_link(scene.shape(s).body) >= 0 ? robot_ids : obstacle_ids).push_back(s);
    const int n = scene.num_shapes();
    std::vector<char> paired(static_cast<size_t>(n) * n, 0);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) paired[static_cast<size_t>(a) * n + b] = a != b && scene.may_collide(a, b);
    auto robot_objs = fcl_objects(scene, robot_ids), obstacle_objs = fcl_objects(scene, obstacle_ids);
    std::vector<int> link_of;
    std::vector<Pose> X_LS;
    for (int id : robot_ids) {
      link_of.push_back(robot.body_link(scene.shape(id).body));
      X_LS.push_back(scene.shape(id).X_BS);
    }
    fcl::DynamicAABBTreeCollisionManagerd robot_mgr, obstacle_mgr;
    for (auto& ob : obstacle_objs) {
      ob->place(scene.shape_pose(ob->id), 0.5 * kRobotMargin);
      obstacle_mgr.registerObject(ob.get());
    }
    obstacle_mgr.setup();
    std::vector<Pose> X_WL;
    model.forward_kinematics(qs[0], Pose::identity(), X_WL);
    for (size_t k = 0; k < robot_objs.size(); ++k) {
      robot_objs[k]->place(X_WL[static_cast<size_t>(link_of[k])] * X_LS[k], 0.5 * kRobotMargin);
      robot_mgr.registerObject(robot_objs[k].get());
    }
    robot_mgr.setup();
    std::vector<std::vector<std::pair<int, int>>> theirs(static_cast<size_t>(N));
    for (auto& v : theirs) v.reserve(64);
    FclPairs cb;
    cb.margin = kRobotMargin;
    cb.paired = &paired;
    cb.n = n;
    cb.dreq = fcl_distance_request();
    const auto step = [&](long c, std::vector<std::pair<int, int>>* found) {
      model.forward_kinematics(qs[static_cast<size_t>(c)], Pose::identity(), X_WL);
      for (size_t k = 0; k < robot_objs.size(); ++k)
        robot_objs[k]->place(X_WL[static_cast<size_t>(link_of[k])] * X_LS[k], 0.5 * kRobotMargin);
      robot_mgr.update();
      cb.found = found;
      robot_mgr.collide(&cb, fcl_pair_callback);
      robot_mgr.collide(&obstacle_mgr, &cb, fcl_pair_callback);
    };
    for (long c = 0; c < warm; ++c) step(c, nullptr);
    cb.count = 0;
    fcl_s = seconds([&] {
      for (long c = 0; c < N; ++c) step(c, &theirs[static_cast<size_t>(c)]);
    }, &fcl_cpu);
    fcl_pairs = cb.count;
    // pairs reported by one side only, and how far from the margin they are (FCL's distance)
    only_ours = only_fcl = 0;
    double worst = 0;
    Json examples = Json::array();
    for (long c = 0; c < N; ++c) {
      auto a = ours[static_cast<size_t>(c)], b = theirs[static_cast<size_t>(c)];
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      std::vector<std::pair<int, int>> da, db;
      std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(da));
      std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(db));
      only_ours += static_cast<long>(da.size());
      only_fcl += static_cast<long>(db.size());
      if (da.empty() && db.empty()) continue;
      model.forward_kinematics(qs[static_cast<size_t>(c)], Pose::identity(), X_WL);
      for (size_t k = 0; k < robot_objs.size(); ++k)
        robot_objs[k]->place(X_WL[static_cast<size_t>(link_of[k])] * X_LS[k], 0.0);
      for (const auto* lst : {&da, &db})
        for (const auto& [s1, s2] : *lst) {
          FclObject *o1 = nullptr, *o2 = nullptr;
          for (auto* objs : {&robot_objs, &obstacle_objs})
            for (auto& ob : *objs) {
              if (ob->id == s1) o1 = ob.get();
              if (ob->id == s2) o2 = ob.get();
            }
          fcl::DistanceResultd r, r2;
          const double d = fcl::distance(o1, o2, cb.dreq, r);
          fcl::DistanceRequestd other = cb.dreq;  // the other GJK, for a second opinion
          other.gjk_solver_type = other.gjk_solver_type == fcl::GST_LIBCCD ? fcl::GST_INDEP : fcl::GST_LIBCCD;
          const double d2 = fcl::distance(o1, o2, other, r2);
          worst = std::max(worst, std::abs(d - kRobotMargin));
          robot.set_configuration(qs[static_cast<size_t>(c)]);
          const dcol::DistanceResult ed = dcol::euclidean_distance(scene.shape(s1).shape.dcol(), scene.shape_pose(s1),
                                                                   scene.shape(s2).shape.dcol(), scene.shape_pose(s2));
          if (examples.size() < 5)
            examples.push_back({{"configuration", c}, {"shapes", {scene.shape(s1).name, scene.shape(s2).name}},
                                {"reported_by", lst == &da ? "ours" : "fcl"}, {"fcl_distance", d},
                                {"fcl_distance_other_gjk", d2},
                                {"our_distance", ed.ok() ? Json(ed.distance) : Json(diffcol::status_name(ed.status))}});
        }
      for (size_t k = 0; k < robot_objs.size(); ++k)
        robot_objs[k]->place(X_WL[static_cast<size_t>(link_of[k])] * X_LS[k], 0.5 * kRobotMargin);
    }
    j["mismatch_max_distance_from_margin"] = only_ours + only_fcl > 0 ? Json(worst) : Json(nullptr);
    j["mismatch_examples"] = examples;
  }
  j["fcl_computes"] = kFclDescriptionRobot;
#else
  j["fcl_computes"] = "FCL not built";
#endif
  j.update(timing_pair(ours_s, fcl_s, N, ours_cpu, fcl_cpu));
  j["ours_us_no_derivatives"] = ours_nd_s * 1e6 / static_cast<double>(N);
  j["pairs_ours"] = ours_pairs;
  j["pairs_fcl"] = fcl_pairs < 0 ? Json(nullptr) : Json(fcl_pairs);
  j["pairs_only_ours"] = only_ours < 0 ? Json(nullptr) : Json(only_ours);
  j["pairs_only_fcl"] = only_fcl < 0 ? Json(nullptr) : Json(only_fcl);
  j["pairs_not_ok"] = failed;
  j["candidates_per_query"] = static_cast<double>(candidates) / static_cast<double>(N);
  return j;
}

// ------------------------------------------------------------------ (b) many bodies

Json bodies_case(const BenchOptions& o) {
  std::mt19937 rng(o.seed + 1);
  const int nb = o.bodies;
  // a cube holding nb bodies of outer radius ~0.1–0.35 with a few contacts each
  const double side = 0.5 * std::cbrt(static_cast<double>(nb));
  std::uniform_real_distribution<double> Up(0.0, side);
  Scene scene;
  std::vector<Pose> base;
  for (int k = 0; k < nb; ++k) {
    base.push_back(random_rotation_pose(rng, Vec3(Up(rng), Up(rng), Up(rng))));
    const int b = scene.add_body(base.back(), false);
    if (k % 7 == 6) {
      std::uniform_real_distribution<double> S(0.05, 0.2);
      scene.add_shape(b, dcol::Ellipsoid::from_semi_axes(S(rng), S(rng), S(rng)));
    } else {
      scene.add_shape(b, random_primitive(rng, k % 7, 0.04, 0.15));
    }
  }
  // frames: every body moved by a small random twist per frame
  const int F = 8;
  std::vector<std::vector<Pose>> frames(F, base);
  std::normal_distribution<double> N(0.0, 1.0);
  for (int f = 1; f < F; ++f)
    for (int k = 0; k < nb; ++k) {
      Vec6 xi;
      for (int i = 0; i < 6; ++i) xi[i] = (i < 3 ? 0.05 : 0.02) * N(rng);
      frames[f][k] = se3_exp(xi) * frames[f - 1][k];
    }
  const long Q = o.queries;
  QueryOptions qo;
  qo.margin = 0.0;
  QueryResult res;
  long contacts = 0, candidates = 0;
  double cpu1 = 0, fcl_c_cpu = 0, fcl_d_cpu = 0;
  const auto run_ours = [&](int threads, double* cpu) {
    qo.num_threads = threads;
    for (int f = 0; f < F; ++f) {  // warm-up
      scene.set_body_poses(frames[f]);
      scene.query(qo, res);
    }
    contacts = candidates = 0;
    return seconds([&] {
      for (long q = 0; q < Q; ++q) {
        scene.set_body_poses(frames[static_cast<size_t>(q % F)]);
        scene.query(qo, res);
        contacts += static_cast<long>(res.pairs.size());
        candidates += res.candidates;
      }
    }, cpu);
  };
  const double t2 = run_ours(2, nullptr);
  const double t1 = run_ours(1, &cpu1);
  Json j;
  j["name"] = "bodies_" + std::to_string(nb);
  j["description"] = std::to_string(nb) + " moving bodies (boxes, cylinders, spheres, capsules, hulls, ellipsoids), "
                     "DCOL; broad + narrow phase, margin 0, no derivatives; " + std::to_string(F) + " frames cycled";
  j["bodies"] = nb;
  j["queries"] = Q;
  double fcl_c = 0, fcl_d = 0;
  long fcl_contacts_c = -1, fcl_contacts_d = -1;
#ifdef DIFFCOL_HAVE_FCL
  {
    std::vector<int> ids(static_cast<size_t>(nb));
    for (int k = 0; k < nb; ++k) ids[static_cast<size_t>(k)] = k;
    auto objs = fcl_objects(scene, ids);
    std::vector<Pose> X_BS(static_cast<size_t>(nb));
    for (int k = 0; k < nb; ++k) X_BS[static_cast<size_t>(k)] = scene.shape(k).X_BS;
    fcl::DynamicAABBTreeCollisionManagerd mgr;
    for (int k = 0; k < nb; ++k) {
      objs[static_cast<size_t>(k)]->place(frames[0][static_cast<size_t>(k)] * X_BS[static_cast<size_t>(k)], 0.0);
      mgr.registerObject(objs[static_cast<size_t>(k)].get());
    }
    mgr.setup();
    FclPairs cb;
    cb.margin = 0.0;
    cb.dreq = fcl_distance_request();
    cb.dreq.enable_nearest_points = false;
    const auto run_fcl = [&](FclPairs::Mode mode, double* cpu) {
      cb.mode = mode;
      const auto step = [&](long q) {
        const auto& fr = frames[static_cast<size_t>(q % F)];
        for (int k = 0; k < nb; ++k) objs[static_cast<size_t>(k)]->place(fr[static_cast<size_t>(k)] * X_BS[static_cast<size_t>(k)], 0.0);
        mgr.update();
        mgr.collide(&cb, fcl_pair_callback);
      };
      for (int f = 0; f < F; ++f) step(f);
      cb.count = 0;
      return seconds([&] {
        for (long q = 0; q < Q; ++q) step(q);
      }, cpu);
    };
    fcl_c = run_fcl(FclPairs::collide, &fcl_c_cpu);
    fcl_contacts_c = cb.count;
    // distance < 0 is FCL's -1 "in contact": count pairs at distance ≤ 0
    cb.margin = 1e-300;
    fcl_d = run_fcl(FclPairs::distance, &fcl_d_cpu);
    fcl_contacts_d = cb.count;
  }
  j["fcl_computes"] = kFclDescriptionBodies;
#else
  j["fcl_computes"] = "FCL not built";
#endif
  j.update(timing_pair(t1, fcl_c, Q, cpu1, fcl_c_cpu));
  j["ours_us_2_threads"] = t2 * 1e6 / static_cast<double>(Q);
  j["speedup_2_threads"] = t1 / t2;
  j["fcl_distance_us"] = fcl_d > 0 ? Json(fcl_d * 1e6 / static_cast<double>(Q)) : Json(nullptr);
  j["ratio_to_fcl_distance"] = fcl_d > 0 ? Json(t1 / fcl_d) : Json(nullptr);
  j["fcl_distance_cpu_us"] = fcl_d > 0 ? Json(fcl_d_cpu * 1e6 / static_cast<double>(Q)) : Json(nullptr);
  j["pairs_ours"] = contacts;
  j["pairs_fcl"] = fcl_contacts_c < 0 ? Json(nullptr) : Json(fcl_contacts_c);
  j["pairs_fcl_distance"] = fcl_contacts_d < 0 ? Json(nullptr) : Json(fcl_contacts_d);
  j["candidates_per_query"] = static_cast<double>(candidates) / static_cast<double>(Q);
  return j;
}

// ------------------------------------------------------------------ (c) a 1,000-face hull

Json hull_case(const BenchOptions& o, const dcol::Polytope& hull, const dcol::Primitive& other, const std::string& name) {
  std::mt19937 rng(o.seed + 2);
  const long P = o.hull_poses;
  // the partner 1.3–3 from the hull's centre (mostly separated, some overlapping), random rotations
  std::uniform_real_distribution<double> Ud(1.3, 3.0);
  std::normal_distribution<double> N(0.0, 1.0);
  std::vector<Pose> poses;
  for (long i = 0; i < P; ++i)
    poses.push_back(random_rotation_pose(rng, Ud(rng) * Vec3(N(rng), N(rng), N(rng)).normalized()));
  const dcol::Primitive h = hull;
  dcol::ContactResult r;
  dcol::ContactDerivatives d;
  long not_ok = 0, overlapping = 0;
  const auto once = [&](long i) {
    dcol::solve_contact(h, Pose::identity(), other, poses[static_cast<size_t>(i)], r);
    dcol::contact_derivatives(r, d);
  };
  for (long i = 0; i < std::min<long>(P, 100); ++i) once(i);
  double ours_cpu = 0, fcl_cpu = 0;
  const double ours_s = seconds([&] {
    for (long i = 0; i < P; ++i) {
      once(i);
      not_ok += !r.ok();
      overlapping += r.ok() && r.alpha <= 1.0;
    }
  }, &ours_cpu);
  Json j;
  j["name"] = name;
  j["description"] = "DCOL hull (" + std::to_string(hull.num_faces) + " faces) vs " +
                     dcol::primitive_type_name(dcol::primitive_type(other)) +
                     ": solve_contact + contact_derivatives (world), cold start";
  j["faces"] = hull.num_faces;
  j["poses"] = P;
  double fcl_s = 0;
  long fcl_overlapping = -1;
#ifdef DIFFCOL_HAVE_FCL
  {
    Mat3 a1, a2;
    auto g1 = fcl_geometry(h, a1);
    auto g2 = fcl_geometry(other, a2);
    FclObject o1(g1, a1, 0), o2(g2, a2, 1);
    o1.place(Pose::identity(), 0.0);
    const fcl::DistanceRequestd req = fcl_distance_request();
    fcl::DistanceResultd fr;
    long pen = 0;
    const auto fcl_once = [&](long i) {
      fcl::Transform3d T = fcl::Transform3d::Identity();
      T.linear() = poses[static_cast<size_t>(i)].R * a2;
      T.translation() = poses[static_cast<size_t>(i)].p;
      o2.setTransform(T);
      fr.clear();
      return fcl::distance(&o1, &o2, req, fr);
    };
    for (long i = 0; i < std::min<long>(P, 100); ++i) (void)fcl_once(i);
    fcl_s = seconds([&] {
      for (long i = 0; i < P; ++i) pen += fcl_once(i) < 0;
    }, &fcl_cpu);
    fcl_overlapping = pen;
  }
  j["fcl_computes"] = kFclDescriptionHull;
#else
  j["fcl_computes"] = "FCL not built";
#endif
  j.update(timing_pair(ours_s, fcl_s, P, ours_cpu, fcl_cpu));
  j["overlapping_ours"] = overlapping;
  j["overlapping_fcl"] = fcl_overlapping < 0 ? Json(nullptr) : Json(fcl_overlapping);
  j["not_ok"] = not_ok;
  return j;
}

std::string num_or_dash(const Json& v, int prec) { return v.is_number() ? fixed(v.get<double>(), prec) : "-"; }

void print_table(std::ostream& os, const Json& out) {
  os << "diffcol scene-bench (seed " << out["seed"].get<unsigned>() << ")\n" << out["host_line"].get<std::string>() << "\n\n";
  os << "case                 ours [us]    FCL [us]   ratio   CPU: ours [us]  FCL [us]   ratio   pairs ours / FCL\n";
  for (const Json& c : out["cases"]) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-18s %11s %11s %7s %15s %9s %7s   %s / %s\n", c["name"].get<std::string>().c_str(),
                  num_or_dash(c["ours_us"], 2).c_str(), num_or_dash(c["fcl_us"], 2).c_str(),
                  num_or_dash(c["ratio_to_fcl"], 3).c_str(), num_or_dash(c["ours_cpu_us"], 2).c_str(),
                  num_or_dash(c["fcl_cpu_us"], 2).c_str(), num_or_dash(c["ratio_to_fcl_cpu"], 3).c_str(),
                  c.contains("pairs_ours") ? c["pairs_ours"].dump().c_str()
                                           : c["overlapping_ours"].dump().c_str(),
                  c.contains("pairs_fcl") ? c["pairs_fcl"].dump().c_str() : c["overlapping_fcl"].dump().c_str());
    os << buf;
  }
  os << "\n";
  for (const Json& c : out["cases"]) {
    os << c["name"].get<std::string>() << ": " << c["description"].get<std::string>() << "\n";
    if (c.contains("speedup_2_threads"))
      os << "  2 threads: " << num_or_dash(c["ours_us_2_threads"], 2) << " us (speed-up "
         << num_or_dash(c["speedup_2_threads"], 2) << "); FCL with fcl::distance per pair: "
         << num_or_dash(c["fcl_distance_us"], 2) << " us (ratio " << num_or_dash(c["ratio_to_fcl_distance"], 3)
         << ", contacts " << c["pairs_fcl_distance"].dump() << ")\n";
    if (c.contains("ours_us_no_derivatives"))
      os << "  ours without derivatives: " << num_or_dash(c["ours_us_no_derivatives"], 2) << " us\n";
    if (c.contains("pairs_only_ours"))
      os << "  pairs reported by one side only: ours " << c["pairs_only_ours"].dump() << ", FCL "
         << c["pairs_only_fcl"].dump() << " (max |FCL distance - margin| of those: "
         << (c.contains("mismatch_max_distance_from_margin") ? c["mismatch_max_distance_from_margin"].dump() : "-")
         << "); pairs not ok: " << c["pairs_not_ok"].dump() << "\n";
    if (c.contains("mismatch_examples"))
      for (const Json& m : c["mismatch_examples"])
        os << "    configuration " << m["configuration"].dump() << ", " << m["shapes"][0].get<std::string>() << " / "
           << m["shapes"][1].get<std::string>() << " (reported by " << m["reported_by"].get<std::string>()
           << "): FCL " << m["fcl_distance"].dump() << ", FCL's other GJK " << m["fcl_distance_other_gjk"].dump()
           << ", ours " << m["our_distance"].dump() << "\n";
    if (c.contains("not_ok")) os << "  solves not ok: " << c["not_ok"].dump() << "\n";
    os << "  FCL: " << c["fcl_computes"].get<std::string>() << "\n";
  }
  os << "ratio = ours / FCL (below 1: faster), wall and thread CPU time, single thread unless stated\n";
}

}  // namespace

void print_scene_bench_usage(std::ostream& os) {
  os << R"(usage: diffcol scene-bench [--configurations N] [--queries Q] [--hull-poses P] [--quick]
                           [--urdf FILE] [--srdf FILE] [--seed S] [--cases LIST] [--json]

Times the scene layer against FCL (when built with it) on the same geometry, in the same run:
  robot_arm7        arm7 among 50 static obstacles at N random configurations: Robot::set_configuration
                    + Robot::query (margin 0.05, self-collision, joint-space derivatives) against FCL
                    broad phase (two DynamicAABBTree managers) + fcl::distance per close pair
  bodies_1000       1000 moving bodies, broad + narrow phase, margin 0, 1 and 2 threads, against FCL's
                    DynamicAABBTree self-collide with fcl::collide (and fcl::distance) per pair
  hull1000_box/_capsule  a 1,000-face DCOL hull: solve_contact + contact_derivatives against fcl::distance

Options
  --configurations N  robot configurations (default 10000; --quick 200)
  --queries Q         scene queries of the 1000-body case (default 200; --quick 5)
  --hull-poses P      poses of the hull cases (default 2000; --quick 100)
  --bodies B          bodies of the second case (default 1000)
  --quick             the small sizes above (for tests)
  --urdf FILE         the robot (default: arm7.urdf found in <exe>/../tests/data/robots,
                      <exe>/../../tests/data/robots, <exe>/../share/diffcol/robots, then the
                      source tree the program was built from)
  --srdf FILE         its SRDF (default: the .srdf beside the URDF, if any)
  --seed S            random scenes and configurations (default 1)
  --fcl-solver S      FCL's GJK for fcl::distance: libccd (FCL's default and the faster one
                      on these cases, default) or indep (FCL's own)
  --cases LIST        the cases to run, comma-separated: robot, bodies, hull (default all three)
  --json              JSON on stdout: "host" and per case ours_us, fcl_us, ratio_to_fcl, pair counts
)";
}

int cmd_scene_bench(const std::vector<std::string>& args) {
  BenchOptions o;
  bool quick = false;
  long n_conf = -1, n_q = -1, n_h = -1;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      print_scene_bench_usage(std::cout);
      return kExitOk;
    } else if (take_option(args, i, "--configurations", v)) {
      n_conf = parse_long(v, "--configurations", 1, 100000000);
    } else if (take_option(args, i, "--queries", v)) {
      n_q = parse_long(v, "--queries", 1, 1000000);
    } else if (take_option(args, i, "--hull-poses", v)) {
      n_h = parse_long(v, "--hull-poses", 1, 100000000);
    } else if (take_option(args, i, "--bodies", v)) {
      o.bodies = static_cast<int>(parse_long(v, "--bodies", 2, 100000));
    } else if (take_option(args, i, "--urdf", v)) {
      o.urdf = v;
    } else if (take_option(args, i, "--srdf", v)) {
      if (!fs::exists(v)) throw InputError("--srdf: no such file '" + v + "'");
      o.srdf = v;
    } else if (take_option(args, i, "--seed", v)) {
      o.seed = static_cast<unsigned>(parse_long(v, "--seed", 0, 4294967295L));
    } else if (take_option(args, i, "--fcl-solver", v)) {
      if (v != "libccd" && v != "indep") throw InputError("--fcl-solver: expected libccd or indep, got '" + v + "'");
      o.fcl_libccd = v == "libccd";
    } else if (take_option(args, i, "--cases", v)) {
      for (size_t b = 0; b <= v.size();) {
        const size_t e = std::min(v.find(',', b), v.size());
        const std::string c = v.substr(b, e - b);
        if (c != "robot" && c != "bodies" && c != "hull")
          throw InputError("--cases: expected a comma-separated list of robot, bodies, hull; got '" + c + "'");
        b = e + 1;
      }
      o.cases = v;
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--json") {
      o.json = true;
    } else {
      throw InputError("scene-bench: unknown argument '" + a + "' (see diffcol help scene-bench)");
    }
  }
  o.configurations = n_conf > 0 ? n_conf : (quick ? 200 : 10000);
  o.queries = n_q > 0 ? n_q : (quick ? 5 : 200);
  o.hull_poses = n_h > 0 ? n_h : (quick ? 100 : 2000);

#ifdef DIFFCOL_HAVE_FCL
  g_fcl_libccd = o.fcl_libccd;
#endif
  Json out;
  out["command"] = "scene-bench";
  const HostInfo host = host_info();
  out["host"] = host_json(host);
  out["host_line"] = host_line(host);
  out["seed"] = o.seed;
  out["fcl_solver"] = o.fcl_libccd ? "libccd" : "indep";
  out["fcl"] =
#ifdef DIFFCOL_HAVE_FCL
      true;
#else
      false;
#endif
  out["cases"] = Json::array();
  const auto wanted = [&](const std::string& c) { return ("," + o.cases + ",").find("," + c + ",") != std::string::npos; };
  if (wanted("robot")) out["cases"].push_back(robot_case(o));
  if (wanted("bodies")) out["cases"].push_back(bodies_case(o));
  if (wanted("hull")) {
    std::mt19937 rng(o.seed + 3);
    const dcol::Polytope hull = thousand_face_hull(rng);
    out["cases"].push_back(hull_case(o, hull, dcol::Polytope::box(0.4, 0.3, 0.2), "hull1000_box"));
    out["cases"].push_back(hull_case(o, hull, dcol::Capsule(0.25, 0.8), "hull1000_capsule"));
  }
  if (o.json) write_json(std::cout, out);
  else print_table(std::cout, out);
  return kExitOk;
}

}  // namespace diffcol::cli
