#pragma once
// Replaces a file so that readers, and a machine that loses power, see either the whole old file
// or the whole new one: write a temporary file in the same directory, fsync it, rename it over the
// target, fsync the directory. Every failure (short write, ENOSPC, EFBIG, fsync, rename) removes
// the temporary file, leaves the target untouched and throws IoError("<path>: <what>: <errno>").
//
// A target that is a symbolic link is followed: the file it points to is replaced and the link
// stays (a "latest -> run-7/checkpoint" link keeps working). A target that exists but is not a
// regular file (a directory, a device, a pipe) is refused, never renamed over.
//
// Temporary files are named ".<target name>.staticnet-tmp.<pid>.<random>" so that one left by a
// killed process can be recognised: every new AtomicFileWriter for the same target removes those
// whose process no longer exists. (The pid test assumes writers of one directory share a pid
// namespace; a file of a live process elsewhere is left alone, never a live one here removed.)
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <vector>

namespace staticnet::runtime {

struct AtomicWriteOptions {
  // Data is written in chunks of at most this many bytes (and a large write never blocks
  // progress reports for long).
  std::size_t chunk_bytes = std::size_t{1} << 20;
  // Called after each chunk reaches the temporary file with the total written so far: progress
  // reports, and the hook tests use to interrupt a save in the middle.
  std::function<void(std::uint64_t bytes_written)> after_chunk;
};

class AtomicFileWriter {
 public:
  // Removes stale temporary files of `target`, then creates a new one. The file gets the
  // target's permission bits when the target exists, 0666 & ~umask otherwise.
  explicit AtomicFileWriter(std::filesystem::path target, AtomicWriteOptions options = {});
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  // Discards the temporary file unless commit() succeeded.
  ~AtomicFileWriter();

  // Appends to the temporary file; on failure discards it and throws IoError.
  void write(std::span<const std::byte> bytes);
  // fsync, rename over the target, fsync the directory. After a failure before the rename the
  // target is untouched; a failure of the final directory fsync is reported too (the new file is
  // in place but may not survive a power loss).
  void commit();
  // Closes and removes the temporary file; the target is untouched. Idempotent.
  void discard() noexcept;

  const std::filesystem::path& target() const noexcept { return target_; }
  const std::filesystem::path& temp_path() const noexcept { return temp_path_; }
  std::uint64_t bytes_written() const noexcept { return bytes_written_; }
  // The temporary file's descriptor (-1 once committed or discarded).
  int native_handle() const noexcept { return fd_; }

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_path_;
  AtomicWriteOptions options_;
  int fd_ = -1;
  std::uint64_t bytes_written_ = 0;
  bool temp_exists_ = false;
};

// Checks up front, before hours of work are spent on what it would hold, that `target` can be
// written: the target is a regular file or does not exist yet (symbolic links followed), and its
// directory exists and takes a new file (one is created there and removed at once). Throws
// IoError naming the problem. Returns the path that will be written (the link's file).
std::filesystem::path check_writable_target(const std::filesystem::path& target);

// The whole file in one call.
void write_file_atomically(const std::filesystem::path& target, std::span<const std::byte> bytes,
                           const AtomicWriteOptions& options = {});

// True for names AtomicFileWriter gives temporary files of `target`.
bool is_temp_file_of(const std::filesystem::path& candidate, const std::filesystem::path& target);

// Removes the temporary files of `target` whose writing process no longer exists and returns
// their paths. Errors (an unreadable directory) are ignored: this is housekeeping.
std::vector<std::filesystem::path> remove_stale_temp_files(const std::filesystem::path& target);

// Writes all of `bytes` to `fd`, retrying short writes and EINTR; throws IoError naming `path`
// on any failure. Exposed for tests (e.g. against /dev/full).
void write_all(int fd, std::span<const std::byte> bytes, const std::filesystem::path& path);

}  // namespace staticnet::runtime
