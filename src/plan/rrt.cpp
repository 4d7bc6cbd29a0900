// RRT and RRT-Connect through a scene (include/diffcol/plan/rrt.hpp), on OMPL.
#include "diffcol/plan/rrt.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numbers>
#include <stdexcept>

#include <ompl/base/PlannerData.h>
#include <ompl/base/ProblemDefinition.h>
#include <ompl/base/SpaceInformation.h>
#include <ompl/base/spaces/RealVectorStateSpace.h>
#include <ompl/base/spaces/SO2StateSpace.h>
#include <ompl/geometric/PathGeometric.h>
#include <ompl/geometric/PathSimplifier.h>
#include <ompl/geometric/planners/rrt/RRT.h>
#include <ompl/geometric/planners/rrt/RRTConnect.h>
#include <ompl/util/Console.h>
#include <ompl/util/RandomNumbers.h>

#include "diffcol/scene/robot.hpp"
#include "diffcol/scene/scene.hpp"

namespace diffcol::plan {

namespace ob = ompl::base;
namespace og = ompl::geometric;

const char* space_kind_name(RrtSpaceKind k) {
  switch (k) {
    case RrtSpaceKind::translation: return "translation";
    case RrtSpaceKind::planar: return "planar";
    case RrtSpaceKind::joints: return "joints";
  }
  return "unknown";
}

const char* algorithm_name(RrtAlgorithm a) {
  switch (a) {
    case RrtAlgorithm::rrt: return "rrt";
    case RrtAlgorithm::rrt_connect: return "rrt_connect";
  }
  return "unknown";
}

const char* status_name(RrtStatus s) {
  switch (s) {
    case RrtStatus::ok: return "ok";
    case RrtStatus::start_invalid: return "start_invalid";
    case RrtStatus::goal_invalid: return "goal_invalid";
    case RrtStatus::no_path: return "no_path";
    case RrtStatus::too_few_knots: return "too_few_knots";
  }
  return "unknown";
}

RrtProblem RrtProblem::translation(int body, const Vec3& start, const Vec3& goal, const Vec3& lower,
                                   const Vec3& upper, const Pose& orientation) {
  RrtProblem p;
  p.kind = RrtSpaceKind::translation;
  p.body = body;
  p.start = start;
  p.goal = goal;
  p.lower = lower;
  p.upper = upper;
  p.reference = orientation;
  return p;
}

RrtProblem RrtProblem::planar(int body, const Vec3& start, const Vec3& goal, const Eigen::Vector2d& lower,
                              const Eigen::Vector2d& upper, const Pose& reference) {
  RrtProblem p;
  p.kind = RrtSpaceKind::planar;
  p.body = body;
  p.start = start;
  p.goal = goal;
  p.lower = Eigen::Vector3d(lower.x(), lower.y(), -std::numbers::pi);
  p.upper = Eigen::Vector3d(upper.x(), upper.y(), std::numbers::pi);
  p.reference = reference;
  return p;
}

RrtProblem RrtProblem::joints(scene::Robot& robot, const Eigen::VectorXd& start, const Eigen::VectorXd& goal,
                              const Pose& base, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  RrtProblem p;
  p.kind = RrtSpaceKind::joints;
  p.robot = &robot;
  p.start = start;
  p.goal = goal;
  p.base = base;
  p.lower = lower.size() ? lower : robot.model().lower_limits();
  p.upper = upper.size() ? upper : robot.model().upper_limits();
  return p;
}

namespace {

[[noreturn]] void fail_rrt(const std::string& what) { throw std::invalid_argument("plan_rrt: " + what); }

int state_size(const RrtProblem& p) {
  return p.kind == RrtSpaceKind::joints ? (p.robot ? p.robot->num_positions() : -1) : 3;
}

void check_vector(const Eigen::VectorXd& v, int n, const char* name) {
  if (v.size() != n)
    fail_rrt(std::string(name) + " has " + std::to_string(v.size()) + " entries, the state " + std::to_string(n));
  if (!v.allFinite()) fail_rrt(std::string(name) + " has a NaN or infinite entry");
}

void check_problem(const scene::Scene& scene, const RrtProblem& p) {
  if (p.kind == RrtSpaceKind::joints) {
    if (!p.robot) fail_rrt("a joints problem needs a robot");
    if (const char* why = p.base.invalid_reason()) fail_rrt(std::string("base pose: ") + why);
  } else {
    if (p.body < 0 || p.body >= scene.num_bodies())
      fail_rrt("body " + std::to_string(p.body) + " is not a body of the scene (" + std::to_string(scene.num_bodies()) +
           " bodies)");
    if (scene.body(p.body).is_static)
      fail_rrt("body " + std::to_string(p.body) + " is static: the scene pairs no static obstacle with it");
    if (const char* why = p.reference.invalid_reason()) fail_rrt(std::string("reference pose: ") + why);
  }
  const int n = state_size(p);
  check_vector(p.start, n, "start");
  check_vector(p.goal, n, "goal");
  check_vector(p.lower, n, "lower bound");
  check_vector(p.upper, n, "upper bound");
  const int bounded = p.kind == RrtSpaceKind::planar ? 2 : n;
  for (int i = 0; i < bounded; ++i) {
    if (!(p.lower[i] < p.upper[i]))
      fail_rrt("empty bounds: lower[" + std::to_string(i) + "] = " + std::to_string(p.lower[i]) + " is not below upper[" +
           std::to_string(i) + "] = " + std::to_string(p.upper[i]));
    if (p.start[i] < p.lower[i] || p.start[i] > p.upper[i]) fail_rrt("start[" + std::to_string(i) + "] is outside the bounds");
    if (p.goal[i] < p.lower[i] || p.goal[i] > p.upper[i]) fail_rrt("goal[" + std::to_string(i) + "] is outside the bounds");
  }
}

void check_options(const RrtOptions& o) {
  if (!(o.time_limit > 0.0) || !std::isfinite(o.time_limit)) fail_rrt("time_limit must be positive and finite");
  if (o.seed == 0) fail_rrt("seed must be positive (OMPL ignores 0)");
  if (!(o.clearance >= 0.0) || !std::isfinite(o.clearance)) fail_rrt("clearance must be ≥ 0 and finite");
  if (!(o.step >= 0.0) || !std::isfinite(o.step)) fail_rrt("step must be ≥ 0 and finite");
  if (!(o.range >= 0.0) || !std::isfinite(o.range)) fail_rrt("range must be ≥ 0 and finite");
  if (!(o.goal_bias >= 0.0 && o.goal_bias <= 1.0)) fail_rrt("goal_bias must lie in [0, 1]");
  if (o.knots < 2) fail_rrt("knots must be at least 2");
}

bool pair_involves(const scene::PairResult& r, const RrtProblem& p) {
  if (p.kind != RrtSpaceKind::joints) return r.body1 == p.body || r.body2 == p.body;
  return p.robot->body_link(r.body1) >= 0 || p.robot->body_link(r.body2) >= 0;
}

// The check itself, on a placed body: every pair of the body solved, separated and clear.
bool placed_state_is_free(scene::Scene& scene, const RrtProblem& p, double clearance, scene::QueryResult& out) {
  scene::QueryOptions q;
  q.margin = clearance;
  q.euclidean = clearance > 0.0;
  scene.query(q, out);
  for (const scene::PairResult& r : out.pairs) {
    if (!pair_involves(r, p)) continue;
    if (!r.ok() || !r.separated) return false;
    if (clearance > 0.0 && (!r.has_distance || !(r.distance >= clearance))) return false;
  }
  return true;
}

void place(scene::Scene& scene, const RrtProblem& p, const Eigen::VectorXd& x) {
  if (p.kind == RrtSpaceKind::joints) p.robot->set_configuration(x, p.base);
  else scene.set_body_pose(p.body, body_pose_at(p, x));
}

// Restores the body's pose or the robot's configuration.
struct Restore {
  scene::Scene& scene;
  const RrtProblem& p;
  Pose X_WB;
  Eigen::VectorXd q;
  Pose base;
  Restore(scene::Scene& s, const RrtProblem& pr) : scene(s), p(pr) {
    if (p.kind == RrtSpaceKind::joints) {
      q = p.robot->q();
      base = p.robot->base_pose();
    } else {
      X_WB = scene.body(p.body).X_WB;
    }
  }
  ~Restore() {
    try {
      if (p.kind == RrtSpaceKind::joints) p.robot->set_configuration(q, base);
      else scene.set_body_pose(p.body, X_WB);
    } catch (...) {
    }
  }
};

// OMPL's console at one level for the lifetime of this object.
struct QuietOmpl {
  ompl::msg::LogLevel previous = ompl::msg::getLogLevel();
  QuietOmpl() { ompl::msg::setLogLevel(ompl::msg::LOG_NONE); }
  ~QuietOmpl() { ompl::msg::setLogLevel(previous); }
};

double wrap_angle(double a) { return std::remainder(a, 2.0 * std::numbers::pi); }

// The state space: R^n boxes, or R^2 × SO(2) with unit weights.
ob::StateSpacePtr make_space(const RrtProblem& p) {
  const int n = static_cast<int>(p.start.size());
  if (p.kind == RrtSpaceKind::planar) {
    auto xy = std::make_shared<ob::RealVectorStateSpace>(2);
    ob::RealVectorBounds b(2);
    for (int i = 0; i < 2; ++i) {
      b.setLow(i, p.lower[i]);
      b.setHigh(i, p.upper[i]);
    }
    xy->setBounds(b);
    auto space = std::make_shared<ob::CompoundStateSpace>();
    space->addSubspace(xy, 1.0);
    space->addSubspace(std::make_shared<ob::SO2StateSpace>(), 1.0);
    space->lock();
    return space;
  }
  auto space = std::make_shared<ob::RealVectorStateSpace>(n);
  ob::RealVectorBounds b(n);
  for (int i = 0; i < n; ++i) {
    b.setLow(i, p.lower[i]);
    b.setHigh(i, p.upper[i]);
  }
  space->setBounds(b);
  return space;
}

void to_ompl(const RrtProblem& p, const Eigen::VectorXd& x, ob::State* s) {
  if (p.kind == RrtSpaceKind::planar) {
    auto* c = s->as<ob::CompoundState>();
    c->as<ob::RealVectorStateSpace::StateType>(0)->values[0] = x[0];
    c->as<ob::RealVectorStateSpace::StateType>(0)->values[1] = x[1];
    c->as<ob::SO2StateSpace::StateType>(1)->value = wrap_angle(x[2]);
    return;
  }
  auto* r = s->as<ob::RealVectorStateSpace::StateType>();
  for (Eigen::Index i = 0; i < x.size(); ++i) r->values[i] = x[i];
}

void from_ompl(const RrtProblem& p, const ob::State* s, Eigen::VectorXd& x) {
  if (p.kind == RrtSpaceKind::planar) {
    const auto* c = s->as<ob::CompoundState>();
    x[0] = c->as<ob::RealVectorStateSpace::StateType>(0)->values[0];
    x[1] = c->as<ob::RealVectorStateSpace::StateType>(0)->values[1];
    x[2] = c->as<ob::SO2StateSpace::StateType>(1)->value;
    return;
  }
  const auto* r = s->as<ob::RealVectorStateSpace::StateType>();
  for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = r->values[i];
}

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

Pose body_pose_at(const RrtProblem& p, const Eigen::VectorXd& x) {
  if (x.size() != 3 || !x.allFinite()) fail_rrt("a body state has 3 finite entries");
  Pose X;
  if (p.kind == RrtSpaceKind::translation) {
    X.R = p.reference.R;
    X.p = x;
    return X;
  }
  if (p.kind != RrtSpaceKind::planar) fail_rrt("body_pose_at: a joints problem has no single body");
  const double c = std::cos(x[2]), s = std::sin(x[2]);
  Mat3 Rz;
  Rz << c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0;
  X.R = Rz * p.reference.R;
  X.p = Vec3(x[0], x[1], p.reference.p.z());
  return X;
}

bool state_is_free(scene::Scene& scene, const RrtProblem& problem, const Eigen::VectorXd& state, double clearance) {
  check_problem(scene, problem);
  if (!(clearance >= 0.0) || !std::isfinite(clearance)) fail_rrt("clearance must be ≥ 0 and finite");
  check_vector(state, state_size(problem), "state");
  place(scene, problem, state);
  scene::QueryResult out;
  return placed_state_is_free(scene, problem, clearance, out);
}

RrtResult plan_rrt(scene::Scene& scene, const RrtProblem& problem, const RrtOptions& options) {
  check_problem(scene, problem);
  check_options(options);
  const Restore restore(scene, problem);
  const QuietOmpl quiet;
  RrtResult result;
  const int n = static_cast<int>(problem.start.size());

  // The check every state goes through (its time and count recorded).
  scene::QueryResult scratch;
  Eigen::VectorXd x(n);
  auto check = [&](const Eigen::VectorXd& state) {
    const auto t0 = Clock::now();
    place(scene, problem, state);
    const bool free = placed_state_is_free(scene, problem, options.clearance, scratch);
    result.check_s += seconds_since(t0);
    ++result.validity_checks;
    return free;
  };
  if (!check(problem.start)) {
    result.status = RrtStatus::start_invalid;
    result.message = "the start is in collision or closer than the clearance";
    return result;
  }
  if (!check(problem.goal)) {
    result.status = RrtStatus::goal_invalid;
    result.message = "the goal is in collision or closer than the clearance";
    return result;
  }

  ompl::RNG::setSeed(options.seed);  // every RNG constructed from here on is seeded in turn
  const ob::StateSpacePtr space = make_space(problem);
  auto si = std::make_shared<ob::SpaceInformation>(space);
  si->setStateValidityChecker([&](const ob::State* s) {
    from_ompl(problem, s, x);
    return check(x);
  });
  double step = options.step;
  if (step == 0.0)
    step = (problem.kind == RrtSpaceKind::translation && options.clearance > 0.0) ? options.clearance
                                                                                 : 0.01 * space->getMaximumExtent();
  // OMPL checks segments at a fraction of the extent; it rounds the count of checks up.
  si->setStateValidityCheckingResolution(std::min(1.0, step / space->getMaximumExtent()));
  si->setup();

  ob::ScopedState<> start(space), goal(space);
  to_ompl(problem, problem.start, start.get());
  to_ompl(problem, problem.goal, goal.get());
  auto pdef = std::make_shared<ob::ProblemDefinition>(si);
  pdef->setStartAndGoalStates(start, goal);

  ob::PlannerPtr planner;
  if (options.algorithm == RrtAlgorithm::rrt) {
    auto rrt = std::make_shared<og::RRT>(si);
    rrt->setGoalBias(options.goal_bias);
    if (options.range > 0.0) rrt->setRange(options.range);
    planner = rrt;
  } else {
    auto connect = std::make_shared<og::RRTConnect>(si);
    if (options.range > 0.0) connect->setRange(options.range);
    planner = connect;
  }
  planner->setProblemDefinition(pdef);
  planner->setup();
  auto t0 = Clock::now();
  const ob::PlannerStatus solved = planner->solve(ob::timedPlannerTerminationCondition(options.time_limit));
  result.plan_s = seconds_since(t0);
  ob::PlannerData data(si);
  planner->getPlannerData(data);
  result.tree_states = static_cast<int>(data.numVertices());
  if (solved != ob::PlannerStatus::EXACT_SOLUTION || !pdef->getSolutionPath()) {
    result.status = RrtStatus::no_path;
    result.message = std::string("no path within the time limit of ") + std::to_string(options.time_limit) + " s (" +
                     std::to_string(result.tree_states) + " tree states)";
    return result;
  }
  og::PathGeometric path = *pdef->getSolutionPath()->as<og::PathGeometric>();

  if (options.simplify) {
    t0 = Clock::now();
    og::PathSimplifier simplifier(si);
    for (int round = 0; round < 2; ++round) {
      simplifier.reduceVertices(path);
      simplifier.shortcutPath(path);
    }
    simplifier.reduceVertices(path);
    result.simplify_s = seconds_since(t0);
  }

  // Knots: the vertices, and the rest spread over the segments by length (largest remainder).
  const int V = static_cast<int>(path.getStateCount());
  const int N = options.knots;
  result.path_vertices = V;
  std::vector<double> seg(std::max(V - 1, 0));
  double total = 0.0;
  for (int i = 0; i + 1 < V; ++i) total += seg[i] = si->distance(path.getState(i), path.getState(i + 1));
  result.path_length = total;
  ob::State* tmp = si->allocState();
  std::vector<Eigen::VectorXd> knots;
  knots.reserve(N);
  auto push = [&](const ob::State* s) {
    from_ompl(problem, s, x);
    knots.push_back(x);
  };
  if (V >= 2 && V <= N) {
    const int extra = N - V;
    std::vector<int> count(V - 1, 0);
    std::vector<std::pair<double, int>> remainder;
    int given = 0;
    for (int i = 0; i + 1 < V; ++i) {
      const double ideal = total > 0.0 ? extra * seg[i] / total : double(extra) / (V - 1);
      count[i] = static_cast<int>(std::floor(ideal));
      given += count[i];
      remainder.emplace_back(-(ideal - count[i]), i);
    }
    std::sort(remainder.begin(), remainder.end());
    for (int k = 0; given < extra; ++k, ++given) ++count[remainder[k % remainder.size()].second];
    for (int i = 0; i + 1 < V; ++i) {
      push(path.getState(i));
      for (int j = 1; j <= count[i]; ++j) {
        space->interpolate(path.getState(i), path.getState(i + 1), double(j) / (count[i] + 1), tmp);
        push(tmp);
      }
    }
    push(path.getState(V - 1));
  } else {
    // More vertices than knots (or a single state): knots evenly spaced by length, chords checked.
    int i = 0;
    double at = 0.0;  // length at the start of segment i
    for (int k = 0; k < N; ++k) {
      const double s = total * k / (N - 1);
      while (i + 2 < V && at + seg[i] < s) at += seg[i++];
      if (V < 2) {
        push(path.getState(0));
      } else {
        const double t = seg[i] > 0.0 ? std::clamp((s - at) / seg[i], 0.0, 1.0) : 0.0;
        space->interpolate(path.getState(i), path.getState(i + 1), t, tmp);
        push(tmp);
      }
    }
    ob::State* a = si->allocState();
    for (int k = 0; k + 1 < N && result.status != RrtStatus::too_few_knots; ++k) {
      to_ompl(problem, knots[k], a);
      to_ompl(problem, knots[k + 1], tmp);
      if (!si->checkMotion(a, tmp)) {
        result.status = RrtStatus::too_few_knots;
        result.message = "the path has " + std::to_string(V) + " vertices and the chord between knots " +
                         std::to_string(k) + " and " + std::to_string(k + 1) + " of " + std::to_string(N) +
                         " collides: ask for more knots";
      }
    }
    si->freeState(a);
    if (result.status == RrtStatus::too_few_knots) {
      si->freeState(tmp);
      return result;
    }
  }
  si->freeState(tmp);
  // The exact start and goal, and planar headings unwrapped.
  knots.front() = problem.start;
  knots.back() = problem.goal;
  if (problem.kind == RrtSpaceKind::planar) {
    for (std::size_t k = 1; k < knots.size(); ++k) {
      const double target = k + 1 == knots.size() ? problem.goal[2] : knots[k][2];
      knots[k][2] = knots[k - 1][2] + wrap_angle(target - knots[k - 1][2]);
    }
  }
  result.waypoints = std::move(knots);
  result.status = RrtStatus::ok;
  return result;
}

}  // namespace diffcol::plan
