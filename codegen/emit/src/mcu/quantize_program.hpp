#pragma once
// The mcu backend's host program: NAME_quantize.cpp (quantize_program.cpp says what it renders).
#include <vector>

#include "staticnet/codegen/emitters.hpp"
#include "staticnet/codegen/fusion.hpp"

namespace staticnet::codegen {

EmittedFile emit_quantize_program(const ModelView& model, const std::vector<FusedGroup>& groups);

}  // namespace staticnet::codegen
