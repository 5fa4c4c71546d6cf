// The CPU backend's emitter, one class whose members are defined across this folder: backend.cpp
// writes the files and each group's section heading, passes.cpp renders what ../families/
// describes once for every backend (the layer families, the loss, the update, the folds) as loops
// over the thread pool, products.cpp renders a product's description around staticnet/cpu/'s
// GEMMs, step.cpp the entry points. The model, its groups, the arena's names and their accessors
// come from BackendEmitter, shared with the other backend.
#pragma once

#include "../backend_emitter.hpp"
#include "../families/pass_description.hpp"

namespace staticnet::codegen {

// The statements of a direction: its passes in their host form, over its tensors (declared first
// where `declare`, else the parameters of the function around it). A direction that differs
// between training and evaluation (a Dropout, a BatchNorm) reads the forward pass's flags from
// `pass`, and the update its scalars from `constants`, both parameters of the function around it
// (passes.cpp).
std::string host_statements(const Direction& d, bool declare);

class CpuKernelEmitter : BackendEmitter {
 public:
  explicit CpuKernelEmitter(const ModelView& model) : BackendEmitter(model, Target::cpu) {}

  EmittedFile header() const;
  EmittedFile source();

 private:
  void emit_section(const FusedGroup& g);
  void emit_view(const FusedGroup& g);  // a Flatten: code only when it writes a gradient
  void emit_geometry(const FusedGroup& g);
  // A product's group (products.cpp): its description rendered around staticnet/cpu/'s GEMMs.
  void emit_product(const FusedGroup& g);
  void emit_working_copy();
  // The families described once (families/pass_description.hpp), rendered as loops.
  void emit_described(const FusedGroup& g);
  // A parameter after the tensors: "c::ThreadPool& pool"; `used`: by the passes (else unnamed).
  struct Trailing {
    std::string type, name;
    bool used;
  };
  // The parameters after the tensors of the function over them (own), and of the overload on the
  // plan's buffers (plan), and what the second passes on (arguments): write_function_pair's.
  struct Signature {
    std::string own, plan, arguments;
  };
  static Signature signature(const std::vector<Trailing>& trailing, const Direction& d);
  // void name(<d's tensors>, <trailing>) running d, and the overload that calls it on the plan's
  // buffers, void name(std::byte* arena, <trailing>).
  void emit_function(const std::string& name, const std::vector<Trailing>& trailing,
                     const Direction& d);
  // Checkpointing: recompute_<group>, what a recompute step of group g runs: `back`'s own
  // recompute direction (a BatchNorm's), or forward_<group> over the buffers back's forward names.
  // `trailing`: forward's.
  void emit_recompute(const FusedGroup& g, const std::vector<Trailing>& trailing,
                      const GroupPasses& back);
  // The same with the statements `body` (a product's: its passes, then its GEMMs).
  void emit_function(const std::string& name, const std::vector<Trailing>& trailing,
                     const Direction& d, const std::string& body);
  void emit_loss();
  void emit_update();
  void emit_entry_points();
  void emit_inference_entry_points();
  std::string fold_call(const FusedGroup& g);
  EmittedFile inference_header() const;

  Printer body_;  // everything after the helpers
};

}  // namespace staticnet::codegen
