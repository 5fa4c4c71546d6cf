// Gradient checkpointing (Checkpoint<P>) on the generated CUDA step, against the
// unremedied step's fixtures, as on the CPU (../test_checkpoint_fixtures.cpp says why those
// apply): the recompute steps inside the one captured graph, a recomputed Dropout's masks drawn
// from the step's constants on the device, a recomputed BatchNorm by its kept statistics.
#include <doctest/doctest.h>

#include <staticnet/runtime/trainer/cuda_backend.hpp>

#include "../mlperf_fixture_check.hpp"
#include "../pytorch_fixture_check.hpp"
#include "fx_simple_cnn_checkpoint_sqrt_adam_kernels_cuda.h"
#include "fx_simple_cnn_checkpoint_sqrt_adam_trainer.h"
#include "mlperf_ds_cnn_checkpoint_sqrt_accumulate2_kernels_cuda.h"
#include "mlperf_ds_cnn_checkpoint_sqrt_accumulate2_trainer.h"
#include "mlperf_ds_cnn_checkpoint_sqrt_kernels_cuda.h"
#include "mlperf_ds_cnn_checkpoint_sqrt_trainer.h"
#include "mlperf_fc_autoencoder_checkpoint_sqrt_kernels_cuda.h"
#include "mlperf_fc_autoencoder_checkpoint_sqrt_trainer.h"
#include "mlperf_resnet8_checkpoint_auto_kernels_cuda.h"
#include "mlperf_resnet8_checkpoint_auto_trainer.h"
#include "mlperf_resnet8_checkpoint_every2_kernels_cuda.h"
#include "mlperf_resnet8_checkpoint_every2_trainer.h"
#include "mlperf_resnet8_checkpoint_sqrt_accumulate2_kernels_cuda.h"
#include "mlperf_resnet8_checkpoint_sqrt_accumulate2_trainer.h"
#include "mlperf_resnet8_checkpoint_sqrt_kernels_cuda.h"
#include "mlperf_resnet8_checkpoint_sqrt_trainer.h"

namespace rt = staticnet::runtime;

TEST_CASE("pytorch on the GPU: simple_cnn under Checkpoint<Sqrt> with adam") {
  namespace generated = fx_simple_cnn_checkpoint_sqrt_adam;
  const rt::ModelInfo& info = generated::model_info();
  rt::CudaBackend backend(info, &generated::cuda::make_step);
  pytorch_fixture::check_against_pytorch("simple_cnn", "adam", info, backend);
}

#define STATICNET_MLPERF_CUDA_CHECKPOINT_CASE(model, policy, fixture)                     \
  TEST_CASE("pytorch on the GPU: MLPerf Tiny " #model " under Checkpoint<" #policy ">") { \
    namespace generated = mlperf_##model;                                                 \
    const rt::ModelInfo& info = generated::model_info();                                  \
    rt::CudaBackend backend(info, &generated::cuda::make_step);                           \
    MESSAGE(backend.details());                                                           \
    mlperf_fixture::check_mlperf(#fixture, info, backend);                                \
  }

STATICNET_MLPERF_CUDA_CHECKPOINT_CASE(resnet8_checkpoint_sqrt, Sqrt, resnet8)
STATICNET_MLPERF_CUDA_CHECKPOINT_CASE(ds_cnn_checkpoint_sqrt, Sqrt, ds_cnn)
STATICNET_MLPERF_CUDA_CHECKPOINT_CASE(resnet8_checkpoint_every2, Every<2>, resnet8)
STATICNET_MLPERF_CUDA_CHECKPOINT_CASE(resnet8_checkpoint_auto, Auto, resnet8)
STATICNET_MLPERF_CUDA_CHECKPOINT_CASE(fc_autoencoder_checkpoint_sqrt, Sqrt, fc_autoencoder)
STATICNET_MLPERF_CUDA_CHECKPOINT_CASE(resnet8_checkpoint_sqrt_accumulate2, Sqrt,
                                      resnet8_accumulate2)
STATICNET_MLPERF_CUDA_CHECKPOINT_CASE(ds_cnn_checkpoint_sqrt_accumulate2, Sqrt, ds_cnn_accumulate2)
