// Penalty contact system: the right-hand side of Newton–Euler with Hertz contact (iDCOL seed
// (31)–(32)), its stiffness derivative and its analytic Jacobian from the contact derivatives
// (B38)–(B44) chained through the kinematics. Laws and conventions: penalty.hpp, docs/sim.md.
#include "penalty_impl.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

namespace diffcol::sim {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Mat3 rotation_of(const double* q) {
  Eigen::Quaterniond Q(q[0], q[1], q[2], q[3]);
  return Q.normalized().toRotationMatrix();
}

using Mat3x24 = Eigen::Matrix<double, 3, 24>;
using Mat1x24 = Eigen::Matrix<double, 1, 24>;

}  // namespace

void ContactModel::validate() const {
  if (!(stiffness > 0.0) || !std::isfinite(stiffness))
    throw std::invalid_argument("ContactModel: stiffness must be finite and > 0 (got " + num(stiffness) + ")");
  if (!(exponent >= 1.0) || !std::isfinite(exponent) || exponent > 10.0)
    throw std::invalid_argument("ContactModel: exponent must be in [1, 10] (got " + num(exponent) + ")");
  if (!(damping >= 0.0) || !std::isfinite(damping))
    throw std::invalid_argument("ContactModel: damping must be finite and >= 0 (got " + num(damping) + ")");
  if (!(friction >= 0.0) || !std::isfinite(friction))
    throw std::invalid_argument("ContactModel: friction must be finite and >= 0 (got " + num(friction) + ")");
  if (!(slip_velocity > 0.0) || !std::isfinite(slip_velocity))
    throw std::invalid_argument("ContactModel: slip_velocity must be finite and > 0 (got " + num(slip_velocity) + ")");
}

void SimOptions::validate() const {
  if (!(rtol > 0.0) || !std::isfinite(rtol) || rtol > 1.0)
    throw std::invalid_argument("SimOptions: rtol must be in (0, 1] (got " + num(rtol) + ")");
  if (!(atol > 0.0) || !std::isfinite(atol))
    throw std::invalid_argument("SimOptions: atol must be finite and > 0 (got " + num(atol) + ")");
  if (!(max_step >= 0.0) || !std::isfinite(max_step))
    throw std::invalid_argument("SimOptions: max_step must be finite and >= 0 (got " + num(max_step) + ")");
  if (max_steps < 1) throw std::invalid_argument("SimOptions: max_steps must be >= 1");
  if (max_order < 1 || max_order > 5)
    throw std::invalid_argument("SimOptions: max_order must be in [1, 5] (got " + std::to_string(max_order) + ")");
  if (!(margin >= 0.0) || !std::isfinite(margin))
    throw std::invalid_argument("SimOptions: margin must be finite and >= 0 (got " + num(margin) + ")");
}

// ------------------------------------------------------------------------------- system

