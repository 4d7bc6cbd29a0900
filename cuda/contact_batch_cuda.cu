// GPU batch solver (cuda/include/diffcol/batch/contact_batch_cuda.hpp): one thread per pose
// pair, running the solver core that the CPU uses (src/idcol/solver_core.hpp).
#include "diffcol/batch/contact_batch_cuda.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "diffcol/batch/thread_pool.hpp"

#include "../src/idcol/envelope_gradient.hpp"
#include "../src/idcol/solver_core.hpp"

namespace diffcol {

// A smooth polytope whose face data and vertices live in device memory (owned by the
// CudaContactBatch that made it): the interface of SmoothPolytope that the solver core reads, on
// the same evaluation (detail::smooth_planes_eval). exact_support and has_flat_proxy are found by
// argument-dependent lookup where the solver core's templates are instantiated.
struct DevicePolytope {
  const double *ax, *ay, *az, *b;
  const Vec3* vertices;
  int m, num_vertices;
  double beta, inner, outer;
  DIFFCOL_HD double eval(const Vec3& y, Vec3& grad, Mat3& hess) const {
    return detail::smooth_planes_eval(ax, ay, az, b, m, y, grad, hess, beta);
  }
  DIFFCOL_HD double ray_extent(const Vec3& u) const { return detail::planes_ray_extent(ax, ay, az, b, m, u); }
  DIFFCOL_HD double inner_radius() const { return inner; }
  DIFFCOL_HD double outer_radius() const { return outer; }
};
DIFFCOL_HD inline Vec3 exact_support(const DevicePolytope& s, const Vec3& d) {  // as for SmoothPolytope
  return idcol::vertex_support(s.vertices, s.num_vertices, d);
}
DIFFCOL_HD inline bool has_flat_proxy(const DevicePolytope&) { return true; }

}  // namespace diffcol

namespace diffcol::batch::cuda {
namespace {

using namespace diffcol::idcol;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("diffcol cuda: ") + what + ": " + cudaGetErrorString(e));
}

// The relative pose X_12 = X_W1⁻¹X_W2 (row-major R), or valid = 0.
struct RelativePose {
  double R[9];
  double p[3];
  int valid;
};

struct KernelResult {
  double alpha, gap, x[3], normal[3], l1, l2, residual;
  int status, evaluations;
};

// dα*/dξ and d d_D/dξ for the body twist ξ = [ω; v] of X_12.
struct KernelGradient {
  double alpha[6], gap[6];
};

// dα*/dξ by the envelope theorem (detail::alpha_gradient_envelope, as idcol::alpha_gradient_envelope)
// and of the gap d_D = (1 − 1/α)‖r‖ (30): ‖r‖/α²·dα*/dξ + (1 − 1/α)·[0, r̂ᵀR] (X_12·exp(ξ) moves r
// by R v).
DIFFCOL_HD inline void envelope_gradients(double alpha, double lambda2, const Vec3& g2, const Vec3& y2, const Mat3& R,
                                          const Vec3& r, double* ga, double* gd) {
  diffcol::idcol::detail::alpha_gradient_envelope(alpha, lambda2, g2, y2, ga);
  const double rn = r.norm();
  const Vec3 rR = R.transpose() * (r / rn);  // r̂ᵀR as a column
  const double k = rn / (alpha * alpha), m = 1.0 - 1.0 / alpha;
  for (int i = 0; i < 3; ++i) {
    gd[i] = k * ga[i];
    gd[3 + i] = k * ga[3 + i] + m * rR[i];
  }
}

