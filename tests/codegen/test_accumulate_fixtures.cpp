// Gradient accumulation (sn::Accumulate<K>) on the generated CPU step, against PyTorch.
//
// SimpleCNN, LeNet-5, the MLP and the linear regression have no BatchNorm, so K micro-batches of
// B/K samples, each loss divided by K as PyTorch's accumulation loop divides it, give the gradient
// of the whole batch's mean: the step is the unremedied one, and make_fixtures.py's whole-batch
// fixtures (three steps: every step's loss, the first step's gradients, the weights after the
// third) check it, at their FP32 tolerances (pytorch_fixture_check.hpp). Only the order of the
// sums differs: each micro-batch's part of a weight's gradient is summed, then the parts added.
// What this catches: a micro-batch that reads another's slice of the batch (or the first slice
// every time), a loss divided by the micro-batch instead of the batch (gradients K times too
// large), gradients zeroed per micro-batch (a Kth of them), losses written over one slice.
//
// The MLPerf Tiny models' BatchNorms normalise each micro-batch by its own statistics, so their
// accumulated step is not the whole batch's; make_accumulate_fixtures.py runs PyTorch's loop for
// them: three steps (losses, the first step's gradients, the weights and running statistics after
// the last) and an evaluation, at mlperf_fixture_check.hpp's tolerances. Each micro-batch's
// BatchNorm statistics, and each running-statistics update (two per step), must be PyTorch's:
// the whole batch's step differs from these fixtures by 2 % to 180 % of a gradient tensor
// (make_accumulate_fixtures.py prints it), and the DS-CNN's Dropout draws each micro-batch's slice
// of the whole batch's masks, as the fixture does.
#include <doctest/doctest.h>

#include <staticnet/runtime/trainer/cpu_backend.hpp>

#include "fx_lenet5_accumulate2_sgd_kernels_cpu.h"
#include "fx_lenet5_accumulate2_sgd_trainer.h"
#include "fx_linear_regression_accumulate5_adamw_kernels_cpu.h"
#include "fx_linear_regression_accumulate5_adamw_trainer.h"
#include "fx_mlp_accumulate8_sgd_momentum_kernels_cpu.h"
#include "fx_mlp_accumulate8_sgd_momentum_trainer.h"
#include "fx_mlp_mixed_bf16_accumulate4_adam_kernels_cpu.h"
#include "fx_mlp_mixed_bf16_accumulate4_adam_trainer.h"
#include "fx_simple_cnn_accumulate4_adam_kernels_cpu.h"
#include "fx_simple_cnn_accumulate4_adam_trainer.h"
#include "mlperf_ds_cnn_accumulate2_kernels_cpu.h"
#include "mlperf_ds_cnn_accumulate2_trainer.h"
#include "mlperf_fc_autoencoder_accumulate2_kernels_cpu.h"
#include "mlperf_fc_autoencoder_accumulate2_trainer.h"
#include "mlperf_fixture_check.hpp"
#include "mlperf_resnet8_accumulate2_kernels_cpu.h"
#include "mlperf_resnet8_accumulate2_trainer.h"
#include "pytorch_fixture_check.hpp"

namespace rt = staticnet::runtime;

#define STATICNET_ACCUMULATE_CASE(model, k, optimizer)                                         \
  TEST_CASE("pytorch: " #model " under Accumulate<" #k "> with " #optimizer                    \
            " is the whole batch's step") {                                                    \
    namespace generated = fx_##model##_accumulate##k##_##optimizer;                            \
    static_assert(generated::micro_batches == k);                                              \
    const rt::ModelInfo& info = generated::model_info();                                       \
    rt::CpuBackend backend(info, {&generated::cpu::train_step, &generated::cpu::evaluate}, 2); \
    pytorch_fixture::check_against_pytorch(#model, #optimizer, info, backend);                 \
  }

STATICNET_ACCUMULATE_CASE(simple_cnn, 4, adam)
STATICNET_ACCUMULATE_CASE(lenet5, 2, sgd)
STATICNET_ACCUMULATE_CASE(mlp, 8, sgd_momentum)
STATICNET_ACCUMULATE_CASE(linear_regression, 5, adamw)

// Mixed<bf16>: each micro-batch's gradient is rounded to bf16 (the working copy's) before the parts
// are added in f32, where the whole batch's step rounds one sum; measured, that moves the MLP's
// first gradients by up to 0.7 % of their largest, past bf16's tolerance of the whole-batch
// fixture. So this one is checked against PyTorch's own accumulation loop under autocast
// (make_accumulate_fixtures.py), at test_mixed_fixtures.cpp's bf16 Adam tolerances.
TEST_CASE("pytorch autocast: mlp in Mixed<bf16> under Accumulate<4> with adam") {
  namespace generated = fx_mlp_mixed_bf16_accumulate4_adam;
  static_assert(generated::micro_batches == 4);
  const rt::ModelInfo& info = generated::model_info();
  rt::CpuBackend backend(info, {&generated::cpu::train_step, &generated::cpu::evaluate}, 2);
  pytorch_fixture::check_against_pytorch("mlp_mixed_bf16_accumulate4", "adam", info, backend,
                                         {.loss = 1e-4,
                                          .gradients = 0x1p-8,
                                          .weights = 1e-4,
                                          .weight_outliers = 0.01,
                                          .outlier_bound = 2 * 1e-3 * 3});
}

#define STATICNET_MLPERF_ACCUMULATE_CASE(model)                                                   \
  TEST_CASE("pytorch: MLPerf Tiny " #model " under Accumulate<2>, PyTorch's accumulation loop") { \
    namespace generated = mlperf_##model##_accumulate2;                                           \
    static_assert(generated::micro_batches == 2);                                                 \
    const rt::ModelInfo& info = generated::model_info();                                          \
    rt::CpuBackend backend(info, {&generated::cpu::train_step, &generated::cpu::evaluate}, 2);    \
    mlperf_fixture::check_mlperf(#model "_accumulate2", info, backend);                           \
  }

STATICNET_MLPERF_ACCUMULATE_CASE(resnet8)
STATICNET_MLPERF_ACCUMULATE_CASE(ds_cnn)
STATICNET_MLPERF_ACCUMULATE_CASE(fc_autoencoder)
