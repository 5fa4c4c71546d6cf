#pragma once
// What is done with a model: sn::Training<...> (a full step: forward, loss, backward, update) or
// sn::Inference<...> (forward only, nothing saved for backward). Options come in any order;
// each at most once; Input is required.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "staticnet/device.hpp"
#include "staticnet/dtype.hpp"
#include "staticnet/shape.hpp"

namespace staticnet {

enum class LossKind : std::uint8_t { CrossEntropy, MSE };
enum class OptimizerKind : std::uint8_t { SGD, SGDMomentum, Adam, AdamW };
// FP32; mixed precision as torch.autocast runs it (f32 master weights, the products in bf16 or
// f16); everything in bf16 (a model converted with .to(torch.bfloat16)); TensorFlow Lite's int8
// scheme, for inference on microcontrollers.
enum class PrecisionKind : std::uint8_t { FP32, MixedBF16, MixedF16, PureBF16, Int8 };
enum class Mode : std::uint8_t { training, inference };

// Loss functions. CrossEntropy takes int32 class indices, one per sample, and logits shaped
// (batch, classes). MSE takes f32 targets shaped like the output.
struct CrossEntropy {
  static constexpr LossKind kind = LossKind::CrossEntropy;
};
struct MSE {
  static constexpr LossKind kind = LossKind::MSE;
};

// Optimizers, by the state they keep per parameter: SGD none, SGDMomentum one velocity,
// Adam and AdamW two moments (AdamW differs only in how weight decay is applied).
struct SGD {
  static constexpr OptimizerKind kind = OptimizerKind::SGD;
};
struct SGDMomentum {
  static constexpr OptimizerKind kind = OptimizerKind::SGDMomentum;
};
struct Adam {
  static constexpr OptimizerKind kind = OptimizerKind::Adam;
};
struct AdamW {
  static constexpr OptimizerKind kind = OptimizerKind::AdamW;
};

// The one of `kinds` whose name_of() spelling is `text`; false for any other text.
template <class Kind, std::size_t N>
constexpr bool parse_kind(std::string_view text, const Kind (&kinds)[N], Kind& out) {
  for (Kind k : kinds) {
    if (text == name_of(k)) {
      out = k;
      return true;
    }
  }
  return false;
}

struct FP32 {
  static constexpr PrecisionKind kind = PrecisionKind::FP32;
};

// Inference in TensorFlow Lite's int8 scheme: int8 weights, symmetric, one scale per output
// channel; int8 activations with one scale and zero point per tensor; int32 biases; each
// product requantized to int8 by a fixed-point multiplier and shift per output channel. The
// weights and those per-channel numbers are constants (a microcontroller's flash), the
// activations the arena (its SRAM). Inference only, and every BatchNorm must fold into the
// convolution or Linear before it, as TensorFlow Lite's converter folds it. The mcu backend
// renders it (staticnet_model(... INFERENCE BACKENDS mcu)), and its NAME_quantize program
// quantizes a trained checkpoint for it (docs/microcontrollers.md).
struct Int8 {
  static constexpr PrecisionKind kind = PrecisionKind::Int8;
};

namespace detail {
// Mixed and pure low precision, as the planner prices them (what each tensor's dtype is under
// them: precision_dtypes() below and plan.hpp's typing). Not public yet, and so not in the
// examples: only the CPU backend renders any of them (Mixed<bf16>, for models without
// convolutions), and a setup that `staticnet analyze` accepts must build on every backend. They
// become sn::Mixed<sn::bf16>, sn::Mixed<sn::f16> and sn::Pure<sn::bf16> when the backends render
// them.
template <DType D>
struct Mixed {
  static_assert(D == DType::bf16 || D == DType::f16,
                "staticnet: Mixed<D> computes in bf16 or f16 (f32 master weights)");
  static constexpr PrecisionKind kind =
      D == DType::bf16 ? PrecisionKind::MixedBF16 : PrecisionKind::MixedF16;
};
template <DType D>
struct Pure {
  static_assert(D == DType::bf16, "staticnet: Pure<D> keeps everything in bf16");
  static constexpr PrecisionKind kind = PrecisionKind::PureBF16;
};
}  // namespace detail

// What a precision makes of each kind of tensor. Under Mixed (torch.autocast): the master
// parameters, their gradients, the optimizer's state and BatchNorm's running statistics stay in
// f32; each step works from a low-precision copy of the parameters (autocast's cast cache); a
// convolution's or a Linear's output is in the low dtype, and every other layer's output in its
// input's (layers.hpp says which, per layer); the loss runs in f32. Under Pure<bf16>, the model
// and its optimizer are bf16 throughout and the input is taken as bf16 as it arrives. Under Int8
// every tensor is int8, the input too (the caller quantizes it with the input's scale and zero
// point, as TensorFlow Lite's int8 models take it), and the parameters are int8 weights beside
// int32 per-channel numbers (plan.hpp's quantized_parameters).
struct PrecisionDtypes {
  DType parameters = DType::f32;    // the master copy: what the optimizer updates
  DType working_copy = DType::f32;  // what the products read; f32: none, they read the master
  DType products = DType::f32;      // a Linear's or convolution's output
  bool model_input_is_low = false;  // Pure: the model's input counts as `products`' dtype
  bool scales_loss = false;         // f16: loss scaling (torch.amp.GradScaler)
  bool quantized = false;           // Int8: weights and per-channel requantization in flash

