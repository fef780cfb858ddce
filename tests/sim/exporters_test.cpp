#include "sim/io/exporters.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace surge {
namespace {

namespace fs = std::filesystem;

// Random values in every attribute, so a swapped, shifted or zeroed array cannot pass.
ParticleFrame random_frame(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
  ParticleFrame frame;
  frame.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    frame.position[i] = {uniform(rng), uniform(rng), uniform(rng), uniform(rng)};
    frame.velocity[i] = {uniform(rng), uniform(rng), uniform(rng), uniform(rng)};
    frame.density[i] = 1000.0f + uniform(rng);
    frame.pressure[i] = 100.0f * uniform(rng);
    frame.id[i] = static_cast<std::uint32_t>(rng());
  }
  frame.time_s = 0.1 * (seed + 1) + 1e-9;
  frame.step = 1000L + seed;
  return frame;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

template <typename T>
T read_le(const std::string& bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

std::map<std::string, std::string> attributes(const std::string& tag) {
  std::map<std::string, std::string> result;
  static const std::regex attribute(R"re((\w+)="([^"]*)")re");
  for (auto it = std::sregex_iterator(tag.begin(), tag.end(), attribute); it != std::sregex_iterator();
       ++it) {
    result[(*it)[1]] = (*it)[2];
  }
  return result;
}

// A VTK XML file with raw appended data, read without VTK: the XML part is scanned for DataArray
// tags, and each array's bytes are found at '_' + offset behind a UInt64 byte count.
struct VtpArray {
  std::string section;  // FieldData, PointData, Points or Verts
  std::string type;
  int components = 1;
  std::string number_of_tuples;  // required by VTK for field data, which has no Piece to size it
  std::string bytes;
};

struct VtpFile {
  std::map<std::string, std::string> vtk_file;  // attributes of <VTKFile>
  std::map<std::string, std::string> piece;
  std::string appended_encoding;
  std::map<std::string, VtpArray> arrays;

  template <typename T>
  std::vector<T> values(const std::string& name) const {
    const std::string& bytes = arrays.at(name).bytes;
    std::vector<T> result(bytes.size() / sizeof(T));
    // An empty vector's data() may be null, and memcpy from or to null is undefined even for 0 bytes.
    if (!result.empty()) std::memcpy(result.data(), bytes.data(), result.size() * sizeof(T));
    return result;
  }
};

VtpFile parse_vtp(const fs::path& path) {
  const std::string file = read_file(path);
  const std::size_t appended_tag = file.find("<AppendedData");
  const std::size_t base = file.find('_', appended_tag) + 1;
  const std::string xml = file.substr(0, base);
  const std::size_t trailer = file.rfind("\n  </AppendedData>\n</VTKFile>\n");
  EXPECT_EQ(trailer + std::strlen("\n  </AppendedData>\n</VTKFile>\n"), file.size())
      << "file must end cleanly";

  VtpFile vtp;
  const auto tag_at = [&](const std::string& name) {
    const std::size_t begin = xml.find("<" + name);
    return begin == std::string::npos ? std::string() : xml.substr(begin, xml.find('>', begin) - begin);
  };
  vtp.vtk_file = attributes(tag_at("VTKFile"));
  vtp.piece = attributes(tag_at("Piece"));
  vtp.appended_encoding = attributes(tag_at("AppendedData"))["encoding"];

  std::size_t appended_end = base;
  for (std::size_t at = xml.find("<DataArray"); at != std::string::npos;
       at = xml.find("<DataArray", at + 1)) {
    auto attrs = attributes(xml.substr(at, xml.find('>', at) - at));
    VtpArray array;
    for (const char* section : {"FieldData", "PointData", "Points", "Verts"}) {
      const std::size_t opened = xml.rfind(std::string("<") + section, at);
      const std::size_t closed = xml.rfind(std::string("</") + section, at);
      if (opened != std::string::npos && (closed == std::string::npos || closed < opened))
        array.section = section;
    }
    array.type = attrs["type"];
    if (attrs.count("NumberOfComponents")) array.components = std::stoi(attrs["NumberOfComponents"]);
    array.number_of_tuples = attrs["NumberOfTuples"];
    EXPECT_EQ(attrs["format"], "appended");
    const std::size_t start = base + std::stoull(attrs["offset"]);
    const auto count = read_le<std::uint64_t>(file, start);
    EXPECT_LE(start + 8 + count, trailer) << attrs["Name"] << " runs past the appended data";
    array.bytes = file.substr(start + 8, count);
    appended_end = std::max<std::size_t>(appended_end, start + 8 + count);
    vtp.arrays[attrs["Name"]] = array;
  }
  EXPECT_EQ(appended_end, trailer) << "appended data must hold exactly the listed arrays";
  return vtp;
}

void expect_vtp_matches(const fs::path& path, const ParticleFrame& frame) {
  const std::size_t n = frame.size();
  const VtpFile vtp = parse_vtp(path);
  EXPECT_EQ(vtp.vtk_file.at("type"), "PolyData");
  EXPECT_EQ(vtp.vtk_file.at("version"), "1.0");
  EXPECT_EQ(vtp.vtk_file.at("byte_order"), "LittleEndian");
  EXPECT_EQ(vtp.vtk_file.at("header_type"), "UInt64");
  EXPECT_EQ(vtp.appended_encoding, "raw");
  EXPECT_EQ(vtp.piece.at("NumberOfPoints"), std::to_string(n));
  EXPECT_EQ(vtp.piece.at("NumberOfVerts"), std::to_string(n));
  ASSERT_EQ(vtp.arrays.size(), 8u);

  const auto expect_array = [&](const std::string& name, const std::string& section, const std::string& type,
                                int components, std::size_t element_size) {
    SCOPED_TRACE(name);
    ASSERT_EQ(vtp.arrays.count(name), 1u);
    const VtpArray& array = vtp.arrays.at(name);
    EXPECT_EQ(array.section, section);
    EXPECT_EQ(array.type, type);
    EXPECT_EQ(array.components, components);
    EXPECT_EQ(array.bytes.size(), (section == "FieldData" ? 1 : n) * components * element_size);
  };
  expect_array("TimeValue", "FieldData", "Float64", 1, 8);
  EXPECT_EQ(vtp.arrays.at("TimeValue").number_of_tuples, "1");
  expect_array("Points", "Points", "Float32", 3, 4);
  expect_array("connectivity", "Verts", "Int64", 1, 8);
  expect_array("offsets", "Verts", "Int64", 1, 8);
  expect_array("velocity", "PointData", "Float32", 3, 4);
  expect_array("density", "PointData", "Float32", 1, 4);
  expect_array("pressure", "PointData", "Float32", 1, 4);
  expect_array("id", "PointData", "UInt32", 1, 4);
  if (::testing::Test::HasFailure()) return;

  EXPECT_EQ(vtp.values<double>("TimeValue"), std::vector<double>{frame.time_s});
  const auto points = vtp.values<float>("Points");
  const auto velocity = vtp.values<float>("velocity");
  const auto density = vtp.values<float>("density");
  const auto pressure = vtp.values<float>("pressure");
  const auto id = vtp.values<std::uint32_t>("id");
  const auto connectivity = vtp.values<std::int64_t>("connectivity");
  const auto offsets = vtp.values<std::int64_t>("offsets");
  for (std::size_t i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(points[3 * i + 0], frame.position[i].x);
    EXPECT_EQ(points[3 * i + 1], frame.position[i].y);
    EXPECT_EQ(points[3 * i + 2], frame.position[i].z);
    EXPECT_EQ(velocity[3 * i + 0], frame.velocity[i].x);
    EXPECT_EQ(velocity[3 * i + 1], frame.velocity[i].y);
    EXPECT_EQ(velocity[3 * i + 2], frame.velocity[i].z);
    EXPECT_EQ(density[i], frame.density[i]);
    EXPECT_EQ(pressure[i], frame.pressure[i]);
    EXPECT_EQ(id[i], frame.id[i]);
    EXPECT_EQ(connectivity[i], static_cast<std::int64_t>(i));
    EXPECT_EQ(offsets[i], static_cast<std::int64_t>(i + 1));
  }
}

void expect_ply_matches(const fs::path& path, const ParticleFrame& frame) {
  const std::string file = read_file(path);
  const std::string end_header = "end_header\n";
  const std::size_t body = file.find(end_header);
  ASSERT_NE(body, std::string::npos);
  std::istringstream header(file.substr(0, body));
  std::vector<std::string> lines;
  for (std::string line; std::getline(header, line);) lines.push_back(line);

  const std::vector<std::string> expected = {
      "ply",
      "format binary_little_endian 1.0",
      "element vertex " + std::to_string(frame.size()),
      "property float x",
      "property float y",
      "property float z",
      "property float vx",
      "property float vy",
      "property float vz",
      "property float density",
      "property float pressure",
      "property uint id",
  };
  std::vector<std::string> without_comments;
  std::string comment;
  for (const std::string& line : lines) {
    if (line.rfind("comment ", 0) == 0) {
      comment = line;
    } else {
      without_comments.push_back(line);
    }
  }
  EXPECT_EQ(without_comments, expected);
  std::istringstream comment_words(comment);
  std::string word, time_key, step_key;
  double time_s = 0.0;
  long step = 0;
  comment_words >> word >> word >> time_key >> time_s >> step_key >> step;
  EXPECT_EQ(time_key, "time_s") << comment;
  EXPECT_EQ(time_s, frame.time_s) << comment;
  EXPECT_EQ(step_key, "step") << comment;
  EXPECT_EQ(step, frame.step) << comment;

  constexpr std::size_t kVertexBytes = 8 * 4 + 4;
  const std::size_t start = body + end_header.size();
  ASSERT_EQ(file.size() - start, frame.size() * kVertexBytes);
  for (std::size_t i = 0; i < frame.size(); ++i) {
    SCOPED_TRACE(i);
    const std::size_t at = start + i * kVertexBytes;
    EXPECT_EQ(read_le<float>(file, at + 0), frame.position[i].x);
    EXPECT_EQ(read_le<float>(file, at + 4), frame.position[i].y);
    EXPECT_EQ(read_le<float>(file, at + 8), frame.position[i].z);
    EXPECT_EQ(read_le<float>(file, at + 12), frame.velocity[i].x);
    EXPECT_EQ(read_le<float>(file, at + 16), frame.velocity[i].y);
    EXPECT_EQ(read_le<float>(file, at + 20), frame.velocity[i].z);
    EXPECT_EQ(read_le<float>(file, at + 24), frame.density[i]);
    EXPECT_EQ(read_le<float>(file, at + 28), frame.pressure[i]);
    EXPECT_EQ(read_le<std::uint32_t>(file, at + 32), frame.id[i]);
  }
}

struct PvdEntry {
  double timestep;
  std::string file;
};

std::vector<PvdEntry> parse_pvd(const fs::path& path) {
  const std::string xml = read_file(path);
  EXPECT_NE(xml.find("<VTKFile type=\"Collection\""), std::string::npos);
  EXPECT_NE(xml.find("</VTKFile>"), std::string::npos);
  std::vector<PvdEntry> entries;
  for (std::size_t at = xml.find("<DataSet"); at != std::string::npos; at = xml.find("<DataSet", at + 1)) {
    auto attrs = attributes(xml.substr(at, xml.find('>', at) - at));
    entries.push_back({std::stod(attrs["timestep"]), attrs["file"]});
  }
  return entries;
}

std::vector<fs::path> directory_listing(const fs::path& directory) {
  std::vector<fs::path> listing;
  for (const auto& entry : fs::recursive_directory_iterator(directory)) listing.push_back(entry.path());
  std::sort(listing.begin(), listing.end());
  return listing;
}

void expect_no_temporaries(const fs::path& directory) {
  for (const fs::path& path : directory_listing(directory)) EXPECT_NE(path.extension(), ".tmp") << path;
}

class ExportersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("surge_exporters_" + std::string(info->name()) + "_" + std::to_string(std::random_device{}()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST_F(ExportersTest, VtpHoldsEveryValueOfTheFrame) {
  const ParticleFrame frame = random_frame(257, 1);
  write_vtp(dir_ / "frame.vtp", frame);
  expect_vtp_matches(dir_ / "frame.vtp", frame);
  expect_no_temporaries(dir_);
}

TEST_F(ExportersTest, VtpWithNoParticlesIsValid) {
  const ParticleFrame frame = random_frame(0, 2);
  write_vtp(dir_ / "empty.vtp", frame);
  expect_vtp_matches(dir_ / "empty.vtp", frame);
}

TEST_F(ExportersTest, PlyHoldsEveryValueOfTheFrame) {
  // More than one internal chunk of vertices, with a partial last chunk.
  const ParticleFrame frame = random_frame(9000, 3);
  write_ply(dir_ / "frame.ply", frame);
  expect_ply_matches(dir_ / "frame.ply", frame);
  expect_no_temporaries(dir_);
}

// Grains carry their radius and bodies their mass in position.w: exported under that name, values as held.
TEST_F(ExportersTest, PositionWIsWrittenUnderTheNameItIsGiven) {
  ParticleFrame frame = random_frame(300, 6);
  for (std::size_t i = 0; i < frame.size(); ++i) frame.position[i].w = 0.001f * float(i + 1);
  write_vtp(dir_ / "grains.vtp", frame, "radius");
  const VtpFile vtp = parse_vtp(dir_ / "grains.vtp");
  ASSERT_EQ(vtp.arrays.count("radius"), 1u);
  EXPECT_EQ(vtp.arrays.at("radius").section, "PointData");
  const auto radius = vtp.values<float>("radius");
  ASSERT_EQ(radius.size(), frame.size());
  for (std::size_t i = 0; i < frame.size(); ++i) EXPECT_EQ(radius[i], frame.position[i].w) << i;
  EXPECT_EQ(vtp.values<float>("density").size(), frame.size());  // the others as before

  write_ply(dir_ / "grains.ply", frame, "radius");
  const std::string file = read_file(dir_ / "grains.ply");
  const std::size_t body = file.find("end_header\n");
  ASSERT_NE(body, std::string::npos);
  EXPECT_NE(file.find("property uint id\nproperty float radius\nend_header\n"), std::string::npos);
  const std::size_t start = body + 11;
  constexpr std::size_t kVertexBytes = 8 * 4 + 4 + 4;
  ASSERT_EQ(file.size() - start, frame.size() * kVertexBytes);
  for (std::size_t i = 0; i < frame.size(); ++i) {
    float w = 0;
    std::memcpy(&w, file.data() + start + i * kVertexBytes + 36, sizeof w);
    EXPECT_EQ(w, frame.position[i].w) << i;
  }
}

TEST_F(ExportersTest, PlyWithNoParticlesIsValid) {
  const ParticleFrame frame = random_frame(0, 4);
  write_ply(dir_ / "empty.ply", frame);
  expect_ply_matches(dir_ / "empty.ply", frame);
}

TEST_F(ExportersTest, MismatchedFrameArraysAreRejected) {
  ParticleFrame frame = random_frame(5, 5);
  frame.pressure.pop_back();
  EXPECT_THROW(write_vtp(dir_ / "bad.vtp", frame), std::invalid_argument);
  EXPECT_THROW(write_ply(dir_ / "bad.ply", frame), std::invalid_argument);
  EXPECT_TRUE(directory_listing(dir_).empty());
}

TEST_F(ExportersTest, AtomicWriteReplacesAnExistingFile) {
  std::ofstream(dir_ / "out.txt") << "old contents that are longer";
  write_file_atomically(dir_ / "out.txt", [](std::ostream& out) { out << "new"; });
  EXPECT_EQ(read_file(dir_ / "out.txt"), "new");
  EXPECT_EQ(directory_listing(dir_), std::vector<fs::path>{dir_ / "out.txt"});
}

TEST_F(ExportersTest, AtomicWriteLeavesNothingWhenFillThrows) {
  std::ofstream(dir_ / "out.txt") << "old";
  EXPECT_THROW(write_file_atomically(dir_ / "out.txt",
                                     [](std::ostream& out) {
                                       out << "partial";
                                       throw std::logic_error("fill failed");
                                     }),
               std::logic_error);
  EXPECT_EQ(read_file(dir_ / "out.txt"), "old");
  EXPECT_EQ(directory_listing(dir_), std::vector<fs::path>{dir_ / "out.txt"});
}

TEST_F(ExportersTest, AtomicWriteReportsAFailedStreamAndLeavesNothing) {
  try {
    write_file_atomically(dir_ / "out.txt", [](std::ostream& out) {
      out << "partial";
      out.setstate(std::ios::badbit);  // as a full disk would leave it
    });
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find((dir_ / "out.txt").string()), std::string::npos) << error.what();
  }
  EXPECT_TRUE(directory_listing(dir_).empty());
}

TEST_F(ExportersTest, WritingBelowARegularFileThrowsAndLeavesNothing) {
  std::ofstream(dir_ / "blocker") << "a file, not a directory";
  const fs::path target = dir_ / "blocker" / "frame.vtp";
  try {
    write_vtp(target, random_frame(3, 6));
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(target.string()), std::string::npos) << message;
    EXPECT_NE(message.find(std::strerror(ENOTDIR)), std::string::npos) << message;
  }
  EXPECT_THROW(write_ply(dir_ / "blocker" / "frame.ply", random_frame(3, 6)), std::runtime_error);

  FrameExporter exporter(dir_ / "blocker" / "out", "run", {ExportFormat::vtk});
  EXPECT_THROW(exporter.write(random_frame(3, 6)), std::runtime_error);
  EXPECT_EQ(exporter.frames_written(), 0);
  EXPECT_TRUE(exporter.files().empty());

  EXPECT_EQ(directory_listing(dir_), std::vector<fs::path>{dir_ / "blocker"});
  EXPECT_EQ(read_file(dir_ / "blocker"), "a file, not a directory");
}

TEST(ParseExportFormat, KnowsVtkAndPly) {
  EXPECT_EQ(parse_export_format("vtk"), ExportFormat::vtk);
  EXPECT_EQ(parse_export_format("ply"), ExportFormat::ply);
}

TEST(ParseExportFormat, RejectsOthersWithAClearMessage) {
  for (const std::string name : {"stl", "VTK", "", "vtp"}) {
    try {
      parse_export_format(name);
      ADD_FAILURE() << "expected std::invalid_argument for '" << name << "'";
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()),
                "unknown export format '" + name + "': expected vtk, ply, surface, obj or vdb");
    }
  }
}

TEST_F(ExportersTest, FrameExporterNumbersFramesAndKeepsTheSeriesCurrent) {
  const fs::path out = dir_ / "nested" / "out";  // created on the first write
  FrameExporter exporter(out, "dam", {ExportFormat::vtk, ExportFormat::ply});
  EXPECT_FALSE(fs::exists(out));

  std::vector<ParticleFrame> frames;
  for (unsigned k = 0; k < 3; ++k) {
    frames.push_back(random_frame(10 + k, 10 + k));
    exporter.write(frames.back());
    EXPECT_EQ(exporter.frames_written(), static_cast<int>(k + 1));

    // The series is complete after every frame, not only at the end of a run.
    const std::vector<PvdEntry> series = parse_pvd(out / "dam.pvd");
    ASSERT_EQ(series.size(), k + 1);
    for (unsigned j = 0; j <= k; ++j) {
      EXPECT_EQ(series[j].timestep, frames[j].time_s);
      EXPECT_EQ(series[j].file, "dam_00000" + std::to_string(j) + ".vtp");
    }
  }

  const std::vector<fs::path> expected_files = {
      out / "dam_000000.vtp", out / "dam.pvd",        out / "dam_000000.ply", out / "dam_000001.vtp",
      out / "dam_000001.ply", out / "dam_000002.vtp", out / "dam_000002.ply",
  };
  EXPECT_EQ(exporter.files(), expected_files);
  for (unsigned k = 0; k < 3; ++k) {
    expect_vtp_matches(out / ("dam_00000" + std::to_string(k) + ".vtp"), frames[k]);
    expect_ply_matches(out / ("dam_00000" + std::to_string(k) + ".ply"), frames[k]);
  }
  std::vector<fs::path> sorted_files = expected_files;
  std::sort(sorted_files.begin(), sorted_files.end());
  EXPECT_EQ(directory_listing(out), sorted_files);
  expect_no_temporaries(dir_);
}

TEST_F(ExportersTest, FrameExporterWithPlyOnlyWritesNoSeries) {
  FrameExporter exporter(dir_, "p", {ExportFormat::ply});
  exporter.write(random_frame(4, 20));
  exporter.write(random_frame(4, 21));
  EXPECT_EQ(exporter.files(), (std::vector<fs::path>{dir_ / "p_000000.ply", dir_ / "p_000001.ply"}));
  EXPECT_FALSE(fs::exists(dir_ / "p.pvd"));
}

// A long run's exporter holds nothing per frame: the .pvd's entries are streamed from the file when it is
// written again, and read back from it for a checkpoint. Measured as the heap in use (glibc's mallinfo2)
// between frame 300 and frame 1500 of a one-particle series: the per-frame entry and file list it used to
// hold grew it by about 150 bytes a frame, 180 kB here.
TEST_F(ExportersTest, FrameExporterMemoryDoesNotGrowWithTheFrameCount) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer mallinfo2 does not see the heap";
#else
  FrameExporter exporter(dir_, "long", {ExportFormat::vtk});
  ParticleFrame frame = random_frame(1, 40);
  std::size_t in_use_at_300 = 0;
  for (int k = 0; k < 1500; ++k) {
    if (k == 300) in_use_at_300 = mallinfo2().uordblks;
    frame.time_s = 0.001 * k;
    exporter.write(frame);
  }
  const std::size_t in_use_at_1500 = mallinfo2().uordblks;
  EXPECT_LT(in_use_at_1500, in_use_at_300 + 16384)
      << "heap in use grew from " << in_use_at_300 << " to " << in_use_at_1500 << " bytes over 1200 frames";
  // The series is complete, and a checkpoint's state has every entry.
  const std::vector<PvdEntry> series = parse_pvd(dir_ / "long.pvd");
  ASSERT_EQ(series.size(), 1500u);
  EXPECT_EQ(series[1499].timestep, 0.001 * 1499);
  EXPECT_EQ(series[1499].file, "long_001499.vtp");
  const FrameSeriesState state = exporter.state();
  EXPECT_EQ(state.frames_written, 1500);
  ASSERT_EQ(state.series.size(), 1500u);
  EXPECT_EQ(state.series[777], (std::pair<double, std::string>{0.001 * 777, "long_000777.vtp"}));
#endif
}

TEST_F(ExportersTest, SeriesEscapesFileNamesForXml) {
  FrameExporter exporter(dir_, "a&b\"c", {ExportFormat::vtk});
  exporter.write(random_frame(2, 30));
  const std::string pvd = read_file(dir_ / "a&b\"c.pvd");
  EXPECT_NE(pvd.find("file=\"a&amp;b&quot;c_000000.vtp\""), std::string::npos) << pvd;
  EXPECT_TRUE(fs::exists(dir_ / "a&b\"c_000000.vtp"));
  // A checkpoint reads the names back as they are.
  EXPECT_EQ(exporter.state().series.at(0).second, "a&b\"c_000000.vtp");
}

// A full disk, without filling one: the temporary file is a link to /dev/full, where every write fails with
// ENOSPC. The message must carry that reason, not a generic "I/O error" (errno read after other calls had
// reset it), and nothing may be left behind.
TEST_F(ExportersTest, AFullDiskIsReportedWithItsReason) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  for (const bool large : {false, true}) {
    const fs::path target = dir_ / "frame.vtp";
    fs::create_symlink("/dev/full", dir_ / "frame.vtp.tmp");
    try {
      // A small frame fails at the last flush, a large one in the middle of its arrays.
      write_vtp(target, random_frame(large ? 100000 : 3, 7));
      ADD_FAILURE() << "expected std::runtime_error";
    } catch (const std::runtime_error& error) {
      EXPECT_EQ(std::string(error.what()),
                "cannot write '" + target.string() + "': " + std::strerror(ENOSPC));
    }
    EXPECT_FALSE(fs::exists(target));
    EXPECT_TRUE(directory_listing(dir_).empty()) << "the temporary file (the link) is removed";
  }
}

