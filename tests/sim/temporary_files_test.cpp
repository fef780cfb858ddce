// The list of temporary files in flight (sim/io/temporary_files.h) that a second Ctrl-C removes: what is
// listed is removed, what is no longer listed is not, and the writers list and unlist themselves.
#include "sim/io/temporary_files.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sim/io/exporters.h"

namespace surge {
namespace {

namespace fs = std::filesystem;

class TemporaryFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("surge_temporaries_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path touch(const std::string& name) const {
    std::ofstream(dir_ / name) << "x";
    return dir_ / name;
  }
  fs::path dir_;
};

TEST_F(TemporaryFiles, ListedFilesAreRemovedAndUnlistedOnesKept) {
  const int before = temporary_files_in_flight();
  const fs::path kept = touch("kept.tmp");
  {
    const TemporaryFileInFlight gone(kept);
    EXPECT_TRUE(gone.listed());
  }
  const fs::path first = touch("first.tmp"), second = touch("second.tmp");
  auto a = std::make_unique<TemporaryFileInFlight>(first);
  auto b = std::make_unique<TemporaryFileInFlight>(second);
  const TemporaryFileInFlight not_yet_written(dir_ / "not_yet.tmp");
  EXPECT_EQ(temporary_files_in_flight(), before + 3);
  EXPECT_EQ(remove_temporary_files_in_flight(), 2) << "two files existed; the third is only listed";
  EXPECT_FALSE(fs::exists(first));
  EXPECT_FALSE(fs::exists(second));
  EXPECT_TRUE(fs::exists(kept)) << "unlisted when its owner ended";
  b.reset();
  a.reset();
  EXPECT_EQ(temporary_files_in_flight(), before + 1);
}

TEST_F(TemporaryFiles, EverySlotCanBeTakenAndGivenBack) {
  std::vector<std::unique_ptr<TemporaryFileInFlight>> many;
  for (int k = 0; k < 100; ++k) many.push_back(std::make_unique<TemporaryFileInFlight>(dir_ / "x.tmp"));
  int listed = 0;
  for (const auto& file : many) listed += file->listed() ? 1 : 0;
  EXPECT_GE(listed, 16) << "a few writers at once must all be listed";
  EXPECT_LT(listed, 100) << "the table is fixed; the rest go unlisted rather than allocate";
  many.clear();
  const TemporaryFileInFlight again(dir_ / "y.tmp");
  EXPECT_TRUE(again.listed());
}

TEST_F(TemporaryFiles, AnAtomicWriteIsListedWhileItWrites) {
  const int before = temporary_files_in_flight();
  int during = -1;
  write_file_atomically(dir_ / "out.txt", [&](std::ostream& out) {
    during = temporary_files_in_flight();
    out << "text";
  });
  EXPECT_EQ(during, before + 1);
  EXPECT_EQ(temporary_files_in_flight(), before);
}

TEST_F(TemporaryFiles, AListedWriterProcessIsKilledFirst) {
  const pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  ASSERT_GT(child, 0);
  {
    TemporaryFileInFlight video(touch("video.mp4.part"), child);
    EXPECT_EQ(remove_temporary_files_in_flight(), 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

}  // namespace
}  // namespace surge