PenaltySystem::PenaltySystem(scene::Scene scene, std::vector<MassProperties> mass, ContactModel model, Vec3 gravity)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  model.validate();
  if (!gravity.allFinite()) throw std::invalid_argument("PenaltySystem: gravity must be finite");
  if (static_cast<int>(mass.size()) != scene.num_bodies())
    throw std::invalid_argument("PenaltySystem: " + std::to_string(mass.size()) + " mass properties for " +
                                std::to_string(scene.num_bodies()) + " bodies");
  s.model = model;
  s.gravity = gravity;
  s.mass = std::move(mass);
  const int nb = scene.num_bodies();
  s.free_index.assign(static_cast<size_t>(nb), -1);
  for (int b = 0; b < nb; ++b) {
    if (scene.body(b).is_static) continue;
    const MassProperties& mp = s.mass[static_cast<size_t>(b)];
    const std::string who = "PenaltySystem: body " + std::to_string(b) +
                            (scene.body(b).name.empty() ? "" : " ('" + scene.body(b).name + "')");
    if (!(mp.mass > 0.0) || !std::isfinite(mp.mass)) throw std::invalid_argument(who + ": mass must be finite and > 0 (got " + num(mp.mass) + ")");
    if (!mp.com.allFinite() || mp.com.norm() > 1e-9 * (1.0 + std::sqrt(mp.inertia.trace() / mp.mass)))
      throw std::invalid_argument(who + ": the centre of mass must be at the body origin (com = 0)");
    if (!mp.inertia.allFinite() || (mp.inertia - mp.inertia.transpose()).norm() > 1e-9 * mp.inertia.norm())
      throw std::invalid_argument(who + ": inertia must be finite and symmetric");
    Eigen::SelfAdjointEigenSolver<Mat3> es(mp.inertia);
    if (!(es.eigenvalues().minCoeff() > 0.0)) throw std::invalid_argument(who + ": inertia must be positive definite");
    s.free_index[static_cast<size_t>(b)] = static_cast<int>(s.free_bodies.size());
    s.free_bodies.push_back(b);
  }
  s.inertia_inv.resize(s.free_bodies.size());
  for (size_t k = 0; k < s.free_bodies.size(); ++k)
    s.inertia_inv[k] = s.mass[static_cast<size_t>(s.free_bodies[k])].inertia.inverse();
  // the iDCOL form of every shape and its pose in its body
  for (int i = 0; i < scene.num_shapes(); ++i) {
    const scene::SceneShape& ss = scene.shape(i);
    auto rep = ss.shape.representation(scene::Family::idcol);
    if (!rep)
      throw std::invalid_argument("PenaltySystem: shape " + std::to_string(i) + " (" + ss.shape.describe() +
                                  ") has no iDCOL form: the penalty contact needs iDCOL shapes");
    s.shapes.push_back(Impl::ShapeInfo{rep->shape.idcol(), ss.X_BS * rep->X_SR, ss.body, rep->shape.idcol().outer_radius()});
  }
  s.body_extent.assign(static_cast<size_t>(nb), 0.0);
  s.min_radius = s.shapes.empty() ? 1.0 : 1e300;
  for (const Impl::ShapeInfo& sh : s.shapes) {
    double& e = s.body_extent[static_cast<size_t>(sh.body)];
    e = std::max(e, sh.X_BS.p.norm() + sh.radius);
    s.min_radius = std::min(s.min_radius, sh.radius);
  }
  s.kin.resize(static_cast<size_t>(nb));
  for (int b = 0; b < nb; ++b) {
    Impl::Kin& k = s.kin[static_cast<size_t>(b)];
    k.R = scene.body(b).X_WB.R;
    k.p = scene.body(b).X_WB.p;
  }
  s.scene = std::move(scene);
}

PenaltySystem::~PenaltySystem() = default;
PenaltySystem::PenaltySystem(PenaltySystem&&) noexcept = default;
PenaltySystem& PenaltySystem::operator=(PenaltySystem&&) noexcept = default;

int PenaltySystem::num_bodies() const { return impl_->scene.num_bodies(); }
int PenaltySystem::num_free() const { return static_cast<int>(impl_->free_bodies.size()); }
const scene::Scene& PenaltySystem::scene() const { return impl_->scene; }
const ContactModel& PenaltySystem::model() const { return impl_->model; }
void PenaltySystem::set_model(const ContactModel& model) {
  model.validate();
  impl_->model = model;
}
const Vec3& PenaltySystem::gravity() const { return impl_->gravity; }
const MassProperties& PenaltySystem::mass(int body) const {
  if (body < 0 || body >= num_bodies()) throw std::invalid_argument("PenaltySystem::mass: unknown body " + std::to_string(body));
  return impl_->mass[static_cast<size_t>(body)];
}

