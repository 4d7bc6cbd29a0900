// Procedural 18-superquadric figures (figures.hpp): determinism, mesh ↔ SDF agreement, the
// convex pieces on their superquadrics, the mesh volume against an independent Monte Carlo
// estimate from the primitives' inside–outside functions, and input validation; the figures
// dropped onto each other through their manifolds (sim/manifold_contact.hpp): the rollout
// derivative against central differences, mesh mass properties against a closed form.
#include <cmath>
#include <random>
#include <stdexcept>

#include <gtest/gtest.h>

#include "diffcol/manifold/figures.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "diffcol/sim/manifold_contact.hpp"
#include "test_util.hpp"

namespace mf = diffcol::manifold;
using diffcol::Vec3;

namespace {

/// One figure per seed, built once (meshing is the slow part).
const mf::LimbedFigure& figure(std::uint64_t seed) {
  static const mf::LimbedFigure f0 = mf::make_limbed_figure(mf::FigureOptions{});
  static const mf::LimbedFigure f7 = [] {
    mf::FigureOptions o;
    o.seed = 7;
    o.height = 1.8;
    return mf::make_limbed_figure(o);
  }();
  return seed == 0 ? f0 : f7;
}

}  // namespace

TEST(ManifoldFigures, EighteenPiecesAboutThreeHundredVertices) {
  for (std::uint64_t seed : {0u, 7u}) {
    const mf::LimbedFigure& f = figure(seed);
    EXPECT_EQ(static_cast<int>(f.pieces.size()), mf::kFigurePieces);
    EXPECT_EQ(static_cast<int>(f.convex_pieces.size()), mf::kFigurePieces);
    EXPECT_EQ(f.sdf.num_added(), mf::kFigurePieces);
    EXPECT_GE(f.mesh.num_vertices(), 240) << "seed " << seed;
    EXPECT_LE(f.mesh.num_vertices(), 360) << "seed " << seed;
    EXPECT_GT(f.cell_size, 0.0);
  }
}

TEST(ManifoldFigures, DeterministicFromTheSeed) {
  const mf::LimbedFigure again = mf::make_limbed_figure(mf::FigureOptions{});
  const mf::LimbedFigure& f = figure(0);
  ASSERT_EQ(again.mesh.num_vertices(), f.mesh.num_vertices());
  for (int i = 0; i < f.mesh.num_vertices(); ++i) EXPECT_EQ(again.mesh.vertices()[i], f.mesh.vertices()[i]);
  // A different seed changes the pieces.
  mf::FigureOptions o;
  o.seed = 1;
  const mf::LimbedFigure other = mf::make_limbed_figure(o);
  double diff = 0.0;
  for (int i = 0; i < mf::kFigurePieces; ++i)
    diff += (other.pieces[i].pose().p - f.pieces[i].pose().p).norm() +
            (other.pieces[i].semi_axes() - f.pieces[i].semi_axes()).norm();
  EXPECT_GT(diff, 1e-3);
}

TEST(ManifoldFigures, MeshLiesOnTheZeroLevelSetAndContainsEveryPiece) {
  for (std::uint64_t seed : {0u, 7u}) {
    const mf::LimbedFigure& f = figure(seed);
    const double height = seed == 0 ? 1.0 : 1.8;
    EXPECT_LT(mf::max_vertex_sdf(f.sdf, f.mesh), 1e-6 * height);
    for (int i = 0; i < mf::kFigurePieces; ++i) {
      const Vec3 c = f.pieces[i].pose().p;
      EXPECT_TRUE(diffcol::mesh::contains(f.mesh, c)) << mf::figure_piece_name(i);
      EXPECT_LT(f.sdf.value(c), 0.0) << mf::figure_piece_name(i);
    }
    const auto box = f.mesh.bounding_box();
    const double extent = (box[1] - box[0]).maxCoeff();
    EXPECT_GT(extent, 0.8 * height);
    EXPECT_LT(extent, 1.5 * height);
  }
}