  constexpr bool has_working_copy() const { return working_copy != parameters; }
};

constexpr PrecisionDtypes precision_dtypes(PrecisionKind k) {
  switch (k) {
    case PrecisionKind::FP32:
      return {};
    case PrecisionKind::MixedBF16:
      return {.working_copy = DType::bf16, .products = DType::bf16};
    case PrecisionKind::MixedF16:
      return {.working_copy = DType::f16, .products = DType::f16, .scales_loss = true};
    case PrecisionKind::PureBF16:
      return {.parameters = DType::bf16,
              .working_copy = DType::bf16,
              .products = DType::bf16,
              .model_input_is_low = true};
    case PrecisionKind::Int8:
      return {.parameters = DType::i8,
              .working_copy = DType::i8,
              .products = DType::i8,
              .model_input_is_low = true,
              .quantized = true};
  }
  return {};
}

constexpr const char* name_of(PrecisionKind k) {
  switch (k) {
    case PrecisionKind::FP32:
      return "FP32";
    case PrecisionKind::MixedBF16:
      return "Mixed<bf16>";
    case PrecisionKind::MixedF16:
      return "Mixed<f16>";
    case PrecisionKind::PureBF16:
      return "Pure<bf16>";
    case PrecisionKind::Int8:
      return "Int8";
  }
  return "?";
}

// The precisions a training step can take (Int8 is for inference: it is not among them, so
// `staticnet analyze --precision` does not offer it yet).
inline constexpr PrecisionKind precision_kinds[] = {PrecisionKind::FP32, PrecisionKind::MixedBF16,
                                                    PrecisionKind::MixedF16,
                                                    PrecisionKind::PureBF16};

// The precision a name_of() spelling names ("Mixed<bf16>"); false for any other text.
constexpr bool parse_precision(std::string_view text, PrecisionKind& out) {
  return parse_kind(text, precision_kinds, out);
}

constexpr std::int64_t optimizer_state_copies(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::SGD:
      return 0;
    case OptimizerKind::SGDMomentum:
      return 1;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
      return 2;
  }
  return 0;
}

constexpr const char* name_of(LossKind k) {
  return k == LossKind::CrossEntropy ? "CrossEntropy" : "MSE";
}
constexpr const char* name_of(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::SGD:
      return "SGD";
    case OptimizerKind::SGDMomentum:
      return "SGDMomentum";
    case OptimizerKind::Adam:
      return "Adam";
    case OptimizerKind::AdamW:
      return "AdamW";
  }
  return "?";
}

