#include "staticnet/cuda/convolution.hpp"

#include <cudnn_frontend.h>

#include <optional>
#include <unordered_map>
#include <vector>

#include "engine_policy.hpp"
#include "library_checks.hpp"
#include "staticnet/cuda/reductions.hpp"

namespace staticnet::cuda {

namespace fe = cudnn_frontend;
using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

namespace {

// A packed NCHW (or KCRS) tensor's dims and strides.
fe::graph::Tensor_attributes nchw(const char* name, std::int64_t n, std::int64_t c, std::int64_t h,
                                  std::int64_t w, int alignment) {
  return fe::graph::Tensor_attributes()
      .set_name(name)
      .set_alignment(alignment)
      .set_dim({n, c, h, w})
      .set_stride({c * h * w, h * w, w, 1})
      .set_data_type(fe::DataType_t::FLOAT);
}

void require(fe::error_t status, const std::string& what) {
  if (status.is_bad())
    throw Error("cuDNN " + what + ": " + status.get_message());
}

// One cuDNN graph with the engine chosen for it, and the tensors its execute() binds.
struct Built {
  std::unique_ptr<fe::graph::Graph> graph;
  std::string engine;
  std::int64_t workspace = 0;
};

fe::graph::Graph* new_graph(std::unique_ptr<fe::graph::Graph>& holder) {
  holder = std::make_unique<fe::graph::Graph>();
  holder->set_io_data_type(fe::DataType_t::FLOAT)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  return holder.get();
}

// Validates the graph and builds the first engine, in cuDNN's heuristic order, that is exact FP32,
// deterministic (engine_policy.hpp) and within the workspace. Returns "" or why none is.
std::string build(fe::graph::Graph& graph, cudnnHandle_t handle, std::int64_t workspace_limit,
                  Built& out) {
  auto failed = [](fe::error_t s) { return s.is_bad() ? s.get_message() : std::string(); };
  if (auto e = failed(graph.validate()); !e.empty())
    return "validate: " + e;
  if (auto e = failed(graph.build_operation_graph(handle)); !e.empty())
    return "build_operation_graph: " + e;
  if (auto e = failed(graph.create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}));
      !e.empty())
    return "create_execution_plans: " + e;
  graph.deselect_numeric_notes(excluded_numerical_notes());
  graph.deselect_workspace_greater_than(workspace_limit);
  if (auto e = failed(graph.check_support(handle)); !e.empty())
    return "check_support: " + e;
  if (auto e = failed(graph.build_plans(fe::BuildPlanPolicy_t::HEURISTICS_CHOICE)); !e.empty())
    return "build_plans: " + e;
  std::int64_t workspace = 0;
  require(graph.get_workspace_size(workspace), "get_workspace_size");
  if (workspace > workspace_limit)
    return "the chosen engine needs " + std::to_string(workspace) + " bytes of workspace";
  out.workspace = workspace;
  std::string name;
  if (graph.get_plan_name(name).is_good())
    out.engine = name;
  return "";
}

}  // namespace

struct Convolution::Graphs {
  kernels::Conv2dGeometry g;
  int alignment = 16;
  ConvEpilogue asked = ConvEpilogue::none;
  bool fused = false;
  std::string fusion_refused;  // why cuDNN could not fuse the epilogue, when it could not

  Built forward, wgrad, dgrad;
  TensorPtr fx, fw, fb, fz;  // forward's x, W, bias, z
  TensorPtr wx, wdz, wdw;    // wgrad's x, dz, dW
  TensorPtr ddz, dw, ddx;    // dgrad's dz, W, dx
  bool has_wgrad = false;
  bool has_dgrad = false;
  std::optional<ConvWeightGradient> direct_wgrad;  // our pass instead of cuDNN's wgrad

  fe::graph::Conv_fprop_attributes fprop_options() const {
    return fe::graph::Conv_fprop_attributes()
        .set_padding({g.pad_h, g.pad_w})
        .set_stride({g.stride_h, g.stride_w})
        .set_dilation({1, 1});
  }

