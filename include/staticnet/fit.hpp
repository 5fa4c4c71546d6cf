#pragma once
// Making a plan fit: fit() tries the seeds' remedies for a training step that does not fit a
// device, cheapest first, and returns the first that fits; assert_fits fails a build that does
// not fit with one error naming the bytes and that remedy.
//
// The remedies, in the order fit() tries them:
//   1. Accumulate<K> (a training setup's only): the same batch as K micro-batches, each multiple
//      of the setup's own K that divides the batch, fewest first: the same arithmetic, and a step
//      that differs only where a BatchNorm normalises per micro-batch;
//   2. Checkpoint<Sqrt> (a training setup's that does not checkpoint already): at the setup's own
//      micro-batches, then at each accumulation's: the same arithmetic and more of it, the
//      recomputation its plan counts (Fit::recompute_flops);
//   3. a smaller batch: the largest below the setup's that a bisection finds fits, which changes
//      the training.
// Mixed precision comes first once the CUDA trainer renders it (issue 38). Checkpoint<Auto> (the
// least recomputation that fits) does not take Sqrt's place yet: fit() plans all its candidates
// in one constant evaluation, and Auto's search may take most of one evaluation's budget by
// itself (checkpoint_auto.hpp's allowances), so a long model's fit would stop where it answers
// today.
//
// The candidates are values, not types: each is the setup's SetupDesc with one field changed,
// planned by the same constant evaluation as any setup (budget.hpp's price_for_batch), so the
// search is an ordinary loop and needs no list of types. fit_t makes the answer a Setup type again.
#include <cstdint>

#include "staticnet/budget.hpp"
#include "staticnet/errors.hpp"

namespace staticnet {

enum class Remedy : std::uint8_t {
  none,           // the setup fits as it is
  accumulate,     // as micro-batches: setup.micro_batches
  checkpoint,     // under setup.checkpoint (Sqrt), as setup.micro_batches micro-batches
  smaller_batch,  // at setup.batch, below the setup's own
  nothing,        // nothing fits; setup.batch is the smallest batch, required its bytes (with
                  // no host budget; 0 where the weights do not fit a microcontroller's flash)
};

// "accumulate": the remedy's name in the analyzer's JSON.
constexpr const char* name_of(Remedy r) {
  switch (r) {
    case Remedy::none:
      return "none";
    case Remedy::accumulate:
      return "accumulate";
    case Remedy::checkpoint:
      return "checkpoint";
    case Remedy::smaller_batch:
      return "smaller_batch";
    case Remedy::nothing:
      return "nothing";
  }
  return "?";
}

// Recomputed FLOPs in percent of a step's forward and backward FLOPs, to the nearest (0 for a
// step of none): what assert_fits' extra_compute_percent<P> and the analyzer say.
constexpr std::int64_t extra_compute_percent(std::int64_t recompute_flops,
                                             std::int64_t step_flops) {
  return step_flops > 0 ? (200 * recompute_flops + step_flops) / (2 * step_flops) : 0;
}

struct Fit {
  Remedy remedy = Remedy::nothing;
  SetupDesc setup;  // the setup that fits, or under Remedy::nothing the smallest one tried
  Bytes required;   // what it needs of the device's memory, as fits() counts it
  std::int64_t step_flops = 0;       // its step's forward and backward FLOPs
  std::int64_t recompute_flops = 0;  // what its checkpointing adds to them

