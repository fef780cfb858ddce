#include "sim/io/gauge_recorder.h"

#include <fcntl.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
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

GaugeRecorder::GaugeRecorder(Simulation& simulation, const std::vector<GaugeDefinition>& gauges,
                             const GaugeOutput& output, std::filesystem::path path, double start_time_s)
    : simulation_(simulation),
      path_(std::move(path)),
      schedule_(as_written(output.every_time),
                long(std::floor(start_time_s / as_written(output.every_time) + 1e-9)) + 1) {
  if (!simulation_.set_gauges(gauge_probes(gauges)))
    throw std::invalid_argument("gauges apply to the SPH solvers; this simulation has none");
  const bool filtered = output.filter_time > 0;
  if (filtered) {
    std::uint32_t values = 0;
    for (const GaugeDefinition& gauge : gauges) values += gauge_value_count(gauge.kind);
    filters_.assign(values, FirstOrderFilter(output.filter_time));
  }
  temporary_ = path_;
  temporary_ += ".tmp";
  std::error_code ignored;
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ignored);
  in_flight_ = std::make_unique<TemporaryFileInFlight>(temporary_);
  const int fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write '" + path_.string() + "': " + reason_of(errno));
  file_ = std::make_unique<FileOutputBuffer>(fd);
  out_.rdbuf(file_.get());
  std::string header;
  for (const std::string& column : columns(gauges, filtered)) header += (header.empty() ? "" : ",") + column;
  out_ << header << '\n' << std::flush;
}

GaugeRecorder::~GaugeRecorder() {
  // Not finished (an exception unwinds the run): the rows so far stay in the .tmp file, as after a crash.
  if (file_) file_->close();
}

void GaugeRecorder::sample_if_due(const StepStatus& status) {
  if (finished_ || !schedule_.take(status.time_s)) return;
  simulation_.sample_gauges(values_);
  std::string row = shortest(status.time_s);
  for (std::size_t k = 0; k < values_.size(); ++k) {
    row += ',' + shortest(values_[k]);
    if (!filters_.empty()) row += ',' + shortest(float(filters_[k].update(values_[k], status.time_s)));
  }
  out_ << row << '\n' << std::flush;
  if (!out_) throw std::runtime_error("cannot write '" + path_.string() + "': " + reason_of(file_->error()));
  ++rows_;
}

void GaugeRecorder::finish() {
  if (finished_) return;
  finished_ = true;
  if (!file_->close() || !out_)
    throw std::runtime_error("cannot write '" + path_.string() + "': " + reason_of(file_->error()));
  std::error_code error;
  std::filesystem::rename(temporary_, path_, error);
  if (error) throw std::runtime_error("cannot write '" + path_.string() + "': " + error.message());
  in_flight_.reset();
}

}  // namespace surge
