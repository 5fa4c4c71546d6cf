#pragma once
// Names and descriptions every emitter uses, so that the model header, the kernels and the
// trainer call each buffer and layer the same thing.
#include <cstdint>
#include <string>

#include "staticnet/codegen/model_view.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {

// A C++ name for a buffer of the plan, unique within the model:
//   parameters, gradients, optimizer_moment1, optimizer_moment2, input, labels, targets,
//   workspace, loss, predictions, activation_<i> (written by layer i's forward),
//   window_index_<i>, loss_gradient (d of the model's output, written by the loss),
//   input_gradient_<i> (d of layer i's input, written by layer i's backward).
std::string buffer_name(const ModelView& model, int buffer);

// "Conv2d(3 → 16, 3×3, stride 2, pad 1)", "Linear(4096 → 10)", "MaxPool2d(2×2)", "ReLU".
std::string describe_layer(const LayerPlan& layer);

// "(128, 3, 32, 32)"
std::string shape_text(const Shape& shape);

// "f32", "u8", "i32": the element type of a buffer, as its bytes per element say.
std::string element_type(const ModelView& model, int buffer);

// PyTorch's state-dict names for the flattened model as an nn.Sequential: "<layer>.weight",
// "<layer>.bias".
// A residual model flattens to a list too (body, shortcut, Add), so a PyTorch port registers its
// modules under those indices. BatchNorm's γ and β are its "weight" and "bias", and its running
// statistics "<layer>.running_mean", "<layer>.running_var" (and "<layer>.num_batches_tracked").
std::string weight_name(std::int64_t layer);
std::string bias_name(std::int64_t layer);

// A layer's weight tensor as PyTorch shapes it: Linear (Out, In); Conv2d and DepthwiseConv2d
// (Out, In / groups, KH, KW); BatchNorm (C,).
Shape weight_shape(const LayerPlan& layer);
// Whether the layer has a bias tensor (BatchNorm: β, always).
bool has_bias(const LayerPlan& layer);
// The inputs each output sums (PyTorch's default initialisation bound 1/√fan_in); 1 for
// BatchNorm, whose γ starts at 1 and β at 0.
std::int64_t fan_in(const LayerPlan& layer);

}  // namespace staticnet::codegen