inline constexpr OptimizerKind optimizer_kinds[] = {OptimizerKind::SGD, OptimizerKind::SGDMomentum,
                                                    OptimizerKind::Adam, OptimizerKind::AdamW};

// The optimizer a name_of() spelling names ("SGDMomentum"); false for any other text.
constexpr bool parse_optimizer(std::string_view text, OptimizerKind& out) {
  return parse_kind(text, optimizer_kinds, out);
}

// The options of a setup, as values.
enum class SetupOption : std::uint8_t {
  input,
  batch,
  loss,
  optimizer,
  precision,
  target,
  prefetch,
  accumulate,
  batch_slots,
  checkpoint,
  count_
};

constexpr const char* name_of(SetupOption k) {
  switch (k) {
    case SetupOption::input:
      return "Input";
    case SetupOption::batch:
      return "Batch";
    case SetupOption::loss:
      return "Loss";
    case SetupOption::optimizer:
      return "Optimizer";
    case SetupOption::precision:
      return "Precision";
    case SetupOption::target:
      return "Target";
    case SetupOption::prefetch:
      return "Prefetch";
    case SetupOption::accumulate:
      return "Accumulate";
    case SetupOption::batch_slots:
      return "BatchSlots";
    case SetupOption::checkpoint:
      return "Checkpoint";
    case SetupOption::count_:
      break;
  }
  return "?";
}

// Gradient checkpointing (Checkpoint<P>, below): which activations forward keeps for backward and
// which backward computes again. `cuts`: the segments SetupDesc::checkpoint_cuts names, one by
// one; no public policy makes it (the planner's tests do, to plan every segmentation of a model).
// `least`: Checkpoint<Auto<Budget>>, the cut set with the least recomputation that fits the
// budget (checkpoint_auto.hpp chooses it, and the Graph carries it).
enum class CheckpointKind : std::uint8_t { none, every, sqrt, cuts, least };

constexpr const char* name_of(CheckpointKind k) {
  switch (k) {
    case CheckpointKind::none:
      return "None";
    case CheckpointKind::every:
      return "Every";
    case CheckpointKind::sqrt:
      return "Sqrt";
    case CheckpointKind::cuts:
      return "Cuts";
    case CheckpointKind::least:
      return "Auto";
  }
  return "?";
}

// A checkpointing policy as Checkpoint<P> spells P: "None", "Sqrt", "Every<K>" with K >= 1, or
// "Auto" (whose budget comes apart), the name in any case (`staticnet analyze --checkpoint
// none,sqrt,every<4>,auto`); false for any other text. `every` is K, or 0.
constexpr bool parse_checkpoint(std::string_view text, CheckpointKind& kind, std::int64_t& every) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  auto starts = [&](std::string_view word) {
    if (text.size() < word.size())
      return false;
    for (std::size_t i = 0; i < word.size(); ++i)
      if (lower(text[i]) != word[i])
        return false;
    return true;
  };
  every = 0;
  if (text.size() == 4 && starts("none")) {
    kind = CheckpointKind::none;
    return true;
  }
  if (text.size() == 4 && starts("sqrt")) {
    kind = CheckpointKind::sqrt;
    return true;
  }
  if (text.size() == 4 && starts("auto")) {  // its budget given apart (the analyzer's --device)
    kind = CheckpointKind::least;
    return true;
  }
  if (!starts("every<") || text.size() < 8 || text.back() != '>')
    return false;
  std::int64_t k = 0;
  for (char c : text.substr(6, text.size() - 7)) {
    if (c < '0' || c > '9' || k > (std::int64_t{1} << 40))
      return false;
    k = 10 * k + (c - '0');
  }
  kind = CheckpointKind::every;
  every = k;
  return k >= 1;
}

