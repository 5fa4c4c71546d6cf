#pragma once
// safetensors files: dtypes, reading (validated, memory-mapped) and writing (atomic).
#include "staticnet/runtime/checkpoints/safetensors_dtype.hpp"   // IWYU pragma: export
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"  // IWYU pragma: export
#include "staticnet/runtime/checkpoints/safetensors_writer.hpp"  // IWYU pragma: export
