// Two spheres (seed Fig. 1 / Fig. 5): the normal contact force on a small sphere (r = 0.05 m)
// moved along the y axis through a fixed sphere (r = 0.1 m), under the soft-minimum contact model
// (SSDF–SSDF contact, eq. (23)) and under MuJoCo 2.2.2's contact model (positions set, mj_forward,
// mj_contactForce). Writes ssdf_sphere_profile.csv and ssdf_sphere_profile.svg (force and its
// finite-difference slope vs centre distance) and prints the largest second difference of each
// profile at two step sizes: bounded for SCM, growing like 1/h at MuJoCo's contact onset.
//
// Usage: example_ssdf_sphere_profile [output_dir]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/scm.hpp"

#ifdef DIFFCOL_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {

using diffcol::Pose;
using diffcol::Vec3;
using diffcol::Vec6;
namespace ssdf = diffcol::ssdf;

constexpr double kBigRadius = 0.1, kSmallRadius = 0.05;  // m
// centre distance (m): from 5 cm penetration (the small sphere touching the big one's centre) to
// 7 cm separation; deeper, with the small sphere wholly inside, SCM's force turns over towards
// the unstable concentric equilibrium the seed notes (Sec. IV-B).
constexpr double kSweepBegin = 0.10, kSweepEnd = 0.22;

/// The SCM profile: y force on the small sphere (world frame), AOPC–AOPC contact (23).
class ScmProfile {
 public:
  ScmProfile() {
    ssdf::AopcOptions o;
    o.num_points = 600;
    big_ = ssdf::make_aopc(diffcol::mesh::make_icosphere(kBigRadius, 4), o);
    o.num_points = 300;
    small_ = ssdf::make_aopc(diffcol::mesh::make_icosphere(kSmallRadius, 4), o);
    params_.stiffness = 2500.0;  // N/m: about MuJoCo's default contact stiffness for a 1 kg sphere
    params_.eps1 = 1e-4;         // m²
    params_.eps2 = 5e-3;         // m
    params_.eps3 = 5e-3;         // m
    params_.weight_cutoff = 1e-12;
  }
  double force(double y) {
    Pose X2 = Pose::identity();
    X2.p = Vec3(0.0, y, 0.0);
    const auto c = ssdf::pair_contact(*big_, Pose::identity(), Vec6::Zero(), *small_, X2, Vec6::Zero(), params_, ws_,
                                      false);
    return c.wrench_2(4);  // body frame = world frame (R = I): the y force, + pushes apart
  }
  const ssdf::ScmParameters& parameters() const { return params_; }

 private:
  std::optional<ssdf::OrientedPointCloud> big_, small_;
  ssdf::ScmParameters params_;
  ssdf::SsdfWorkspace ws_;
};

#ifdef DIFFCOL_HAVE_MUJOCO
/// MuJoCo's profile: the normal force of the contact(s) between the spheres (static big sphere,
/// free 1 kg small sphere, no gravity, zero velocity), from mj_contactForce after mj_forward.
class MujocoProfile {
 public:
  explicit MujocoProfile(const std::string& dir) {
    const std::string path = dir + "/ssdf_sphere_profile_mjcf.xml";
    {
      std::ofstream f(path);
      f << "<mujoco model=\"two_spheres\">\n"
           "  <option gravity=\"0 0 0\" timestep=\"0.002\"/>\n"
           "  <worldbody>\n"
           "    <geom name=\"big\" type=\"sphere\" size=\""
        << kBigRadius
        << "\"/>\n"
           "    <body name=\"small\" pos=\"0 0.2 0\">\n"
           "      <freejoint/>\n"
           "      <geom name=\"small\" type=\"sphere\" size=\""
        << kSmallRadius
        << "\" mass=\"1\"/>\n"
           "    </body>\n"
           "  </worldbody>\n"
           "</mujoco>\n";
    }
    char error[1000] = "";
    model_ = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
    if (!model_) {
      std::fprintf(stderr, "MuJoCo: %s\n", error);
      return;
    }
    data_ = mj_makeData(model_);
  }
  ~MujocoProfile() {
    if (data_) mj_deleteData(data_);
    if (model_) mj_deleteModel(model_);
  }
  bool ok() const { return data_ != nullptr; }
  double force(double y) {
    mj_resetData(model_, data_);
    data_->qpos[0] = 0.0;
    data_->qpos[1] = y;
    data_->qpos[2] = 0.0;
    data_->qpos[3] = 1.0;  // quaternion w, x, y, z
    data_->qpos[4] = data_->qpos[5] = data_->qpos[6] = 0.0;
    mj_forward(model_, data_);
    double total = 0.0;
    for (int i = 0; i < data_->ncon; ++i) {
      mjtNum f[6];
      mj_contactForce(model_, data_, i, f);
      total += f[0];  // normal component in the contact frame (≥ 0: pushes apart)
    }
    return total;
  }