enum class SetupProblem : std::uint8_t { none, missing_input, given_twice, not_accepted };

struct SetupDesc {
  Mode mode = Mode::training;
  DType input_dtype = DType::f32;
  Shape input;  // one sample: (C, H, W) or (F); dims as written, checked in lowering
  std::int64_t batch = 1;
  LossKind loss = LossKind::CrossEntropy;
  OptimizerKind optimizer = OptimizerKind::SGD;
  PrecisionKind precision = PrecisionKind::FP32;
  bool has_target = false;  // Target<...> given: checked against the model's output
  DType target_dtype = DType::f32;
  Shape target;
  bool prefetch = false;           // Prefetch given: the arena holds a second batch, the next one
  std::int64_t micro_batches = 1;  // Accumulate<K>: K; the step runs micro-batches of batch / K
  std::int64_t batch_slots = 2;    // BatchSlots<N>: the trainer's loader fills N batches ahead
  CheckpointKind checkpoint = CheckpointKind::none;  // Checkpoint<P>
  std::int64_t checkpoint_every = 0;                 // Checkpoint<Every<K>>: K
  std::uint64_t checkpoint_cuts = 0;  // CheckpointKind::cuts: bit i cuts at the i-th allowed cut
  // Checkpoint<Auto<Budget>>: what the step must fit, as a device (a budget in bytes is a device
  // of that memory and no overhead).
  Device checkpoint_budget{};
  SetupProblem problem = SetupProblem::none;
  SetupOption problem_option = SetupOption::count_;
  int input_rank_written = 0;  // to report Input with too many dimensions

  // The samples one forward and backward pass sees: the batch, or under Accumulate<K> a Kth of it.
  constexpr std::int64_t micro_batch() const { return batch / micro_batches; }
};

// ---- options ------------------------------------------------------------------------------

// One sample's shape: Input<sn::f32, 3, 32, 32> for (C, H, W), Input<sn::f32, 100> for (F).
template <DType D, std::int64_t... Dims>
struct Input {
  static constexpr SetupOption option = SetupOption::input;
  static constexpr void apply(SetupDesc& s) {
    s.input_dtype = D;
    s.input_rank_written = sizeof...(Dims);
    if constexpr (sizeof...(Dims) < max_rank)
      s.input = Shape{Dims...};
  }
};

template <std::int64_t N>
struct Batch {
  static constexpr SetupOption option = SetupOption::batch;
  static constexpr void apply(SetupDesc& s) { s.batch = N; }
};

template <class L>
struct Loss {
  static constexpr SetupOption option = SetupOption::loss;
  static constexpr void apply(SetupDesc& s) { s.loss = L::kind; }
};

template <class O>
struct Optimizer {
  static constexpr SetupOption option = SetupOption::optimizer;
  static constexpr void apply(SetupDesc& s) { s.optimizer = O::kind; }
};

template <class P>
struct Precision {
  static constexpr SetupOption option = SetupOption::precision;
  static constexpr void apply(SetupDesc& s) { s.precision = P::kind; }
};

// The per-sample target, when stated: Target<sn::i32> for a class index (CrossEntropy),
// Target<sn::f32, 2> for an MSE target of 2 values. Checked against the model's output.
template <DType D, std::int64_t... Dims>
struct Target {
  static constexpr SetupOption option = SetupOption::target;
  static constexpr void apply(SetupDesc& s) {
    s.has_target = true;
    s.target_dtype = D;
    if constexpr (sizeof...(Dims) < max_rank)
      s.target = Shape{Dims...};
  }
};

// Training only: a second batch in the arena. The next batch arrives in it while the step runs
// on this one, so the CUDA trainer's copy of the batch overlaps the step instead of preceding it
// (one device-to-device copy then moves it into place). It costs the inputs region's bytes once
// more (plan.footprint.inputs doubles); the CPU trainer, whose loader writes the batch straight
// into the arena between steps, leaves it unused.
struct Prefetch {
  static constexpr SetupOption option = SetupOption::prefetch;
  static constexpr void apply(SetupDesc& s) { s.prefetch = true; }
};

