// sim/geometry/mesh_import.h and mesh_check.h: the shipped meshes load (OBJ, binary and ASCII STL),
// and each broken mesh gives its own error naming the file and the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/geometry/geometry_error.h"
#include "sim/geometry/mesh_check.h"
#include "sim/geometry/mesh_import.h"
#include "tests/sim/geometry_test_meshes.h"

namespace surge {
namespace {

const std::filesystem::path kAssets = std::filesystem::path(SURGE_SOURCE_DIR) / "assets" / "meshes";
const std::filesystem::path kBad =
    std::filesystem::path(SURGE_SOURCE_DIR) / "tests" / "sim" / "data" / "meshes";

// The message of the MeshError that loading `path` throws, or "" when it loads.
std::string load_error(const std::filesystem::path& path) {
  try {
    load_mesh(path);
  } catch (const MeshError& e) {
    EXPECT_EQ(e.file(), path.string());
    return e.what();
  }
  return "";
}

#define SKIP_WITHOUT_MESH_IMPORT() \
  if (!mesh_import_available()) GTEST_SKIP() << "built without assimp (libassimp-dev): no mesh import"

TEST(GeometryMeshImport, WithoutAssimpLoadingSaysSoAndNamesThePackage) {
  if (mesh_import_available())
    GTEST_SKIP() << "built with assimp: the message of a build without it is not reachable";
  const std::string message = load_error(kAssets / "unit_cube.obj");
  EXPECT_NE(message.find("no mesh import"), std::string::npos) << message;
  EXPECT_NE(message.find("libassimp-dev"), std::string::npos) << message;
}

TEST(GeometryMeshImport, CubeLoadsAlikeFromObjBinaryStlAndAsciiStl) {
  SKIP_WITHOUT_MESH_IMPORT();
  for (const auto& path :
       {kAssets / "unit_cube.obj", kAssets / "unit_cube.stl", kBad / "unit_cube_ascii.stl"}) {
    const CheckedMesh cube = load_mesh(path);
    // STL stores each triangle's corners apart: 36 of them joined into the cube's 8.
    EXPECT_EQ(cube.mesh.vertices.size(), 8u) << path;
    EXPECT_EQ(cube.mesh.triangles.size(), 12u) << path;
    EXPECT_FALSE(cube.flipped_inside_out) << path;
    EXPECT_NEAR(signed_volume(cube.mesh), 1.0, 1e-12) << path;
  }
}

TEST(GeometryMeshImport, IcosphereAndPaddleAreClosedAndFaceOutwards) {
  SKIP_WITHOUT_MESH_IMPORT();
  const CheckedMesh ico = load_mesh(kAssets / "icosphere.obj");
  EXPECT_EQ(ico.mesh.vertices.size(), 162u);
  EXPECT_EQ(ico.mesh.triangles.size(), 320u);
  EXPECT_FALSE(ico.flipped_inside_out);
  const CheckedMesh paddle = load_mesh(kAssets / "paddle.obj");
  EXPECT_FALSE(paddle.flipped_inside_out);
  EXPECT_GT(signed_volume(paddle.mesh), 0.0);
}

TEST(GeometryMeshImport, MissingFileAndNotAMesh) {
  SKIP_WITHOUT_MESH_IMPORT();
  const std::string missing = load_error(kBad / "no_such_mesh.obj");
  EXPECT_NE(missing.find("no_such_mesh.obj: no such file"), std::string::npos) << missing;
  const std::string not_mesh = load_error(kBad / "not_a_mesh.txt");
  EXPECT_NE(not_mesh.find("not_a_mesh.txt: not a mesh file"), std::string::npos) << not_mesh;
  const std::string directory = load_error(kBad);
  EXPECT_NE(directory.find("is a directory"), std::string::npos) << directory;
}

TEST(GeometryMeshImport, EachBrokenMeshNamesItsProblem) {
  SKIP_WITHOUT_MESH_IMPORT();
  const std::string no_triangles = load_error(kBad / "no_triangles.obj");
  EXPECT_NE(no_triangles.find("no triangles"), std::string::npos) << no_triangles;
  const std::string nan = load_error(kBad / "nan_vertex.obj");
  EXPECT_NE(nan.find("nan_vertex.obj: vertex "), std::string::npos) << nan;
  EXPECT_NE(nan.find("is not finite"), std::string::npos) << nan;
  const std::string degenerate = load_error(kBad / "degenerate_triangle.obj");
  EXPECT_NE(degenerate.find("triangle 12 "), std::string::npos) << degenerate;
  EXPECT_NE(degenerate.find("zero area"), std::string::npos) << degenerate;
  const std::string open = load_error(kBad / "open_box.obj");
  EXPECT_NE(open.find("not closed: 4 open edges"), std::string::npos) << open;
  const std::string inconsistent = load_error(kBad / "inconsistent_orientation.obj");
  EXPECT_NE(inconsistent.find("inconsistently oriented faces: 3 edges"), std::string::npos) << inconsistent;
}

TEST(GeometryMeshImport, InsideOutMeshIsFlippedAndSaysSo) {
  SKIP_WITHOUT_MESH_IMPORT();
  const CheckedMesh cube = load_mesh(kBad / "inside_out_cube.obj");
  EXPECT_TRUE(cube.flipped_inside_out);
  EXPECT_NEAR(signed_volume(cube.mesh), 1.0, 1e-12);
}

// The same checks on meshes made in memory: they run without assimp too.
TEST(GeometryMeshCheck, InMemoryMeshesGetTheSameErrors) {
  TriangleMesh nan = unit_cube_mesh();
  nan.vertices[5].y = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(
      {
        try {
          check_mesh(nan, "memory");
        } catch (const MeshError& e) {
          EXPECT_EQ(std::string(e.what()).rfind("memory: vertex 5 is not finite", 0), 0u) << e.what();
          throw;
        }
      },
      MeshError);
  TriangleMesh open = unit_cube_mesh();
  open.triangles.pop_back();
  try {
    check_mesh(open, "memory");
    ADD_FAILURE() << "an open mesh passed";
  } catch (const MeshError& e) {
    EXPECT_NE(std::string(e.what()).find("3 open edges"), std::string::npos) << e.what();
  }
  TriangleMesh bad_index = unit_cube_mesh();
  bad_index.triangles[0][1] = 99;
  EXPECT_THROW(check_mesh(bad_index, "memory"), MeshError);
  EXPECT_THROW(check_mesh(TriangleMesh{}, "memory"), MeshError);
  TriangleMesh inverted = unit_cube_mesh();
  flip_orientation(inverted);
  EXPECT_TRUE(check_mesh(inverted, "memory").flipped_inside_out);
  EXPECT_FALSE(check_mesh(unit_cube_mesh(), "memory").flipped_inside_out);
}

}  // namespace
}  // namespace surge
