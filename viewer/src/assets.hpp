#pragma once
// The viewer's embedded assets (defined in the generated view_assets.cpp, see
// viewer/cmake/embed_assets.cmake). Private to diffcol_view.
#include <string_view>

namespace diffcol::view::assets {
extern const std::string_view three_core;      ///< three.js build/three.core.js (ES module)
extern const std::string_view three_module;    ///< three.js build/three.module.js (imports three.core.js)
extern const std::string_view orbit_controls;  ///< three.js examples/jsm/controls/OrbitControls.js
extern const std::string_view three_license;   ///< three.js LICENSE (MIT)
extern const std::string_view three_version;   ///< three.js package version
extern const std::string_view page_template;   ///< viewer/src/template.html
extern const std::string_view viewer_script;   ///< viewer/src/viewer.js (ES module)
}  // namespace diffcol::view::assets