Eigen::VectorXd PenaltySystem::pack(const std::vector<BodyState>& states) const {
  const Impl& s = *impl_;
  if (static_cast<int>(states.size()) != num_bodies())
    throw std::invalid_argument("PenaltySystem::pack: " + std::to_string(states.size()) + " states for " +
                                std::to_string(num_bodies()) + " bodies");
  Eigen::VectorXd y(state_size());
  for (size_t k = 0; k < s.free_bodies.size(); ++k) {
    const BodyState& st = states[static_cast<size_t>(s.free_bodies[k])];
    const std::string who = "PenaltySystem: state of body " + std::to_string(s.free_bodies[k]);
    if (!st.X_WB.R.allFinite() || !st.X_WB.p.allFinite() || !st.v_W.allFinite() || !st.omega_B.allFinite())
      throw std::invalid_argument(who + " is not finite");
    if (const char* why = st.X_WB.invalid_reason()) throw std::invalid_argument(who + ": " + why);
    const Eigen::Quaterniond q = st.X_WB.quaternion();
    double* yk = y.data() + 13 * k;
    Eigen::Map<Vec3>{yk} = st.X_WB.p;
    yk[3] = q.w(), yk[4] = q.x(), yk[5] = q.y(), yk[6] = q.z();
    Eigen::Map<Vec3>(yk + 7) = st.v_W;
    Eigen::Map<Vec3>(yk + 10) = st.omega_B;
  }
  return y;
}

std::vector<BodyState> PenaltySystem::unpack(const Eigen::VectorXd& y) const {
  const Impl& s = *impl_;
  if (y.size() != state_size())
    throw std::invalid_argument("PenaltySystem::unpack: state of size " + std::to_string(y.size()) + ", expected " +
                                std::to_string(state_size()));
  std::vector<BodyState> out(static_cast<size_t>(num_bodies()));
  for (int b = 0; b < num_bodies(); ++b) out[static_cast<size_t>(b)].X_WB = s.scene.body(b).X_WB;
  for (size_t k = 0; k < s.free_bodies.size(); ++k) {
    const double* yk = y.data() + 13 * k;
    BodyState& st = out[static_cast<size_t>(s.free_bodies[k])];
    st.X_WB.R = rotation_of(yk + 3);
    st.X_WB.p = Eigen::Map<const Vec3>(yk);
    st.v_W = Eigen::Map<const Vec3>(yk + 7);
    st.omega_B = Eigen::Map<const Vec3>(yk + 10);
  }
  return out;
}

SystemInvariants PenaltySystem::invariants(const Eigen::VectorXd& y) const {
  const Impl& s = *impl_;
  if (y.size() != state_size()) throw std::invalid_argument("PenaltySystem::invariants: wrong state size");
  SystemInvariants out;
  for (size_t k = 0; k < s.free_bodies.size(); ++k) {
    const MassProperties& mp = s.mass[static_cast<size_t>(s.free_bodies[k])];
    const double* yk = y.data() + 13 * k;
    const Vec3 p = Eigen::Map<const Vec3>(yk), v = Eigen::Map<const Vec3>(yk + 7), w = Eigen::Map<const Vec3>(yk + 10);
    const Mat3 R = rotation_of(yk + 3);
    const Vec3 lin = mp.mass * v, spin = R * (mp.inertia * w), orb = p.cross(lin);
    out.linear += lin;
    out.angular += orb + spin;
    out.kinetic += 0.5 * mp.mass * v.squaredNorm() + 0.5 * w.dot(mp.inertia * w);
    out.potential -= mp.mass * s.gravity.dot(p);
    out.momentum_scale += lin.norm() + orb.norm() + spin.norm();
  }
  return out;
}

// ------------------------------------------------------------------------------ assembly

