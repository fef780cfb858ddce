#include "sim/io/gauge_recorder.h"

#include <fcntl.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace surge {

namespace {

// Shortest text that reads back as the same value.
template <typename T>
std::string shortest(T value) {
  std::array<char, 40> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string reason_of(int error) {
  return error != 0 ? std::strerror(error) : "the write failed";
}

// The first `bytes` bytes of the CSV an interrupted run left: the renamed file when it is complete enough,
// else the .tmp a crash left. Empty optional when neither holds that many.
std::optional<std::string> csv_prefix(const std::filesystem::path& path,
                                      const std::filesystem::path& temporary, std::uint64_t bytes) {
  for (const std::filesystem::path& file : {path, temporary}) {
    std::error_code error;
    const auto size = std::filesystem::file_size(file, error);
    if (error || size < bytes) continue;
    std::ifstream in(file, std::ios::binary);
    std::string text(bytes, '\0');
    if (in.read(text.data(), std::streamsize(bytes))) return text;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> GaugeRecorder::columns(const std::vector<GaugeDefinition>& gauges, bool filtered) {
  std::vector<std::string> names{"time_s"};
  for (const GaugeDefinition& gauge : gauges) {
    for (const std::string& name : gauge_columns(gauge.kind, gauge.name)) {
      names.push_back(name);
      if (filtered) names.push_back(name + "_filtered");
    }
  }
  return names;
}

GaugeRecorder::GaugeRecorder(GaugeSource& source, const std::vector<GaugeDefinition>& gauges,
                             const GaugeOutput& output, std::filesystem::path path, double start_time_s,
                             const GaugeRecorderState* resume)
    : source_(source),
      path_(std::move(path)),
      schedule_(as_written(output.every_time),
                long(std::floor(start_time_s / as_written(output.every_time) + 1e-9)) + 1) {
  if (!source_.set_gauges(gauge_probes(gauges)))
    throw std::invalid_argument("gauges apply to the SPH solvers; this simulation has none");
  const bool filtered = output.filter_time > 0;
  if (filtered) {
    std::uint32_t values = 0;
    for (const GaugeDefinition& gauge : gauges) values += gauge_value_count(gauge.kind);
    filters_.assign(values, FirstOrderFilter(output.filter_time));
  }
  if (resume != nullptr) {
    // The schedule and filters go on, on every rank of a distributed run (each samples; rank 0 writes).
    if (resume->filters.size() != filters_.size()) {
      throw std::runtime_error("cannot resume the gauges: the checkpoint filters " +
                               std::to_string(resume->filters.size()) + " values, this scene " +
                               std::to_string(filters_.size()));
    }
    rows_ = resume->rows;
    schedule_ = TimeSchedule(as_written(output.every_time), resume->next_event);
    for (std::size_t k = 0; k < filters_.size(); ++k) filters_[k].restore(resume->filters[k]);
  }
  if (path_.empty()) return;  // samples, writes nothing (the header's comment)
  temporary_ = path_;
  temporary_ += ".tmp";
  std::string header;
  for (const std::string& column : columns(gauges, filtered)) header += (header.empty() ? "" : ",") + column;
  header += '\n';
  // A resumed run starts from the rows its checkpoint had written; they are read before the .tmp, which may
  // be where they are, is opened afresh.
  std::string kept = header;
  if (resume != nullptr) {
    std::optional<std::string> prefix = csv_prefix(path_, temporary_, resume->bytes);
    if (!prefix) {
      throw std::runtime_error("cannot resume the gauges: neither '" + path_.string() +
                               "' nor its .tmp holds the " + std::to_string(resume->bytes) +
                               " bytes the checkpoint had written");
    }
    if (!prefix->starts_with(header)) {
      throw std::runtime_error("cannot resume the gauges: '" + path_.string() +
                               "' has other columns than this scene's gauges");
    }
    kept = std::move(*prefix);
  }
  std::error_code ignored;
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ignored);
  in_flight_ = std::make_unique<TemporaryFileInFlight>(temporary_);
  const int fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write '" + path_.string() + "': " + reason_of(errno));
  file_ = std::make_unique<FileOutputBuffer>(fd);
  out_.rdbuf(file_.get());
  out_ << kept << std::flush;
  if (!out_) throw std::runtime_error("cannot write '" + path_.string() + "': " + reason_of(file_->error()));
  bytes_ = kept.size();
}

GaugeRecorderState GaugeRecorder::state() const {
  GaugeRecorderState state{rows_, bytes_, schedule_.next_event(), {}};
  for (const FirstOrderFilter& filter : filters_) state.filters.push_back(filter.state());
  return state;
}

GaugeRecorder::~GaugeRecorder() {
  // Not finished (an exception unwinds the run): the rows so far stay in the .tmp file, as after a crash.
  if (file_) file_->close();
}

void GaugeRecorder::sample_if_due(const StepStatus& status) {
  if (finished_ || !schedule_.take(status.time_s)) return;
  source_.sample_gauges(values_);
  ++rows_;
  if (!file_) return;
  std::string row = shortest(status.time_s);
  for (std::size_t k = 0; k < values_.size(); ++k) {
    row += ',' + shortest(values_[k]);
    if (!filters_.empty()) row += ',' + shortest(float(filters_[k].update(values_[k], status.time_s)));
  }
  row += '\n';
  out_ << row << std::flush;
  if (!out_) throw std::runtime_error("cannot write '" + path_.string() + "': " + reason_of(file_->error()));
  bytes_ += row.size();
}

void GaugeRecorder::finish() {
  if (finished_) return;
  finished_ = true;
  if (!file_) return;
  if (!file_->close() || !out_)
    throw std::runtime_error("cannot write '" + path_.string() + "': " + reason_of(file_->error()));
  std::error_code error;
  std::filesystem::rename(temporary_, path_, error);
  if (error) throw std::runtime_error("cannot write '" + path_.string() + "': " + error.message());
  in_flight_.reset();
}

}  // namespace surge
