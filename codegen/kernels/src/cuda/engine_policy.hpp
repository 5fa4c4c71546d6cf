#pragma once
// Which of cuDNN's engines a staticnet step may run: the numerical notes that rule one out. Shared
// by Convolution and by the convolution benchmarks (bench/cuda_step/conv_sweep.cpp), so that what
// the benchmarks call "allowed" is what the trainers can pick. Needs cudnn_frontend.h, which is
// private to the CUDA backend's sources: this header is not installed.
#include <cudnn_frontend.h>

#include <vector>

namespace staticnet::cuda {

// FP32 arithmetic throughout, the same algorithm as the CPU step, the same bits on every run:
// - TENSOR_CORE, DOWN_CONVERT_INPUTS, REDUCED_PRECISION_REDUCTION: TF32 or lower somewhere.
// - FFT, WINOGRAD and its tiles: FP32, but transformed algorithms whose rounding error grows with
//   the transform's size, beyond what a different summation order gives. With them the CUDA
//   step would drift from the CPU step by an amount that depends on which engine cuDNN's
//   heuristic picks on this GPU; the tests that compare the two would need looser tolerances.
// - NONDETERMINISTIC: atomics that add in a different order each run; --resume must give the
//   same bits.
inline const std::vector<cudnn_frontend::NumericalNote_t>& excluded_numerical_notes() {
  using Note = cudnn_frontend::NumericalNote_t;
  static const std::vector<Note> notes{Note::TENSOR_CORE,
                                       Note::DOWN_CONVERT_INPUTS,
                                       Note::REDUCED_PRECISION_REDUCTION,
                                       Note::FFT,
                                       Note::WINOGRAD,
                                       Note::WINOGRAD_TILE_4x4,
                                       Note::WINOGRAD_TILE_6x6,
                                       Note::WINOGRAD_TILE_13x13,
                                       Note::NONDETERMINISTIC};
  return notes;
}

}  // namespace staticnet::cuda
