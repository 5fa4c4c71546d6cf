// A VGG-style CIFAR network for a Jetson Orin Nano, written as blocks. The classifier was sized
// for a fourth block (256 × 2 × 2 = 1024 features) that is not there: three 2×2 pools of 32×32
// leave 256 × 4 × 4 = 4096. Flattened, the Linear is layer 22 (three blocks of 7 layers, then
// Flatten); as written, it is the 5th entry of the outer Sequential, declared on line 16.
#include <staticnet/staticnet.hpp>

namespace user {
namespace sn = staticnet;

template <std::int64_t C>
using Block = sn::Sequential<sn::Conv2d<C, sn::Kernel<3>, sn::Padding<1>>, sn::BatchNorm2d<>,
                             sn::ReLU, sn::Conv2d<C, sn::Kernel<3>, sn::Padding<1>>,
                             sn::BatchNorm2d<>, sn::ReLU, sn::MaxPool2d<2>>;

// clang-format off
using Vgg = sn::Sequential<Block<64>, Block<128>, Block<256>, sn::Flatten,
                           sn::Linear<512, sn::InFeatures<1024>>, sn::ReLU, sn::Dropout<50>,
                           sn::Linear<10>>;
// clang-format on
using VggTraining = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<64>,
                                 sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGDMomentum>>;
}  // namespace user
