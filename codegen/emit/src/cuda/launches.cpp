// The CUDA backend's kernel and launch templates. Elementwise passes are one thread per index over
// the shared bodies, as the CPU backend's per-plane loops are over theirs. Sums over the batch
// (BatchNorm's statistics and backward sums, a direct convolution's weight and bias gradients)
// run one block per result (staticnet/cuda/channel_sums.hpp): its threads share the terms and add
// their partial sums by a fixed tree, so the bits are the same on every run (and equal the CPU's
// to rounding).
#include "emitter.hpp"

namespace staticnet::codegen {

void CudaKernelEmitter::emit_kernel(const std::string& name, const std::string& comment,
                                    const std::string& parameters, std::int64_t count,
                                    const std::string& body) {
  kernels_.emit({{"name", name},
                 {"comment", wrap_comment(comment, "// ", "// ")},
                 {"parameters", parameters},
                 {"count", literal(count)},
                 {"body", body}},
                R"(
    $comment$
    __global__ void $name$($parameters$) {
      const index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
      if (i >= $count$)
        return;
      $body$
    }

  )");
}

std::string CudaKernelEmitter::launch(const std::string& name, std::int64_t count,
                                      const std::string& arguments) {
  return name + "<<<g::blocks_for(" + literal(count) + "), g::block_threads, 0, stream>>>(" +
         arguments + ");\ng::check_launch(\"" + name + "\");";
}

void CudaKernelEmitter::emit_block_kernel(const std::string& name, const std::string& comment,
                                          const std::string& parameters, const std::string& body) {
  kernels_.emit({{"name", name},
                 {"comment", wrap_comment(comment, "// ", "// ")},
                 {"parameters", parameters},
                 {"body", body}},
                R"(
    $comment$
    __global__ void __launch_bounds__(g::channel_threads) $name$($parameters$) {
      $body$
    }

  )");
}

std::string CudaKernelEmitter::launch_blocks(const std::string& name, std::int64_t blocks,
                                             const std::string& arguments) {
  return name + "<<<" + literal(blocks) + ", g::channel_threads, 0, stream>>>(" + arguments +
         ");\ng::check_launch(\"" + name + "\");";
}

void CudaKernelEmitter::emit_backward(const std::string& name, const std::string& lines) {
  kernels_.emit({{"name", name}, {"lines", lines}}, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      $lines$
    }

  )");
}

}  // namespace staticnet::codegen
