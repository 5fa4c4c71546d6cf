// The CUDA backend: NAME_kernels_cuda.h (the step's entry point), NAME_kernels.cu (the training
// step as CUDA over the arena in device memory) and NAME_trainer_cuda.cpp (the trainer's main()).
// For an sn::Inference setup: the forward pass alone, with the BatchNorms the plan folded folded
// into the product before them (fold_batch_norms() scales the weights once), and
// NAME_infer_cuda.cpp.
//
// The sections follow the CPU backend's (fusion.hpp groups, the same headings and tensor tables),
// so the two files read side by side. Each elementwise pass is an emitted __global__ kernel, one
// thread per index, calling the same __host__ __device__ body the CPU loops call, every bound a
// literal. Products go to the libraries: Linear to cuBLASLt, Conv2d to cuDNN's graph API
// (staticnet/cuda/), set up once, when the step is made, with the literal shapes written here.
#include <set>
#include <stdexcept>
#include <string>

#include "staticnet/codegen/arena_text.hpp"
#include "staticnet/codegen/emitters.hpp"
#include "staticnet/codegen/fusion.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/printer.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"
#include "staticnet/print.hpp"

namespace staticnet::codegen {
namespace {

class CudaKernelEmitter {
 public:
  explicit CudaKernelEmitter(const ModelView& model)
      : m_(model), groups_(fuse(model, Target::cuda)), a_(model) {
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
  // The libraries' scratch: the plan's workspace buffer, in device memory.
  std::string workspace() {
    return m_.find(BufferRole::workspace) ? a_.bytes(a_.index(BufferRole::workspace)) : "nullptr";
  }
  std::int64_t workspace_bytes() const {
    const Buffer* ws = m_.find(BufferRole::workspace);
    return ws ? ws->size : 0;
  }

  void emit_section(const FusedGroup& g);
  void emit_geometry(const FusedGroup& g);
  void emit_product(const FusedGroup& g);
  int conv_alignment(const FusedGroup& g, bool bias_bound) const;
  // `library_epilogue`: the library was asked to finish the output itself (and may decline).
  void emit_product_forward(const FusedGroup& g, bool library_epilogue);
  void emit_product_backward(const FusedGroup& g);
  void emit_activation(const FusedGroup& g);
  void emit_pool(const FusedGroup& g);
  void emit_norm(const FusedGroup& g);
  void emit_sum(const FusedGroup& g);
  void emit_direct_conv(const FusedGroup& g);
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

  const ModelView& m_;
  std::vector<FusedGroup> groups_;
  Printer kernels_;                     // the __global__ kernels and geometry, section by section
  std::vector<std::string> libraries_;  // members of struct Libraries: "g::Convolution conv_0;"
  std::vector<std::string> library_init_;   // their initialisers
  std::vector<std::string> library_lines_;  // describe() lines
  ArenaText a_;                             // buffer names, and the accessors the kernels use
};

// "i / 256, i % 256 / 16, i % 16": thread i's (plane, pooled row, pooled column) of a pool's
// output, as the fused window bodies take them.
std::string pooled_position(const LayerPlan& pool) {
  const std::string plane = literal(pool.output_shape[2] * pool.output_shape[3]);
  const std::string width = literal(pool.output_shape[3]);
  return "i / " + plane + ", i % " + plane + " / " + width + ", i % " + width;
}

void CudaKernelEmitter::emit_kernel(const std::string& name, const std::string& comment,
                                    const std::string& parameters, std::int64_t count,
                                    const std::string& body) {
  kernels_.emit({{"name", name},
                 {"comment", wrap_comment(comment, "// ", "// ")},
                 {"parameters", parameters},
                 {"count", literal(count)},
                 {"body", body}},
                R"(
    $comment$
    __global__ void $name$($parameters$) {
      const index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
      if (i >= $count$)
        return;
      $body$
    }

  )");
}

std::string CudaKernelEmitter::launch(const std::string& name, std::int64_t count,
                                      const std::string& arguments) {
  return name + "<<<g::blocks_for(" + literal(count) + "), g::block_threads, 0, stream>>>(" +
         arguments + ");\ng::check_launch(\"" + name + "\");";
}

void CudaKernelEmitter::emit_block_kernel(const std::string& name, const std::string& comment,
                                          const std::string& parameters, const std::string& body) {
  kernels_.emit({{"name", name},
                 {"comment", wrap_comment(comment, "// ", "// ")},
                 {"parameters", parameters},
                 {"body", body}},
                R"(
    $comment$
    __global__ void __launch_bounds__(g::channel_threads) $name$($parameters$) {
      $body$
    }

  )");
}

std::string CudaKernelEmitter::launch_blocks(const std::string& name, std::int64_t blocks,
                                             const std::string& arguments) {
  return name + "<<<" + literal(blocks) + ", g::channel_threads, 0, stream>>>(" + arguments +
         ");\ng::check_launch(\"" + name + "\");";
}

void CudaKernelEmitter::emit_geometry(const FusedGroup& g) {
  if (g.pool >= 0) {
    kernels_.emit(window_vars("pool_" + std::to_string(g.pool), layer(g.pool)), R"(
      constexpr k::Pool2dGeometry $name${
          .batch = $n$, .channels = $ci$, .in_height = $hi$, .in_width = $wi$,
          .out_height = $ho$, .out_width = $wo$, .kernel_h = $kh$, .kernel_w = $kw$,
          .stride_h = $sh$, .stride_w = $sw$, .pad_h = $ph$, .pad_w = $pw$};
    )");
  }
  if (g.grouped >= 0)
    emit_direct_conv_geometry(kernels_, layer(g.grouped), g.grouped);
  if (g.norm >= 0)
    emit_norm_geometry(kernels_, layer(g.norm), g.norm);
  if (g.folded >= 0)
    emit_norm_geometry(kernels_, layer(g.folded), g.folded);
  if (g.product >= 0 && layer(g.product).kind == LayerKind::Conv2d) {
    kernels_.emit(window_vars("conv_" + std::to_string(g.product), layer(g.product)), R"(
      constexpr k::Conv2dGeometry $name$_geometry{
          .batch = $n$, .in_channels = $ci$, .in_height = $hi$, .in_width = $wi$,
          .out_channels = $co$, .out_height = $ho$, .out_width = $wo$,
          .kernel_h = $kh$, .kernel_w = $kw$, .stride_h = $sh$, .stride_w = $sw$,
          .pad_h = $ph$, .pad_w = $pw$};
    )");
  }
}

void CudaKernelEmitter::emit_section(const FusedGroup& g) {
  kernels_.line(section_rule(m_, g));
  if (g.view >= 0) {
    kernels_.line("// A view: its output is its input's storage, in both directions. No code.");
    kernels_.blank();
    return;
  }
  if (g.product >= 0) {
    const LayerPlan& p = layer(g.product);
    const bool conv = p.kind == LayerKind::Conv2d;
    std::string text = conv ? "Forward: cuDNN's convolution" : "Forward: cuBLASLt's x · Wᵀ";
    const std::string bias = g.folded >= 0 ? "the folded BatchNorm's shift" : "the bias";
    kernels_.line(wrap_comment(
        text +
            (conv && g.pool >= 0
                 ? ", then one thread per pooled output adds " + bias +
                       ", applies the activation and pools its window"
                 : ", with " + bias +
                       " and a ReLU in the library's epilogue where it has one, else one pass "
                       "finishes them") +
            ".",
        "// ", "//   "));
    if (p.runs_backward)
      kernels_.line(wrap_comment(
          "Backward: one pass turns d(output) into d(" + std::string(name_of(p.kind)) +
              " output) (through the pool and the activation's derivative), then the library's "
              "weight gradient" +
              (p.options.bias ? (conv ? ", the bias gradient as a reduction"
                                      : " with the bias "
                                        "gradient")
                              : std::string()) +
              (p.input_gradient_buffer != no_buffer
                   ? " and input gradient."
                   : " (no dx: no layer before this one has parameters)."),
          "// ", "//   "));
  }
  if (const std::string comment = group_comment(m_, g); !comment.empty())
    kernels_.line(comment);
  kernels_.line(tensor_table(m_, g, "cuDNN's and cuBLASLt's scratch (their algorithms fit it)"));
  emit_geometry(g);
  kernels_.blank();
  if (g.product >= 0)
    emit_product(g);
  else if (g.norm >= 0)
    emit_norm(g);
  else if (g.sum >= 0)
    emit_sum(g);
  else if (g.grouped >= 0)
    emit_direct_conv(g);
  else if (g.global_pool >= 0)
    emit_global_pool(g);
  else if (g.dropout >= 0)
    emit_dropout(g);
  else if (g.activation >= 0)
    emit_activation(g);
  else if (g.pool >= 0)
    emit_pool(g);
}

// ---- Linear and Conv2d groups ---------------------------------------------------------------

void CudaKernelEmitter::emit_product(const FusedGroup& g) {
  const LayerPlan& l = layer(g.product);
  const bool conv = l.kind == LayerKind::Conv2d;
  const bool relu = g.activation >= 0 && layer(g.activation).kind == LayerKind::ReLU;
  const bool bias = forward_bias(m_, g, g.product, a_).present;  // a folded shift is a bias
  const std::string member = (conv ? "conv_" : "linear_") + std::to_string(g.product);
  const std::string gradients = !l.runs_backward ? "g::Gradients::none"
                                : l.input_gradient_buffer != no_buffer
                                    ? "g::Gradients::weights_and_input"
                                    : "g::Gradients::weights";
  const std::string ws = literal(workspace_bytes());
  // What the library is asked to fuse: never with a pool after it (our pass does bias, activation
  // and pool in one visit), and only a ReLU (the only activation both libraries have).
  std::string epilogue;
  if (conv) {
    epilogue = g.pool >= 0 || !bias ? "none"
               : relu               ? "bias_relu"
               : g.activation < 0   ? "bias"
                                    : "none";
    libraries_.push_back("g::Convolution " + member + ";");
    library_init_.push_back(member + "(handles, " + member + "_geometry, g::ConvEpilogue::" +
                            epilogue + ", " + gradients + ", " + ws + ", /*alignment=*/" +
                            std::to_string(conv_alignment(g, epilogue != "none")) + ")");
  } else {
    epilogue = relu ? (bias ? "relu_bias" : "relu") : (bias && g.activation < 0 ? "bias" : "none");
    libraries_.push_back("g::LinearProduct " + member + ";");
    library_init_.push_back(member + "(handles, {.batch = " + literal(l.input_shape[0]) +
                            ", .in_features = " + literal(l.input_shape[1]) + ", .out_features = " +
                            literal(l.output_shape[1]) + "}, g::LinearEpilogue::" + epilogue +
                            ", " + gradients + ", /*bias_gradient=*/" +
                            (l.options.bias ? "true" : "false") + ", " + ws + ")");
  }
  library_lines_.push_back("\"layer " + std::to_string(g.product) + " " + name_of(l.kind) +
                           ": \" + l." + member + ".describe()");
  emit_product_forward(g, epilogue != "none");
  if (l.runs_backward)
    emit_product_backward(g);
}

// The largest power of two, up to 16, dividing the arena offset of every tensor the convolution's
// cuDNN graphs bind: cuDNN picks engines for the alignment it is told, and one that assumes 16
// bytes rejects a tensor the plan placed at an offset of, say, 4 modulo 16.
// The bias is bound only when cuDNN is asked to add it (`bias_bound`).
int CudaKernelEmitter::conv_alignment(const FusedGroup& g, bool bias_bound) const {
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
  int alignment = 16;
  for (std::int64_t o : offsets)
    while (o % alignment != 0)
      alignment /= 2;
  return alignment;
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
    lines += "\nfloat* const dx = " + at(l.input_gradient_buffer) + ";  " +
             note(l.input_gradient_buffer);
    lines += "\nlib." + member + ".backward_input(dz, weight, dx, " + workspace() + ");";
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

// ---- standalone activations and pools -------------------------------------------------------

void CudaKernelEmitter::emit_activation(const FusedGroup& g) {
  const LayerPlan& a = layer(g.activation);
  const std::string name = group_name(g);
  const std::string act = activation_type(a.kind);
  const std::int64_t count = a.output_shape.elements();
  emit_kernel("forward_" + name + "_kernel", "One thread per element.", "const float* x, float* y",
              count, "k::activation_forward<" + act + ">(i, x, y);");
  kernels_.emit({{"name", name},
                 {"x", at(a.input_buffer)},
                 {"x_note", note(a.input_buffer)},
                 {"y", at(a.output_buffer)},
                 {"y_note", note(a.output_buffer) + (a.in_place ? " (in place)" : "")},
                 {"launch", launch("forward_" + name + "_kernel", count, "x, y")}},
                R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const x = $x$;  $x_note$
      float* const y = $y$;  $y_note$
      $launch$
    }

  )");
  if (!a.runs_backward || a.input_gradient_buffer == no_buffer)
    return;
  emit_kernel("backward_" + name + "_kernel", "One thread per element: dx = act'(y) · dy.",
              "const float* __restrict__ y, const float* dy, float* dx", count,
              "k::activation_backward<" + act + ">(i, y, dy, dx);");
  kernels_.emit(
      {{"name", name},
       {"y", at(a.output_buffer)},
       {"y_note", note(a.output_buffer)},
       {"dy", at(a.output_gradient_buffer)},
       {"dy_note", note(a.output_gradient_buffer)},
       {"dx", at(a.input_gradient_buffer)},
       {"dx_note", note(a.input_gradient_buffer) +
                       (a.input_gradient_buffer == a.output_gradient_buffer ? " (in place)" : "")},
       {"launch", launch("backward_" + name + "_kernel", count, "y, dy, dx")}},
      R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const y = $y$;  $y_note$
      const float* const dy = $dy$;  $dy_note$
      float* const dx = $dx$;  $dx_note$
      $launch$
    }

  )");
}

void CudaKernelEmitter::emit_pool(const FusedGroup& g) {
  const LayerPlan& q = layer(g.pool);
  const bool max = q.kind == LayerKind::MaxPool2d;
  const std::string name = group_name(g);
  const std::string pool = "pool_" + std::to_string(g.pool);
  const std::int64_t out_plane = q.output_shape[2] * q.output_shape[3];
  const std::int64_t in_plane = q.input_shape[2] * q.input_shape[3];
  const std::int64_t outputs = q.output_shape.elements();
  const std::int64_t inputs = q.input_shape.elements();
  const bool keeps_window = max && q.window_index_buffer != no_buffer;
  const std::string index = keeps_window ? element(q.window_index_buffer) : "k::WindowIndex8";
  const std::string window = keeps_window ? at(q.window_index_buffer) : "nullptr";
  const std::string window_note =
      keeps_window ? note(q.window_index_buffer) : "// no backward: no window index";
  const std::string where = "i / " + literal(out_plane) + ", i % " + literal(out_plane);
  emit_kernel(
      "forward_" + name + "_kernel", "One thread per output.",
      max ? "const float* __restrict__ x, float* __restrict__ y, " + index + "* __restrict__ window"
          : std::string("const float* __restrict__ x, float* __restrict__ y"),
      outputs,
      max ? "k::max_pool_forward<" + pool + ", " + index + ">(" + where + ", x, y, window);"
          : "k::avg_pool_forward<" + pool + ">(" + where + ", x, y);");
  std::string forward = "const float* const x = " + at(q.input_buffer) + ";  " +
                        note(q.input_buffer) + "\nfloat* const y = " + at(q.output_buffer) + ";  " +
                        note(q.output_buffer);
  if (max)
    forward += "\n" + index + "* const window = " + window + ";  " + window_note;
  forward += "\n" + launch("forward_" + name + "_kernel", outputs, max ? "x, y, window" : "x, y");
  kernels_.emit({{"name", name}, {"lines", forward}}, R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      $lines$
    }

  )");
  if (!q.runs_backward || q.input_gradient_buffer == no_buffer)
    return;
  const std::string gather = "i / " + literal(in_plane) + ", i % " + literal(in_plane);
  emit_kernel(
      "backward_" + name + "_kernel",
      "One thread per input element: it gathers from the windows that hold it" +
          std::string(max ? " and chose it." : "."),
      max ? "const float* __restrict__ dy, const " + index +
                "* __restrict__ window, float* __restrict__ dx"
          : std::string("const float* __restrict__ dy, float* __restrict__ dx"),
      inputs,
      max ? "k::max_pool_backward<" + pool + ", " + index + ">(" + gather + ", dy, window, dx);"
          : "k::avg_pool_backward<" + pool + ">(" + gather + ", dy, dx);");
  std::string backward = "const float* const dy = " + at(q.output_gradient_buffer) + ";  " +
                         note(q.output_gradient_buffer) +
                         "\nfloat* const dx = " + at(q.input_gradient_buffer) + ";  " +
                         note(q.input_gradient_buffer);
  if (max)
    backward += "\nconst " + index + "* const window = " + window + ";  " + window_note;
  backward +=
      "\n" + launch("backward_" + name + "_kernel", inputs, max ? "dy, window, dx" : "dy, dx");
  kernels_.emit({{"name", name}, {"lines", backward}}, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      $lines$
    }

  )");
}