template <class S1, class S2>
__global__ void solve_kernel(S1 a, S2 b, const RelativePose* poses, int n, SolveOptions opt, KernelResult* out,
                             KernelGradient* grad) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const RelativePose& q = poses[i];
  KernelResult r{};
  if (!q.valid) {
    r.status = static_cast<int>(SolveStatus::invalid_input);
    out[i] = r;
    return;
  }
  Mat3 R;
  R << q.R[0], q.R[1], q.R[2], q.R[3], q.R[4], q.R[5], q.R[6], q.R[7], q.R[8];
  const Vec3 p(q.p[0], q.p[1], q.p[2]);
  const Surrogate sg = make_surrogate(a, b, R, p, opt);
  const Kkt<S1, S2> kkt{a, b, sg.P};
  NewtonStats st;
  Iterate z;
  Vec6 f;
  Mat6RowMajor J;
  ShapeData sd;
  int attempts = 0;
  BestIterate best;
  const auto no_continuation = [](Iterate&, Vec6&, Mat6RowMajor&, ShapeData&, NewtonStats&) { return false; };
  const bool ok = solve_from_cold_starts(kkt, sg, opt, false, no_continuation, z, f, J, sd, st, attempts, best);
  if (ok) {
    Lu6 lu;
    lu.factor(J);
    polish(kkt, opt, z, f, J, sd, lu, st);
  }
  // original variables, as fill_solution (solve_contact.cpp)
  const double c = sg.c, alpha_s = exp(z.s), rs = sg.P.r.norm();
  r.alpha = c * alpha_s;
  r.gap = c * rs - rs / alpha_s;
  const Vec3 nrm = sd.g1.normalized();
  for (int k = 0; k < 3; ++k) {
    r.x[k] = c * z.x[k];
    r.normal[k] = nrm[k];
  }
  r.l1 = c * z.l1;
  r.l2 = c * z.l2;
  r.residual = f.norm();
  r.evaluations = st.evaluations;
  r.status = static_cast<int>(!ok ? SolveStatus::not_converged
                                  : (sg.coincident ? SolveStatus::coincident_origins : SolveStatus::ok));
  out[i] = r;
  KernelGradient gr{};
  if (ok && !sg.coincident) {
    const Vec3 y2 = (R.transpose() * (z.x - sg.P.r)) / alpha_s;  // invariant under the surrogate scaling
    envelope_gradients(r.alpha, r.l2, sd.g2, y2, R, p, gr.alpha, gr.gap);
  }
  grad[i] = gr;
}

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

// A polytope's data copied to the device, released with it.
struct DevicePolytopeStorage {
  double* faces = nullptr;  // ax, ay, az, b: 4m doubles
  Vec3* vertices = nullptr;
  DevicePolytope view{};
  explicit DevicePolytopeStorage(const SmoothPolytope& p) {
    const SmoothPolytope::FaceData f = p.face_data();
    const std::vector<Vec3>& V = p.vertices();
    std::vector<double> host(4 * size_t(f.m));
    for (int i = 0; i < f.m; ++i) {
      host[i] = f.ax[i];
      host[f.m + i] = f.ay[i];
      host[2 * f.m + i] = f.az[i];
      host[3 * f.m + i] = f.b[i];
    }
    check(cudaMalloc(&faces, host.size() * sizeof(double)), "cudaMalloc");
    check(cudaMalloc(&vertices, V.size() * sizeof(Vec3)), "cudaMalloc");
    check(cudaMemcpy(faces, host.data(), host.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(vertices, V.data(), V.size() * sizeof(Vec3), cudaMemcpyHostToDevice), "cudaMemcpy");
    view = {faces, faces + f.m, faces + 2 * f.m, faces + 3 * f.m, vertices, f.m, static_cast<int>(V.size()),
            p.beta(), p.inner_radius(), p.outer_radius()};
  }
  ~DevicePolytopeStorage() {
    cudaFree(faces);
    cudaFree(vertices);
  }
  DevicePolytopeStorage(const DevicePolytopeStorage&) = delete;
  DevicePolytopeStorage& operator=(const DevicePolytopeStorage&) = delete;
};

template <class S1, class S2>
float launch(const S1& a, const S2& b, const RelativePose* poses, int n, const SolveOptions& opt, KernelResult* out,
             KernelGradient* grad) {
  Events ev;
  constexpr int kBlock = 128;
  check(cudaEventRecord(ev.start), "cudaEventRecord");
  solve_kernel<S1, S2><<<(n + kBlock - 1) / kBlock, kBlock>>>(a, b, poses, n, opt, out, grad);
  check(cudaGetLastError(), "kernel launch");
  check(cudaEventRecord(ev.stop), "cudaEventRecord");
  check(cudaEventSynchronize(ev.stop), "kernel");
  float ms = 0.0f;
  check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "cudaEventElapsedTime");
  return ms;
}

template <class T>
void free_device(T*& p) {
  if (p != nullptr) cudaFree(p);
  p = nullptr;
}
template <class T>
void free_host(T*& p) {
  if (p != nullptr) cudaFreeHost(p);
  p = nullptr;
}

void copy_solution(const ContactSolution& s, CudaContactSolution& o) {
  o.status = s.status;
  o.alpha = s.alpha;
  o.gap = s.gap;
  o.x_B1 = s.x_B1;
  o.normal_B1 = s.normal_B1;
  o.lambda1 = s.lambda1;
  o.lambda2 = s.lambda2;
  o.residual_norm = s.residual_norm;
  o.jacobian_evaluations = s.jacobian_evaluations;
  o.solved_on_gpu = false;
}

