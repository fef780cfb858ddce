#include "sim/io/checkpoint.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <type_traits>
#include <vector>

namespace surge {
namespace {

static_assert(std::endian::native == std::endian::little, "checkpoints are written little-endian as is");

constexpr char kMagic[8] = {'S', 'U', 'R', 'G', 'E', 'C', 'K', 'P'};

struct Fnv1a {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  void add(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t k = 0; k < size; ++k) {
      hash ^= bytes[k];
      hash *= 0x100000001b3ull;
    }
  }
};

// Fields in order, each as its bytes; strings and sections with their lengths first.
class Writer {
 public:
  template <typename T>
  void value(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&value, sizeof(T));
  }
  void text(const std::string& text) {
    value(std::uint64_t(text.size()));
    bytes(text.data(), text.size());
  }
  void bytes(const void* data, std::size_t size) {
    const auto* begin = static_cast<const char*>(data);
    out_.insert(out_.end(), begin, begin + size);
  }
  const std::vector<char>& data() const { return out_; }

 private:
  std::vector<char> out_;
};

class Reader {
 public:
  Reader(const std::vector<char>& data, std::size_t end, const std::filesystem::path& path)
      : data_(data), end_(end), path_(path) {}
  template <typename T>
  T value(const char* what) {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    bytes(&value, sizeof(T), what);
    return value;
  }
  std::string text(const char* what) {
    const std::uint64_t size = value<std::uint64_t>(what);
    check(size, what);
    std::string text(data_.data() + at_, std::size_t(size));
    at_ += std::size_t(size);
    return text;
  }
  void bytes(void* out, std::size_t size, const char* what) {
    check(size, what);
    std::memcpy(out, data_.data() + at_, size);
    at_ += size;
  }
  std::size_t position() const { return at_; }

 private:
  void check(std::uint64_t size, const char* what) const {
    if (size > end_ - at_) {
      throw CheckpointError("checkpoint '" + path_.string() + "' is damaged: it ends inside " + what);
    }
  }
  const std::vector<char>& data_;
  std::size_t end_, at_ = sizeof(kMagic) + sizeof(std::uint32_t);
  const std::filesystem::path& path_;
};

std::vector<char> encode(const Checkpoint& c) {
  Writer w;
  w.bytes(kMagic, sizeof kMagic);
  w.value(Checkpoint::kFormatVersion);
  w.value(c.setup_hash);
  w.text(c.scene_name);
  w.text(c.solver);
  w.text(c.backend);
  w.text(c.backend_description);
  w.value(std::int64_t(c.step));
  w.value(c.time_s);
  w.value(std::int32_t(c.frames.frames_written));
  w.value(std::int64_t(c.frames.next_time_event));
  w.value(std::uint64_t(c.frames.series.size()));
  for (const auto& [time_s, file] : c.frames.series) {
    w.value(time_s);
    w.text(file);
  }
  w.value(std::uint8_t(c.has_gauges ? 1 : 0));
  w.value(std::int32_t(c.gauges.rows));
  w.value(c.gauges.bytes);
  w.value(std::int64_t(c.gauges.next_event));
  w.value(std::uint64_t(c.gauges.filters.size()));
  for (const FilterState& filter : c.gauges.filters) {
    w.value(filter.y);
    w.value(filter.last_time_s);
    w.value(std::uint8_t(filter.started ? 1 : 0));
  }
  w.value(std::int64_t(c.next_checkpoint_event));
  w.value(std::uint64_t(c.state.sections.size()));
  for (const StateSection& section : c.state.sections) {
    w.text(section.name);
    w.value(section.element_size);
    w.value(section.count);
    w.value(std::uint64_t(section.bytes.size()));
    w.bytes(section.bytes.data(), section.bytes.size());
  }
  Fnv1a checksum;
  checksum.add(w.data().data(), w.data().size());
  w.value(checksum.hash);
  return w.data();
}

}  // namespace

void write_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint) {
  const std::vector<char> bytes = encode(checkpoint);
  write_file_atomically(path,
                        [&](std::ostream& out) { out.write(bytes.data(), std::streamsize(bytes.size())); });
}

