#pragma once
// The MLPerf Tiny samples at the batches of tests/reference/make_mlperf_fixtures.py, trained with
// SGD with momentum (that script says why not Adam): the model types are the samples' own.
#include <staticnet/staticnet.hpp>

#include "samples/mlperf_tiny/ds_cnn.hpp"
#include "samples/mlperf_tiny/fc_autoencoder.hpp"
#include "samples/mlperf_tiny/mobilenet_v1.hpp"
#include "samples/mlperf_tiny/resnet8.hpp"

namespace mlperf_fixture_setups {

namespace sn = staticnet;

using ResNet8 = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>,
                             sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGDMomentum>>;
using DSCNN = sn::Training<sn::Input<sn::f32, 1, 49, 10>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                           sn::Optimizer<sn::SGDMomentum>>;
using MobileNetV1 = sn::Training<sn::Input<sn::f32, 3, 96, 96>, sn::Batch<2>,
                                 sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGDMomentum>>;
using FCAutoencoder = sn::Training<sn::Input<sn::f32, 640>, sn::Batch<16>, sn::Loss<sn::MSE>,
                                   sn::Optimizer<sn::SGDMomentum>>;

// ResNet-8 and the DS-CNN in Mixed<bf16> (tests/reference/make_mixed_fixtures.py).
using ResNet8Mixed =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Precision<sn::detail::Mixed<sn::bf16>>>;
using DSCNNMixed =
    sn::Training<sn::Input<sn::f32, 1, 49, 10>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Precision<sn::detail::Mixed<sn::bf16>>>;

// The same batches as two micro-batches each (sn::Accumulate<2>), against PyTorch's accumulation
// loop (tests/reference/make_accumulate_fixtures.py): ResNet-8 and the DS-CNN normalise each
// micro-batch of 2 by its own statistics, the autoencoder each of 8.
using ResNet8Accumulate2 =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Accumulate<2>>;
using DSCNNAccumulate2 =
    sn::Training<sn::Input<sn::f32, 1, 49, 10>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Accumulate<2>>;
using FCAutoencoderAccumulate2 =
    sn::Training<sn::Input<sn::f32, 640>, sn::Batch<16>, sn::Loss<sn::MSE>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Accumulate<2>>;

// Gradient checkpointing (Checkpoint<P>) on the same batches, against the same fixtures
// (test_checkpoint_fixtures.cpp): a recompute runs the same kernels on the same values, a
// BatchNorm recomputed normalises by its first pass's statistics and updates the running ones
// once, a Dropout recomputed draws the same mask.
using ResNet8CheckpointSqrt =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Checkpoint<sn::Sqrt>>;
// ResNet-8 under Every<2>: block 1's Add is recomputed, from a kept shortcut and a recomputed body.
using ResNet8CheckpointEvery2 =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Checkpoint<sn::Every<2>>>;
// The DS-CNN under Sqrt recomputes its Dropout (and a segment's last Conv2d reads a recomputed
// input).
using DSCNNCheckpointSqrt =
    sn::Training<sn::Input<sn::f32, 1, 49, 10>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Checkpoint<sn::Sqrt>>;
using FCAutoencoderCheckpointSqrt =
    sn::Training<sn::Input<sn::f32, 640>, sn::Batch<16>, sn::Loss<sn::MSE>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Checkpoint<sn::Sqrt>>;
// Checkpoint<Auto> with Sqrt's whole step as its budget: the cut set with the least recomputation
// that fits it (which Sqrt's does), trained as any other.
using ResNet8CheckpointAuto =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>,
                 sn::Checkpoint<sn::Auto<
                     sn::plan<sn::samples::ResNet8, ResNet8CheckpointSqrt>().footprint.total()>>>;
// With Accumulate<2>: every micro-batch recomputes, against PyTorch's accumulation loop.
using ResNet8CheckpointSqrtAccumulate2 =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Checkpoint<sn::Sqrt>, sn::Accumulate<2>>;
using DSCNNCheckpointSqrtAccumulate2 =
    sn::Training<sn::Input<sn::f32, 1, 49, 10>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGDMomentum>, sn::Checkpoint<sn::Sqrt>, sn::Accumulate<2>>;

// The same models and batches under Inference: the generated forward pass with the BatchNorms
// folded, checked against the fixtures' evaluation loss (test_inference.cpp).
using ResNet8Inference = sn::Inference<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>>;
using DSCNNInference = sn::Inference<sn::Input<sn::f32, 1, 49, 10>, sn::Batch<4>>;
using MobileNetV1Inference = sn::Inference<sn::Input<sn::f32, 3, 96, 96>, sn::Batch<2>>;
using FCAutoencoderInference = sn::Inference<sn::Input<sn::f32, 640>, sn::Batch<16>>;

}  // namespace mlperf_fixture_setups
