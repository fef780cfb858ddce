#include "render/png_writer.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace surge::render {
namespace {

void append_bytes(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<unsigned char>*>(context);
  const auto* bytes = static_cast<const unsigned char*>(data);
  out->insert(out->end(), bytes, bytes + size);
}

}  // namespace

void write_png(const std::filesystem::path& file, int width, int height,
               const std::vector<std::uint8_t>& rgba) {
  if (width <= 0 || height <= 0 || rgba.size() != std::size_t(width) * std::size_t(height) * 4) {
    throw std::runtime_error(file.string() + ": image size does not match its pixels");
  }
  std::vector<unsigned char> encoded;
  if (!stbi_write_png_to_func(append_bytes, &encoded, width, height, 4, rgba.data(), width * 4)) {
    throw std::runtime_error(file.string() + ": PNG encoding failed");
  }
  const std::filesystem::path temporary = file.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(encoded.data()), std::streamsize(encoded.size()));
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw std::runtime_error(file.string() + ": cannot write");
    }
  }
  std::filesystem::rename(temporary, file);
}

}  // namespace surge::render
