#include "staticnet/runtime/formats/byte_source.hpp"

#include <vector>

#include "staticnet/runtime/formats/mapped_file.hpp"

namespace staticnet::runtime {

ByteSource ByteSource::from_file(const std::string& path) {
  auto mapped = std::make_shared<MappedFile>(MappedFile::open(path));
  ByteSource source;
  source.name_ = path;
  source.bytes_ = mapped->bytes();
  source.owner_ = std::move(mapped);
  return source;
}

ByteSource ByteSource::from_memory(std::span<const std::byte> bytes, std::string name) {
  auto copy = std::make_shared<std::vector<std::byte>>(bytes.begin(), bytes.end());
  ByteSource source;
  source.name_ = std::move(name);
  source.bytes_ = std::span<const std::byte>(copy->data(), copy->size());
  source.owner_ = std::move(copy);
  return source;
}

}  // namespace staticnet::runtime
