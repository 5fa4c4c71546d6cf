// sn::fit's candidates through staticnet analyze --fit: tests/core/test_accumulate.cpp's
// Linear(64 -> 64) at a batch of 16 (MSE, SGD), whose bytes it derives by hand
// (check_analyzer.py's check_fit_numbers uses the sums).
#include <staticnet/staticnet.hpp>

namespace square {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Linear<64>>;
using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>>;
STATICNET_MODEL(square, Net, Setup);
}  // namespace square
