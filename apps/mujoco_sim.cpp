// MuJoCo baseline of the simulation demos (mujoco_sim.hpp).
#include "mujoco_sim.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#ifdef DIFFCOL_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace diffcol::cli {

namespace {

// n directions spread over the unit sphere (Fibonacci lattice).
std::vector<Vec3> sphere_directions(int n) {
  std::vector<Vec3> out;
  const double golden = std::numbers::pi * (3.0 - std::sqrt(5.0));
  for (int i = 0; i < n; ++i) {
    const double z = 1.0 - (2.0 * i + 1.0) / n, r = std::sqrt(std::max(0.0, 1.0 - z * z));
    out.emplace_back(r * std::cos(golden * i), r * std::sin(golden * i), z);
  }
  return out;
}

// Points on an iDCOL shape's surface along n directions (bisection on φ along each ray).
std::vector<Vec3> implicit_surface_points(const Shape& shape, int n) {
  std::vector<Vec3> out;
  for (const Vec3& u : sphere_directions(n)) {
    double lo = 0.0, hi = shape.outer_radius();
    while (shape.value(hi * u) < 0.0) hi *= 2.0;
    for (int it = 0; it < 80; ++it) {
      const double mid = 0.5 * (lo + hi);
      (shape.value(mid * u) < 0.0 ? lo : hi) = mid;
    }
    out.push_back(hi * u);
  }
  return out;
}

// Support points of a DCOL primitive in its shape frame (offset removed) along n directions.
std::vector<Vec3> support_points(const dcol::Primitive& p, int n) {
  std::vector<Vec3> out;
  for (const Vec3& u : sphere_directions(n)) out.push_back(std::visit([&](const auto& s) { return s.support(u); }, p));
  return out;
}

std::string quat_text(const Mat3& R) {
  const Eigen::Quaterniond q = Eigen::Quaterniond(R).normalized();
  std::ostringstream s;
  s.precision(17);
  s << q.w() << " " << q.x() << " " << q.y() << " " << q.z();
  return s.str();
}

std::string vec_text(const Vec3& v) {
  std::ostringstream s;
  s.precision(17);
  s << v.x() << " " << v.y() << " " << v.z();
  return s.str();
}

// One geom (and, for a mesh, its asset) of a shape placed at X (in its body's frame).
struct GeomText {
  std::string asset, geom;
};

// R_x: the rotation taking MuJoCo's z axis (capsules, cylinders) to the x axis (DCOL's).
Mat3 z_to_x() { return Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), Vec3::UnitX()).toRotationMatrix(); }

