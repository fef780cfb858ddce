#include "app/data_files.h"

namespace surge::app {

std::filesystem::path installed_data_directory() {
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  // SURGE_DATA_FROM_BINARY is the install's data directory relative to its binary directory
  // ("../share/surge"), set by app/CMakeLists.txt from GNUInstallDirs.
  const std::filesystem::path data = executable.parent_path() / SURGE_DATA_FROM_BINARY;
  if (!std::filesystem::is_directory(data / "scenes", error)) return {};
  return data.lexically_normal();
}

std::filesystem::path data_file(const std::filesystem::path& relative) {
  std::error_code error;
  if (std::filesystem::exists(relative, error)) return relative;
  if (const std::filesystem::path installed = installed_data_directory(); !installed.empty()) {
    if (std::filesystem::exists(installed / relative, error)) return installed / relative;
  }
  return std::filesystem::path(SURGE_SOURCE_DIR) / relative;
}

}  // namespace surge::app
