#pragma once
// The convolutions the CUDA backend computes with its own direct kernels (grouped_conv.hpp) rather
// than cuDNN, as the MLPerf Tiny samples' generated steps spell them: every distinct depthwise
// convolution of MobileNetV1 x0.25 (batch 32) and DS-CNN (batch 100), and the two first layers
// whose TensorFlow 'same' padding is uneven. direct_conv_engines.cpp times each against every
// engine cuDNN offers; it also checks every case against the model's plan at compile time, so a
// changed sample cannot leave this table describing another model.
//
// Shared by direct_conv_engines.cpp (g++) and direct_conv_kernels.cu (nvcc, which instantiates
// the kernels with these literal geometries): nothing here but the table.
#include <cstdint>

#include <staticnet/kernels/geometry.hpp>

namespace bench {

enum class Sample { mobilenet_v1, ds_cnn };

struct DirectConvCase {
  const char* name;
  Sample sample;
  int layer;  // its index in the sample's plan (the first of several alike)
  staticnet::kernels::Conv2dGeometry geometry;
  std::int64_t plan_workspace;  // the sample's workspace region, bytes: what cuDNN may use
  bool input_gradient;          // whether the step computes dx (not for the first layer)
};

// Workspace regions, from the samples' footprint tables (samples/mlperf_tiny/*.hpp): MobileNetV1's
// first convolution's im2col, 27 x 48·48 floats; DS-CNN's pointwise convolutions', 64 x 25·5
// floats.
inline constexpr std::int64_t mobilenet_workspace = 248'832, ds_cnn_workspace = 32'000;

constexpr staticnet::kernels::Conv2dGeometry depthwise(std::int64_t batch, std::int64_t channels,
                                                       std::int64_t in, std::int64_t in_w,
                                                       std::int64_t stride) {
  // 3x3 'same': out = ceil(in / stride); stride 1 pads 1 before (and 1 after), stride 2 on an even
  // input pads 0 before (and 1 after).
  const std::int64_t out = (in + stride - 1) / stride, out_w = (in_w + stride - 1) / stride;
  return {.batch = batch,
          .in_channels = channels,
          .in_height = in,
          .in_width = in_w,
          .out_channels = channels,
          .out_height = out,
          .out_width = out_w,
          .kernel_h = 3,
          .kernel_w = 3,
          .stride_h = stride,
          .stride_w = stride,
          .pad_h = stride == 1 ? 1 : 0,
          .pad_w = stride == 1 ? 1 : 0,
          .groups = channels};
}

inline constexpr DirectConvCase direct_conv_cases[] = {
    {"MobileNetV1 conv 3->8 s2 (uneven pad)",
     Sample::mobilenet_v1,
     0,
     {.batch = 32,
      .in_channels = 3,
      .in_height = 96,
      .in_width = 96,
      .out_channels = 8,
      .out_height = 48,
      .out_width = 48,
      .kernel_h = 3,
      .kernel_w = 3,
      .stride_h = 2,
      .stride_w = 2,
      .pad_h = 0,
      .pad_w = 0,
      .groups = 1},
     mobilenet_workspace,
     false},
    {"MobileNetV1 dw 8 @48x48", Sample::mobilenet_v1, 3, depthwise(32, 8, 48, 48, 1),
     mobilenet_workspace, true},
    {"MobileNetV1 dw 16 @48x48 s2", Sample::mobilenet_v1, 9, depthwise(32, 16, 48, 48, 2),
     mobilenet_workspace, true},
    {"MobileNetV1 dw 32 @24x24", Sample::mobilenet_v1, 15, depthwise(32, 32, 24, 24, 1),
     mobilenet_workspace, true},
    {"MobileNetV1 dw 32 @24x24 s2", Sample::mobilenet_v1, 21, depthwise(32, 32, 24, 24, 2),
     mobilenet_workspace, true},
    {"MobileNetV1 dw 64 @12x12", Sample::mobilenet_v1, 27, depthwise(32, 64, 12, 12, 1),
     mobilenet_workspace, true},
    {"MobileNetV1 dw 64 @12x12 s2", Sample::mobilenet_v1, 33, depthwise(32, 64, 12, 12, 2),
     mobilenet_workspace, true},
    {"MobileNetV1 dw 128 @6x6 (x5)", Sample::mobilenet_v1, 39, depthwise(32, 128, 6, 6, 1),
     mobilenet_workspace, true},
    {"MobileNetV1 dw 128 @6x6 s2", Sample::mobilenet_v1, 69, depthwise(32, 128, 6, 6, 2),
     mobilenet_workspace, true},
    {"MobileNetV1 dw 256 @3x3", Sample::mobilenet_v1, 75, depthwise(32, 256, 3, 3, 1),
     mobilenet_workspace, true},
    {"DS-CNN conv 1->64 10x4 s2 (uneven pad)",
     Sample::ds_cnn,
     0,
     {.batch = 100,
      .in_channels = 1,
      .in_height = 49,
      .in_width = 10,
      .out_channels = 64,
      .out_height = 25,
      .out_width = 5,
      .kernel_h = 10,
      .kernel_w = 4,
      .stride_h = 2,
      .stride_w = 2,
      .pad_h = 4,
      .pad_w = 1,
      .groups = 1},
     ds_cnn_workspace,
     false},
    {"DS-CNN dw 64 @25x5 (x4)", Sample::ds_cnn, 4, depthwise(100, 64, 25, 5, 1), ds_cnn_workspace,
     true},
};

inline constexpr int direct_conv_case_count =
    static_cast<int>(sizeof(direct_conv_cases) / sizeof(direct_conv_cases[0]));

}  // namespace bench