GeomText geom_text(const scene::CollisionShape& shape, const Pose& X, const std::string& name, double friction) {
  std::ostringstream g;
  g.precision(17);
  const std::string common = " friction=\"" + std::to_string(friction) + " 0.005 0.0001\" condim=\"" +
                             (friction > 0.0 ? "3" : "1") + "\"";
  auto place = [&](const Pose& P) { return " pos=\"" + vec_text(P.p) + "\" quat=\"" + quat_text(P.R) + "\""; };
  std::vector<Vec3> hull;
  const Pose at = X * shape.folded_offset();  // DCOL offsets are folded out of the primitive
  Pose mesh_pose = at;
  if (shape.family() == scene::Family::idcol) {
    const Shape& s = shape.idcol();
    if (s.type() == ShapeType::sphere) {
      g << "<geom name=\"" << name << "\" type=\"sphere\" size=\"" << s.as<diffcol::Sphere>().radius() << "\""
        << place(at) << common << "/>";
      return {"", g.str()};
    }
    if (s.type() == ShapeType::superellipsoid && s.as<Superellipsoid>().exponent() == 1) {
      g << "<geom name=\"" << name << "\" type=\"ellipsoid\" size=\"" << vec_text(s.as<Superellipsoid>().semi_axes())
        << "\"" << place(at) << common << "/>";
      return {"", g.str()};
    }
    hull = implicit_surface_points(s, 642);
  } else if (shape.family() == scene::Family::dcol) {
    const dcol::Primitive& p = shape.dcol();
    const Pose S = at * dcol::primitive_offset(p);
    if (const auto* s = std::get_if<dcol::Sphere>(&p)) {
      g << "<geom name=\"" << name << "\" type=\"sphere\" size=\"" << s->R << "\"" << place(S) << common << "/>";
      return {"", g.str()};
    }
    if (const auto* c = std::get_if<dcol::Capsule>(&p)) {
      Pose Z = S;
      Z.R = S.R * z_to_x();
      g << "<geom name=\"" << name << "\" type=\"capsule\" size=\"" << c->R << " " << 0.5 * c->L << "\"" << place(Z)
        << common << "/>";
      return {"", g.str()};
    }
    if (const auto* c = std::get_if<dcol::Cylinder>(&p)) {
      Pose Z = S;
      Z.R = S.R * z_to_x();
      g << "<geom name=\"" << name << "\" type=\"cylinder\" size=\"" << c->R << " " << 0.5 * c->L << "\"" << place(Z)
        << common << "/>";
      return {"", g.str()};
    }
    if (const auto* e = std::get_if<dcol::Ellipsoid>(&p); e && (e->P - Mat3(e->P.diagonal().asDiagonal())).norm() == 0.0) {
      const Vec3 axes = e->P.diagonal().cwiseSqrt().cwiseInverse();
      g << "<geom name=\"" << name << "\" type=\"ellipsoid\" size=\"" << vec_text(axes) << "\"" << place(S) << common
        << "/>";
      return {"", g.str()};
    }
    if (const auto* poly = std::get_if<dcol::Polytope>(&p)) {
      for (int i = 0; i < poly->num_vertices; ++i) hull.push_back(poly->vertex(i));
    } else {
      hull = support_points(p, 642);
    }
    mesh_pose = S;
  } else if (const auto* c = std::get_if<qp::Capsule>(&shape.variant())) {
    g << "<geom name=\"" << name << "\" type=\"capsule\" size=\"" << c->radius() << "\" fromto=\""
      << vec_text(at * c->b_B()) << " " << vec_text(at * c->a_B()) << "\"" << common << "/>";
    return {"", g.str()};
  } else {
    const auto& pp = std::get<qp::PaddedPolygon>(shape.variant());
    for (const auto& v : pp.vertices())
      for (const Vec3& u : sphere_directions(162)) hull.push_back(Vec3(v.x(), v.y(), 0.0) + pp.radius() * u);
  }
  std::string vertices;
  for (const Vec3& x : hull) vertices += vec_text(x) + " ";
  return {"<mesh name=\"" + name + "_mesh\" vertex=\"" + vertices + "\"/>",
          "<geom name=\"" + name + "\" type=\"mesh\" mesh=\"" + name + "_mesh\"" + place(mesh_pose) + common + "/>"};
}

}  // namespace

std::string mujoco_version() {
#ifdef DIFFCOL_HAVE_MUJOCO
  return mj_versionString();
#else
  return "not built";
#endif
}

std::string mujoco_mjcf(const std::vector<MujocoBody>& bodies, const MujocoSimOptions& o) {
  if (bodies.empty()) throw std::invalid_argument("run_mujoco_sim: no bodies");
  std::ostringstream assets, world;
  world.precision(17);
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    const MujocoBody& body = bodies[b];
    std::string bname = "b";  // (not "b" + to_string: GCC 12's -Wrestrict false positive)
    bname += std::to_string(b);
    std::string geoms;
    for (std::size_t s = 0; s < body.shapes.size(); ++s) {
      const GeomText t = geom_text(body.shapes[s].shape, body.shapes[s].X_BS, bname + "_s" + std::to_string(s), o.friction);
      if (!t.asset.empty()) assets << "    " << t.asset << "\n";
      geoms += "      " + t.geom + "\n";
    }
    const Pose& X = body.initial.X_WB;
    if (body.is_static) {
      world << "    <body name=\"" << bname << "\" pos=\"" << vec_text(X.p) << "\" quat=\"" << quat_text(X.R) << "\">\n"
            << geoms << "    </body>\n";
    } else {
      const Mat3& I = body.inertia_B;
      world << "    <body name=\"" << bname << "\" pos=\"" << vec_text(X.p) << "\" quat=\"" << quat_text(X.R) << "\">\n"
            << "      <freejoint/>\n"
            << "      <inertial pos=\"0 0 0\" mass=\"" << body.mass << "\" fullinertia=\"" << I(0, 0) << " " << I(1, 1)
            << " " << I(2, 2) << " " << I(0, 1) << " " << I(0, 2) << " " << I(1, 2) << "\"/>\n"
            << geoms << "    </body>\n";
    }
  }
  std::ostringstream out;
  out.precision(17);
  out << "<mujoco model=\"diffcol_demo\">\n"
      << "  <compiler inertiafromgeom=\"false\"/>\n"
      << "  <option timestep=\"" << o.time_step << "\" gravity=\"" << (o.gravity ? "0 0 -9.81" : "0 0 0") << "\"/>\n"
      << "  <asset>\n"
      << assets.str() << "  </asset>\n"
      << "  <worldbody>\n";
  if (o.ground_plane)
    out << "    <geom name=\"ground\" type=\"plane\" size=\"0 0 1\" friction=\"" << o.friction
        << " 0.005 0.0001\" condim=\"" << (o.friction > 0.0 ? 3 : 1) << "\"/>\n";
  out << world.str() << "  </worldbody>\n</mujoco>\n";
  return out.str();
}

