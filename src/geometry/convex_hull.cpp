#include "convex_hull.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" {
#include <libqhull_r/libqhull_r.h>
}

namespace diffcol::detail {

bool qhull_facets(const std::vector<Vec3>& points, HullFacets& out, std::string& why, const char* what) {
  out.normals.clear();
  out.offsets.clear();
  out.vertices.clear();
  const int n = static_cast<int>(points.size());
  if (n < 4) {
    why = "need at least 4 points (got " + std::to_string(n) + ")";
    return false;
  }
  std::vector<coordT> xyz(3 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) xyz[3 * static_cast<size_t>(i) + c] = points[static_cast<size_t>(i)][c];
  // Qhull's messages go to a memory stream: the reason of a failure, never to the terminal
  char* msg = nullptr;
  size_t msg_len = 0;
  FILE* err = open_memstream(&msg, &msg_len);
  qhT qh_storage;
  qhT* qh = &qh_storage;
  qh_zero(qh, err);
  char flags[] = "qhull";  // 3-D defaults: C-0 merging (coplanar facets become one)
  const int code = qh_new_qhull(qh, 3, n, xyz.data(), False, flags, nullptr, err);
  if (code == 0) {
    facetT* facet;
    vertexT *vertex, **vertexp;
    FORALLfacets {
      out.normals.emplace_back(facet->normal[0], facet->normal[1], facet->normal[2]);
      out.offsets.push_back(-facet->offset);  // Qhull: nᵀp + offset ≤ 0 inside
      std::vector<int> ids;
      FOREACHvertex_(facet->vertices) ids.push_back(qh_pointid(qh, vertex->point));
      out.vertices.push_back(std::move(ids));
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  if (err) std::fclose(err);
  const std::string text = msg ? std::string(msg, msg_len) : std::string();
  std::free(msg);
  if (code == qh_ERRsingular || (code == 0 && out.normals.size() < 4)) {
    why = "the points are coplanar or collinear (they span no volume)";
    return false;
  }
  if (code != 0) {
    std::string first = text.substr(0, text.find('\n'));
    throw std::runtime_error(std::string(what) + ": Qhull failed (code " + std::to_string(code) + "): " + first);
  }
  return true;
}

}  // namespace diffcol::detail
