#include "render/solid_meshes.h"

#include <glad/gl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <unordered_map>

namespace surge::render {
namespace {

// A corner's position by its bits: corners at exactly the same place are one vertex of the surface.
struct PositionKey {
  std::uint32_t x, y, z;
  bool operator==(const PositionKey&) const = default;
};
struct PositionHash {
  std::size_t operator()(const PositionKey& k) const {
    return (std::size_t(k.x) * 73856093u) ^ (std::size_t(k.y) * 19349663u) ^ (std::size_t(k.z) * 83492791u);
  }
};
PositionKey key_of(Vec3f p) {
  PositionKey k;
  std::memcpy(&k.x, &p.x, 4);
  std::memcpy(&k.y, &p.y, 4);
  std::memcpy(&k.z, &p.z, 4);
  return k;
}

struct Vertex {
  Vec3f position, normal;
};

}  // namespace

std::vector<Vec3f> corner_normals(const SolidShapeView& shape) {
  const std::size_t triangles = shape.corner_count / 3;
  // Each triangle's normal, its length twice the area: larger triangles weigh more.
  std::vector<Vec3f> face(triangles);
  std::unordered_map<PositionKey, std::vector<std::uint32_t>, PositionHash> faces_at;
  for (std::size_t t = 0; t < triangles; ++t) {
    const Vec3f* c = shape.corners + 3 * t;
    face[t] = cross(c[1] - c[0], c[2] - c[0]);
    for (int k = 0; k < 3; ++k) faces_at[key_of(c[k])].push_back(std::uint32_t(t));
  }
  const float crease_cos = std::cos(kCreaseDegrees * 3.14159265f / 180.0f);
  std::vector<Vec3f> normals(shape.corner_count);
  for (std::size_t t = 0; t < triangles; ++t) {
    const Vec3f own = normalized(face[t]);
    for (int k = 0; k < 3; ++k) {
      Vec3f sum{};
      for (std::uint32_t other : faces_at[key_of(shape.corners[3 * t + k])])
        if (dot(normalized(face[other]), own) >= crease_cos) sum += face[other];
      const Vec3f n = normalized(sum);
      normals[3 * t + k] = dot(n, n) > 0.0f ? n : own;
    }
  }
  return normals;
}

SolidMeshes::SolidMeshes(const std::filesystem::path& shaders)
    : program_(shaders / "solid_mesh.vert", shaders / "solid_mesh.frag") {
  glCreateVertexArrays(1, &vertex_array_);
  glCreateBuffers(1, &buffer_);
  glVertexArrayVertexBuffer(vertex_array_, 0, buffer_, 0, sizeof(Vertex));
  for (GLuint attribute : {0u, 1u}) {
    glEnableVertexArrayAttrib(vertex_array_, attribute);
    glVertexArrayAttribFormat(vertex_array_, attribute, 3, GL_FLOAT, GL_FALSE,
                              attribute == 0 ? offsetof(Vertex, position) : offsetof(Vertex, normal));
    glVertexArrayAttribBinding(vertex_array_, attribute, 0);
  }
}

SolidMeshes::~SolidMeshes() {
  glDeleteBuffers(1, &buffer_);
  glDeleteVertexArrays(1, &vertex_array_);
}

std::size_t SolidMeshes::set_shapes(const std::vector<SolidShapeView>& shapes) {
  solids_.clear();
  std::vector<Vertex> vertices;
  for (const SolidShapeView& shape : shapes) {
    const std::vector<Vec3f> normals = corner_normals(shape);
    solids_.push_back({vertices.size(), shape.corner_count, Mat4::identity()});
    for (std::size_t k = 0; k < shape.corner_count; ++k) vertices.push_back({shape.corners[k], normals[k]});
  }
  const std::size_t bytes = vertices.size() * sizeof(Vertex);
  glNamedBufferData(buffer_, GLsizeiptr(bytes), vertices.empty() ? nullptr : vertices.data(), GL_STATIC_DRAW);
  return bytes;
}

void SolidMeshes::set_model(std::size_t solid, const Mat4& model) {
  solids_.at(solid).model = model;
}

void SolidMeshes::draw(const Mat4& view, const Mat4& projection, Vec3f to_light, Rgb color) const {
  if (solids_.empty()) return;
  const GLuint id = program_.id();
  glProgramUniformMatrix4fv(id, program_.uniform("u_view"), 1, GL_FALSE, view.m.data());
  glProgramUniformMatrix4fv(id, program_.uniform("u_projection"), 1, GL_FALSE, projection.m.data());
  glProgramUniform3f(id, program_.uniform("u_to_light"), to_light.x, to_light.y, to_light.z);
  glProgramUniform3f(id, program_.uniform("u_color"), color.r, color.g, color.b);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glUseProgram(id);
  glBindVertexArray(vertex_array_);
  const GLint model = program_.uniform("u_model");
  for (const Solid& solid : solids_) {
    glProgramUniformMatrix4fv(id, model, 1, GL_FALSE, solid.model.m.data());
    glDrawArrays(GL_TRIANGLES, GLint(solid.first), GLsizei(solid.count));
  }
  glBindVertexArray(0);
}

}  // namespace surge::render
