// The CUDA rendering of a product's description (families/products.cpp): cuBLASLt's and cuDNN's
// products (their set-up in struct Libraries, with the alignment of what they bind), their
// epilogues where the library has one, else one pass that adds the bias (or a folded BatchNorm's
// shift), applies the activation and pools; backward through the pool and the activation's
// derivative, then the library's weight, bias and input gradients.
#include <stdexcept>

#include "emitter.hpp"

namespace staticnet::codegen {

namespace {

// The largest power of two, up to 16, dividing every one of `offsets`.
int common_alignment(const std::vector<std::int64_t>& offsets) {
  int alignment = 16;
  for (std::int64_t o : offsets)
    while (o % alignment != 0)
      alignment /= 2;
  return alignment;
}

}  // namespace

// What the library is asked to fuse: never with a pool after it (our pass does bias, activation
// and pool in one visit), and only a ReLU (the only activation both libraries have).
std::string CudaKernelEmitter::product_epilogue(const FusedGroup& g) {
  const bool conv = layer(g.product).kind == LayerKind::Conv2d;
  const bool relu = g.activation >= 0 && layer(g.activation).kind == LayerKind::ReLU;
  const bool bias = forward_bias(m_, g, g.product, a_).present;  // a folded shift is a bias
  if (conv)
    return g.pool >= 0 || !bias ? "none" : relu ? "bias_relu" : g.activation < 0 ? "bias" : "none";
  return relu ? (bias ? "relu_bias" : "relu") : (bias && g.activation < 0 ? "bias" : "none");
}

std::string CudaKernelEmitter::product_comment(const FusedGroup& g) {
  const LayerPlan& p = layer(g.product);
  const bool conv = p.kind == LayerKind::Conv2d;
  const bool bias = forward_bias(m_, g, g.product, a_).present;
  const std::string shift = g.folded >= 0 ? "the folded BatchNorm's shift" : "the bias";
  const std::string act =
      g.activation >= 0 ? "the " + std::string(name_of(layer(g.activation).kind)) : "";
  // What finishes the product's output, as a pass does it: "adds the bias and applies the ReLU".
  const std::string adds = bias ? "adds " + shift : "";
  const std::string applies = act.empty() ? "" : "applies " + act;
  std::string text = conv ? "Forward: cuDNN's convolution" : "Forward: cuBLASLt's x · Wᵀ";
  if (g.pool >= 0)
    text +=
        ", then one thread per pooled output " + phrase_list({adds, applies, "pools its window"});
  else if (product_epilogue(g) != "none")
    text += ", with " + phrase_list({bias ? shift : "", act}) +
            " in the library's epilogue (one pass finishes " +
            (bias && !act.empty() ? "them" : "it") + " where the library has no engine for it)";
  else if (!adds.empty() || !applies.empty())
    text += ", then one pass " + phrase_list({adds, applies});
  std::string comment = wrap_comment(text + ".", "// ", "//   ");
  if (!p.runs_backward)
    return comment;
  std::string back = "Backward: ";
  if (g.pool >= 0)
    back += "one pass turns d(pooled) into d(" + std::string(name_of(p.kind)) +
            " output) through the pool" +
            (act.empty() ? std::string() : " and " + act + "'s derivative") + ", then ";
  else if (!act.empty())
    back += "one pass applies " + act + "'s derivative to d(output), then ";
  back +=
      "the library's weight gradient" +
      (p.options.bias ? (conv ? ", the bias gradient as a reduction" : " with the bias gradient")
                      : std::string()) +
      (p.input_gradient_buffer != no_buffer ? " and input gradient."
                                            : " (no dx: no layer before this one has parameters).");
  return comment + "\n" + wrap_comment(back, "// ", "//   ");
}

void CudaKernelEmitter::emit_product(const FusedGroup& g) {
  const LayerPlan& l = layer(g.product);
  const bool conv = l.kind == LayerKind::Conv2d;
  const std::string member = (conv ? "conv_" : "linear_") + std::to_string(g.product);
  const std::string gradients = !l.runs_backward ? "g::Gradients::none"
                                : l.input_gradient_buffer != no_buffer
                                    ? "g::Gradients::weights_and_input"
                                    : "g::Gradients::weights";
  const std::string ws = literal(workspace_bytes());
  const std::string epilogue = product_epilogue(g);
  // Under Accumulate<K> each micro-batch adds its part to the weight and bias gradients: the
  // libraries are told, so that no path of theirs writes over the earlier parts.
  const std::string adds =
      m_.micro_batches() > 1 && l.runs_backward ? ", /*adds_gradients=*/true" : "";
  if (conv) {
    libraries_.push_back("g::Convolution " + member + ";");
    library_init_.push_back(member + "(handles, " + member + "_geometry, g::ConvEpilogue::" +
                            epilogue + ", " + gradients + ", " + ws + ", /*alignment=*/" +
                            std::to_string(product_alignment(g, epilogue != "none")) + adds + ")");
  } else {
    libraries_.push_back("g::LinearProduct " + member + ";");
    library_init_.push_back(
        member + "(handles, {.batch = " + literal(l.input_shape[0]) +
        ", .in_features = " + literal(l.input_shape[1]) +
        ", .out_features = " + literal(l.output_shape[1]) + "}, g::LinearEpilogue::" + epilogue +
        ", " + gradients + ", /*bias_gradient=*/" + (l.options.bias ? "true" : "false") + ", " +
        ws + ", /*alignment=*/" + std::to_string(product_alignment(g, false)) +
        ", /*bias_alignment=*/" + std::to_string(linear_bias_alignment(g)) + adds + ")");
  }
  library_lines_.push_back("\"layer " + std::to_string(g.product) + " " + name_of(l.kind) +
                           ": \" + l." + member + ".describe()");
  emit_product_functions(g, epilogue != "none");
}

// The alignment of every tensor the product's cuDNN graphs or cuBLASLt matmuls bind as a matrix:
// the libraries pick algorithms for the alignment they are told (cuBLASLt assumes 256 bytes
// unless told), and one that assumes 16 bytes fails on a tensor the plan placed at an offset of,
// say, 4 modulo 16. A convolution's bias is bound only when cuDNN is asked to add it
// (`bias_bound`). A Linear's bias vector has an alignment of its own (linear_bias_alignment).
int CudaKernelEmitter::product_alignment(const FusedGroup& g, bool bias_bound) const {
  const LayerPlan& l = layer(g.product);
  std::vector<std::int64_t> offsets = {
      a_.offset(l.input_buffer), a_.offset(l.output_buffer),
      a_.parameter_offset(l.weight_offset, BufferRole::parameters)};
  if (l.runs_backward)
    offsets.push_back(a_.parameter_offset(l.weight_offset, BufferRole::gradients));
  if (bias_bound && g.folded >= 0)  // the shift, over the folded BatchNorm's β
    offsets.push_back(a_.parameter_offset(layer(g.folded).bias_offset, BufferRole::parameters));
  else if (bias_bound)
    offsets.push_back(a_.parameter_offset(l.bias_offset, BufferRole::parameters));
  if (l.output_gradient_buffer != no_buffer)
    offsets.push_back(a_.offset(l.output_gradient_buffer));
  if (l.input_gradient_buffer != no_buffer)
    offsets.push_back(a_.offset(l.input_gradient_buffer));
  if (const Buffer* w = m_.find(BufferRole::workspace))
    offsets.push_back(w->offset);
  // Under checkpointing, backward and a recompute bind the buffers a recompute wrote.
  const LayerPlan& again = back_.layers.at(static_cast<std::size_t>(g.product));
  offsets.push_back(a_.offset(again.input_buffer));
  offsets.push_back(a_.offset(again.output_buffer));
  // Under Accumulate<K> the input may be a micro-batch's slice of the batch: its offset moves by a
  // slice's bytes from one micro-batch to the next.
  if (a_.sliced(l.input_buffer))
    offsets.push_back(a_.slice_bytes(l.input_buffer));
  return common_alignment(offsets);
}

// The alignment of the bias vector a Linear's cuBLASLt epilogues bind: the bias (or the folded
// shift) that BIAS and RELU_BIAS read, and the gradient that BGRADB writes. cuBLASLt picks those
// epilogues' kernels by the bias pointer's alignment as well, and the parameters are packed
// float by float, so a bias is often at 4 or 8 modulo 16 while the matrices are at 16. Kept apart
// from the matrices' alignment so that a misplaced bias does not slow the product itself.
int CudaKernelEmitter::linear_bias_alignment(const FusedGroup& g) const {
  const LayerPlan& l = layer(g.product);
  std::vector<std::int64_t> offsets;
  if (g.folded >= 0)
    offsets.push_back(a_.parameter_offset(layer(g.folded).bias_offset, BufferRole::parameters));
  else if (l.options.bias)
    offsets.push_back(a_.parameter_offset(l.bias_offset, BufferRole::parameters));
  if (l.options.bias && l.runs_backward)
    offsets.push_back(a_.parameter_offset(l.bias_offset, BufferRole::gradients));
  return common_alignment(offsets);
}

void CudaKernelEmitter::emit_product_functions(const FusedGroup& g, bool library_epilogue) {
  std::optional<TensorUse> workspace;  // the libraries' scratch
  if (m_.find(BufferRole::workspace)) {
    const int ws = a_.index(BufferRole::workspace);
    workspace = TensorUse{"workspace", "std::byte", true, a_.bytes(ws), note(ws)};
  }
  const ProductPasses d = describe_product(m_, g, a_, workspace);
  const std::string name = group_name(g);
  const std::string scratch = workspace ? "workspace" : "nullptr";

  const ProductCall& f = d.forward.call;
  const ProductEpilogue& e = d.forward.epilogue;
  std::string forward = "lib." + f.geometry + ".forward(x, weight, " +
                        (f.bias ? "bias" : "nullptr") + ", z, " + scratch + ");";
  bool launches = true;
  if (e.pool) {  // bias, activation and pool in one pass: the library fuses no pool
    forward += "\n" + device_pass(*e.pool, d.forward.direction, "forward_" + name);
  } else if (e.bias_activation && library_epilogue) {
    forward += "\nif (!lib." + f.geometry + ".forward_fused()) {  // " +
               (f.conv ? "cuDNN" : "cuBLASLt") + " had no engine for the fused epilogue\n" +
               device_pass(*e.bias_activation, d.forward.direction, "forward_" + name) + "\n}";
  } else if (e.bias_activation) {
    forward += "\n" + device_pass(*e.bias_activation, d.forward.direction, "forward_" + name);
  } else {
    launches = false;
  }
  // Only a pass of ours uses the stream (the libraries' is bound at set-up).
  const std::string stream = launches ? "cudaStream_t stream" : "cudaStream_t /*stream*/";
  write_function_pair(kernels_, a_, "forward_" + name, d.forward.direction, forward,
                      "const Libraries& lib, " + stream,
                      "const Libraries& lib, cudaStream_t stream", "lib, stream",
                      /*restrict_qualified=*/true);
  // Backward and a recompute read the buffers backward sees (checkpointing).
  const ProductPasses back = checkpointed_ ? describe_product(back_, g, a_, workspace) : d;
  if (layer(g.product).recomputed)
    write_recompute_overload(kernels_, a_, "recompute_" + name, "forward_" + name,
                             back.forward.direction, "const Libraries& lib, cudaStream_t stream",
                             "lib, stream");
  if (!back.backward)
    return;

  const ProductCall& b = back.backward->call;
  const Direction& passes = back.backward->direction;
  std::string backward =
      passes.passes.empty() ? "" : device_statements(passes, "backward_" + name, false) + "\n";
  backward += "lib." + b.geometry + ".backward_weights(x, dz, dweight, " +
              (b.bias ? "dbias" : "nullptr") + ", " + scratch + ");";
  if (b.input_gradient)
    backward += "\nlib." + b.geometry + ".backward_input(dz, weight, dx, " + scratch +
                (b.accumulates ? ", /*accumulate=*/true" : "") + ");";
  write_function_pair(
      kernels_, a_, "backward_" + name, passes, backward,
      "const Libraries& lib, " +
          std::string(passes.passes.empty() ? "cudaStream_t /*stream*/" : "cudaStream_t stream"),
      "const Libraries& lib, cudaStream_t stream", "lib, stream", /*restrict_qualified=*/true);
}

}  // namespace staticnet::codegen
