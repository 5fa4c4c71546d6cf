// What both backends' emitters (cpu/emitter.hpp, cuda/emitter.hpp) start from: the model, its
// fused groups for the target, the arena's names, and the accessors every section uses. The
// includes below are what the two backends' files share.
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

class BackendEmitter {
 protected:
  BackendEmitter(const ModelView& model, Target target)
      : m_(model),
        groups_(fuse(model, target)),
        a_(model),
        back_(as_backward_sees(model)),
        checkpointed_(model.recomputes_any()) {
    require_parameters(model);
  }

  const LayerPlan& layer(std::int64_t i) const { return m_.layers.at(static_cast<std::size_t>(i)); }
  std::string at(int buffer) { return a_.at(buffer); }
  std::string element(int buffer) const { return a_.element(buffer); }
  std::string parameter(std::int64_t element_offset, BufferRole region) {
    return a_.parameter(element_offset, region);
  }
  std::string note(int buffer) const { return a_.note(buffer); }
  std::string fused_activation(const FusedGroup& g) const {
    return codegen::fused_activation(m_, g);
  }
  void input_gradient_vars(Printer::Vars& v, const LayerPlan& l) {
    codegen::input_gradient_vars(v, l, a_);
  }
  void batch_norm_backward_vars(Printer::Vars& v, const FusedGroup& g) {
    codegen::batch_norm_backward_vars(v, m_, g, a_);
  }

  const ModelView& m_;
  std::vector<FusedGroup> groups_;
  ArenaText a_;  // buffer names, and the accessors the emitted code uses
  // The model as backward and the recompute steps see it (checkpointing): a group's backward and
  // its recompute are described from this, its forward from m_. Without checkpointing, m_'s copy.
  ModelView back_;
  const bool checkpointed_;  // some group is recomputed (m_.recomputes_any(), asked once)
};

}  // namespace staticnet::codegen
