// diffcol_cuda_bench: the ergodic sweep of the iDCOL benchmark (Sec. V) on the GPU batch solver
// (cuda/include/diffcol/batch/contact_batch_cuda.hpp) against the CPU solver on the same poses: time per
// solve on the GPU (kernel alone and the whole call), on one CPU core and on all cores, the
// share of poses the GPU converged on, and the largest difference of α from the CPU solver.
//
//   diffcol_cuda_bench [poses per pair (default 1000000)] [comma-separated shapes]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "diffcol/batch/contact_batch_cuda.hpp"
#include "diffcol/idcol/ergodic.hpp"

using namespace diffcol;
using namespace diffcol::idcol;

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000000;
  std::vector<std::string> names = benchmark_shape_names();
  if (argc > 2) {
    names.clear();
    std::stringstream ss(argv[2]);
    for (std::string s; std::getline(ss, s, ',');) names.push_back(s);
  }
  if (n <= 0 || !batch::cuda::cuda_available()) {
    std::fprintf(stderr, "diffcol_cuda_bench: %s\n", n <= 0 ? "poses must be > 0" : "no CUDA device");
    return 2;
  }
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::printf("poses per pair: %ld; CPU threads for the all-cores column: %u\n", n, threads);
  std::printf("%-20s %10s %10s %10s %9s %10s %10s %8s %8s %11s %8s\n", "pair", "gpu_ns", "call_ns", "grad_ns", "gpu_conv%",
              "cpu1_ns", "cpuN_ns", "gpu_ev", "cpu_ev", "max_rel_da", "status!=");
  // warm-up: the CUDA context and the kernel's first launch
  {
    std::vector<batch::cuda::CudaContactSolution> w;
    const Pose I = Pose::identity();
    batch::cuda::solve_contacts(benchmark_shape("sphere"), benchmark_shape("sphere"), {&I, 1}, {&I, 1}, w);
  }
  for (const std::string& n1 : names)
    for (const std::string& n2 : names) {
      const Shape s1 = benchmark_shape(n1), s2 = benchmark_shape(n2);
      const ErgodicSweep sweep = ErgodicSweep::for_pair(s1, s2);
      std::vector<Pose> poses(n);
      for (long i = 0; i < n; ++i) poses[i] = sweep.pose(i);
      const Pose I = Pose::identity();
      batch::cuda::CudaContactBatch cb(s1, s2);
      cb.solve({&I, 1}, poses);  // the first call allocates the buffers; the second is timed
      const batch::cuda::CudaBatchStats bs = cb.solve({&I, 1}, poses);
      const std::span<const batch::cuda::CudaContactSolution> gpu = cb.solutions();
      batch::cuda::CudaBatchOptions with_gradients;
      with_gradients.gradients = true;
      batch::cuda::CudaContactBatch cg(s1, s2, with_gradients);
      cg.solve({&I, 1}, poses);
      const double grad_call = 1e6 * cg.solve({&I, 1}, poses).total_ms / n;
      // CPU, one core
      std::vector<double> alpha(n);
      std::vector<int> status(n), evals(n);
      const auto t0 = std::chrono::steady_clock::now();
      {
        ContactPair pair(s1, s2);
        for (long i = 0; i < n; ++i) {
          const ContactSolution& s = pair.solve_cold(Pose::identity(), poses[i]);
          alpha[i] = s.alpha;
          status[i] = static_cast<int>(s.status);
          evals[i] = s.jacobian_evaluations;
        }
      }
      const double cpu1 = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
      // CPU, all cores
      const auto t1 = std::chrono::steady_clock::now();
      {
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t)
          pool.emplace_back([&, t] {
            ContactPair pair(s1, s2);
            double sink = 0.0;
            for (long i = t; i < n; i += threads) sink += pair.solve_cold(Pose::identity(), poses[i]).alpha;
            if (sink == -1.0) std::puts("");
          });
        for (auto& th : pool) th.join();
      }
      const double cpun = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t1).count() / n;
      long on_gpu = 0, mismatch = 0;
      double worst = 0.0, gev = 0.0, cev = 0.0;
      long worst_i = 0;
      for (long i = 0; i < n; ++i) {
        on_gpu += gpu[i].solved_on_gpu;
        mismatch += static_cast<int>(gpu[i].status) != status[i];
        const double d = std::abs(gpu[i].alpha - alpha[i]) / std::max(alpha[i], 1e-300);
        if (d > worst) {
          worst = d;
          worst_i = i;
        }
        gev += gpu[i].jacobian_evaluations;
        cev += evals[i];
      }
      std::printf("%-20s %10.2f %10.2f %10.2f %9.4f %10.1f %10.1f %8.2f %8.2f %11.2e %8ld\n", (n1 + "-" + n2).c_str(),
                  1e6 * bs.kernel_ms / n, 1e6 * bs.total_ms / n, grad_call, 100.0 * on_gpu / n, cpu1, cpun, gev / n, cev / n,
                  worst, mismatch);
      if (worst > 1e-8) {  // the pose and both solutions
        const long i = worst_i;
        const ContactSolution c = solve_contact(s1, Pose::identity(), s2, poses[i]);
        const batch::cuda::CudaContactSolution& g = gpu[i];
        std::printf("  worst pose: sweep index %ld, p = (%.17g, %.17g, %.17g)\n", i, poses[i].p.x(), poses[i].p.y(),
                    poses[i].p.z());
        std::printf("  cpu: alpha %.17g x (%.17g, %.17g, %.17g) l (%.6g, %.6g) |f| %.3g evals %d attempts %d\n",
                    c.alpha, c.x_B1.x(), c.x_B1.y(), c.x_B1.z(), c.lambda1, c.lambda2, c.residual_norm,
                    c.jacobian_evaluations, c.attempts);
        std::printf("  gpu: alpha %.17g x (%.17g, %.17g, %.17g) l (%.6g, %.6g) |f| %.3g evals %d\n", g.alpha,
                    g.x_B1.x(), g.x_B1.y(), g.x_B1.z(), g.lambda1, g.lambda2, g.residual_norm,
                    g.jacobian_evaluations);
      }
      std::fflush(stdout);
    }
  std::printf(
      "gpu_ns: kernel time per pose (CUDA events); call_ns: one CudaContactBatch::solve call per pose,\n"
      "buffers allocated by an earlier call (packing, copies, kernel, unpacking, CPU fallback; %u host\n"
      "threads); grad_ns: the same with CudaBatchOptions::gradients; gpu_conv%%: poses converged on the\n"
      "GPU; cpu1/cpuN: ContactPair::solve_cold on one core / all cores; *_ev: Jacobian evaluations per\n"
      "solve; max_rel_da: largest |alpha_gpu - alpha_cpu| / alpha_cpu; status!=: poses whose status differs.\n",
      threads);
  return 0;
}
