#pragma once
// What the convolution benchmarks share (conv_engines.cpp, direct_conv_engines.cpp): one
// convolution's tensors on the device, filled with random values; its float64 reference; and a
// sweep that times every engine cuDNN offers for one direction, marking those staticnet's
// Convolution may use (exact FP32, deterministic, within the plan's workspace).
//
// Geometries are kernels::Conv2dGeometry, as the generated steps spell them: any stride, groups
// (cuDNN infers them from the filter's shape, Co × Ci/groups × KH × KW), and TensorFlow's uneven
// 'same' padding (pad_h/pad_w before, the rest after, given to cuDNN as pre- and post-padding).
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <staticnet/cuda/check.hpp>
#include <staticnet/kernels/geometry.hpp>

namespace bench {

using staticnet::kernels::Conv2dGeometry;

// fprop: x, w → y;  wgrad: dy, x → dw;  dgrad: dy, w → dx.
enum class Direction { fprop, wgrad, dgrad };
const char* name_of(Direction d);

// The element count of direction d's output: y, dW or dx.
std::int64_t output_elements(const Conv2dGeometry& g, Direction d);

// The padding after the input (bottom, right) that the geometry's output extent implies; never
// negative (a 'valid' convolution may leave input rows unread).
std::int64_t post_padding_h(const Conv2dGeometry& g);
std::int64_t post_padding_w(const Conv2dGeometry& g);

// The six tensors of one convolution in device memory: the inputs of the three directions (x, w,
// dy) random in [-1, 1) (never zeros: they hide unwritten outputs and can run faster), and their
// outputs (y, dw, dx).
class ConvTensors {
 public:
  explicit ConvTensors(const Conv2dGeometry& g);
  ~ConvTensors();
  ConvTensors(const ConvTensors&) = delete;
  ConvTensors& operator=(const ConvTensors&) = delete;

  const Conv2dGeometry& geometry() const { return g_; }
  float* x() const { return x_; }
  float* w() const { return w_; }
  float* dy() const { return dy_; }
  float* y() const { return y_; }
  float* dw() const { return dw_; }
  float* dx() const { return dx_; }
  // The output of direction d, and its element count.
  float* output(Direction d) const;
  std::int64_t output_elements(Direction d) const { return bench::output_elements(g_, d); }

 private:
  Conv2dGeometry g_;
  float *x_ = nullptr, *w_ = nullptr, *dy_ = nullptr, *y_ = nullptr, *dw_ = nullptr, *dx_ = nullptr;
};

// Direction d's output from the definition, in float64, from the inputs copied back.
std::vector<double> reference(const ConvTensors& t, Direction d);
// The same from host copies of x, w and dy.
std::vector<double> reference(const Conv2dGeometry& g, Direction d, const std::vector<float>& x,
                              const std::vector<float>& w, const std::vector<float>& dy);

// max |out − reference| / max |reference|, `out` copied back from the device; infinity where an
// output is not finite.
double relative_error(const float* out, const std::vector<double>& reference);

// The largest relative_error() a result may have and still be timed against the others: FP32
// sums of a few thousand products stay near 1e-6, so a larger error is a wrong result (an
// unwritten output, a misread padding) and must not win on speed.
inline constexpr double wrong_above = 1e-4;

// Keeps the GPU busy on `stream` for about `microseconds` (one thread sleeping on the GPU's
// timer). median_ms() enqueues it before each call's start event, so that the host's time to
// enqueue the call (cuDNN's execute spends 10-15 µs of host work, a kernel launch a few) passes
// while the GPU waits, and the events time the GPU's work alone: in a trainer the step is a CUDA
// graph, and no call pays its host cost there.
void keep_device_busy(cudaStream_t stream, int microseconds);

// Median milliseconds of the GPU's work for `run`, over 50 timed calls after 10 warm-up ones, by
// device events with the host's enqueueing hidden (keep_device_busy); -1 when a call reports
// failure.
template <class Run>
double median_ms(cudaStream_t stream, Run run) {
  namespace cuda = staticnet::cuda;
  struct Events {  // destroyed however the timing ends (run may throw)
    cudaEvent_t start = nullptr, stop = nullptr;
    Events() {
      cuda::check(cudaEventCreate(&start), "cudaEventCreate");
      cuda::check(cudaEventCreate(&stop), "cudaEventCreate");
    }
    ~Events() {
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
    }
  } events;
  std::vector<float> ms;
  for (int r = 0; r < 60; ++r) {
    keep_device_busy(stream, 200);
    cuda::check(cudaEventRecord(events.start, stream), "cudaEventRecord");
    const bool ok = run();
    cuda::check(cudaEventRecord(events.stop, stream), "cudaEventRecord");
    cuda::check(cudaEventSynchronize(events.stop), "cudaEventSynchronize");
    if (!ok)
      return -1;
    float t = 0;
    cuda::check(cudaEventElapsedTime(&t, events.start, events.stop), "cudaEventElapsedTime");
    if (r >= 10)
      ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// A cuDNN engine and its median time; ms < 0 when there is none.
struct Engine {
  std::string name;
  double ms = -1;
};

// Among the engines a staticnet step may use (exact FP32, deterministic, within the plan's
// workspace): the first in the heuristic's order, which is the one staticnet's Convolution
// picks, and the fastest.
struct Allowed {
  Engine first, fastest;
};

// Times every engine cuDNN offers for direction d of t's convolution, printing a line each (name,
// workspace, allowed or excluded, within or over the plan, median µs, and the error of one run
// from NaN-filled outputs against `expected` when it is not empty).
Allowed sweep_cudnn(cudnnHandle_t handle, cudaStream_t stream, const ConvTensors& t, Direction d,
                    std::int64_t plan_workspace, const std::vector<double>& expected);

}  // namespace bench
