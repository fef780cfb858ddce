#include "sim/io/exporters.h"

#include <fcntl.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

#include "sim/io/file_output_buffer.h"
#include "sim/io/surface_files.h"
#include "sim/io/surface_vdb.h"
#include "sim/io/temporary_files.h"

namespace surge {

// Both formats promise little-endian bytes, and we write memory as it lies. Every host we build for
// (x86-64, AArch64) is little-endian; a big-endian port would need byte swaps here rather than silently
// writing files that readers decode as garbage.
static_assert(std::endian::native == std::endian::little, "exporters write host memory as little-endian");

namespace {

// Shortest text that reads back to the same double, so times in .pvd and PLY comments are exact.
std::string format_double(double value) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

// File names come from the user (scene name, --export name) and land in XML attributes.
std::string xml_escape(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

void check_frame_consistent(const std::filesystem::path& path, const ParticleFrame& frame) {
  const std::size_t n = frame.size();
  if (frame.velocity.size() != n || frame.density.size() != n || frame.pressure.size() != n ||
      frame.id.size() != n) {
    throw std::invalid_argument("cannot export '" + path.string() +
                                "': particle frame arrays have different lengths");
  }
}

template <typename T>
void write_raw(std::ostream& out, const T* data, std::size_t count) {
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * sizeof(T)));
}

std::vector<float> xyz_components(const std::vector<Vec4f>& values) {
  std::vector<float> components;
  components.reserve(3 * values.size());
  for (const Vec4f& v : values) components.insert(components.end(), {v.x, v.y, v.z});
  return components;
}

// One array of the VTK appended block: its XML description and its raw bytes.
struct AppendedArray {
  std::string name;
  const char* vtk_type;
  std::size_t element_bytes;
  int components;
  std::size_t tuples;
  std::function<void(std::ostream&)> write_bytes;

  std::size_t bytes() const { return tuples * components * element_bytes; }
};

std::string data_array_tag(const AppendedArray& array, std::uint64_t offset, bool field_data) {
  std::ostringstream tag;
  tag << "<DataArray type=\"" << array.vtk_type << "\" Name=\"" << array.name << "\"";
  if (array.components > 1) tag << " NumberOfComponents=\"" << array.components << "\"";
  // Point data takes its length from the Piece; without this VTK reads field data as empty.
  if (field_data) tag << " NumberOfTuples=\"" << array.tuples << "\"";
  tag << " format=\"appended\" offset=\"" << offset << "\"/>\n";
  return tag.str();
}

constexpr std::string_view kPvdHead =
    "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
    "  <Collection>\n";
constexpr std::string_view kPvdTail = "  </Collection>\n</VTKFile>\n";
constexpr std::string_view kPvdEntry = "    <DataSet ";  // how each entry's line starts

std::string pvd_entry(double time_s, const std::string& file_name) {
  std::string line(kPvdEntry);
  line.append("timestep=\"").append(format_double(time_s)).append("\" group=\"\" part=\"0\" file=\"");
  line.append(xml_escape(file_name)).append("\"/>\n");
  return line;
}

void write_pvd(const std::filesystem::path& path, const std::vector<std::pair<double, std::string>>& series) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << kPvdHead;
    for (const auto& [time_s, file_name] : series) out << pvd_entry(time_s, file_name);
    out << kPvdTail;
  });
}

// Writes the .pvd again with the first `kept` entries of the one at `path` and then `added`. The old
// entries are streamed from the file rather than held, so an exporter's memory stays the same however
// many frames it writes (the file is rewritten whole, atomically, to stay valid at every moment).
void extend_pvd(const std::filesystem::path& path, int kept, const std::string& added) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << kPvdHead;
    if (kept > 0) {
      std::ifstream in(path);
      std::string line;
      int copied = 0;
      while (copied < kept && std::getline(in, line)) {
        if (!line.starts_with(kPvdEntry)) continue;
        out << line << '\n';
        ++copied;
      }
      if (copied < kept) {
        throw std::runtime_error("cannot extend '" + path.string() + "': it lists " + std::to_string(copied) +
                                 " frames, this run wrote " + std::to_string(kept));
      }
    }
    out << added << kPvdTail;
  });
}

