#include "sim/io/surface_files.h"

#include <cstdint>
#include <cstring>
#include <ostream>
#include <vector>

#include "sim/io/exporters.h"

namespace surge {

void write_surface_ply(const std::filesystem::path& path, const FluidSurface& surface, double time_s,
                       long step) {
  const TriangleMesh& mesh = surface.mesh;
  write_file_atomically(path, [&](std::ostream& out) {
    out << "ply\nformat binary_little_endian 1.0\n"
        << "comment surge fluid surface, time_s " << time_s << " step " << step << "\n"
        << "element vertex " << mesh.vertices.size() << "\n"
        << "property float x\nproperty float y\nproperty float z\n"
        << "property float nx\nproperty float ny\nproperty float nz\n"
        << "element face " << mesh.triangles.size() << "\n"
        << "property list uchar int vertex_indices\nend_header\n";
    std::vector<char> bytes;
    bytes.reserve(mesh.vertices.size() * 24 + mesh.triangles.size() * 13);
    const auto put = [&](const void* data, std::size_t size) {
      const auto* begin = static_cast<const char*>(data);
      bytes.insert(bytes.end(), begin, begin + size);
    };
    for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
      const float record[6] = {float(mesh.vertices[v].x), float(mesh.vertices[v].y),
                               float(mesh.vertices[v].z), surface.normals[v].x,
                               surface.normals[v].y,      surface.normals[v].z};
      put(record, sizeof record);
    }
    for (const auto& triangle : mesh.triangles) {
      const std::uint8_t corners = 3;
      put(&corners, 1);
      const std::int32_t index[3] = {std::int32_t(triangle[0]), std::int32_t(triangle[1]),
                                     std::int32_t(triangle[2])};
      put(index, sizeof index);
    }
    out.write(bytes.data(), std::streamsize(bytes.size()));
  });
}

void write_surface_obj(const std::filesystem::path& path, const FluidSurface& surface, double time_s,
                       long step) {
  const TriangleMesh& mesh = surface.mesh;
  write_file_atomically(path, [&](std::ostream& out) {
    out << "# surge fluid surface, time_s " << time_s << " step " << step << "\n";
    char line[96];
    for (const Vec3d& v : mesh.vertices) {
      std::snprintf(line, sizeof line, "v %.7g %.7g %.7g\n", v.x, v.y, v.z);
      out << line;
    }
    for (const Vec3f& n : surface.normals) {
      std::snprintf(line, sizeof line, "vn %.5f %.5f %.5f\n", n.x, n.y, n.z);
      out << line;
    }
    for (const auto& t : mesh.triangles) {  // OBJ counts from 1
      std::snprintf(line, sizeof line, "f %u//%u %u//%u %u//%u\n", t[0] + 1, t[0] + 1, t[1] + 1, t[1] + 1,
                    t[2] + 1, t[2] + 1);
      out << line;
    }
  });
}

}  // namespace surge
