#pragma once
// The model the host-memory scenario trains (scenarios.cmake's host_memory): large enough that
// its host bytes stand well above the libraries' own allocations. Input 1024 f32, batch 256,
// CrossEntropy, Adam, three batch slots.
//
// DERIVED BY HAND (plan.host, f32):
//   parameters: Linear 1024->2048 1024*2048 + 2048 = 2,099,200; Linear 2048->10 20,490;
//     2,119,690 in all
//   checkpoint state: the parameters and Adam's two moments, 2,119,690 * 3 * 4 = 25,436,280 B
//   batch slots: 3 * 256 * (1024 f32 inputs + 1 i32 label) * 4 = 3,148,800 B
// The run's own, on synthetic:512 (read into memory: 512 * (1024 + 1) * 4 = 2,099,200 B) and
// shuffled (two epoch orders of 512 i64: 8,192 B): 2,107,392 B.
#include <staticnet/staticnet.hpp>

namespace host_test {

namespace sn = staticnet;

using Net = sn::Sequential<sn::Linear<2048>, sn::ReLU, sn::Linear<10>>;
using Training = sn::Training<sn::Input<sn::f32, 1024>, sn::Batch<256>, sn::Loss<sn::CrossEntropy>,
                              sn::Optimizer<sn::Adam>, sn::BatchSlots<3>>;

}  // namespace host_test
