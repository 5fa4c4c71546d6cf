// MUST COMPILE with nvcc: the shared kernel bodies (codegen/kernels/include/staticnet/kernels/)
// are __host__ __device__ code. Each is instantiated here inside a __global__ kernel, one thread
// per index, the way the CUDA backend launches them.
#include <staticnet/kernels/activations.hpp>
#include <staticnet/kernels/bias_activation.hpp>
#include <staticnet/kernels/losses.hpp>
#include <staticnet/kernels/optimizers.hpp>
#include <staticnet/kernels/pooling.hpp>

namespace k = staticnet::kernels;

constexpr k::Pool2dGeometry pool{.batch = 2, .channels = 3, .in_height = 4, .in_width = 4,
                                 .out_height = 2, .out_width = 2, .kernel_h = 2, .kernel_w = 2,
                                 .stride_h = 2, .stride_w = 2};

__global__ void forward(const float* z, const float* bias, float* y, float* pooled,
                        unsigned char* window) {
  const k::index_t plane = blockIdx.x, oh = threadIdx.y, ow = threadIdx.x;
  k::bias_activation_max_pool_forward<k::ReLU, pool, true, unsigned char>(plane, oh, ow, z, bias,
                                                                          y, pooled, window);
  k::bias_activation_avg_pool_forward<k::Tanh, pool, true>(plane, oh, ow, z, bias, y, pooled);
}

__global__ void backward(const float* dpooled, const unsigned char* window, const float* y,
                         float* dz, float* dx) {
  const k::index_t plane = blockIdx.x, oh = threadIdx.y, ow = threadIdx.x;
  k::max_pool_activation_backward<k::Sigmoid, pool, unsigned char>(plane, oh, ow, dpooled,
                                                                   window, y, dz);
  k::max_pool_backward<pool, unsigned char>(plane, oh * 4 + ow, dpooled, window, dx);
  k::activation_backward<k::LeakyReLU>(threadIdx.x, y, dpooled, dx);
}

__global__ void loss(const float* logits, const int* labels, float* l, int* predicted,
                     float* dlogits, const float* out, const float* target, float* dout) {
  k::softmax_cross_entropy<4, 10>(threadIdx.x, logits, labels, l, predicted, dlogits);
  k::mean_squared_error<4, 3>(threadIdx.x, out, target, l, dout);
}

__global__ void update(float* p, const float* g, float* m, float* v, k::OptimizerConstants c) {
  const k::index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  k::adam_update<true>(i, p, g, m, v, c);
  k::sgd_momentum_update(i, p, g, m, c);
}
