// Where surge finds the files it ships with (scenes/, assets/, docs/, shaders/): the same code runs from the
// build tree, from an installed prefix and from a copy a user edits.
#pragma once

#include <filesystem>

namespace surge::app {

// `relative` (e.g. "scenes/dam_break.toml") in the first of: the working directory (a user's own copy),
// the installed data directory beside the binary (PREFIX/bin/surge -> PREFIX/share/surge, from
// `cmake --install` or the .deb), the source tree the binary was built from. When none has it, the source
// tree's path, for the error message.
std::filesystem::path data_file(const std::filesystem::path& relative);

// PREFIX/share/surge for an installed binary; empty in a build tree.
std::filesystem::path installed_data_directory();

}  // namespace surge::app
