#include "sim/distributed/parallel_vtk.h"

#include <cstdio>
#include <iomanip>
#include <ostream>
#include <regex>
#include <sstream>
#include <system_error>

#include "sim/io/exporters.h"

namespace surge {

namespace {

std::string frame_number(int frame) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%06d", frame);
  return digits;
}

}  // namespace

std::string piece_file_name(const std::string& series, int frame, int rank) {
  return series + "_" + frame_number(frame) + "_rank" + std::to_string(rank) + ".vtp";
}
std::string parallel_frame_file_name(const std::string& series, int frame) {
  return series + "_" + frame_number(frame) + ".pvtp";
}

void write_pvtp(const std::filesystem::path& path, const std::vector<std::string>& pieces,
                std::string_view position_w) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << "<?xml version=\"1.0\"?>\n"
        << "<VTKFile type=\"PPolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
        << "  <PPolyData GhostLevel=\"0\">\n"
        << "    <PPointData Scalars=\"density\" Vectors=\"velocity\">\n"
        << "      <PDataArray type=\"Float32\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n"
        << "      <PDataArray type=\"Float32\" Name=\"density\"/>\n"
        << "      <PDataArray type=\"Float32\" Name=\"pressure\"/>\n"
        << "      <PDataArray type=\"UInt32\" Name=\"id\"/>\n";
    if (!position_w.empty()) out << "      <PDataArray type=\"Float32\" Name=\"" << position_w << "\"/>\n";
    out << "    </PPointData>\n"
        << "    <PPoints>\n"
        << "      <PDataArray type=\"Float32\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
        << "    </PPoints>\n";
    for (const std::string& piece : pieces) out << "    <Piece Source=\"" << piece << "\"/>\n";
    out << "  </PPolyData>\n</VTKFile>\n";
  });
}

void write_parallel_pvd(const std::filesystem::path& path,
                        const std::vector<std::pair<double, std::string>>& frames) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" "
           "byte_order=\"LittleEndian\">\n"
        << "  <Collection>\n";
    for (const auto& [time_s, file] : frames) {
      std::ostringstream time;
      time << std::setprecision(17) << time_s;
      out << "    <DataSet timestep=\"" << time.str() << "\" group=\"\" part=\"0\" file=\"" << file
          << "\"/>\n";
    }
    out << "  </Collection>\n</VTKFile>\n";
  });
}

std::size_t remove_parallel_series(const std::filesystem::path& directory, const std::string& series,
                                   int first_frame) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) return 0;
  // The series name is the scene's, which may hold regex characters: match the prefix as text.
  const std::regex rest(R"(^(\.pvd|_(\d{6})\.pvtp|_(\d{6})_rank\d+\.vtp)(\.tmp)?$)");
  std::size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(series, 0) != 0) continue;
    const std::string tail = name.substr(series.size());
    std::smatch parts;
    if (!std::regex_match(tail, parts, rest)) continue;
    if (first_frame > 0) {
      const std::string number = parts[2].matched ? parts[2].str() : parts[3].str();
      if (number.empty() || std::stoi(number) < first_frame) continue;  // the .pvd, or a frame kept
    }
    if (std::filesystem::remove(entry.path(), error)) ++removed;
  }
  return removed;
}

}  // namespace surge
