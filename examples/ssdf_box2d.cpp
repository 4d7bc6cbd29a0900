// The SSDF of a 2-D box (seed Sec. IV-A, Fig. 4): heat maps of eq. (9) for several softmax
// temperatures eps1 and AOPC resolutions, with the zero isosurface in blue and the box outline,
// AOPC points and normals in white; one panel adds wrongly placed corner points (the artifacts the
// seed describes). Writes PPM images, a montage and an SVG of the zero contours.
//
// Usage: example_ssdf_box2d [output_dir]
//
// The 2-D box is the square [−1, 1]² in the z = 0 plane; its AOPC is the midpoints of n equal
// segments per side with outward normals (z = 0). eq. (9) evaluated in the plane z = 0 is the 2-D
// SSDF. Units are arbitrary (box half-width 1); eps1 is in length².
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/ssdf.hpp"

namespace {

using diffcol::Vec3;
using diffcol::ssdf::OrientedPointCloud;
using diffcol::ssdf::SsdfWorkspace;

constexpr double kExtent = 2.0;  // image covers [−2, 2]²
constexpr int kPixels = 200;     // per panel side

using Rgb = std::array<unsigned char, 3>;

/// An RGB raster, row 0 at the top (y = +kExtent).
struct Image {
  int width = 0, height = 0;
  std::vector<Rgb> pixels;
  Image(int w, int h) : width(w), height(h), pixels(static_cast<size_t>(w * h), Rgb{0, 0, 0}) {}
  Rgb& at(int x, int y) { return pixels[static_cast<size_t>(y * width + x)]; }
  void set(int x, int y, Rgb c) {
    if (x >= 0 && y >= 0 && x < width && y < height) at(x, y) = c;
  }
  bool write_ppm(const std::string& path) const {
    std::ofstream f(path, std::ios::binary);
    f << "P6\n" << width << " " << height << "\n255\n";
    for (const Rgb& c : pixels) f.write(reinterpret_cast<const char*>(c.data()), 3);
    return static_cast<bool>(f);
  }
};

/// Pixel centre ↔ plane coordinates.
double pixel_to_x(int i) { return -kExtent + (i + 0.5) * (2.0 * kExtent / kPixels); }
double pixel_to_y(int j) { return kExtent - (j + 0.5) * (2.0 * kExtent / kPixels); }
int x_to_pixel(double x) { return static_cast<int>(std::floor((x + kExtent) / (2.0 * kExtent) * kPixels)); }
int y_to_pixel(double y) { return static_cast<int>(std::floor((kExtent - y) / (2.0 * kExtent) * kPixels)); }

/// A viridis-like colour map on t ∈ [0, 1] (piecewise linear through 5 stops).
Rgb colormap(double t) {
  static const double stops[5][3] = {
      {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int k = std::min(3, static_cast<int>(t));
  const double u = t - k;
  Rgb c;
  for (int ch = 0; ch < 3; ++ch)
    c[static_cast<size_t>(ch)] = static_cast<unsigned char>(std::lround((1 - u) * stops[k][ch] + u * stops[k + 1][ch]));
  return c;
}

/// The box AOPC: n segment midpoints per side, outward normals; with_bad_corners adds one point
/// at each corner with a diagonal normal (the "incorrect corner points" of Fig. 4).
OrientedPointCloud box_cloud(int n, bool with_bad_corners) {
  std::vector<Vec3> P, N;
  const Vec3 normals[4] = {Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(-1, 0, 0), Vec3(0, -1, 0)};
  for (const Vec3& nrm : normals) {
    const Vec3 tangent(-nrm.y(), nrm.x(), 0.0);
    for (int k = 0; k < n; ++k) {
      const double s = -1.0 + (2.0 * k + 1.0) / n;  // midpoint of segment k of [−1, 1]
      P.push_back(nrm + s * tangent);
      N.push_back(nrm);
    }
  }
  if (with_bad_corners) {
    for (int sx : {-1, 1})
      for (int sy : {-1, 1}) {
        P.emplace_back(sx, sy, 0.0);
        N.emplace_back(sx, sy, 0.0);  // normalized by the cloud
      }
  }
  return OrientedPointCloud(std::move(P), std::move(N));
}

/// Exact signed distance of the square [−1, 1]² (negative inside).
double box_signed_distance(double x, double y) {
  const double dx = std::abs(x) - 1.0, dy = std::abs(y) - 1.0;
  const double outside = std::hypot(std::max(dx, 0.0), std::max(dy, 0.0));
  return outside + std::min(std::max(dx, dy), 0.0);
}

/// One panel: the SSDF on the pixel grid (row-major, row 0 at the top).
struct Panel {
  std::string name;
  double eps1 = 0.0;
  int per_side = 0;
  bool bad_corners = false;
  std::vector<double> field;
  double mean_error = 0.0;   ///< mean |φ̂ − sd| over the grid
  int sign_errors = 0;       ///< pixels farther than 0.25 from the boundary with the wrong sign
};

void evaluate(Panel& panel, const OrientedPointCloud& cloud, SsdfWorkspace& ws) {
  panel.field.assign(static_cast<size_t>(kPixels * kPixels), 0.0);
  double err = 0.0;
  for (int j = 0; j < kPixels; ++j)
    for (int i = 0; i < kPixels; ++i) {
      const Vec3 q(pixel_to_x(i), pixel_to_y(j), 0.0);
      const double phi = diffcol::ssdf::soft_signed_distance(cloud, q, panel.eps1, ws);
      panel.field[static_cast<size_t>(j * kPixels + i)] = phi;
      const double sd = box_signed_distance(q.x(), q.y());
      err += std::abs(phi - sd);
      if (std::abs(sd) > 0.25 && (phi > 0) != (sd > 0)) ++panel.sign_errors;
    }
  panel.mean_error = err / (kPixels * kPixels);
}

/// Draws a line segment (plane coordinates).
void draw_segment(Image& img, int ox, int oy, const Vec3& a, const Vec3& b, Rgb c) {
  const int steps = 2 * kPixels;
  for (int s = 0; s <= steps; ++s) {
    const Vec3 p = a + (b - a) * (static_cast<double>(s) / steps);
    const int i = x_to_pixel(p.x()), j = y_to_pixel(p.y());
    if (i >= 0 && j >= 0 && i < kPixels && j < kPixels) img.set(ox + i, oy + j, c);
  }
}

/// Renders a panel into img at offset (ox, oy): heat map, white outline, blue zero level set,
/// white points and normals.
void render(Image& img, int ox, int oy, const Panel& panel, const OrientedPointCloud& cloud) {
  const double lo = -1.0, hi = 1.5;  // colour range of φ̂
  auto F = [&](int i, int j) { return panel.field[static_cast<size_t>(j * kPixels + i)]; };
  for (int j = 0; j < kPixels; ++j)
    for (int i = 0; i < kPixels; ++i) img.set(ox + i, oy + j, colormap((F(i, j) - lo) / (hi - lo)));
  const Rgb white{255, 255, 255};
  const Vec3 corners[4] = {Vec3(-1, -1, 0), Vec3(1, -1, 0), Vec3(1, 1, 0), Vec3(-1, 1, 0)};
  for (int k = 0; k < 4; ++k) draw_segment(img, ox, oy, corners[k], corners[(k + 1) % 4], white);
  // zero level set (over the outline): a pixel whose sign differs from its right or lower neighbour
  const Rgb blue{30, 100, 255};
  for (int j = 0; j < kPixels; ++j)
    for (int i = 0; i < kPixels; ++i) {
      const bool s = F(i, j) > 0;
      if ((i + 1 < kPixels && (F(i + 1, j) > 0) != s) || (j + 1 < kPixels && (F(i, j + 1) > 0) != s)) {
        img.set(ox + i, oy + j, blue);
        img.set(ox + i + 1, oy + j, blue);
      }
    }
  for (int k = 0; k < cloud.size(); ++k) {
    const Vec3& p = cloud.points()[static_cast<size_t>(k)];
    draw_segment(img, ox, oy, p, p + 0.25 * cloud.normals()[static_cast<size_t>(k)], white);
    const int i = x_to_pixel(p.x()), j = y_to_pixel(p.y());
    for (int dj = -2; dj <= 2; ++dj)
      for (int di = -2; di <= 2; ++di)
        if (di * di + dj * dj <= 4 && i + di >= 0 && j + dj >= 0 && i + di < kPixels && j + dj < kPixels)
          img.set(ox + i + di, oy + j + dj, white);
  }
}

/// Zero contour of a panel as SVG line segments (marching squares, linear interpolation),
/// in plane coordinates.
std::string zero_contour_svg(const Panel& panel, double scale, double ox, double oy, const char* colour) {
  auto F = [&](int i, int j) { return panel.field[static_cast<size_t>(j * kPixels + i)]; };
  auto X = [&](double x) { return ox + (x + kExtent) * scale; };
  auto Y = [&](double y) { return oy + (kExtent - y) * scale; };
  std::string out = "<path fill=\"none\" stroke=\"" + std::string(colour) + "\" stroke-width=\"1.2\" d=\"";
  char buf[128];
  for (int j = 0; j + 1 < kPixels; ++j)
    for (int i = 0; i + 1 < kPixels; ++i) {
      // corners of the cell: (i,j) (i+1,j) (i+1,j+1) (i,j+1)
      const int ci[4] = {i, i + 1, i + 1, i}, cj[4] = {j, j, j + 1, j + 1};
      double cross_x[4], cross_y[4];
      int n = 0;
      for (int e = 0; e < 4; ++e) {
        const double a = F(ci[e], cj[e]), b = F(ci[(e + 1) % 4], cj[(e + 1) % 4]);
        if ((a > 0) == (b > 0)) continue;
        const double t = a / (a - b);
        cross_x[n] = pixel_to_x(ci[e]) + t * (pixel_to_x(ci[(e + 1) % 4]) - pixel_to_x(ci[e]));
        cross_y[n] = pixel_to_y(cj[e]) + t * (pixel_to_y(cj[(e + 1) % 4]) - pixel_to_y(cj[e]));
        ++n;
      }
      for (int k = 0; k + 1 < n; k += 2) {
        std::snprintf(buf, sizeof(buf), "M%.2f %.2fL%.2f %.2f", X(cross_x[k]), Y(cross_y[k]), X(cross_x[k + 1]),
                      Y(cross_y[k + 1]));
        out += buf;
      }
    }
  return out + "\"/>\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const std::vector<double> temperatures = {1.0, 0.5, 0.1, 0.01, 0.001};
  const std::vector<int> resolutions = {2, 4, 8, 16};

  // Panels: rows = resolutions (points per side), columns = temperatures; one extra row with
  // the wrong corner points at n = 8.
  std::vector<Panel> panels;
  for (int n : resolutions)
    for (double e : temperatures) {
      Panel p;
      p.eps1 = e;
      p.per_side = n;
      panels.push_back(p);
    }
  for (double e : temperatures) {
    Panel p;
    p.eps1 = e;
    p.per_side = 8;
    p.bad_corners = true;
    panels.push_back(p);
  }

  const int rows = static_cast<int>(resolutions.size()) + 1, cols = static_cast<int>(temperatures.size());
  const int gap = 4;
  Image montage(cols * (kPixels + gap) - gap, rows * (kPixels + gap) - gap);
  std::fill(montage.pixels.begin(), montage.pixels.end(), Rgb{255, 255, 255});
  SsdfWorkspace ws;
  bool ok = true;
  std::printf("SSDF of a 2-D box (square [-1,1]^2, grid %dx%d over [-2,2]^2)\n", kPixels, kPixels);
  std::printf("%-8s %-9s %-7s %14s %12s\n", "points", "eps1", "corners", "mean|phi-sd|", "sign errors");
  for (size_t k = 0; k < panels.size(); ++k) {
    Panel& p = panels[k];
    const OrientedPointCloud cloud = box_cloud(p.per_side, p.bad_corners);
    evaluate(p, cloud, ws);
    char name[96];
    std::snprintf(name, sizeof(name), "ssdf_box2d_n%02d_eps%g%s.ppm", p.per_side, p.eps1, p.bad_corners ? "_corners" : "");
    p.name = name;
    Image single(kPixels, kPixels);
    render(single, 0, 0, p, cloud);
    ok = single.write_ppm(dir + "/" + p.name) && ok;
    const int r = static_cast<int>(k) / cols, c = static_cast<int>(k) % cols;
    render(montage, c * (kPixels + gap), r * (kPixels + gap), p, cloud);
    std::printf("%-8d %-9g %-7s %14.4f %12d\n", cloud.size(), p.eps1, p.bad_corners ? "wrong" : "-", p.mean_error,
                p.sign_errors);
  }
  ok = montage.write_ppm(dir + "/ssdf_box2d_montage.ppm") && ok;

  // SVG: zero contours of the n = 8 row, one colour per temperature, over the box outline.
  {
    const double scale = 100.0, ox = 40.0, oy = 30.0, size = 2 * kExtent * scale;
    const char* colours[] = {"#440154", "#3b528b", "#21918c", "#5ec962", "#e6a800"};
    std::ofstream svg(dir + "/ssdf_box2d_contours.svg");
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << size + 220 << "\" height=\"" << size + 80
        << "\" font-family=\"sans-serif\" font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    svg << "<text x=\"" << ox << "\" y=\"20\">Zero level set of the SSDF (9) of the box [-1,1]^2, 8 points per side</text>\n";
    svg << "<rect x=\"" << ox << "\" y=\"" << oy << "\" width=\"" << size << "\" height=\"" << size
        << "\" fill=\"none\" stroke=\"black\"/>\n";
    svg << "<rect x=\"" << ox + 1.0 * scale << "\" y=\"" << oy + 1.0 * scale << "\" width=\"" << 2 * scale
        << "\" height=\"" << 2 * scale << "\" fill=\"none\" stroke=\"gray\" stroke-dasharray=\"4 3\"/>\n";
    for (int t = -2; t <= 2; ++t) {  // axis ticks
      svg << "<text x=\"" << ox + (t + kExtent) * scale - 4 << "\" y=\"" << oy + size + 16 << "\">" << t << "</text>\n";
      svg << "<text x=\"" << ox - 22 << "\" y=\"" << oy + (kExtent - t) * scale + 4 << "\">" << t << "</text>\n";
    }
    svg << "<text x=\"" << ox + size / 2 << "\" y=\"" << oy + size + 34 << "\">x</text>\n";
    svg << "<text x=\"" << ox - 34 << "\" y=\"" << oy + size / 2 << "\">y</text>\n";
    int legend = 0;
    for (const Panel& p : panels) {
      if (p.per_side != 8 || p.bad_corners) continue;
      svg << zero_contour_svg(p, scale, ox, oy, colours[legend]);
      const double ly = oy + 20 + 22 * legend;
      svg << "<line x1=\"" << ox + size + 20 << "\" y1=\"" << ly << "\" x2=\"" << ox + size + 50 << "\" y2=\"" << ly
          << "\" stroke=\"" << colours[legend] << "\" stroke-width=\"2\"/>\n";
      svg << "<text x=\"" << ox + size + 56 << "\" y=\"" << ly + 4 << "\">eps1 = " << p.eps1 << "</text>\n";
      ++legend;
    }
    svg << "<text x=\"" << ox + size + 20 << "\" y=\"" << oy + 20 + 22 * legend << "\" fill=\"gray\">dashed: box</text>\n";
    svg << "</svg>\n";
    ok = static_cast<bool>(svg) && ok;
  }
  std::printf("montage: rows = %d/%d/%d/%d points per side, last row %d per side + 4 wrong corner points; "
              "columns = eps1 %g..%g\n",
              resolutions[0], resolutions[1], resolutions[2], resolutions[3], 8, temperatures.front(),
              temperatures.back());
  std::printf("wrote %zu panel PPMs, ssdf_box2d_montage.ppm and ssdf_box2d_contours.svg to %s\n", panels.size(),
              dir.c_str());
  return ok ? 0 : 1;
}
