// GLSL programs read from shaders/ at run time, so a user can edit a shader without rebuilding.
// A compile or link failure throws ShaderError with "FILE:LINE: message" lines from the driver's log.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace surge::render {

class ShaderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where shaders are read from: $SURGE_SHADER_DIR, else shaders/ beside the directory of the surge
// binary (build/surge -> shaders/), else an install's (PREFIX/bin/surge -> PREFIX/share/surge/shaders),
// else the source tree the binary was built from.
std::filesystem::path shader_directory();

// Turns a driver's info log (Mesa "0:12(5): error: ...", NVIDIA "0(12) : error C1008: ...") into
// "FILE:12: error: ..." lines; lines it does not recognise are kept, prefixed with "FILE: ".
std::string format_shader_log(const std::string& log, const std::string& file);

class ShaderProgram {
 public:
  ShaderProgram(const std::filesystem::path& vertex_file, const std::filesystem::path& fragment_file);
  // A compute program (GL 4.3), e.g. the surface style's splatting (fluid_splat.comp).
  explicit ShaderProgram(const std::filesystem::path& compute_file);
  ~ShaderProgram();
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;
  unsigned id() const { return program_; }
  int uniform(const char* name) const;

 private:
  // Links the compiled shaders (and deletes them); throws ShaderError naming `files` with the driver's log.
  void link(std::initializer_list<unsigned> shaders, const std::string& files);

  unsigned program_ = 0;
};

}  // namespace surge::render