// ---- BatchNorm, residual sums, direct convolutions, global pooling, Dropout -------------------
//
// Each is one thread per index over the shared bodies, as the CPU backend's per-plane loops are
// over theirs. Sums over the batch (BatchNorm's statistics and backward sums, a direct
// convolution's weight and bias gradients) run one block per result (staticnet/cuda/
// channel_sums.hpp): its threads share the terms and add their partial sums by a fixed tree, so
// the bits are the same on every run (and equal the CPU's to rounding).

void CudaKernelEmitter::emit_backward(const std::string& name, const std::string& lines) {
  kernels_.emit({{"name", name}, {"lines", lines}}, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      $lines$
    }

  )");
}

void CudaKernelEmitter::emit_norm(const FusedGroup& g) {
  const LayerPlan& l = layer(g.norm);
  const std::string name = group_name(g);
  const std::string geometry = "norm_" + std::to_string(g.norm);
  const std::string act = fused_activation(g);
  const std::int64_t count = l.output_shape.elements();
  const std::int64_t channels = l.input_shape[1];
  const int y_buffer = g.activation >= 0 ? layer(g.activation).output_buffer : l.output_buffer;
  if (!m_.training()) {  // a BatchNorm that could not fold: the running statistics, always
    emit_kernel(
        "forward_" + name + "_kernel",
        "One thread per element: normalise by the running statistics, then " + act +
            " (y may be x: in place).",
        "const float* x, const float* __restrict__ running, const float* __restrict__ gamma, "
        "const float* __restrict__ beta, float* y",
        count,
        "k::batch_norm_inference<" + geometry + ", " + act + ">(i, x, running, gamma, beta, y);");
    kernels_.emit(
        {{"name", name},
         {"x", at(l.input_buffer)},
         {"x_note", note(l.input_buffer)},
         {"y", at(y_buffer)},
         {"y_note", note(y_buffer)},
         {"gamma", parameter(l.weight_offset, BufferRole::parameters)},
         {"gamma_note", "// " + weight_name(g.norm) + " (γ)"},
         {"beta", parameter(l.bias_offset, BufferRole::parameters)},
         {"beta_note", "// " + bias_name(g.norm) + " (β)"},
         {"running", parameter(l.statistics_offset, BufferRole::non_trainable)},
         {"launch", launch("forward_" + name + "_kernel", count, "x, running, gamma, beta, y")}},
        R"(
      void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
        const float* const x = $x$;  $x_note$
        const float* const gamma = $gamma$;  $gamma_note$
        const float* const beta = $beta$;  $beta_note$
        const float* const running = $running$;  // non_trainable: running mean, then variance
        float* const y = $y$;  $y_note$
        $launch$
      }

    )");
    return;
  }
  if (l.statistics_buffer == no_buffer)
    throw std::logic_error("a BatchNorm in training without a statistics buffer");
  emit_block_kernel(
      "forward_" + name + "_statistics_kernel",
      "One block per channel: the batch mean and 1/√(var + ε), and the running statistics' "
      "update.",
      "const float* __restrict__ x, float* __restrict__ stats, float* __restrict__ running",
      "g::per_block::batch_norm_statistics<" + geometry + ">(x, stats, running);");
  emit_kernel("forward_" + name + "_kernel", "One thread per element: normalise, then " + act + ".",
              "const float* __restrict__ x, const float* __restrict__ stats, const float* "
              "__restrict__ gamma, const float* __restrict__ beta, float* __restrict__ y",
              count,
              "k::batch_norm_forward<" + geometry + ", " + act + ">(i, x, stats, gamma, beta, y);");
  emit_kernel(
      "forward_" + name + "_inference_kernel",
      "One thread per element, in evaluation: the running statistics.",
      "const float* __restrict__ x, const float* __restrict__ running, const float* "
      "__restrict__ gamma, const float* __restrict__ beta, float* __restrict__ y",
      count,
      "k::batch_norm_inference<" + geometry + ", " + act + ">(i, x, running, gamma, beta, y);");
  Printer::Vars v{
      {"name", name},
      {"x", at(l.input_buffer)},
      {"x_note", note(l.input_buffer)},
      {"y", at(y_buffer)},
      {"y_note", note(y_buffer)},
      {"gamma", parameter(l.weight_offset, BufferRole::parameters)},
      {"gamma_note", "// " + weight_name(g.norm) + " (γ)"},
      {"beta", parameter(l.bias_offset, BufferRole::parameters)},
      {"beta_note", "// " + bias_name(g.norm) + " (β)"},
      {"running", parameter(l.statistics_offset, BufferRole::non_trainable)},
      {"stats", at(l.statistics_buffer)},
      {"stats_note", note(l.statistics_buffer) + ": mean, then 1/√(var + ε)"},
      {"inference",
       launch("forward_" + name + "_inference_kernel", count, "x, running, gamma, beta, y")},
      {"statistics",
       launch_blocks("forward_" + name + "_statistics_kernel", channels, "x, stats, running")},
      {"normalise", launch("forward_" + name + "_kernel", count, "x, stats, gamma, beta, y")}};
  kernels_.emit(v, R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream, bool training) {
      const float* const x = $x$;  $x_note$
      const float* const gamma = $gamma$;  $gamma_note$
      const float* const beta = $beta$;  $beta_note$
      float* const running = $running$;  // non_trainable: running mean, then running variance
      float* const y = $y$;  $y_note$
      if (!training) {
        $inference$
        return;
      }
      float* const stats = $stats$;  $stats_note$
      $statistics$
      $normalise$
    }

  )");
  if (!l.runs_backward)
    return;
  const int dy_buffer =
      g.activation >= 0 ? layer(g.activation).output_gradient_buffer : l.output_gradient_buffer;
  emit_block_kernel("backward_" + name + "_sums_kernel",
                    "One block per channel: d = act'(y)·dy left in dy, Σd into dβ and Σ d·x̂ "
                    "into dγ.",
                    "const float* __restrict__ x, const float* __restrict__ y, const float* "
                    "__restrict__ stats, float* __restrict__ dy, float* __restrict__ dgamma, "
                    "float* __restrict__ dbeta",
                    "g::per_block::batch_norm_backward_sums<" + geometry + ", " + act +
                        ">(x, y, stats, dy, dgamma, dbeta);");
  v["dy"] = at(dy_buffer);
  v["dy_note"] = note(dy_buffer) + (g.activation >= 0
                                        ? ": d(" + std::string(name_of(layer(g.activation).kind)) +
                                              " output), then d(BatchNorm output)"
                                        : ": d(output)");
  v["dgamma"] = parameter(l.weight_offset, BufferRole::gradients);
  v["dbeta"] = parameter(l.bias_offset, BufferRole::gradients);
  v["sums"] = launch_blocks(
      "backward_" + name + "_sums_kernel", channels,
      std::string("x, ") + (g.activation >= 0 ? "y" : "nullptr") + ", stats, dy, dgamma, dbeta");
  std::string input;
  if (l.input_gradient_buffer != no_buffer) {
    input_gradient_vars(v, l);
    emit_kernel("backward_" + name + "_kernel",
                "One thread per element: dx from d and the channel's two sums.",
                "const float* __restrict__ x, const float* __restrict__ stats, const float* "
                "__restrict__ gamma, const float* dy, const float* __restrict__ dgamma, const "
                "float* __restrict__ dbeta, float* dx",
                count,
                "k::batch_norm_backward_input<" + geometry + ", " + v["accumulate"] +
                    ">(i, x, stats, gamma, dy, dgamma, dbeta, dx);");
    input = "float* const dx = " + v["dx"] + ";  " + v["dx_note"] + "\n" +
            launch("backward_" + name + "_kernel", count, "x, stats, gamma, dy, dgamma, dbeta, dx");
  }
  v["input"] = input;
  v["saved_y"] =
      g.activation >= 0 ? "const float* const y = " + v["y"] + ";  " + v["y_note"] + ", saved" : "";
  kernels_.emit(v, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const x = $x$;  $x_note$
      const float* const stats = $stats$;  $stats_note$
      const float* const gamma = $gamma$;  $gamma_note$
      float* const dy = $dy$;  $dy_note$
      float* const dgamma = $dgamma$;  // gradient of $gamma_note$
      float* const dbeta = $dbeta$;  // gradient of $beta_note$
      $saved_y$
      $sums$
      $input$
    }

  )");
}

