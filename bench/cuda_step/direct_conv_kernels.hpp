#pragma once
// staticnet's direct convolution kernels (staticnet/kernels/grouped_conv.hpp's bodies and
// staticnet/cuda/channel_sums.hpp's weight gradient), instantiated for the geometries of
// direct_conv_cases.hpp and launched as the generated steps launch them.
#include <cuda_runtime.h>

#include "conv_sweep.hpp"

namespace bench {

// Direction d of direct_conv_cases[index] on t's tensors, enqueued on `stream`: y (without the
// bias), dx (written, not added), or dW (added to, as the step accumulates gradients).
void run_direct(int index, Direction d, const ConvTensors& t, cudaStream_t stream);

}  // namespace bench
