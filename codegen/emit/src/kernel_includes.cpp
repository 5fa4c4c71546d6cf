#include "kernel_includes.hpp"

#include <cstddef>
#include <set>
#include <string_view>
#include <vector>

#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {
namespace {

struct HeaderNames {
  const char* header;
  const char* prefix;  // how generated code names the header's namespace
  std::vector<std::string_view> names;
};

const std::vector<HeaderNames>& headers() {
  static const std::vector<HeaderNames> table = {
      {"staticnet/kernels/host_device.hpp", "k::", {"index_t"}},
      {"staticnet/kernels/activations.hpp",
       "k::",
       {"Identity", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "activation_forward",
        "activation_backward", "saved_output"}},
      {"staticnet/kernels/batch_norm.hpp",
       "k::",
       {"BatchNormGeometry", "batch_norm_statistics", "batch_norm_statistics_block",
        "batch_norm_store_statistics", "batch_norm_forward", "batch_norm_forward_plane",
        "batch_norm_forward_row", "batch_norm_inference", "batch_norm_inference_plane",
        "batch_norm_inference_row", "batch_norm_backward_sums", "batch_norm_backward_sums_block",
        "batch_norm_backward_input", "batch_norm_backward_input_plane",
        "batch_norm_backward_input_row", "fold_batch_norm"}},
      {"staticnet/kernels/bias_activation.hpp",
       "k::",
       {"BiasAlong", "bias_activation_forward", "bias_activation_store", "activation_backward_2d",
        "bias_gradient_channel_block", "bias_gradient_channel_range", "bias_gradient_channels",
        "bias_gradient_feature_range", "bias_gradient_features"}},
      {"staticnet/kernels/dropout.hpp",
       "k::",
       {"DropoutGeometry", "MaskByte", "dropout_key", "dropout_forward", "dropout_backward",
        "dropout_backward_byte"}},
      {"staticnet/kernels/geometry.hpp", "k::", {"Conv2dGeometry", "Pool2dGeometry"}},
      {"staticnet/kernels/global_pool.hpp",
       "k::",
       {"global_avg_pool_forward", "global_avg_pool_backward"}},
      {"staticnet/kernels/grouped_conv.hpp",
       "k::",
       {"grouped_conv_forward", "grouped_conv_forward_plane", "grouped_conv_backward_input",
        "grouped_conv_backward_input_plane", "grouped_conv_backward_weight",
        "grouped_conv_backward_filter"}},
      {"staticnet/kernels/losses.hpp", "k::", {"softmax_cross_entropy", "mean_squared_error"}},
      {"staticnet/kernels/low_precision.hpp", "k::", {"BF16", "F16"}},
      {"staticnet/kernels/mixed_precision.hpp",
       "k::",
       {"round_parameter", "LossScaleState", "LossScaleSettings", "update_loss_scale"}},
      {"staticnet/cpu/loss_scaling.hpp", "c::", {"unscale_gradients"}},
      {"staticnet/kernels/optimizers.hpp",
       "k::",
       {"Optimizer", "OptimizerConstants", "OptimizerSettings", "optimizer_constants", "sgd_update",
        "sgd_momentum_update", "adam_update", "decayed_gradient"}},
      {"staticnet/kernels/pooling.hpp",
       "k::",
       {"WindowIndex8", "WindowIndex16", "WindowIndex32", "max_pool_forward", "max_pool_backward",
        "max_pool_tiled_forward", "avg_pool_forward", "avg_pool_backward", "avg_pool_tiled_forward",
        "bias_activation_max_pool_forward", "bias_activation_avg_pool_forward",
        "max_pool_activation_backward", "avg_pool_activation_backward"}},
      {"staticnet/kernels/residual_add.hpp",
       "k::",
       {"GradientWrite", "residual_add_forward", "residual_add_backward", "write_gradient"}},
      {"staticnet/cpu/thread_pool.hpp", "c::", {"ThreadPool"}},
      {"staticnet/cpu/launch.hpp",
       "c::",
       {"Range", "split", "zero", "for_each", "for_each_2d", "for_each_3d"}},
      {"staticnet/cpu/conv2d.hpp",
       "c::",
       {"conv2d_forward", "conv2d_backward_weights", "conv2d_backward_input",
        "conv2d_forward_widening", "conv2d_backward_weights_widening",
        "conv2d_backward_input_widening"}},
      {"staticnet/cpu/linear.hpp",
       "c::",
       {"LinearGeometry", "linear_forward", "linear_backward", "linear_forward_widening",
        "linear_backward_widening"}},
      {"staticnet/cuda/check.hpp", "g::", {"check", "check_launch", "blocks_for", "block_threads"}},
      {"staticnet/cuda/launch.hpp", "g::", {"for_each", "for_each_2d", "for_each_3d"}},
      {"staticnet/cuda/channel_sums.hpp",
       "g::",
       {"channel_threads", "per_block", "for_each_block"}},
      {"staticnet/cuda/libraries.hpp", "g::", {"Libraries", "Gradients"}},
      {"staticnet/cuda/convolution.hpp", "g::", {"Convolution", "ConvEpilogue"}},
      {"staticnet/cuda/linear.hpp", "g::", {"LinearProduct", "LinearEpilogue"}},
      {"staticnet/cuda/step.hpp", "g::", {"GeneratedStep"}},
      {"staticnet/cuda/inference.hpp", "g::", {"GeneratedInference"}},
  };
  return table;
}

}  // namespace

std::string used_includes(const std::string& text) {
  std::set<std::string> used;
  for (const HeaderNames& h : headers())
    for (std::string_view name : h.names)
      if (names_word(text, std::string(h.prefix) + std::string(name))) {
        used.insert(h.header);
        break;
      }
  std::string lines;
  for (const std::string& header : used)
    lines += "#include <" + header + ">\n";
  return lines;
}

std::string with_includes(const std::string& text) {
  static constexpr std::string_view marker = "// @staticnet-includes@\n";
  const std::size_t at = text.find(marker);
  if (at == std::string::npos)
    return text;
  std::string out = text;
  out.replace(at, marker.size(), used_includes(text));
  return out;
}

}  // namespace staticnet::codegen