void CudaKernelEmitter::emit_sum(const FusedGroup& g) {
  const LayerPlan& l = layer(g.sum);
  const std::string name = group_name(g);
  const std::string act = fused_activation(g);
  const std::int64_t count = l.output_shape.elements();
  const int y_buffer = g.activation >= 0 ? layer(g.activation).output_buffer : l.output_buffer;
  emit_kernel("forward_" + name + "_kernel", "One thread per element: y = " + act + "(a + b).",
              "const float* a, const float* b, float* y", count,
              "k::residual_add_forward<" + act + ">(i, a, b, y);");
  kernels_.emit({{"name", name},
                 {"a", at(l.input_buffer)},
                 {"a_note", note(l.input_buffer)},
                 {"b", at(l.input2_buffer)},
                 {"b_note", note(l.input2_buffer)},
                 {"y", at(y_buffer)},
                 {"y_note", note(y_buffer) + (l.in_place ? " (in place)" : "")},
                 {"launch", launch("forward_" + name + "_kernel", count, "a, b, y")}},
                R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const a = $a$;  $a_note$
      const float* const b = $b$;  $b_note$
      float* const y = $y$;  $y_note$
      $launch$
    }

  )");
  if (!has_backward(m_, g))
    return;
  const int dy_buffer =
      g.activation >= 0 ? layer(g.activation).output_gradient_buffer : l.output_gradient_buffer;
  const Printer::Vars w = sum_gradient_vars(l, dy_buffer, a_);
  const std::string& first = w.at("first");
  const std::string& second = w.at("second");
  std::string lines = "float* const dy = " + at(dy_buffer) + ";  " + note(dy_buffer);
  if (g.activation >= 0) {
    // Two passes, as on the CPU: the derivative reads y everywhere before any input gradient
    // is written, since those buffers begin at the Add's backward step and may reuse y's bytes.
    emit_kernel("backward_" + name + "_activation_kernel",
                "One thread per element: d(sum) = act'(y)·dy, in place.",
                "const float* __restrict__ y, float* __restrict__ dy", count,
                "k::residual_add_backward<" + act +
                    ", k::GradientWrite::same_buffer, k::GradientWrite::same_buffer>(i, y, dy, "
                    "nullptr, nullptr);");
    lines += "\nconst float* const y = " + at(y_buffer) + ";  " + note(y_buffer) + ", saved\n" +
             launch("backward_" + name + "_activation_kernel", count, "y, dy");
  }
  if (first != "k::GradientWrite::same_buffer" || second != "k::GradientWrite::same_buffer") {
    emit_kernel("backward_" + name + "_kernel",
                "One thread per element: d(sum) to each input that takes its own copy.",
                "float* dy, float* da, float* db", count,
                "k::residual_add_backward<k::Identity, " + first + ", " + second +
                    ">(i, nullptr, dy, da, db);");
    lines += "\nfloat* const da = " + w.at("da") + ";  " + w.at("da_note") +
             "\nfloat* const db = " + w.at("db") + ";  " + w.at("db_note") + "\n" +
             launch("backward_" + name + "_kernel", count, "dy, da, db");
  }
  emit_backward(name, lines);
}

