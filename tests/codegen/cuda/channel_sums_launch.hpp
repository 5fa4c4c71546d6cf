#pragma once
// The g::per_block sums (staticnet/cuda/channel_sums.hpp) run on host vectors through the GPU, for
// test_channel_sums.cpp (the kernels and launches are channel_sums_launch.cu). Each takes the
// index of a geometry below and the same arguments as the CPU body it stands in for.
#include <vector>

#include <staticnet/kernels/batch_norm.hpp>
#include <staticnet/kernels/geometry.hpp>

namespace channel_sums_test {

namespace k = staticnet::kernels;

// 3 · 77 = 231 elements per channel: fewer than a block's 256 threads. 4 · 300 = 1,200: four
// rounds of the block and a partial fifth.
inline constexpr k::BatchNormGeometry norms[] = {
    {.batch = 3, .channels = 5, .positions = 77, .epsilon = 1e-5f, .momentum = 0.1f},
    {.batch = 4, .channels = 3, .positions = 300, .epsilon = 1e-3f, .momentum = 0.01f}};

// Depthwise 3×3, stride 2, pad 1 on 9×7 (one output row and column reach into the padding), and a
// grouped 2-group 4 → 6 convolution, 2×3 kernel, stride 1×2, pad 0×1, over 33 samples.
inline constexpr k::Conv2dGeometry convs[] = {{.batch = 3,
                                               .in_channels = 4,
                                               .in_height = 9,
                                               .in_width = 7,
                                               .out_channels = 4,
                                               .out_height = 5,
                                               .out_width = 4,
                                               .kernel_h = 3,
                                               .kernel_w = 3,
                                               .stride_h = 2,
                                               .stride_w = 2,
                                               .pad_h = 1,
                                               .pad_w = 1,
                                               .groups = 4},
                                              {.batch = 33,
                                               .in_channels = 4,
                                               .in_height = 6,
                                               .in_width = 5,
                                               .out_channels = 6,
                                               .out_height = 5,
                                               .out_width = 3,
                                               .kernel_h = 2,
                                               .kernel_w = 3,
                                               .stride_h = 1,
                                               .stride_w = 2,
                                               .pad_h = 0,
                                               .pad_w = 1,
                                               .groups = 2}};

void batch_norm_statistics(int norm, const std::vector<float>& x, std::vector<float>& stats,
                           std::vector<float>& running);
// With a fused ReLU: dy becomes d = ReLU'(y)·dy in place.
void batch_norm_backward_sums(int norm, const std::vector<float>& x, const std::vector<float>& y,
                              const std::vector<float>& stats, std::vector<float>& dy,
                              std::vector<float>& dgamma, std::vector<float>& dbeta);
void grouped_conv_backward_weight(int conv, const std::vector<float>& x,
                                  const std::vector<float>& dy, std::vector<float>& dw);
// Over the conv's output: (batch, out_channels, out_height · out_width).
void bias_gradient_channels(int conv, const std::vector<float>& dz, std::vector<float>& db);

}  // namespace channel_sums_test