TEST_F(ExportersTest, SeriesFilesAreTheSeriesNamesOnly) {
  for (const char* name : {"dam.pvd", "dam_000000.vtp", "dam_123456.ply", "dam_1234567.vtp", "dam.pvd.tmp",
                           "dam_000003.vtp.tmp"})
    EXPECT_TRUE(is_series_file(name, "dam")) << name;
  for (const char* name : {"dam_break_000000.vtp", "dam_.vtp", "dam_00000a.vtp", "dam_000000.png", "dam.vtp",
                           "other.pvd", "dam_000000.vtp.bak", "gauges.csv", "xdam_000000.vtp"})
    EXPECT_FALSE(is_series_file(name, "dam")) << name;
}

// A rerun into the directory of an earlier, longer run: its frames would lie beside the new .pvd. The
// first frame removes them, and nothing that is not the series' own.
TEST_F(ExportersTest, TheFirstFrameReplacesAnEarlierRunsSeries) {
  {
    FrameExporter earlier(dir_, "dam", {ExportFormat::vtk, ExportFormat::ply});
    for (unsigned k = 0; k < 5; ++k) earlier.write(random_frame(4, 40 + k));
  }
  std::ofstream(dir_ / "dam_000009.vtp.tmp") << "a write a crash did not finish";
  std::ofstream(dir_ / "dam_break_000000.vtp") << "another series";
  std::ofstream(dir_ / "notes.txt") << "the user's";

  FrameExporter rerun(dir_, "dam", {ExportFormat::vtk});
  EXPECT_EQ(rerun.stale_files_removed(), 0u) << "nothing is removed before the first frame";
  EXPECT_TRUE(fs::exists(dir_ / "dam_000004.vtp"));
  for (unsigned k = 0; k < 2; ++k) rerun.write(random_frame(4, 50 + k));
  EXPECT_EQ(rerun.stale_files_removed(), 12u) << "5 .vtp, 5 .ply, the .pvd and the .tmp";
  EXPECT_EQ(directory_listing(dir_),
            (std::vector<fs::path>{dir_ / "dam.pvd", dir_ / "dam_000000.vtp", dir_ / "dam_000001.vtp",
                                   dir_ / "dam_break_000000.vtp", dir_ / "notes.txt"}));
  EXPECT_EQ(parse_pvd(dir_ / "dam.pvd").size(), 2u);
}

}  // namespace
}  // namespace surge
