// The CUDA backend's Linear and Conv2d groups: cuBLASLt's and cuDNN's products, their epilogues
// where the library has one, else one pass that adds the bias (or a folded BatchNorm's shift),
// applies the activation and pools; backward through the pool and the activation's derivative,
// then the library's weight, bias and input gradients.
#include <stdexcept>

#include "emitter.hpp"

namespace staticnet::codegen {

namespace {

// "i / 256, i % 256 / 16, i % 16": thread i's (plane, pooled row, pooled column) of a pool's
// output, as the fused window bodies take them.
std::string pooled_position(const LayerPlan& pool) {
  const std::string plane = literal(pool.output_shape[2] * pool.output_shape[3]);
  const std::string width = literal(pool.output_shape[3]);
  return "i / " + plane + ", i % " + plane + " / " + width + ", i % " + width;
}

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
  if (conv) {
    libraries_.push_back("g::Convolution " + member + ";");
    library_init_.push_back(member + "(handles, " + member + "_geometry, g::ConvEpilogue::" +
                            epilogue + ", " + gradients + ", " + ws + ", /*alignment=*/" +
                            std::to_string(product_alignment(g, epilogue != "none")) + ")");
  } else {
    libraries_.push_back("g::LinearProduct " + member + ";");
    library_init_.push_back(
        member + "(handles, {.batch = " + literal(l.input_shape[0]) +
        ", .in_features = " + literal(l.input_shape[1]) +
        ", .out_features = " + literal(l.output_shape[1]) + "}, g::LinearEpilogue::" + epilogue +
        ", " + gradients + ", /*bias_gradient=*/" + (l.options.bias ? "true" : "false") + ", " +
        ws + ", /*alignment=*/" + std::to_string(product_alignment(g, false)) +
        ", /*bias_alignment=*/" + std::to_string(linear_bias_alignment(g)) + ")");
  }
  library_lines_.push_back("\"layer " + std::to_string(g.product) + " " + name_of(l.kind) +
                           ": \" + l." + member + ".describe()");
  emit_product_forward(g, epilogue != "none");
  if (l.runs_backward)
    emit_product_backward(g);
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

void CudaKernelEmitter::emit_product_forward(const FusedGroup& g, bool library_epilogue) {
  const LayerPlan& l = layer(g.product);
  const bool conv = l.kind == LayerKind::Conv2d;
  const std::string name = group_name(g);
  const std::string member = (conv ? "conv_" : "linear_") + std::to_string(g.product);
  const std::string act =
      g.activation >= 0 ? activation_type(layer(g.activation).kind) : std::string("k::Identity");
  const ForwardBias forward = forward_bias(m_, g, g.product, a_);
  const bool bias = forward.present;
  const std::string has_bias = bias ? "true" : "false";
  Printer::Vars v{{"name", name},
                  {"member", member},
                  {"x", at(l.input_buffer)},
                  {"x_note", note(l.input_buffer)},
                  {"w", parameter(l.weight_offset, BufferRole::parameters)},
                  {"w_note", "// " + weight_name(g.product) + forward.weight_note},
                  {"b", forward.pointer},
                  {"b_note", forward.note},
                  {"z", at(l.output_buffer)},
                  {"z_note", note(l.output_buffer)},
                  {"workspace", workspace()}};
  std::string finish;  // the host code after the product
  if (g.pool >= 0) {
    const LayerPlan& q = layer(g.pool);
    const bool max = q.kind == LayerKind::MaxPool2d;
    const bool keeps_window = max && q.window_index_buffer != no_buffer;  // not in inference
    const std::int64_t pooled = q.output_shape.elements();
    const std::string pool = "pool_" + std::to_string(g.pool);
    const std::string kernel = "forward_" + name + "_epilogue";
    const std::string index = keeps_window ? element(q.window_index_buffer) : "k::WindowIndex8";
    const std::string where = pooled_position(q);
    const std::string call = max ? "k::bias_activation_max_pool_forward<" + act + ", " + pool +
                                       ", " + has_bias + ", " + index + ">(" + where +
                                       ", z, bias, z, pooled, window);"
                                 : "k::bias_activation_avg_pool_forward<" + act + ", " + pool +
                                       ", " + has_bias + ">(" + where + ", z, bias, z, pooled);";
    emit_kernel(kernel,
                "One thread per pooled output: " + std::string(bias ? "the bias and " : "") +
                    "the activation over its window of the convolution's output" +
                    (l.runs_backward ? " (kept for backward)" : "") + ", then the window's " +
                    (keeps_window ? "max and its position."
                     : max        ? "max."
                                  : "mean."),
                "const float* __restrict__ bias, float* z, float* __restrict__ pooled" +
                    (max ? ", " + index + "* __restrict__ window" : std::string()),
                pooled, call);
    finish = "float* const pooled = " + at(q.output_buffer) + ";  " + note(q.output_buffer);
    if (keeps_window)
      finish += "\n" + index + "* const window = " + at(q.window_index_buffer) + ";  " +
                note(q.window_index_buffer);
    else if (max)
      finish += "\n" + index + "* const window = nullptr;  // no backward: no window index";
    finish +=
        "\n" + launch(kernel, pooled, std::string("bias, z, pooled") + (max ? ", window" : ""));
  } else if (bias || g.activation >= 0) {
    const std::int64_t count = l.output_shape.elements();
    const std::int64_t channels = l.output_shape[1];
    const std::int64_t positions = conv ? l.output_shape[2] * l.output_shape[3] : channels;
    const std::string kernel = "forward_" + name + "_epilogue";
    emit_kernel(kernel,
                std::string("One thread per output element: ") + (bias ? "the bias" : "") +
                    (bias && g.activation >= 0 ? " and " : "") +
                    (g.activation >= 0 ? "the " + std::string(name_of(layer(g.activation).kind))
                                       : std::string()) +
                    ", where the library did not fuse " +
                    (bias && g.activation >= 0 ? "them" : "it") + ".",
                "const float* __restrict__ bias, float* z", count,
                std::string("k::bias_activation_forward<") + act +
                    ", k::BiasAlong::" + (conv ? "rows" : "positions") + ", " + literal(channels) +
                    ", " + literal(positions) + ", " + has_bias + ">(i / " + literal(positions) +
                    ", i % " + literal(positions) + ", z, bias, z);");
    finish = launch(kernel, count, "bias, z");
    if (library_epilogue)
      finish = "if (!lib." + member + ".forward_fused()) {  // " + (conv ? "cuDNN" : "cuBLASLt") +
               " had no engine for the fused epilogue\n  " +
               finish.replace(finish.find('\n'), 1, "\n  ") + "\n}";
  }
  v["finish"] = finish;
  kernels_.emit(v, R"(
    void forward_$name$(std::byte* arena, const Libraries& lib, cudaStream_t stream) {
      const float* const x = $x$;  $x_note$
      const float* const weight = $w$;  $w_note$
      const float* const bias = $b$;  $b_note$
      float* const z = $z$;  $z_note$
      lib.$member$.forward(x, weight, bias, z, $workspace$);
      $finish$
    }

  )");
}

void CudaKernelEmitter::emit_product_backward(const FusedGroup& g) {
  const LayerPlan& l = layer(g.product);
  const bool conv = l.kind == LayerKind::Conv2d;
  const bool bias = l.options.bias;
  const std::string name = group_name(g);
  const std::string member = (conv ? "conv_" : "linear_") + std::to_string(g.product);
  const int dz_buffer = l.output_gradient_buffer;
  if (g.activation >= 0 && layer(g.activation).input_gradient_buffer != dz_buffer)
    throw std::logic_error("fused activation's input gradient is not the product's");
  const std::string act =
      g.activation >= 0 ? activation_type(layer(g.activation).kind) : std::string("k::Identity");
  std::string lines =
      "const float* const x = " + at(l.input_buffer) + ";  " + note(l.input_buffer) +
      "\nfloat* const dweight = " + parameter(l.weight_offset, BufferRole::gradients) +
      ";  // gradient of " + weight_name(g.product) + "\nfloat* const dbias = " +
      (bias ? parameter(l.bias_offset, BufferRole::gradients) + ";  // gradient of " +
                  bias_name(g.product)
            : std::string("nullptr;  // no bias")) +
      "\nfloat* const dz = " + at(dz_buffer) + ";  " + note(dz_buffer) + ": d(" + name_of(l.kind) +
      " output)";
  const std::string y = g.activation >= 0 ? at(layer(g.activation).output_buffer) : "nullptr";
  if (g.pool >= 0) {
    const LayerPlan& q = layer(g.pool);
    const bool max = q.kind == LayerKind::MaxPool2d;
    const std::int64_t pooled = q.output_shape.elements();
    const std::string pool = "pool_" + std::to_string(g.pool);
    const std::string kernel = "backward_" + name + "_pool";
    const std::string index = max ? element(q.window_index_buffer) : "";
    const std::string where = pooled_position(q);
    emit_kernel(kernel,
                "One thread per pooled output: its gradient to " +
                    std::string(max ? "the window's max" : "every element of its window") +
                    (g.activation >= 0 ? ", times the activation's derivative there" : "") +
                    "; every element of dz written once.",
                "const float* __restrict__ dpooled" +
                    (max ? ", const " + index + "* __restrict__ window" : std::string()) +
                    ", const float* __restrict__ y, float* __restrict__ dz",
                pooled,
                max ? "k::max_pool_activation_backward<" + act + ", " + pool + ", " + index + ">(" +
                          where + ", dpooled, window, y, dz);"
                    : "k::avg_pool_activation_backward<" + act + ", " + pool + ">(" + where +
                          ", dpooled, y, dz);");
    lines += "\nconst float* const dpooled = " + at(q.output_gradient_buffer) + ";  " +
             note(q.output_gradient_buffer) + ": d(pooled)";
    if (max)
      lines += "\nconst " + index + "* const window = " + at(q.window_index_buffer) + ";  " +
               note(q.window_index_buffer);
    lines += "\nconst float* const y = " + y + ";";
    lines +=
        "\n" + launch(kernel, pooled, std::string("dpooled, ") + (max ? "window, " : "") + "y, dz");
  } else if (g.activation >= 0) {
    const LayerPlan& a = layer(g.activation);
    const std::int64_t count = l.output_shape.elements();
    const std::int64_t positions = conv ? l.output_shape[2] * l.output_shape[3] : l.output_shape[1];
    const std::string kernel = "backward_" + name + "_activation";
    emit_kernel(kernel,
                std::string("One thread per element: dz = ") + name_of(a.kind) + "'(y) · dy.",
                "const float* __restrict__ y, const float* dy, float* dz", count,
                "k::activation_backward_2d<" + act + ", " + literal(positions) + ">(i / " +
                    literal(positions) + ", i % " + literal(positions) + ", y, dy, dz);");
    lines += "\nconst float* const y = " + y + ";  " + note(a.output_buffer) + ": " +
             name_of(a.kind) + " output, saved";
    lines += "\nconst float* const dy = " + at(a.output_gradient_buffer) + ";  " +
             note(a.output_gradient_buffer);
    lines += "\n" + launch(kernel, count, "y, dy, dz");
  }
  lines += "\nlib." + member + ".backward_weights(x, dz, dweight, dbias, " + workspace() + ");";
  if (l.input_gradient_buffer != no_buffer) {
    lines += "\nconst float* const weight = " + parameter(l.weight_offset, BufferRole::parameters) +
             ";  // " + weight_name(g.product);
    // Added to where x has another reader, which went first.
    Printer::Vars dx;
    input_gradient_vars(dx, l);
    lines += "\nfloat* const dx = " + dx["dx"] + ";  " + dx["dx_note"];
    lines += "\nlib." + member + ".backward_input(dz, weight, dx, " + workspace() +
             (l.accumulates_input_gradient ? ", /*accumulate=*/true" : "") + ");";
  }
  // Only a pass of ours before the library calls uses the stream (theirs is bound at set-up).
  const bool launches = g.pool >= 0 || g.activation >= 0;
  kernels_.emit({{"name", name},
                 {"stream", launches ? "cudaStream_t stream" : "cudaStream_t /*stream*/"},
                 {"lines", lines}},
                R"(
    void backward_$name$(std::byte* arena, const Libraries& lib, $stream$) {
      $lines$
    }

  )");
}

}  // namespace staticnet::codegen