std::string xml_unescape(std::string_view text) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string plain;
  for (std::size_t k = 0; k < text.size();) {
    bool replaced = false;
    for (const auto& [entity, c] : kEntities) {
      if (text.substr(k).starts_with(entity)) {
        plain += c;
        k += entity.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) plain += text[k++];
  }
  return plain;
}

// The value of attribute `name` in one of pvd_entry's lines.
std::string_view pvd_attribute(std::string_view line, std::string_view name) {
  std::string key(" ");
  key.append(name).append("=\"");
  const std::size_t start = line.find(key);
  if (start == std::string_view::npos) return {};
  const std::size_t begin = start + key.size();
  return line.substr(begin, line.find('"', begin) - begin);
}

// The entries of a .pvd this exporter wrote, (time, file name), in order.
std::vector<std::pair<double, std::string>> read_pvd_series(const std::filesystem::path& path) {
  std::vector<std::pair<double, std::string>> series;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with(kPvdEntry)) continue;
    const std::string time(pvd_attribute(line, "timestep"));
    series.emplace_back(std::strtod(time.c_str(), nullptr), xml_unescape(pvd_attribute(line, "file")));
  }
  return series;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& fill) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  // Listed before the file exists, so a second Ctrl-C at any moment from here on removes it.
  const TemporaryFileInFlight in_flight(temporary);
  const auto fail = [&](int error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error("cannot write '" + path.string() + "': " + std::strerror(error));
  };

  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(errno);
  FileOutputBuffer buffer(fd);
  std::ostream out(&buffer);
  try {
    fill(out);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
  // Buffered writes report a full disk and similar errors as late as here (the last flush, or close on
  // some file systems), so this check is what keeps a truncated file from being renamed into place.
  if (!buffer.close() || !out) fail(buffer.error() != 0 ? buffer.error() : EIO);

  std::error_code rename_error;
  std::filesystem::rename(temporary, path, rename_error);
  if (rename_error) fail(rename_error.value());
}

void write_vtp(const std::filesystem::path& path, const ParticleFrame& frame, std::string_view position_w) {
  check_frame_consistent(path, frame);
  const std::size_t n = frame.size();

  // Each block starts with its UInt64 byte count (header_type="UInt64"); offsets count from the '_'.
  const std::vector<AppendedArray> field_data = {
      {"TimeValue", "Float64", sizeof(double), 1, 1,
       [&](std::ostream& out) { write_raw(out, &frame.time_s, 1); }},
  };
  const std::vector<AppendedArray> point_data = {
      {"velocity", "Float32", sizeof(float), 3, n,
       [&](std::ostream& out) {
         const std::vector<float> velocity = xyz_components(frame.velocity);
         write_raw(out, velocity.data(), velocity.size());
       }},
      {"density", "Float32", sizeof(float), 1, n,
       [&](std::ostream& out) { write_raw(out, frame.density.data(), n); }},
      {"pressure", "Float32", sizeof(float), 1, n,
       [&](std::ostream& out) { write_raw(out, frame.pressure.data(), n); }},
      {"id", "UInt32", sizeof(std::uint32_t), 1, n,
       [&](std::ostream& out) { write_raw(out, frame.id.data(), n); }},
  };
  std::vector<AppendedArray> point_data_all = point_data;
  if (!position_w.empty()) {
    point_data_all.push_back(
        {std::string(position_w), "Float32", sizeof(float), 1, n, [&](std::ostream& out) {
           std::vector<float> w(n);
           for (std::size_t i = 0; i < n; ++i) w[i] = frame.position[i].w;
           write_raw(out, w.data(), n);
         }});
  }
  const std::vector<AppendedArray> points = {
      {"Points", "Float32", sizeof(float), 3, n,
       [&](std::ostream& out) {
         const std::vector<float> position = xyz_components(frame.position);
         write_raw(out, position.data(), position.size());
       }},
  };
  // One vertex cell per particle: without cells ParaView loads the points but draws nothing.
  const std::vector<AppendedArray> verts = {
      {"connectivity", "Int64", sizeof(std::int64_t), 1, n,
       [&](std::ostream& out) {
         std::vector<std::int64_t> connectivity(n);
         for (std::size_t i = 0; i < n; ++i) connectivity[i] = static_cast<std::int64_t>(i);
         write_raw(out, connectivity.data(), n);
       }},
      {"offsets", "Int64", sizeof(std::int64_t), 1, n,
       [&](std::ostream& out) {
         std::vector<std::int64_t> offsets(n);
         for (std::size_t i = 0; i < n; ++i) offsets[i] = static_cast<std::int64_t>(i + 1);
         write_raw(out, offsets.data(), n);
       }},
  };

  std::uint64_t offset = 0;
  const auto section = [&](const std::vector<AppendedArray>& arrays, const std::string& indent,
                           bool is_field_data = false) {
    std::string tags;
    for (const AppendedArray& array : arrays) {
      tags += indent + data_array_tag(array, offset, is_field_data);
      offset += sizeof(std::uint64_t) + array.bytes();
    }
    return tags;
  };

  // Offsets accumulate in the order the blocks are written below.
  const std::string field_data_tags = section(field_data, "      ", true);
  const std::string point_data_tags = section(point_data_all, "        ");
  const std::string points_tags = section(points, "        ");
  const std::string verts_tags = section(verts, "        ");

  std::ostringstream header;
  header << "<?xml version=\"1.0\"?>\n"
         << "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
         << "  <PolyData>\n"
         << "    <FieldData>\n"
         << field_data_tags << "    </FieldData>\n"
         << "    <Piece NumberOfPoints=\"" << n << "\" NumberOfVerts=\"" << n
         << "\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
         << "      <PointData Scalars=\"density\" Vectors=\"velocity\">\n"
         << point_data_tags << "      </PointData>\n"
         << "      <Points>\n"
         << points_tags << "      </Points>\n"
         << "      <Verts>\n"
         << verts_tags << "      </Verts>\n"
         << "    </Piece>\n"
         << "  </PolyData>\n"
         << "  <AppendedData encoding=\"raw\">\n"
         << "_";

  write_file_atomically(path, [&](std::ostream& out) {
    out << header.str();
    for (const std::vector<AppendedArray>* arrays :
         {&field_data, &std::as_const(point_data_all), &points, &verts}) {
      for (const AppendedArray& array : *arrays) {
        const std::uint64_t bytes = array.bytes();
        write_raw(out, &bytes, 1);
        array.write_bytes(out);
      }
    }
    out << "\n  </AppendedData>\n</VTKFile>\n";
  });
}

