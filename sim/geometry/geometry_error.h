// Errors of the geometry library. The scene loader catches GeometryError and prepends the scene file,
// line and key, so messages here say only what is wrong with the shape.
#pragma once

#include <stdexcept>
#include <string>

namespace surge {

// A shape that cannot be placed as asked (a non-uniform scale on a sphere, a negative radius...).
class GeometryError : public std::runtime_error {
 public:
  explicit GeometryError(const std::string& problem) : std::runtime_error(problem) {}
};

// A mesh file that cannot be used. what() reads "FILE: PROBLEM".
class MeshError : public GeometryError {
 public:
  MeshError(const std::string& file, const std::string& problem)
      : GeometryError(file + ": " + problem), file_(file) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

}  // namespace surge
