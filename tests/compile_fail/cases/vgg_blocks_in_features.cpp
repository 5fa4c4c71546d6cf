// MUST NOT COMPILE: a VGG-style CIFAR network written as blocks, whose classifier was sized for one
// more block than it has. The error names the layer by its flattened index AND by its place in the
// model as written, since the user never counted the blocks' layers.
//
// Input (3, 32, 32). Block<C> = Conv2d<C, 3, pad 1>, BatchNorm2d, ReLU, Conv2d<C, 3, pad 1>,
// BatchNorm2d, ReLU, MaxPool2d<2>: 7 layers, halving the side. Flattened: block 1 is layers 0-6
// (-> 64×16×16), block 2 7-13 (-> 128×8×8), block 3 14-20 (-> 256×4×4), 21 Flatten (-> 4096),
// 22 Linear<512, InFeatures<1024>>: the 5th entry of the outer Sequential. 1024 = 256×2×2 is what a
// fourth block would have left; 4096 = 256×4×4 arrive.
// Expected: linear_in_features_mismatch at layer 22 (Linear), nesting entry<5>, written 1024,
// arriving 4096.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

template <std::int64_t C>
using Block = sn::Sequential<sn::Conv2d<C, sn::Kernel<3>, sn::Padding<1>>, sn::BatchNorm2d<>,
                             sn::ReLU, sn::Conv2d<C, sn::Kernel<3>, sn::Padding<1>>,
                             sn::BatchNorm2d<>, sn::ReLU, sn::MaxPool2d<2>>;
using Vgg = sn::Sequential<Block<64>, Block<128>, Block<256>, sn::Flatten,
                           sn::Linear<512, sn::InFeatures<1024>>, sn::ReLU, sn::Dropout<50>,
                           sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<64>>;

constexpr auto& p = sn::plan<Vgg, Setup>();

int main() {
  return 0;
}
