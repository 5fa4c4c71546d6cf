// The generated CUDA step against PyTorch: the same fixtures, tolerances and checks as the CPU
// step's (pytorch_fixture_check.hpp), every sample under every optimizer. Three steps also cover
// the CUDA backend's three ways of running a step: launch by launch (the first), captured into a
// graph (the second) and replayed (the third).
#include <doctest/doctest.h>

#include <staticnet/runtime/trainer/cuda_backend.hpp>

#include "../pytorch_fixture_check.hpp"
#include "fx_lenet5_accumulate2_sgd_kernels_cuda.h"
#include "fx_lenet5_accumulate2_sgd_trainer.h"
#include "fx_lenet5_adam_kernels_cuda.h"
#include "fx_lenet5_adam_trainer.h"
#include "fx_lenet5_adamw_kernels_cuda.h"
#include "fx_lenet5_adamw_trainer.h"
#include "fx_lenet5_sgd_kernels_cuda.h"
#include "fx_lenet5_sgd_momentum_kernels_cuda.h"
#include "fx_lenet5_sgd_momentum_trainer.h"
#include "fx_lenet5_sgd_trainer.h"
#include "fx_linear_regression_accumulate5_adamw_kernels_cuda.h"
#include "fx_linear_regression_accumulate5_adamw_trainer.h"
#include "fx_linear_regression_adam_kernels_cuda.h"
#include "fx_linear_regression_adam_trainer.h"
#include "fx_linear_regression_adamw_kernels_cuda.h"
#include "fx_linear_regression_adamw_trainer.h"
#include "fx_linear_regression_sgd_kernels_cuda.h"
#include "fx_linear_regression_sgd_momentum_kernels_cuda.h"
#include "fx_linear_regression_sgd_momentum_trainer.h"
#include "fx_linear_regression_sgd_trainer.h"
#include "fx_mlp_accumulate8_sgd_momentum_kernels_cuda.h"
#include "fx_mlp_accumulate8_sgd_momentum_trainer.h"
#include "fx_mlp_adam_kernels_cuda.h"
#include "fx_mlp_adam_trainer.h"
#include "fx_mlp_adamw_kernels_cuda.h"
#include "fx_mlp_adamw_trainer.h"
#include "fx_mlp_sgd_kernels_cuda.h"
#include "fx_mlp_sgd_momentum_kernels_cuda.h"
#include "fx_mlp_sgd_momentum_trainer.h"
#include "fx_mlp_sgd_trainer.h"
#include "fx_simple_cnn_accumulate4_adam_kernels_cuda.h"
#include "fx_simple_cnn_accumulate4_adam_trainer.h"
#include "fx_simple_cnn_adam_kernels_cuda.h"
#include "fx_simple_cnn_adam_trainer.h"
#include "fx_simple_cnn_adamw_kernels_cuda.h"
#include "fx_simple_cnn_adamw_trainer.h"
#include "fx_simple_cnn_sgd_kernels_cuda.h"
#include "fx_simple_cnn_sgd_momentum_kernels_cuda.h"
#include "fx_simple_cnn_sgd_momentum_trainer.h"
#include "fx_simple_cnn_sgd_trainer.h"

namespace rt = staticnet::runtime;

#define STATICNET_CUDA_FIXTURE_CASE(model, optimizer)                            \
  TEST_CASE("pytorch on the GPU: " #model " with " #optimizer ", three steps") { \
    const rt::ModelInfo& info = fx_##model##_##optimizer::model_info();          \
    rt::CudaBackend backend(info, &fx_##model##_##optimizer::cuda::make_step);   \
    pytorch_fixture::check_against_pytorch(#model, #optimizer, info, backend);   \
  }

STATICNET_CUDA_FIXTURE_CASE(simple_cnn, sgd)
STATICNET_CUDA_FIXTURE_CASE(simple_cnn, sgd_momentum)
STATICNET_CUDA_FIXTURE_CASE(simple_cnn, adam)
STATICNET_CUDA_FIXTURE_CASE(simple_cnn, adamw)
STATICNET_CUDA_FIXTURE_CASE(lenet5, sgd)
STATICNET_CUDA_FIXTURE_CASE(lenet5, sgd_momentum)
STATICNET_CUDA_FIXTURE_CASE(lenet5, adam)
STATICNET_CUDA_FIXTURE_CASE(lenet5, adamw)
STATICNET_CUDA_FIXTURE_CASE(mlp, sgd)
STATICNET_CUDA_FIXTURE_CASE(mlp, sgd_momentum)
STATICNET_CUDA_FIXTURE_CASE(mlp, adam)
STATICNET_CUDA_FIXTURE_CASE(mlp, adamw)
STATICNET_CUDA_FIXTURE_CASE(linear_regression, sgd)
STATICNET_CUDA_FIXTURE_CASE(linear_regression, sgd_momentum)
STATICNET_CUDA_FIXTURE_CASE(linear_regression, adam)
STATICNET_CUDA_FIXTURE_CASE(linear_regression, adamw)

// Gradient accumulation (sn::Accumulate<K>): the micro-batches' loop inside the one captured graph
// gives the whole batch's step, as on the CPU (../test_accumulate_fixtures.cpp says why these
// models' whole-batch fixtures check it).
#define STATICNET_CUDA_ACCUMULATE_CASE(model, k, optimizer)                               \
  TEST_CASE("pytorch on the GPU: " #model " under Accumulate<" #k "> with " #optimizer) { \
    namespace generated = fx_##model##_accumulate##k##_##optimizer;                       \
    const rt::ModelInfo& info = generated::model_info();                                  \
    rt::CudaBackend backend(info, &generated::cuda::make_step);                           \
    pytorch_fixture::check_against_pytorch(#model, #optimizer, info, backend);            \
  }

STATICNET_CUDA_ACCUMULATE_CASE(simple_cnn, 4, adam)
STATICNET_CUDA_ACCUMULATE_CASE(lenet5, 2, sgd)
STATICNET_CUDA_ACCUMULATE_CASE(mlp, 8, sgd_momentum)
STATICNET_CUDA_ACCUMULATE_CASE(linear_regression, 5, adamw)
