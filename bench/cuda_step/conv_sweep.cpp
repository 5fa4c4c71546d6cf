#include "conv_sweep.hpp"

#include <cudnn_frontend.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <unordered_map>

// The CUDA backend's private header: the engines a trainer may pick are the ones called allowed.
#include "codegen/kernels/src/cuda/engine_policy.hpp"

namespace bench {
namespace {

namespace fe = cudnn_frontend;
namespace cuda = staticnet::cuda;
using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

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

// The three tensors of direction d's graph: its two inputs, then its output.
std::vector<TensorPtr> make(fe::graph::Graph& graph, const Conv2dGeometry& g, Direction d) {
  graph.set_io_data_type(fe::DataType_t::FLOAT)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const std::vector<std::int64_t> pre{g.pad_h, g.pad_w}, post{post_padding_h(g), post_padding_w(g)},
      stride{g.stride_h, g.stride_w}, dilation{1, 1};
  auto x = nchw("x", g.batch, g.in_channels, g.in_height, g.in_width),
       w = nchw("w", g.out_channels, g.group_inputs(), g.kernel_h, g.kernel_w),
       y = nchw("y", g.batch, g.out_channels, g.out_height, g.out_width);
  TensorPtr a, b, out;
  if (d == Direction::fprop) {
    a = graph.tensor(x), b = graph.tensor(w);
    out = graph.conv_fprop(a, b,
                           fe::graph::Conv_fprop_attributes()
                               .set_pre_padding(pre)
                               .set_post_padding(post)
                               .set_stride(stride)
                               .set_dilation(dilation));
    out->set_dim(y.get_dim()).set_stride(y.get_stride());
  } else if (d == Direction::wgrad) {
    a = graph.tensor(y), b = graph.tensor(x);
    out = graph.conv_wgrad(a, b,
                           fe::graph::Conv_wgrad_attributes()
                               .set_pre_padding(pre)
                               .set_post_padding(post)
                               .set_stride(stride)
                               .set_dilation(dilation));
    out->set_dim(w.get_dim()).set_stride(w.get_stride());
  } else {
    a = graph.tensor(y), b = graph.tensor(w);
    out = graph.conv_dgrad(a, b,
                           fe::graph::Conv_dgrad_attributes()
                               .set_pre_padding(pre)
                               .set_post_padding(post)
                               .set_stride(stride)
                               .set_dilation(dilation));
    out->set_dim(x.get_dim()).set_stride(x.get_stride());
  }
  out->set_output(true).set_data_type(fe::DataType_t::FLOAT);
  return {a, b, out};
}

// Validates the graph and lists its engines in the heuristic's order (A, then the fallbacks).
void list_engines(fe::graph::Graph& graph, cudnnHandle_t handle) {
  require(graph.validate(), "validate");
  require(graph.build_operation_graph(handle), "build_operation_graph");
  require(graph.create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}), "plans");
}

float* random_device(std::int64_t count, std::uint32_t seed) {
  std::vector<float> host(static_cast<std::size_t>(count));
  std::uint32_t state = seed;
  for (float& v : host) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
  }
  float* p = nullptr;
  cuda::check(cudaMalloc(&p, host.size() * sizeof(float)), "cudaMalloc");
  cuda::check(cudaMemcpy(p, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice),
              "cudaMemcpy");
  return p;
}

float* zeros_device(std::int64_t count) {
  float* p = nullptr;
  cuda::check(cudaMalloc(&p, count * sizeof(float)), "cudaMalloc");
  cuda::check(cudaMemset(p, 0, count * sizeof(float)), "cudaMemset");
  return p;
}

std::vector<float> host_copy(const float* device, std::int64_t count) {
  std::vector<float> host(static_cast<std::size_t>(count));
  cuda::check(cudaMemcpy(host.data(), device, host.size() * sizeof(float), cudaMemcpyDeviceToHost),
              "cudaMemcpy");
  return host;
}

}  // namespace

const char* name_of(Direction d) {
  return d == Direction::fprop ? "fprop" : d == Direction::wgrad ? "wgrad" : "dgrad";
}

std::int64_t post_padding_h(const Conv2dGeometry& g) {
  return std::max<std::int64_t>(
      0, (g.out_height - 1) * g.stride_h + g.kernel_h - g.in_height - g.pad_h);
}