void CudaKernelEmitter::emit_direct_conv(const FusedGroup& g) {
  const LayerPlan& l = layer(g.grouped);
  const bool bias = l.options.bias;
  const ForwardBias forward = forward_bias(m_, g, g.grouped, a_);  // or the folded shift
  const std::string name = group_name(g);
  const std::string geometry = "conv_" + std::to_string(g.grouped);
  const std::int64_t outputs = l.output_shape.elements();
  std::string body = "k::grouped_conv_forward<" + geometry + ", " +
                     (forward.present ? "true" : "false") + ">(i, x, weight, bias, y);";
  if (g.activation >= 0)  // the activation in place, on the value this thread just wrote
    body += "\nk::activation_forward<" + fused_activation(g) + ">(i, y, y);";
  emit_kernel("forward_" + name + "_kernel",
              g.activation >= 0 ? "One thread per output element, then its " +
                                      std::string(name_of(layer(g.activation).kind)) + "."
                                : std::string("One thread per output element."),
              "const float* __restrict__ x, const float* __restrict__ weight, const float* "
              "__restrict__ bias, float* __restrict__ y",
              outputs, body);
  Printer::Vars v{{"name", name},
                  {"x", at(l.input_buffer)},
                  {"x_note", note(l.input_buffer)},
                  {"w", parameter(l.weight_offset, BufferRole::parameters)},
                  {"w_note", "// " + weight_name(g.grouped)},
                  {"forward_w_note", "// " + weight_name(g.grouped) + forward.weight_note},
                  {"b", forward.pointer},
                  {"b_note", forward.note},
                  {"y", at(l.output_buffer)},
                  {"y_note", note(l.output_buffer)},
                  {"launch", launch("forward_" + name + "_kernel", outputs, "x, weight, bias, y")}};
  kernels_.emit(v, R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const x = $x$;  $x_note$
      const float* const weight = $w$;  $forward_w_note$
      const float* const bias = $b$;  $b_note$
      float* const y = $y$;  $y_note$
      $launch$
    }

  )");
  if (!l.runs_backward)
    return;
  const std::int64_t weights = weight_shape(l).elements();
  const std::int64_t channels = l.output_shape[1];
  emit_block_kernel(
      "backward_" + name + "_weight_kernel",
      "One block per weight element: Σ over samples and output positions of dy · x.",
      "const float* __restrict__ x, const float* __restrict__ dy, float* __restrict__ dweight",
      "g::per_block::grouped_conv_backward_weight<" + geometry + ">(x, dy, dweight);");
  std::string lines =
      "const float* const x = " + v["x"] + ";  " + v["x_note"] +
      "\nconst float* const dy = " + at(l.output_gradient_buffer) + ";  " +
      note(l.output_gradient_buffer) +
      "\nfloat* const dweight = " + parameter(l.weight_offset, BufferRole::gradients) +
      ";  // gradient of " + weight_name(g.grouped) + "\n" +
      launch_blocks("backward_" + name + "_weight_kernel", weights, "x, dy, dweight");
  if (bias) {
    emit_block_kernel("backward_" + name + "_bias_kernel",
                      "One block per channel: Σ over samples and positions of dy.",
                      "const float* __restrict__ dy, float* __restrict__ dbias",
                      "g::per_block::bias_gradient_channels<" + literal(l.output_shape[0]) + ", " +
                          literal(channels) + ", " +
                          literal(l.output_shape[2] * l.output_shape[3]) + ">(dy, dbias);");
    lines += "\nfloat* const dbias = " + parameter(l.bias_offset, BufferRole::gradients) +
             ";  // gradient of " + bias_name(g.grouped) + "\n" +
             launch_blocks("backward_" + name + "_bias_kernel", channels, "dy, dbias");
  }
  if (l.input_gradient_buffer != no_buffer) {
    input_gradient_vars(v, l);
    const std::int64_t inputs = l.input_shape.elements();
    emit_kernel("backward_" + name + "_input_kernel",
                "One thread per input element: it gathers dy · w from the outputs that read it.",
                "const float* __restrict__ dy, const float* __restrict__ weight, float* "
                "__restrict__ dx",
                inputs,
                "k::grouped_conv_backward_input<" + geometry + ", " + v["accumulate"] +
                    ">(i, dy, weight, dx);");
    lines += "\nconst float* const weight = " + v["w"] + ";  " + v["w_note"] +
             "\nfloat* const dx = " + v["dx"] + ";  " + v["dx_note"] + "\n" +
             launch("backward_" + name + "_input_kernel", inputs, "dy, weight, dx");
  }
  emit_backward(name, lines);
}

