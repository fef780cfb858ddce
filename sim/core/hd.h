// SURGE_HD marks functions that run both in the CPU backend's OpenMP loops and in CUDA kernels
// (DESIGN.md, "Single-source physics"). Under a plain C++ compiler it expands to nothing.
#pragma once

#if defined(__CUDACC__)
#define SURGE_HD __host__ __device__ __forceinline__
#else
#define SURGE_HD inline
#endif

// A loop body handed to an executor (sim/backend/*_executor.h): a device lambda under nvcc (built with
// --extended-lambda), a plain lambda otherwise.
#if defined(__CUDACC__)
#define SURGE_LAMBDA __host__ __device__
#else
#define SURGE_LAMBDA
#endif
