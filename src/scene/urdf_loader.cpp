// URDF loading: tinyxml2 reads the capsule extension and the joints' document order, urdfdom
// parses the rest; the tree is renumbered depth first (robot_model.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <console_bridge/console.h>
#include <tinyxml2.h>
#include <urdf_parser/urdf_parser.h>

#include "diffcol/scene/robot_model.hpp"

namespace diffcol::scene {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("URDF: " + what); }

// urdfdom reports through console_bridge's global handler: collect its errors while it parses.
class ErrorCollector : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) {
      if (!errors.empty()) errors += "; ";
      errors += text;
    }
  }
  std::string errors;
};

std::mutex& parser_mutex() {
  static std::mutex m;
  return m;
}

urdf::ModelInterfaceSharedPtr parse_with_urdfdom(const std::string& xml) {
  std::lock_guard<std::mutex> lock(parser_mutex());
  ErrorCollector collector;
  console_bridge::useOutputHandler(&collector);
  urdf::ModelInterfaceSharedPtr model;
  try {
    model = urdf::parseURDF(xml);
  } catch (const std::exception& e) {
    console_bridge::restorePreviousOutputHandler();
    fail(e.what());
  }
  console_bridge::restorePreviousOutputHandler();
  if (!collector.errors.empty()) fail(collector.errors);
  if (!model) fail("urdfdom could not parse the model");
  return model;
}

// A capsule read from <collision><geometry><capsule radius length/>.
struct CapsuleSize {
  double radius, length;
};
using CapsuleKey = std::pair<std::string, int>;  // link name, collision index in the link

double required_attribute(const tinyxml2::XMLElement* e, const char* attr, const std::string& where) {
  double v = 0;
  if (e->QueryDoubleAttribute(attr, &v) != tinyxml2::XML_SUCCESS)
    fail(where + ": <" + e->Name() + "> needs a numeric '" + attr + "' attribute");
  return v;
}

// Replaces every <capsule> geometry under <link> by a <cylinder> urdfdom accepts, recording the
// collision capsules; records the document order of the joints.
void preprocess(tinyxml2::XMLElement* robot, std::map<CapsuleKey, CapsuleSize>& capsules,
                std::map<std::string, int>& joint_order) {
  for (auto* link = robot->FirstChildElement("link"); link; link = link->NextSiblingElement("link")) {
    const char* lname = link->Attribute("name");
    const std::string link_name = lname ? lname : "";
    int k = 0;
    for (auto* el = link->FirstChildElement(); el; el = el->NextSiblingElement()) {
      const std::string tag = el->Name();
      if (tag != "collision" && tag != "visual") continue;
      auto* geometry = el->FirstChildElement("geometry");
      auto* shape = geometry ? geometry->FirstChildElement() : nullptr;
      if (shape && std::string(shape->Name()) == "capsule") {
        const std::string where = "link '" + link_name + "' " + tag;
        const CapsuleSize c{required_attribute(shape, "radius", where), required_attribute(shape, "length", where)};
        if (tag == "collision") capsules[{link_name, k}] = c;
        shape->SetName("cylinder");
      }
      if (tag == "collision") ++k;
    }
  }
  int i = 0;
  for (auto* j = robot->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
    const char* n = j->Attribute("name");
    if (n) joint_order.emplace(n, i++);
  }
}

