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
#include <cudnn_frontend.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include <staticnet/cuda/check.hpp>
#include <staticnet/cuda/conv_weight_gradient.hpp>
#include <staticnet/cuda/libraries.hpp>

namespace fe = cudnn_frontend;
namespace cuda = staticnet::cuda;
using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

namespace {

struct Geometry {
  const char* name;
  std::int64_t n, c, h, w, k, r, pad;  // NCHW input, K filters of R×R, stride 1
  bool wgrad_only = false;
  std::int64_t out_h() const { return h + 2 * pad - r + 1; }
  std::int64_t out_w() const { return w + 2 * pad - r + 1; }
};

fe::graph::Tensor_attributes nchw(const char* name, std::int64_t n, std::int64_t c, std::int64_t h,
                                  std::int64_t w) {
  return fe::graph::Tensor_attributes()
      .set_name(name)
      .set_dim({n, c, h, w})
      .set_stride({c * h * w, h * w, w, 1})
      .set_data_type(fe::DataType_t::FLOAT);
}

void require(fe::error_t status, const char* what) {
  if (status.is_bad())
    throw cuda::Error(std::string("cuDNN ") + what + ": " + status.get_message());
}

enum class Direction { fprop, wgrad, dgrad };
const char* name_of(Direction d) {
  return d == Direction::fprop ? "fprop" : d == Direction::wgrad ? "wgrad" : "dgrad";
}

// Builds the graph of one direction; returns its three tensors (two inputs, the output).
std::vector<TensorPtr> make(fe::graph::Graph& graph, const Geometry& g, Direction d) {
  graph.set_io_data_type(fe::DataType_t::FLOAT)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const std::int64_t oh = g.out_h(), ow = g.out_w();
  auto x = nchw("x", g.n, g.c, g.h, g.w), w = nchw("w", g.k, g.c, g.r, g.r),
       y = nchw("y", g.n, g.k, oh, ow);
  TensorPtr a, b, out;
  if (d == Direction::fprop) {
    a = graph.tensor(x), b = graph.tensor(w);
    out = graph.conv_fprop(a, b,
                           fe::graph::Conv_fprop_attributes()
                               .set_padding({g.pad, g.pad})
                               .set_stride({1, 1})
                               .set_dilation({1, 1}));
    out->set_dim({g.n, g.k, oh, ow}).set_stride({g.k * oh * ow, oh * ow, ow, 1});
  } else if (d == Direction::wgrad) {
    a = graph.tensor(y), b = graph.tensor(x);
    out = graph.conv_wgrad(a, b,
                           fe::graph::Conv_wgrad_attributes()
                               .set_padding({g.pad, g.pad})
                               .set_stride({1, 1})
                               .set_dilation({1, 1}));
    out->set_dim({g.k, g.c, g.r, g.r}).set_stride({g.c * g.r * g.r, g.r * g.r, g.r, 1});
  } else {
    a = graph.tensor(y), b = graph.tensor(w);
    out = graph.conv_dgrad(a, b,
                           fe::graph::Conv_dgrad_attributes()
                               .set_padding({g.pad, g.pad})
                               .set_stride({1, 1})
                               .set_dilation({1, 1}));
    out->set_dim({g.n, g.c, g.h, g.w}).set_stride({g.c * g.h * g.w, g.h * g.w, g.w, 1});
  }
  out->set_output(true).set_data_type(fe::DataType_t::FLOAT);
  return {a, b, out};
}

std::int64_t elements(const TensorPtr& t) {
  std::int64_t n = 1;
  for (auto d : t->get_dim())
    n *= d;
  return n;
}

// Median milliseconds of `run` over 50 timed calls after 10 warm-up ones, by device events; -1
// when a call reports failure.
template <class Run>
double median_ms(cudaStream_t stream, Run run) {
  cudaEvent_t start, stop;
  cuda::check(cudaEventCreate(&start), "cudaEventCreate");
  cuda::check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> ms;
  bool ok = true;
  for (int r = 0; r < 60 && ok; ++r) {
    cuda::check(cudaEventRecord(start, stream), "cudaEventRecord");
    ok = run();
    cuda::check(cudaEventRecord(stop, stream), "cudaEventRecord");
    cuda::check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    cuda::check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    if (r >= 10)
      ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!ok)
    return -1;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Validates the graph and lists its engines in the heuristic's order (A, then the fallbacks).
void list_engines(fe::graph::Graph& graph, cudnnHandle_t handle) {
  require(graph.validate(), "validate");
  require(graph.build_operation_graph(handle), "build_operation_graph");
  require(graph.create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}), "plans");
}