void CudaKernelEmitter::emit_global_pool(const FusedGroup& g) {
  const LayerPlan& l = layer(g.global_pool);
  const std::string name = group_name(g);
  const std::string positions = literal(l.input_shape[2] * l.input_shape[3]);
  const std::int64_t planes = l.output_shape.elements();
  emit_kernel("forward_" + name + "_kernel", "One thread per (sample, channel) plane: its mean.",
              "const float* __restrict__ x, float* __restrict__ y", planes,
              "k::global_avg_pool_forward<" + positions + ">(i, x, y);");
  kernels_.emit({{"name", name},
                 {"x", at(l.input_buffer)},
                 {"x_note", note(l.input_buffer)},
                 {"y", at(l.output_buffer)},
                 {"y_note", note(l.output_buffer)},
                 {"launch", launch("forward_" + name + "_kernel", planes, "x, y")}},
                R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const x = $x$;  $x_note$
      float* const y = $y$;  $y_note$
      $launch$
    }

  )");
  if (!has_backward(m_, g))
    return;
  const std::int64_t inputs = l.input_shape.elements();
  Printer::Vars v{{"name", name},
                  {"dy", at(l.output_gradient_buffer)},
                  {"dy_note", note(l.output_gradient_buffer)}};
  input_gradient_vars(v, l);
  emit_kernel(
      "backward_" + name + "_kernel",
      "One thread per input element: its plane's gradient over the plane's size.",
      "const float* __restrict__ dy, float* __restrict__ dx", inputs,
      "k::global_avg_pool_backward<" + positions + ", " + v["accumulate"] + ">(i, dy, dx);");
  v["launch"] = launch("backward_" + name + "_kernel", inputs, "dy, dx");
  kernels_.emit(v, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const dy = $dy$;  $dy_note$
      float* const dx = $dx$;  $dx_note$
      $launch$
    }

  )");
}

