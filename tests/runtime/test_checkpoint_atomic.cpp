// Atomic replacement under failure: a full disk, a file-size limit, a process killed mid-write.
// Each leaves the previous checkpoint loadable and bit-identical, and leaves no temporary file
// behind (or, after SIGKILL, one that the next save removes).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "staticnet/runtime/checkpoints/atomic_file.hpp"
#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/error.hpp"
#include "test_checkpoint_support.hpp"

namespace staticnet::runtime::test {
namespace {

// A small checkpoint: the "previous" one every failure must leave intact.
Checkpoint previous_checkpoint() {
  Checkpoint checkpoint;
  checkpoint.tensors.push_back(
      {"fc.weight", Dtype::f32, {2, 2}, bytes_of(std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f})});
  checkpoint.state.step = 10;
  checkpoint.state.rng_state = "previous";
  return checkpoint;
}

// A checkpoint of `megabytes` MiB of weights.
Checkpoint large_checkpoint(std::size_t megabytes) {
  Checkpoint checkpoint;
  std::vector<float> values(megabytes * (std::size_t{1} << 18));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i % 1000);
  checkpoint.tensors.push_back(
      {"big", Dtype::f32, {static_cast<std::int64_t>(values.size())}, bytes_of(values)});
  checkpoint.state.step = 20;
  return checkpoint;
}

std::vector<fs::path> temp_files_of(const fs::path& target) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(target.parent_path())) {
    if (is_temp_file_of(entry.path(), target))
      found.push_back(entry.path());
  }
  return found;
}

void check_previous_intact(const fs::path& path, const std::vector<std::byte>& previous_bytes) {
  CHECK(read_bytes(path) == previous_bytes);
  const auto loaded = load_checkpoint(path);
  CHECK(loaded.state == previous_checkpoint().state);
  CHECK(loaded.tensors.at(0).data == previous_checkpoint().tensors.at(0).data);
  CHECK(temp_files_of(path).empty());
}

