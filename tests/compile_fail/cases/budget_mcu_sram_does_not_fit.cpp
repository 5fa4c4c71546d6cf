// MUST NOT COMPILE: an int8 CNN on a 96×96 colour image (Visual Wake Words' input) on the
// nRF52840: 256 KiB of SRAM, of which 16 KiB are the firmware's; 1 MiB of flash, 64 KiB the
// firmware's. Derived by hand (include/staticnet/plan.hpp: under Int8 every buffer occupies its
// bytes rounded up to 16; int8 weights and three int32 numbers per output channel in flash):
//   0 Conv2d<32, K3, P1>  (3,96,96) -> (32,96,96)  294,912 B
//   1 ReLU                in place
//   2 MaxPool2d<2>        -> (32,48,48)             73,728 B
//   3 Flatten             a view
//   4 Linear<2>           -> 2                      2 B -> 16
// SRAM, one shared region: the input 3·96·96 = 27,648 while the convolution reads it (322,560);
//   then the pool reads 294,912 while writing 73,728: 368,640, the peak, the input's bytes free
//   by then. Required 368,640 + 16,384 = 385,024 > 262,144.
// Flash: weights 32·3·9 = 864 + 2·73,728 = 147,456: 148,320; channel numbers 3·(32 + 2) = 102
//   int32 = 408 -> 416; 148,736, + 65,536 = 214,272 <= 1,048,576: flash fits, SRAM does not.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Net = sn::Sequential<sn::Conv2d<32, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                           sn::MaxPool2d<2>, sn::Flatten, sn::Linear<2>>;
using Setup = sn::Inference<sn::Input<sn::f32, 3, 96, 96>, sn::Precision<sn::Int8>>;

static_assert(sn::assert_fits<Net, Setup, sn::device::nrf52840>());

int main() {
  return 0;
}
