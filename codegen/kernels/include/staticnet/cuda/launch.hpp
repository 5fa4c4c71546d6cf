#pragma once
// The CUDA launchers of the shared kernel bodies (staticnet/kernels/), the counterparts of
// staticnet/cpu/launch.hpp: for_each runs body(i, tensors...) for every i of an index space, one
// thread per index. The generated code passes the same call to both, in a lambda that is `[&]` on
// the CPU and `[] __device__` here (nvcc's --extended-lambda, which staticnet_model() turns on).
//
// The tensors (and any number the pass reads) go to the kernel as its own arguments, not captured
// by the lambda: a kernel's
// pointer arguments are __restrict__ here, which lets the compiler read the ones the pass only
// reads through the read-only data cache (ld.global.nc), as the hand-written kernels did. A
// tensor that shares its memory with another of the same pass (a layer in place) is passed as
// g::aliased(pointer) instead, and gets no such promise.
//
// The extents are template arguments because the generator knows them: the kernel then splits a
// flat thread index into (plane, row, column) by literal divisors, which the compiler turns into
// multiplications, where a divisor known only at run time costs a real integer division per
// thread.
#include <cuda_runtime.h>

#include <type_traits>

#include "staticnet/cuda/check.hpp"
#include "staticnet/kernels/host_device.hpp"

namespace staticnet::cuda {

using kernels::index_t;

// A tensor that shares its memory with another of the same pass: passed without __restrict__.
template <class T>
struct Aliased {
  T* pointer;
};
template <class T>
Aliased<T> aliased(T* pointer) {
  return {pointer};
}

namespace detail {

// The kernel's parameter for a tensor: a pointer __restrict__, an Aliased one as it is.
template <class T>
struct KernelArgument {
  using type = T;
};
template <class T>
struct KernelArgument<T*> {
  using type = T* __restrict__;
};
template <class T>
using kernel_argument = typename KernelArgument<T>::type;

// What the body receives: the pointer either way; a number (the micro-batch whose Dropout masks
// a pass draws, under sn::Accumulate) as it is.
template <class T>
__device__ __forceinline__ T* pointer(T* p) {
  return p;
}
template <class T>
__device__ __forceinline__ T* pointer(Aliased<T> a) {
  return a.pointer;
}
template <class T>
requires std::is_arithmetic_v<T> __device__ __forceinline__ T pointer(T value) {
  return value;
}

template <index_t Count, class Body, class... Tensors>
__global__ void __launch_bounds__(block_threads)
    for_each_kernel(Body body, kernel_argument<Tensors>... tensors) {
  const index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  if (i < Count)
    body(i, pointer(tensors)...);
}

template <index_t Rows, index_t Positions, class Body, class... Tensors>
__global__ void __launch_bounds__(block_threads)
    for_each_2d_kernel(Body body, kernel_argument<Tensors>... tensors) {
  const index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  if (i < Rows * Positions)
    body(i / Positions, i % Positions, pointer(tensors)...);
}

template <index_t Planes, index_t Rows, index_t Columns, class Body, class... Tensors>
__global__ void __launch_bounds__(block_threads)
    for_each_3d_kernel(Body body, kernel_argument<Tensors>... tensors) {
  const index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  if (i < Planes * Rows * Columns)
    body(i / (Rows * Columns), i % (Rows * Columns) / Columns, i % Columns, pointer(tensors)...);
}

}  // namespace detail

// body(i, tensors...) for every i in [0, Count), on `stream`. `what` names the pass in a launch
// error.
template <index_t Count, class Body, class... Tensors>
void for_each(cudaStream_t stream, const char* what, Body body, Tensors... tensors) {
  static_assert(Count > 0, "an empty pass launches nothing; the generator emits none");
  detail::for_each_kernel<Count, Body, Tensors...>
      <<<blocks_for(Count), block_threads, 0, stream>>>(body, tensors...);
  check_launch(what);
}

// body(row, position, tensors...) for every row in [0, Rows) and position in [0, Positions);
// consecutive threads take consecutive positions (contiguous in memory), as the CPU's inner loop
// does.
template <index_t Rows, index_t Positions, class Body, class... Tensors>
void for_each_2d(cudaStream_t stream, const char* what, Body body, Tensors... tensors) {
  static_assert(Rows > 0 && Positions > 0, "an empty pass launches nothing");
  detail::for_each_2d_kernel<Rows, Positions, Body, Tensors...>
      <<<blocks_for(Rows * Positions), block_threads, 0, stream>>>(body, tensors...);
  check_launch(what);
}

// body(plane, row, column, tensors...) over Planes × Rows × Columns; consecutive threads take
// consecutive columns.
template <index_t Planes, index_t Rows, index_t Columns, class Body, class... Tensors>
void for_each_3d(cudaStream_t stream, const char* what, Body body, Tensors... tensors) {
  static_assert(Planes > 0 && Rows > 0 && Columns > 0, "an empty pass launches nothing");
  detail::for_each_3d_kernel<Planes, Rows, Columns, Body, Tensors...>
      <<<blocks_for(Planes * Rows * Columns), block_threads, 0, stream>>>(body, tensors...);
  check_launch(what);
}

}  // namespace staticnet::cuda
