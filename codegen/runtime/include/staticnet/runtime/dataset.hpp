#pragma once
// The interface every data set offers the batcher: random access to samples by index, each
// converted to f32 on read. Implementations map or stream their files; none holds the whole
// data set in memory unless it is small enough to be its own file format (CSV).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace staticnet::runtime {

// How a sample's label is stored. Classification labels are class indices in [0, num_classes);
// regression targets are f32 tensors of target_shape(); unlabelled data sets (inputs only: an
// IDX or .npy inputs file alone, a CSV read with no label column) serve inference, not training.
enum class LabelKind { class_index, regression, none };

// The element type the file stores (reported by `staticnet data check`).
// i16: IDX type 0x0B; f16: NumPy's float16 ('<f2')
enum class ElementType { u8, i8, i16, i32, i64, f16, f32, f64 };

class Dataset {
 public:
  virtual ~Dataset() = default;

  virtual std::string format_name() const = 0;  // "idx", "cifar10", "npy", "csv", "synthetic"
  virtual std::string source() const = 0;       // file name(s), for messages
  virtual std::int64_t size() const = 0;        // number of samples
  virtual const std::vector<std::int64_t>& sample_shape() const = 0;  // e.g. {1, 28, 28}
  virtual ElementType element_type() const = 0;
  virtual LabelKind label_kind() const = 0;
  virtual std::int64_t num_classes() const = 0;                       // 0 unless class_index
  virtual const std::vector<std::int64_t>& target_shape() const = 0;  // {} unless regression

  // Thread-safe: may be called concurrently from producer threads.
  // `features` has exactly product(sample_shape()) elements; values are converted, not scaled.
  virtual void read_sample(std::int64_t index, std::span<float> features) const = 0;
  // class_index data sets only.
  virtual std::int32_t label(std::int64_t index) const = 0;
  // regression data sets only; `target` has product(target_shape()) elements.
  virtual void read_target(std::int64_t index, std::span<float> target) const = 0;

  // The full scan that open time skips because it reads every byte: non-finite values in float
  // data and targets (unless allowed). Throws FormatError naming the sample and the offset.
  // Cheap checks (headers, sizes, shapes, label ranges) already ran when the data set opened.
  virtual void validate_all() const {}
  // Host memory the data set holds itself, in bytes: a parsed CSV's values, a set read into
  // memory. A file read through mmap holds none (its pages are the file's, which the kernel can
  // drop and read again).
  virtual std::int64_t memory_bytes() const { return 0; }

  std::int64_t sample_elements() const {
    std::int64_t n = 1;
    for (auto d : sample_shape())
      n *= d;
    return n;
  }
};

}  // namespace staticnet::runtime