// The mesh volume against a Monte Carlo volume of the union of the primitives, from their
// inside–outside functions (eq. (2): f < 1 inside), which the mesh code never uses. The fine
// iso-surface (before decimation, cell_size) must agree within 5 % (the smooth union only adds
// thin fillets); the ~300-vertex mesh has its vertices on the surface and chords across the
// curved parts, so it is smaller, by less than a quarter. A lost limb or a wrong orientation
// falls outside both.
TEST(ManifoldFigures, MeshVolumeMatchesTheUnionOfPrimitives) {
  const mf::LimbedFigure& f = figure(0);
  const auto box = f.mesh.bounding_box();
  const Vec3 lo = box[0] - Vec3::Constant(0.05), hi = box[1] + Vec3::Constant(0.05);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const int n = 100000;
  int inside = 0;
  for (int s = 0; s < n; ++s) {
    const Vec3 x = lo + (hi - lo).cwiseProduct(Vec3(U(rng), U(rng), U(rng)));
    for (const mf::Superquadric& q : f.pieces)
      if (q.inside_outside(x) < 1.0) {
        ++inside;
        break;
      }
  }
  const double mc_volume = (hi - lo).prod() * inside / n;
  mf::IsoSurfaceOptions iso;
  iso.lower = lo - Vec3::Constant(2.0 * f.cell_size);
  iso.upper = hi + Vec3::Constant(2.0 * f.cell_size);
  iso.cell_size = f.cell_size;
  const diffcol::mesh::TriangleMesh fine = mf::mesh_from_sdf(f.sdf, iso);
  EXPECT_NEAR(fine.volume(), mc_volume, 0.05 * mc_volume);
  EXPECT_GT(f.mesh.volume(), 0.75 * mc_volume);
  EXPECT_LT(f.mesh.volume(), 1.02 * mc_volume);
}

TEST(ManifoldFigures, ConvexPiecesLieOnTheirSuperquadrics) {
  const mf::LimbedFigure& f = figure(7);
  for (int i = 0; i < mf::kFigurePieces; ++i) {
    const diffcol::mesh::TriangleMesh& m = f.convex_pieces[i];
    EXPECT_EQ(m.num_vertices(), 3 * 8 + 2);
    EXPECT_LT(m.num_vertices(), 32);
    EXPECT_GT(m.volume(), 0.0);
    for (const Vec3& v : m.vertices()) EXPECT_NEAR(f.pieces[i].inside_outside(v), 1.0, 1e-9) << mf::figure_piece_name(i);
    // Convex hull of points on a convex surface: its volume is below the primitive's (a box
    // bounds the primitive from outside: 8abc).
    EXPECT_LT(m.volume(), 8.0 * f.pieces[i].semi_axes().prod());
  }
}

TEST(ManifoldFigures, SurfaceMeshResolutionAndBadInput) {
  const mf::Superquadric sq(Vec3(0.3, 0.2, 0.1), 0.5, 0.8);
  const diffcol::mesh::TriangleMesh m = mf::superquadric_surface_mesh(sq, 5, 12);
  EXPECT_EQ(m.num_vertices(), 5 * 12 + 2);
  EXPECT_THROW(mf::superquadric_surface_mesh(sq, 0, 8), std::invalid_argument);
  EXPECT_THROW(mf::superquadric_surface_mesh(sq, 3, 2), std::invalid_argument);
  EXPECT_THROW(mf::figure_piece_name(18), std::invalid_argument);
  EXPECT_THROW(mf::figure_piece_name(-1), std::invalid_argument);
  EXPECT_STREQ(mf::figure_piece_name(4), "head");
}

TEST(ManifoldFigures, RejectsInvalidOptions) {
  auto bad = [](auto edit) {
    mf::FigureOptions o;
    edit(o);
    return o;
  };
  EXPECT_THROW(mf::make_limbed_figure(bad([](mf::FigureOptions& o) { o.height = 0.0; })), std::invalid_argument);
  EXPECT_THROW(mf::make_limbed_figure(bad([](mf::FigureOptions& o) { o.height = diffcol::test::kNaN; })),
               std::invalid_argument);
  EXPECT_THROW(mf::make_limbed_figure(bad([](mf::FigureOptions& o) { o.blend_fraction = -0.01; })),
               std::invalid_argument);
  EXPECT_THROW(mf::make_limbed_figure(bad([](mf::FigureOptions& o) { o.target_vertices = 10; })),
               std::invalid_argument);
  // Small targets inside the accepted range: a figure or a clear error (a decimated mesh that lost
  // a piece was dereferenced after being dropped, a segfault, for 100, 110, 120 and 150).
  for (const int target : {100, 110, 120, 150}) {
    mf::FigureOptions o;
    o.target_vertices = target;
    try {
      const mf::LimbedFigure f = mf::make_limbed_figure(o);
      EXPECT_LE(f.mesh.num_vertices(), target + 20) << target;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("make_limbed_figure"), std::string::npos) << target;
    }
  }
  EXPECT_THROW(mf::make_limbed_figure(bad([](mf::FigureOptions& o) { o.piece_rings = 0; })), std::invalid_argument);
  EXPECT_THROW(mf::make_limbed_figure(bad([](mf::FigureOptions& o) { o.piece_segments = 64; })),
               std::invalid_argument);
  EXPECT_THROW(mf::make_limbed_figure(bad([](mf::FigureOptions& o) { o.projection_steps = -1; })),
               std::invalid_argument);
}

