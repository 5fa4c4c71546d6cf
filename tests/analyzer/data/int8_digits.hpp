// The digits CNN of samples/digits_cnn.hpp in int8 on a microcontroller (its DigitsInt8 setup),
// for `staticnet analyze --device nrf52840` and `--device stm32h743`: two budgets, SRAM and
// flash. check_analyzer.py derives its numbers by hand (from samples/digits_cnn.hpp's table):
// weights and per-channel numbers in flash, 3,024 B; the rest, the input and the activations in
// one shared region, 1,280 B of SRAM.
// The same model in FP32 inference (`--model int8::Digits --setup int8::DigitsFP32`) counts wholly
// against the SRAM, as budget.hpp's required_memory says: an FP32 program writes its weights
// when it loads them.
#include <staticnet/staticnet.hpp>

namespace int8 {
namespace sn = staticnet;
using Digits = sn::Sequential<sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                              sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
using DigitsInt8 =
    sn::Inference<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<1>, sn::Precision<sn::Int8>>;
using DigitsFP32 = sn::Inference<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<1>>;
STATICNET_MODEL(int8_digits, Digits, DigitsInt8);
}  // namespace int8