void write_ply(const std::filesystem::path& path, const ParticleFrame& frame, std::string_view position_w) {
  check_frame_consistent(path, frame);
  const std::size_t n = frame.size();

  write_file_atomically(path, [&](std::ostream& out) {
    out << "ply\n"
        << "format binary_little_endian 1.0\n"
        << "comment surge time_s " << format_double(frame.time_s) << " step " << frame.step << "\n"
        << "element vertex " << n << "\n"
        << "property float x\nproperty float y\nproperty float z\n"
        << "property float vx\nproperty float vy\nproperty float vz\n"
        << "property float density\nproperty float pressure\n"
        << "property uint id\n";
    if (!position_w.empty()) out << "property float " << position_w << "\n";
    out << "end_header\n";

    // PLY stores a vertex's properties together; pack them in chunks to keep writes large.
    constexpr std::size_t kVertexFloats = 8;
    const std::size_t kVertexBytes =
        kVertexFloats * sizeof(float) + sizeof(std::uint32_t) + (position_w.empty() ? 0 : sizeof(float));
    constexpr std::size_t kChunkVertices = 4096;
    std::vector<char> chunk(kChunkVertices * kVertexBytes);
    for (std::size_t begin = 0; begin < n; begin += kChunkVertices) {
      const std::size_t count = std::min(kChunkVertices, n - begin);
      char* cursor = chunk.data();
      for (std::size_t i = begin; i < begin + count; ++i) {
        const Vec4f x = frame.position[i];
        const Vec4f v = frame.velocity[i];
        const float floats[kVertexFloats] = {
            x.x, x.y, x.z, v.x, v.y, v.z, frame.density[i], frame.pressure[i]};
        std::memcpy(cursor, floats, sizeof floats);
        cursor += sizeof floats;
        std::memcpy(cursor, &frame.id[i], sizeof(std::uint32_t));
        cursor += sizeof(std::uint32_t);
        if (!position_w.empty()) {
          std::memcpy(cursor, &x.w, sizeof(float));
          cursor += sizeof(float);
        }
      }
      out.write(chunk.data(), static_cast<std::streamsize>(count * kVertexBytes));
    }
  });
}

