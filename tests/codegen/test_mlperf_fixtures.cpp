// The MLPerf Tiny models' generated CPU step against PyTorch (mlperf_fixture_check.hpp says
// what is checked, and within what).
#include <doctest/doctest.h>

#include <staticnet/runtime/trainer/cpu_backend.hpp>

#include "mlperf_ds_cnn_kernels_cpu.h"
#include "mlperf_ds_cnn_trainer.h"
#include "mlperf_fc_autoencoder_kernels_cpu.h"
#include "mlperf_fc_autoencoder_trainer.h"
#include "mlperf_fixture_check.hpp"
#include "mlperf_mobilenet_v1_kernels_cpu.h"
#include "mlperf_mobilenet_v1_trainer.h"
#include "mlperf_resnet8_kernels_cpu.h"
#include "mlperf_resnet8_trainer.h"

#define STATICNET_MLPERF_CASE(model)                                                  \
  TEST_CASE("pytorch: MLPerf Tiny " #model ", training steps and an evaluation") {    \
    const staticnet::runtime::ModelInfo& info = mlperf_##model::model_info();         \
    staticnet::runtime::CpuBackend backend(                                           \
        info, {&mlperf_##model::cpu::train_step, &mlperf_##model::cpu::evaluate}, 2); \
    mlperf_fixture::check_mlperf(#model, info, backend);                              \
  }

STATICNET_MLPERF_CASE(resnet8)
STATICNET_MLPERF_CASE(ds_cnn)
STATICNET_MLPERF_CASE(mobilenet_v1)
STATICNET_MLPERF_CASE(fc_autoencoder)
