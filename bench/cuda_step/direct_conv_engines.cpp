// staticnet's direct convolution kernels against cuDNN, for every convolution the CUDA backend
// computes directly (direct_conv_cases.hpp: the MLPerf Tiny samples' depthwise convolutions and
// their uneven-padded first layers). The rule: cuDNN's grouped convolution or our own
// kernel, whichever measures faster within the plan's workspace. This measures it.
//
//   staticnet_bench_direct_conv
//
// Per case and direction (forward; dx where the step computes it; dW): every engine cuDNN offers
// (conv_sweep.hpp: workspace, allowed or not, time, error against float64), then staticnet's
// kernel's time and error, and which of the two a step could use is faster. Last, a Markdown table
// of those verdicts for bench/RESULTS.md, with each sample's total per step (a case's time times
// the layers that share its geometry).
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <staticnet/cuda/check.hpp>
#include <staticnet/cuda/libraries.hpp>
#include <staticnet/staticnet.hpp>

#include "conv_sweep.hpp"
#include "direct_conv_cases.hpp"
#include "direct_conv_kernels.hpp"
#include "samples/mlperf_tiny/ds_cnn.hpp"
#include "samples/mlperf_tiny/mobilenet_v1.hpp"

namespace sn = staticnet;
namespace cuda = staticnet::cuda;
using bench::direct_conv_cases;
using bench::Direction;

