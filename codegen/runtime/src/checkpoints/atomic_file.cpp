#include "staticnet/runtime/checkpoints/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view temp_marker = ".staticnet-tmp.";

std::string errno_text(int error_number) {
  return std::system_category().message(error_number);
}

[[noreturn]] void throw_io_error(const fs::path& path, const std::string& what, int error_number) {
  throw IoError(path.string() + ": " + what + ": " + errno_text(error_number));
}

fs::path directory_of(const fs::path& target) {
  return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

std::string temp_prefix(const fs::path& target) {
  // Appended piece by piece: g++ 12 at -O3 reports a false -Wrestrict overlap for
  // `"." + string` (GCC bug 105329).
  std::string prefix = ".";
  prefix += target.filename().string();
  prefix += temp_marker;
  return prefix;
}

// Returns 0, or the errno of the first failure. Short writes are continued, EINTR retried.
int write_fully(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return errno;
    }
    if (written == 0)
      return EIO;  // no progress and no errno: never loop forever
    bytes = bytes.subspan(static_cast<std::size_t>(written));
  }
  return 0;
}

int fsync_retrying(int fd) {
  while (::fsync(fd) != 0) {
    if (errno != EINTR)
      return errno;
  }
  return 0;
}

// The pid in ".<name>.staticnet-tmp.<pid>.<random>", or 0 when the suffix is not ours.
pid_t writer_pid(std::string_view suffix) {
  const auto dot = suffix.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == suffix.size())
    return 0;
  for (char c : suffix.substr(dot + 1)) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (!hex)
      return 0;
  }
  pid_t pid = 0;
  const auto digits = suffix.substr(0, dot);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (error != std::errc() || end != digits.data() + digits.size() || pid <= 0)
    return 0;
  return pid;
}

bool process_exists(pid_t pid) {
  return ::kill(pid, 0) == 0 || errno != ESRCH;
}

std::string random_hex() {
  std::random_device device;
  const std::uint64_t value = (std::uint64_t{device()} << 32) | device();
  char text[17] = {};
  const auto [end, error] = std::to_chars(text, text + 16, value, 16);
  (void)error;
  return std::string(text, end);
}

// The file a chain of symbolic links ends at (the target itself when it is not a link); the
// file need not exist.
fs::path followed(fs::path target) {
  for (int links = 0; links < 40; ++links) {
    std::error_code error;
    if (!fs::is_symlink(target, error))
      return target;
    const fs::path to = fs::read_symlink(target, error);
    if (error)
      throw_io_error(target, "cannot read the symbolic link", error.value());
    target = to.is_absolute() ? to : directory_of(target) / to;
  }
  throw_io_error(target, "cannot follow the symbolic link", ELOOP);
}

// Refuses a target that exists and is not a regular file: renaming over a directory fails only
// after the work, and over a device or a pipe it would replace the node with a file.
void require_regular_or_absent(const fs::path& target) {
  struct stat existing {};
  if (::stat(target.c_str(), &existing) != 0)
    return;  // absent (or unreachable, which creating the temporary file reports)
  if (S_ISDIR(existing.st_mode))
    throw IoError(target.string() + ": is a directory; give a file name to write");
  if (!S_ISREG(existing.st_mode))
    throw IoError(target.string() +
                  ": is not a regular file (a device, a pipe or a socket); the file is written "
                  "by renaming a new one over the old, which would replace it");
}

}  // namespace

fs::path check_writable_target(const fs::path& target) {
  AtomicFileWriter probe(target);  // follows links, refuses non-files, creates the temporary file
  fs::path file = probe.target();
  probe.discard();
  return file;
}

void write_all(int fd, std::span<const std::byte> bytes, const fs::path& path) {
  if (const int error = write_fully(fd, bytes); error != 0) {
    throw_io_error(path, "cannot write", error);
  }
}

bool is_temp_file_of(const fs::path& candidate, const fs::path& target) {
  const std::string name = candidate.filename().string();
  const std::string prefix = temp_prefix(target);
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
    return false;
  return writer_pid(std::string_view(name).substr(prefix.size())) != 0;
}

