// Every cuDNN engine for the convolutions of the benchmarked samples, timed: what staticnet's
// Convolution picks (the first exact-FP32, deterministic engine in the heuristic's order within
// the plan's workspace) against everything else cuDNN offers, with the workspace each needs. It
// answers "is the plan's workspace what makes this convolution slow?" before anyone changes the
// core's workspace formula.
//
//   staticnet_bench_conv_engines
//
// Prints, per convolution and direction, one line per engine that builds: its name, its
// workspace, whether it is exact FP32 and deterministic, and its median time over 50 runs.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include <staticnet/cuda/check.hpp>
#include <staticnet/cuda/conv_weight_gradient.hpp>
#include <staticnet/cuda/libraries.hpp>

#include "conv_sweep.hpp"

namespace cuda = staticnet::cuda;
using bench::Direction;

namespace {

struct Geometry {
  const char* name;
  std::int64_t n, c, h, w, k, r, pad;  // NCHW input, K filters of R×R, stride 1
  bool wgrad_only = false;
  bench::Conv2dGeometry conv() const {
    return {.batch = n,
            .in_channels = c,
            .in_height = h,
            .in_width = w,
            .out_channels = k,
            .out_height = h + 2 * pad - r + 1,
            .out_width = w + 2 * pad - r + 1,
            .kernel_h = r,
            .kernel_w = r,
            .stride_h = 1,
            .stride_w = 1,
            .pad_h = pad,
            .pad_w = pad};
  }
};

// staticnet's own weight-gradient pass (with the bias gradient) on the same inputs: its time, and
// max |dW − float64 reference| / max |reference| (cuDNN's allowed engines' error is printed
// beside each of them).
void time_direct_wgrad(cudaStream_t stream, const bench::ConvTensors& t,
                       std::int64_t plan_workspace, const std::vector<double>& reference) {
  const cuda::ConvWeightGradient direct(t.geometry(), plan_workspace);
  float *dw = nullptr, *db = nullptr;
  void* workspace = nullptr;
  cuda::check(cudaMalloc(&dw, t.geometry().weight_elements() * sizeof(float)), "cudaMalloc");
  cuda::check(cudaMalloc(&db, t.geometry().out_channels * sizeof(float)), "cudaMalloc");
  cuda::check(cudaMalloc(&workspace, plan_workspace), "cudaMalloc");
  const double ms = bench::median_ms(stream, [&] {
    direct.run(t.x(), t.dy(), dw, db, workspace, stream);
    return true;
  });
  // The pass adds to dW and db (as a step's gradients are added to): one more run from zero for
  // the error.
  cuda::check(cudaMemsetAsync(dw, 0, t.geometry().weight_elements() * sizeof(float), stream),
              "cudaMemsetAsync");
  cuda::check(cudaMemsetAsync(db, 0, t.geometry().out_channels * sizeof(float), stream),
              "cudaMemsetAsync");
  direct.run(t.x(), t.dy(), dw, db, workspace, stream);
  cuda::check(cudaStreamSynchronize(stream), "the direct pass");
  std::printf(
      "  %-40s %d chunks, prefer %-3s (wgrad + bias gradient)      %8.1f us  "
      "error %.2e\n",
      "staticnet direct pass", static_cast<int>(direct.chunks()), direct.preferred() ? "yes" : "no",
      ms * 1000.0, bench::relative_error(dw, reference));
  cudaFree(dw);
  cudaFree(db);
  cudaFree(workspace);
}

}  // namespace

int main() {
  cudaStream_t stream;
  cuda::check(cudaStreamCreate(&stream), "cudaStreamCreate");
  cuda::Libraries libraries(stream);
  // The samples' convolutions (samples/simple_cnn.hpp, samples/lenet5.hpp; LeNet-5 at batch 64).
  // The plan's workspace is one sample's im2col: C·R·R·Ho·Wo floats.
  // Then convolutions of the MLPerf Tiny models (ResNet-8 at batch 32, DS-CNN at batch 100) and
  // two larger ones, to place ConvWeightGradient::preferred()'s threshold.
  const Geometry convs[] = {{"SimpleCNN conv", 128, 3, 32, 32, 16, 3, 1},
                            {"LeNet-5 conv1", 64, 1, 28, 28, 6, 5, 2},
                            {"LeNet-5 conv2", 64, 6, 14, 14, 16, 5, 0},
                            {"ResNet-8 16->16", 32, 16, 32, 32, 16, 3, 1, true},
                            {"ResNet-8 32->32", 32, 32, 16, 16, 32, 3, 1, true},
                            {"ResNet-8 64->64", 32, 64, 8, 8, 64, 3, 1, true},
                            {"DS-CNN pointwise", 100, 64, 25, 5, 64, 1, 0, true},
                            {"128->128 on 16x16", 64, 128, 16, 16, 128, 3, 1, true}};
  try {
    for (const auto& c : convs) {
      const bench::Conv2dGeometry g = c.conv();
      const std::int64_t plan_workspace = g.rows() * g.positions() * 4;
      const bench::ConvTensors tensors(g);
      for (auto d : {Direction::fprop, Direction::wgrad, Direction::dgrad}) {
        if (c.wgrad_only && d != Direction::wgrad)
          continue;
        std::printf("%s ", c.name);
        // Outputs compared with a float64 reference: dW only (the others would cost minutes on a
        // CPU).
        const std::vector<double> expected =
            d == Direction::wgrad ? bench::reference(tensors, d) : std::vector<double>{};
        bench::sweep_cudnn(libraries.dnn(), stream, tensors, d, plan_workspace, expected);
        if (d == Direction::wgrad)
          time_direct_wgrad(stream, tensors, plan_workspace, expected);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
