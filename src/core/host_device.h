// Marks functions compiled for both the host and, under nvcc, the GPU, so
// one definition serves the CPU worker and the trusted device kernels.
#pragma once

#ifdef __CUDACC__
#define HONE_HOST_DEVICE __host__ __device__
#else
#define HONE_HOST_DEVICE
#endif