std::int64_t post_padding_w(const Conv2dGeometry& g) {
  return std::max<std::int64_t>(0,
                                (g.out_width - 1) * g.stride_w + g.kernel_w - g.in_width - g.pad_w);
}

ConvTensors::ConvTensors(const Conv2dGeometry& g) : g_(g) {
  x_ = random_device(g.input_elements(), 12345);
  w_ = random_device(g.weight_elements(), 23456);
  dy_ = random_device(g.output_elements(), 34567);
  y_ = zeros_device(g.output_elements());
  dw_ = zeros_device(g.weight_elements());
  dx_ = zeros_device(g.input_elements());
}

ConvTensors::~ConvTensors() {
  for (float* p : {x_, w_, dy_, y_, dw_, dx_})
    cudaFree(p);
}

float* ConvTensors::output(Direction d) const {
  return d == Direction::fprop ? y_ : d == Direction::wgrad ? dw_ : dx_;
}

std::int64_t output_elements(const Conv2dGeometry& g, Direction d) {
  return d == Direction::fprop   ? g.output_elements()
         : d == Direction::wgrad ? g.weight_elements()
                                 : g.input_elements();
}

std::vector<double> reference(const ConvTensors& t, Direction d) {
  const Conv2dGeometry& g = t.geometry();
  return reference(g, d, host_copy(t.x(), g.input_elements()),
                   host_copy(t.w(), g.weight_elements()), host_copy(t.dy(), g.output_elements()));
}

std::vector<double> reference(const Conv2dGeometry& g, Direction d, const std::vector<float>& x,
                              const std::vector<float>& w, const std::vector<float>& dy) {
  std::vector<double> out(static_cast<std::size_t>(output_elements(g, d)), 0.0);
  // Every (output element, tap) pair once: y += x·w, dx += dy·w, dw += dy·x at its indices.
  for (std::int64_t n = 0; n < g.batch; ++n)
    for (std::int64_t co = 0; co < g.out_channels; ++co)
      for (std::int64_t ci = 0; ci < g.group_inputs(); ++ci) {
        const std::int64_t c = co / g.group_outputs() * g.group_inputs() + ci;
        for (std::int64_t kh = 0; kh < g.kernel_h; ++kh)
          for (std::int64_t kw = 0; kw < g.kernel_w; ++kw) {
            const std::int64_t wi =
                ((co * g.group_inputs() + ci) * g.kernel_h + kh) * g.kernel_w + kw;
            for (std::int64_t oh = 0; oh < g.out_height; ++oh)
              for (std::int64_t ow = 0; ow < g.out_width; ++ow) {
                const std::int64_t ih = oh * g.stride_h - g.pad_h + kh,
                                   iw = ow * g.stride_w - g.pad_w + kw;
                if (ih < 0 || ih >= g.in_height || iw < 0 || iw >= g.in_width)
                  continue;
                const std::int64_t xi = ((n * g.in_channels + c) * g.in_height + ih) * g.in_width +
                                        iw,
                                   yi = ((n * g.out_channels + co) * g.out_height + oh) *
                                            g.out_width +
                                        ow;
                if (d == Direction::fprop)
                  out[yi] += double(x[xi]) * w[wi];
                else if (d == Direction::wgrad)
                  out[wi] += double(dy[yi]) * x[xi];
                else
                  out[xi] += double(dy[yi]) * w[wi];
              }
          }
      }
  return out;
}

double relative_error(const float* out, const std::vector<double>& reference) {
  const std::vector<float> host = host_copy(out, static_cast<std::int64_t>(reference.size()));
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (!std::isfinite(host[i]))  // unwritten (NaN-filled) or overflowed: no error to speak of
      return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::abs(double(host[i]) - reference[i]));
    scale = std::max(scale, std::abs(reference[i]));
  }
  return diff / scale;
}