// The gradients of one solution: with respect to the body twist of X_12 from the GPU, mapped to the
// world twists of the bodies: η2 moves X_12 by the body twist Ad(X_W2⁻¹)η2, η1 by its negative.
void set_gradients(const KernelGradient& g, SolveStatus status, const Pose& X_W2, CudaContactSolution& o) {
  if (status != SolveStatus::ok) {
    o.J_alpha_X12.setZero();
    o.J_gap_X12.setZero();
    o.J_alpha_X1.setZero();
    o.J_gap_X1.setZero();
    o.J_alpha_X2.setZero();
    o.J_gap_X2.setZero();
    return;
  }
  for (int k = 0; k < 6; ++k) {
    o.J_alpha_X12[k] = g.alpha[k];
    o.J_gap_X12[k] = g.gap[k];
  }
  const Mat6 A = adjoint(X_W2.inverse());
  o.J_alpha_X2 = o.J_alpha_X12 * A;
  o.J_gap_X2 = o.J_gap_X12 * A;
  o.J_alpha_X1 = -o.J_alpha_X2;
  o.J_gap_X1 = -o.J_gap_X2;
}

}  // namespace

bool cuda_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

struct CudaContactBatch::Impl {
  Shape s1, s2;
  SolveOptions options;  // as given: the CPU fallback's
  SolveOptions gpu;      // the GPU's: direct attempts only
  bool gradients;
  ThreadPool pool;
  size_t capacity = 0;
  RelativePose* host_poses = nullptr;  // pinned
  KernelResult* host_results = nullptr;
  KernelGradient* host_gradients = nullptr;
  RelativePose* device_poses = nullptr;
  KernelResult* device_results = nullptr;
  KernelGradient* device_gradients = nullptr;
  std::vector<CudaContactSolution> out;
  size_t size = 0;
  CudaBatchStats stats;
  std::unique_ptr<DevicePolytopeStorage> poly[2];  // device copies of polytope shapes (made on first use)

  // The shape as the kernel takes it: itself, or a polytope's device copy.
  template <class S>
  auto on_device(const S& s, int which) {
    if constexpr (std::is_same_v<S, SmoothPolytope>) {
      if (!poly[which]) poly[which] = std::make_unique<DevicePolytopeStorage>(s);
      return poly[which]->view;
    } else {
      return s;
    }
  }

  Impl(Shape a, Shape b, const CudaBatchOptions& opt)
      : s1(std::move(a)), s2(std::move(b)), options(opt.solve), gpu(opt.solve), gradients(opt.gradients),
        pool(opt.num_threads) {
    // continuation builds its relaxed shapes with validating constructors (host code), and a long
    // last-resort loop would hold its whole warp: both stay on the CPU fallback
    gpu.continuation = false;
    gpu.last_resort_iterations = 0;
  }
  ~Impl() { release(); }
  void release() {
    free_host(host_poses);
    free_host(host_results);
    free_host(host_gradients);
    free_device(device_poses);
    free_device(device_results);
    free_device(device_gradients);
    capacity = 0;
  }
  void reserve(size_t n) {
    if (n <= capacity) return;
    release();
    const size_t cap = std::max(n, size_t(1024));
    check(cudaMallocHost(&host_poses, cap * sizeof(RelativePose)), "cudaMallocHost");
    check(cudaMallocHost(&host_results, cap * sizeof(KernelResult)), "cudaMallocHost");
    check(cudaMalloc(&device_poses, cap * sizeof(RelativePose)), "cudaMalloc");
    check(cudaMalloc(&device_results, cap * sizeof(KernelResult)), "cudaMalloc");
    check(cudaMalloc(&device_gradients, cap * sizeof(KernelGradient)), "cudaMalloc");
    if (gradients) check(cudaMallocHost(&host_gradients, cap * sizeof(KernelGradient)), "cudaMallocHost");
    capacity = cap;
  }
};

CudaContactBatch::CudaContactBatch(Shape shape1, Shape shape2, CudaBatchOptions options) {
  options.solve.validate();
  if (options.num_threads < 0) throw std::invalid_argument("diffcol cuda: num_threads must be >= 0");
  impl_ = std::make_unique<Impl>(std::move(shape1), std::move(shape2), options);
}

CudaContactBatch::~CudaContactBatch() = default;

std::span<const CudaContactSolution> CudaContactBatch::solutions() const { return {impl_->out.data(), impl_->size}; }
const CudaBatchStats& CudaContactBatch::stats() const { return impl_->stats; }

