// SRDF loading: the <disable_collisions> pairs (tinyxml2).
#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <tinyxml2.h>

#include "diffcol/scene/robot_model.hpp"

namespace diffcol::scene {

void RobotModel::load_srdf_file(const std::string& srdf_path) {
  std::ifstream in(srdf_path, std::ios::binary);
  if (!in) throw std::invalid_argument("SRDF: cannot open '" + srdf_path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  try {
    load_srdf_string(ss.str());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) + " (in '" + srdf_path + "')");
  }
}

void RobotModel::load_srdf_string(const std::string& srdf_xml) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(srdf_xml.c_str(), srdf_xml.size()) != tinyxml2::XML_SUCCESS)
    throw std::invalid_argument(std::string("SRDF: malformed XML: ") + doc.ErrorStr());
  const tinyxml2::XMLElement* robot = doc.RootElement();
  if (!robot || std::string(robot->Name()) != "robot")
    throw std::invalid_argument("SRDF: the root element is not <robot>");

  // all pairs first: a bad element leaves the model unchanged
  std::vector<std::pair<int, int>> pairs = disabled_;
  for (auto* e = robot->FirstChildElement("disable_collisions"); e; e = e->NextSiblingElement("disable_collisions")) {
    const char* a = e->Attribute("link1");
    const char* b = e->Attribute("link2");
    const std::string line = " (line " + std::to_string(e->GetLineNum()) + ")";
    if (!a || !b) throw std::invalid_argument("SRDF: <disable_collisions> needs link1 and link2" + line);
    int ia, ib;
    try {
      ia = link_index(a);
      ib = link_index(b);
    } catch (const std::invalid_argument& err) {
      throw std::invalid_argument(std::string("SRDF: <disable_collisions>: ") + err.what() + line);
    }
    if (ia == ib)
      throw std::invalid_argument("SRDF: <disable_collisions> pairs link '" + std::string(a) + "' with itself" + line);
    pairs.emplace_back(std::min(ia, ib), std::max(ia, ib));
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  disabled_ = std::move(pairs);
  srdf_xml_.push_back(srdf_xml);
}

}  // namespace diffcol::scene
