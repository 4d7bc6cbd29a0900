// FCL baseline of `diffcol bench --baseline fcl` (see fcl_baseline.hpp for the shape mapping).
#include "fcl_baseline.hpp"

#include <stdexcept>

#ifdef DIFFCOL_HAVE_FCL

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcl/config.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/ellipsoid.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/distance.h>

namespace diffcol::cli::fcl_baseline {
namespace {

constexpr int kFrustumSides = 32;

struct Geometry {
  std::shared_ptr<fcl::CollisionGeometryd> geom;
  fcl::Transform3d align = fcl::Transform3d::Identity();  ///< FCL geometry frame in the body frame
  std::string text;
};

/// A Convex from vertices and faces given as unordered vertex-index sets; each face is ordered
/// counter-clockwise seen from outside (FCL's convention), the outside being away from `inside`.
std::shared_ptr<fcl::Convexd> make_convex(const std::vector<Vec3>& verts, const std::vector<std::vector<int>>& face_sets,
                                          const Vec3& inside) {
  auto v = std::make_shared<std::vector<fcl::Vector3d>>();
  for (const Vec3& p : verts) v->emplace_back(p);
  auto f = std::make_shared<std::vector<int>>();
  int nf = 0;
  for (std::vector<int> face : face_sets) {
    if (face.size() < 3) continue;
    Vec3 c = Vec3::Zero();
    for (int i : face) c += verts[i];
    c /= static_cast<double>(face.size());
    // outward normal: Newell's normal of any ordering is ± the plane normal; orient it away from `inside`
    Vec3 n = (verts[face[1]] - verts[face[0]]).cross(verts[face[2]] - verts[face[0]]);
    for (size_t k = 3; k < face.size() && n.norm() < 1e-12; ++k)
      n = (verts[face[1]] - verts[face[0]]).cross(verts[face[k]] - verts[face[0]]);
    if ((c - inside).dot(n) < 0) n = -n;
    n.normalize();
    const Vec3 u = (verts[face[0]] - c).normalized();
    const Vec3 w = n.cross(u);
    std::sort(face.begin(), face.end(), [&](int a, int b) {
      const Vec3 da = verts[a] - c, db = verts[b] - c;
      return std::atan2(da.dot(w), da.dot(u)) < std::atan2(db.dot(w), db.dot(u));
    });
    f->push_back(static_cast<int>(face.size()));
    f->insert(f->end(), face.begin(), face.end());
    ++nf;
  }
  return std::make_shared<fcl::Convexd>(v, nf, f);
}

Geometry make_geometry(const Shape& s) {
  Geometry g;
  std::ostringstream os;
  switch (s.type()) {
    case ShapeType::sphere: {
      const double R = s.as<Sphere>().radius();
      g.geom = std::make_shared<fcl::Sphered>(R);
      os << "Sphere(R=" << R << ")";
      break;
    }
    case ShapeType::superellipsoid: {
      const auto& e = s.as<Superellipsoid>();
      const Vec3 ax = e.semi_axes();
      if (e.exponent() == 1) {
        g.geom = std::make_shared<fcl::Ellipsoidd>(ax.x(), ax.y(), ax.z());
        os << "Ellipsoid(" << ax.x() << ", " << ax.y() << ", " << ax.z() << ")";
      } else {
        g.geom = std::make_shared<fcl::Boxd>(2 * ax.x(), 2 * ax.y(), 2 * ax.z());
        os << "Box(" << 2 * ax.x() << ", " << 2 * ax.y() << ", " << 2 * ax.z() << ")";
      }
      break;
    }
    case ShapeType::superelliptic_cylinder: {
      const auto& c = s.as<SuperellipticCylinder>();
      g.geom = std::make_shared<fcl::Cylinderd>(c.radius(), 2 * c.half_height());
      // FCL's cylinder axis is its z axis; ours is body x: rotate z onto x (+90 deg about y).
      g.align.linear() = Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()).toRotationMatrix();
      os << "Cylinder(R=" << c.radius() << ", length=" << 2 * c.half_height() << ", axis x)";
      break;
    }
    case ShapeType::smooth_polytope: {
      const auto& p = s.as<SmoothPolytope>();
      const auto& V = p.vertices();
      double scale = 0;
      for (const Vec3& v : V) scale = std::max(scale, v.norm());
      std::vector<std::vector<int>> faces;
      for (int i = 0; i < p.num_faces(); ++i) {
        const Vec3 a = p.normal(i);
        const double b = p.offset(i);
        std::vector<int> on;
        for (int k = 0; k < static_cast<int>(V.size()); ++k)
          if (std::abs(a.dot(V[k]) - b) <= 1e-9 * a.norm() * std::max(scale, 1.0)) on.push_back(k);
        if (on.size() >= 3) faces.push_back(on);
      }
      auto cv = make_convex(V, faces, Vec3::Zero());
      os << "Convex(exact polytope: " << V.size() << " vertices, " << faces.size() << " faces)";
      g.geom = cv;
      break;
    }
    case ShapeType::smooth_truncated_cone: {
      const auto& t = s.as<SmoothTruncatedCone>();
      std::vector<Vec3> V;
      std::vector<std::vector<int>> faces(2);
      const int K = kFrustumSides;
      for (int k = 0; k < K; ++k) {
        const double th = 2 * M_PI * k / K;
        V.emplace_back(-t.bottom_extent(), t.bottom_radius() * std::cos(th), t.bottom_radius() * std::sin(th));
        faces[0].push_back(static_cast<int>(V.size()) - 1);
      }
      for (int k = 0; k < K; ++k) {
        const double th = 2 * M_PI * k / K;
        V.emplace_back(t.top_extent(), t.top_radius() * std::cos(th), t.top_radius() * std::sin(th));
        faces[1].push_back(static_cast<int>(V.size()) - 1);
      }
      for (int k = 0; k < K; ++k) faces.push_back({k, (k + 1) % K, K + (k + 1) % K, K + k});
      g.geom = make_convex(V, faces, Vec3(0.5 * (t.top_extent() - t.bottom_extent()), 0, 0));
      os << "Convex(frustum: " << K << "-gons, Rb=" << t.bottom_radius() << " at x=-" << t.bottom_extent()
         << ", Rt=" << t.top_radius() << " at x=" << t.top_extent() << ")";
      break;
    }
  }
  g.geom->computeLocalAABB();
  g.text = os.str();
  return g;
}

}  // namespace

