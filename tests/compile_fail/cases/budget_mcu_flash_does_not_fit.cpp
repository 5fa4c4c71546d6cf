// MUST NOT COMPILE: an int8 MLP whose weights exceed the nRF52840's 1 MiB of flash (64 KiB of it
// the firmware's code). Derived by hand (include/staticnet/plan.hpp: under Int8 every buffer
// occupies its bytes rounded up to 16; int8 weights and three int32 numbers per output channel):
//   0 Linear<1200>  1000 -> 1200   weights 1,200,000
//   1 ReLU          in place
//   2 Linear<10>    1200 -> 10     weights 12,000
// Flash: 1,212,000 B of weights (a multiple of 16), channel numbers 3·(1200 + 10) = 3,630 int32 =
//   14,520 -> 14,528: 1,226,528; + 65,536 = 1,292,064 > 1,048,576.
// SRAM: input 1,000 -> 1,008 and layer 0's 1,200; layer 2's 10 -> 16 take the input's bytes
//   (its one reader has run): 2,208; + 16,384 = 18,592: it fits.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Net = sn::Sequential<sn::Linear<1200>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Inference<sn::Input<sn::f32, 1000>, sn::Precision<sn::Int8>>;

static_assert(sn::assert_fits<Net, Setup, sn::device::nrf52840>());

int main() {
  return 0;
}
