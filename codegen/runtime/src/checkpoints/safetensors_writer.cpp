#include "staticnet/runtime/checkpoints/safetensors_writer.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <stdexcept>

#include "staticnet/runtime/checked_math.hpp"

namespace staticnet::runtime {
namespace {

using nlohmann::json;

constexpr std::size_t header_alignment = 8;

void check_tensor(const SafetensorsTensorRef& tensor) {
  if (tensor.name.empty())
    throw std::invalid_argument("safetensors: empty tensor name");
  if (tensor.name == "__metadata__") {
    throw std::invalid_argument("safetensors: \"__metadata__\" is reserved, not a tensor name");
  }
  std::uint64_t bytes = dtype_size(tensor.dtype);
  for (auto dim : tensor.shape) {
    if (dim < 0) {
      throw std::invalid_argument("safetensors: tensor " + tensor.name + ": negative dimension " +
                                  std::to_string(dim));
    }
    const auto next = checked_mul(bytes, static_cast<std::uint64_t>(dim));
    if (!next)
      throw std::invalid_argument("safetensors: tensor " + tensor.name + ": too large");
    bytes = *next;
  }
  if (bytes != tensor.data.size()) {
    throw std::invalid_argument("safetensors: tensor " + tensor.name + ": shape and dtype need " +
                                std::to_string(bytes) + " bytes, data has " +
                                std::to_string(tensor.data.size()));
  }
}

}  // namespace

SafetensorsLayout plan_safetensors_layout(std::span<const SafetensorsTensorRef> tensors,
                                          const std::map<std::string, std::string>& metadata) {
  std::set<std::string_view> names;
  for (const auto& tensor : tensors) {
    check_tensor(tensor);
    if (!names.insert(tensor.name).second) {
      throw std::invalid_argument("safetensors: duplicate tensor name " + tensor.name);
    }
  }

  SafetensorsLayout layout;
  layout.data_order.resize(tensors.size());
  std::iota(layout.data_order.begin(), layout.data_order.end(), std::size_t{0});
  std::sort(layout.data_order.begin(), layout.data_order.end(), [&](auto a, auto b) {
    const auto size_a = dtype_size(tensors[a].dtype);
    const auto size_b = dtype_size(tensors[b].dtype);
    if (size_a != size_b)
      return size_a > size_b;
    return tensors[a].name < tensors[b].name;
  });

  json header = json::object();
  std::uint64_t offset = 0;
  for (auto index : layout.data_order) {
    const auto& tensor = tensors[index];
    const std::uint64_t end = offset + tensor.data.size();
    header[tensor.name] = {{"dtype", std::string(dtype_name(tensor.dtype))},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, end}}};
    offset = end;
  }
  if (!metadata.empty())
    header["__metadata__"] = metadata;

  std::string text;
  try {
    text = header.dump();
  } catch (const json::type_error& error) {  // invalid UTF-8 in a name or metadata
    throw std::invalid_argument(std::string("safetensors: cannot encode the header: ") +
                                error.what());
  }
  text.append((header_alignment - text.size() % header_alignment) % header_alignment, ' ');

  const std::uint64_t length = text.size();
  layout.header.resize(8 + text.size());
  for (std::size_t i = 0; i < 8; ++i) {
    layout.header[i] = static_cast<std::byte>((length >> (8 * i)) & 0xFF);
  }
  std::transform(text.begin(), text.end(), layout.header.begin() + 8,
                 [](char c) { return static_cast<std::byte>(c); });
  layout.file_size = layout.header.size() + offset;
  return layout;
}

std::vector<std::byte> serialize_safetensors(std::span<const SafetensorsTensorRef> tensors,
                                             const std::map<std::string, std::string>& metadata) {
  auto layout = plan_safetensors_layout(tensors, metadata);
  std::vector<std::byte> file = std::move(layout.header);
  file.reserve(static_cast<std::size_t>(layout.file_size));
  for (auto index : layout.data_order) {
    file.insert(file.end(), tensors[index].data.begin(), tensors[index].data.end());
  }
  return file;
}

void write_safetensors(const std::filesystem::path& path,
                       std::span<const SafetensorsTensorRef> tensors,
                       const std::map<std::string, std::string>& metadata,
                       const AtomicWriteOptions& options) {
  const auto layout = plan_safetensors_layout(tensors, metadata);
  AtomicFileWriter file(path, options);
  file.write(layout.header);
  for (auto index : layout.data_order)
    file.write(tensors[index].data);
  file.commit();
}

}  // namespace staticnet::runtime
