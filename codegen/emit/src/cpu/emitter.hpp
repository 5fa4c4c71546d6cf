// The CPU backend's emitter, one class whose members are defined across this folder: backend.cpp
// writes the files and each group's section heading, a file per layer family writes that
// family's passes, step.cpp the loss, the update and the entry points. The includes below are
// what those files share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "staticnet/codegen/arena_text.hpp"
#include "staticnet/codegen/emitters.hpp"
#include "staticnet/codegen/fusion.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/printer.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"
#include "staticnet/print.hpp"

namespace staticnet::codegen {

class CpuKernelEmitter {
 public:
  explicit CpuKernelEmitter(const ModelView& model)
      : m_(model), groups_(fuse(model, Target::cpu)), a_(model) {
    require_parameters(model);
  }

  EmittedFile header() const;
  EmittedFile source();

 private:
  const LayerPlan& layer(std::int64_t i) const { return m_.layers.at(static_cast<std::size_t>(i)); }
  std::string at(int buffer) { return a_.at(buffer); }
  std::string element(int buffer) const { return a_.element(buffer); }
  std::string parameter(std::int64_t element_offset, BufferRole region) {
    return a_.parameter(element_offset, region);
  }
  std::string note(int buffer) const { return a_.note(buffer); }

  void emit_section(const FusedGroup& g);
  void emit_geometry(const FusedGroup& g);
  void emit_product_forward(const FusedGroup& g);
  void emit_product_backward(const FusedGroup& g);
  void emit_activation(const FusedGroup& g);
  void emit_pool(const FusedGroup& g);
  void emit_norm(const FusedGroup& g);
  void emit_sum(const FusedGroup& g);
  void emit_grouped(const FusedGroup& g);
  void emit_global_pool(const FusedGroup& g);
  void emit_dropout(const FusedGroup& g);
  std::string fused_activation(const FusedGroup& g) const {
    return codegen::fused_activation(m_, g);
  }
  void input_gradient_vars(Printer::Vars& v, const LayerPlan& l) {
    codegen::input_gradient_vars(v, l, a_);
  }
  void emit_loss();
  void emit_update();
  void emit_entry_points();
  void emit_inference_entry_points();
  std::string fold_call(const FusedGroup& g);
  EmittedFile inference_header() const;

  const ModelView& m_;
  std::vector<FusedGroup> groups_;
  ArenaText a_;   // buffer names, and the accessors the body uses
  Printer body_;  // everything after the helpers
};

}  // namespace staticnet::codegen
