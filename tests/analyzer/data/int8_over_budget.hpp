// Two int8 models over the nRF52840's budgets, one over each (tests/compile_fail/cases'
// budget_mcu_sram_does_not_fit.cpp and budget_mcu_flash_does_not_fit.cpp, where sn::assert_fits
// fails the build with does_not_fit_sram and does_not_fit_flash; check_analyzer.py copies their
// hand derivations beside the analyzer's verdicts).
#include <staticnet/staticnet.hpp>

namespace over {
namespace sn = staticnet;

// A CNN on a 96×96 colour image (Visual Wake Words' input): its activations, 368,640 B at the
// peak, + 16,384 B = 385,024 B > 262,144 B of SRAM; its flash, 148,736 + 65,536 = 214,272 B, fits.
using Vww = sn::Sequential<sn::Conv2d<32, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                           sn::MaxPool2d<2>, sn::Flatten, sn::Linear<2>>;
using VwwInt8 = sn::Inference<sn::Input<sn::f32, 3, 96, 96>, sn::Precision<sn::Int8>>;
STATICNET_MODEL(int8_vww, Vww, VwwInt8);

// A wide MLP: its weights and per-channel numbers, 1,226,528 B, + 65,536 B = 1,292,064 B >
// 1,048,576 B of flash; its SRAM, 2,208 + 16,384 = 18,592 B (the last Linear takes the input's
// bytes), fits.
using WideMlp = sn::Sequential<sn::Linear<1200>, sn::ReLU, sn::Linear<10>>;
using WideMlpInt8 = sn::Inference<sn::Input<sn::f32, 1000>, sn::Precision<sn::Int8>>;
STATICNET_MODEL(int8_wide_mlp, WideMlp, WideMlpInt8);
}  // namespace over
