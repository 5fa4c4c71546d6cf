#pragma once
// The fully connected autoencoder, the MLPerf Tiny anomaly detection model (ToyADMOS machine
// sounds: 5 frames of 128 log-mel bands, 640 values), as mlcommons/tiny writes it
// (benchmark/training/anomaly_detection/keras_model.py, get_model): four Dense(128) layers, a
// Dense(8) bottleneck and four Dense(128) layers, each followed by BatchNorm and ReLU, then a
// linear Dense(640) that reconstructs the input; trained with MSE against the input itself.
//
// CHOSEN HERE (the reference's training): batch 512, Adam, MSE.
//
// DERIVED BY HAND (B = 512). Layers 3u, 3u+1, 3u+2 for unit u = 0..8: Linear, BatchNorm1d,
// ReLU; layer 27 the Linear 128->640.
//   unit 0      Linear 640->128   640*128 + 128 = 82,048;  BN 256 (non-trainable 256)
//   units 1-3   Linear 128->128   16,512 each;             BN 256 each
//   unit 4      Linear 128->8     1,032;                   BN 16 (non-trainable 16)
//   unit 5      Linear 8->128     1,152;                   BN 256
//   units 6-8   Linear 128->128   16,512 each;             BN 256 each
//   layer 27    Linear 128->640   128*640 + 640 = 82,560
//   trainable: 82,048 + 3*16,512 + 1,032 + 1,152 + 3*16,512 + 82,560 + 8*256 + 16 = 267,928
//   non-trainable: 8 * 256 + 16 = 2,064
//
// Footprint (Adam):
//   weights          al(4 * 267,928 = 1,071,712) = 4,187 * 256              = 1,071,872
//   non_trainable    al(4 * 2,064 = 8,256) = 33 * 256                       =     8,448
//   gradients        same as weights                                        = 1,071,872
//   optimizer_state  2 moments                                              = 2,143,744
//   inputs           512*640*4 = 1,310,720, and the targets as much         = 2,621,440
//   workspace        none (no convolution)                                  =         0
#include <staticnet/staticnet.hpp>

#include "samples/mlperf_tiny/keras_layers.hpp"

namespace staticnet::samples {

namespace fc_autoencoder {
template <std::int64_t Units>
using DenseUnit = Sequential<Linear<Units>, keras::BatchNorm1d, ReLU>;
using Wide = DenseUnit<128>;
}  // namespace fc_autoencoder

using FCAutoencoder = Sequential<fc_autoencoder::Wide, fc_autoencoder::Wide, fc_autoencoder::Wide,
                                 fc_autoencoder::Wide, fc_autoencoder::DenseUnit<8>,  //
                                 fc_autoencoder::Wide, fc_autoencoder::Wide, fc_autoencoder::Wide,
                                 fc_autoencoder::Wide, Linear<640>>;

using FCAutoencoderTraining =
    Training<Input<f32, 640>, Batch<512>, Loss<MSE>, Optimizer<Adam>, Precision<FP32>>;

STATICNET_MODEL(fc_autoencoder, FCAutoencoder, FCAutoencoderTraining);

}  // namespace staticnet::samples
