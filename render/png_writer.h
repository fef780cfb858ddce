// PNG files through stb_image_write (Debian's libstb-dev). Written under a temporary name and renamed
// when complete, so a reader never sees half a frame.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace surge::render {

// rgba: width * height * 4 bytes, rows from the top down. Throws std::runtime_error naming the file.
void write_png(const std::filesystem::path& file, int width, int height,
               const std::vector<std::uint8_t>& rgba);

}  // namespace surge::render
