#pragma once
// Layers as the MLPerf Tiny reference models (Keras) write them. Keras' BatchNormalization
// defaults are epsilon 1e-3 and momentum 0.99, which is 0.01 in PyTorch's sense (the weight of
// the new batch): without these the running statistics, and so the trained model's inference,
// would differ from the reference.
#include <staticnet/staticnet.hpp>

namespace staticnet::samples::keras {

using BatchNorm2d = staticnet::BatchNorm2d<Epsilon<1, 1000>, Momentum<1, 100>>;
using BatchNorm1d = staticnet::BatchNorm1d<Epsilon<1, 1000>, Momentum<1, 100>>;

}  // namespace staticnet::samples::keras
