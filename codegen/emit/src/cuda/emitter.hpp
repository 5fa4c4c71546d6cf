// The CUDA backend's emitter, one class whose members are defined across this folder: backend.cpp
// writes the files and each group's section heading, map_groups.cpp renders what ../families/
// describes once for every backend (five layer families, the loss, the update, the folds), a
// file per remaining family writes that family's passes, step.cpp the entry points. The model, its
// groups, the arena's names and their accessors come from BackendEmitter, shared with the other
// backend.
#pragma once

#include "../backend_emitter.hpp"
#include "../families/pass_description.hpp"

namespace staticnet::codegen {

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
  // `library_epilogue`: the library was asked to finish the output itself (and may decline).
  void emit_product_forward(const FusedGroup& g, bool library_epilogue);
  void emit_product_backward(const FusedGroup& g);
  void emit_norm(const FusedGroup& g);
  void emit_direct_conv(const FusedGroup& g);
  // The families described once (families/pass_description.hpp), one thread per point.
  void emit_map_group(const FusedGroup& g);
  // void name(<d's tensors>, cudaStream_t stream[, bool training]) running d, and the overload that
  // calls it on the plan's buffers, void name(std::byte* arena[, const Libraries&], stream[,
  // training]): the sections take the libraries, the loss and the update do not.
  void emit_function(const std::string& name, bool takes_libraries, bool takes_training,
                     const Direction& d);
  void emit_loss();
  void emit_update();
  void emit_entry_points();
  // Inference: the fold kernel of a group with a folded BatchNorm, and the call that launches it.
  std::string emit_fold(const FusedGroup& g);
  void emit_inference_entry_points();
  EmittedFile inference_header() const;
  std::string library_inits() const;
  std::string library_describe() const;
  // A __global__ kernel over [0, count) whose thread i runs `body` (which may use i).
  void emit_kernel(const std::string& name, const std::string& comment,
                   const std::string& parameters, std::int64_t count, const std::string& body);
  // backward_<name>(arena, libraries, stream) running `lines`, for groups that use no library.
  void emit_backward(const std::string& name, const std::string& lines);
  // The launch of such a kernel on the step's stream, checked.
  std::string launch(const std::string& name, std::int64_t count, const std::string& arguments);
  // A __global__ kernel of `blocks` blocks of g::channel_threads threads, each block summing one
  // result (channel_sums.hpp): `body` calls the g::per_block function. And its launch.
  void emit_block_kernel(const std::string& name, const std::string& comment,
                         const std::string& parameters, const std::string& body);
  std::string launch_blocks(const std::string& name, std::int64_t blocks,
                            const std::string& arguments);

  Printer kernels_;                     // the __global__ kernels and geometry, section by section
  std::vector<std::string> libraries_;  // members of struct Libraries: "g::Convolution conv_0;"
  std::vector<std::string> library_init_;   // their initialisers
  std::vector<std::string> library_lines_;  // describe() lines
};

}  // namespace staticnet::codegen
