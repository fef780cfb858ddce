// `--export surface,obj` on the real binary: every exported frame gets its surface mesh in both formats
// beside the particles, the first lines name them, a rerun's stale meshes go with its series, and a run
// without a fluid (grains) refuses them with exit 2. `--export vdb`: an OpenVDB file a frame, or, in a build
// without OpenVDB, exit 2 naming what is missing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/app/surge_process.h"

namespace {

namespace fs = std::filesystem;
using surge::testing_support::collect_surge;
using surge::testing_support::read_text_file;
using surge::testing_support::start_surge;
using surge::testing_support::SurgeResult;
using surge::testing_support::wait_surge;

class SurfaceExport : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "surge-surface-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  SurgeResult run(const std::vector<std::string>& args) const {
    const auto child = start_surge(dir_, args);
    return collect_surge(child, wait_surge(child, 120));
  }
  fs::path dir_;
};

TEST_F(SurfaceExport, EveryFrameGetsItsSurfaceMeshInBothFormats) {
  const SurgeResult r = run({"run", SURGE_SOURCE_DIR "/scenes/dam_break.toml", "--backend", "cpu",
                             "--threads", "2", "--particles", "2000", "--steps", "40", "--every", "20",
                             "--export", "vtk,surface,obj", "--out", "out", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("out/dam_break_surface_*.ply (surface mesh, PLY), out/dam_break_surface_*.obj (surface "
                 "mesh, OBJ), every 20 steps"),
      std::string::npos)
      << r.out;
  for (const char* number : {"000000", "000001", "000002"}) {
    const std::string ply =
        read_text_file(dir_ / "out" / ("dam_break_surface_" + std::string(number) + ".ply"));
    EXPECT_EQ(ply.rfind("ply\nformat binary_little_endian 1.0\n", 0), 0u) << number;
    EXPECT_NE(ply.find("element face "), std::string::npos) << number;
    const std::string obj =
        read_text_file(dir_ / "out" / ("dam_break_surface_" + std::string(number) + ".obj"));
    EXPECT_NE(obj.find("\nvn "), std::string::npos) << number;
    EXPECT_NE(obj.find("\nf "), std::string::npos) << number;
  }
  // A shorter rerun replaces the series, meshes included.
  const SurgeResult again = run({"run", SURGE_SOURCE_DIR "/scenes/dam_break.toml", "--backend", "cpu",
                                 "--threads", "2", "--particles", "2000", "--steps", "20", "--every", "20",
                                 "--export", "vtk,surface", "--out", "out", "--quiet"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(fs::exists(dir_ / "out/dam_break_surface_000002.ply"));
  EXPECT_FALSE(fs::exists(dir_ / "out/dam_break_surface_000000.obj"));
  EXPECT_TRUE(fs::exists(dir_ / "out/dam_break_surface_000001.ply"));
}

TEST_F(SurfaceExport, GrainsHaveNoSurfaceToMesh) {
  const SurgeResult r =
      run({"run", SURGE_SOURCE_DIR "/scenes/granular_column.toml", "--backend", "cpu", "--steps", "5",
           "--every", "5", "--export", "surface", "--out", "out", "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("export formats surface, obj and vdb mesh a fluid's surface"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// The OpenVDB archive's first eight bytes: the magic number 0x56444220 ("VDB ") as a little-endian int64.
bool starts_like_vdb(const std::string& bytes) {
  return bytes.size() > 8 && bytes.compare(0, 8, std::string("\x20\x42\x44\x56\0\0\0\0", 8)) == 0;
}

TEST_F(SurfaceExport, EveryFrameGetsItsLevelSetAsOpenVdb) {
  const std::vector<std::string> args = {"run",         SURGE_SOURCE_DIR "/scenes/dam_break.toml",
                                         "--backend",   "cpu",
                                         "--threads",   "2",
                                         "--particles", "2000",
                                         "--steps",     "40",
                                         "--every",     "20",
                                         "--export",    "vdb",
                                         "--out",       "out",
                                         "--quiet"};
  const SurgeResult r = run(args);
#if SURGE_HAVE_OPENVDB
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("out/dam_break_surface_*.vdb (surface level set, OpenVDB), every 20 steps"),
            std::string::npos)
      << r.out;
  for (const char* number : {"000000", "000001", "000002"}) {
    const fs::path vdb = dir_ / "out" / ("dam_break_surface_" + std::string(number) + ".vdb");
    EXPECT_TRUE(starts_like_vdb(read_text_file(vdb))) << vdb;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out/dam_break_surface_000000.ply")) << "only the formats asked for";
#else
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("this build has no OpenVDB"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
#endif
}

}  // namespace
