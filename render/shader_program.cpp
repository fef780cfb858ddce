#include "render/shader_program.h"

#include <glad/gl.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <system_error>

namespace surge::render {
namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw ShaderError(file.string() + ": cannot read shader (set SURGE_SHADER_DIR to the shaders/ folder)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

unsigned compile(GLenum kind, const std::filesystem::path& file) {
  const std::string source = read_text(file);
  const GLuint shader = glCreateShader(kind);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::string log(std::size_t(std::max(length, 1)), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    glDeleteShader(shader);
    throw ShaderError("shader compile failed:\n" + format_shader_log(log.c_str(), file.string()));
  }
  return shader;
}

}  // namespace

std::filesystem::path shader_directory() {
  if (const char* dir = std::getenv("SURGE_SHADER_DIR"); dir && *dir) return dir;
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    // build/surge -> shaders/ in the source tree; PREFIX/bin/surge -> PREFIX/share/surge/shaders installed.
    for (const auto& beside : {executable.parent_path().parent_path() / "shaders",
                               executable.parent_path() / SURGE_DATA_FROM_BINARY / "shaders"}) {
      if (std::filesystem::exists(beside / "particle_sphere.vert", error)) return beside;
    }
  }
  return SURGE_SHADER_SOURCE_DIR;
}

std::string format_shader_log(const std::string& log, const std::string& file) {
  static const std::regex mesa(R"(^\s*\d+:(\d+)\(\d+\):\s*(.*)$)");
  static const std::regex nvidia(R"(^\s*\d+\((\d+)\)\s*:\s*(.*)$)");
  std::istringstream lines(log);
  std::string line, out;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::smatch match;
    if (std::regex_match(line, match, mesa) || std::regex_match(line, match, nvidia)) {
      out += file + ":" + match[1].str() + ": " + match[2].str() + "\n";
    } else {
      out += file + ": " + line + "\n";
    }
  }
  return out;
}

ShaderProgram::ShaderProgram(const std::filesystem::path& vertex_file,
                             const std::filesystem::path& fragment_file) {
  const unsigned vertex = compile(GL_VERTEX_SHADER, vertex_file);
  unsigned fragment = 0;
  try {
    fragment = compile(GL_FRAGMENT_SHADER, fragment_file);
  } catch (...) {
    glDeleteShader(vertex);
    throw;
  }
  link({vertex, fragment}, vertex_file.string() + " + " + fragment_file.string());
}

ShaderProgram::ShaderProgram(const std::filesystem::path& compute_file) {
  link({compile(GL_COMPUTE_SHADER, compute_file)}, compute_file.string());
}

void ShaderProgram::link(std::initializer_list<unsigned> shaders, const std::string& files) {
  program_ = glCreateProgram();
  for (unsigned shader : shaders) glAttachShader(program_, shader);
  glLinkProgram(program_);
  for (unsigned shader : shaders) glDeleteShader(shader);
  GLint ok = GL_FALSE;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint length = 0;
    glGetProgramiv(program_, GL_INFO_LOG_LENGTH, &length);
    std::string log(std::size_t(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program_, length, nullptr, log.data());
    glDeleteProgram(program_);
    throw ShaderError("shader link failed (" + files + "):\n" + log.c_str());
  }
}

ShaderProgram::~ShaderProgram() {
  if (program_) glDeleteProgram(program_);
}

int ShaderProgram::uniform(const char* name) const {
  return glGetUniformLocation(program_, name);
}

}  // namespace surge::render