 private:
  mjModel* model_ = nullptr;
  mjData* data_ = nullptr;
};
#endif

/// max_j |F_{j+1} − 2F_j + F_{j−1}| / h² on a uniform grid of step h.
double max_second_difference(const std::vector<double>& F, double h) {
  double worst = 0.0;
  for (size_t j = 1; j + 1 < F.size(); ++j) worst = std::max(worst, std::abs(F[j + 1] - 2 * F[j] + F[j - 1]) / (h * h));
  return worst;
}

/// A line series for the SVG plot.
struct Series {
  std::string label, colour;
  std::vector<double> x, y;
};

/// A line plot with axes, ticks, labels and legend, as an SVG group at (ox, oy) of size (w, h).
std::string svg_plot(const std::vector<Series>& series, double ox, double oy, double w, double h,
                     const std::string& title, const std::string& xlabel, const std::string& ylabel, double marker_x,
                     bool legend_at_bottom) {
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (const Series& s : series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, s.y[i]);
      y1 = std::max(y1, s.y[i]);
    }
  const double pad = 0.05 * (y1 - y0 + 1e-12);
  y0 -= pad;
  y1 += pad;
  auto X = [&](double x) { return ox + (x - x0) / (x1 - x0) * w; };
  auto Y = [&](double y) { return oy + h - (y - y0) / (y1 - y0) * h; };
  const double legend_y = legend_at_bottom ? oy + h - 18.0 * static_cast<double>(series.size()) - 8 : oy + 8;
  char buf[256];
  std::string out;
  std::snprintf(buf, sizeof(buf), "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
                ox, oy, w, h);
  out += buf;
  std::snprintf(buf, sizeof(buf), "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", ox, oy - 8, title.c_str());
  out += buf;
  for (int k = 0; k <= 5; ++k) {  // ticks
    const double xv = x0 + k * (x1 - x0) / 5, yv = y0 + k * (y1 - y0) / 5;
    std::snprintf(buf, sizeof(buf),
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.3g</text>\n",
                  X(xv), oy, X(xv), oy + h, X(xv), oy + h + 15, xv);
    out += buf;
    std::snprintf(buf, sizeof(buf),
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
                  ox, Y(yv), ox + w, Y(yv), ox - 4, Y(yv) + 4, yv);
    out += buf;
  }
  std::snprintf(buf, sizeof(buf), "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", ox + w / 2,
                oy + h + 34, xlabel.c_str());
  out += buf;
  std::snprintf(buf, sizeof(buf),
                "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n", ox - 62,
                oy + h / 2, ylabel.c_str());
  out += buf;
  if (marker_x > x0 && marker_x < x1) {
    std::snprintf(buf, sizeof(buf),
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"gray\" stroke-dasharray=\"4 3\"/>\n",
                  X(marker_x), oy, X(marker_x), oy + h);
    out += buf;
  }
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    out += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" + s.colour + "\" points=\"";
    for (size_t i = 0; i < s.x.size(); ++i) {
      std::snprintf(buf, sizeof(buf), "%.2f,%.2f ", X(s.x[i]), Y(s.y[i]));
      out += buf;
    }
    out += "\"/>\n";
    std::snprintf(buf, sizeof(buf),
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                  ox + w - 190, legend_y + 8 + 18 * k, ox + w - 165, legend_y + 8 + 18 * k, s.colour.c_str(),
                  ox + w - 160, legend_y + 12 + 18 * k, s.label.c_str());
    out += buf;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const double h = 5e-4;  // sweep step (m)
  const int n = static_cast<int>(std::lround((kSweepEnd - kSweepBegin) / h)) + 1;
  std::vector<double> y(static_cast<size_t>(n)), f_scm(y.size()), f_mj(y.size(), 0.0);
  ScmProfile scm;
  for (int j = 0; j < n; ++j) {
    y[static_cast<size_t>(j)] = kSweepBegin + j * h;
    f_scm[static_cast<size_t>(j)] = scm.force(y[static_cast<size_t>(j)]);
  }
  bool have_mujoco = false;
