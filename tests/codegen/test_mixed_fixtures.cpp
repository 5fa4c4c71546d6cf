// Mixed<bf16> on the generated CPU step against PyTorch's autocast
// (tests/reference/make_mixed_fixtures.py): the same initial weights and batch, three optimizer
// steps, for SimpleCNN, LeNet-5, the MLP and the linear regression.
//
// Tolerances, derived. Both sides round the same float sums to bf16 at the same points (the
// model's input as autocast casts it, each product's output after its bias, each activation's
// and pool's output, each gradient), but add the sums in different orders (PyTorch's convolutions
// are oneDNN's); a sum within a float rounding of a tie between two bf16 values can
// round up on one side and down on the other, and that element then differs by one bf16 step
// (2^-8 of itself).
//   loss       f32 from the bf16 logits: one flipped logit moves one sample's loss by at most 2^-8
//              of that logit, so the mean of 64 by 2^-8/64 ≈ 6e-5 of a logit's size: 1e-4.
//   gradients  one flipped element of a tensor is at most one step of its largest, 2^-8.
//   weights    FP32's 1e-4 under SGD: a step moves a weight by lr·g, so a gradient within 2^-8 of
//              PyTorch's moves it by far less than 1e-4 of the largest weight over three steps.
//              Adam's first step moves every weight by lr·sign(g) (m̂/√v̂ = g/|g|), and later ones
//              by about as much for a gradient near zero: where bf16's rounding leaves a gradient
//              within 2^-8 of the tensor's largest, the two sides can step a weight opposite ways,
//              2·lr apart per step. So under Adam a few weights may be off, each by at most
//              2·lr·3 = 6e-3; they are the weights whose gradients are that small, a sliver of
//              each tensor (LeNet-5's, whose tanh gradients are small, has the most): at most 1 %.
//              A wrong update (say to the working copy instead of the master, or a stale copy)
//              moves most weights, and the losses of steps 2 and 3 with them.
// Measured when the test was written: losses within 3e-7, gradients within 6e-5 (0.weight of the
// MLP: one flip); weights within 1e-5 under SGD, and under Adam all but 37 of LeNet-5's 48,000
// 7.weight (0.08 %), 2 of its 10,080 9.weight and 1 of its 840 11.weight. Before the model's f32
// input was rounded as autocast rounds it, the MLP's hidden layers' gradients were 11 to 26 %
// off: these tolerances catch that.
#include <doctest/doctest.h>

#include <staticnet/runtime/trainer/cpu_backend.hpp>

#include "fx_lenet5_mixed_bf16_adam_kernels_cpu.h"
#include "fx_lenet5_mixed_bf16_adam_trainer.h"
#include "fx_lenet5_mixed_bf16_sgd_kernels_cpu.h"
#include "fx_lenet5_mixed_bf16_sgd_trainer.h"
#include "fx_linear_regression_mixed_bf16_adam_kernels_cpu.h"
#include "fx_linear_regression_mixed_bf16_adam_trainer.h"
#include "fx_linear_regression_mixed_bf16_sgd_kernels_cpu.h"
#include "fx_linear_regression_mixed_bf16_sgd_trainer.h"
#include "fx_mlp_mixed_bf16_adam_kernels_cpu.h"
#include "fx_mlp_mixed_bf16_adam_trainer.h"
#include "fx_mlp_mixed_bf16_sgd_kernels_cpu.h"
#include "fx_mlp_mixed_bf16_sgd_trainer.h"
#include "fx_simple_cnn_mixed_bf16_adam_kernels_cpu.h"
#include "fx_simple_cnn_mixed_bf16_adam_trainer.h"
#include "fx_simple_cnn_mixed_bf16_sgd_kernels_cpu.h"
#include "fx_simple_cnn_mixed_bf16_sgd_trainer.h"
#include "pytorch_fixture_check.hpp"

namespace rt = staticnet::runtime;

namespace {

constexpr pytorch_fixture::Tolerances mixed_bf16{
    .loss = 1e-4, .gradients = 0x1p-8, .weights = 1e-4};
// Adam's learning rate in the fixtures, 1e-3: the outliers' bound is 2·lr per step, three steps.
constexpr pytorch_fixture::Tolerances mixed_bf16_adam{.loss = 1e-4,
                                                      .gradients = 0x1p-8,
                                                      .weights = 1e-4,
                                                      .weight_outliers = 0.01,
                                                      .outlier_bound = 2 * 1e-3 * 3};

constexpr const pytorch_fixture::Tolerances& tolerances(std::string_view optimizer) {
  return optimizer == "adam" ? mixed_bf16_adam : mixed_bf16;
}

}  // namespace

#define STATICNET_MIXED_CASE(model, optimizer)                                                 \
  TEST_CASE("pytorch autocast: " #model " in Mixed<bf16> with " #optimizer ", three steps") {  \
    namespace generated = fx_##model##_mixed_bf16_##optimizer;                                 \
    const rt::ModelInfo& info = generated::model_info();                                       \
    rt::CpuBackend backend(info, {&generated::cpu::train_step, &generated::cpu::evaluate}, 2); \
    pytorch_fixture::check_against_pytorch(#model "_mixed_bf16", #optimizer, info, backend,    \
                                           tolerances(#optimizer));                            \
  }

STATICNET_MIXED_CASE(simple_cnn, sgd)
STATICNET_MIXED_CASE(simple_cnn, adam)
STATICNET_MIXED_CASE(lenet5, sgd)
STATICNET_MIXED_CASE(lenet5, adam)
STATICNET_MIXED_CASE(mlp, sgd)
STATICNET_MIXED_CASE(mlp, adam)
STATICNET_MIXED_CASE(linear_regression, sgd)
STATICNET_MIXED_CASE(linear_regression, adam)
