// Gradient checkpointing (Checkpoint<P>) on the generated CPU step, against PyTorch.
//
// A recompute runs forward's own kernels on the values forward had, so the checkpointed step is
// the unremedied one, and the unremedied step's fixtures check it at their tolerances: SimpleCNN
// against make_fixtures.py's, the MLPerf Tiny models against make_mlperf_fixtures.py's and, under
// Accumulate<2>, make_accumulate_fixtures.py's. What this catches: a backward that reads a buffer
// no recompute wrote (or one a later buffer overwrote), a recompute that reads the wrong input, a
// recomputed Dropout that draws a new mask, and a recomputed BatchNorm that updates its running
// statistics a second time, as torch.utils.checkpoint does (the fixtures compare the running
// statistics after three steps; making the recompute call forward's function fails ResNet-8 and
// the FC autoencoder there). Each setup recomputes something (the static_asserts below): the
// DS-CNN's Dropout under Sqrt, ResNet-8's first residual Add under Every<2>.
#include <doctest/doctest.h>

#include <staticnet/runtime/trainer/cpu_backend.hpp>

#include "fixture_setups.hpp"
#include "fx_simple_cnn_checkpoint_sqrt_adam_kernels_cpu.h"
#include "fx_simple_cnn_checkpoint_sqrt_adam_trainer.h"
#include "mlperf_ds_cnn_checkpoint_sqrt_accumulate2_kernels_cpu.h"
#include "mlperf_ds_cnn_checkpoint_sqrt_accumulate2_trainer.h"
#include "mlperf_ds_cnn_checkpoint_sqrt_kernels_cpu.h"
#include "mlperf_ds_cnn_checkpoint_sqrt_trainer.h"
#include "mlperf_fc_autoencoder_checkpoint_sqrt_kernels_cpu.h"
#include "mlperf_fc_autoencoder_checkpoint_sqrt_trainer.h"
#include "mlperf_fixture_check.hpp"
#include "mlperf_fixture_setups.hpp"
#include "mlperf_resnet8_checkpoint_auto_kernels_cpu.h"
#include "mlperf_resnet8_checkpoint_auto_trainer.h"
#include "mlperf_resnet8_checkpoint_every2_kernels_cpu.h"
#include "mlperf_resnet8_checkpoint_every2_trainer.h"
#include "mlperf_resnet8_checkpoint_sqrt_accumulate2_kernels_cpu.h"
#include "mlperf_resnet8_checkpoint_sqrt_accumulate2_trainer.h"
#include "mlperf_resnet8_checkpoint_sqrt_kernels_cpu.h"
#include "mlperf_resnet8_checkpoint_sqrt_trainer.h"
#include "pytorch_fixture_check.hpp"

namespace rt = staticnet::runtime;
namespace sn = staticnet;

namespace {
template <class Model, class Setup>
constexpr bool recomputes() {
  return sn::plan<Model, Setup>().recompute_flops() > 0;
}
namespace m = mlperf_fixture_setups;
static_assert(recomputes<sn::samples::SimpleCNN, fixture_setups::SimpleCNNCheckpointSqrtAdam>());
static_assert(recomputes<sn::samples::ResNet8, m::ResNet8CheckpointSqrt>());
static_assert(recomputes<sn::samples::ResNet8, m::ResNet8CheckpointEvery2>());
static_assert(recomputes<sn::samples::ResNet8, m::ResNet8CheckpointAuto>());
// Auto within Sqrt's step, recomputing no more than Sqrt.
static_assert(sn::plan<sn::samples::ResNet8, m::ResNet8CheckpointAuto>().footprint.total() <=
              sn::plan<sn::samples::ResNet8, m::ResNet8CheckpointSqrt>().footprint.total());
static_assert(sn::plan<sn::samples::ResNet8, m::ResNet8CheckpointAuto>().recompute_flops() <=
              sn::plan<sn::samples::ResNet8, m::ResNet8CheckpointSqrt>().recompute_flops());
static_assert(recomputes<sn::samples::DSCNN, m::DSCNNCheckpointSqrt>());
static_assert(recomputes<sn::samples::FCAutoencoder, m::FCAutoencoderCheckpointSqrt>());
static_assert(recomputes<sn::samples::ResNet8, m::ResNet8CheckpointSqrtAccumulate2>());
static_assert(recomputes<sn::samples::DSCNN, m::DSCNNCheckpointSqrtAccumulate2>());
// The recomputed layers these cases rely on: the DS-CNN's Dropout (layer 3), and ResNet-8's
// first block's Add.
static_assert(sn::plan<sn::samples::DSCNN, m::DSCNNCheckpointSqrt>().layers[3].kind ==
                  sn::LayerKind::Dropout &&
              sn::plan<sn::samples::DSCNN, m::DSCNNCheckpointSqrt>().layers[3].recompute_flops > 0);
constexpr bool recomputes_an_add() {
  for (const sn::LayerPlan& l : sn::plan<sn::samples::ResNet8, m::ResNet8CheckpointEvery2>().layers)
    if (l.kind == sn::LayerKind::Add && l.recompute_flops > 0)
      return true;
  return false;
}
static_assert(recomputes_an_add());
}  // namespace

TEST_CASE("pytorch: simple_cnn under Checkpoint<Sqrt> with adam is the unremedied step") {
  namespace generated = fx_simple_cnn_checkpoint_sqrt_adam;
  const rt::ModelInfo& info = generated::model_info();
  rt::CpuBackend backend(info, {&generated::cpu::train_step, &generated::cpu::evaluate}, 2);
  pytorch_fixture::check_against_pytorch("simple_cnn", "adam", info, backend);
}

#define STATICNET_MLPERF_CHECKPOINT_CASE(model, policy, fixture)                                 \
  TEST_CASE("pytorch: MLPerf Tiny " #model " under Checkpoint<" #policy "> is " #fixture "'s") { \
    namespace generated = mlperf_##model;                                                        \
    const rt::ModelInfo& info = generated::model_info();                                         \
    rt::CpuBackend backend(info, {&generated::cpu::train_step, &generated::cpu::evaluate}, 2);   \
    mlperf_fixture::check_mlperf(#fixture, info, backend);                                       \
  }

STATICNET_MLPERF_CHECKPOINT_CASE(resnet8_checkpoint_sqrt, Sqrt, resnet8)
STATICNET_MLPERF_CHECKPOINT_CASE(ds_cnn_checkpoint_sqrt, Sqrt, ds_cnn)
STATICNET_MLPERF_CHECKPOINT_CASE(resnet8_checkpoint_every2, Every<2>, resnet8)
STATICNET_MLPERF_CHECKPOINT_CASE(resnet8_checkpoint_auto, Auto, resnet8)
STATICNET_MLPERF_CHECKPOINT_CASE(fc_autoencoder_checkpoint_sqrt, Sqrt, fc_autoencoder)
STATICNET_MLPERF_CHECKPOINT_CASE(resnet8_checkpoint_sqrt_accumulate2, Sqrt, resnet8_accumulate2)
STATICNET_MLPERF_CHECKPOINT_CASE(ds_cnn_checkpoint_sqrt_accumulate2, Sqrt, ds_cnn_accumulate2)