bool file_exists(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::string absolute_path(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return (ec ? fs::absolute(p) : a).string();
}

// The absolute path of a mesh filename (robot_model.hpp lists the forms).
std::string resolve_mesh(const std::string& filename, const fs::path& base_dir, const std::string& link) {
  const std::string where = "link '" + link + "': mesh '" + filename + "'";
  const std::string file_prefix = "file://", package_prefix = "package://";
  std::vector<fs::path> candidates;
  if (filename.rfind(package_prefix, 0) == 0) {
    const std::string rest = filename.substr(package_prefix.size());
    const auto slash = rest.find('/');
    if (slash == std::string::npos || slash == 0) fail(where + ": expected package://<name>/<path>");
    const std::string package = rest.substr(0, slash), inside = rest.substr(slash + 1);
    if (const char* env = std::getenv("ROS_PACKAGE_PATH")) {
      std::stringstream ss(env);
      std::string dir;
      while (std::getline(ss, dir, ':'))
        if (!dir.empty()) candidates.push_back(fs::path(dir) / package / inside);
    }
    // the URDF's folder and its parents: a URDF anywhere inside the package's folder
    for (fs::path a = base_dir;; a = a.parent_path()) {
      candidates.push_back(a / package / inside);
      if (a == a.parent_path()) break;
    }
  } else {
    std::string path = filename;
    if (path.rfind(file_prefix, 0) == 0) path = path.substr(file_prefix.size());
    else if (path.find("://") != std::string::npos) fail(where + ": unsupported URI scheme");
    if (path.empty()) fail(where + ": empty filename");
    const fs::path p(path);
    candidates.push_back(p.is_absolute() ? p : base_dir / p);
  }
  for (const auto& c : candidates)
    if (file_exists(c)) return absolute_path(c);
  std::string looked;
  for (const auto& c : candidates) looked += (looked.empty() ? "" : ", ") + c.string();
  fail(where + ": file not found (looked for " + looked + ")");
}

Pose to_pose(const urdf::Pose& x, const std::string& where) {
  double qx, qy, qz, qw;
  x.rotation.getQuaternion(qx, qy, qz, qw);
  try {
    return Pose::from_quaternion(Vec3(x.position.x, x.position.y, x.position.z), qw, qx, qy, qz);
  } catch (const std::invalid_argument& e) {
    fail(where + ": invalid <origin>: " + e.what());
  }
}

bool positive(double v) { return std::isfinite(v) && v > 0.0 && v <= kMaxLength; }

CollisionGeometry to_geometry(const urdf::Geometry& g, const CapsuleSize* capsule, const fs::path& base_dir,
                              const std::string& link, const std::string& where) {
  CollisionGeometry out;
  switch (g.type) {
    case urdf::Geometry::BOX: {
      const auto& d = static_cast<const urdf::Box&>(g).dim;
      out.kind = GeometryKind::box;
      out.box_size = Vec3(d.x, d.y, d.z);
      if (!positive(d.x) || !positive(d.y) || !positive(d.z)) fail(where + ": box sizes must be positive and finite");
      break;
    }
    case urdf::Geometry::SPHERE:
      out.kind = GeometryKind::sphere;
      out.radius = static_cast<const urdf::Sphere&>(g).radius;
      if (!positive(out.radius)) fail(where + ": sphere radius must be positive and finite");
      break;
    case urdf::Geometry::CYLINDER: {
      const auto& c = static_cast<const urdf::Cylinder&>(g);
      if (capsule) {
        out.kind = GeometryKind::capsule;
        out.radius = capsule->radius;
        out.length = capsule->length;
        if (!positive(out.radius) || !std::isfinite(out.length) || out.length < 0.0 || out.length > kMaxLength)
          fail(where + ": capsule radius must be positive and length non-negative, both finite");
      } else {
        out.kind = GeometryKind::cylinder;
        out.radius = c.radius;
        out.length = c.length;
        if (!positive(out.radius) || !positive(out.length))
          fail(where + ": cylinder radius and length must be positive and finite");
      }
      break;
    }
    case urdf::Geometry::MESH: {
      const auto& m = static_cast<const urdf::Mesh&>(g);
      out.kind = GeometryKind::mesh;
      out.mesh_scale = Vec3(m.scale.x, m.scale.y, m.scale.z);
      if (!out.mesh_scale.allFinite() || (out.mesh_scale.array() == 0.0).any())
        fail(where + ": mesh scale must be finite and non-zero");
      out.mesh_path = resolve_mesh(m.filename, base_dir, link);
      break;
    }
    default:
      fail(where + ": unknown geometry type");
  }
  return out;
}

const char* urdf_joint_type_name(int type) {
  switch (type) {
    case urdf::Joint::REVOLUTE: return "revolute";
    case urdf::Joint::CONTINUOUS: return "continuous";
    case urdf::Joint::PRISMATIC: return "prismatic";
    case urdf::Joint::FLOATING: return "floating";
    case urdf::Joint::PLANAR: return "planar";
    case urdf::Joint::FIXED: return "fixed";
    default: return "unknown";
  }
}

std::string read_text_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(std::string(what) + ": cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

RobotModel RobotModel::from_urdf_file(const std::string& urdf_path, const std::string& srdf_path) {
  const std::string xml = read_text_file(urdf_path, "URDF");
  RobotModel model;
  try {
    model = from_urdf_string(xml, fs::absolute(fs::path(urdf_path)).parent_path().string());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) + " (in '" + urdf_path + "')");
  }
  if (!srdf_path.empty()) model.load_srdf_file(srdf_path);
  return model;
}