  // The forward graph, with the epilogue or without.
  std::string make_forward(cudnnHandle_t handle, std::int64_t limit, bool with_epilogue) {
    fe::graph::Graph& graph = *new_graph(forward.graph);
    fx = graph.tensor(nchw("x", g.batch, g.in_channels, g.in_height, g.in_width, alignment));
    fw = graph.tensor(nchw("w", g.out_channels, g.in_channels, g.kernel_h, g.kernel_w, alignment));
    TensorPtr y = graph.conv_fprop(fx, fw, fprop_options().set_name("conv"));
    fb = nullptr;
    if (with_epilogue) {
      y->set_data_type(fe::DataType_t::FLOAT);
      fb = graph.tensor(fe::graph::Tensor_attributes()
                            .set_name("bias")
                            .set_alignment(alignment)
                            .set_dim({1, g.out_channels, 1, 1})
                            .set_stride({g.out_channels, 1, 1, 1})
                            .set_data_type(fe::DataType_t::FLOAT));
      y = graph.pointwise(
          y, fb,
          fe::graph::Pointwise_attributes().set_name("bias").set_mode(fe::PointwiseMode_t::ADD));
      if (asked == ConvEpilogue::bias_relu) {
        y->set_data_type(fe::DataType_t::FLOAT);
        y = graph.pointwise(y, fe::graph::Pointwise_attributes().set_name("relu").set_mode(
                                   fe::PointwiseMode_t::RELU_FWD));
      }
    }
    y->set_output(true)
        .set_alignment(alignment)
        .set_dim({g.batch, g.out_channels, g.out_height, g.out_width})
        .set_stride({g.out_channels * g.out_height * g.out_width, g.out_height * g.out_width,
                     g.out_width, 1})
        .set_data_type(fe::DataType_t::FLOAT);
    fz = y;
    return build(graph, handle, limit, forward);
  }

  void make_wgrad(cudnnHandle_t handle, std::int64_t limit) {
    fe::graph::Graph& graph = *new_graph(wgrad.graph);
    wdz = graph.tensor(nchw("dz", g.batch, g.out_channels, g.out_height, g.out_width, alignment));
    wx = graph.tensor(nchw("x", g.batch, g.in_channels, g.in_height, g.in_width, alignment));
    wdw = graph.conv_wgrad(wdz, wx,
                           fe::graph::Conv_wgrad_attributes()
                               .set_name("wgrad")
                               .set_padding({g.pad_h, g.pad_w})
                               .set_stride({g.stride_h, g.stride_w})
                               .set_dilation({1, 1}));
    wdw->set_output(true)
        .set_alignment(alignment)
        .set_dim({g.out_channels, g.in_channels, g.kernel_h, g.kernel_w})
        .set_stride(
            {g.in_channels * g.kernel_h * g.kernel_w, g.kernel_h * g.kernel_w, g.kernel_w, 1})
        .set_data_type(fe::DataType_t::FLOAT);
    if (auto why = build(graph, handle, limit, wgrad); !why.empty())
      throw Error("cuDNN has no engine for the weight gradient of a " + describe_shape() +
                  " convolution: " + why);
  }

  void make_dgrad(cudnnHandle_t handle, std::int64_t limit) {
    fe::graph::Graph& graph = *new_graph(dgrad.graph);
    ddz = graph.tensor(nchw("dz", g.batch, g.out_channels, g.out_height, g.out_width, alignment));
    dw = graph.tensor(nchw("w", g.out_channels, g.in_channels, g.kernel_h, g.kernel_w, alignment));
    ddx = graph.conv_dgrad(ddz, dw,
                           fe::graph::Conv_dgrad_attributes()
                               .set_name("dgrad")
                               .set_padding({g.pad_h, g.pad_w})
                               .set_stride({g.stride_h, g.stride_w})
                               .set_dilation({1, 1}));
    ddx->set_output(true)
        .set_alignment(alignment)
        .set_dim({g.batch, g.in_channels, g.in_height, g.in_width})
        .set_stride(
            {g.in_channels * g.in_height * g.in_width, g.in_height * g.in_width, g.in_width, 1})
        .set_data_type(fe::DataType_t::FLOAT);
    if (auto why = build(graph, handle, limit, dgrad); !why.empty())
      throw Error("cuDNN has no engine for the input gradient of a " + describe_shape() +
                  " convolution: " + why);
    has_dgrad = true;
  }

  std::string describe_shape() const {
    return std::to_string(g.in_channels) + "→" + std::to_string(g.out_channels) + " " +
           std::to_string(g.kernel_h) + "×" + std::to_string(g.kernel_w) + " on " +
           std::to_string(g.in_height) + "×" + std::to_string(g.in_width);
  }
};

