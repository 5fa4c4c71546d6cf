#pragma once
// Work a generated program enqueues again and again with every address and shape fixed (a
// training step, a forward pass): the first run goes launch by launch, which also loads every
// kernel and library module; the second is captured as a CUDA graph, and every later run replays
// it. STATICNET_CUDA_GRAPHS=0 in the environment keeps every run launch by launch (to compare, or
// to profile).
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "staticnet/cuda/check.hpp"

namespace staticnet::cuda {

// False when STATICNET_CUDA_GRAPHS=0 asks for launch-by-launch runs.
inline bool graphs_allowed() {
  const char* graphs = std::getenv("STATICNET_CUDA_GRAPHS");
  return !(graphs && std::strcmp(graphs, "0") == 0);
}

class ReplayedWork {
 public:
  ReplayedWork() = default;
  ~ReplayedWork() { reset(); }
  ReplayedWork(const ReplayedWork&) = delete;
  ReplayedWork& operator=(const ReplayedWork&) = delete;

  // Enqueues what `enqueue()` enqueues on `stream`, launch by launch or as the graph of it.
  // `what` names the work in errors ("the step").
  template <class Enqueue>
  void run(cudaStream_t stream, bool graphs, const char* what, Enqueue&& enqueue) {
    if (!graphs || !ran_) {
      enqueue();
      ran_ = true;
      return;
    }
    if (!graph_) {
      cudaGraph_t graph = nullptr;
      check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
            "cudaStreamBeginCapture");
      try {
        enqueue();
      } catch (...) {
        cudaStreamEndCapture(stream, &graph);
        if (graph)
          cudaGraphDestroy(graph);
        throw;
      }
      check(cudaStreamEndCapture(stream, &graph),
            (std::string("capturing ") + what + " as a CUDA graph").c_str());
      const cudaError_t instantiated = cudaGraphInstantiate(&graph_, graph, 0);
      cudaGraphDestroy(graph);
      check(instantiated, "cudaGraphInstantiate");
    }
    check(cudaGraphLaunch(graph_, stream), "cudaGraphLaunch");
  }

  void reset() noexcept {
    if (graph_)
      cudaGraphExecDestroy(std::exchange(graph_, nullptr));
  }

 private:
  cudaGraphExec_t graph_ = nullptr;
  bool ran_ = false;  // once, launch by launch: the next run captures
};

}  // namespace staticnet::cuda