void PenaltySystem::Impl::load(const double* y) {
  for (size_t k = 0; k < free_bodies.size(); ++k) {
    const double* yk = y + 13 * k;
    for (int i = 0; i < 13; ++i)
      if (!std::isfinite(yk[i])) throw std::invalid_argument("state entry " + std::to_string(13 * k + i) + " is not finite");
    const double qn = std::sqrt(yk[3] * yk[3] + yk[4] * yk[4] + yk[5] * yk[5] + yk[6] * yk[6]);
    if (!(qn > 1e-6)) throw std::invalid_argument("quaternion of body " + std::to_string(free_bodies[k]) + " is zero");
    Kin& b = kin[static_cast<size_t>(free_bodies[k])];
    b.p = Eigen::Map<const Vec3>(yk);
    b.q = Eigen::Map<const Eigen::Vector4d>(yk + 3);
    b.q_norm = qn;
    b.R = rotation_of(yk + 3);
    b.v = Eigen::Map<const Vec3>(yk + 7);
    b.w_B = Eigen::Map<const Vec3>(yk + 10);
    b.w_W = b.R * b.w_B;
    Pose X;
    X.R = b.R;
    X.p = b.p;
    scene.set_body_pose(free_bodies[k], X);
  }
}

PenaltySystem::Impl::PairSlot& PenaltySystem::Impl::slot(int a, int b) {
  const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint64_t>(b);
  auto it = pairs.find(key);
  if (it == pairs.end()) {
    const ShapeInfo& s1 = shapes[static_cast<size_t>(a)];
    const ShapeInfo& s2 = shapes[static_cast<size_t>(b)];
    it = pairs.emplace(key, std::make_unique<PairSlot>(PairSlot{idcol::ContactPair(s1.shape, s2.shape, solve_options)})).first;
  }
  return *it->second;
}

// F on body a (world), and the torques about each centre of mass in body axes, of the pair at
// kinematics A, B: the law of penalty.hpp. False when the pair exerts no force.
bool PenaltySystem::Impl::pair_wrench(PairSlot& ps, const ShapeInfo& s1, const ShapeInfo& s2, const Kin& A,
                                      const Kin& B, Vec3& F, Vec3& taB, Vec3& tbB) {
  F.setZero();
  taB.setZero();
  tbB.setZero();
  Pose X1, X2;
  X1.R = A.R * s1.X_BS.R;
  X1.p = A.R * s1.X_BS.p + A.p;
  X2.R = B.R * s2.X_BS.R;
  X2.p = B.R * s2.X_BS.p + B.p;
  const idcol::ContactSolution& sol = ps.pair.solve(X1, X2);
  ++contact_solves;
  if (sol.status != diffcol::SolveStatus::ok)
    throw std::runtime_error(std::string("contact solve: ") + diffcol::status_name(sol.status));
  if (!(sol.gap < 0.0)) return false;
  const Vec3 ra = sol.x_W - A.p, rb = sol.x_W - B.p;
  const Vec3 w = B.v + B.w_W.cross(rb) - A.v - A.w_W.cross(ra);
  const Vec3& nrm = sol.normal_W;
  const double fN = model.stiffness * std::pow(-sol.gap, model.exponent) * (1.0 - model.damping * nrm.dot(w));
  if (!(fN > 0.0)) return false;
  const Vec3 wt = w - nrm * nrm.dot(w);
  F = -fN * nrm + model.friction * fN * wt / std::sqrt(wt.squaredNorm() + model.slip_velocity * model.slip_velocity);
  taB = A.R.transpose() * ra.cross(F);
  tbB = -(B.R.transpose() * rb.cross(F));
  return true;
}

void PenaltySystem::Impl::fd_pair_jacobian(PairSlot& ps, const ShapeInfo& s1, const ShapeInfo& s2, const Kin& A,
                                           const Kin& B, Eigen::Matrix<double, 3, 24>& JF,
                                           Eigen::Matrix<double, 3, 24>& JtaB, Eigen::Matrix<double, 3, 24>& JtbB) {
  const double L = s1.radius + s2.radius;
  for (int c = 0; c < 24; ++c) {
    const int side = c / 12, k = c % 12;
    Vec3 Fp, tap, tbp, Fm, tam, tbm;
    for (int sgn : {1, -1}) {
      Kin P[2] = {A, B};
      Kin& K = P[side];
      const double h = (k < 3 ? 1e-6 : 1e-6 * L) * sgn;
      Vec3 e = Vec3::Zero();
      e[k % 3] = h;
      if (k < 3) K.R = so3_exp(e) * K.R;
      else if (k < 6) K.p += e;
      else if (k < 9) K.v += e;
      else K.w_B += e;
      K.w_W = K.R * K.w_B;
      if (sgn > 0) pair_wrench(ps, s1, s2, P[0], P[1], Fp, tap, tbp);
      else pair_wrench(ps, s1, s2, P[0], P[1], Fm, tam, tbm);
    }
    const double h2 = 2.0 * (k < 3 ? 1e-6 : 1e-6 * L);
    JF.col(c) = (Fp - Fm) / h2;
    JtaB.col(c) = (tap - tam) / h2;
    JtbB.col(c) = (tbp - tbm) / h2;
  }
}

