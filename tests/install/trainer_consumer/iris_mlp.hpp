#pragma once
// A user's model header: a small classifier of 4 features into 3 classes (Iris-sized).
#include <staticnet/staticnet.hpp>

namespace user {

namespace sn = staticnet;

using IrisMlp = sn::Sequential<sn::Linear<16>, sn::ReLU, sn::Linear<3>>;
using IrisTraining = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<16>, sn::Loss<sn::CrossEntropy>,
                                  sn::Optimizer<sn::Adam>>;
// Deployed: one flower at a time.
using IrisServing = sn::Inference<sn::Input<sn::f32, 4>, sn::Batch<1>>;
// On a microcontroller: int8, the weights in flash.
using IrisInt8 = sn::Inference<sn::Input<sn::f32, 4>, sn::Batch<1>, sn::Precision<sn::Int8>>;

}  // namespace user
