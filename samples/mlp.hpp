#pragma once
// Seed 003: a classifier on 100 features and 10 classes, batch 64.
//
//   data = torch.randn(100000, 100); labels = torch.randint(0, 10, (100000,))
//   dataloader = DataLoader(dataset, batch_size=64, num_workers=4)
//   # ... your model and optimizer definition ...
//
// The seed fixes only the input (100 f32 features), the classes (10, so CrossEntropy) and the
// batch (64); it leaves the model and optimizer open. CHOSEN HERE: a two-hidden-layer MLP
// 100 -> 128 -> ReLU -> 64 -> ReLU -> 10, trained with Adam (the optimizer of seed 001).
// The seed's autocast (mixed precision) is not modelled: staticnet plans FP32 only.
//
// DERIVED BY HAND (B = 64; f32 = 4 bytes; "al(n)" = n rounded up to a multiple of 256)
//
//   #  layer            output     parameters
//   0  Linear 100->128  (64, 128)  100*128 + 128 = 12,928
//   1  ReLU             (64, 128)  0
//   2  Linear 128->64   (64, 64)   128*64 + 64   = 8,256
//   3  ReLU             (64, 64)   0
//   4  Linear 64->10    (64, 10)   64*10 + 10    = 650
//   parameters: 12,928 + 8,256 + 650 = 21,834
//
// Footprint:
//   weights         al(4 * 21,834 = 87,336)                          = 87,552
//   gradients       same                                             = 87,552
//   optimizer_state Adam, 2 * 87,552                                 = 175,104
//   inputs          al(64*100*4 = 25,600) + al(labels 64*4 = 256) = 25,600 + 256 = 25,856
//   workspace       no conv                                          = 0
//   activations     see below                                        = 82,432
//   total           87,552*2 + 175,104 + 25,856 + 0 + 82,432         = 458,496
//
// Activation region. L = 5: forward i at step i, loss at 5, backward of layer i at 10 - i,
// update at 11. Each ReLU runs in place over the Linear before it (that Linear saves its own
// input, not its output) and saves the result, which the next Linear also saves as its input.
//   A0  fc1/relu1 out    64*128*4 = 32,768   0..9  (relu1 backward at 9)
//   A2  fc2/relu2 out    64*64*4  = 16,384   2..7  (relu2 backward at 7)
//   A4  logits           64*10*4  =  2,560   4..5
//   Lo  loss             al(64*4) =    256   5..11
//   Pr  predicted class  al(64*4) =    256   5..11
//   G4  d(logits)        64*10*4  =  2,560   5..6
//   G3  d(fc3 input)     64*64*4  = 16,384   6..8  (relu2 backward in place)
//   G1  d(fc2 input)     64*128*4 = 32,768   8..10 (relu1 backward in place; fc1 is first,
//                                                   so it makes no d(input))
// Live bytes: 0-1: 32,768; 2-3: 49,152; 4: 51,712; 5: 54,784; 6: 68,608; 7: 66,048;
// 8: 82,432; 9: 66,048; 10: 33,280; 11: 512.
// Peak = step 8 (fc2 backward, which reads A0 for dW and G3, and writes G1):
//   A0 + Lo + Pr + G3 + G1 = 32,768 + 256 + 256 + 16,384 + 32,768 = 82,432.
#include <staticnet/staticnet.hpp>

namespace staticnet::samples {

using MLP = Sequential<Linear<128, InFeatures<100>>, ReLU, Linear<64>, ReLU, Linear<10>>;

using MLPTraining = Training<Input<f32, 100>, Batch<64>, Loss<CrossEntropy>, Optimizer<Adam>,
                             Precision<FP32>, Target<i32>>;

STATICNET_MODEL(mlp, MLP, MLPTraining);  // for `staticnet analyze samples/mlp.hpp`

}  // namespace staticnet::samples
