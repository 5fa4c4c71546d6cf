// MUST NOT COMPILE: a device profile with a host budget checks the trainer's host bytes
// (plan.host) against it apart from the device's own memory, which the arena fits easily.
// One Linear(64 -> 64), batch 16, MSE, SGD:
//   batch slots 2 x (16·64·4 inputs + 16·64·4 targets) = 16,384 B
//   pinned staging 2 x the inputs region 8,192 + 16 losses and predictions x 8 = 16,512 B
//   checkpoint state: the 64·64 + 64 = 4,160 parameters, f32 = 16,640 B
//   required 49,536 B > the host budget's 49,535 B.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Square = sn::Sequential<sn::Linear<64>>;
using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>>;

static_assert(sn::assert_fits<Square, Setup,
                              sn::Device{.memory = sn::GiB(1),
                                         .overhead = sn::Bytes{0},
                                         .host_memory = sn::Bytes{49'535}}>());

int main() {
  return 0;
}