void CudaKernelEmitter::emit_dropout(const FusedGroup& g) {
  const LayerPlan& l = layer(g.dropout);
  const std::string name = group_name(g);
  const std::string layer_index = std::to_string(g.dropout);
  const std::string geometry = "dropout_" + layer_index;
  const std::int64_t count = l.output_shape.elements();
  const std::int64_t bytes = (count + 7) / 8;
  if (!m_.training()) {  // the identity
    if (l.in_place) {
      kernels_.line("// Inference: the identity, in place. No code.");
      kernels_.blank();
      return;
    }
    kernels_.emit({{"name", name},
                   {"x", at(l.input_buffer)},
                   {"x_note", note(l.input_buffer)},
                   {"y", at(l.output_buffer)},
                   {"y_note", note(l.output_buffer)},
                   {"bytes", literal(count * 4)},
                   {"geometry", geometry}},
                  R"(
      void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {  // the identity
        const float* const x = $x$;  $x_note$
        float* const y = $y$;  $y_note$
        g::check(cudaMemcpyAsync(y, x, $bytes$, cudaMemcpyDeviceToDevice, stream), "$geometry$'s identity");
      }

    )");
    return;
  }
  kernels_.line("using " + geometry + " = k::DropoutGeometry<" +
                std::to_string(l.options.ratio_num) + ", " + std::to_string(l.options.ratio_den) +
                ", " + literal(count) + ">;");
  kernels_.blank();
  emit_kernel("forward_" + name + "_kernel",
              "One thread per mask byte (8 elements); the step and seed come from "
              "optimizer_constants, so the captured graph draws each step's masks.",
              "const float* x, float* y, k::MaskByte* __restrict__ mask", bytes,
              "k::dropout_forward<" + geometry +
                  ">(i, k::dropout_key(optimizer_constants.seed, optimizer_constants.step, " +
                  layer_index + "), x, y, mask);");
  const std::string identity = l.in_place ? "// in place: y is x"
                                          : "g::check(cudaMemcpyAsync(y, x, " + literal(count * 4) +
                                                ", cudaMemcpyDeviceToDevice, stream), \"" +
                                                geometry + "'s identity\");";
  kernels_.emit({{"name", name},
                 {"x", at(l.input_buffer)},
                 {"x_note", note(l.input_buffer)},
                 {"y", at(l.output_buffer)},
                 {"y_note", note(l.output_buffer) + (l.in_place ? " (in place)" : "")},
                 {"mask", l.mask_buffer != no_buffer ? at(l.mask_buffer) : "nullptr"},
                 {"mask_note", l.mask_buffer != no_buffer ? note(l.mask_buffer)
                                                          : "// no backward: nothing saved"},
                 {"identity", identity},
                 {"launch", launch("forward_" + name + "_kernel", bytes, "x, y, mask")}},
                R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream, bool training) {
      const float* const x = $x$;  $x_note$
      float* const y = $y$;  $y_note$
      if (!training) {  // evaluation: the identity
        $identity$
        return;
      }
      k::MaskByte* const mask = $mask$;  $mask_note$
      $launch$
    }

  )");
  if (!has_backward(m_, g))
    return;
  Printer::Vars v{{"name", name},
                  {"mask", at(l.mask_buffer)},
                  {"mask_note", note(l.mask_buffer)},
                  {"dy", at(l.output_gradient_buffer)},
                  {"dy_note", note(l.output_gradient_buffer)}};
  input_gradient_vars(v, l);
  emit_kernel("backward_" + name + "_kernel", "One thread per element: dx = keep ? dy·scale : 0.",
              "const k::MaskByte* __restrict__ mask, const float* dy, float* dx", count,
              "k::dropout_backward<" + geometry + ", " + v["accumulate"] + ">(i, mask, dy, dx);");
  v["launch"] = launch("backward_" + name + "_kernel", count, "mask, dy, dx");
  kernels_.emit(v, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const k::MaskByte* const mask = $mask$;  $mask_note$
      const float* const dy = $dy$;  $dy_note$
      float* const dx = $dx$;  $dx_note$
      $launch$
    }

  )");
}

// ---- loss, update, entry points ---------------------------------------------------------------

void CudaKernelEmitter::emit_loss() {
  const LayerPlan& last = m_.layers.back();
  const int gradient = a_.loss_gradient();
  const int loss = a_.index(BufferRole::loss);
  const std::int64_t batch = m_.batch();
  std::string lines = "const float* const output = " + at(last.output_buffer) + ";  " +
                      note(last.output_buffer) + "\nfloat* const loss = " + at(loss) + ";  " +
                      note(loss) + "\nfloat* const doutput = " + at(gradient) + ";  " +
                      note(gradient);
  std::string heading;
  if (m_.setup.loss == LossKind::CrossEntropy) {
    const int labels = a_.index(BufferRole::labels);
    const int predictions = a_.index(BufferRole::predictions);
    heading = "// ==== Loss: softmax + cross-entropy over the logits " +
              shape_text(m_.output_shape) + ", forward and backward ";
    kernels_.line(heading_rule(heading));
    emit_kernel("loss_kernel",
                "One thread per sample: the loss, the predicted class and d(logits) of the batch "
                "mean, in one pass.",
                "const float* __restrict__ logits, const std::int32_t* __restrict__ labels, "
                "float* __restrict__ loss, std::int32_t* __restrict__ predicted, "
                "float* __restrict__ dlogits",
                batch,
                "k::softmax_cross_entropy<" + literal(batch) + ", " + literal(m_.output_shape[1]) +
                    ">(i, logits, labels, loss, predicted, dlogits);");
    lines += "\nconst std::int32_t* const labels = " + at(labels) + ";  " + note(labels) +
             "\nstd::int32_t* const predicted = " + at(predictions) + ";  " + note(predictions);
    lines += "\n" + launch("loss_kernel", batch, "output, labels, loss, predicted, doutput");
  } else {
    const int targets = a_.index(BufferRole::targets);
    heading = "// ==== Loss: mean squared error over the output " + shape_text(m_.output_shape) +
              ", forward and backward ";
    kernels_.line(heading_rule(heading));
    emit_kernel("loss_kernel", "One thread per sample: its loss and d(output), in one pass.",
                "const float* __restrict__ output, const float* __restrict__ targets, "
                "float* __restrict__ loss, float* __restrict__ doutput",
                batch,
                "k::mean_squared_error<" + literal(batch) + ", " +
                    literal(m_.output_shape.elements() / batch) +
                    ">(i, output, targets, loss, doutput);");
    lines += "\nconst float* const targets = " + at(targets) + ";  " + note(targets);
    lines += "\n" + launch("loss_kernel", batch, "output, targets, loss, doutput");
  }
  kernels_.emit({{"lines", lines}}, R"(
    void loss_step(std::byte* arena, cudaStream_t stream) {
      $lines$
    }

  )");
}

void CudaKernelEmitter::emit_update() {
  const std::int64_t count = m_.parameter_count;
  std::string parameters = "float* __restrict__ params, const float* __restrict__ grads";
  std::string arguments = "params, grads";
  std::string body;
  std::string lines =
      "float* const params = " + at(a_.index(BufferRole::parameters)) +
      ";  // parameters\nconst float* const grads = " + at(a_.index(BufferRole::gradients)) +
      ";  // gradients";
  switch (m_.setup.optimizer) {
    case OptimizerKind::SGD:
      body = "k::sgd_update(i, params, grads, optimizer_constants);";
      break;
    case OptimizerKind::SGDMomentum:
      parameters += ", float* __restrict__ velocity";
      arguments += ", velocity";
      lines += "\nfloat* const velocity = " + at(a_.index(BufferRole::optimizer_moment1)) +
               ";  // optimizer_moment1";
      body = "k::sgd_momentum_update(i, params, grads, velocity, optimizer_constants);";
      break;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
      parameters += ", float* __restrict__ m, float* __restrict__ v";
      arguments += ", m, v";
      lines += "\nfloat* const m = " + at(a_.index(BufferRole::optimizer_moment1)) +
               ";  // optimizer_moment1\nfloat* const v = " +
               at(a_.index(BufferRole::optimizer_moment2)) + ";  // optimizer_moment2";
      body = std::string("k::adam_update<") +
             (m_.setup.optimizer == OptimizerKind::AdamW ? "true" : "false") +
             ">(i, params, grads, m, v, optimizer_constants);";
      break;
  }
  std::string heading = std::string("// ==== Update: ") + name_of(m_.setup.optimizer) +
                        " over the whole contiguous parameter region, one kernel ";
  kernels_.line(heading_rule(heading));
  emit_kernel("update_kernel",
              "One thread per parameter; the step's scalars come from optimizer_constants.",
              parameters, count, body);
  lines += "\n" + launch("update_kernel", count, arguments);
  kernels_.emit({{"lines", lines}}, R"(
    void update(std::byte* arena, cudaStream_t stream) {
      $lines$
    }

  )");
}