// One pass over the close pairs at y: values into ydot (optional), ∂f/∂k into dfdk (optional),
// the analytic Jacobian into J (column-major n × n, optional; zeroed here).
void PenaltySystem::Impl::assemble(const double* y, double* ydot, double* dfdk, double* J) {
  const int n = 13 * static_cast<int>(free_bodies.size());
  load(y);
  const auto t0 = std::chrono::steady_clock::now();
  const double k = model.stiffness, pexp = model.exponent, d = model.damping, mu = model.friction,
               eps = model.slip_velocity;
  for (Kin& b : kin) {
    b.force.setZero();
    b.torque_W.setZero();
  }
  Eigen::Map<Eigen::MatrixXd> Jm(J, J ? n : 0, J ? n : 0);
  if (J) Jm.setZero();
  last_max_penetration = 0.0;
  last_pair = {-1, -1};
  deepest_pair = {-1, -1};
  const auto& cand = scene.candidate_pairs(margin);
  for (const auto& [a, b] : cand) {
    const ShapeInfo& s1 = shapes[static_cast<size_t>(a)];
    const ShapeInfo& s2 = shapes[static_cast<size_t>(b)];
    Kin& A = kin[static_cast<size_t>(s1.body)];
    Kin& B = kin[static_cast<size_t>(s2.body)];
    Pose X1, X2;
    X1.R = A.R * s1.X_BS.R;
    X1.p = A.R * s1.X_BS.p + A.p;
    X2.R = B.R * s2.X_BS.R;
    X2.p = B.R * s2.X_BS.p + B.p;
    if ((X1.p - X2.p).norm() > s1.radius + s2.radius) continue;  // bounding balls apart: gap > 0
    PairSlot& ps = slot(a, b);
    const idcol::ContactSolution& sol = ps.pair.solve(X1, X2);
    ++contact_solves;
    if (sol.status != diffcol::SolveStatus::ok) {
      last_pair = {a, b};
      throw std::runtime_error(std::string("contact of shapes ") + std::to_string(a) + " and " + std::to_string(b) +
                               ": " + diffcol::status_name(sol.status));
    }
    if (!(sol.gap < 0.0)) continue;
    const double delta = -sol.gap;
    if (delta > last_max_penetration) {
      last_max_penetration = delta;
      deepest_pair = {a, b};
    }
    const Vec3& x = sol.x_W;
    const Vec3& nrm = sol.normal_W;
    const Vec3 ra = x - A.p, rb = x - B.p;
    const Vec3 w = B.v + B.w_W.cross(rb) - A.v - A.w_W.cross(ra);
    const double fn = k * std::pow(delta, pexp);
    const double ddelta = -nrm.dot(w);
    const double h = 1.0 + d * ddelta;
    const double fN = fn * h;
    if (!(fN > 0.0)) continue;
    const Vec3 wt = w - nrm * nrm.dot(w);
    const double sl = std::sqrt(wt.squaredNorm() + eps * eps);
    const Vec3 that = wt / sl;
    const Vec3 F = -fN * nrm + mu * fN * that;
    A.force += F;
    A.torque_W += ra.cross(F);
    B.force -= F;
    B.torque_W -= rb.cross(F);
    if (!J) continue;

    // ---- derivatives with respect to the local tangent coordinates of the two bodies:
    // columns [δθ_a, δp_a, v_a, ω_B,a | δθ_b, δp_b, v_b, ω_B,b], δθ the world rotation R ← exp(δθ)R
    idcol::contact_derivatives(sol, ps.derivs, ReferenceFrame::world);
    const idcol::ContactDerivatives& cd = ps.derivs;
    Mat3x24 JF, JtaB, JtbB;
    if (!cd.ok()) {
      // no trustworthy contact derivatives (nearly parallel flat faces: ill_conditioned): the
      // pair's block by central differences of its wrench (the Newton matrix needs no more)
      ++fd_pair_jacobians;
      fd_pair_jacobian(ps, s1, s2, A, B, JF, JtaB, JtbB);
    } else {
    // world twist η = [δθ; δp + p × δθ]: J_η · [[I, 0], [p^, I]]
    const Mat3 Pa = skew(A.p), Pb = skew(B.p);
    Mat3x24 Jx = Mat3x24::Zero(), Jn = Mat3x24::Zero();
    Mat1x24 Jd = Mat1x24::Zero();
    Jx.block<3, 3>(0, 0) = cd.J_x_W_X1.leftCols<3>() + cd.J_x_W_X1.rightCols<3>() * Pa;
    Jx.block<3, 3>(0, 3) = cd.J_x_W_X1.rightCols<3>();
    Jx.block<3, 3>(0, 12) = cd.J_x_W_X2.leftCols<3>() + cd.J_x_W_X2.rightCols<3>() * Pb;
    Jx.block<3, 3>(0, 15) = cd.J_x_W_X2.rightCols<3>();
    Jn.block<3, 3>(0, 0) = cd.J_normal_W_X1.leftCols<3>() + cd.J_normal_W_X1.rightCols<3>() * Pa;
    Jn.block<3, 3>(0, 3) = cd.J_normal_W_X1.rightCols<3>();
    Jn.block<3, 3>(0, 12) = cd.J_normal_W_X2.leftCols<3>() + cd.J_normal_W_X2.rightCols<3>() * Pb;
    Jn.block<3, 3>(0, 15) = cd.J_normal_W_X2.rightCols<3>();
    Jd.block<1, 3>(0, 0) = -(cd.J_gap_X1.leftCols<3>() + cd.J_gap_X1.rightCols<3>() * Pa);
    Jd.block<1, 3>(0, 3) = -cd.J_gap_X1.rightCols<3>();
    Jd.block<1, 3>(0, 12) = -(cd.J_gap_X2.leftCols<3>() + cd.J_gap_X2.rightCols<3>() * Pb);
    Jd.block<1, 3>(0, 15) = -cd.J_gap_X2.rightCols<3>();
    // (B40): df_n = k p δ^(p−1) dδ
    const Mat1x24 Jfn = (pexp * fn / delta) * Jd;
    Mat1x24 JfN = h * Jfn;
    JF.setZero();
    if (d > 0.0 || mu > 0.0) {
      // dw = dv_b − dv_a − [r_b]× dω_b + [ω_b]× (dx − dp_b) + [r_a]× dω_a − [ω_a]× (dx − dp_a),
      // dω_W = −[ω_W]× δθ + R dω_B
      Mat3x24 Jw = Mat3x24::Zero();
      const Mat3 Wa = skew(A.w_W), Wb = skew(B.w_W), Ra_ = skew(ra), Rb_ = skew(rb);
      Jw += (Wb - Wa) * Jx;
      Jw.block<3, 3>(0, 3) += Wa;    // −[ω_a]× (−dp_a)
      Jw.block<3, 3>(0, 15) -= Wb;   // [ω_b]× (−dp_b)
      Jw.block<3, 3>(0, 6) -= Mat3::Identity();
      Jw.block<3, 3>(0, 18) += Mat3::Identity();
      Jw.block<3, 3>(0, 0) += Ra_ * (-Wa);
      Jw.block<3, 3>(0, 9) += Ra_ * A.R;
      Jw.block<3, 3>(0, 12) -= Rb_ * (-Wb);
      Jw.block<3, 3>(0, 21) -= Rb_ * B.R;
      const Mat1x24 Jdd = -(w.transpose() * Jn + nrm.transpose() * Jw);
      JfN = h * Jfn + (fn * d) * Jdd;
      JF = -nrm * JfN - fN * Jn;
      if (mu > 0.0) {
        const Mat3x24 Jwt = Jw - Jn * nrm.dot(w) - nrm * (w.transpose() * Jn + nrm.transpose() * Jw);
        const Mat3x24 Jt = (Jwt - that * (that.transpose() * Jwt)) / sl;
        JF += mu * (that * JfN + fN * Jt);
      }
    } else {
      JF = -nrm * JfN - fN * Jn;  // (B41)
    }
    // (B42) in world axes about each centre of mass, then to body axes: τ_B = Rᵀ τ_W,
    // d(Rᵀτ_W) = Rᵀ(dτ_W + [τ_W]× δθ)
    const Mat3 Fx = skew(F);
    Mat3x24 Jta = -Fx * Jx + skew(ra) * JF;
    Jta.block<3, 3>(0, 3) += Fx;  // −[F]×(−dp_a)
    const Vec3 ta = ra.cross(F);
    Jta.block<3, 3>(0, 0) += skew(ta);
    JtaB = A.R.transpose() * Jta;
    Mat3x24 Jtb = Fx * Jx - skew(rb) * JF;
    Jtb.block<3, 3>(0, 15) -= Fx;  // [F]×(−dp_b)
    const Vec3 tb = -rb.cross(F);
    Jtb.block<3, 3>(0, 12) += skew(tb);
    JtbB = B.R.transpose() * Jtb;
    }
    // scatter into the state Jacobian: rows v̇ (F/m) and ω̇ (I⁻¹τ_B) of each free body,
    // columns of each free body through δθ = G(q) δq
    const int ia = free_index[static_cast<size_t>(s1.body)], ib = free_index[static_cast<size_t>(s2.body)];
    for (int side = 0; side < 2; ++side) {
      const int irow = side == 0 ? ia : ib;
      if (irow < 0) continue;
      const double m = mass[static_cast<size_t>(side == 0 ? s1.body : s2.body)].mass;
      Eigen::Matrix<double, 6, 24> rows;
      rows.topRows<3>() = (side == 0 ? 1.0 : -1.0) / m * JF;
      rows.bottomRows<3>() = inertia_inv[static_cast<size_t>(irow)] * (side == 0 ? JtaB : JtbB);
      for (int cs = 0; cs < 2; ++cs) {
        const int icol = cs == 0 ? ia : ib;
        if (icol < 0) continue;
        const Kin& C = cs == 0 ? A : B;
        const auto L = rows.middleCols<12>(12 * cs);
        const int r0 = 13 * irow + 7, c0 = 13 * icol;
        Jm.block<6, 3>(r0, c0) += L.middleCols<3>(3);
        Jm.block<6, 4>(r0, c0 + 3) += L.leftCols<3>() * quaternion_to_rotation_map(C.q, C.q_norm);
        Jm.block<6, 3>(r0, c0 + 7) += L.middleCols<3>(6);
        Jm.block<6, 3>(r0, c0 + 10) += L.middleCols<3>(9);
      }
    }
  }
  collision_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  for (size_t kb = 0; kb < free_bodies.size(); ++kb) {
    const int body = free_bodies[kb];
    const Kin& B = kin[static_cast<size_t>(body)];
    const MassProperties& mp = mass[static_cast<size_t>(body)];
    const Mat3& Iinv = inertia_inv[kb];
    const Vec3 tauB = B.R.transpose() * B.torque_W;
    const Vec3 Iw = mp.inertia * B.w_B;
    const int o = 13 * static_cast<int>(kb);
    if (ydot) {
      double* f = ydot + o;
      Eigen::Map<Vec3>{f} = B.v;
      // q̇ = ½ q ⊗ (0, ω_B)
      const double q0 = B.q[0];
      const Vec3 qv = B.q.tail<3>();
      f[3] = -0.5 * qv.dot(B.w_B);
      Eigen::Map<Vec3>(f + 4) = 0.5 * (q0 * B.w_B + qv.cross(B.w_B));
      Eigen::Map<Vec3>(f + 7) = B.force / mp.mass + gravity;
      Eigen::Map<Vec3>(f + 10) = Iinv * (tauB - B.w_B.cross(Iw));
    }
    if (dfdk) {
      double* g = dfdk + o;
      for (int i = 0; i < 7; ++i) g[i] = 0.0;
      Eigen::Map<Vec3>(g + 7) = B.force / (mp.mass * k);
      Eigen::Map<Vec3>(g + 10) = Iinv * tauB / k;
    }
    if (J) {
      Jm.block<3, 3>(o, o + 7) += Mat3::Identity();
      const double q0 = B.q[0];
      const Vec3 qv = B.q.tail<3>();
      const Vec3& w = B.w_B;
      Eigen::Matrix4d Qq;
      Qq << 0, -w.x(), -w.y(), -w.z(), w.x(), 0, w.z(), -w.y(), w.y(), -w.z(), 0, w.x(), w.z(), w.y(), -w.x(), 0;
      Jm.block<4, 4>(o + 3, o + 3) += 0.5 * Qq;
      Eigen::Matrix<double, 4, 3> Qw;
      Qw.row(0) = -qv.transpose();
      Qw.bottomRows<3>() = q0 * Mat3::Identity() + skew(qv);
      Jm.block<4, 3>(o + 3, o + 10) += 0.5 * Qw;
      Jm.block<3, 3>(o + 10, o + 10) -= Iinv * (skew(w) * mp.inertia - skew(Iw));
    }
  }
}