ExportFormat parse_export_format(const std::string& name) {
  if (name == "vtk") return ExportFormat::vtk;
  if (name == "ply") return ExportFormat::ply;
  if (name == "surface") return ExportFormat::surface;
  if (name == "obj") return ExportFormat::obj;
  if (name == "vdb") {
    if (!vdb_export_available())
      throw std::invalid_argument(std::string("export format 'vdb': ") + kNoOpenVdb);
    return ExportFormat::vdb;
  }
  throw std::invalid_argument("unknown export format '" + name + "': expected vtk, ply, surface, obj or vdb");
}

FrameExporter::FrameExporter(std::filesystem::path directory, std::string name,
                             std::vector<ExportFormat> formats, FluidSurfaceSettings surface,
                             std::string position_w)
    : directory_(std::move(directory)),
      name_(std::move(name)),
      formats_(std::move(formats)),
      surface_(surface),
      position_w_(std::move(position_w)) {
  for (const ExportFormat format : formats_) {
    if (meshes_surface(format) && !(surface_.spacing > 0))
      throw std::invalid_argument("the surface formats (surface, obj, vdb) mesh a fluid; this run has none");
  }
}

namespace {

// The file of `format` for the frame numbered `number` ("_000042").
std::filesystem::path frame_file(const std::filesystem::path& directory, const std::string& name,
                                 const char* number, ExportFormat format) {
  switch (format) {
    case ExportFormat::vtk:
      return directory / (name + number + ".vtp");
    case ExportFormat::ply:
      return directory / (name + number + ".ply");
    case ExportFormat::surface:
      return directory / (name + "_surface" + number + ".ply");
    case ExportFormat::obj:
      return directory / (name + "_surface" + number + ".obj");
    case ExportFormat::vdb:
      return directory / (name + "_surface" + number + ".vdb");
  }
  return {};
}

}  // namespace

bool is_series_file(const std::string& file_name, const std::string& series_name) {
  std::string_view rest(file_name);
  if (rest.ends_with(".tmp")) rest.remove_suffix(4);
  if (rest == series_name + ".pvd") return true;
  if (!rest.starts_with(series_name + "_")) return false;
  rest.remove_prefix(series_name.size() + 1);
  if (rest.starts_with("surface_")) {  // the surface meshes: NAME_surface_<digits>.ply, .obj or .vdb
    rest.remove_prefix(8);
    if (!rest.ends_with(".ply") && !rest.ends_with(".obj") && !rest.ends_with(".vdb")) return false;
  } else if (!rest.ends_with(".vtp") && !rest.ends_with(".ply")) {
    return false;
  }
  rest.remove_suffix(4);
  return !rest.empty() && rest.find_first_not_of("0123456789") == std::string_view::npos;
}

std::vector<std::filesystem::path> remove_series_files(const std::filesystem::path& directory,
                                                       const std::string& series_name) {
  std::vector<std::filesystem::path> removed;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (!is_series_file(entry.path().filename().string(), series_name)) continue;
    if (!entry.is_regular_file(error) && !entry.is_symlink(error)) continue;
    std::filesystem::remove(entry.path(), error);
    if (error) {
      throw std::runtime_error("cannot remove '" + entry.path().string() +
                               "', a frame of an earlier run: " + error.message());
    }
    removed.push_back(entry.path());
  }
  return removed;
}

void FrameExporter::resume(const FrameSeriesState& state) {
  std::filesystem::create_directories(directory_);
  // The frames the checkpoint counted stay; any later one (the interrupted run went on past its checkpoint)
  // goes, with any .tmp and the .pvd, which is written again below.
  std::vector<std::filesystem::path> kept;
  for (int k = 0; k < state.frames_written; ++k) {
    char number[16];
    std::snprintf(number, sizeof number, "_%06d", k);
    for (const ExportFormat format : formats_) kept.push_back(frame_file(directory_, name_, number, format));
  }
  for (const std::filesystem::path& file : kept) {
    if (!std::filesystem::exists(file)) {
      throw std::runtime_error("cannot resume the frame series: '" + file.string() +
                               "', written before the checkpoint, is missing");
    }
  }
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory_, error)) {
    if (!is_series_file(entry.path().filename().string(), name_)) continue;
    if (std::find(kept.begin(), kept.end(), entry.path()) != kept.end()) continue;
    std::filesystem::remove(entry.path(), error);
    if (error) throw std::runtime_error("cannot remove '" + entry.path().string() + "': " + error.message());
    ++stale_files_removed_;
  }
  resumed_ = true;
  frames_written_ = state.frames_written;
  if (writes_vtk() && !state.series.empty()) write_pvd(pvd_path(), state.series);
}

