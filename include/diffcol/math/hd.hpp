#pragma once
/// @file hd.hpp
/// DIFFCOL_HD marks the functions that the optional CUDA batch solver (cuda/, built only where a
/// CUDA compiler is found) also runs on the GPU: `__host__ __device__` under nvcc, nothing for
/// every other compiler.

#if defined(__CUDACC__)
#define DIFFCOL_HD __host__ __device__
#else
#define DIFFCOL_HD
#endif