std::string CudaKernelEmitter::emit_fold(const FusedGroup& g) {
  Printer::Vars v = fold_vars(m_, g, a_);
  const std::string kernel = "fold_" + group_name(g) + "_kernel";
  const std::int64_t channels = weight_shape(layer(g.product >= 0 ? g.product : g.grouped))[0];
  emit_kernel(kernel,
              "Loading, once: one thread per output channel of layer " + v["conv"] +
                  " scales its weights by BatchNorm " + v["norm"] +
                  "'s γ/√(var + ε) and writes the shift over β.",
              "float* __restrict__ weight, const float* __restrict__ bias, const float* "
              "__restrict__ gamma, float* __restrict__ beta, const float* __restrict__ running",
              channels,
              "k::fold_batch_norm<norm_" + v["norm"] + ", " + v["per_channel"] +
                  ">(i, weight, bias, gamma, beta, running);");
  v["launch"] = launch(kernel, channels, "weight, bias, gamma, beta, running");
  Printer p;
  p.emit(v,
         R"(
    {  // $span$: BatchNorm $norm$ into the $kind$ (layer $conv$)
      float* const weight = $w$;  $w_note$
      const float* const bias = $b$;  $b_note$
      const float* const gamma = $gamma$;  $gamma_note$
      float* const beta = $beta$;  $beta_note$
      const float* const running = $running$;  // non_trainable: running mean, then variance
      $launch$
    }
  )");
  return p.text();
}

// ",\n  conv_0(...)" for each product: the rest of Libraries' member initialisers.
std::string CudaKernelEmitter::library_inits() const {
  std::string inits;
  for (const std::string& l : library_init_)
    inits += ",\n  " + l;
  return inits;
}

// The body of describe(): a line per product, from what its library chose.
std::string CudaKernelEmitter::library_describe() const {
  std::string lines;
  for (const std::string& l : library_lines_)
    lines += (lines.empty() ? "" : "\n") + ("lines += " + l + " + \"\\n\";");
  return lines;
}

void CudaKernelEmitter::emit_inference_entry_points() {
  const GroupOrder order = group_order(m_, groups_);
  std::string forward, folds;
  for (const FusedGroup* g : order.forward) {
    forward += (forward.empty() ? "" : "\n") + inference_forward_line(m_, *g, "arena, lib, stream");
    if (g->folded >= 0)
      folds += emit_fold(*g);
  }
  if (folds.empty())
    folds = "// No BatchNorm to fold.\n";
  kernels_.emit({{"forward", forward},
                 {"folds", folds},
                 {"unused", folds.starts_with("//") ? "[[maybe_unused]] " : ""},
                 {"inits", library_inits()},
                 {"describe", library_describe()}},
                R"(
    // ==== Loading: the folded BatchNorms, once ================================================
    void fold_all_batch_norms($unused$std::byte* arena, $unused$cudaStream_t stream) {
      $folds$
    }

    // ==== The forward pass, in the plan's schedule =============================================
    Libraries::Libraries(cudaStream_t stream)
        : handles(stream)$inits$ {}

    void forward(std::byte* arena, const Libraries& lib, cudaStream_t stream) {
      $forward$
    }

    class Inference final : public g::GeneratedInference {
     public:
      Inference(std::byte* arena, cudaStream_t stream) : arena_(arena), stream_(stream), lib_(stream) {}

      void fold_batch_norms() override { fold_all_batch_norms(arena_, stream_); }
      void infer() override { forward(arena_, lib_, stream_); }

      std::string describe() const override {
        [[maybe_unused]] const Libraries& l = lib_;
        std::string lines;
        $describe$
        return lines;
      }

     private:
      std::byte* arena_;
      cudaStream_t stream_;
      Libraries lib_;
    };

    }  // namespace

    std::unique_ptr<staticnet::cuda::GeneratedInference> make_inference(std::byte* arena,
                                                                        cudaStream_t stream) {
      return std::make_unique<Inference>(arena, stream);
    }
  )");
}

void CudaKernelEmitter::emit_entry_points() {
  std::string forward, backward;
  auto add = [](std::string& to, const std::string& line) {
    to += (to.empty() ? "" : "\n") + line;
  };
  const GroupOrder order = group_order(m_, groups_);
  for (const FusedGroup* g : order.forward)
    add(forward, g->view >= 0 ? "// layer " + std::to_string(g->view) + ": Flatten, a view"
                              : "forward_" + group_name(*g) + "(arena, lib, stream" +
                                    (differs_in_evaluation(*g) ? ", training" : "") + ");");
  for (const FusedGroup* g : order.backward)
    add(backward, "backward_" + group_name(*g) + "(arena, lib, stream);");
  kernels_.emit({{"forward", forward},
                 {"backward", backward},
                 {"grads", a_.at(BufferRole::gradients)},
                 {"grad_bytes", literal(a_.role(BufferRole::gradients).size)},
                 {"inits", library_inits()},
                 {"describe", library_describe()},
                 {"name", m_.names.name}},
                R"(
    // ==== The step, in the plan's schedule ====================================================
    Libraries::Libraries(cudaStream_t stream)
        : handles(stream)$inits$ {}

    // `training`: BatchNorm normalises by the batch's statistics and updates the running ones,
    // and Dropout draws its masks; in evaluation both are their inference selves.
    void forward(std::byte* arena, const Libraries& lib, cudaStream_t stream,
                 [[maybe_unused]] bool training) {
      $forward$
    }

    class Step final : public g::GeneratedStep {
     public:
      Step(std::byte* arena, cudaStream_t stream) : arena_(arena), stream_(stream), lib_(stream) {}

      void set_constants(const k::OptimizerConstants& constants) override {
        g::check(cudaMemcpyToSymbolAsync(optimizer_constants, &constants, sizeof constants, 0,
                                         cudaMemcpyHostToDevice, stream_),
                 "copying the optimizer's constants");
      }

      void train_step() override {
        std::byte* const arena = arena_;
        const Libraries& lib = lib_;
        cudaStream_t stream = stream_;
        // gradients: backward accumulates into them
        g::check(cudaMemsetAsync($grads$, 0, $grad_bytes$, stream), "zeroing the gradients");
        forward(arena, lib, stream, /*training=*/true);
        loss_step(arena, stream);
        $backward$
        update(arena, stream);
      }

      void evaluate() override {
        forward(arena_, lib_, stream_, /*training=*/false);
        loss_step(arena_, stream_);
      }

      std::string describe() const override {
        const Libraries& l = lib_;
        std::string lines;
        $describe$
        return lines;
      }

     private:
      std::byte* arena_;
      cudaStream_t stream_;
      Libraries lib_;
    };

    }  // namespace

    std::unique_ptr<staticnet::cuda::GeneratedStep> make_step(std::byte* arena, cudaStream_t stream) {
      return std::make_unique<Step>(arena, stream);
    }
  )");
}

