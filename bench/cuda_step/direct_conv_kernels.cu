#include "direct_conv_kernels.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include <staticnet/cuda/channel_sums.hpp>
#include <staticnet/cuda/check.hpp>
#include <staticnet/kernels/grouped_conv.hpp>

#include "direct_conv_cases.hpp"

namespace bench {
namespace {

namespace g = staticnet::cuda;
namespace k = staticnet::kernels;
using k::index_t;

// Kernels take the case's index, not its geometry: nvcc's host stubs cannot spell a __global__
// template's class-type argument (channel_sums_launch.cu says the same).

// One thread per output element.
template <int I>
__global__ void forward_kernel(const float* __restrict__ x, const float* __restrict__ w,
                               float* __restrict__ y) {
  const index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  if (i >= direct_conv_cases[I].geometry.output_elements())
    return;
  k::grouped_conv_forward<direct_conv_cases[I].geometry, false>(i, x, w, nullptr, y);
}

// One thread per input element, gathering dy · w from the outputs that read it.
template <int I>
__global__ void input_kernel(const float* __restrict__ dy, const float* __restrict__ w,
                             float* __restrict__ dx) {
  const index_t j = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  if (j >= direct_conv_cases[I].geometry.input_elements())
    return;
  k::grouped_conv_backward_input<direct_conv_cases[I].geometry, false>(j, dy, w, dx);
}

// One block per weight element.
template <int I>
__global__ void __launch_bounds__(g::channel_threads)
    weight_kernel(const float* __restrict__ x, const float* __restrict__ dy,
                  float* __restrict__ dw) {
  g::per_block::grouped_conv_backward_weight<direct_conv_cases[I].geometry>(blockIdx.x, x, dy, dw);
}

template <int I>
void launch(Direction d, const ConvTensors& t, cudaStream_t stream) {
  constexpr k::Conv2dGeometry geometry = direct_conv_cases[I].geometry;
  switch (d) {
    case Direction::fprop:
      forward_kernel<I><<<g::blocks_for(geometry.output_elements()), g::block_threads, 0, stream>>>(
          t.x(), t.w(), t.y());
      g::check_launch("forward_kernel");
      return;
    case Direction::dgrad:
      input_kernel<I><<<g::blocks_for(geometry.input_elements()), g::block_threads, 0, stream>>>(
          t.dy(), t.w(), t.dx());
      g::check_launch("input_kernel");
      return;
    case Direction::wgrad:
      weight_kernel<I>
          <<<static_cast<unsigned>(geometry.weight_elements()), g::channel_threads, 0, stream>>>(
              t.x(), t.dy(), t.dw());
      g::check_launch("weight_kernel");
      return;
  }
}

template <int... I>
void dispatch(int index, Direction d, const ConvTensors& t, cudaStream_t stream,
              std::integer_sequence<int, I...>) {
  ((index == I ? launch<I>(d, t, stream) : void()), ...);
}

}  // namespace

void run_direct(int index, Direction d, const ConvTensors& t, cudaStream_t stream) {
  if (index < 0 || index >= direct_conv_case_count)
    throw std::out_of_range("no direct convolution case " + std::to_string(index));
  dispatch(index, d, t, stream, std::make_integer_sequence<int, direct_conv_case_count>{});
}

}  // namespace bench
