// The MLPerf Tiny models' generated CUDA step against PyTorch: the same fixtures, checks and
// tolerances as their CPU step's (mlperf_fixture_check.hpp). Three steps also cover the CUDA
// backend's three ways of running a step: launch by launch, captured into a graph, and replayed
// (Dropout's masks must change with the step inside the captured graph).
#include <doctest/doctest.h>

#include <staticnet/runtime/trainer/cuda_backend.hpp>

#include "../mlperf_fixture_check.hpp"
#include "mlperf_ds_cnn_accumulate2_kernels_cuda.h"
#include "mlperf_ds_cnn_accumulate2_trainer.h"
#include "mlperf_ds_cnn_kernels_cuda.h"
#include "mlperf_ds_cnn_trainer.h"
#include "mlperf_fc_autoencoder_accumulate2_kernels_cuda.h"
#include "mlperf_fc_autoencoder_accumulate2_trainer.h"
#include "mlperf_fc_autoencoder_kernels_cuda.h"
#include "mlperf_fc_autoencoder_trainer.h"
#include "mlperf_mobilenet_v1_kernels_cuda.h"
#include "mlperf_mobilenet_v1_trainer.h"
#include "mlperf_resnet8_accumulate2_kernels_cuda.h"
#include "mlperf_resnet8_accumulate2_trainer.h"
#include "mlperf_resnet8_kernels_cuda.h"
#include "mlperf_resnet8_trainer.h"

#define STATICNET_MLPERF_CUDA_CASE(model)                                                     \
  TEST_CASE("pytorch on the GPU: MLPerf Tiny " #model ", training steps and an evaluation") { \
    const staticnet::runtime::ModelInfo& info = mlperf_##model::model_info();                 \
    staticnet::runtime::CudaBackend backend(info, &mlperf_##model::cuda::make_step);          \
    MESSAGE(backend.details()); /* what cuDNN and cuBLASLt chose, for a failure's reader */   \
    mlperf_fixture::check_mlperf(#model, info, backend);                                      \
  }

STATICNET_MLPERF_CUDA_CASE(resnet8)
STATICNET_MLPERF_CUDA_CASE(ds_cnn)
STATICNET_MLPERF_CUDA_CASE(mobilenet_v1)
STATICNET_MLPERF_CUDA_CASE(fc_autoencoder)

// Under Accumulate<2>, against PyTorch's accumulation loop (make_accumulate_fixtures.py): the
// micro-batches' BatchNorm statistics and Dropout masks inside the one captured graph.
#define STATICNET_MLPERF_CUDA_ACCUMULATE_CASE(model)                            \
  TEST_CASE("pytorch on the GPU: MLPerf Tiny " #model " under Accumulate<2>") { \
    namespace generated = mlperf_##model##_accumulate2;                         \
    const staticnet::runtime::ModelInfo& info = generated::model_info();        \
    staticnet::runtime::CudaBackend backend(info, &generated::cuda::make_step); \
    MESSAGE(backend.details());                                                 \
    mlperf_fixture::check_mlperf(#model "_accumulate2", info, backend);         \
  }

STATICNET_MLPERF_CUDA_ACCUMULATE_CASE(resnet8)
STATICNET_MLPERF_CUDA_ACCUMULATE_CASE(ds_cnn)
STATICNET_MLPERF_CUDA_ACCUMULATE_CASE(fc_autoencoder)
