// LeNet-5 planned for a Jetson Nano, with the staticnet sources vendored into the project.
#include <staticnet/staticnet.hpp>

#include <cstdio>

namespace sn = staticnet;

using LeNet5 =
    sn::Sequential<sn::Conv2d<6, sn::Kernel<5>, sn::Padding<2>>, sn::Tanh, sn::AvgPool2d<2>,
                   sn::Conv2d<16, sn::Kernel<5>>, sn::Tanh, sn::AvgPool2d<2>, sn::Flatten,
                   sn::Linear<120>, sn::Tanh, sn::Linear<84>, sn::Tanh, sn::Linear<10>>;
using Step = sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<256>>;

static_assert(sn::assert_fits<LeNet5, Step, sn::device::jetson_nano>());
// 6*25+6 = 156, 16*6*25+16 = 2416, 120*400+120 = 48120, 84*120+84 = 10164, 10*84+10 = 850.
static_assert(sn::plan<LeNet5, Step>().parameter_count == 61706);

int main() {
  constexpr auto& plan = sn::plan<LeNet5, Step>();
  std::printf("LeNet-5: %lld parameters, %lld bytes per step\n",
              static_cast<long long>(plan.parameter_count),
              static_cast<long long>(plan.footprint.total().count));
  return 0;
}
