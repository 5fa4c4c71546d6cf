// One wide Linear at batch 1: its weights outweigh its activations, so mixed precision's bf16
// working copy costs more than halving the activations saves (check_analyzer.py derives both).
#include <staticnet/staticnet.hpp>

namespace wide {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Linear<256>>;
using Setup = sn::Training<sn::Input<sn::f32, 256>, sn::Batch<1>>;  // CrossEntropy, SGD
STATICNET_MODEL(wide_linear, Net, Setup);
// The same in mixed precision (not public yet: setup.hpp's detail::Mixed), whose report lists the
// bf16 working copy among the largest buffers.
using MixedSetup = sn::Training<sn::Input<sn::f32, 256>, sn::Batch<1>,
                                sn::Precision<sn::detail::Mixed<sn::bf16>>>;
STATICNET_MODEL(wide_linear_mixed, Net, MixedSetup);
}  // namespace wide