std::vector<fs::path> remove_stale_temp_files(const fs::path& target) {
  std::vector<fs::path> removed;
  const std::string prefix = temp_prefix(target);
  std::error_code error;
  for (fs::directory_iterator it(directory_of(target), error), end; !error && it != end;
       it.increment(error)) {
    const fs::path& candidate = it->path();
    if (!is_temp_file_of(candidate, target))
      continue;
    const pid_t pid = writer_pid(candidate.filename().string().substr(prefix.size()));
    if (process_exists(pid))
      continue;
    std::error_code remove_error;
    if (fs::remove(candidate, remove_error))
      removed.push_back(candidate);
  }
  return removed;
}

AtomicFileWriter::AtomicFileWriter(fs::path target, AtomicWriteOptions options)
    : target_(followed(std::move(target))), options_(std::move(options)) {
  if (options_.chunk_bytes == 0)
    options_.chunk_bytes = std::size_t{1} << 20;
  if (!target_.has_filename())
    throw IoError(target_.string() + ": not a file name");
  require_regular_or_absent(target_);
  remove_stale_temp_files(target_);

  struct stat existing {};
  const bool target_exists = ::stat(target_.c_str(), &existing) == 0;
  const std::string prefix = temp_prefix(target_) + std::to_string(::getpid()) + ".";
  for (int attempt = 0; fd_ < 0; ++attempt) {
    temp_path_ = directory_of(target_) / (prefix + random_hex());
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && !(errno == EEXIST && attempt < 8) && errno != EINTR) {
      const int error = errno;
      std::error_code ignored;
      if (error == ENOENT && !fs::is_directory(directory_of(target_), ignored))
        throw IoError(target_.string() + ": the directory " + directory_of(target_).string() +
                      " does not exist");
      throw_io_error(target_, "cannot create the temporary file " + temp_path_.string(), error);
    }
  }
  temp_exists_ = true;
  if (target_exists && ::fchmod(fd_, existing.st_mode & 07777) != 0) {
    const int error = errno;
    discard();
    throw_io_error(target_, "cannot set permissions of the temporary file", error);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  discard();
}

void AtomicFileWriter::write(std::span<const std::byte> bytes) {
  if (fd_ < 0)
    throw std::logic_error("AtomicFileWriter::write after commit or discard");
  while (!bytes.empty()) {
    const auto chunk = bytes.first(std::min(bytes.size(), options_.chunk_bytes));
    if (const int error = write_fully(fd_, chunk); error != 0) {
      discard();
      throw_io_error(target_, "cannot write the temporary file " + temp_path_.string(), error);
    }
    bytes = bytes.subspan(chunk.size());
    bytes_written_ += chunk.size();
    if (options_.after_chunk)
      options_.after_chunk(bytes_written_);
  }
}

void AtomicFileWriter::commit() {
  if (fd_ < 0)
    throw std::logic_error("AtomicFileWriter::commit after commit or discard");
  if (const int error = fsync_retrying(fd_); error != 0) {
    discard();
    throw_io_error(target_, "cannot fsync the temporary file " + temp_path_.string(), error);
  }
  // close() reports delayed write errors on some file systems (NFS); its fd is gone either way.
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0 && errno != EINTR) {
    const int error = errno;
    discard();
    throw_io_error(target_, "cannot close the temporary file " + temp_path_.string(), error);
  }
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    const int error = errno;
    discard();
    throw_io_error(target_, "cannot rename " + temp_path_.string() + " over it", error);
  }
  temp_exists_ = false;

  const fs::path directory = directory_of(target_);
  const int dir_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    throw_io_error(directory, "cannot open the directory to fsync it", errno);
  const int error = fsync_retrying(dir_fd);
  ::close(dir_fd);
  // EINVAL: the file system cannot sync directories; nothing more can be done there.
  if (error != 0 && error != EINVAL) {
    throw_io_error(directory, "renamed " + target_.filename().string() + " but cannot fsync",
                   error);
  }
}

void AtomicFileWriter::discard() noexcept {
  if (fd_ >= 0)
    ::close(std::exchange(fd_, -1));
  if (temp_exists_)
    ::unlink(temp_path_.c_str());
  temp_exists_ = false;
}

void write_file_atomically(const fs::path& target, std::span<const std::byte> bytes,
                           const AtomicWriteOptions& options) {
  AtomicFileWriter writer(target, options);
  writer.write(bytes);
  writer.commit();
}

}  // namespace staticnet::runtime