Eigen::Matrix<double, 3, 4> quaternion_to_rotation_map(const Eigen::Vector4d& q, double q_norm) {
  // δθ_W = 2 vec(δq ⊗ q̂*) / ‖q‖ (the component of δq along q does not rotate)
  const Eigen::Vector4d b = q / q_norm;
  Eigen::Matrix<double, 3, 4> G;
  G.col(0) = -b.tail<3>();
  G.rightCols<3>() = b[0] * Mat3::Identity() + skew(Vec3(b.tail<3>()));
  return (2.0 / q_norm) * G;
}

void PenaltySystem::rhs(const Eigen::VectorXd& y, Eigen::VectorXd& ydot) {
  if (y.size() != state_size()) throw std::invalid_argument("PenaltySystem::rhs: wrong state size " + std::to_string(y.size()));
  ydot.resize(state_size());
  impl_->assemble(y.data(), ydot.data(), nullptr, nullptr);
}

void PenaltySystem::rhs_stiffness_derivative(const Eigen::VectorXd& y, Eigen::VectorXd& dfdk) {
  if (y.size() != state_size()) throw std::invalid_argument("PenaltySystem::rhs_stiffness_derivative: wrong state size");
  dfdk.resize(state_size());
  impl_->assemble(y.data(), nullptr, dfdk.data(), nullptr);
}

void PenaltySystem::rhs_jacobian(const Eigen::VectorXd& y, Eigen::MatrixXd& J) {
  if (y.size() != state_size()) throw std::invalid_argument("PenaltySystem::rhs_jacobian: wrong state size");
  J.resize(state_size(), state_size());
  impl_->assemble(y.data(), nullptr, nullptr, J.data());
}

double PenaltySystem::max_penetration(const Eigen::VectorXd& y) {
  if (y.size() != state_size()) throw std::invalid_argument("PenaltySystem::max_penetration: wrong state size");
  impl_->assemble(y.data(), nullptr, nullptr, nullptr);
  return impl_->last_max_penetration;
}

}  // namespace diffcol::sim
