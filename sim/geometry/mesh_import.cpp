#include "sim/geometry/mesh_import.h"

#include <fstream>
#include <string>
#include <system_error>

#include "sim/geometry/geometry_error.h"

#if SURGE_HAVE_ASSIMP
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#endif

namespace surge {

#if SURGE_HAVE_ASSIMP
namespace {

// Assimp's own messages for a missing file are vague ("Unable to open file"); say which problem it is.
void check_readable(const std::filesystem::path& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) throw MeshError(path.string(), "no such file");
  if (std::filesystem::is_directory(status))
    throw MeshError(path.string(), "is a directory, not a mesh file");
  if (!std::ifstream(path, std::ios::binary))
    throw MeshError(path.string(), "cannot open the file for reading");
}

void append_node(const aiScene& scene, const aiNode& node, TriangleMesh& out) {
  for (unsigned m = 0; m < node.mNumMeshes; ++m) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[m]];
    const auto first = std::uint32_t(out.vertices.size());
    for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
      const aiVector3D& p = mesh.mVertices[v];
      out.vertices.push_back({double(p.x), double(p.y), double(p.z)});
    }
    // Lines and points (an OBJ may carry them) bound no volume; only triangles count.
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices == 3)
        out.triangles.push_back(
            {first + face.mIndices[0], first + face.mIndices[1], first + face.mIndices[2]});
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c) append_node(scene, *node.mChildren[c], out);
}

}  // namespace
#endif

bool mesh_import_available() {
  return SURGE_HAVE_ASSIMP;
}

#if SURGE_HAVE_ASSIMP
TriangleMesh read_mesh_file(const std::filesystem::path& path) {
  check_readable(path);
  Assimp::Importer importer;
  // Normals and texture coordinates are dropped before joining: STL gives each corner its face's
  // normal, and vertices that differ only in normal would otherwise stay apart and leave every edge open.
  importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS,
                              aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS | aiComponent_COLORS |
                                  aiComponent_TEXCOORDS | aiComponent_BONEWEIGHTS | aiComponent_MATERIALS);
  // PreTransformVertices puts every mesh of the file in the file's frame (node transforms applied).
  const aiScene* scene =
      importer.ReadFile(path.string(), aiProcess_RemoveComponent | aiProcess_Triangulate |
                                           aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices);
  if (scene == nullptr || scene->mRootNode == nullptr)
    throw MeshError(path.string(),
                    std::string("not a mesh file assimp can read (") + importer.GetErrorString() + ")");
  TriangleMesh mesh;
  append_node(*scene, *scene->mRootNode, mesh);
  return mesh;
}
#else
TriangleMesh read_mesh_file(const std::filesystem::path& path) {
  throw MeshError(path.string(),
                  "this build of Surge has no mesh import: it was built without assimp (Debian package "
                  "libassimp-dev; install it and rebuild)");
}
#endif

CheckedMesh load_mesh(const std::filesystem::path& path) {
  return check_mesh(read_mesh_file(path), path.string());
}

}  // namespace surge