  constexpr bool found() const { return remedy != Remedy::nothing; }
  // The compute checkpointing adds, in percent of the step's, to the nearest.
  constexpr std::int64_t extra_compute_percent() const {
    return staticnet::extra_compute_percent(recompute_flops, step_flops);
  }
};

namespace detail {

// The micro-batch counts for_each_fitting tries: the multiples of the setup's own K that divide
// its batch, fewest first (a batch with more than 256 of them tries the first 256).
struct Accumulations {
  std::int64_t k[256]{};
  int count = 0;
};
constexpr Accumulations accumulations(const SetupDesc& s) {
  Accumulations a;
  if (s.mode != Mode::training)
    return a;
  for (std::int64_t k = 2 * s.micro_batches; k <= s.batch && a.count < 256; k += s.micro_batches)
    if (s.batch % k == 0)
      a.k[a.count++] = k;
  return a;
}
// Whether fit tries checkpointing: in training, where the setup does not checkpoint already.
constexpr bool tries_checkpoint(const SetupDesc& s) {
  return s.mode == Mode::training && s.checkpoint == CheckpointKind::none;
}
// The setup under fit's checkpointing candidate (where tries_checkpoint).
constexpr SetupDesc checkpointed(SetupDesc s) {
  if (tries_checkpoint(s))
    s.checkpoint = CheckpointKind::sqrt;
  return s;
}
// Whether checkpointing could make a setup priced `as_is` fit d: it changes the activations and
// nothing else, so the rest must fit already. (Spares the checkpointed plans, the costliest fit
// makes, where they cannot help: when the inputs alone are too large, say.)
constexpr bool checkpoint_may_fit(const Priced& as_is, const Device& d) {
  return as_is.total >= 0 && as_is.total - as_is.activations <= d.available().count;
}
// A candidate's Fit where its bytes fit d, else none. A checkpointing candidate that recomputes
// nothing is the setup itself (a model with no tensor to cut at, or whose segments end in place
// over all they hold): none.
constexpr Fit fit_if(Remedy r, const SetupDesc& s, const Priced& price, const Device& d) {
  const bool remedies = r != Remedy::checkpoint || price.recompute_flops > 0;
  return remedies && price.total >= 0 && price.total <= d.available().count
             ? Fit{r, s, Bytes{price.total} + d.overhead, price.step_flops, price.recompute_flops}
             : Fit{};
}
// The device as the bytes of a setup that fits nowhere are counted: without its host budget,
// which a setup's bytes may exceed at every batch (total_for_batch then gives none).
constexpr Device without_host_budget(Device d) {
  d.host_memory = Bytes{};
  return d;
}

// The setups that fit d, cheapest first, each passed to visit(const Fit&), which returns false
// to stop: the setup as it is; else each accumulation that fits, then Sqrt at the setup's own
// micro-batches and at each accumulation's that did not fit where it fits (and recomputes
// something), then the largest smaller batch that fits, found by bisection between the smallest
// batch and the setup's. (Bisection assumes the bytes grow with the batch; placement's 256-byte
// rounding can make them dip, so a batch a little larger may fit too: max_batch scans for it, at
// the price of 32 more plans.) Returns whether visit was called. Bytes are counted as max_batch
// counts them: on a microcontroller, the SRAM with the weights in flash (whose own check,
// outgrows_flash, is the caller's: fit_for's); on a device that shares host memory, with the
// trainer's host bytes; and a host budget must hold those bytes.
template <class Layers, class Visit>
constexpr bool for_each_fitting(const Layers& layers, const SetupDesc& setup, const Device& d,
                                Visit visit) {
  auto price = [&](const SetupDesc& s) { return price_for_batch(layers, s, s.batch, d); };
  const Priced as_is = price(setup);
  if (const Fit f = fit_if(Remedy::none, setup, as_is, d); f.found()) {
    visit(f);
    return true;
  }
  bool any = false;
  const Accumulations a = accumulations(setup);
  // Per micro-batch count (0: the setup's own, i + 1: a.k[i]), whether checkpointing may make it
  // fit: where it does not fit without it, but all else than its activations does.
  bool may_checkpoint[257]{checkpoint_may_fit(as_is, d)};
  for (int i = 0; i < a.count; ++i) {
    SetupDesc s = setup;
    s.micro_batches = a.k[i];
    const Priced accumulated = price(s);
    if (const Fit f = fit_if(Remedy::accumulate, s, accumulated, d); f.found()) {
      any = true;
      if (!visit(f))
        return true;
    } else {
      may_checkpoint[i + 1] = checkpoint_may_fit(accumulated, d);
    }
  }
  if (tries_checkpoint(setup)) {
    SetupDesc s = checkpointed(setup);
    for (int i = -1; i < a.count; ++i) {  // -1: the setup's own micro-batches
      if (!may_checkpoint[i + 1])
        continue;
      s.micro_batches = i < 0 ? setup.micro_batches : a.k[i];
      if (const Fit f = fit_if(Remedy::checkpoint, s, price(s), d); f.found()) {
        any = true;
        if (!visit(f))
          return true;
      }
    }
  }
  // A smaller batch: bisection over the micro-batch's samples, from the smallest that plans (which
  // must fit) to the setup's own (which does not).
  const std::int64_t k = setup.micro_batches;
  SetupDesc s = setup;
  auto fits_at = [&](std::int64_t b) {
    s.batch = k * b;
    return fit_if(Remedy::smaller_batch, s, price(s), d).found();
  };
  std::int64_t fits = smallest_micro_batch(layers, setup), too_big = setup.batch / k;
  if (fits >= too_big || !fits_at(fits))
    return any;
  while (too_big - fits > 1) {
    const std::int64_t mid = fits + (too_big - fits) / 2;
    (fits_at(mid) ? fits : too_big) = mid;
  }
  s.batch = k * fits;
  visit(fit_if(Remedy::smaller_batch, s, price(s), d));
  return true;
}

// fit() over values: the first setup for_each_fitting finds, or Remedy::nothing with the smallest
// batch the search tried (one sample a micro-batch, or two with a BatchNorm that needs two) and
// its bytes.
template <class Layers>
constexpr Fit fit_for(const Layers& layers, const SetupDesc& setup, const Device& d) {
  if (outgrows_flash(layers, setup, d))  // no batch helps, and the bytes mean nothing
    return Fit{Remedy::nothing, setup, Bytes{}};
  Fit first;
  if (for_each_fitting(layers, setup, d, [&](const Fit& f) {
        first = f;
        return false;
      }))
    return first;
  SetupDesc s = setup;
  s.batch = setup.micro_batches * smallest_micro_batch(layers, setup);
  const std::int64_t smallest = total_for_batch(layers, s, s.batch, without_host_budget(d));
  return Fit{Remedy::nothing, s, Bytes{smallest} + d.overhead};
}
}  // namespace detail

// The cheapest remedy with which Model, trained (or run) as Setup says, fits device d; Remedy::
// none when it fits as it is. It plans its candidates in one constant evaluation, as max_batch
// does: the dozen plans of a 2001-layer chain that needs a smaller batch exceed g++'s default
// limit there (bench/RESULTS.md, "Compile cost of fit"). fit_v, below, gives the same answer for a
// device known at compile time, each plan an evaluation of its own.
template <Model M, Setup S>
constexpr Fit fit(const Device& d) {
  (void)lower<M, S>();  // a wrong model fails here with its own error
  return detail::fit_for(flatten<M>(), S::desc(), d);
}

namespace detail {
// fit() spread over constant evaluations, one per candidate plan (each with the compilers' whole
// budget, as plan_v's stages are), in fit_for's order and with its answers.

// The setup at Batch as MicroBatches micro-batches (under fit's checkpointing where
// Checkpointed) on D, priced as price_for_batch prices it (total -1: it does not plan, or the host
// budget does not hold it).
template <Setup S, std::int64_t Batch, std::int64_t MicroBatches, bool Checkpointed>
inline constexpr SetupDesc candidate_setup_v = [] {
  SetupDesc s = Checkpointed ? checkpointed(S::desc()) : S::desc();
  s.batch = Batch;
  s.micro_batches = MicroBatches;
  return s;
}();
template <Model M, Setup S, Device D, std::int64_t Batch, std::int64_t MicroBatches,
          bool Checkpointed = false>
inline constexpr Priced candidate_v = price_for_batch(
    flatten<M>(), candidate_setup_v<S, Batch, MicroBatches, Checkpointed>, Batch, D);
// Its Fit under remedy r (none where it does not fit).
template <Model M, Setup S, Device D, std::int64_t Batch, std::int64_t MicroBatches,
          bool Checkpointed = false>
constexpr Fit candidate_fit(Remedy r) {
  return fit_if(r, candidate_setup_v<S, Batch, MicroBatches, Checkpointed>,
                candidate_v<M, S, D, Batch, MicroBatches, Checkpointed>, D);
}
template <Model M, Setup S, Device D, std::int64_t Batch, std::int64_t MicroBatches,
          bool Checkpointed = false>
inline constexpr bool candidate_fits_v =
    candidate_fit<M, S, D, Batch, MicroBatches, Checkpointed>(Remedy::none).found();

// The micro-batches of the first accumulation that fits, or 0.
template <Model M, Setup S, Device D, int I = 0>
constexpr std::int64_t first_fitting_accumulation() {
  constexpr Accumulations a = accumulations(S::desc());
  if constexpr (I >= a.count)
    return 0;
  else if constexpr (candidate_fits_v<M, S, D, S::desc().batch, a.k[I]>)
    return a.k[I];
  else
    return first_fitting_accumulation<M, S, D, I + 1>();
}
// The micro-batches at which fit's checkpointing first fits (I = -1: the setup's own; then each
// accumulation's), or 0.
// (Called where no accumulation fits; each candidate's checkpointed plan is made only where
// checkpoint_may_fit says it may.)
template <Model M, Setup S, Device D, int I = -1>
constexpr std::int64_t first_fitting_checkpoint() {
  constexpr Accumulations a = accumulations(S::desc());
  if constexpr (!tries_checkpoint(S::desc()) || I >= a.count) {
    return 0;
  } else {
    constexpr std::int64_t k = I < 0 ? S::desc().micro_batches : a.k[I];
    if constexpr (!checkpoint_may_fit(candidate_v<M, S, D, S::desc().batch, k>, D))
      return first_fitting_checkpoint<M, S, D, I + 1>();
    else if constexpr (candidate_fit<M, S, D, S::desc().batch, k, true>(Remedy::checkpoint).found())
      return k;
    else
      return first_fitting_checkpoint<M, S, D, I + 1>();
  }
}

// for_each_fitting's bisection for a smaller batch, its batches counted in micro-batches of B
// samples.
template <Model M, Setup S, Device D, std::int64_t B>
inline constexpr bool micro_fits_v =
    candidate_fits_v<M, S, D, S::desc().micro_batches * B, S::desc().micro_batches>;
template <Model M, Setup S, Device D, std::int64_t Fits, std::int64_t TooBig>
constexpr std::int64_t bisect() {
  if constexpr (TooBig - Fits <= 1) {
    return Fits;
  } else {
    constexpr std::int64_t mid = Fits + (TooBig - Fits) / 2;
    if constexpr (micro_fits_v<M, S, D, mid>)
      return bisect<M, S, D, mid, TooBig>();
    else
      return bisect<M, S, D, Fits, mid>();
  }
}
template <Model M, Setup S>
inline constexpr std::int64_t smallest_micro_batch_v = smallest_micro_batch(flatten<M>(),
                                                                            S::desc());
template <Model M, Setup S, Device D>
constexpr std::int64_t smaller_batch() {
  constexpr std::int64_t smallest = smallest_micro_batch_v<M, S>;
  constexpr std::int64_t own = S::desc().batch / S::desc().micro_batches;
  if constexpr (smallest >= own)
    return 0;
  else if constexpr (!micro_fits_v<M, S, D, smallest>)
    return 0;
  else
    return S::desc().micro_batches * bisect<M, S, D, smallest, own>();
}

template <Model M, Setup S, Device D>
constexpr bool flash_holds() {
  if constexpr (!D.has_flash()) {
    return true;
  } else {
    constexpr Footprint f = plan_v<M, S>.footprint;
    return flash_part(f, S::desc(), D) + D.flash_overhead <= D.flash;
  }
}

template <Model M, Setup S, Device D>
constexpr Fit staged_fit() {
  constexpr SetupDesc setup = S::desc();
  SetupDesc s = setup;
  if constexpr (!flash_holds<M, S, D>()) {
    return Fit{Remedy::nothing, s, Bytes{}};
  } else if constexpr (candidate_fits_v<M, S, D, setup.batch, setup.micro_batches>) {
    return candidate_fit<M, S, D, setup.batch, setup.micro_batches>(Remedy::none);
  } else if constexpr (constexpr std::int64_t k = first_fitting_accumulation<M, S, D>(); k > 0) {
    return candidate_fit<M, S, D, setup.batch, k>(Remedy::accumulate);
  } else if constexpr (constexpr std::int64_t c = first_fitting_checkpoint<M, S, D>(); c > 0) {
    return candidate_fit<M, S, D, setup.batch, c, true>(Remedy::checkpoint);
  } else if constexpr (constexpr std::int64_t b = smaller_batch<M, S, D>(); b > 0) {
    return candidate_fit<M, S, D, b, setup.micro_batches>(Remedy::smaller_batch);
  } else {
    constexpr std::int64_t smallest = setup.micro_batches * smallest_micro_batch_v<M, S>;
    s.batch = smallest;
    constexpr Device unbounded = without_host_budget(D);
    return Fit{
        Remedy::nothing, s,
        Bytes{candidate_v<M, S, unbounded, smallest, setup.micro_batches>.total} + D.overhead};
  }
}
}  // namespace detail

// fit<M, S>(D) for a device known at compile time, each candidate planned in a constant
// evaluation of its own: what assert_fits and fit_t use, so that a model too large for fit()'s one
// evaluation still hears its remedy.
template <Model M, Setup S, Device D>
inline constexpr Fit fit_v = [] {
  (void)lower<M, S>();
  return detail::staged_fit<M, S, D>();
}();

// A Setup type for a SetupDesc: what fit_t names.
template <SetupDesc D>
struct FittedSetup {
  static constexpr SetupDesc desc() { return D; }
};

// The setup fit chooses for D, as a type to plan and train: the setup itself when it fits, else
// the remedy's (a build where nothing fits fails in assert_fits).
template <Model M, Setup S, Device D>
using fit_t = FittedSetup<fit_v<M, S, D>.setup>;

namespace detail {
// fit()'s answer as the last argument of does_not_fit and does_not_fit_host.
template <Remedy R, std::int64_t MicroBatches, std::int64_t Batch, std::int64_t Needs,
          std::int64_t ExtraPercent>
struct remedy_named {
  using type = error::fits_with_nothing<error::smallest_batch<Batch>, error::needs_bytes<Needs>>;
};
template <std::int64_t MicroBatches, std::int64_t Batch, std::int64_t Needs,
          std::int64_t ExtraPercent>
struct remedy_named<Remedy::accumulate, MicroBatches, Batch, Needs, ExtraPercent> {
  using type =
      error::fits_with_accumulate<error::micro_batches<MicroBatches>, error::needs_bytes<Needs>>;
};
template <std::int64_t MicroBatches, std::int64_t Batch, std::int64_t Needs,
          std::int64_t ExtraPercent>
struct remedy_named<Remedy::checkpoint, MicroBatches, Batch, Needs, ExtraPercent> {
  using type = error::fits_with_checkpoint<Sqrt, error::micro_batches<MicroBatches>,
                                           error::needs_bytes<Needs>,
                                           error::extra_compute_percent<ExtraPercent>>;
};
template <std::int64_t MicroBatches, std::int64_t Batch, std::int64_t Needs,
          std::int64_t ExtraPercent>
struct remedy_named<Remedy::smaller_batch, MicroBatches, Batch, Needs, ExtraPercent> {
  using type = error::fits_with_smaller_batch<error::batch<Batch>, error::needs_bytes<Needs>>;
};
template <Model M, Setup S, Device D>
using remedy_for = typename remedy_named<fit_v<M, S, D>.remedy, fit_v<M, S, D>.setup.micro_batches,
                                         fit_v<M, S, D>.setup.batch, fit_v<M, S, D>.required.count,
                                         fit_v<M, S, D>.extra_compute_percent()>::type;
}  // namespace detail

// Fails the build when the plan does not fit D, naming required and budget bytes and the
// breakdown. Returns true, so it also reads well inside static_assert at namespace scope.
// On a microcontroller, an Int8 plan's SRAM and flash are checked apart, each failing with its
// own error (does_not_fit_sram, does_not_fit_flash), so a build over both budgets names both.
// A device that names a host budget (Device::host_memory) has the trainer's host bytes checked
// against it apart too (does_not_fit_host). Both end in what fit() finds (fits_with_accumulate,
// fits_with_checkpoint,
// fits_with_smaller_batch or fits_with_nothing), so the one error says what would fit.
template <Model M, Setup S, Device D>
constexpr bool assert_fits() {
  constexpr auto& p = plan_v<M, S>;
  constexpr std::int64_t required = required_memory(p, D).count;
  constexpr Footprint f = p.footprint;
  if constexpr (D.has_flash() && precision_dtypes(p.setup.precision).quantized) {
    if constexpr (p.error.ok() && required > D.memory.count)
      (void)sizeof(error::raise<error::does_not_fit_sram<
                       error::required_bytes<required>, error::budget_bytes<D.memory.count>,
                       error::activations<f.activations.count>, error::workspace<f.workspace.count>,
                       error::inputs<f.inputs.count>, error::device_overhead<D.overhead.count>>>);
    constexpr std::int64_t flash = required_flash(p, D).count;
    if constexpr (p.error.ok() && flash > D.flash.count)
      (void)sizeof(error::raise<error::does_not_fit_flash<
                       error::required_bytes<flash>, error::budget_bytes<D.flash.count>,
                       error::weights<f.weights.count>, error::non_trainable<f.non_trainable.count>,
                       error::code_overhead<D.flash_overhead.count>>>);
  } else if constexpr (p.error.ok() && required > D.memory.count) {
    (void)sizeof(
        error::raise<error::does_not_fit<
            error::required_bytes<required>, error::budget_bytes<D.memory.count>,
            error::weights<f.weights.count>, error::non_trainable<f.non_trainable.count>,
            error::gradients<f.gradients.count>, error::optimizer_state<f.optimizer_state.count>,
            error::activations<f.activations.count>, error::workspace<f.workspace.count>,
            error::inputs<f.inputs.count>, error::device_overhead<D.overhead.count>,
            error::host_bytes<shared_host_part(p.host, D).count>, detail::remedy_for<M, S, D>>>);
  }
  constexpr HostFootprint h = p.host;
  if constexpr (p.error.ok() && !host_fits(h, D))
    (void)sizeof(
        error::raise<error::does_not_fit_host<
            error::required_bytes<h.total().count>, error::budget_bytes<D.host_memory.count>,
            error::batch_slots<h.batch_slots.count>, error::pinned_staging<h.pinned_staging.count>,
            error::checkpoint_state<h.checkpoint_state.count>, detail::remedy_for<M, S, D>>>);
  return true;
}

}  // namespace staticnet