Allowed sweep_cudnn(cudnnHandle_t handle, cudaStream_t stream, const ConvTensors& t, Direction d,
                    std::int64_t plan_workspace, const std::vector<double>& expected) {
  const Conv2dGeometry& g = t.geometry();
  std::printf(
      "%s: N=%lld %lld→%lld groups %lld, %lldx%lld stride %lldx%lld on %lldx%lld, pad %lld/%lld "
      "%lld/%lld (plan workspace %lld B)\n",
      name_of(d), (long long)g.batch, (long long)g.in_channels, (long long)g.out_channels,
      (long long)g.groups, (long long)g.kernel_h, (long long)g.kernel_w, (long long)g.stride_h,
      (long long)g.stride_w, (long long)g.in_height, (long long)g.in_width, (long long)g.pad_h,
      (long long)post_padding_h(g), (long long)g.pad_w, (long long)post_padding_w(g),
      (long long)plan_workspace);
  fe::graph::Graph all, exact;
  std::vector<TensorPtr> tensors, exact_tensors;
  try {
    tensors = make(all, g, d);
    list_engines(all, handle);
    exact_tensors = make(exact, g, d);
    list_engines(exact, handle);
  } catch (const cuda::Error& e) {
    std::printf("  cuDNN offers no engine: %s\n", e.what());
    return {};
  }
  exact.deselect_numeric_notes(cuda::excluded_numerical_notes());
  (void)exact.check_support(handle);
  (void)exact.build_plans(fe::BuildPlanPolicy_t::ALL);
  (void)all.check_support(handle);
  (void)all.build_plans(fe::BuildPlanPolicy_t::ALL);

  const float* inputs[3][2] = {{t.x(), t.w()}, {t.dy(), t.x()}, {t.dy(), t.w()}};
  const auto* in = inputs[static_cast<int>(d)];
  std::unordered_map<TensorPtr, void*> bind{{tensors[0], const_cast<float*>(in[0])},
                                            {tensors[1], const_cast<float*>(in[1])},
                                            {tensors[2], t.output(d)}},
      exact_bind{{exact_tensors[0], const_cast<float*>(in[0])},
                 {exact_tensors[1], const_cast<float*>(in[1])},
                 {exact_tensors[2], t.output(d)}};
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  const std::size_t output_bytes = static_cast<std::size_t>(t.output_elements(d)) * sizeof(float);
  Allowed allowed;
  for (std::int64_t i = 0; i < all.get_execution_plan_count(); ++i) {
    std::string name;
    std::int64_t ws = 0;
    if (all.get_plan_name_at_index(i, name).is_bad() ||
        all.get_workspace_size_plan_at_index(i, ws).is_bad())
      continue;
    if (static_cast<std::size_t>(ws) > workspace_size) {
      cudaFree(workspace);
      workspace = nullptr, workspace_size = 0;
      if (cudaMalloc(&workspace, ws) != cudaSuccess) {
        (void)cudaGetLastError();
        std::printf("  %-40s workspace %10lld B  cannot be allocated\n", name.c_str(),
                    (long long)ws);
        continue;
      }
      workspace_size = ws;
    }
    // One run from NaNs, for the error: an engine that leaves outputs unwritten shows them.
    cuda::check(cudaMemsetAsync(t.output(d), 0xFF, output_bytes, stream), "cudaMemsetAsync");
    const bool ran = all.execute_plan_at_index(handle, bind, workspace, i).is_good();
    cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (!ran) {
      std::printf("  %-40s execute failed\n", name.c_str());
      continue;
    }
    const double error = expected.empty() ? -1 : relative_error(t.output(d), expected);
    const double ms = median_ms(
        stream, [&] { return all.execute_plan_at_index(handle, bind, workspace, i).is_good(); });
    // Deselected engines were not built in `exact`: executing one there fails. Both graphs list
    // the same heuristic's engines in the same order; the name guards that.
    std::string exact_name;
    const bool is_exact = exact.get_plan_name_at_index(i, exact_name).is_good() &&
                          exact_name == name &&
                          exact.execute_plan_at_index(handle, exact_bind, workspace, i).is_good();
    cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const bool within = ws <= plan_workspace;
    std::printf("  %-40s workspace %10lld B  %-9s %-15s %8.1f us", name.c_str(), (long long)ws,
                is_exact ? "allowed" : "excluded", within ? "within plan" : "over plan",
                ms * 1000.0);
    const bool wrong = error > wrong_above;  // -1 where there is no reference
    if (error >= 0)
      std::printf("  error %.2e%s", error, wrong ? " WRONG" : "");
    std::printf("\n");
    if (is_exact && within && !wrong && ms >= 0) {
      if (allowed.first.ms < 0)
        allowed.first = {name, ms};
      if (allowed.fastest.ms < 0 || ms < allowed.fastest.ms)
        allowed.fastest = {name, ms};
    }
  }
  cudaFree(workspace);
  return allowed;
}

}  // namespace bench