const CudaBatchStats& CudaContactBatch::solve(std::span<const Pose> X_W1, std::span<const Pose> X_W2) {
  Impl& m = *impl_;
  const size_t n = X_W2.size();
  if (X_W1.size() != n && X_W1.size() != 1)
    throw std::invalid_argument("diffcol cuda: X_W1 must hold one pose or as many as X_W2 (" + std::to_string(n) +
                                "), not " + std::to_string(X_W1.size()));
  if (n > (size_t(1) << 30)) throw std::invalid_argument("diffcol cuda: at most 2^30 pose pairs per call");
  const auto t0 = std::chrono::steady_clock::now();
  m.stats = CudaBatchStats{};
  m.size = 0;
  if (n == 0) return m.stats;
  m.reserve(n);
  if (m.out.size() < n) m.out.resize(n);
  constexpr long kGrain = 4096;
  const auto X1_at = [&](long i) -> const Pose& { return X_W1.size() == 1 ? X_W1[0] : X_W1[i]; };
  // pack the relative poses X_12 = X_W1⁻¹X_W2 (all host threads)
  auto pack = [&](long begin, long end) {
    for (long i = begin; i < end; ++i) {
      const Pose& X1 = X1_at(i);
      RelativePose& q = m.host_poses[i];
      q.valid = X1.is_valid() && X_W2[i].is_valid();
      if (!q.valid) continue;
      const Pose X_12 = X1.inverse() * X_W2[i];
      q.valid = X_12.p.cwiseAbs().maxCoeff() < kMaxCoordinate;
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) q.R[3 * r + c] = X_12.R(r, c);
        q.p[r] = X_12.p[r];
      }
    }
  };
  m.pool.parallel_for(static_cast<long>(n), kGrain, pack);
  check(cudaMemcpy(m.device_poses, m.host_poses, n * sizeof(RelativePose), cudaMemcpyHostToDevice), "cudaMemcpy");
  std::visit(
      [&](const auto& a, const auto& b) {
        m.stats.kernel_ms =
            launch(m.on_device(a, 0), m.on_device(b, 1), m.device_poses, static_cast<int>(n), m.gpu, m.device_results,
                   m.device_gradients);
      },
      m.s1.variant(), m.s2.variant());
  check(cudaMemcpy(m.host_results, m.device_results, n * sizeof(KernelResult), cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (m.gradients)
    check(cudaMemcpy(m.host_gradients, m.device_gradients, n * sizeof(KernelGradient), cudaMemcpyDeviceToHost),
          "cudaMemcpy");
  // unpack, and solve on the CPU where the GPU did not converge (all host threads)
  std::atomic<long> fallbacks{0};
  auto unpack = [&](long begin, long end) {
    for (long i = begin; i < end; ++i) {
      const KernelResult& r = m.host_results[i];
      CudaContactSolution& o = m.out[i];
      const auto status = static_cast<SolveStatus>(r.status);
      if (status == SolveStatus::invalid_input) {
        o = CudaContactSolution{};
      } else if (status == SolveStatus::not_converged) {
        fallbacks.fetch_add(1, std::memory_order_relaxed);
        const ContactSolution c = solve_contact(m.s1, X1_at(i), m.s2, X_W2[i], m.options);
        copy_solution(c, o);
        if (m.gradients) {
          KernelGradient g{};
          if (c.status == SolveStatus::ok)
            envelope_gradients(c.alpha, c.lambda2, c.grad2, c.X_12.R.transpose() * (c.x_B1 - c.X_12.p) / c.alpha,
                               c.X_12.R, c.X_12.p, g.alpha, g.gap);
          set_gradients(g, c.status, X_W2[i], o);
        }
      } else {
        o.status = status;
        o.alpha = r.alpha;
        o.gap = r.gap;
        o.x_B1 = Vec3(r.x[0], r.x[1], r.x[2]);
        o.normal_B1 = Vec3(r.normal[0], r.normal[1], r.normal[2]);
        o.lambda1 = r.l1;
        o.lambda2 = r.l2;
        o.residual_norm = r.residual;
        o.jacobian_evaluations = r.evaluations;
        o.solved_on_gpu = true;
        if (m.gradients) set_gradients(m.host_gradients[i], status, X_W2[i], o);
      }
    }
  };
  m.pool.parallel_for(static_cast<long>(n), kGrain, unpack);
  m.size = n;
  m.stats.cpu_fallbacks = fallbacks.load();
  m.stats.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return m.stats;
}

CudaBatchStats solve_contacts(const Shape& shape1, const Shape& shape2, std::span<const Pose> X_W1,
                              std::span<const Pose> X_W2, std::vector<CudaContactSolution>& out,
                              const CudaBatchOptions& options) {
  CudaContactBatch batch(shape1, shape2, options);
  const CudaBatchStats stats = batch.solve(X_W1, X_W2);
  const std::span<const CudaContactSolution> s = batch.solutions();
  out.assign(s.begin(), s.end());
  return stats;
}

}  // namespace diffcol::batch::cuda
