// The CUDA backend's entry points, which run the sections in the plan's order on the step's
// stream (the runtime captures them as one CUDA graph): the training step and evaluation, or
// inference with the BatchNorms the plan folded; and the libraries' set-up. The loss, the update
// and the folds themselves are described in families/ and rendered by passes.cpp.
#include "emitter.hpp"

namespace staticnet::codegen {

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
  const bool none = folds.empty();
  if (none)
    folds = "// No BatchNorm to fold.\n";
  kernels_.emit({{"forward", forward},
                 {"folds", folds},
                 {"unused", none ? "[[maybe_unused]] " : ""},
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
  // Under Accumulate<K> the functions that read or write a slice of the batch, or draw a
  // micro-batch's Dropout masks, take the micro-batch (ArenaText::takes_micro_batch).
  auto micro = [&](const std::string& function) {
    return a_.takes_micro_batch(function) ? std::string(", micro") : std::string();
  };
  for (const FusedGroup* g : order.forward) {
    const std::string function = "forward_" + group_name(*g);
    add(forward, g->view >= 0 ? "// layer " + std::to_string(g->view) + ": Flatten, a view"
                              : function + "(arena, lib, stream" +
                                    (differs_in_evaluation(*g) ? ", training" : "") +
                                    micro(function) + ");");
  }
  // Under checkpointing a recompute runs forward again, training.
  for (const BackwardRun& run : order.backward) {
    const FusedGroup& g = *run.group;
    if (run.recompute) {
      const std::string function = "recompute_" + group_name(g);
      add(backward, function + "(arena, lib, stream" +
                        (differs_in_evaluation(g) ? ", /*training=*/true" : "") + micro(function) +
                        ");");
      continue;
    }
    const std::string function = "backward_" + group_name(g);
    add(backward, function + "(arena, lib, stream" + micro(function) + ");");
  }
  const bool accumulates = m_.micro_batches() > 1;
  // The step's body: forward, the loss and backward, once, or under Accumulate<K> once per
  // micro-batch (all of it in the one captured graph).
  const std::string loss = "loss_step(arena, stream" + micro("loss_step") + ");";
  std::string step = "forward(arena, lib, stream, /*training=*/true" +
                     std::string(accumulates ? ", micro" : "") + ");\n" + loss + "\n" + backward;
  std::string evaluation =
      "forward(arena_, lib_, stream_, /*training=*/false);\nloss_step(arena_, stream_);";
  if (accumulates) {
    const std::string loop = "for (index_t micro = 0; micro < " + literal(m_.micro_batches()) +
                             "; ++micro) {  // Accumulate<" + std::to_string(m_.micro_batches()) +
                             ">: micro-batches of " + std::to_string(m_.micro_batch()) + "\n";
    step = loop + step + "\n}";
    evaluation =
        "std::byte* const arena = arena_;\nconst Libraries& lib = lib_;\ncudaStream_t stream = "
        "stream_;\n" +
        loop + "forward(arena, lib, stream, /*training=*/false, micro);\n" + loss + "\n}";
  }
  kernels_.emit({{"forward", forward},
                 {"backward", backward},
                 {"step", step},
                 {"evaluation", evaluation},
                 {"micro", accumulates ? ", [[maybe_unused]] index_t micro" : ""},
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
                 [[maybe_unused]] bool training$micro$) {
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
        $step$
        update(arena, stream);
      }

      void evaluate() override {
        $evaluation$
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