TEST(ManifoldFigures, MeshMassPropertiesOfABoxMatchTheClosedForm) {
  const Vec3 size(0.4, 1.0, 2.2);
  diffcol::mesh::TriangleMesh box = mf::make_refined_box(size, 3);
  std::vector<Vec3> moved;  // off the origin: the centre of mass and the parallel-axis shift
  for (const Vec3& v : box.vertices()) moved.push_back(v + Vec3(0.3, -1.1, 0.7));
  box = diffcol::mesh::TriangleMesh(moved, box.faces());
  const diffcol::sim::MassProperties mp = diffcol::sim::mesh_mass_properties(box, 800.0);
  const double m = 800.0 * size.prod();
  EXPECT_NEAR(mp.mass, m, 1e-12 * m);
  EXPECT_LT((mp.com - Vec3(0.3, -1.1, 0.7)).norm(), 1e-13);
  const Vec3 I(m / 12 * (size.y() * size.y() + size.z() * size.z()), m / 12 * (size.x() * size.x() + size.z() * size.z()),
               m / 12 * (size.x() * size.x() + size.y() * size.y()));
  EXPECT_LT((mp.inertia - diffcol::Mat3(I.asDiagonal())).norm(), 1e-12 * I.norm());
  EXPECT_THROW(diffcol::sim::mesh_mass_properties(box, 0.0), std::invalid_argument);
}

// d x(N) / d x(0) of the drop through the figures' manifold (V-S entries with culling, penalty
// per entry weighted by its activity) against central differences: the upper figure starts
// touching the lower one, so every step of the short rollout has figure-figure contact.
TEST(ManifoldFigures, DropRolloutDerivativeMatchesCentralDifferences) {
  namespace sim = diffcol::sim;
  sim::FiguresDropOptions o;
  o.drop_gap = 0.0;
  sim::FiguresDrop drop = sim::figures_drop(o);
  sim::ManifoldContactSystem& sys = drop.system;
  ASSERT_EQ(sys.tangent_dimension(), 24);
  const int steps = 40;
  const int upper = 12;  // tangent offset of the upper figure (the lower one is free body 0)
  int contact_steps = 0;
  const auto rollout = [&](std::vector<sim::BodyState> s, Eigen::VectorXd* tangent) {
    for (int k = 0; k < steps; ++k) {
      sys.step(s, tangent);
      if (tangent) {
        for (const auto& e : sys.pair_manifold(s, drop.figure_pair).entries)
          if (e.activity > 1e-3) {
            ++contact_steps;
            break;
          }
      }
    }
    Eigen::VectorXd out(6);
    out << s[static_cast<size_t>(drop.upper)].X_WB.p, s[static_cast<size_t>(drop.upper)].v_W;
    return out;
  };
  // directions: the upper figure's height, its initial x velocity, the lower figure's roll rate
  for (const int index : {upper + 5, upper + 6, 9}) {
    Eigen::VectorXd tangent = Eigen::VectorXd::Zero(24);
    tangent[index] = 1.0;
    contact_steps = 0;
    const Eigen::VectorXd x = rollout(drop.initial, &tangent);
    EXPECT_EQ(contact_steps, steps) << "the figures must touch at every step";
    // the position part of the tangent: δp of the upper figure (offset 3); its velocity (offset 6)
    Eigen::VectorXd analytic(6);
    analytic << tangent.segment<3>(upper + 3), tangent.segment<3>(upper + 6);
    const double h = 1e-6;
    Eigen::VectorXd delta = Eigen::VectorXd::Zero(24);
    delta[index] = h;
    std::vector<sim::BodyState> plus = drop.initial, minus = drop.initial;
    sys.retract(plus, delta);
    sys.retract(minus, -delta);
    const Eigen::VectorXd fd = (rollout(plus, nullptr) - rollout(minus, nullptr)) / (2 * h);
    EXPECT_LE((analytic - fd).norm(), 1e-5 * fd.norm()) << "direction " << index << ": analytic "
                                                        << analytic.transpose() << ", central " << fd.transpose();
    EXPECT_TRUE(x.allFinite());
  }
  // bad input
  Eigen::VectorXd wrong = Eigen::VectorXd::Zero(5);
  std::vector<sim::BodyState> s = drop.initial;
  EXPECT_THROW(sys.step(s, &wrong), std::invalid_argument);
  s[1].v_W.x() = std::nan("");
  EXPECT_THROW(sys.step(s), std::invalid_argument);
  sim::ManifoldContactLaw law;
  law.stiffness = -1.0;
  EXPECT_THROW(law.validate(), std::invalid_argument);
}
