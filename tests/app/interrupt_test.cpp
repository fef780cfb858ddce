// Ctrl-C and SIGTERM during `surge run` (app/interrupts.h), on the real binary: a run signalled while it
// writes frames ends as a finished run does (the summary, marked "interrupted at step N", a .pvd that
// lists exactly the frames on disk, no temporary file) and exits 128 + the signal; a second Ctrl-C stops
// at once and still leaves no temporary file; a video being encoded is closed into a playable MP4.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/app/surge_process.h"

namespace {

namespace fs = std::filesystem;
using surge::testing_support::collect_surge;
using surge::testing_support::read_text_file;
using surge::testing_support::start_surge;
using surge::testing_support::SurgeChild;
using surge::testing_support::SurgeResult;
using surge::testing_support::wait_surge;

// The CLI tests' tiny tank, closed (no particle can leave it) and run for far longer than any test waits:
// only a signal ends it.
std::string long_scene(const std::string& formats, int every) {
  return R"(name = "long"

[domain]
min = [0.0, 0.0, 0.0]
max = [0.2, 0.1, 0.2]
walls = ["x-", "x+", "y-", "y+", "z-", "z+"]

[resolution]
spacing = 0.02

[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.06, 0.1, 0.1]

[time]
end = 1000.0

[output]
dir = "frames"
formats = )" +
         formats +
         R"(
every = )" +
         std::to_string(every) + "\n";
}

// The file names a .pvd lists, in order.
std::vector<std::string> listed_frames(const fs::path& pvd) {
  const std::string text = read_text_file(pvd);
  std::vector<std::string> files;
  static const std::regex dataset(R"re(<DataSet [^>]*file="([^"]*)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), dataset); it != std::sregex_iterator(); ++it)
    files.push_back((*it)[1]);
  return files;
}

bool wait_for_frames(const fs::path& pvd, std::size_t frames, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(pvd) && listed_frames(pvd).size() >= frames) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << part << "' not in:\n" << text;
}

class Interrupt : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "surge-interrupt-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }

  // No .tmp or .part anywhere under the test's directory.
  void expect_no_temporary_file() const {
    for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
      const std::string extension = entry.path().extension().string();
      EXPECT_TRUE(extension != ".tmp" && extension != ".part") << "left behind: " << entry.path();
    }
  }

  // The .pvd is whole XML and lists exactly the .vtp files on disk, numbered from 0 without a gap.
  void expect_consistent_series(std::size_t at_least) const {
    const fs::path pvd = dir_ / "frames" / "long.pvd";
    const std::string text = read_text_file(pvd);
    EXPECT_EQ(text.rfind("<?xml", 0), 0u) << text;
    EXPECT_TRUE(contains(text, "</VTKFile>"));
    const std::vector<std::string> listed = listed_frames(pvd);
    EXPECT_GE(listed.size(), at_least);
    for (std::size_t k = 0; k < listed.size(); ++k) {
      char expected[32];
      std::snprintf(expected, sizeof expected, "long_%06zu.vtp", k);
      EXPECT_EQ(listed[k], expected);
      EXPECT_TRUE(fs::exists(dir_ / "frames" / listed[k])) << listed[k];
    }
    std::set<std::string> on_disk;
    for (const auto& entry : fs::directory_iterator(dir_ / "frames"))
      if (entry.path().extension() == ".vtp") on_disk.insert(entry.path().filename().string());
    EXPECT_EQ(on_disk, std::set<std::string>(listed.begin(), listed.end()));
  }

  // Starts the long run, waits for `frames` frames, sends `signal_number` and waits for the exit.
  SurgeResult interrupt_after_frames(int signal_number, std::size_t frames) const {
    const SurgeChild child = start_surge(dir_, {"run", "long.toml", "--backend", "cpu"}, true);
    const bool started = wait_for_frames(dir_ / "frames" / "long.pvd", frames, 60);
    EXPECT_TRUE(started) << "no frames within a minute";
    kill(-child.pid, signal_number);  // the whole group, as a terminal's Ctrl-C
    const auto wait = wait_surge(child, 30);
    EXPECT_FALSE(wait.timed_out) << "still running 30 s after the signal";
    return collect_surge(child, wait);
  }

  fs::path dir_;
};