Checkpoint read_checkpoint(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw CheckpointError("cannot open checkpoint '" + path.string() + "': " + std::strerror(errno));
  }
  const std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Appended rather than concatenated: g++ 12 at -O3 warns falsely (-Wrestrict) on "'" + string + "'".
  std::string name = "'";
  name.append(path.string()).append("'");
  if (data.size() < sizeof(kMagic) + sizeof(std::uint32_t) ||
      std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) {
    throw CheckpointError(name + " is not a Surge checkpoint");
  }
  std::uint32_t version = 0;
  std::memcpy(&version, data.data() + sizeof kMagic, sizeof version);
  if (version != Checkpoint::kFormatVersion) {
    throw CheckpointError("checkpoint " + name + " has format version " + std::to_string(version) +
                          "; this build of Surge reads version " +
                          std::to_string(Checkpoint::kFormatVersion));
  }
  if (data.size() < sizeof(kMagic) + sizeof(std::uint32_t) + sizeof(std::uint64_t)) {
    throw CheckpointError("checkpoint " + name + " is damaged: it is truncated");
  }
  const std::size_t body = data.size() - sizeof(std::uint64_t);
  Fnv1a checksum;
  checksum.add(data.data(), body);
  std::uint64_t stored = 0;
  std::memcpy(&stored, data.data() + body, sizeof stored);
  if (stored != checksum.hash) {
    throw CheckpointError("checkpoint " + name +
                          " is damaged: its checksum does not match (truncated or changed)");
  }

  Reader r(data, body, path);
  Checkpoint c;
  c.setup_hash = r.value<std::uint64_t>("the header");
  c.scene_name = r.text("the header");
  c.solver = r.text("the header");
  c.backend = r.text("the header");
  c.backend_description = r.text("the header");
  c.step = long(r.value<std::int64_t>("the clock"));
  c.time_s = r.value<double>("the clock");
  c.frames.frames_written = r.value<std::int32_t>("the frame series");
  c.frames.next_time_event = long(r.value<std::int64_t>("the frame series"));
  const std::uint64_t entries = r.value<std::uint64_t>("the frame series");
  for (std::uint64_t k = 0; k < entries; ++k) {
    const double time_s = r.value<double>("the frame series");
    c.frames.series.emplace_back(time_s, r.text("the frame series"));
  }
  c.has_gauges = r.value<std::uint8_t>("the gauges") != 0;
  c.gauges.rows = r.value<std::int32_t>("the gauges");
  c.gauges.bytes = r.value<std::uint64_t>("the gauges");
  c.gauges.next_event = long(r.value<std::int64_t>("the gauges"));
  const std::uint64_t filters = r.value<std::uint64_t>("the gauges");
  for (std::uint64_t k = 0; k < filters; ++k) {
    FilterState& filter = c.gauges.filters.emplace_back();
    filter.y = r.value<double>("the gauges");
    filter.last_time_s = r.value<double>("the gauges");
    filter.started = r.value<std::uint8_t>("the gauges") != 0;
  }
  c.next_checkpoint_event = long(r.value<std::int64_t>("the checkpoint schedule"));
  const std::uint64_t sections = r.value<std::uint64_t>("the solver state");
  for (std::uint64_t k = 0; k < sections; ++k) {
    StateSection& section = c.state.sections.emplace_back();
    section.name = r.text("the solver state");
    section.element_size = r.value<std::uint32_t>("the solver state");
    section.count = r.value<std::uint64_t>("the solver state");
    const std::uint64_t size = r.value<std::uint64_t>("the solver state");
    if (size != std::uint64_t(section.element_size) * section.count || size > body - r.position()) {
      throw CheckpointError("checkpoint " + name + " is damaged: section '" + section.name +
                            "' has an impossible size");
    }
    section.bytes.resize(std::size_t(size));
    r.bytes(section.bytes.data(), section.bytes.size(), "the solver state");
  }
  if (r.position() != body) {
    throw CheckpointError("checkpoint " + name + " is damaged: bytes follow its last section");
  }
  return c;
}

std::uint64_t setup_hash(std::string_view scene_text, std::string_view options) {
  Fnv1a hash;
  hash.add(scene_text.data(), scene_text.size());
  const char separator = '\0';
  hash.add(&separator, 1);
  hash.add(options.data(), options.size());
  return hash.hash;
}

}  // namespace surge
