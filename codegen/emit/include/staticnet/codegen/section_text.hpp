#pragma once
// The pieces of a kernel file's sections that every backend writes the same way: the names of a
// fused group and its functions, its heading, the table of tensors it touches, the geometry
// literals' values and the C++ spellings of activations, optimizers and element types.
#include <string>

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

// The tensors a section touches, one comment line each: name, type and shape, place, what it
// holds. `workspace_use` says what the workspace holds in this backend ("" leaves it out).
std::string tensor_table(const ModelView& model, const FusedGroup& g,
                         const std::string& workspace_use);

// The shapes and window of a Conv2d or pool layer, as the Printer variables its geometry
// literal uses: n, ci, hi, wi (input), co, ho, wo (output), kh, kw, sh, sw, ph, pw (window).
Printer::Vars window_vars(const std::string& name, const LayerPlan& l);

}  // namespace staticnet::codegen
