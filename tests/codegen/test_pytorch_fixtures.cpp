// The generated CPU step against PyTorch, every sample under every optimizer
// (pytorch_fixture_check.hpp says what is checked; tests/codegen/cuda/ runs the same on the GPU).
#include <doctest/doctest.h>

#include <staticnet/runtime/trainer/cpu_backend.hpp>

#include "fx_lenet5_adam_kernels_cpu.h"
#include "fx_lenet5_adam_trainer.h"
#include "fx_lenet5_adamw_kernels_cpu.h"
#include "fx_lenet5_adamw_trainer.h"
#include "fx_lenet5_sgd_kernels_cpu.h"
#include "fx_lenet5_sgd_momentum_kernels_cpu.h"
#include "fx_lenet5_sgd_momentum_trainer.h"
#include "fx_lenet5_sgd_trainer.h"
#include "fx_linear_regression_adam_kernels_cpu.h"
#include "fx_linear_regression_adam_trainer.h"
#include "fx_linear_regression_adamw_kernels_cpu.h"
#include "fx_linear_regression_adamw_trainer.h"
#include "fx_linear_regression_sgd_kernels_cpu.h"
#include "fx_linear_regression_sgd_momentum_kernels_cpu.h"
#include "fx_linear_regression_sgd_momentum_trainer.h"
#include "fx_linear_regression_sgd_trainer.h"
#include "fx_mlp_adam_kernels_cpu.h"
#include "fx_mlp_adam_trainer.h"
#include "fx_mlp_adamw_kernels_cpu.h"
#include "fx_mlp_adamw_trainer.h"
#include "fx_mlp_sgd_kernels_cpu.h"
#include "fx_mlp_sgd_momentum_kernels_cpu.h"
#include "fx_mlp_sgd_momentum_trainer.h"
#include "fx_mlp_sgd_trainer.h"
#include "fx_simple_cnn_adam_kernels_cpu.h"
#include "fx_simple_cnn_adam_trainer.h"
#include "fx_simple_cnn_adamw_kernels_cpu.h"
#include "fx_simple_cnn_adamw_trainer.h"
#include "fx_simple_cnn_sgd_kernels_cpu.h"
#include "fx_simple_cnn_sgd_momentum_kernels_cpu.h"
#include "fx_simple_cnn_sgd_momentum_trainer.h"
#include "fx_simple_cnn_sgd_trainer.h"
#include "pytorch_fixture_check.hpp"

#define STATICNET_FIXTURE_CASE(model, optimizer)                                                \
  TEST_CASE("pytorch: " #model " with " #optimizer ", three steps") {                           \
    const rt::ModelInfo& info = fx_##model##_##optimizer::model_info();                         \
    rt::CpuBackend backend(                                                                     \
        info,                                                                                   \
        {&fx_##model##_##optimizer::cpu::train_step, &fx_##model##_##optimizer::cpu::evaluate}, \
        2);                                                                                     \
    pytorch_fixture::check_against_pytorch(#model, #optimizer, info, backend);                  \
  }

namespace rt = staticnet::runtime;

STATICNET_FIXTURE_CASE(simple_cnn, sgd)
STATICNET_FIXTURE_CASE(simple_cnn, sgd_momentum)
STATICNET_FIXTURE_CASE(simple_cnn, adam)
STATICNET_FIXTURE_CASE(simple_cnn, adamw)
STATICNET_FIXTURE_CASE(lenet5, sgd)
STATICNET_FIXTURE_CASE(lenet5, sgd_momentum)
STATICNET_FIXTURE_CASE(lenet5, adam)
STATICNET_FIXTURE_CASE(lenet5, adamw)
STATICNET_FIXTURE_CASE(mlp, sgd)
STATICNET_FIXTURE_CASE(mlp, sgd_momentum)
STATICNET_FIXTURE_CASE(mlp, adam)
STATICNET_FIXTURE_CASE(mlp, adamw)
STATICNET_FIXTURE_CASE(linear_regression, sgd)
STATICNET_FIXTURE_CASE(linear_regression, sgd_momentum)
STATICNET_FIXTURE_CASE(linear_regression, adam)
STATICNET_FIXTURE_CASE(linear_regression, adamw)
