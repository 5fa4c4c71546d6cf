// Mixed<bf16> on the generated CPU step against PyTorch's autocast
// (tests/reference/make_mixed_fixtures.py): the same initial weights and batch, three optimizer
// steps, for the models the CPU backend renders in mixed precision so far (Linear layers).
//
// Tolerances, derived. Both sides round the same float sums to bf16 at the same points (the
// model's input as autocast casts it, each Linear's output after its bias, each gradient), but add
// the sums in different orders; a sum within a float rounding of a tie between two bf16 values can
// round up on one side and down on the other, and that element then differs by one bf16 step
// (2^-8 of itself).
//   loss       f32 from the bf16 logits: one flipped logit moves one sample's loss by at most 2^-8
//              of that logit, so the mean of 64 by 2^-8/64 ≈ 6e-5 of a logit's size: 1e-4.
//   gradients  one flipped element of a tensor is at most one step of its largest, 2^-8.
//   weights    FP32's 1e-4: a step moves a weight by lr·g (SGD) or by at most lr (Adam), so a
//              gradient within 2^-8 of PyTorch's moves it by far less than 1e-4 of the largest
//              weight over three steps (unless Adam meets a gradient that rounds to the other sign,
//              which these fixtures do not).
// Measured when the test was written: losses within 3e-7, gradients within 6e-5 (0.weight of the
// MLP: one flip), weights within 1e-5. Before the model's f32 input was rounded as autocast
// rounds it, the MLP's hidden layers' gradients were 11 to 26 % off: these tolerances catch that.
#include <doctest/doctest.h>

#include <staticnet/runtime/trainer/cpu_backend.hpp>

#include "fx_linear_regression_mixed_bf16_adam_kernels_cpu.h"
#include "fx_linear_regression_mixed_bf16_adam_trainer.h"
#include "fx_linear_regression_mixed_bf16_sgd_kernels_cpu.h"
#include "fx_linear_regression_mixed_bf16_sgd_trainer.h"
#include "fx_mlp_mixed_bf16_adam_kernels_cpu.h"
#include "fx_mlp_mixed_bf16_adam_trainer.h"
#include "fx_mlp_mixed_bf16_sgd_kernels_cpu.h"
#include "fx_mlp_mixed_bf16_sgd_trainer.h"
#include "pytorch_fixture_check.hpp"

namespace rt = staticnet::runtime;

namespace {

constexpr pytorch_fixture::Tolerances mixed_bf16{
    .loss = 1e-4, .gradients = 0x1p-8, .weights = 1e-4};

}  // namespace

#define STATICNET_MIXED_CASE(model, optimizer)                                                 \
  TEST_CASE("pytorch autocast: " #model " in Mixed<bf16> with " #optimizer ", three steps") {  \
    namespace generated = fx_##model##_mixed_bf16_##optimizer;                                 \
    const rt::ModelInfo& info = generated::model_info();                                       \
    rt::CpuBackend backend(info, {&generated::cpu::train_step, &generated::cpu::evaluate}, 2); \
    pytorch_fixture::check_against_pytorch(#model "_mixed_bf16", #optimizer, info, backend,    \
                                           mixed_bf16);                                        \
  }

STATICNET_MIXED_CASE(mlp, sgd)
STATICNET_MIXED_CASE(mlp, adam)
STATICNET_MIXED_CASE(linear_regression, sgd)
STATICNET_MIXED_CASE(linear_regression, adam)
