#pragma once
// safetensors files: dtypes, reading (validated, memory-mapped) and writing (atomic).
#include "staticnet/runtime/safetensors_dtype.hpp"   // IWYU pragma: export
#include "staticnet/runtime/safetensors_reader.hpp"  // IWYU pragma: export
#include "staticnet/runtime/safetensors_writer.hpp"  // IWYU pragma: export