#ifdef DIFFCOL_HAVE_MUJOCO
  MujocoProfile mj(dir);
  if (mj.ok()) {
    have_mujoco = true;
    for (int j = 0; j < n; ++j) f_mj[static_cast<size_t>(j)] = mj.force(y[static_cast<size_t>(j)]);
  }
#endif

  // CSV
  {
    std::ofstream csv(dir + "/ssdf_sphere_profile.csv");
    csv << "centre_distance_m,gap_m,scm_force_N" << (have_mujoco ? ",mujoco_force_N" : "") << "\n";
    for (size_t j = 0; j < y.size(); ++j) {
      csv << y[j] << "," << y[j] - (kBigRadius + kSmallRadius) << "," << f_scm[j];
      if (have_mujoco) csv << "," << f_mj[j];
      csv << "\n";
    }
  }

  // Second differences at h and 2h (every other sample): a C² profile keeps max |F''| as h
  // shrinks; a kink of slope jump s gives ≈ s/h (up to a grid-position factor in [1/2, 1]).
  auto every_other = [](const std::vector<double>& F) {
    std::vector<double> G;
    for (size_t j = 0; j < F.size(); j += 2) G.push_back(F[j]);
    return G;
  };
  const double scm_d2 = max_second_difference(f_scm, h), scm_d2_2h = max_second_difference(every_other(f_scm), 2 * h);
  std::printf("two spheres (r = %.2f m fixed, r = %.2f m moved along y), %d samples, step %.1f mm\n", kBigRadius,
              kSmallRadius, n, h * 1e3);
  std::printf("SCM (k = %.0f N/m, eps1 = %g m^2, eps2 = eps3 = %g m): max F = %.2f N, max |F''| = %.4g N/m^2 at h, "
              "%.4g at 2h\n",
              scm.parameters().stiffness, scm.parameters().eps1, scm.parameters().eps2,
              *std::max_element(f_scm.begin(), f_scm.end()), scm_d2, scm_d2_2h);
#ifdef DIFFCOL_HAVE_MUJOCO
  if (have_mujoco) {
    const double mj_d2 = max_second_difference(f_mj, h), mj_d2_2h = max_second_difference(every_other(f_mj), 2 * h);
    std::printf("MuJoCo %s (default solref/solimp, 1 kg): max F = %.2f N, max |F''| = %.4g N/m^2 at h, %.4g at 2h\n",
                mj_versionString(), *std::max_element(f_mj.begin(), f_mj.end()), mj_d2, mj_d2_2h);
  }
#endif
  if (!have_mujoco) std::printf("MuJoCo: not available in this build (DIFFCOL_HAVE_MUJOCO undefined); SCM profile only\n");

  // SVG: force, and slope dF/dy (central differences), vs centre distance.
  std::vector<Series> forces, slopes;
  forces.push_back({"SCM (23)", "#d62728", y, f_scm});
  if (have_mujoco) forces.push_back({"MuJoCo 2.2.2", "#1f77b4", y, f_mj});
  for (const Series& s : forces) {
    Series d{s.label, s.colour, {}, {}};
    for (size_t j = 1; j + 1 < s.x.size(); ++j) {
      d.x.push_back(s.x[j]);
      d.y.push_back((s.y[j + 1] - s.y[j - 1]) / (2 * h));
    }
    slopes.push_back(d);
  }
  std::ofstream svg(dir + "/ssdf_sphere_profile.svg");
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1260\" height=\"440\" font-family=\"sans-serif\" "
         "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << svg_plot(forces, 90, 40, 500, 330, "Normal force on the small sphere", "centre distance (m)", "force (N)",
                  kBigRadius + kSmallRadius, false);
  svg << svg_plot(slopes, 720, 40, 500, 330, "Slope dF/dy (central differences)", "centre distance (m)",
                  "dF/dy (N/m)", kBigRadius + kSmallRadius, true);
  svg << "<text x=\"80\" y=\"430\" fill=\"gray\">dashed: contact onset (distance = r1 + r2 = 0.15 m)</text>\n</svg>\n";
  std::printf("wrote ssdf_sphere_profile.csv and ssdf_sphere_profile.svg to %s\n", dir.c_str());
  return svg ? 0 : 1;
}