Convolution::Convolution(const Libraries& libraries, const kernels::Conv2dGeometry& geometry,
                         ConvEpilogue forward, Gradients gradients, std::int64_t workspace_limit,
                         int alignment, bool adds_gradients)
    : libraries_(libraries), graphs_(std::make_unique<Graphs>()) {
  // The generator sends grouped and depthwise convolutions to its direct kernels; the graphs
  // below describe a dense weight, which a grouped one's packed weight would be read past.
  if (geometry.groups != 1)
    throw Error("Convolution: a convolution with " + std::to_string(geometry.groups) +
                " groups; cuDNN is used here for dense ones only");
  Graphs& s = *graphs_;
  s.g = geometry;
  s.alignment = alignment;
  s.asked = forward;
  const cudnnHandle_t handle = libraries.dnn();
  if (forward != ConvEpilogue::none) {
    s.fusion_refused = s.make_forward(handle, workspace_limit, true);
    s.fused = s.fusion_refused.empty();
  }
  if (!s.fused) {
    if (auto why = s.make_forward(handle, workspace_limit, false); !why.empty())
      throw Error("cuDNN has no engine for a " + s.describe_shape() + " convolution: " + why);
  }
  if (forward == ConvEpilogue::none)
    s.fused = true;  // nothing was asked for
  if (gradients == Gradients::none)
    return;
  if (ConvWeightGradient direct(geometry, workspace_limit);
      direct.preferred() || (adds_gradients && direct.usable()))
    s.direct_wgrad = direct;
  else if (adds_gradients)
    throw Error("a " + s.describe_shape() +
                " convolution under gradient accumulation: staticnet's weight-gradient pass, "
                "which adds to the gradients, takes tensors of under 2^31 elements, and cuDNN's "
                "overwrites them");
  else
    s.make_wgrad(handle, workspace_limit);
  s.has_wgrad = true;
  if (gradients == Gradients::weights_and_input)
    s.make_dgrad(handle, workspace_limit);
}

Convolution::~Convolution() = default;

bool Convolution::forward_fused() const {
  return graphs_->fused;
}

void Convolution::forward(const float* x, const float* w, const float* b, float* z,
                          void* workspace) const {
  Graphs& s = *graphs_;
  std::unordered_map<TensorPtr, void*> bind{
      {s.fx, const_cast<float*>(x)}, {s.fw, const_cast<float*>(w)}, {s.fz, z}};
  if (s.fb)
    bind[s.fb] = const_cast<float*>(b);
  require(s.forward.graph->execute(libraries_.dnn(), bind, workspace), "convolution forward");
}

void Convolution::backward_weights(const float* x, const float* dz, float* dw, float* db,
                                   void* workspace) const {
  Graphs& s = *graphs_;
  if (!s.has_wgrad)
    throw Error("Convolution::backward_weights: set up without gradients");
  if (s.direct_wgrad) {
    s.direct_wgrad->run(x, dz, dw, db, workspace, libraries_.stream());
    return;
  }
  std::unordered_map<TensorPtr, void*> bind{
      {s.wx, const_cast<float*>(x)}, {s.wdz, const_cast<float*>(dz)}, {s.wdw, dw}};
  require(s.wgrad.graph->execute(libraries_.dnn(), bind, workspace), "convolution wgrad");
  if (db)
    bias_gradient_channels(dz, db, s.g.batch, s.g.out_channels, s.g.positions(),
                           libraries_.stream());
}

void Convolution::backward_input(const float* dz, const float* w, float* dx,
                                 void* workspace) const {
  Graphs& s = *graphs_;
  if (!s.has_dgrad)
    throw Error("Convolution::backward_input: set up without an input gradient");
  std::unordered_map<TensorPtr, void*> bind{
      {s.ddz, const_cast<float*>(dz)}, {s.dw, const_cast<float*>(w)}, {s.ddx, dx}};
  require(s.dgrad.graph->execute(libraries_.dnn(), bind, workspace), "convolution dgrad");
}

std::string Convolution::describe() const {
  const Graphs& s = *graphs_;
  auto engine = [](const Built& b) {
    return (b.engine.empty() ? std::string("?") : b.engine) + ", workspace " +
           std::to_string(b.workspace) + " B";
  };
  std::string text = s.describe_shape() + ": forward ";
  if (s.asked == ConvEpilogue::none)
    text += "conv";
  else if (s.fused)
    text += s.asked == ConvEpilogue::bias_relu ? "conv+bias+ReLU fused" : "conv+bias fused";
  else
    text += "conv (cuDNN could not fuse the epilogue: " + s.fusion_refused + "; a kernel adds it)";
  text += " (" + engine(s.forward) + ")";
  if (!s.has_wgrad)
    return text + "; no backward";
  text += "; ";
  if (s.direct_wgrad)
    text += "wgrad + bias gradient (staticnet's pass, " + std::to_string(s.direct_wgrad->chunks()) +
            " chunks)";
  else
    text += "wgrad (" + engine(s.wgrad) + "), bias gradient (staticnet's reduction)";
  if (s.has_dgrad)
    text += "; dgrad (" + engine(s.dgrad) + ")";
  return text;
}

}  // namespace staticnet::cuda