// Training only: gradient accumulation. Batch<B> stays the batch of a step (the optimizer's), and
// the step runs it as K micro-batches of B/K samples, one after another, each forward and backward
// on its slice of the batch, their gradients added into the one gradient buffer; then one update.
// Activations, what backward keeps and the workspace follow the micro-batch, so they take about a
// Kth of their bytes; the batch itself (its inputs, labels or targets, and each sample's loss)
// stays whole. The loss and its gradient are the whole batch's mean, as PyTorch's accumulation loop
// gives it (each micro-batch's loss divided by K). BatchNorm normalises each micro-batch by its own
// statistics and updates its running statistics once per micro-batch, as that loop does; Dropout
// draws each sample's mask as the whole batch would. K must divide B.
template <std::int64_t K>
struct Accumulate {
  static constexpr SetupOption option = SetupOption::accumulate;
  static constexpr void apply(SetupDesc& s) { s.micro_batches = K; }
};

// Training only: how many batches the trainer's loader keeps ready ahead of the step, in host
// memory (plan.host.batch_slots: N batches of f32 inputs and their labels or targets). Its
// workers fill free slots while the step runs; the trainer copies a ready batch into the arena
// and frees its slot. 2 by default; more smooth out a loader that is sometimes slower than the
// step.
template <std::int64_t N>
struct BatchSlots {
  static_assert(N >= 1, "staticnet: BatchSlots<N> needs N >= 1 (a slot to fill the next batch in)");
  static constexpr SetupOption option = SetupOption::batch_slots;
  static constexpr void apply(SetupDesc& s) { s.batch_slots = N; }
};

// Training only: gradient checkpointing (Chen et al. 2016, "Training Deep Nets with Sublinear
// Memory Cost"). The model is cut into segments at tensors every path from the input to the loss
// crosses (in a residual network, between blocks; never before an activation, which stays with
// the layer it follows); forward keeps each segment's input, what its last layer writes (with the
// layers that layer runs in place over) and BatchNorm's statistics, and drops the rest once read;
// before the backward of a segment's last layer, backward computes again, from the segment's
// input, the dropped tensors it reads (plan.hpp, "Checkpointing"). The last segment keeps
// everything (it would be recomputed at once). A recomputed Dropout draws
// the mask it drew the first time (its bits are a hash of the seed, the step, the layer and the
// element); a recomputed BatchNorm normalises by the statistics of the first pass, which are kept,
// and does not update its running statistics again.
//   Checkpoint<None>      everything kept (the default)
//   Checkpoint<Every<K>>  segments of K cut-to-cut units
//   Checkpoint<Sqrt>      segments of ⌈√n⌉ units, n the units (about √n segments)
//   Checkpoint<Auto<Budget>>  the cuts with the least recomputation, in FLOPs, whose whole step
//                         fits Budget: a device (sn::device::jetson_nano) or bytes
//                         (sn::MiB(512), sn::Bytes{889'600}), counted as required_memory()
//                         counts them. An exact search over every cut set, priced from the plan,
//                         then checked against the placed arena; only where that lays the
//                         chosen cut set out with gaps can the answer be a costlier one, or none
//                         (checkpoint_auto.hpp). A budget nothing fits fails the build with the
//                         least any cut set needs.
// fit tries Sqrt (fit.hpp), and `staticnet analyze --checkpoint` prices each policy.
struct None {
  static constexpr CheckpointKind kind = CheckpointKind::none;
  static constexpr std::int64_t every = 0;
};
template <std::int64_t K>
struct Every {
  static_assert(K >= 1, "staticnet: Checkpoint<Every<K>> needs K >= 1 units per segment");
  static constexpr CheckpointKind kind = CheckpointKind::every;
  static constexpr std::int64_t every = K;
};
struct Sqrt {
  static constexpr CheckpointKind kind = CheckpointKind::sqrt;
  static constexpr std::int64_t every = 0;
};
namespace detail {
constexpr Device budget_device(Bytes b) {
  return Device{b, Bytes{}, "a budget"};
}
constexpr Device budget_device(const Device& d) {
  return d;
}
}  // namespace detail
template <auto Budget>
struct Auto {
  static_assert(
      requires { detail::budget_device(Budget); },
      "staticnet: Checkpoint<Auto<Budget>> takes a device (sn::device::jetson_nano) or "
      "bytes (sn::MiB(512))");
  static constexpr CheckpointKind kind = CheckpointKind::least;
  static constexpr std::int64_t every = 0;
  static constexpr Device budget = detail::budget_device(Budget);
};
template <class P>
struct Checkpoint {
  static constexpr SetupOption option = SetupOption::checkpoint;
  static constexpr void apply(SetupDesc& s) {
    static_assert(P::kind != CheckpointKind::cuts,
                  "staticnet: Checkpoint<P> takes None, Every<K>, Sqrt or Auto<Budget>; "
                  "CheckpointKind::cuts is the planner's own (SetupDesc::checkpoint_cuts)");
    s.checkpoint = P::kind;
    s.checkpoint_every = P::every;
    if constexpr (P::kind == CheckpointKind::least)
      s.checkpoint_budget = P::budget;
  }
};

