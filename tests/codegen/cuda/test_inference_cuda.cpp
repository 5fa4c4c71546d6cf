// The generated CUDA forward pass of the inference programs (sn::Inference setups) against
// PyTorch: the MLPerf Tiny models with their BatchNorms folded, by the same check and tolerance as
// the CPU's (inference_check.hpp). Each model runs three passes on one CudaInference: launch by
// launch, captured into a CUDA graph, and replayed; all three must give the same output.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include <staticnet/runtime/inference/cuda_inference.hpp>

#include "../inference_check.hpp"
#include "infer_ds_cnn_infer.h"
#include "infer_ds_cnn_kernels_cuda.h"
#include "infer_fc_autoencoder_infer.h"
#include "infer_fc_autoencoder_kernels_cuda.h"
#include "infer_mobilenet_v1_infer.h"
#include "infer_mobilenet_v1_kernels_cuda.h"
#include "infer_resnet8_infer.h"
#include "infer_resnet8_kernels_cuda.h"

namespace {

namespace rt = staticnet::runtime;

std::vector<float> run_on_gpu(const rt::InferenceModel& model, rt::CudaInferenceFactory make,
                              const inference_check::Weights& w, const std::vector<float>& input) {
  rt::CudaInference inference(model, make);
  MESSAGE(inference.details());  // what cuDNN and cuBLASLt chose, for a failure's reader
  inference.load(w.parameters, w.statistics);
  CHECK_THROWS_AS(inference.load(w.parameters, w.statistics), std::logic_error);
  std::vector<std::vector<float>> outputs;
  for (int pass = 0; pass < 3; ++pass) {  // launch by launch, captured, replayed
    std::ranges::copy(input, inference.input().begin());
    inference.run();
    outputs.emplace_back(inference.output().begin(), inference.output().end());
  }
  CHECK(outputs[1] == outputs[0]);
  CHECK(outputs[2] == outputs[0]);
  return outputs[0];
}

}  // namespace

#define STATICNET_INFERENCE_CUDA_CASE(model)                                                    \
  TEST_CASE("pytorch on the GPU: MLPerf Tiny " #model " inference, BatchNorms folded") {        \
    const rt::InferenceModel info = infer_##model::model_info();                                \
    inference_check::check_mlperf_inference(                                                    \
        #model, info, [&](const inference_check::Weights& w, const std::vector<float>& input) { \
          return run_on_gpu(info, &infer_##model::cuda::make_inference, w, input);              \
        });                                                                                     \
  }

STATICNET_INFERENCE_CUDA_CASE(resnet8)
STATICNET_INFERENCE_CUDA_CASE(ds_cnn)
STATICNET_INFERENCE_CUDA_CASE(mobilenet_v1)
STATICNET_INFERENCE_CUDA_CASE(fc_autoencoder)
