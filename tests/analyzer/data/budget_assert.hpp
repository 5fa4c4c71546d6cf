// A header whose own budget check fails: the step below needs more than the 16 MiB it asserts.
// By hand: parameters 1024 * 1024 + 1024 + 1024 * 10 + 10 = 1,059,850; weights, gradients
// round256(4 * 1,059,850) = 4,239,616 each; Adam 2 * 4,239,616 = 8,479,232; inputs
// 32 * 1024 * 4 + round256(32 * 4) = 131,328; activations at the peak (backward of the last
// Linear): the hidden output 131,072 + d(logits) 1,280 + d(hidden) 131,072 + losses 256 +
// predictions 256 = 263,936. Total 17,353,728, plus the board's 1 MiB overhead: 18,402,304 B
// required against 16,777,216 B, 1,625,088 B over.
#include <staticnet/staticnet.hpp>

namespace budget {
namespace sn = staticnet;
using Wide = sn::Sequential<sn::Linear<1024>, sn::ReLU, sn::Linear<10>>;
using Training = sn::Training<sn::Input<sn::f32, 1024>, sn::Batch<32>, sn::Loss<sn::CrossEntropy>,
                              sn::Optimizer<sn::Adam>>;
inline constexpr sn::Device small_board{sn::MiB(16), sn::MiB(1), "small board"};
static_assert(sn::assert_fits<Wide, Training, small_board>());
STATICNET_MODEL(wide, Wide, Training);
}  // namespace budget