MujocoSimResult run_mujoco_sim(const std::vector<MujocoBody>& bodies, const MujocoSimOptions& o) {
  MujocoSimResult r;
  const std::string xml = mujoco_mjcf(bodies, o);
#ifndef DIFFCOL_HAVE_MUJOCO
  (void)xml;
  r.error = "diffcol was built without MuJoCo (Debian libmujoco-dev)";
  return r;
#else
  r.available = true;
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("diffcol_mjcf_" + std::to_string(::getpid()) + ".xml");
  {
    std::ofstream f(path);
    f << xml;
  }
  char error[1000] = "";
  mjModel* m = mj_loadXML(path.string().c_str(), nullptr, error, sizeof(error));
  std::filesystem::remove(path);
  if (!m) {
    r.error = error;
    return r;
  }
  mjData* d = mj_makeData(m);
  // initial velocities: a free joint's qvel is (v of the body origin, world axes; ω, body axes)
  int dof = 0;
  std::vector<int> free_index;
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    if (bodies[b].is_static) continue;
    for (int i = 0; i < 3; ++i) {
      d->qvel[dof + i] = bodies[b].initial.v_W[i];
      d->qvel[dof + 3 + i] = bodies[b].initial.omega_B[i];
    }
    free_index.push_back(static_cast<int>(b));
    dof += 6;
  }
  mj_forward(m, d);
  const double g = o.gravity ? 9.81 : 0.0;
  auto totals = [&](Vec3& momentum, double& mass_speed, double& energy) {
    momentum.setZero();
    mass_speed = 0.0;
    energy = 0.0;
    for (std::size_t k = 0; k < free_index.size(); ++k) {
      const MujocoBody& body = bodies[static_cast<std::size_t>(free_index[k])];
      const Vec3 v(d->qvel[6 * k], d->qvel[6 * k + 1], d->qvel[6 * k + 2]);
      const Vec3 w(d->qvel[6 * k + 3], d->qvel[6 * k + 4], d->qvel[6 * k + 5]);
      momentum += body.mass * v;
      mass_speed += body.mass * v.norm();
      energy += 0.5 * body.mass * v.squaredNorm() + 0.5 * w.dot(body.inertia_B * w) + body.mass * g * d->qpos[7 * k + 2];
    }
  };
  Vec3 p0;
  double ms0, e0;
  totals(p0, ms0, e0);
  auto record = [&] {
    std::vector<Pose> frame;
    int k = 0;
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      if (bodies[b].is_static) {
        frame.push_back(bodies[b].initial.X_WB);
        continue;
      }
      const double* q = d->qpos + 7 * k;
      frame.push_back(Pose::from_quaternion(Vec3(q[0], q[1], q[2]), q[3], q[4], q[5], q[6]));
      ++k;
    }
    r.frames.push_back(std::move(frame));
  };
  record();
  const int steps = static_cast<int>(std::lround(o.duration / o.time_step));
  const int every = std::max(1, static_cast<int>(std::lround(o.frame_interval / o.time_step)));
  double wall = 0.0;
  for (int s = 0; s < steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    mj_step(m, d);
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (int c = 0; c < d->ncon; ++c) r.max_penetration = std::max(r.max_penetration, -static_cast<double>(d->contact[c].dist));
    if ((s + 1) % every == 0) record();
  }
  Vec3 p1;
  double ms1, e1;
  totals(p1, ms1, e1);
  r.wall_s = wall;
  r.steps = steps;
  const double p_scale = std::max(p0.norm(), ms0);
  r.linear_momentum_drift = p_scale > 0.0 ? (p1 - p0).norm() / p_scale : (p1 - p0).norm();
  r.energy_drift = e0 != 0.0 ? (e1 - e0) / std::abs(e0) : 0.0;
  mj_deleteData(d);
  mj_deleteModel(m);
  return r;
#endif
}

}  // namespace diffcol::cli
