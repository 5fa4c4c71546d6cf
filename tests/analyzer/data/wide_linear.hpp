// One wide Linear at batch 1: its weights outweigh its activations, so mixed precision's bf16
// working copy costs more than halving the activations saves (check_analyzer.py derives both).
#include <staticnet/staticnet.hpp>

namespace wide {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Linear<256>>;
using Setup = sn::Training<sn::Input<sn::f32, 256>, sn::Batch<1>>;  // CrossEntropy, SGD
STATICNET_MODEL(wide_linear, Net, Setup);
}  // namespace wide