bool available() { return true; }
std::string version() { return FCL_VERSION; }
std::string describe(const Shape& s) { return make_geometry(s).text; }

namespace {

// ---- per-query failure containment (used only inside the forked child) ----
sigjmp_buf g_jmp;
volatile sig_atomic_t g_in_query = 0;
volatile sig_atomic_t g_kind = 0;  // failure kind of the last query: 0 ok, 1 abort, 2 exception, 3 hang
std::atomic<unsigned long> g_calls{0};

void on_fail_signal(int sig) {
  if (!g_in_query) {  // not inside fcl::distance: die as usual
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_kind = sig == SIGABRT ? 1 : 3;
  siglongjmp(g_jmp, 1);
}

/// Plain-old-data result sent from the child to the parent.
struct Wire {
  Timing timing;
  double penetrating_pct, failed_pct, agreement_pct;
  long aborts, exceptions, hangs;
};

Wire run_in_child(const Shape& s1, const Shape& s2, const std::vector<Pose>& poses, const Options& opt,
                  size_t warmup, std::vector<double>& ns, const std::vector<char>& diffcol_penetrating) {
  const Geometry g1 = make_geometry(s1), g2 = make_geometry(s2);
  const fcl::GJKSolverType solver = opt.solver == "indep" ? fcl::GST_INDEP : fcl::GST_LIBCCD;
  const fcl::DistanceRequestd request(opt.nearest_points, opt.signed_distance, 0.0, 0.0, opt.tolerance, solver);

  // Precompute the FCL transforms (body 1 at the identity) before timing.
  const size_t n = poses.size();
  const fcl::Transform3d tf1 = g1.align;
  std::vector<fcl::Transform3d> tf2(n);
  for (size_t i = 0; i < n; ++i) {
    fcl::Transform3d X = fcl::Transform3d::Identity();
    X.linear() = poses[i].R;
    X.translation() = poses[i].p;
    tf2[i] = X * g2.align;
  }

  struct sigaction sa {};
  sa.sa_handler = on_fail_signal;
  sa.sa_flags = SA_NODEFER;  // not blocked inside the handler, so siglongjmp needs no mask restore
  sigemptyset(&sa.sa_mask);
  sigaction(SIGABRT, &sa, nullptr);
  sigaction(SIGUSR1, &sa, nullptr);

  // Watchdog: interrupts a query that makes no progress for 2 s (FCL's EPA can loop forever).
  std::atomic<bool> done{false};
  const pthread_t main_thread = pthread_self();
  std::thread watchdog([&] {
    unsigned long last = g_calls.load(std::memory_order_relaxed);
    auto since = std::chrono::steady_clock::now();
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const unsigned long c = g_calls.load(std::memory_order_relaxed);
      const auto now = std::chrono::steady_clock::now();
      if (c != last) {
        last = c;
        since = now;
      } else if (g_in_query && now - since > std::chrono::seconds(2)) {
        pthread_kill(main_thread, SIGUSR1);
        since = now;
      }
    }
  });

  fcl::DistanceResultd result;
  const bool compare = diffcol_penetrating.size() == n;
  size_t penetrating = 0, failed = 0, agree = 0, k = 0;
  long aborts = 0, exceptions = 0, hangs = 0;
  auto call = [&](size_t i) -> double {
    g_calls.store(g_calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    g_kind = 0;
    if (sigsetjmp(g_jmp, 0) != 0) {  // FCL aborted or hung in this query
      g_in_query = 0;
      return std::numeric_limits<double>::quiet_NaN();
    }
    g_in_query = 1;
    double d;
    try {
      result.clear();
      d = fcl::distance(g1.geom.get(), tf1, g2.geom.get(), tf2[i], request, result);
    } catch (...) {
      g_kind = 2;
      d = std::numeric_limits<double>::quiet_NaN();
    }
    g_in_query = 0;
    return d;
  };
  auto record = [&](double d) {  // called in order i = 0..n-1 in the batch pass
    penetrating += d < 0;
    failed += !std::isfinite(d);
    aborts += g_kind == 1;
    exceptions += g_kind == 2;
    hangs += g_kind == 3;
    if (compare) agree += std::isfinite(d) && ((d < 0) == (diffcol_penetrating[k] != 0));
    ++k;
  };
  Wire w{};
  w.timing = time_loop(n, warmup, [] {}, call, record, ns);
  done = true;
  watchdog.join();
  const double dn = static_cast<double>(n);
  w.penetrating_pct = 100.0 * static_cast<double>(penetrating) / dn;
  w.failed_pct = 100.0 * static_cast<double>(failed) / dn;
  w.agreement_pct = compare ? 100.0 * static_cast<double>(agree) / dn : -1.0;
  w.aborts = aborts;
  w.exceptions = exceptions;
  w.hangs = hangs;
  return w;
}

}  // namespace

Result run(const Shape& s1, const Shape& s2, const std::vector<Pose>& poses, const Options& opt, size_t warmup,
           std::vector<double>& ns, const std::vector<char>& diffcol_penetrating) {
  if (opt.solver != "libccd" && opt.solver != "indep")
    throw std::invalid_argument("unknown FCL GJK solver '" + opt.solver + "' (expected libccd or indep)");
  Result r;
  r.shape1 = make_geometry(s1).text;
  r.shape2 = make_geometry(s2).text;

  int fd[2];
  if (pipe(fd) != 0) throw std::runtime_error("pipe() failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    throw std::runtime_error("fork() failed");
  }
  if (pid == 0) {  // child: time FCL, send the result, leave without running the parent's destructors
    close(fd[0]);
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);  // FCL's assert messages
    int code = 0;
    try {
      const Wire w = run_in_child(s1, s2, poses, opt, warmup, ns, diffcol_penetrating);
      const char* p = reinterpret_cast<const char*>(&w);
      size_t left = sizeof w;
      while (left > 0) {
        const ssize_t m = write(fd[1], p, left);
        if (m <= 0) break;
        p += m;
        left -= static_cast<size_t>(m);
      }
    } catch (...) {
      code = 1;
    }
    _exit(code);
  }
  close(fd[1]);
  // Generous limit for the whole pair: the watchdog handles single stuck queries.
  const double limit_s = 300.0 + 2e-3 * static_cast<double>(poses.size());
  Wire w{};
  size_t got = 0;
  const auto t0 = std::chrono::steady_clock::now();
  bool timed_out = false;
  while (got < sizeof w) {
    const double left_s = limit_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (left_s <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fd[0], POLLIN, 0};
    const int pr = poll(&pfd, 1, static_cast<int>(std::min(left_s, 1000.0) * 1000));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    const ssize_t m = read(fd[0], reinterpret_cast<char*>(&w) + got, sizeof w - got);
    if (m <= 0) break;  // EOF: the child died
    got += static_cast<size_t>(m);
  }
  close(fd[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got == sizeof w) {
    r.timing = w.timing;
    r.penetrating_pct = w.penetrating_pct;
    r.failed_pct = w.failed_pct;
    r.agreement_pct = w.agreement_pct;
    r.aborts = w.aborts;
    r.exceptions = w.exceptions;
    r.hangs = w.hangs;
  } else {
    std::ostringstream os;
    if (timed_out) os << "timed out after " << limit_s << " s";
    else if (WIFSIGNALED(status)) os << "FCL process killed by signal " << WTERMSIG(status) << " (" << strsignal(WTERMSIG(status)) << ")";
    else os << "FCL process failed (exit status " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1) << ")";
    r.error = os.str();
    r.timing = Timing{};
    r.failed_pct = 100.0;
  }
  return r;
}

}  // namespace diffcol::cli::fcl_baseline

#else  // !DIFFCOL_HAVE_FCL

namespace diffcol::cli::fcl_baseline {

bool available() { return false; }
std::string version() { return ""; }
std::string describe(const Shape&) { return ""; }
Result run(const Shape&, const Shape&, const std::vector<Pose>&, const Options&, size_t, std::vector<double>&,
           const std::vector<char>&) {
  throw std::runtime_error("this diffcol was built without FCL");
}

}  // namespace diffcol::cli::fcl_baseline

#endif