// max |out − reference| / max |reference|
double relative_error(const std::vector<float>& out, const std::vector<double>& reference) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    diff = std::max(diff, std::abs(double(out[i]) - reference[i]));
    scale = std::max(scale, std::abs(reference[i]));
  }
  return diff / scale;
}

// dW from the definition in float64 (x and dz copied back from the device).
std::vector<double> reference_wgrad(const Geometry& g, const float* x_d, const float* dz_d) {
  const std::int64_t oh = g.out_h(), ow = g.out_w();
  std::vector<float> x(g.n * g.c * g.h * g.w), dz(g.n * g.k * oh * ow);
  cuda::check(cudaMemcpy(x.data(), x_d, x.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  cuda::check(cudaMemcpy(dz.data(), dz_d, dz.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::vector<double> dw(g.k * g.c * g.r * g.r, 0.0);
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t k = 0; k < g.k; ++k)
      for (std::int64_t c = 0; c < g.c; ++c)
        for (std::int64_t r = 0; r < g.r; ++r)
          for (std::int64_t s = 0; s < g.r; ++s) {
            double sum = 0;
            for (std::int64_t y = 0; y < oh; ++y)
              for (std::int64_t xo = 0; xo < ow; ++xo) {
                const std::int64_t iy = y + r - g.pad, ix = xo + s - g.pad;
                if (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w)
                  sum += double(dz[((n * g.k + k) * oh + y) * ow + xo]) *
                         x[((n * g.c + c) * g.h + iy) * g.w + ix];
              }
            dw[((k * g.c + c) * g.r + r) * g.r + s] += sum;
          }
  return dw;
}

// staticnet's own weight-gradient pass (with the bias gradient) on the same inputs: its time, and
// max |dW − float64 reference| / max |reference| (cuDNN's allowed engines' error is printed
// beside each of them).
void time_direct_wgrad(cudaStream_t stream, const Geometry& g, std::int64_t plan_workspace,
                       const float* x, const float* dz, const std::vector<double>& reference) {
  staticnet::kernels::Conv2dGeometry geometry{.batch = g.n,
                                              .in_channels = g.c,
                                              .in_height = g.h,
                                              .in_width = g.w,
                                              .out_channels = g.k,
                                              .out_height = g.out_h(),
                                              .out_width = g.out_w(),
                                              .kernel_h = g.r,
                                              .kernel_w = g.r,
                                              .stride_h = 1,
                                              .stride_w = 1,
                                              .pad_h = g.pad,
                                              .pad_w = g.pad};
  const cuda::ConvWeightGradient direct(geometry, plan_workspace);
  float *dw = nullptr, *db = nullptr;
  void* workspace = nullptr;
  cuda::check(cudaMalloc(&dw, g.k * g.c * g.r * g.r * sizeof(float)), "cudaMalloc");
  cuda::check(cudaMalloc(&db, g.k * sizeof(float)), "cudaMalloc");
  cuda::check(cudaMalloc(&workspace, plan_workspace), "cudaMalloc");
  const double ms = median_ms(stream, [&] {
    direct.run(x, dz, dw, db, workspace, stream);
    return true;
  });
  std::vector<float> out(reference.size());
  cuda::check(cudaMemcpy(out.data(), dw, out.size() * sizeof(float), cudaMemcpyDeviceToHost),
              "cudaMemcpy");
  std::printf(
      "  %-40s %d chunks, prefer %-3s (wgrad + bias gradient)      %8.1f us  "
      "error %.2e\n",
      "staticnet direct pass", static_cast<int>(direct.chunks()), direct.preferred() ? "yes" : "no",
      ms * 1000.0, relative_error(out, reference));
  cudaFree(dw);
  cudaFree(db);
  cudaFree(workspace);
}

void sweep(cudnnHandle_t handle, cudaStream_t stream, const Geometry& g, Direction d,
           std::int64_t plan_workspace) {
  fe::graph::Graph all, exact;
  auto tensors = make(all, g, d);
  list_engines(all, handle);
  auto exact_tensors = make(exact, g, d);
  list_engines(exact, handle);
  exact.deselect_numeric_notes(
      {fe::NumericalNote_t::TENSOR_CORE, fe::NumericalNote_t::DOWN_CONVERT_INPUTS,
       fe::NumericalNote_t::REDUCED_PRECISION_REDUCTION, fe::NumericalNote_t::NONDETERMINISTIC});
  (void)exact.check_support(handle);
  (void)exact.build_plans(fe::BuildPlanPolicy_t::ALL);
  (void)all.check_support(handle);
  (void)all.build_plans(fe::BuildPlanPolicy_t::ALL);

  // Random inputs in [-1, 1) (never zeros: they hide unwritten outputs and can run faster).
  std::vector<float*> buffers;
  std::unordered_map<TensorPtr, void*> bind, exact_bind;
  std::uint32_t state = 12345;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    std::vector<float> host(elements(tensors[i]));
    for (float& v : host) {
      state = state * 1664525u + 1013904223u;
      v = static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
    }
    float* p = nullptr;
    cuda::check(cudaMalloc(&p, host.size() * sizeof(float)), "cudaMalloc");
    cuda::check(cudaMemcpy(p, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice),
                "cudaMemcpy");
    buffers.push_back(p);
    bind[tensors[i]] = p;
    exact_bind[exact_tensors[i]] = p;
  }
  // Outputs compared with a float64 reference: dW only (the others would cost minutes on a CPU).
  const std::vector<double> reference =
      d == Direction::wgrad ? reference_wgrad(g, buffers[1], buffers[0]) : std::vector<double>{};
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  std::printf("%s %s: N=%lld %lld→%lld %lldx%lld on %lldx%lld (plan workspace %lld B)\n", g.name,
              name_of(d), (long long)g.n, (long long)g.c, (long long)g.k, (long long)g.r,
              (long long)g.r, (long long)g.h, (long long)g.w, (long long)plan_workspace);
  for (std::int64_t i = 0; i < all.get_execution_plan_count(); ++i) {
    std::string name;
    std::int64_t ws = 0;
    if (all.get_plan_name_at_index(i, name).is_bad() ||
        all.get_workspace_size_plan_at_index(i, ws).is_bad())
      continue;
    if (static_cast<std::size_t>(ws) > workspace_size) {
      cudaFree(workspace);
      cuda::check(cudaMalloc(&workspace, ws), "cudaMalloc");
      workspace_size = ws;
    }
    const double ms = median_ms(
        stream, [&] { return all.execute_plan_at_index(handle, bind, workspace, i).is_good(); });
    if (ms < 0) {
      std::printf("  %-40s execute failed\n", name.c_str());
      continue;
    }
    // Deselected engines were not built in `exact`: executing one there fails.
    const bool is_exact = exact.execute_plan_at_index(handle, exact_bind, workspace, i).is_good();
    cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    double error = -1;
    if (!reference.empty()) {
      std::vector<float> out(reference.size());
      cuda::check(cudaMemcpy(out.data(), buffers[2], out.size() * 4, cudaMemcpyDeviceToHost),
                  "cudaMemcpy");
      error = relative_error(out, reference);
    }
    std::printf("  %-40s workspace %10lld B  %-9s %-15s %8.1f us", name.c_str(), (long long)ws,
                is_exact ? "allowed" : "excluded",
                ws <= plan_workspace ? "within plan" : "over plan", ms * 1000.0);
    if (error >= 0)
      std::printf("  error %.2e", error);
    std::printf("\n");
  }
  if (d == Direction::wgrad)
    time_direct_wgrad(stream, g, plan_workspace, buffers[1], buffers[0], reference);
  for (float* p : buffers)
    cudaFree(p);
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
    for (const auto& g : convs) {
      const std::int64_t plan_workspace = g.c * g.r * g.r * g.out_h() * g.out_w() * 4;
      for (auto d : {Direction::fprop, Direction::wgrad, Direction::dgrad})
        if (!g.wgrad_only || d == Direction::wgrad)
          sweep(libraries.dnn(), stream, g, d, plan_workspace);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