RobotModel RobotModel::from_urdf_string(const std::string& urdf_xml, const std::string& base_dir_in) {
  const fs::path base_dir = base_dir_in.empty() ? fs::current_path() : fs::absolute(fs::path(base_dir_in));

  // capsules and joint order from the XML, then urdfdom on the rewritten document
  tinyxml2::XMLDocument doc;
  if (doc.Parse(urdf_xml.c_str(), urdf_xml.size()) != tinyxml2::XML_SUCCESS)
    fail(std::string("malformed XML: ") + doc.ErrorStr());
  tinyxml2::XMLElement* robot = doc.RootElement();
  if (!robot || std::string(robot->Name()) != "robot") fail("the root element is not <robot>");
  std::map<CapsuleKey, CapsuleSize> capsules;
  std::map<std::string, int> joint_order;
  preprocess(robot, capsules, joint_order);
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  const urdf::ModelInterfaceSharedPtr urdf_model = parse_with_urdfdom(printer.CStr());
  const urdf::LinkConstSharedPtr root = urdf_model->getRoot();
  if (!root) fail("no root link");

  RobotModel model;
  model.name_ = urdf_model->getName();
  model.urdf_xml_ = urdf_xml;
  model.base_dir_ = base_dir.string();

  // depth first from the root; a link's children in the document order of their joints
  std::vector<urdf::LinkConstSharedPtr> order;
  std::vector<urdf::LinkConstSharedPtr> stack{root};
  std::map<std::string, int> index;
  while (!stack.empty()) {
    urdf::LinkConstSharedPtr link = stack.back();
    stack.pop_back();
    if (!index.emplace(link->name, static_cast<int>(order.size())).second)
      fail("link '" + link->name + "' is reached twice: the links do not form a tree");
    order.push_back(link);
    std::vector<urdf::JointSharedPtr> children = link->child_joints;
    std::sort(children.begin(), children.end(), [&](const auto& a, const auto& b) {
      return joint_order.at(a->name) < joint_order.at(b->name);
    });
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      urdf::LinkSharedPtr child;
      urdf_model->getLink((*it)->child_link_name, child);
      if (!child) fail("joint '" + (*it)->name + "': no child link '" + (*it)->child_link_name + "'");
      stack.push_back(child);
    }
  }
  if (order.size() != urdf_model->links_.size())
    fail("the links do not form one tree: " + std::to_string(urdf_model->links_.size() - order.size()) +
         " link(s) are not below the root '" + root->name + "'");

  for (const auto& link : order) {
    const int li = static_cast<int>(model.links_.size());
    RobotLink rl;
    rl.name = link->name;
    if (link->parent_joint) {
      const urdf::Joint& uj = *link->parent_joint;
      const std::string where = "joint '" + uj.name + "'";
      RobotJoint j;
      j.name = uj.name;
      switch (uj.type) {
        case urdf::Joint::REVOLUTE: j.type = JointType::revolute; break;
        case urdf::Joint::CONTINUOUS: j.type = JointType::continuous; break;
        case urdf::Joint::PRISMATIC: j.type = JointType::prismatic; break;
        case urdf::Joint::FIXED: j.type = JointType::fixed; break;
        default:
          fail(where + " has type " + urdf_joint_type_name(uj.type) +
               "; supported: revolute, continuous, prismatic, fixed");
      }
      if (uj.mimic) fail(where + ": <mimic> joints are not supported");
      j.parent_link = index.at(uj.parent_link_name);
      j.child_link = li;
      j.X_PJ = to_pose(uj.parent_to_joint_origin_transform, where);
      if (j.type != JointType::fixed) {
        const Vec3 axis(uj.axis.x, uj.axis.y, uj.axis.z);
        const double n = axis.norm();
        if (!std::isfinite(n) || n < 1e-12) fail(where + ": the axis must be finite and non-zero");
        j.axis = axis / n;
        j.q_index = model.nq_++;
      }
      if (j.type == JointType::revolute || j.type == JointType::prismatic) {
        if (!uj.limits) fail(where + ": <limit> is required");
        j.lower = uj.limits->lower;
        j.upper = uj.limits->upper;
        if (!std::isfinite(j.lower) || !std::isfinite(j.upper) || j.lower > j.upper)
          fail(where + ": the limits must be finite with lower <= upper");
      }
      rl.parent_joint = static_cast<int>(model.joints_.size());
      model.joints_.push_back(std::move(j));
    }
    model.links_.push_back(std::move(rl));

    for (std::size_t k = 0; k < link->collision_array.size(); ++k) {
      const urdf::Collision& uc = *link->collision_array[k];
      RobotCollision c;
      c.name = uc.name.empty() ? link->name + "#" + std::to_string(k) : uc.name;
      c.link = li;
      const std::string where = "link '" + link->name + "' collision '" + c.name + "'";
      if (!uc.geometry) fail(where + ": no geometry");
      c.X_LS = to_pose(uc.origin, where);
      const auto cap = capsules.find({link->name, static_cast<int>(k)});
      c.geometry = to_geometry(*uc.geometry, cap == capsules.end() ? nullptr : &cap->second, base_dir,
                               link->name, where);
      model.collisions_.push_back(std::move(c));
    }
  }
  return model;
}

}  // namespace diffcol::scene
