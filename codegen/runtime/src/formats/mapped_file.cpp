#include "staticnet/runtime/formats/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime {
namespace {

[[noreturn]] void throw_io_error(const std::string& path, const char* what, int error_number) {
  throw IoError(path + ": " + what + ": " + std::strerror(error_number));
}

// Closes the descriptor on every path out of open(); the mapping outlives it.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};

}  // namespace

MappedFile MappedFile::open(const std::string& path) {
  FileDescriptor file;
  do {
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (file.fd < 0 && errno == EINTR);
  if (file.fd < 0)
    throw_io_error(path, "cannot open", errno);

  struct stat info {};
  if (::fstat(file.fd, &info) != 0)
    throw_io_error(path, "cannot stat", errno);
  if (S_ISDIR(info.st_mode))
    throw_io_error(path, "cannot map", EISDIR);
  if (!S_ISREG(info.st_mode))
    throw IoError(path + ": cannot map: not a regular file");

  MappedFile mapped;
  mapped.path_ = path;
  if (info.st_size == 0)
    return mapped;  // mmap(0 bytes) is EINVAL; an empty span is the truth

  const auto size = static_cast<std::size_t>(info.st_size);
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (address == MAP_FAILED)
    throw_io_error(path, "cannot mmap", errno);
  mapped.data_ = static_cast<const std::byte*>(address);
  mapped.size_ = size;
  return mapped;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  release();
}

void MappedFile::release() noexcept {
  if (data_ != nullptr)
    ::munmap(const_cast<std::byte*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace staticnet::runtime