bool FrameExporter::writes_vtk() const {
  return std::find(formats_.begin(), formats_.end(), ExportFormat::vtk) != formats_.end();
}

std::filesystem::path FrameExporter::pvd_path() const {
  return directory_ / (name_ + ".pvd");
}

FrameSeriesState FrameExporter::state() const {
  FrameSeriesState state;
  state.frames_written = frames_written_;
  if (writes_vtk() && frames_written_ > 0) state.series = read_pvd_series(pvd_path());
  return state;
}

std::vector<std::filesystem::path> FrameExporter::files() const {
  std::vector<std::filesystem::path> files;
  for (int k = 0; k < frames_written_; ++k) {
    char number[16];
    std::snprintf(number, sizeof number, "_%06d", k);
    for (const ExportFormat format : formats_) {
      files.push_back(frame_file(directory_, name_, number, format));
      if (format == ExportFormat::vtk && k == 0) files.push_back(pvd_path());
    }
  }
  return files;
}

bool FrameExporter::writes_particles() const {
  return std::any_of(formats_.begin(), formats_.end(), [](ExportFormat format) {
    return format == ExportFormat::vtk || format == ExportFormat::ply;
  });
}

bool FrameExporter::writes_surface() const {
  return std::any_of(formats_.begin(), formats_.end(), meshes_surface);
}

void FrameExporter::write(const ParticleFrame& frame, const FluidSurface* made_surface) {
  // Made here rather than in the constructor, so an exporter that never writes leaves no trace on disk.
  // A run replaces its own series: frames an earlier run of the same name left (a longer one leaves more)
  // would otherwise lie beside the new .pvd, looking like part of this run.
  if (frames_written_ == 0 && !resumed_) {
    std::filesystem::create_directories(directory_);
    stale_files_removed_ = remove_series_files(directory_, name_).size();
  }

  char number[16];
  std::snprintf(number, sizeof number, "_%06d", frames_written_);

  // The frame's files first, then the .pvd that lists it; when one fails (a full disk), the frame's files
  // already written go again, so the directory holds the frames the .pvd lists and no others.
  const std::filesystem::path vtp = frame_file(directory_, name_, number, ExportFormat::vtk);
  std::vector<std::filesystem::path> written;
  try {
    std::optional<FluidSurface> meshed_here;  // meshed once for every surface format
    const FluidSurface* surface = made_surface;
    for (const ExportFormat format : formats_) {
      const std::filesystem::path file = frame_file(directory_, name_, number, format);
      if (format == ExportFormat::vtk) write_vtp(file, frame, position_w_);
      if (format == ExportFormat::ply) write_ply(file, frame, position_w_);
      if (meshes_surface(format) && surface == nullptr)
        surface = &meshed_here.emplace(extract_fluid_surface(frame.position, surface_));
      if (format == ExportFormat::surface) write_surface_ply(file, *surface, frame.time_s, frame.step);
      if (format == ExportFormat::obj) write_surface_obj(file, *surface, frame.time_s, frame.step);
      // The level set's voxels are the cells the mesh was extracted on: finer would resolve nothing more.
      if (format == ExportFormat::vdb)
        write_surface_vdb(file, *surface, double(surface_.cell_fraction) * surface_.spacing, frame.time_s,
                          frame.step);
      written.push_back(file);
    }
    if (writes_vtk())
      extend_pvd(pvd_path(), frames_written_, pvd_entry(frame.time_s, vtp.filename().string()));
  } catch (...) {
    std::error_code ignored;
    for (const std::filesystem::path& file : written) std::filesystem::remove(file, ignored);
    throw;
  }
  ++frames_written_;
}

}  // namespace surge
