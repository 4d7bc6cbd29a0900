// diffcol.Scene: bodies, shapes of any family, the broad phase and every close pair with
// derivatives (include/diffcol/scene/scene.hpp); results as numpy arrays.
#include "bindings.hpp"
#include "diffcol/scene/robot.hpp"
#include "diffcol/scene/scene.hpp"

namespace diffcol::python {

namespace {

using scene::CollisionShape;
using scene::PairDerivatives;
using scene::PairResult;
using scene::QueryOptions;
using scene::QueryResult;
using scene::Robot;
using scene::RobotModel;
using scene::RobotQueryResult;
using scene::Scene;

// Rows of a joint-space block: P × n as (P, n), 3P × n as (P, 3, n).
py::array_t<double> joint_block(const Eigen::Ref<const Eigen::MatrixXd>& J, int rows_per_pair) {
  const auto P = J.rows() / rows_per_pair, n = J.cols();
  py::array_t<double> a = rows_per_pair == 1 ? py::array_t<double>({P, n}) : py::array_t<double>({P, Eigen::Index{3}, n});
  double* out = a.mutable_data();
  for (Eigen::Index r = 0; r < J.rows(); ++r)
    for (Eigen::Index c = 0; c < n; ++c) out[r * n + c] = J(r, c);
  return a;
}

CollisionShape shape_from(const py::handle& obj) {
  if (py::isinstance<qp::Capsule>(obj)) return obj.cast<qp::Capsule>();
  if (py::isinstance<qp::PaddedPolygon>(obj)) return obj.cast<qp::PaddedPolygon>();
  if (is_dcol_primitive(obj)) return CollisionShape(to_dcol_primitive(obj, "add_shape: shape"));
  try {
    return CollisionShape(obj.cast<Shape>());
  } catch (const py::cast_error&) {
  }
  throw py::type_error("expected an iDCOL shape (diffcol.Sphere, Superellipsoid, ...), a DCOL primitive "
                       "(diffcol.dcol.Polytope, Capsule, ...) or a QP shape (diffcol.qp.Capsule, PaddedPolygon); got " +
                       std::string(py::str(py::type::of(obj))));
}

// Pickled state of a Scene: its bodies (name, X_WB, static), its shapes (body, shape, X_BS, group,
// mask, name) and its disabled body pairs; warm starts are not state. A DCOL primitive is stored
// with its offset folded into X_BS and an identity offset: added again at X_BS it is the same.
py::tuple scene_state(const Scene& s) {
  py::list bodies, shapes, disabled;
  for (int i = 0; i < s.num_bodies(); ++i) {
    const auto& b = s.body(i);
    bodies.append(py::make_tuple(b.name, b.X_WB, b.is_static));
  }
  for (int i = 0; i < s.num_shapes(); ++i) {
    const auto& sh = s.shape(i);
    shapes.append(py::make_tuple(sh.body, py::cast(sh.shape.variant()), sh.X_BS, sh.filter.group, sh.filter.mask,
                                 sh.name));
  }
  for (const auto& [a, b] : s.disabled_body_pairs()) disabled.append(py::make_tuple(a, b));
  return py::make_tuple(bodies, shapes, disabled);
}

Scene scene_from_state(const py::tuple& state) {
  const py::tuple t = pickle_state(state, 3, "Scene");
  Scene s;
  for (const auto& b : t[0]) {
    const py::tuple e = pickle_state(b, 3, "Scene body");
    s.add_body(e[1].cast<Pose>(), e[2].cast<bool>(), e[0].cast<std::string>());
  }
  for (const auto& sh : t[1]) {
    const py::tuple e = pickle_state(sh, 6, "Scene shape");
    s.add_shape(e[0].cast<int>(), shape_from(e[1]), e[2].cast<Pose>(),
                {e[3].cast<std::uint32_t>(), e[4].cast<std::uint32_t>()}, e[5].cast<std::string>());
  }
  for (const auto& p : t[2]) {
    const py::tuple e = pickle_state(p, 2, "Scene disabled pair");
    s.disable_body_pair(e[0].cast<int>(), e[1].cast<int>());
  }
  return s;
}

template <class F>
py::array_t<double> column(const QueryResult& r, int width, F&& get) {
  const auto n = static_cast<py::ssize_t>(r.pairs.size());
  py::array_t<double> a = width == 1 ? py::array_t<double>({n}) : py::array_t<double>({n, static_cast<py::ssize_t>(width)});
  double* out = a.mutable_data();
  for (size_t i = 0; i < r.pairs.size(); ++i) get(r.pairs[i], out + static_cast<long>(i) * width);
  return a;
}

template <class F>
py::array_t<bool> flags(const QueryResult& r, F&& get) {
  py::array_t<bool> a(static_cast<py::ssize_t>(r.pairs.size()));
  for (size_t i = 0; i < r.pairs.size(); ++i) a.mutable_data()[i] = get(r.pairs[i]);
  return a;
}

py::array_t<int> ids(const QueryResult& r, int PairResult::*field) {
  py::array_t<int> a(static_cast<py::ssize_t>(r.pairs.size()));
  for (size_t i = 0; i < r.pairs.size(); ++i) a.mutable_data()[i] = r.pairs[i].*field;
  return a;
}

// The derivative block `M PairDerivatives::*field` of every pair, shape (N, rows, 12) or (N, 12).
template <class M>
py::array_t<double> derivative_blocks(const QueryResult& r, M PairDerivatives::*field) {
  if (r.derivatives.size() != r.pairs.size())
    throw std::invalid_argument("no derivatives: query with derivatives=True");
  const auto n = static_cast<py::ssize_t>(r.derivatives.size());
  constexpr int rows = M::RowsAtCompileTime;
  py::array_t<double> a = rows == 1 ? py::array_t<double>({n, py::ssize_t{12}}) : py::array_t<double>({n, py::ssize_t{rows}, py::ssize_t{12}});
  double* out = a.mutable_data();
  for (size_t i = 0; i < r.derivatives.size(); ++i) {
    const M& J = r.derivatives[i].*field;
    for (int row = 0; row < rows; ++row)
      for (int c = 0; c < 12; ++c) out[(static_cast<long>(i) * rows + row) * 12 + c] = J(row, c);
  }
  return a;
}

QueryOptions query_options(double margin, bool euclidean, bool derivatives, ReferenceFrame frame, int num_threads) {
  QueryOptions o;
  o.margin = margin;
  o.euclidean = euclidean;
  o.derivatives = derivatives;
  o.frame = frame;
  o.num_threads = num_threads;
  return o;
}

// Docstrings of read-only properties, set after the class is bound (keeps the bindings short).
template <class C>
void document(C& cls, std::initializer_list<std::pair<const char*, const char*>> docs) {
  for (const auto& [name, doc] : docs) cls.attr(name).attr("__doc__") = doc;
}

}  // namespace

void bind_scene(py::module_& m) {
  py::enum_<scene::Family>(m, "Family", "The pair formulation serving a pair of scene shapes (docs/scene.md).")
      .value("idcol", scene::Family::idcol)
      .value("dcol", scene::Family::dcol)
      .value("qp", scene::Family::qp);

  py::class_<QueryResult> qr(m, "SceneQueryResult", R"(The pairs of one Scene.query, as numpy arrays (N pairs).

Ids: shape1, shape2, body1, body2 (int, shape1 < shape2). family, status, solver_status: lists of
names. ok, separated: bool arrays. alpha, gap (iDCOL / DCOL pairs: has_alpha, has_gap), distance
(Euclidean: separated iDCOL / DCOL pairs within the margin, QP pairs always, signed; has_distance),
closest (True: p1_W, p2_W are the closest points; False: the formulation's witness points),
p1_W, p2_W, normal_W (N, 3). With derivatives=True: J_alpha, J_gap, J_distance (N, 12) and
J_p1_W, J_p2_W, J_normal_W (N, 3, 12) over [twist of body1 | twist of body2] in the query's
frame; derivatives_ok, points_ok, normal_ok say which blocks hold derivatives (zero otherwise).)");
  qr.def("__len__", [](const QueryResult& r) { return r.pairs.size(); })
      .def_readonly("candidates", &QueryResult::candidates, "Pairs the broad phase passed to the narrow phase.")
      .def_property_readonly("shape1", [](const QueryResult& r) { return ids(r, &PairResult::shape1); })
      .def_property_readonly("shape2", [](const QueryResult& r) { return ids(r, &PairResult::shape2); })
      .def_property_readonly("body1", [](const QueryResult& r) { return ids(r, &PairResult::body1); })
      .def_property_readonly("body2", [](const QueryResult& r) { return ids(r, &PairResult::body2); })
      .def_property_readonly("family",
                             [](const QueryResult& r) {
                               std::vector<std::string> v;
                               for (const auto& p : r.pairs) v.emplace_back(scene::family_name(p.family));
                               return v;
                             })
      .def_property_readonly("status",
                             [](const QueryResult& r) {
                               std::vector<std::string> v;
                               for (const auto& p : r.pairs) v.emplace_back(diffcol::status_name(p.status));
                               return v;
                             })
      .def_property_readonly("solver_status",
                             [](const QueryResult& r) {
                               std::vector<std::string> v;
                               for (const auto& p : r.pairs) v.emplace_back(p.solver_status);
                               return v;
                             })
      .def_property_readonly("ok", [](const QueryResult& r) { return flags(r, [](const PairResult& p) { return p.ok(); }); })
      .def_property_readonly("separated",
                             [](const QueryResult& r) { return flags(r, [](const PairResult& p) { return p.separated; }); })
      .def_property_readonly("has_alpha",
                             [](const QueryResult& r) { return flags(r, [](const PairResult& p) { return p.has_alpha; }); })
      .def_property_readonly("has_gap", [](const QueryResult& r) { return flags(r, [](const PairResult& p) { return p.has_gap; }); })
      .def_property_readonly("has_distance",
                             [](const QueryResult& r) { return flags(r, [](const PairResult& p) { return p.has_distance; }); })
      .def_property_readonly("closest", [](const QueryResult& r) {
        return flags(r, [](const PairResult& p) { return p.points == scene::PointKind::closest; });
      })
      .def_property_readonly("alpha", [](const QueryResult& r) { return column(r, 1, [](const PairResult& p, double* o) { *o = p.alpha; }); })
      .def_property_readonly("gap", [](const QueryResult& r) { return column(r, 1, [](const PairResult& p, double* o) { *o = p.gap; }); })
      .def_property_readonly("distance",
                             [](const QueryResult& r) { return column(r, 1, [](const PairResult& p, double* o) { *o = p.distance; }); })
      .def_property_readonly("p1_W", [](const QueryResult& r) {
        return column(r, 3, [](const PairResult& p, double* o) { Eigen::Map<Vec3>{o} = p.p1_W; });
      })
      .def_property_readonly("p2_W", [](const QueryResult& r) {
        return column(r, 3, [](const PairResult& p, double* o) { Eigen::Map<Vec3>{o} = p.p2_W; });
      })
      .def_property_readonly("normal_W", [](const QueryResult& r) {
        return column(r, 3, [](const PairResult& p, double* o) { Eigen::Map<Vec3>{o} = p.normal_W; });
      })
      .def_property_readonly("derivatives_ok",
                             [](const QueryResult& r) {
                               py::array_t<bool> a(static_cast<py::ssize_t>(r.derivatives.size()));
                               for (size_t i = 0; i < r.derivatives.size(); ++i) a.mutable_data()[i] = r.derivatives[i].ok;
                               return a;
                             })
      .def_property_readonly("points_ok",
                             [](const QueryResult& r) {
                               py::array_t<bool> a(static_cast<py::ssize_t>(r.derivatives.size()));
                               for (size_t i = 0; i < r.derivatives.size(); ++i) a.mutable_data()[i] = r.derivatives[i].points;
                               return a;
                             })
      .def_property_readonly("normal_ok",
                             [](const QueryResult& r) {
                               py::array_t<bool> a(static_cast<py::ssize_t>(r.derivatives.size()));
                               for (size_t i = 0; i < r.derivatives.size(); ++i) a.mutable_data()[i] = r.derivatives[i].normal;
                               return a;
                             })
      .def_property_readonly("J_alpha", [](const QueryResult& r) { return derivative_blocks(r, &PairDerivatives::J_alpha); })
      .def_property_readonly("J_gap", [](const QueryResult& r) { return derivative_blocks(r, &PairDerivatives::J_gap); })
      .def_property_readonly("J_distance", [](const QueryResult& r) { return derivative_blocks(r, &PairDerivatives::J_distance); })
      .def_property_readonly("J_p1_W", [](const QueryResult& r) { return derivative_blocks(r, &PairDerivatives::J_p1_W); })
      .def_property_readonly("J_p2_W", [](const QueryResult& r) { return derivative_blocks(r, &PairDerivatives::J_p2_W); })
      .def_property_readonly("J_normal_W", [](const QueryResult& r) { return derivative_blocks(r, &PairDerivatives::J_normal_W); })
      .def("__repr__", [](const QueryResult& r) {
        return "SceneQueryResult(" + std::to_string(r.pairs.size()) + " pairs of " + std::to_string(r.candidates) +
               " candidates" + (r.derivatives.empty() ? "" : ", with derivatives") + ")";
      });

  py::class_<Scene> sc(m, "Scene", R"(Rigid bodies with collision shapes of any family; every close pair with derivatives.

  scene = diffcol.Scene()
  table = scene.add_body([0, 0, 0, 1, 0, 0, 0], static=True)
  scene.add_shape(table, diffcol.dcol.Polytope.box(0.5, 0.5, 0.1))
  r = scene.query(margin=0.05, derivatives=True)

A pair of shapes is served by one formulation (iDCOL, DCOL or QP) chosen by the dispatch rule of
docs/scene.md; a pair no formulation serves is refused when the second shape is added. Pairs:
shapes on different bodies, not both static, (group_a & mask_b) and (group_b & mask_a) nonzero,
body pair not disabled.)");
  sc.def(py::init<>())
      .def(
          "add_body",
          [](Scene& s, const PoseArg& X, bool is_static, const std::string& name) { return s.add_body(X.value, is_static, name); },
          py::arg("X_WB") = Pose::identity(), py::kw_only(), py::arg("static") = false, py::arg("name") = "",
          "Adds a body at X_WB (a Pose, 7-vector or 4x4); returns its id.")
      .def(
          "add_shape",
          [](Scene& s, int body, const py::object& shape, const PoseArg& X_BS, std::uint32_t group, std::uint32_t mask,
             const std::string& name) { return s.add_shape(body, shape_from(shape), X_BS.value, {group, mask}, name); },
          py::arg("body"), py::arg("shape"), py::arg("X_BS") = Pose::identity(), py::kw_only(), py::arg("group") = 1u,
          py::arg("mask") = 0xFFFFFFFFu, py::arg("name") = "",
          "Mounts a shape (iDCOL, DCOL or QP) on a body at X_BS; returns the shape id. ValueError for an unknown "
          "body, a bad pose, or a shape no formulation pairs with a shape it may touch (the message names both).")
      .def(
          "set_body_pose", [](Scene& s, int body, const PoseArg& X) { s.set_body_pose(body, X.value); }, py::arg("body"),
          py::arg("X_WB"))
      .def(
          "set_body_poses",
          [](Scene& s, const py::object& poses) {
            py::array_t<double, py::array::c_style | py::array::forcecast> a(poses);
            const bool rows7 = a.ndim() == 2 && a.shape(1) == 7, mats = a.ndim() == 3 && a.shape(1) == 4 && a.shape(2) == 4;
            if (!(rows7 || mats) || a.shape(0) != s.num_bodies())
              throw std::invalid_argument("set_body_poses: expected an array of shape (" + std::to_string(s.num_bodies()) +
                                          ", 7) or (" + std::to_string(s.num_bodies()) + ", 4, 4), one pose per body");
            std::vector<Pose> X(static_cast<size_t>(s.num_bodies()));
            poses_from_buffer(a.data(), s.num_bodies(), rows7 ? 7 : 16, "set_body_poses", X.data());
            s.set_body_poses(X);
          },
          py::arg("X_WB"), "Every body's pose, (num_bodies, 7) or (num_bodies, 4, 4); all checked before any changes.")
      .def("disable_body_pair", &Scene::disable_body_pair, py::arg("body_a"), py::arg("body_b"))
      .def_property_readonly("num_bodies", &Scene::num_bodies)
      .def_property_readonly("num_shapes", &Scene::num_shapes)
      .def(
          "body_pose", [](const Scene& s, int body) { return s.body(body).X_WB; }, py::arg("body"))
      .def("shape_pose", &Scene::shape_pose, py::arg("shape"), "X_WB·X_BS of a shape.")
      .def(
          "describe_shape", [](const Scene& s, int id) { return s.shape(id).shape.describe(); }, py::arg("shape"))
      .def(
          "candidate_pairs",
          [](Scene& s, double margin) {
            const auto& c = s.candidate_pairs(margin);
            py::array_t<int> a({static_cast<py::ssize_t>(c.size()), py::ssize_t{2}});
            for (size_t i = 0; i < c.size(); ++i) {
              a.mutable_data()[2 * i] = c[i].first;
              a.mutable_data()[2 * i + 1] = c[i].second;
            }
            return a;
          },
          py::arg("margin") = 0.0, "The broad phase alone: (K, 2) shape ids, sorted.")
      .def(
          "query",
          [](Scene& s, double margin, bool euclidean, bool derivatives, ReferenceFrame frame, int num_threads) {
            const QueryOptions o = query_options(margin, euclidean, derivatives, frame, num_threads);
            QueryResult r;
            {
              py::gil_scoped_release release;
              s.query(o, r);
            }
            return r;
          },
          py::kw_only(), py::arg("margin") = 0.0, py::arg("euclidean") = true, py::arg("derivatives") = false,
          py::arg("frame") = ReferenceFrame::world, py::arg("num_threads") = 1,
          "Every pair in contact or closer than margin (and every failed pair, with its status).")
      .def("reset_warm_starts", &Scene::reset_warm_starts)
      .def(py::pickle(&scene_state, &scene_from_state))
      .def("__repr__", [](const Scene& s) {
        return "Scene(" + std::to_string(s.num_bodies()) + " bodies, " + std::to_string(s.num_shapes()) + " shapes)";
      });

  py::class_<RobotModel> rm(m, "RobotModel", R"(A URDF robot: links, joints (revolute, continuous, prismatic, fixed), collision
elements (box, cylinder, sphere, mesh, and <capsule radius= length=>), SRDF disabled pairs,
forward kinematics and geometric link Jacobians ([w; v] in a ReferenceFrame).)");
  rm.def_static("from_urdf_file", &RobotModel::from_urdf_file, py::arg("urdf_path"), py::arg("srdf_path") = "",
                  "Loads a URDF file (and an SRDF when given). ValueError with the parser's message on bad input.")
      .def_static("from_urdf_string", &RobotModel::from_urdf_string, py::arg("urdf_xml"), py::arg("base_dir") = ".")
      .def("load_srdf_file", &RobotModel::load_srdf_file, py::arg("srdf_path"))
      .def_property_readonly("name", &RobotModel::name)
      .def_property_readonly("num_links", &RobotModel::num_links)
      .def_property_readonly("num_joints", &RobotModel::num_joints)
      .def_property_readonly("num_positions", &RobotModel::num_positions)
      .def_property_readonly("link_names",
                             [](const RobotModel& r) {
                               std::vector<std::string> v;
                               for (const auto& l : r.links()) v.push_back(l.name);
                               return v;
                             })
      .def_property_readonly("joint_names",
                             [](const RobotModel& r) {
                               std::vector<std::string> v;
                               for (const auto& j : r.joints()) v.push_back(j.name);
                               return v;
                             })
      .def_property_readonly("lower_limits", &RobotModel::lower_limits)
      .def_property_readonly("upper_limits", &RobotModel::upper_limits)
      .def("link_index", &RobotModel::link_index, py::arg("name"))
      .def(
          "forward_kinematics",
          [](const RobotModel& r, const Eigen::VectorXd& q, const PoseArg& X_WB) {
            std::vector<Pose> X;
            r.forward_kinematics(q, X_WB.value, X);
            return X;
          },
          py::arg("q"), py::arg("X_WB") = Pose::identity(), "Every link's world pose (a list of Pose).")
      .def(
          "link_jacobian",
          [](const RobotModel& r, const Eigen::VectorXd& q, int link, ReferenceFrame frame, const PoseArg& X_WB) {
            std::vector<Pose> X;
            r.forward_kinematics(q, X_WB.value, X);
            Eigen::Matrix<double, 6, Eigen::Dynamic> J;
            r.link_jacobian(X, link, frame, J);
            return Eigen::MatrixXd(J);
          },
          py::arg("q"), py::arg("link"), py::arg("frame") = ReferenceFrame::world, py::arg("X_WB") = Pose::identity(),
          "The 6 x nq geometric Jacobian of a link, rows [w; v] in `frame`.")
      .def(py::pickle(
          [](const RobotModel& r) { return py::make_tuple(r.urdf_xml(), r.base_dir(), r.srdf_xml()); },
          [](const py::tuple& state) {
            const py::tuple t = pickle_state(state, 3, "RobotModel");
            RobotModel r = RobotModel::from_urdf_string(t[0].cast<std::string>(), t[1].cast<std::string>());
            for (const auto& srdf : t[2].cast<std::vector<std::string>>()) r.load_srdf_string(srdf);
            return r;
          }))
      .def("__repr__", [](const RobotModel& r) {
        return "RobotModel('" + r.name() + "', " + std::to_string(r.num_links()) + " links, " +
               std::to_string(r.num_positions()) + " positions)";
      });

  py::class_<RobotQueryResult> rq(m, "RobotQueryResult", R"(The pairs of Robot.query with their joint-space derivatives.

pairs: the SceneQueryResult (body-twist blocks in the query's frame when derivatives=True).
J_alpha_q, J_gap_q, J_distance_q: (P, nq); J_p1_W_q, J_p2_W_q, J_normal_W_q: (P, 3, nq);
J_*_base: the same over the base twist (6 columns, the query's frame about the base pose).
Rows are zero where pairs.derivatives_ok / points_ok / normal_ok say the blocks are not available.)");
  rq.def_property_readonly("pairs", [](const RobotQueryResult& r) { return r.scene; })
      .def("__len__", [](const RobotQueryResult& r) { return r.scene.pairs.size(); })
      .def_property_readonly("J_alpha_q", [](const RobotQueryResult& r) { return joint_block(r.J_alpha_q, 1); })
      .def_property_readonly("J_gap_q", [](const RobotQueryResult& r) { return joint_block(r.J_gap_q, 1); })
      .def_property_readonly("J_distance_q", [](const RobotQueryResult& r) { return joint_block(r.J_distance_q, 1); })
      .def_property_readonly("J_p1_W_q", [](const RobotQueryResult& r) { return joint_block(r.J_p1_W_q, 3); })
      .def_property_readonly("J_p2_W_q", [](const RobotQueryResult& r) { return joint_block(r.J_p2_W_q, 3); })
      .def_property_readonly("J_normal_W_q", [](const RobotQueryResult& r) { return joint_block(r.J_normal_W_q, 3); })
      .def_property_readonly("J_alpha_base", [](const RobotQueryResult& r) { return joint_block(r.J_alpha_base, 1); })
      .def_property_readonly("J_gap_base", [](const RobotQueryResult& r) { return joint_block(r.J_gap_base, 1); })
      .def_property_readonly("J_distance_base", [](const RobotQueryResult& r) { return joint_block(r.J_distance_base, 1); })
      .def_property_readonly("J_p1_W_base", [](const RobotQueryResult& r) { return joint_block(r.J_p1_W_base, 3); })
      .def_property_readonly("J_p2_W_base", [](const RobotQueryResult& r) { return joint_block(r.J_p2_W_base, 3); })
      .def_property_readonly("J_normal_W_base", [](const RobotQueryResult& r) { return joint_block(r.J_normal_W_base, 3); })
      .def("__repr__", [](const RobotQueryResult& r) {
        return "RobotQueryResult(" + std::to_string(r.scene.pairs.size()) + " pairs, nq = " + std::to_string(r.J_gap_q.cols()) + ")";
      });

  py::class_<Robot> rb(m, "Robot", R"(A URDF robot in a Scene: its links become moving bodies with their collision shapes.

  scene = diffcol.Scene()
  robot = diffcol.Robot(scene, diffcol.RobotModel.from_urdf_file("arm7.urdf", "arm7.srdf"))
  robot.set_configuration(q)
  r = robot.query(margin=0.05)      # r.J_distance_q: (P, 7)

family: of the URDF primitives and mesh hulls ("dcol" exact, default; "idcol" smooth within
tolerance, or relative_tolerance of the smallest half-extent; capsules stay DCOL).
Adjacent links are excluded from self-collision unless exclude_adjacent=False; SRDF pairs always.)");
  rb.def(py::init([](Scene& s, const RobotModel& model, const std::string& family, double tolerance,
                       double relative_tolerance, bool exclude_adjacent, bool self_collision, std::uint32_t group,
                       std::uint32_t mask, const std::string& name_prefix) {
             scene::RobotOptions o;
             o.family = scene::parse_family(family);
             o.smoothing.tolerance = tolerance;
             o.smoothing.relative_tolerance = relative_tolerance;
             o.exclude_adjacent = exclude_adjacent;
             o.self_collision = self_collision;
             o.filter = {group, mask};
             o.name_prefix = name_prefix;
             return std::make_unique<Robot>(s, model, o);
           }),
           py::arg("scene"), py::arg("model"), py::kw_only(), py::arg("family") = "dcol", py::arg("tolerance") = 0.0,
           py::arg("relative_tolerance") = 0.02, py::arg("exclude_adjacent") = true, py::arg("self_collision") = true,
           py::arg("group") = 1u, py::arg("mask") = 0xFFFFFFFFu, py::arg("name_prefix") = "", py::keep_alive<1, 2>())
      .def(
          "__reduce__",
          [](const Robot&) -> py::object {
            throw py::type_error(
                "a Robot refers to its Scene and is not pickled: pickle its RobotModel and the scene without "
                "the robot, and build the Robot again with diffcol.Robot(scene, model, ...) (docs/scene.md)");
          })
      .def_property_readonly("num_positions", &Robot::num_positions)
      .def_property_readonly("q", &Robot::q)
      .def_property_readonly("base_pose", &Robot::base_pose)
      .def_property_readonly("link_poses", &Robot::link_poses)
      .def("link_body", &Robot::link_body, py::arg("link"))
      .def("body_link", &Robot::body_link, py::arg("body"))
      .def(
          "set_configuration",
          [](Robot& r, const Eigen::VectorXd& q, const PoseArg& X_WB) { r.set_configuration(q, X_WB.value); },
          py::arg("q"), py::arg("X_WB") = Pose::identity(),
          "Forward kinematics; moves the link bodies. ValueError for a wrong-length or non-finite q.")
      .def(
          "query",
          [](Robot& r, double margin, bool euclidean, bool derivatives, bool joint_derivatives, ReferenceFrame frame,
             int num_threads) {
            const QueryOptions o = query_options(margin, euclidean, derivatives, frame, num_threads);
            RobotQueryResult out;
            {
              py::gil_scoped_release release;
              r.query(o, out, joint_derivatives);
            }
            return out;
          },
          py::kw_only(), py::arg("margin") = 0.0, py::arg("euclidean") = true, py::arg("derivatives") = false,
          py::arg("joint_derivatives") = true, py::arg("frame") = ReferenceFrame::world, py::arg("num_threads") = 1,
          "The scene's query at the current configuration with joint-space (and base) derivatives of every pair.");

  document(qr, {{"shape1", "Scene shape id of each pair's first shape (int array, shape1 < shape2)."},
                {"shape2", "Scene shape id of each pair's second shape."},
                {"body1", "Body of shape1 (int array)."},
                {"body2", "Body of shape2 (int array)."},
                {"family", "The formulation that served each pair: 'idcol', 'dcol' or 'qp' (docs/scene.md)."},
                {"status", "'ok', 'coincident_origins', 'not_converged' or 'invalid_input' per pair."},
                {"solver_status", "The layer's own status name per pair ('ok', 'not_converged', 'not_certified', ...)."},
                {"ok", "status == 'ok' (bool array)."},
                {"separated", "alpha > 1 (iDCOL, DCOL) or distance > 0 (QP) (bool array)."},
                {"has_alpha", "Whether alpha holds the scaling (iDCOL and DCOL pairs)."},
                {"has_gap", "Whether gap holds d_D (iDCOL and DCOL pairs)."},
                {"has_distance", "Whether distance holds the Euclidean distance."},
                {"closest", "True: p1_W, p2_W are the closest points; False: the formulation's witness points."},
                {"alpha", "The minimum scaling alpha* (0 where has_alpha is False)."},
                {"gap", "d_D = (1 - 1/alpha)|r|: signed, not Euclidean (0 where has_gap is False)."},
                {"distance", "The Euclidean distance (QP: signed; 0 where has_distance is False)."},
                {"p1_W", "(N, 3) points on shape 1, world."},
                {"p2_W", "(N, 3) points on shape 2, world."},
                {"normal_W", "(N, 3) unit normals from shape 1 to shape 2, world (zero where undefined)."},
                {"derivatives_ok", "Per pair: the alpha, gap and distance rows hold derivatives."},
                {"points_ok", "Per pair: J_p1_W, J_p2_W hold derivatives."},
                {"normal_ok", "Per pair: J_normal_W holds derivatives."},
                {"J_alpha", "(N, 12) d alpha / d[twist of body1 | twist of body2], the query's frame."},
                {"J_gap", "(N, 12) d gap / d[twist of body1 | twist of body2]."},
                {"J_distance", "(N, 12) d distance / d[twist of body1 | twist of body2]."},
                {"J_p1_W", "(N, 3, 12) d p1_W / d[twist of body1 | twist of body2]."},
                {"J_p2_W", "(N, 3, 12) d p2_W / d[twist of body1 | twist of body2]."},
                {"J_normal_W", "(N, 3, 12) d normal_W / d[twist of body1 | twist of body2]."}});
  document(sc, {{"num_bodies", "Number of bodies."}, {"num_shapes", "Number of shapes."}});
  document(rm, {{"name", "The URDF robot name."},
                {"num_links", "Number of links."},
                {"num_joints", "Number of joints (fixed ones included)."},
                {"num_positions", "nq: the non-fixed joints, the length of q."},
                {"link_names", "Link names in index order (depth first from the root)."},
                {"joint_names", "Joint names; joint i moves link i + 1."},
                {"lower_limits", "Lower position limit per q entry (-inf for continuous joints)."},
                {"upper_limits", "Upper position limit per q entry (+inf for continuous joints)."}});
  document(rq, {{"pairs", "The SceneQueryResult of the query."},
                {"J_alpha_q", "(P, nq) d alpha / dq."},
                {"J_gap_q", "(P, nq) d gap / dq."},
                {"J_distance_q", "(P, nq) d distance / dq."},
                {"J_p1_W_q", "(P, 3, nq) d p1_W / dq."},
                {"J_p2_W_q", "(P, 3, nq) d p2_W / dq."},
                {"J_normal_W_q", "(P, 3, nq) d normal_W / dq."},
                {"J_alpha_base", "(P, 6) d alpha / d(base twist), the query's frame about the base pose."},
                {"J_gap_base", "(P, 6) d gap / d(base twist)."},
                {"J_distance_base", "(P, 6) d distance / d(base twist)."},
                {"J_p1_W_base", "(P, 3, 6) d p1_W / d(base twist)."},
                {"J_p2_W_base", "(P, 3, 6) d p2_W / d(base twist)."},
                {"J_normal_W_base", "(P, 3, 6) d normal_W / d(base twist)."}});
  document(rb, {{"num_positions", "nq, the length of q."},
                {"q", "The current joint positions."},
                {"base_pose", "The current base pose X_WB."},
                {"link_poses", "Every link's world pose at the current configuration."}});
}

}  // namespace diffcol::python
