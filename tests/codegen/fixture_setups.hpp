#pragma once
// The samples of tests/reference/make_fixtures.py, each under every optimizer: the model types
// are the samples' own; only the optimizer of the setup changes.
#include <staticnet/staticnet.hpp>

#include "samples/digits_cnn.hpp"
#include "samples/lenet5.hpp"
#include "samples/linear_regression.hpp"
#include "samples/mlp.hpp"
#include "samples/simple_cnn.hpp"

namespace fixture_setups {

namespace sn = staticnet;

template <class O>
using SimpleCNNWith = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>,
                                   sn::Loss<sn::CrossEntropy>, sn::Optimizer<O>>;
template <class O>
using LeNet5With = sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<64>,
                                sn::Loss<sn::CrossEntropy>, sn::Optimizer<O>>;
template <class O>
using MlpWith = sn::Training<sn::Input<sn::f32, 100>, sn::Batch<64>, sn::Loss<sn::CrossEntropy>,
                             sn::Optimizer<O>>;
template <class O>
using LinearRegressionWith =
    sn::Training<sn::Input<sn::f32, 10>, sn::Batch<5>, sn::Loss<sn::MSE>, sn::Optimizer<O>>;

using SimpleCNNSgd = SimpleCNNWith<sn::SGD>;
using SimpleCNNSgdMomentum = SimpleCNNWith<sn::SGDMomentum>;
using SimpleCNNAdam = SimpleCNNWith<sn::Adam>;
using SimpleCNNAdamw = SimpleCNNWith<sn::AdamW>;
using LeNet5Sgd = LeNet5With<sn::SGD>;
using LeNet5SgdMomentum = LeNet5With<sn::SGDMomentum>;
using LeNet5Adam = LeNet5With<sn::Adam>;
using LeNet5Adamw = LeNet5With<sn::AdamW>;
using MlpSgd = MlpWith<sn::SGD>;
using MlpSgdMomentum = MlpWith<sn::SGDMomentum>;
using MlpAdam = MlpWith<sn::Adam>;
using MlpAdamw = MlpWith<sn::AdamW>;
using LinearRegressionSgd = LinearRegressionWith<sn::SGD>;
using LinearRegressionSgdMomentum = LinearRegressionWith<sn::SGDMomentum>;
using LinearRegressionAdam = LinearRegressionWith<sn::Adam>;
using LinearRegressionAdamw = LinearRegressionWith<sn::AdamW>;

// Mixed<bf16> (make_mixed_fixtures.py).
template <class O>
using SimpleCNNMixedWith =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<O>, sn::Precision<sn::detail::Mixed<sn::bf16>>>;
template <class O>
using LeNet5MixedWith =
    sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<64>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<O>, sn::Precision<sn::detail::Mixed<sn::bf16>>>;
template <class O>
using MlpMixedWith =
    sn::Training<sn::Input<sn::f32, 100>, sn::Batch<64>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<O>, sn::Precision<sn::detail::Mixed<sn::bf16>>>;
template <class O>
using LinearRegressionMixedWith =
    sn::Training<sn::Input<sn::f32, 10>, sn::Batch<5>, sn::Loss<sn::MSE>, sn::Optimizer<O>,
                 sn::Precision<sn::detail::Mixed<sn::bf16>>>;
// samples/digits_cnn.hpp's DigitsTraining in Mixed<bf16>, trained on real data
// (digits_accuracy.cmake).
using DigitsMixed =
    sn::Training<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<32>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Precision<sn::detail::Mixed<sn::bf16>>>;

// samples/digits_cnn.hpp's DigitsTraining as four micro-batches of 8 (digits_accuracy.cmake).
using DigitsAccumulate4 =
    sn::Training<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<32>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Accumulate<4>>;

// Mixed<f16>, with loss scaling (make_mixed_fixtures.py's f16 fixtures).
template <class O>
using SimpleCNNMixedF16With =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<O>, sn::Precision<sn::detail::Mixed<sn::f16>>>;
template <class O>
using LeNet5MixedF16With =
    sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<64>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<O>, sn::Precision<sn::detail::Mixed<sn::f16>>>;
template <class O>
using MlpMixedF16With =
    sn::Training<sn::Input<sn::f32, 100>, sn::Batch<64>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<O>, sn::Precision<sn::detail::Mixed<sn::f16>>>;
using SimpleCNNMixedF16Sgd = SimpleCNNMixedF16With<sn::SGD>;
using SimpleCNNMixedF16Adam = SimpleCNNMixedF16With<sn::Adam>;
using LeNet5MixedF16Sgd = LeNet5MixedF16With<sn::SGD>;
using MlpMixedF16Sgd = MlpMixedF16With<sn::SGD>;
using MlpMixedF16Adam = MlpMixedF16With<sn::Adam>;

// Gradient checkpointing (Checkpoint<P>): the same batches, the same step (a recompute
// runs the same kernels on the same values), so make_fixtures.py's fixtures check it
// (test_checkpoint_fixtures.cpp). SimpleCNN's units are {Conv2d, ReLU}, {MaxPool2d}, {Flatten} and
// {Linear}; Sqrt (two units a segment) checkpoints {Conv2d, ReLU, MaxPool2d} and recomputes the
// first two.
using SimpleCNNCheckpointSqrtAdam =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Checkpoint<sn::Sqrt>>;

// Gradient accumulation (sn::Accumulate<K>) on the same batches: these models have no BatchNorm,
// and a Dropout draws the whole batch's masks, so K micro-batches give the whole batch's step, and
// make_fixtures.py's fixtures check them (test_accumulate_fixtures.cpp).
using SimpleCNNAccumulate4Adam =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Accumulate<4>>;
using LeNet5Accumulate2Sgd =
    sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<64>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::SGD>, sn::Accumulate<2>>;
using MlpAccumulate8SgdMomentum =
    sn::Training<sn::Accumulate<8>, sn::Input<sn::f32, 100>, sn::Batch<64>,
                 sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGDMomentum>>;
// Micro-batches of one sample.
using LinearRegressionAccumulate5Adamw =
    sn::Training<sn::Input<sn::f32, 10>, sn::Batch<5>, sn::Loss<sn::MSE>, sn::Optimizer<sn::AdamW>,
                 sn::Accumulate<5>>;
// With Mixed<bf16>, whose working copy is made once for the K micro-batches.
using MlpMixedAccumulate4Adam =
    sn::Training<sn::Input<sn::f32, 100>, sn::Batch<64>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Precision<sn::detail::Mixed<sn::bf16>>,
                 sn::Accumulate<4>>;
// And with Mixed<f16>, whose loss scaler unscales the K micro-batches' sum once and skips the
// whole step when any part overflowed.
using MlpMixedF16Accumulate4Adam =
    sn::Training<sn::Input<sn::f32, 100>, sn::Batch<64>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Precision<sn::detail::Mixed<sn::f16>>,
                 sn::Accumulate<4>>;

using SimpleCNNMixedSgd = SimpleCNNMixedWith<sn::SGD>;
using SimpleCNNMixedAdam = SimpleCNNMixedWith<sn::Adam>;
using LeNet5MixedSgd = LeNet5MixedWith<sn::SGD>;
using LeNet5MixedAdam = LeNet5MixedWith<sn::Adam>;
using MlpMixedSgd = MlpMixedWith<sn::SGD>;
using MlpMixedAdam = MlpMixedWith<sn::Adam>;
using LinearRegressionMixedSgd = LinearRegressionMixedWith<sn::SGD>;
using LinearRegressionMixedAdam = LinearRegressionMixedWith<sn::Adam>;

}  // namespace fixture_setups
