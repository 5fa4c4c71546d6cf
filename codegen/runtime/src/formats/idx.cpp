#include "staticnet/runtime/formats/idx.hpp"
#include "staticnet/runtime/validation.hpp"

#include "array_dataset.hpp"
#include "staticnet/runtime/checked_math.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/element_decode.hpp"

namespace staticnet::runtime {
namespace {

std::string hex_byte(std::uint8_t value) {
  constexpr char digits[] = "0123456789ABCDEF";
  return std::string("0x") + digits[value >> 4] + digits[value & 0xF];
}

std::optional<ElementType> idx_type(std::uint8_t code) {
  switch (code) {
    case 0x08:
      return ElementType::u8;
    case 0x09:
      return ElementType::i8;
    case 0x0B:
      return ElementType::i16;
    case 0x0C:
      return ElementType::i32;
    case 0x0D:
      return ElementType::f32;
    case 0x0E:
      return ElementType::f64;
    default:
      return std::nullopt;
  }
}

std::uint8_t byte_at(std::span<const std::byte> bytes, std::size_t i) {
  return static_cast<std::uint8_t>(bytes[i]);
}

}  // namespace

bool looks_like_idx(std::span<const std::byte> head) noexcept {
  return head.size() >= 4 && byte_at(head, 0) == 0 && byte_at(head, 1) == 0 &&
         idx_type(byte_at(head, 2)).has_value() && byte_at(head, 3) >= 1 &&
         byte_at(head, 3) <= idx_max_dimensions;
}

IdxHeader parse_idx(std::span<const std::byte> bytes, const std::string& name) {
  const auto at = [&name](std::uint64_t offset) { return Location{name, offset, {}, {}}; };
  if (bytes.size() < 4) {
    throw FormatError(at(bytes.size()), "a 4-byte IDX magic number",
                      "end of file after " + std::to_string(bytes.size()) + " bytes");
  }
  if (byte_at(bytes, 0) != 0 || byte_at(bytes, 1) != 0) {
    throw FormatError(at(0), "IDX magic starting with two zero bytes",
                      hex_byte(byte_at(bytes, 0)) + " " + hex_byte(byte_at(bytes, 1)));
  }
  IdxHeader header;
  if (auto type = idx_type(byte_at(bytes, 2))) {
    header.type = *type;
  } else {
    throw FormatError(at(2), "an IDX type code (0x08, 0x09, 0x0B, 0x0C, 0x0D or 0x0E)",
                      hex_byte(byte_at(bytes, 2)));
  }
  const std::size_t rank = byte_at(bytes, 3);
  if (rank < 1 || rank > idx_max_dimensions) {
    throw FormatError(at(3), "1 to " + std::to_string(idx_max_dimensions) + " dimensions",
                      std::to_string(rank));
  }
  header.data_offset = 4 + 4 * rank;
  if (bytes.size() < header.data_offset) {
    throw FormatError(at(bytes.size()), std::to_string(rank) + " 4-byte dimensions", "end of file");
  }

  std::uint64_t data_bytes = element_size(header.type);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::uint64_t offset = 4 + 4 * i;
    const auto dim = load_element<std::uint32_t, ByteOrder::big>(bytes.data() + offset);
    if (dim == 0) {
      throw FormatError(at(offset), i == 0 ? "at least 1 sample" : "a dimension of at least 1",
                        "0");
    }
    auto product = checked_mul(data_bytes, dim);
    if (!product || *product > INT64_MAX) {
      throw FormatError(at(offset), "dimensions whose product fits in 63 bits",
                        "dimension " + std::to_string(dim) + ", which overflows it");
    }
    data_bytes = *product;
    header.dims.push_back(dim);
  }

  check_data_extent(name, bytes.size(), header.data_offset, data_bytes);
  return header;
}

namespace {

StoredArray idx_array(ByteSource images) {
  const auto header = parse_idx(images.bytes(), images.name());
  return StoredArray{std::move(images), header.data_offset, header.type,
                     ByteOrder::big,    header.dims,        4};
}

}  // namespace

std::unique_ptr<Dataset> open_idx(ByteSource images, ByteSource labels,
                                  const DatasetOptions& options) {
  const auto label_header = parse_idx(labels.bytes(), labels.name());
  if (label_header.type != ElementType::u8) {
    throw FormatError(Location{labels.name(), 2, {}, {}}, "labels of type u8 (0x08)",
                      element_type_name(label_header.type));
  }
  if (label_header.dims.size() != 1) {
    throw FormatError(Location{labels.name(), 3, {}, {}}, "1-dimensional labels",
                      std::to_string(label_header.dims.size()) + " dimensions");
  }
  StoredArray targets{std::move(labels), label_header.data_offset, label_header.type,
                      ByteOrder::big,    label_header.dims,        4};
  return std::make_unique<ArrayDataset>("idx", idx_array(std::move(images)), std::move(targets),
                                        options);
}

std::unique_ptr<Dataset> open_idx(ByteSource images, const DatasetOptions& options) {
  return std::make_unique<ArrayDataset>("idx", idx_array(std::move(images)), std::nullopt, options);
}

std::unique_ptr<Dataset> open_idx(const std::string& images_path, const std::string& labels_path,
                                  const DatasetOptions& options) {
  return open_idx(ByteSource::from_file(images_path), ByteSource::from_file(labels_path), options);
}

}  // namespace staticnet::runtime
