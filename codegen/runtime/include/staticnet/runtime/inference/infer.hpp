#pragma once
// What every generated inference program runs: load a model's weights (any safetensors file with
// its tensor names: a trainer's checkpoint, or PyTorch's save_file(model.state_dict())), fold the
// BatchNorms, run the forward pass over a data set in the plan's batch, and report accuracy
// (class labels) or mean squared error (targets shaped like the output). The outputs of every
// sample can be written to a .npy file; for unlabelled data (inputs only) that file is the result,
// so it is required.
//
//  * Every sample once, in order: the last, partial batch is completed with samples from the
//    start of the set, which are computed and neither counted nor written.
//  * The data go through the same normalisation options as the trainer's (--scale, --mean,
//    --std): pass what training used.
//  * A weight that is not finite is refused when loading, naming the tensor and element; an
//    output that is not finite stops the run naming the sample. The output file is written
//    atomically, and only when every batch has run.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/formats/open_dataset.hpp"
#include "staticnet/runtime/inference/cpu_inference.hpp"
#include "staticnet/runtime/inference/inference_backend.hpp"
#include "staticnet/runtime/inference/inference_model.hpp"

namespace staticnet::runtime {

struct InferOptions {
  std::filesystem::path weights;  // required
  std::vector<std::string> data;  // data file(s): IDX or .npy inputs alone are unlabelled
  DatasetFormat format = DatasetFormat::automatic;
  std::string label_column;  // CSV: a 0-based index or a header name (default the last)
  bool no_labels = false;    // CSV: no label column, every field an input
  char csv_delimiter = ',';
  CsvHeader csv_header = CsvHeader::detect;  // CSV: whether the first line names the columns
  Cifar100Labels cifar100_labels = Cifar100Labels::fine;  // CIFAR-100: 100 fine or 20 coarse
  std::optional<float> scale;       // input scale; default 1/255 for u8 data, else 1
  std::vector<float> mean, stddev;  // per channel (or one for all), after scaling
  int workers = 1;                  // data loader threads
  std::filesystem::path output;     // .npy of every sample's output; empty: none
};

struct InferResult {
  std::int64_t samples = 0;
  std::optional<double> accuracy;            // class labels
  std::optional<double> mean_squared_error;  // targets, per element (neither: unlabelled)
  double seconds = 0;                        // the forward passes, loading the data included
};

// Bad options, or data and weights that do not fit the model (the message names both sides).
class InferenceSetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws InferenceSetupError, and the runtime's FormatError, IoError, CheckpointMismatch and
// LoaderConfigError.
InferResult run_inference(const InferenceModel& model, InferenceBackend& inference,
                          const InferOptions& options, std::ostream& out);

// How an inference program makes its backend, once its command line is parsed.
struct InferenceProgram {
  std::string backend;           // "CPU", "CUDA GPU": named in --help
  bool compute_threads = false;  // offers --threads (the CPU's thread pool)
  std::function<std::unique_ptr<InferenceBackend>(int threads)> make;
};

// The inference program's main(): parses the command line (NAME_infer_cpu --help, NAME_infer_cuda
// --help) and runs.
int infer_main(int argc, char** argv, const InferenceModel& model, const InferenceProgram& backend);
// NAME_infer_cpu's: CpuInference over the generated entry points.
int infer_main(int argc, char** argv, const InferenceModel& model, CpuInferenceSteps steps);

}  // namespace staticnet::runtime