TEST_F(Interrupt, SigintFinishesTheRunPrintsTheSummaryAndExits130) {
  write("long.toml", long_scene(R"(["vtk", "ply"])", 2));
  const SurgeResult r = interrupt_after_frames(SIGINT, 3);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_TRUE(contains(r.err, "interrupted (SIGINT)"));
  const std::smatch match = [&] {
    std::smatch m;
    std::regex_search(r.out, m,
                      std::regex(R"(summary: long on cpu [^\n]*, interrupted at step ([0-9,]+), t = )"
                                 R"([0-9.e-]+ s \(SIGINT\))"));
    return m;
  }();
  ASSERT_FALSE(match.empty()) << r.out;
  EXPECT_TRUE(contains(r.out, "frames written"));
  expect_consistent_series(3);
  // Every frame's PLY twin is complete too.
  for (const std::string& vtp : listed_frames(dir_ / "frames" / "long.pvd")) {
    const fs::path ply = dir_ / "frames" / fs::path(vtp).replace_extension(".ply");
    EXPECT_EQ(read_text_file(ply).rfind("ply\n", 0), 0u) << ply;
  }
  expect_no_temporary_file();
}

TEST_F(Interrupt, SigtermEndsTheRunTheSameWayAndExits143) {
  write("long.toml", long_scene(R"(["vtk"])", 2));
  const SurgeResult r = interrupt_after_frames(SIGTERM, 3);
  EXPECT_EQ(r.exit_code, 143) << r.err;
  EXPECT_TRUE(contains(r.err, "terminated (SIGTERM)"));
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(R"(interrupted at step [0-9,]+, t = [0-9.e-]+ s \(SIGTERM\))")))
      << r.out;
  expect_consistent_series(3);
  expect_no_temporary_file();
}

