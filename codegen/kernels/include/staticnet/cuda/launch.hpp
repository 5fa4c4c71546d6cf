#pragma once
// The CUDA launchers of the shared kernel bodies (staticnet/kernels/), the counterparts of
// staticnet/cpu/launch.hpp: for_each runs body(i) for every i of an index space, one thread per
// index. The generated code passes the same body to both, a lambda that is `[&]` on the CPU and
// `[=] __device__` here (nvcc's --extended-lambda, which staticnet_model() turns on).
//
// The extents are template arguments because the generator knows them: the kernel then splits a
// flat thread index into (plane, row, column) by literal divisors, which the compiler turns into
// multiplications, where a divisor known only at run time costs a real integer division per
// thread.
#include <cuda_runtime.h>

#include "staticnet/cuda/check.hpp"
#include "staticnet/kernels/host_device.hpp"

namespace staticnet::cuda {

using kernels::index_t;

namespace detail {

template <index_t Count, class Body>
__global__ void __launch_bounds__(block_threads) for_each_kernel(Body body) {
  const index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  if (i < Count)
    body(i);
}

template <index_t Rows, index_t Positions, class Body>
__global__ void __launch_bounds__(block_threads) for_each_2d_kernel(Body body) {
  const index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  if (i < Rows * Positions)
    body(i / Positions, i % Positions);
}

template <index_t Planes, index_t Rows, index_t Columns, class Body>
__global__ void __launch_bounds__(block_threads) for_each_3d_kernel(Body body) {
  const index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  if (i < Planes * Rows * Columns)
    body(i / (Rows * Columns), i % (Rows * Columns) / Columns, i % Columns);
}

}  // namespace detail

// body(i) for every i in [0, Count), on `stream`. `what` names the pass in a launch error.
template <index_t Count, class Body>
void for_each(cudaStream_t stream, const char* what, Body body) {
  static_assert(Count > 0, "an empty pass launches nothing; the generator emits none");
  detail::for_each_kernel<Count><<<blocks_for(Count), block_threads, 0, stream>>>(body);
  check_launch(what);
}

// body(row, position) for every row in [0, Rows) and position in [0, Positions); consecutive
// threads take consecutive positions (contiguous in memory), as the CPU's inner loop does.
template <index_t Rows, index_t Positions, class Body>
void for_each_2d(cudaStream_t stream, const char* what, Body body) {
  static_assert(Rows > 0 && Positions > 0, "an empty pass launches nothing");
  detail::for_each_2d_kernel<Rows, Positions>
      <<<blocks_for(Rows * Positions), block_threads, 0, stream>>>(body);
  check_launch(what);
}

// body(plane, row, column) over Planes × Rows × Columns; consecutive threads take consecutive
// columns.
template <index_t Planes, index_t Rows, index_t Columns, class Body>
void for_each_3d(cudaStream_t stream, const char* what, Body body) {
  static_assert(Planes > 0 && Rows > 0 && Columns > 0, "an empty pass launches nothing");
  detail::for_each_3d_kernel<Planes, Rows, Columns>
      <<<blocks_for(Planes * Rows * Columns), block_threads, 0, stream>>>(body);
  check_launch(what);
}

}  // namespace staticnet::cuda
