// The CUDA backend's step around the sections: the loss and its gradient, the optimizer's update,
// the inference folds, and the entry points that run the groups in order on the step's stream (the
// runtime captures them as one CUDA graph).
#include "emitter.hpp"

namespace staticnet::codegen {

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

}  // namespace staticnet::codegen
