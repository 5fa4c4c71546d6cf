// The CUDA backend's emitter, one class whose members are defined across this folder: backend.cpp
// writes the files and each group's section heading, passes.cpp renders what ../families/
// describes once for every backend (the layer families, the loss, the update, the folds) as
// launches of staticnet/cuda/launch.hpp, products.cpp renders a product's description around
// cuBLASLt's and cuDNN's calls (and sets them up), step.cpp the entry points. The model, its
// groups, the arena's names and their accessors come from BackendEmitter, shared with the other
// backend.
#pragma once

#include "../backend_emitter.hpp"
#include "../families/pass_description.hpp"

namespace staticnet::codegen {

// The statements of a direction: its passes, launched on `stream`, over its tensors (declared
// first where `declare`, else the parameters of the function around it). `what` names the passes
// in a launch error. A direction that differs between training and evaluation (a Dropout, a
// BatchNorm) reads `training`, a parameter of the function around it. The step's scalars (the
// update's, a Dropout's seed and step) come from optimizer_constants, on the device, so the
// captured graph reads each step's (passes.cpp).
std::string device_statements(const Direction& d, const std::string& what, bool declare);
// One pass of direction d below its comment, launched on `stream`; `what` names it in a launch
// error.
std::string device_pass(const MapPass& pass, const Direction& d, const std::string& what);

class CudaKernelEmitter : BackendEmitter {
 public:
  explicit CudaKernelEmitter(const ModelView& model) : BackendEmitter(model, Target::cuda) {}

  EmittedFile header() const;
  EmittedFile source();

 private:
  // The libraries' scratch: the plan's workspace buffer, in device memory.
  std::string workspace() {
    return m_.find(BufferRole::workspace) ? a_.bytes(a_.index(BufferRole::workspace)) : "nullptr";
  }
  std::int64_t workspace_bytes() const {
    const Buffer* ws = m_.find(BufferRole::workspace);
    return ws ? ws->size : 0;
  }

  void emit_section(const FusedGroup& g);
  void emit_view(const FusedGroup& g);  // a Flatten: code only when it writes a gradient
  void emit_geometry(const FusedGroup& g);
  void emit_product(const FusedGroup& g);
  std::string product_epilogue(const FusedGroup& g);  // g::LinearEpilogue's or ConvEpilogue's
  std::string product_comment(const FusedGroup& g);   // the section's forward and backward
  int product_alignment(const FusedGroup& g, bool bias_bound) const;
  int linear_bias_alignment(const FusedGroup& g) const;
  // The product's description (families/products.cpp) rendered around the library's calls.
  // `library_epilogue`: the library was asked to finish the output itself (and may decline).
  void emit_product_functions(const FusedGroup& g, bool library_epilogue);
  // The families described once (families/pass_description.hpp), one thread per point.
  void emit_described(const FusedGroup& g);
  // void name(<d's tensors>, cudaStream_t stream[, bool training]) running d, and the overload that
  // calls it on the plan's buffers, void name(std::byte* arena[, const Libraries&], stream[,
  // training]): the sections take the libraries, the loss and the update do not.
  void emit_function(const std::string& name, bool takes_libraries, bool takes_training,
                     const Direction& d);
  // Checkpointing: recompute_<group>, what a recompute step of group g runs: `back`'s own
  // recompute direction (a BatchNorm's), or forward_<group> over the buffers back's forward names.
  // It takes what forward does (`takes_training`), so that the step calls both alike.
  void emit_recompute(const FusedGroup& g, bool takes_training, const GroupPasses& back);
  void emit_loss();
  void emit_update();
  void emit_entry_points();
  // Inference: the fold kernel of a group with a folded BatchNorm, and the call that launches it.
  std::string emit_fold(const FusedGroup& g);
  void emit_inference_entry_points();
  EmittedFile inference_header() const;
  std::string library_inits() const;
  std::string library_describe() const;
  Printer kernels_;                         // the sections: geometry and functions
  std::vector<std::string> libraries_;      // members of struct Libraries: "g::Convolution conv_0;"
  std::vector<std::string> library_init_;   // their initialisers
  std::vector<std::string> library_lines_;  // describe() lines
};

}  // namespace staticnet::codegen
