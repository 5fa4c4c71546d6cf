#pragma once
// The pieces of a kernel file's sections that every backend writes the same way: the names of a
// fused group and its functions, its heading, the table of tensors it touches, the geometry
// literals' values and the C++ spellings of activations, optimizers and element types.
#include <string>

#include "staticnet/codegen/arena_text.hpp"
#include "staticnet/codegen/fusion.hpp"
#include "staticnet/codegen/model_view.hpp"
#include "staticnet/codegen/printer.hpp"

namespace staticnet::codegen {

// "k::ReLU", "k::Tanh" (the shared bodies' activation types)
const char* activation_type(LayerKind kind);
// "staticnet::kernels::Optimizer::adam"
const char* optimizer_enum(OptimizerKind kind);

// The C++ element type of a buffer and the accessor the emitted file defines for it.
struct ElementAccess {
  const char* type;      // "float", "k::WindowIndex8"
  const char* accessor;  // "f32", "u8"
};
ElementAccess access_for(const std::string& element);

// "layers_0_2" or "layer_4": the suffix of a group's functions.
std::string group_name(const FusedGroup& g);
// "Conv2d(3 → 16, 3×3, pad 1) + ReLU + MaxPool2d(2×2)"
std::string group_title(const ModelView& model, const FusedGroup& g);
// "// ==== Layers 0-2: <title> =====...", padded to the line width.
std::string section_rule(const ModelView& model, const FusedGroup& g);
// `text` ("// ==== Loss: ... ") padded with '=' to the line width.
std::string heading_rule(std::string text);
// The headings of the loss's section and the update's, ruled as heading_rule() does.
std::string loss_heading(const ModelView& model);
std::string update_heading(const ModelView& model);

// The tensors a section touches, one comment line each: name, type and shape, place, what it
// holds. `workspace_use` says what the workspace holds in this backend ("" leaves it out).
std::string tensor_table(const ModelView& model, const FusedGroup& g,
                         const std::string& workspace_use);

// The shapes and window of a Conv2d or pool layer, as the Printer variables its geometry
// literal uses: n, ci, hi, wi (input), co, ho, wo (output), kh, kw, sh, sw, ph, pw (window).
Printer::Vars window_vars(const std::string& name, const LayerPlan& l);

// The geometry literals of a directly computed convolution ("conv_<layer>": grouped, depthwise,
// or on CUDA a dense one cuDNN cannot take as planned), of a pool ("pool_<layer>") and of a
// BatchNorm ("norm_<layer>").
// A Flatten's section comment: a view that runs no code, or, where its input has another reader
// (view_writes_gradient), one whose backward copies or adds its gradient; and how it writes it
// ("k::GradientWrite::copy" or "...accumulate", staticnet/kernels/residual_add.hpp).
std::string view_comment(const ModelView& model, const FusedGroup& g);
std::string gradient_write(const LayerPlan& l);

void emit_direct_conv_geometry(Printer& out, const LayerPlan& l, std::int64_t layer);
void emit_pool_geometry(Printer& out, const LayerPlan& l, std::int64_t layer);
void emit_norm_geometry(Printer& out, const LayerPlan& l, std::int64_t layer);

// The activation fused into the group's pass, as its kernel type ("k::ReLU"), or "k::Identity".
std::string fused_activation(const ModelView& model, const FusedGroup& g);

// $dx$, $dx_note$ and $accumulate$ ("true" or "false") for layer l's input gradient, added to v.
void input_gradient_vars(Printer::Vars& v, const LayerPlan& l, ArenaText& arena);

// The Printer variables of group g's BatchNorm backward that both backends write the same way:
// $dy$ and $dy_note$ (d(output), or d(activation output) where one is fused, which the pass turns
// into d(BatchNorm output) in place), $dgamma$, $dbeta$ and their notes, added to v.
void batch_norm_backward_vars(Printer::Vars& v, const ModelView& model, const FusedGroup& g,
                              ArenaText& arena);

// The Printer variables of a residual sum's backward, where d(output) is buffer `dy`: $first$ and
// $second$ (how each input's gradient is written: "k::GradientWrite::same_buffer" where the plan
// passes dy itself through or no gradient is needed, else copy or accumulate), $da$ and $db$
// (their pointers, "nullptr" for same_buffer) and $da_note$ and $db_note$.
Printer::Vars sum_gradient_vars(const LayerPlan& sum, int dy, ArenaText& arena);

// The bias a product or direct convolution adds in its forward pass: its own, or under Inference
// the shift of the BatchNorm folded into it, which fold_batch_norms writes over that BatchNorm's
// β (the layer's own bias is folded into the shift). `pointer` is "nullptr" without one.
struct ForwardBias {
  bool present = false;
  std::string pointer = "nullptr";
  std::string note = "// no bias";  // the comment beside the pointer
  std::string weight_note;  // added to the weights' comment: " (BatchNorm 5's scale folded in)"
};
ForwardBias forward_bias(const ModelView& model, const FusedGroup& g, std::int64_t layer,
                         ArenaText& arena);

// Under Inference, the fold of group g's BatchNorm into its product or grouped convolution, as
// both backends' fold code names it: span, conv, kind, norm; the pointers w, b, gamma, beta,
// running and their notes; channels (output channels) and per_channel (weights per channel).
Printer::Vars fold_vars(const ModelView& model, const FusedGroup& g, ArenaText& arena);
// Under Inference, the line of the forward pass that runs group g: "forward_<name>(<arguments>);",
// or a comment for a group without code (a Flatten view, a Dropout in place).
std::string inference_forward_line(const ModelView& model, const FusedGroup& g,
                                   const std::string& arguments);

// What a BatchNorm, residual sum, direct convolution or Dropout group does, as a comment for
// its section ("" for other groups: their emitters say it, in their backend's terms).
std::string group_comment(const ModelView& model, const FusedGroup& g);

}  // namespace staticnet::codegen
