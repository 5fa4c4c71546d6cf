#!/usr/bin/env bash
# The main job: install what is missing, build the samples and two generated CPU trainers, print
# each sample's shapes and footprint, train seed 001's SimpleCNN on a generated (synthetic) data
# set so that loss falls and accuracy rises with no download, then train the digits CNN on the
# real handwritten digits bundled in samples/digits/ and print its accuracy on their test images,
# and quantize it to int8 for a microcontroller, printing the int8 accuracy beside the float one.
# Arguments are passed to the printer (sample names; none means all of them).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# A build directory of its own, so that the test presets' caches are never changed by this job.
cmake -S . -B build/run -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTATICNET_BUILD_TESTS=OFF >/dev/null
cmake --build build/run --target staticnet_samples simple_cnn_trainer_cpu digits_cnn_trainer_cpu \
  digits_int8_quantize
./build/run/samples/staticnet_samples "$@"
echo
echo "== SimpleCNN trained by its generated CPU trainer (samples/simple_cnn.hpp), on synthetic data"
./build/run/samples/simple_cnn_trainer_cpu --data synthetic:4096 --eval synthetic:1024 --epochs 5
echo
echo "== The digits CNN (samples/digits_cnn.hpp) on real data: scikit-learn's 8x8 handwritten"
echo "   digits, 1,437 training images, evaluated on the 360 it never sees"
digits=samples/digits
log=build/run/digits_train.txt
rm -f build/run/digits.safetensors  # the trainer does not replace an earlier run's checkpoint
./build/run/samples/digits_cnn_trainer_cpu --data $digits/train_images.npy \
  --labels $digits/train_labels.npy --eval $digits/test_images.npy \
  --eval-labels $digits/test_labels.npy --scale 0.0625 --epochs 20 --progress none \
  --save build/run/digits.safetensors | tee "$log"
accuracy=$(sed -n 's/^epoch 20\/20: .*eval loss [0-9.]*, accuracy \([0-9.]*%\).*/\1/p' "$log")
echo
echo "digits test accuracy after 20 epochs: ${accuracy:?the trainer printed no eval accuracy} of 360 held-out images"
echo
echo "== The same checkpoint in int8 for a microcontroller (BACKENDS mcu): calibrated on the"
echo "   training images, scored on the held-out ones, written as a C++ source for a firmware"
./build/run/samples/digits_int8_quantize --weights build/run/digits.safetensors \
  --calibration $digits/train_images.npy --data $digits/test_images.npy \
  --labels $digits/test_labels.npy --output build/run/digits_int8_weights.cpp