namespace {

// ---- the table describes the samples' plans --------------------------------------------------

// Whether layer l of a plan is a convolution of geometry g.
constexpr bool same_convolution(const sn::LayerPlan& l, const bench::Conv2dGeometry& g) {
  const bool depthwise = l.kind == sn::LayerKind::DepthwiseConv2d;
  if (!depthwise && l.kind != sn::LayerKind::Conv2d)
    return false;
  const sn::LayerDesc& d = l.options;
  return l.input_shape[0] == g.batch && l.input_shape[1] == g.in_channels &&
         l.input_shape[2] == g.in_height && l.input_shape[3] == g.in_width &&
         l.output_shape[1] == g.out_channels && l.output_shape[2] == g.out_height &&
         l.output_shape[3] == g.out_width && d.kernel_h == g.kernel_h && d.kernel_w == g.kernel_w &&
         d.stride_h == g.stride_h && d.stride_w == g.stride_w && d.pad_h == g.pad_h &&
         d.pad_w == g.pad_w && (depthwise ? l.input_shape[1] : d.groups) == g.groups;
}

// The layers of a plan that share geometry g.
template <class Plan>
constexpr int layers_like(const Plan& p, const bench::Conv2dGeometry& g) {
  int count = 0;
  for (const sn::LayerPlan& l : p.layers)
    count += same_convolution(l, g) ? 1 : 0;
  return count;
}

// The plan of case I's sample (the two samples' plans have different types).
template <int I>
constexpr const auto& plan_of() {
  if constexpr (direct_conv_cases[I].sample == bench::Sample::mobilenet_v1)
    return sn::plan<sn::samples::MobileNetV1, sn::samples::MobileNetV1Training>();
  else
    return sn::plan<sn::samples::DSCNN, sn::samples::DSCNNTraining>();
}

template <int I>
constexpr bool describes_its_sample() {
  constexpr const auto& p = plan_of<I>();
  constexpr bench::DirectConvCase c = direct_conv_cases[I];
  const sn::LayerPlan& l = p.layers[c.layer];
  return same_convolution(l, c.geometry) && p.footprint.workspace.count == c.plan_workspace &&
         (l.input_gradient_buffer != sn::no_buffer) == c.input_gradient;
}

template <int I>
constexpr int checked_repeats() {
  static_assert(describes_its_sample<I>(),
                "direct_conv_cases[I] no longer describes its sample's layer: update the table");
  return layers_like(plan_of<I>(), direct_conv_cases[I].geometry);
}

template <int... I>
std::vector<int> repeats_of(std::integer_sequence<int, I...>) {
  return {checked_repeats<I>()...};
}

// ---- timing ------------------------------------------------------------------------------------

struct Verdict {
  std::string name, direction;
  int repeats;
  double staticnet_us;
  bench::Engine first, fastest;  // cuDNN's allowed engines, times in µs
  bool mobilenet;
  bool staticnet_wrong;  // its output's error is over bench::wrong_above
  bool cudnn_faster;     // an allowed cuDNN engine won (faster, or staticnet's kernel is wrong)
};

bench::Engine in_us(bench::Engine e) {
  if (e.ms >= 0)
    e.ms *= 1000.0;
  return e;
}

Verdict compare(cudnnHandle_t handle, cudaStream_t stream, int index, int repeats,
                const bench::ConvTensors& t, Direction d) {
  const bench::DirectConvCase& c = direct_conv_cases[index];
  std::printf("%s (x%d) ", c.name, repeats);
  const std::vector<double> expected = bench::reference(t, d);
  const bench::Allowed cudnn = bench::sweep_cudnn(handle, stream, t, d, c.plan_workspace, expected);
  // Once for the error, from NaNs where the kernel writes its output (an element it leaves
  // unwritten shows), from zero where it adds to it (the weight gradient); then timed.
  cuda::check(cudaMemset(t.output(d), d == Direction::wgrad ? 0 : 0xFF,
                         t.output_elements(d) * sizeof(float)),
              "cudaMemset");
  bench::run_direct(index, d, t, stream);
  cuda::check(cudaStreamSynchronize(stream), "running staticnet's kernel");
  const double error = bench::relative_error(t.output(d), expected);
  const double ms = bench::median_ms(stream, [&] {
    bench::run_direct(index, d, t, stream);
    return true;
  });
  const bool wrong = error > bench::wrong_above;
  std::printf("  %-40s %-42s %8.1f us  error %.2e%s\n", "staticnet direct kernel", "", ms * 1000.0,
              error, wrong ? " WRONG" : "");
  const bool cudnn_faster = cudnn.fastest.ms >= 0 && (wrong || cudnn.fastest.ms < ms);
  const std::string winner = cudnn_faster ? "cuDNN " + cudnn.fastest.name
                             : wrong      ? "neither (staticnet's kernel is WRONG)"
                                          : "staticnet";
  std::printf("  faster within the plan: %s\n", winner.c_str());
  return {c.name,
          bench::name_of(d),
          repeats,
          ms * 1000.0,
          in_us(cudnn.first),
          in_us(cudnn.fastest),
          c.sample == bench::Sample::mobilenet_v1,
          wrong,
          cudnn_faster};
}

std::string cell(const bench::Engine& e) {
  if (e.ms < 0)
    return "none";
  char text[160];
  std::snprintf(text, sizeof text, "%.1f us (%s)", e.ms, e.name.c_str());
  return text;
}

void print_summary(const std::vector<Verdict>& verdicts) {
  std::printf(
      "\n| convolution | direction | layers | staticnet | cuDNN, first allowed (Convolution's "
      "rule) | cuDNN, fastest allowed | faster |\n|---|---|---|---|---|---|---|\n");
  double ours[2] = {0, 0}, best[2] = {0, 0};
  for (const Verdict& v : verdicts) {
    const char* faster = v.cudnn_faster ? "cuDNN" : v.staticnet_wrong ? "neither" : "staticnet";
    std::printf("| %s | %s | %d | %.1f us%s | %s | %s | %s |\n", v.name.c_str(),
                v.direction.c_str(), v.repeats, v.staticnet_us, v.staticnet_wrong ? " (WRONG)" : "",
                cell(v.first).c_str(), cell(v.fastest).c_str(), faster);
    ours[v.mobilenet] += v.repeats * v.staticnet_us;
    best[v.mobilenet] += v.repeats * (v.cudnn_faster ? v.fastest.ms : v.staticnet_us);
  }
  const char* names[2] = {"DS-CNN", "MobileNetV1"};
  for (int s = 0; s < 2; ++s)
    std::printf(
        "\n%s, these convolutions per step: staticnet %.1f us; the faster of the two each "
        "time %.1f us\n",
        names[s], ours[s], best[s]);
  std::printf(
      "\n(\"Allowed\": exact FP32, deterministic, within the plan's workspace. Where cuDNN is "
      "faster, using it needs staticnet's Convolution, codegen/kernels/src/cuda/convolution.cpp, "
      "to take grouped filters and pre- and post-padding first, and its first-allowed rule "
      "would pick the \"first allowed\" engine, not the fastest.)\n");
}

}  // namespace

int main() {
  const std::vector<int> layers =
      repeats_of(std::make_integer_sequence<int, bench::direct_conv_case_count>{});
  try {
    cudaStream_t stream;
    cuda::check(cudaStreamCreate(&stream), "cudaStreamCreate");
    cuda::Libraries libraries(stream);
    std::vector<Verdict> verdicts;
    for (int i = 0; i < bench::direct_conv_case_count; ++i) {
      const bench::ConvTensors tensors(direct_conv_cases[i].geometry);
      for (Direction d : {Direction::fprop, Direction::dgrad, Direction::wgrad})
        if (d != Direction::dgrad || direct_conv_cases[i].input_gradient)
          verdicts.push_back(compare(libraries.dnn(), stream, i, layers[i], tensors, d));
    }
    print_summary(verdicts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
