// The plan's activation bytes for the four MLPerf Tiny models at their reference batches, printed
// for bench/cpu_step/saved_bytes.py to set beside what PyTorch saves for backward in the same
// training step.
//
//   saved:       bytes of the tensors forward writes that backward reads (buffers written by a
//                layer and alive after the loss step), the model's input not counted. This is
//                what PyTorch's saved-tensor hooks see, so the two compare like for like.
//   activations: the whole activation region of the arena: the saved tensors, the gradients in
//                flight and the loss, placed; what the step allocates beyond weights, optimizer
//                state, batch and workspace.
#include <cstdint>
#include <cstdio>

#include <staticnet/staticnet.hpp>

#include "samples/mlperf_tiny/ds_cnn.hpp"
#include "samples/mlperf_tiny/fc_autoencoder.hpp"
#include "samples/mlperf_tiny/mobilenet_v1.hpp"
#include "samples/mlperf_tiny/resnet8.hpp"

namespace sn = staticnet;
namespace samples = staticnet::samples;

namespace {

constexpr bool written_by_forward(sn::BufferRole role) {
  return role == sn::BufferRole::activation || role == sn::BufferRole::window_index ||
         role == sn::BufferRole::batch_statistics || role == sn::BufferRole::dropout_mask;
}

template <class Model, class Setup>
void print(const char* name) {
  constexpr const auto& p = sn::plan<Model, Setup>();
  std::int64_t loss_step = 0;
  while (p.schedule[static_cast<std::size_t>(loss_step)].kind != sn::StepKind::loss)
    ++loss_step;
  std::int64_t saved = 0;
  for (const sn::Buffer& b : p.buffers)
    if (written_by_forward(b.role) && b.last_step > loss_step)
      saved += b.size;
  std::printf("model=%s batch=%lld saved=%lld activations=%lld\n", name,
              static_cast<long long>(p.batch()), static_cast<long long>(saved),
              static_cast<long long>(p.footprint.activations.count));
}

}  // namespace

int main() {
  print<samples::ResNet8, samples::ResNet8Training>("resnet8");
  print<samples::DSCNN, samples::DSCNNTraining>("ds_cnn");
  print<samples::MobileNetV1, samples::MobileNetV1Training>("mobilenet_v1");
  print<samples::FCAutoencoder, samples::FCAutoencoderTraining>("fc_autoencoder");
  return 0;
}