EmittedFile CudaKernelEmitter::source() {
  const bool training = m_.training();
  for (const FusedGroup& g : groups_)
    emit_section(g);
  if (training) {
    emit_loss();
    emit_update();
    emit_entry_points();
  } else {
    emit_inference_entry_points();
  }

  const std::string file = m_.names.name + "_kernels.cu";
  Printer p;
  p.emit(
      {{"banner", file_banner(m_, file,
                              training ? "the training step on a CUDA GPU, every size a literal"
                                       : "the forward pass on a CUDA GPU, every size a literal")},
       {"name", m_.names.name},
       {"total", grouped(m_.footprint.total().count)},
       {"workspace", grouped(workspace_bytes())},
       {"graph", training ? "the trainer captures train_step() once as a CUDA graph."
                          : "the inference program captures infer() once as a CUDA graph."},
       {"constants",
        training ? "\n// The optimizer's scalars for the next step (Adam's bias corrections change "
                   "every step):\n// copied in before each replay of the step's graph. Module "
                   "memory, not the arena: 40 bytes in\n// the program image.\n__device__ "
                   "k::OptimizerConstants optimizer_constants;\n"
                 : ""}},
      R"(
    $banner$
    //
    // All tensors live in one device allocation of $total$ bytes laid out by the plan
    // ($name$_model.h names every buffer and its offset). Each section below covers one group of
    // layers fused into as few passes as their buffers allow, names the tensors it touches with
    // their arena offsets, and gives its sizes as literals. The elementwise arithmetic is
    // staticnet/kernels/ (the CPU backend runs the same functions), one thread per index, and
    // the sums over the batch staticnet/cuda/channel_sums.hpp, one block per result; Linear
    // runs on cuBLASLt and Conv2d on cuDNN, whose algorithms were chosen, when the step was made,
    // among those that need at most the plan's $workspace$-byte workspace. Nothing here
    // synchronises or allocates: $graph$
    #include "$name$_kernels_cuda.h"

    #include <cuda_runtime.h>

    #include <cstddef>
    #include <cstdint>
    #include <memory>
    #include <string>

    #include <staticnet/cuda/channel_sums.hpp>
    #include <staticnet/cuda/check.hpp>
    #include <staticnet/cuda/convolution.hpp>
    #include <staticnet/cuda/linear.hpp>
    #include <staticnet/kernels/activations.hpp>
    #include <staticnet/kernels/batch_norm.hpp>
    #include <staticnet/kernels/bias_activation.hpp>
    #include <staticnet/kernels/dropout.hpp>
    #include <staticnet/kernels/global_pool.hpp>
    #include <staticnet/kernels/grouped_conv.hpp>
    #include <staticnet/kernels/losses.hpp>
    #include <staticnet/kernels/optimizers.hpp>
    #include <staticnet/kernels/pooling.hpp>
    #include <staticnet/kernels/residual_add.hpp>

    namespace $name$::cuda {

    namespace k = staticnet::kernels;
    namespace g = staticnet::cuda;
    using k::index_t;

    namespace {
    $constants$
    // A buffer's first element, from its byte offset in the arena (device memory).
  )");
  std::string members;
  for (const std::string& l : libraries_)
    members += "\n" + l;
  Printer libraries;
  libraries.emit({{"members", members}}, R"(
    // The library set-up of every product, made once with the step (handles bound to its
    // stream; each product's algorithms chosen for its literal shape).
    struct Libraries {
      explicit Libraries(cudaStream_t stream);  // below, after the geometry

      g::Libraries handles;$members$
    };

  )");
  std::string text =
      p.text() + a_.accessor_definitions() + "\n" + libraries.text() + kernels_.text();
  text += "\n}  // namespace " + m_.names.name + "::cuda\n";
  return {file, text};
}

EmittedFile CudaKernelEmitter::inference_header() const {
  const std::string file = m_.names.name + "_kernels_cuda.h";
  Printer p;
  p.emit({{"banner", file_banner(m_, file, "the CUDA forward pass's entry point")},
          {"name", m_.names.name}},
         R"(
    $banner$
    #pragma once
    #include <cuda_runtime.h>

    #include <cstddef>
    #include <memory>

    #include <staticnet/cuda/inference.hpp>

    namespace $name$::cuda {

    // The forward pass on `arena`: device memory of $name$::arena_bytes ($name$_model.h),
    // 256-byte aligned, whose input buffer holds the batch. Making it creates the cuBLASLt and
    // cuDNN handles on `stream` and chooses every product's algorithms within the plan's
    // workspace; its calls only enqueue work on `stream`. fold_batch_norms() runs once, after
    // the weights and running statistics are copied in.
    std::unique_ptr<staticnet::cuda::GeneratedInference> make_inference(std::byte* arena,
                                                                        cudaStream_t stream);

    }  // namespace $name$::cuda
  )");
  return {file, p.text()};
}

EmittedFile CudaKernelEmitter::header() const {
  if (!m_.training())
    return inference_header();
  const std::string file = m_.names.name + "_kernels_cuda.h";
  Printer p;
  p.emit({{"banner", file_banner(m_, file, "the CUDA training step's entry point")},
          {"name", m_.names.name},
          {"optimizer", optimizer_enum(m_.setup.optimizer)}},
         R"(
    $banner$
    #pragma once
    #include <cuda_runtime.h>

    #include <cstddef>
    #include <memory>

    #include <staticnet/cuda/step.hpp>
    #include <staticnet/kernels/optimizers.hpp>

    namespace $name$::cuda {

    // The optimizer the update runs (the setup's).
    inline constexpr staticnet::kernels::Optimizer optimizer = $optimizer$;

    // The step on `arena`: device memory of $name$::arena_bytes ($name$_model.h), 256-byte
    // aligned, whose input and labels (or targets) buffers hold the batch. Making it creates the
    // cuBLASLt and cuDNN handles on `stream` and chooses every product's algorithms within the
    // plan's workspace; its calls only enqueue work on `stream`.
    std::unique_ptr<staticnet::cuda::GeneratedStep> make_step(std::byte* arena, cudaStream_t stream);

    }  // namespace $name$::cuda
  )");
  return {file, p.text()};
}

}  // namespace

std::vector<EmittedFile> emit_cuda_backend(const ModelView& model) {
  CudaKernelEmitter emitter(model);
  std::vector<EmittedFile> files;
  files.push_back(emitter.header());
  files.push_back(emitter.source());
  files.push_back(model.training() ? emit_cuda_trainer_main(model) : emit_cuda_infer_main(model));
  return files;
}

}  // namespace staticnet::codegen
