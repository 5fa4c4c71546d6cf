// MUST NOT COMPILE: a device whose CPU and GPU share one memory (as a Jetson's do) counts the
// trainer's host bytes (plan.host) beside the arena. One Linear(64 -> 64), batch 16, MSE, SGD
// (tests/core/test_accumulate.cpp places its arena by hand):
//   arena: weights 16,640 + gradients 16,640 + inputs 8,192 + activations 8,448 = 49,920 B
//   host:  batch slots 2 x (16·64·4 + 16·64·4) = 16,384; pinned staging 2 x 8,192 + 16·8 =
//          16,512; the checkpoint's copy of the 4,160 parameters 16,640: 49,536 B
//   required 49,920 + 49,536 = 99,456 B > the device's 99,455 B. On a device of its own memory
//   the same model needs only 49,920 B (tests/core/test_host_memory.cpp).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Square = sn::Sequential<sn::Linear<64>>;
using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>>;

static_assert(sn::assert_fits<Square, Setup,
                              sn::Device{.memory = sn::Bytes{99'455},
                                         .overhead = sn::Bytes{0},
                                         .shares_host_memory = true}>());

int main() {
  return 0;
}
