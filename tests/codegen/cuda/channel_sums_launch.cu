// The kernels and launches behind channel_sums_launch.hpp: each copies its vectors to the device,
// launches one block of g::channel_threads per result as the generated steps do, and copies the
// results back.
#include "channel_sums_launch.hpp"

#include <cuda_runtime.h>

#include <staticnet/cuda/channel_sums.hpp>
#include <staticnet/cuda/check.hpp>

namespace channel_sums_test {
namespace {

namespace g = staticnet::cuda;

// A vector's copy in device memory, copied back on request.
class DeviceCopy {
 public:
  explicit DeviceCopy(const std::vector<float>& host) : bytes_(host.size() * sizeof(float)) {
    g::check(cudaMalloc(reinterpret_cast<void**>(&data_), bytes_), "cudaMalloc");
    g::check(cudaMemcpy(data_, host.data(), bytes_, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceCopy() { cudaFree(data_); }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  float* get() const { return data_; }
  void copy_to(std::vector<float>& host) const {
    g::check(cudaDeviceSynchronize(), "running the kernel");
    g::check(cudaMemcpy(host.data(), data_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy");
  }

 private:
  std::size_t bytes_;
  float* data_ = nullptr;
};

// Kernels take the geometry's index, not the geometry: nvcc's host stubs cannot spell a __global__
// template's class-type argument (the generated steps' kernels are no templates at all).
template <int N>
__global__ void __launch_bounds__(g::channel_threads)
    statistics_kernel(const float* x, float* stats, float* running) {
  g::per_block::batch_norm_statistics<norms[N]>(blockIdx.x, x, stats, running);
}

template <int N>
__global__ void __launch_bounds__(g::channel_threads)
    sums_kernel(const float* x, const float* y, const float* stats, float* dy, float* dgamma,
                float* dbeta) {
  g::per_block::batch_norm_backward_sums<norms[N], k::ReLU>(blockIdx.x, x, y, stats, dy, dgamma,
                                                            dbeta);
}

template <int N>
__global__ void __launch_bounds__(g::channel_threads)
    weight_kernel(const float* x, const float* dy, float* dw) {
  g::per_block::grouped_conv_backward_weight<convs[N]>(blockIdx.x, x, dy, dw);
}

template <int N>
__global__ void __launch_bounds__(g::channel_threads) bias_kernel(const float* dz, float* db) {
  g::per_block::bias_gradient_channels<convs[N].batch, convs[N].out_channels, convs[N].positions()>(
      blockIdx.x, dz, db);
}

template <int N>
void statistics(const std::vector<float>& x, std::vector<float>& stats,
                std::vector<float>& running) {
  const DeviceCopy dx(x), ds(stats), dr(running);
  statistics_kernel<N><<<norms[N].channels, g::channel_threads>>>(dx.get(), ds.get(), dr.get());
  g::check_launch("statistics_kernel");
  ds.copy_to(stats);
  dr.copy_to(running);
}

template <int N>
void sums(const std::vector<float>& x, const std::vector<float>& y, const std::vector<float>& stats,
          std::vector<float>& dy, std::vector<float>& dgamma, std::vector<float>& dbeta) {
  const DeviceCopy dx(x), dyy(y), ds(stats), ddy(dy), dg(dgamma), db(dbeta);
  sums_kernel<N><<<norms[N].channels, g::channel_threads>>>(dx.get(), dyy.get(), ds.get(),
                                                            ddy.get(), dg.get(), db.get());
  g::check_launch("sums_kernel");
  ddy.copy_to(dy);
  dg.copy_to(dgamma);
  db.copy_to(dbeta);
}

template <int N>
void weights(const std::vector<float>& x, const std::vector<float>& dy, std::vector<float>& dw) {
  const DeviceCopy dx(x), ddy(dy), ddw(dw);
  weight_kernel<N>
      <<<convs[N].weight_elements(), g::channel_threads>>>(dx.get(), ddy.get(), ddw.get());
  g::check_launch("weight_kernel");
  ddw.copy_to(dw);
}

template <int N>
void bias(const std::vector<float>& dz, std::vector<float>& db) {
  const DeviceCopy ddz(dz), ddb(db);
  bias_kernel<N><<<convs[N].out_channels, g::channel_threads>>>(ddz.get(), ddb.get());
  g::check_launch("bias_kernel");
  ddb.copy_to(db);
}

}  // namespace

void batch_norm_statistics(int norm, const std::vector<float>& x, std::vector<float>& stats,
                           std::vector<float>& running) {
  norm == 0 ? statistics<0>(x, stats, running) : statistics<1>(x, stats, running);
}

void batch_norm_backward_sums(int norm, const std::vector<float>& x, const std::vector<float>& y,
                              const std::vector<float>& stats, std::vector<float>& dy,
                              std::vector<float>& dgamma, std::vector<float>& dbeta) {
  norm == 0 ? sums<0>(x, y, stats, dy, dgamma, dbeta) : sums<1>(x, y, stats, dy, dgamma, dbeta);
}

void grouped_conv_backward_weight(int conv, const std::vector<float>& x,
                                  const std::vector<float>& dy, std::vector<float>& dw) {
  conv == 0 ? weights<0>(x, dy, dw) : weights<1>(x, dy, dw);
}

void bias_gradient_channels(int conv, const std::vector<float>& dz, std::vector<float>& db) {
  conv == 0 ? bias<0>(dz, db) : bias<1>(dz, db);
}

}  // namespace channel_sums_test
