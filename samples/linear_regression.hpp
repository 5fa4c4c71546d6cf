#pragma once
// Seed 002, Example 2: a single nn.Linear(10, 2) trained with MSE.
//
//   model = nn.Linear(10, 2)
//   optimizer = optim.SGD(model.parameters(), lr=0.01)
//   train_loader = [(torch.randn(5, 10), torch.randn(5, 2)) for _ in range(20)]
//   loss = nn.functional.mse_loss(outputs, targets)
//
// Batch 5 and plain SGD come from the seed (its loader yields batches of 5; SGD without
// momentum). Its gradient accumulation over 4 micro-batches changes nothing in the plan of one
// step: the gradients buffer already persists across steps.
//
// DERIVED BY HAND (B = 5; f32 = 4 bytes; "al(n)" = n rounded up to a multiple of 256)
//
//   #  layer          output   parameters
//   0  Linear 10->2   (5, 2)   10*2 + 2 = 22
//
// Footprint:
//   weights         al(4 * 22 = 88)                                  = 256
//   gradients       same                                             = 256
//   optimizer_state SGD keeps nothing                                = 0
//   inputs          al(5*10*4 = 200) + al(MSE targets 5*2*4 = 40) = 256 + 256 = 512
//   workspace       no conv                                          = 0
//   activations     see below                                        = 768
//   total           256 + 256 + 0 + 512 + 0 + 768                    = 1,792
//
// Activation region. L = 1: forward at step 0, loss at 1, backward of layer 0 at 2, update at
// 3. The Linear saves its input, which is the input batch (inputs region, not here). It is the
// first layer, so its backward computes dW and db only, and no d(input) buffer exists.
//   A0  output  al(5*2*4 = 40)  = 256   0..1
//   Lo  loss    al(5*4 = 20)    = 256   1..3
//   G0  d(out)  al(5*2*4 = 40)  = 256   1..2
// Live bytes: step 0: 256; 1: 768; 2: 512; 3: 256. Peak = step 1 (the loss): A0 + Lo + G0 = 768.
// Here the 256-byte rounding is most of the footprint: 1,792 bytes hold 88+88+200+40+40+20+40
// = 516 bytes of data.
#include <staticnet/staticnet.hpp>

namespace staticnet::samples {

using LinearRegression = Sequential<Linear<2, InFeatures<10>>>;

using LinearRegressionTraining =
    Training<Input<f32, 10>, Batch<5>, Loss<MSE>, Optimizer<SGD>, Precision<FP32>, Target<f32, 2>>;

STATICNET_MODEL(linear_regression, LinearRegression, LinearRegressionTraining);  // for `staticnet analyze samples/linear_regression.hpp`

}  // namespace staticnet::samples
