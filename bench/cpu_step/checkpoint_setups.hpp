#pragma once
// Gradient checkpointing's step-time price on the CPU (bench/cpu_step/checkpoint.py): SimpleCNN's
// own setup (batch 128, Adam) and a 50-layer MLP (25 pairs of Linear(256) and ReLU, batch 256,
// MSE, Adam), each as it is and under Checkpoint<Sqrt>: the same model, batch and optimizer.
#include "samples/simple_cnn.hpp"

namespace bench {

namespace sn = staticnet;
using CheckpointSqrt = sn::Checkpoint<sn::Sqrt>;

using SimpleCNNCheckpointSqrt =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, CheckpointSqrt>;

using Mlp50 =
    sn::Sequential<sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU,
                   sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU,
                   sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU,
                   sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU,
                   sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU,
                   sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU,
                   sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU,
                   sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU, sn::Linear<256>, sn::ReLU,
                   sn::Linear<256>, sn::ReLU>;
using Mlp50Training = sn::Training<sn::Input<sn::f32, 256>, sn::Batch<256>, sn::Loss<sn::MSE>,
                                   sn::Optimizer<sn::Adam>>;
using Mlp50CheckpointSqrt = sn::Training<sn::Input<sn::f32, 256>, sn::Batch<256>, sn::Loss<sn::MSE>,
                                         sn::Optimizer<sn::Adam>, CheckpointSqrt>;

}  // namespace bench
