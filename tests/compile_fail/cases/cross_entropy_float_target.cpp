// MUST NOT COMPILE: CrossEntropy with one-hot-style f32 targets of 10 values; it takes one int32
// class index per sample (sn::Target<sn::i32>).
//
// Input (64): 0 Linear<10>: output (batch, 10), flat, so the logits are fine; the target is not.
// Expected: cross_entropy_needs_class_index_target, target shape (10).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::CrossEntropy>,
                           sn::Target<sn::f32, 10>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