template <class T>
concept SetupOptionType = requires(SetupDesc& s) {
  { T::option } -> std::convertible_to<SetupOption>;
  T::apply(s);
};

namespace detail {
template <Mode M, unsigned Accepted, SetupOptionType... Options>
constexpr SetupDesc setup_desc() {
  SetupDesc s;
  s.mode = M;
  unsigned seen = 0;
  [[maybe_unused]] auto one = [&](SetupOption kind, auto apply) {
    const unsigned bit = 1u << static_cast<unsigned>(kind);
    if (s.problem != SetupProblem::none)
      return;
    if ((Accepted & bit) == 0) {
      s.problem = SetupProblem::not_accepted;
      s.problem_option = kind;
    } else if (seen & bit) {
      s.problem = SetupProblem::given_twice;
      s.problem_option = kind;
    } else {
      seen |= bit;
      apply(s);
    }
  };
  (one(Options::option, [](SetupDesc& x) { Options::apply(x); }), ...);
  if (s.problem == SetupProblem::none &&
      (seen & (1u << static_cast<unsigned>(SetupOption::input))) == 0) {
    s.problem = SetupProblem::missing_input;
    s.problem_option = SetupOption::input;
  }
  return s;
}
constexpr unsigned all_setup_options = (1u << static_cast<unsigned>(SetupOption::count_)) - 1;
constexpr unsigned inference_options = (1u << static_cast<unsigned>(SetupOption::input)) |
                                       (1u << static_cast<unsigned>(SetupOption::batch)) |
                                       (1u << static_cast<unsigned>(SetupOption::precision));
}  // namespace detail

// Defaults: Batch<1>, Loss<CrossEntropy>, Optimizer<SGD>, Precision<FP32>, no Prefetch, no
// Accumulate (one micro-batch: the whole batch), BatchSlots<2>. Input is required.
template <SetupOptionType... Options>
struct Training {
  static constexpr SetupDesc desc() {
    return detail::setup_desc<Mode::training, detail::all_setup_options, Options...>();
  }
};

// Forward only: the weights and the live activations of one forward pass; no gradients, no
// optimizer state, nothing saved for backward. Accepts Input, Batch and Precision.
template <SetupOptionType... Options>
struct Inference {
  static constexpr SetupDesc desc() {
    return detail::setup_desc<Mode::inference, detail::inference_options, Options...>();
  }
};

template <class T>
concept Setup = requires {
  { T::desc() } -> std::same_as<SetupDesc>;
};

}  // namespace staticnet
