#pragma once
// `staticnet data check`: open a data set (format from the content, the name or the caller),
// run the full validation scan (every sample read, every label counted, NaN/Inf found) with
// progress reports, and describe it: format, sample shape, count, element type, label range and
// class balance. Problems surface as the parser's FormatError or IoError (file, byte offset or
// line/column, expected, found).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "staticnet/runtime/formats/dataset_summary.hpp"
#include "staticnet/runtime/formats/open_dataset.hpp"

namespace staticnet::runtime {

struct DataCheckResult {
  DatasetSummary summary;
  std::uint64_t values_scanned = 0;  // sample elements read by the scan
  std::uint64_t non_finite = 0;      // NaN/Inf seen; non-zero only when allowed by the options
};

// Called with the number of samples scanned so far (0 .. summary.count), often: the callee
// rate-limits (see ProgressBar).
using ScanProgress = std::function<void(std::uint64_t samples_done)>;

// Opens `paths` with `options` and scans every sample. Throws FormatError (a bad file, a label
// out of range, a non-finite value unless options.common.allow_non_finite), IoError (a file that
// cannot be read) and std::invalid_argument for synthetic options that describe no data set.
DataCheckResult check_dataset(const std::vector<std::string>& paths, const OpenOptions& options,
                              const ScanProgress& progress = {});
// The same scan over a data set the caller opened.
DataCheckResult check_dataset(const Dataset& dataset, bool allow_non_finite,
                              const ScanProgress& progress = {});

// The report `data check` prints, e.g.
//   format: idx
//   source: train-images.idx, train-labels.idx
//   samples: 10 of shape (4, 4), u8
//   labels: 3 classes, range 0..2
//   class balance (count, share):
//     0: 4  40.0%
//     1: 3  30.0%
//     2: 3  30.0%
//   scan: 160 values, no NaN or Inf
// At most `max_class_lines` classes are listed one per line (the rest are summarised).
std::string format_data_check(const DataCheckResult& result, std::size_t max_class_lines = 1000);

}  // namespace staticnet::runtime