// A write that cannot finish (a hung network file system, here a FIFO nobody reads where the .pvd's
// temporary file goes): the first Ctrl-C cannot end the run cleanly, the second ends it at once and
// removes the temporary file the writer is stuck in.
TEST_F(Interrupt, ASecondCtrlCRemovesTheTemporaryFileOfAWriteInFlight) {
  write("long.toml", long_scene(R"(["vtk"])", 5));
  const SurgeChild child = start_surge(dir_, {"run", "long.toml", "--backend", "cpu"}, true);
  const fs::path pvd = dir_ / "frames" / "long.pvd";
  ASSERT_TRUE(wait_for_frames(pvd, 1, 60)) << "no frames within a minute";
  // Fails while the writer's own temporary file is there; then its next .pvd write blocks in open().
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (mkfifo((dir_ / "frames" / "long.pvd.tmp").c_str(), 0644) != 0) {
    ASSERT_EQ(errno, EEXIST);
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
  }
  const std::size_t listed_before = listed_frames(pvd).size();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(-child.pid, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(waitpid(child.pid, nullptr, WNOHANG), 0) << "the first Ctrl-C cannot finish a write that hangs";
  kill(-child.pid, SIGINT);
  const auto wait = wait_surge(child, 5);
  ASSERT_FALSE(wait.timed_out);
  const SurgeResult r = collect_surge(child, wait);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_TRUE(contains(r.err, "interrupted (SIGINT)"));
  EXPECT_TRUE(contains(r.err,
                       "stopped at once; the frames written before are complete; removed 1 temporary file "
                       "in flight"));
  EXPECT_FALSE(contains(r.out, "summary:"));
  expect_no_temporary_file();
  // The .pvd as it was before the stuck write, its frames on disk; the stuck frame's .vtp is written (it
  // came first) but not listed, as after any failed .pvd write.
  const std::vector<std::string> listed = listed_frames(pvd);
  EXPECT_GE(listed.size(), listed_before);
  for (const std::string& file : listed) EXPECT_TRUE(fs::exists(dir_ / "frames" / file)) << file;
}

// The second Ctrl-C exits from the signal handler, with the writer thread anywhere in a write. Tries at
// different delays after the first.
TEST_F(Interrupt, ASecondCtrlCStopsAtOnceAndLeavesNoTemporaryFile) {
  write("long.toml", long_scene(R"(["vtk", "ply"])", 1));
  int removed_mid_write = 0;
  for (const int delay_ms : {0, 5}) {
    fs::remove_all(dir_ / "frames");
    const SurgeChild child =
        start_surge(dir_, {"run", "long.toml", "--backend", "cpu", "--particles", "60000"}, true);
    ASSERT_TRUE(wait_for_frames(dir_ / "frames" / "long.pvd", 2, 60)) << "no frames within a minute";
    kill(-child.pid, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    const auto second = std::chrono::steady_clock::now();
    kill(-child.pid, SIGINT);
    const auto wait = wait_surge(child, 30);
    const double exit_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - second).count();
    const SurgeResult r = collect_surge(child, wait);
    EXPECT_EQ(r.exit_code, 130) << r.err;
    // Either the second signal stopped it at once, or the run had already finished cleanly from the
    // first; both must leave the directory clean.
    if (contains(r.err, "stopped at once")) {
      EXPECT_LT(exit_s, 2.0) << "the second Ctrl-C must not wait for the run";
      EXPECT_FALSE(contains(r.out, "summary:")) << r.out;
      if (!contains(r.err, "removed 0 temporary files")) ++removed_mid_write;
    }
    expect_no_temporary_file();
    const std::vector<std::string> listed = listed_frames(dir_ / "frames" / "long.pvd");
    for (const std::string& file : listed) EXPECT_TRUE(fs::exists(dir_ / "frames" / file)) << file;
  }
  // Not asserted (it is a race by nature), but said: how often the handler had a file to remove.
  std::cout << "second Ctrl-C removed a temporary file in flight in " << removed_mid_write << " of 2 tries\n";
}

TEST_F(Interrupt, CtrlCDuringAVideoClosesItIntoAPlayableMp4) {
  if (!SURGE_TEST_RENDER) GTEST_SKIP() << "built without the renderer";
  if (std::system("command -v ffmpeg > /dev/null 2>&1") != 0) GTEST_SKIP() << "no ffmpeg on PATH";
  write("long.toml", long_scene(R"(["vtk"])", 2));
  const SurgeChild child = start_surge(
      dir_, {"run", "long.toml", "--backend", "cpu", "--video", "run.mp4", "--size", "96x64"}, true);
  ASSERT_TRUE(wait_for_frames(dir_ / "frames" / "long.pvd", 5, 60)) << "no frames within a minute";
  kill(-child.pid, SIGINT);  // ffmpeg runs in a group of its own, so only Surge sees this
  const auto wait = wait_surge(child, 30);
  ASSERT_FALSE(wait.timed_out);
  const SurgeResult r = collect_surge(child, wait);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  std::smatch rendered;
  ASSERT_TRUE(std::regex_search(r.out, rendered, std::regex(R"(rendered ([0-9]+) frames at 96x64)")))
      << r.out;
  expect_no_temporary_file();
  const std::string video = read_text_file(dir_ / "run.mp4");
  ASSERT_GT(video.size(), 8u);
  EXPECT_EQ(video.substr(4, 4), "ftyp");
  if (std::system("command -v ffprobe > /dev/null 2>&1") != 0) GTEST_SKIP() << "no ffprobe to play it back";
  // Playable: ffprobe decodes every frame, and finds as many as were rendered.
  const std::string probe = "cd '" + dir_.string() +
                            "' && ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                            "stream=nb_read_frames -of csv=p=0 run.mp4 > probe.txt 2>&1";
  ASSERT_EQ(std::system(probe.c_str()), 0) << read_text_file(dir_ / "probe.txt");
  EXPECT_EQ(std::stoi(read_text_file(dir_ / "probe.txt")), std::stoi(rendered[1])) << r.out;
}

}  // namespace