TEST_CASE("checkpoint atomic file: replaces the target and keeps its permissions") {
  TempDir dir;
  const auto path = dir / "f.bin";
  write_file_atomically(path, bytes_of(std::string_view("old")));
  ::chmod(path.c_str(), 0600);
  write_file_atomically(path, bytes_of(std::string_view("new contents")));
  CHECK(read_bytes(path) == bytes_of(std::string_view("new contents")));
  CHECK((fs::status(path).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(temp_files_of(path).empty());
}

TEST_CASE("checkpoint atomic file: chunks and the progress hook") {
  TempDir dir;
  std::vector<std::uint64_t> progress;
  AtomicWriteOptions options;
  options.chunk_bytes = 4;
  options.after_chunk = [&](std::uint64_t written) { progress.push_back(written); };
  write_file_atomically(dir / "f.bin", bytes_of(std::string_view("0123456789")), options);
  CHECK(progress == std::vector<std::uint64_t>{4, 8, 10});
  CHECK(read_bytes(dir / "f.bin") == bytes_of(std::string_view("0123456789")));
}

TEST_CASE("checkpoint atomic file: an unfinished writer leaves nothing behind") {
  TempDir dir;
  const auto path = dir / "f.bin";
  write_file_atomically(path, bytes_of(std::string_view("old")));
  {
    AtomicFileWriter writer(path);
    writer.write(bytes_of(std::string_view("half of it")));
    CHECK(fs::exists(writer.temp_path()));
    CHECK(is_temp_file_of(writer.temp_path(), path));
  }
  CHECK(read_bytes(path) == bytes_of(std::string_view("old")));
  CHECK(temp_files_of(path).empty());
}

TEST_CASE("checkpoint atomic file: failures name the path and the errno text") {
  TempDir dir;
  SUBCASE("no such directory") {
    const auto path = dir / "missing" / "f.bin";
    try {
      write_file_atomically(path, bytes_of(std::string_view("x")));
      FAIL("no IoError");
    } catch (const IoError& error) {
      const std::string message = error.what();
      CHECK(message ==
            path.string() + ": the directory " + (dir / "missing").string() + " does not exist");
    }
  }
  SUBCASE("the target is a directory: refused before anything is written") {
    const auto path = dir / "taken";
    fs::create_directory(path);
    fs::create_directory(path / "child");
    try {
      write_file_atomically(path, bytes_of(std::string_view("x")));
      FAIL("no IoError");
    } catch (const IoError& error) {
      CHECK(std::string(error.what()) ==
            path.string() + ": is a directory; give a file name to write");
    }
    CHECK(fs::is_directory(path / "child"));
    CHECK(temp_files_of(path).empty());
  }
  SUBCASE("the target is a pipe: refused, not replaced by a file") {
    const auto path = dir / "pipe";
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    try {
      write_file_atomically(path, bytes_of(std::string_view("x")));
      FAIL("no IoError");
    } catch (const IoError& error) {
      CHECK(std::string(error.what()).starts_with(path.string() + ": is not a regular file"));
    }
    CHECK(fs::is_fifo(path));
  }
}

TEST_CASE("checkpoint atomic file: a symbolic link is followed, and stays a link") {
  TempDir dir;
  fs::create_directory(dir / "run-7");
  const auto file = dir / "run-7" / "checkpoint.bin";
  write_file_atomically(file, bytes_of(std::string_view("old")));
  fs::create_symlink("run-7/checkpoint.bin", dir / "latest");  // relative, as users write them
  fs::create_symlink(dir / "latest", dir / "latest-of-latest");
  write_file_atomically(dir / "latest-of-latest", bytes_of(std::string_view("new")));
  CHECK(fs::is_symlink(dir / "latest"));
  CHECK(fs::is_symlink(dir / "latest-of-latest"));
  CHECK(read_bytes(file) == bytes_of(std::string_view("new")));
  CHECK(temp_files_of(file).empty());
  // A link to a file not written yet: the file is created where the link points.
  fs::create_symlink("run-8.bin", dir / "next");
  write_file_atomically(dir / "next", bytes_of(std::string_view("first")));
  CHECK(fs::is_symlink(dir / "next"));
  CHECK(read_bytes(dir / "run-8.bin") == bytes_of(std::string_view("first")));
}

TEST_CASE("checkpoint atomic file: the target is checked up front, and nothing is left") {
  TempDir dir;
  CHECK(check_writable_target(dir / "new.bin") == dir / "new.bin");
  CHECK_FALSE(fs::exists(dir / "new.bin"));  // checked, not created
  CHECK(temp_files_of(dir / "new.bin").empty());
  fs::create_symlink("real.bin", dir / "link");
  CHECK(check_writable_target(dir / "link") == dir / "real.bin");
  CHECK_THROWS_WITH_AS(check_writable_target(dir / "missing" / "x.bin"),
                       ((dir / "missing" / "x.bin").string() + ": the directory " +
                        (dir / "missing").string() + " does not exist")
                           .c_str(),
                       IoError);
  CHECK_THROWS_AS(check_writable_target(dir.path()), IoError);
}

TEST_CASE("checkpoint atomic file: writing to /dev/full fails cleanly") {
  if (!fs::exists("/dev/full")) {
    MESSAGE("no /dev/full here; skipped");
    return;
  }
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(full >= 0);

  // The low-level loop reports ENOSPC with the path.
  try {
    write_all(full, bytes_of(std::string_view("data")), "/dev/full");
    FAIL("no IoError");
  } catch (const IoError& error) {
    CHECK(std::string(error.what()) == "/dev/full: cannot write: No space left on device");
  }

  // A checkpoint save whose temporary file turns out to be on a full device.
  TempDir dir;
  const auto path = dir / "checkpoint.safetensors";
  save_checkpoint(path, previous_checkpoint());
  const auto previous_bytes = read_bytes(path);
  fs::path temp;
  {
    AtomicFileWriter writer(path);
    temp = writer.temp_path();
    REQUIRE(::dup2(full, writer.native_handle()) >= 0);  // its descriptor now writes to /dev/full
    try {
      writer.write(large_checkpoint(1).tensors[0].data);
      FAIL("no IoError");
    } catch (const IoError& error) {
      const std::string message = error.what();
      CHECK(message.starts_with(path.string() + ": cannot write the temporary file"));
      CHECK(message.ends_with("No space left on device"));
    }
    CHECK_FALSE(fs::exists(temp));  // removed at the failure, not only by the destructor
  }
  ::close(full);
  check_previous_intact(path, previous_bytes);
}

TEST_CASE("checkpoint atomic file: a save over the file-size limit fails cleanly (EFBIG)") {
  TempDir dir;
  const auto path = dir / "checkpoint.safetensors";
  save_checkpoint(path, previous_checkpoint());
  const auto previous_bytes = read_bytes(path);
  const auto large = large_checkpoint(2);

  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Exit codes: 0 IoError naming EFBIG, 1 the save succeeded, 2 wrong message, 3 other error.
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{256 * 1024, 256 * 1024};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0)
      ::_exit(3);
    try {
      save_checkpoint(path, large);
      ::_exit(1);
    } catch (const IoError& error) {
      const std::string message = error.what();
      ::_exit(message.starts_with(path.string()) && message.ends_with("File too large") ? 0 : 2);
    } catch (...) {
      ::_exit(3);
    }
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  check_previous_intact(path, previous_bytes);
}

TEST_CASE(
    "checkpoint atomic file: SIGKILL in the middle of a save leaves the previous checkpoint") {
  TempDir dir;
  const auto path = dir / "checkpoint.safetensors";
  save_checkpoint(path, previous_checkpoint());
  const auto previous_bytes = read_bytes(path);
  const auto large = large_checkpoint(8);

  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(ready[0]);
    AtomicWriteOptions options;
    options.chunk_bytes = 64 * 1024;
    options.after_chunk = [&](std::uint64_t written) {
      if (written < 1024 * 1024)
        return;
      // A megabyte is in the temporary file: tell the parent, then wait for the kill.
      const char byte = 'w';
      if (::write(ready[1], &byte, 1) != 1)
        ::_exit(4);
      for (;;)
        ::pause();
    };
    try {
      save_checkpoint(path, large, options);
    } catch (...) {
    }
    const char byte = 'e';  // never reached the middle of the write
    (void)!::write(ready[1], &byte, 1);
    ::_exit(5);
  }
  ::close(ready[1]);
  char byte = 0;
  const ssize_t got = ::read(ready[0], &byte, 1);
  ::close(ready[0]);
  REQUIRE(::kill(child, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(got == 1);
  REQUIRE(byte == 'w');
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);

  // The kill landed mid-write: a partial temporary file, the previous checkpoint untouched.
  const auto stale = temp_files_of(path);
  REQUIRE(stale.size() == 1);
  CHECK(fs::file_size(stale[0]) >= 1024 * 1024);
  CHECK(fs::file_size(stale[0]) < fs::file_size(path) + large.tensors[0].data.size());
  CHECK(read_bytes(path) == previous_bytes);
  CHECK(load_checkpoint(path).state == previous_checkpoint().state);

  // The next save removes the dead process's temporary file.
  save_checkpoint(path, large);
  CHECK_FALSE(fs::exists(stale[0]));
  CHECK(temp_files_of(path).empty());
  const auto loaded = load_checkpoint(path);
  CHECK(loaded.state == large.state);
  CHECK(loaded.tensors.at(0).data == large.tensors.at(0).data);
}

TEST_CASE("checkpoint atomic file: temporary files of live processes are not stale") {
  TempDir dir;
  const auto path = dir / "f.bin";
  const auto mine = dir / (".f.bin.staticnet-tmp." + std::to_string(::getpid()) + ".abc123");
  const auto dead = dir / ".f.bin.staticnet-tmp.2147483646.abc123";  // above any real pid
  const auto other_target = dir / ".g.bin.staticnet-tmp.2147483646.abc123";
  const auto not_ours = dir / ".f.bin.staticnet-tmp.notapid.abc123";
  for (const auto& p : {mine, dead, other_target, not_ours})
    write_bytes(p, {});
  CHECK(is_temp_file_of(mine, path));
  CHECK(is_temp_file_of(dead, path));
  CHECK_FALSE(is_temp_file_of(other_target, path));
  CHECK_FALSE(is_temp_file_of(not_ours, path));
  CHECK(remove_stale_temp_files(path) == std::vector<fs::path>{dead});
  CHECK(fs::exists(mine));
  CHECK(fs::exists(other_target));
  CHECK(fs::exists(not_ours));
}

}  // namespace
}  // namespace staticnet::runtime::test
