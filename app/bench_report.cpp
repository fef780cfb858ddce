#include "app/bench_report.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <type_traits>
#include <variant>

#include "app/figure_report.h"
#include "app/machine_info.h"
#include "app/number_format.h"
#include "app/stage_report.h"
#include "sim/core/gpu_info.h"

namespace surge::app {
namespace {

constexpr int kCountWidth = 12;
constexpr int kBackendWidth = 16;
constexpr int kBusWidth = 14;
constexpr int kSpeedupWidth = 9;
constexpr int kStepWidth = 10;
constexpr int kRateWidth = 18;
constexpr int kStageWidth = 20;

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> buffer{};
  std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer.data();
}

// CUDA encodes versions as 1000 * major + 10 * minor (13000 = 13.0).
std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// A float as the shortest decimal that reads back as the same float: 0.001, not 0.0010000000474974513.
double decimal(float value) {
  std::array<char, 32> text{};
  for (int digits = 6;; ++digits) {
    std::snprintf(text.data(), text.size(), "%.*g", digits, double(value));
    // Nine significant digits always read back exactly; fewer usually do.
    if (digits == 9 || std::strtof(text.data(), nullptr) == value) return std::strtod(text.data(), nullptr);
  }
}

nlohmann::ordered_json vec_json(Vec3f v) {
  return nlohmann::ordered_json::array({decimal(v.x), decimal(v.y), decimal(v.z)});
}

// Floats recorded as the decimal the user would write; units are in the names (NamedValue).
nlohmann::ordered_json parameters_json(const std::vector<NamedValue>& parameters) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const NamedValue& parameter : parameters) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, double>) {
            // A value that came from a float prints as that float's short decimal.
            json[parameter.name] = double(float(value)) == value ? decimal(float(value)) : value;
          } else if constexpr (std::is_same_v<T, Vec3f>) {
            json[parameter.name] = vec_json(value);
          } else {
            json[parameter.name] = value;
          }
        },
        parameter.value);
  }
  return json;
}

// Figures are measurements, not settings: doubles as computed (a count such as 2^36 pairs must not be rounded
// to the float decimal 68719480000).
nlohmann::ordered_json figures_json(const std::vector<NamedValue>& figures) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const NamedValue& figure : figures) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, Vec3f>) {
            json[figure.name] =
                nlohmann::ordered_json::array({double(value.x), double(value.y), double(value.z)});
          } else {
            json[figure.name] = value;
          }
        },
        figure.value);
  }
  return json;
}

nlohmann::ordered_json machine_json() {
  const MachineInfo machine = query_machine();
  return {{"hostname", machine.hostname},
          {"cpu_model", machine.cpu_model},
          {"logical_cores", machine.logical_cores},
          {"openmp_threads", machine.openmp_threads}};
}

nlohmann::ordered_json gpu_json() {
  const std::optional<GpuInfo> gpu = query_gpu();
  if (!gpu) return nullptr;
  return {
      {"name", gpu->name},
      {"compute_capability", std::to_string(gpu->compute_major) + "." + std::to_string(gpu->compute_minor)},
      {"multiprocessors", gpu->multiprocessors},
      {"memory_bytes", gpu->total_memory},
      {"driver_version", gpu->driver_string()},
      {"runtime_version", cuda_version_string(gpu->runtime_version)}};
}

nlohmann::ordered_json run_json(const BenchRun& run) {
  nlohmann::ordered_json stages = nlohmann::ordered_json::object();
  for (const StageShare& stage : stage_shares(run.stages)) {
    stages[stage.name] = {{"ms_per_step", stage.ms_per_step}, {"share", stage.share}};
  }
  nlohmann::ordered_json json = {
      {"particles", run.fluid_particles},
      {"boundary_particles", run.boundary_particles},
      {"backend", run.backend},
      {"steps", run.steps},
      {"ms_per_step", run.ms_per_step()},
      {"particle_steps_per_s", run.particle_steps_per_s()},
      {"stages", stages},
      {"bus_bytes_per_step", run.bus_bytes_per_step()},
      {"bus_gb_per_s", run.bus_gb_per_s()},
      {"speedup_over_cpu", run.speedup_over_cpu > 0 ? nlohmann::ordered_json(run.speedup_over_cpu)
                                                    : nlohmann::ordered_json(nullptr)},
      {"parameters", parameters_json(run.parameters)}};
  if (!run.figures.empty()) {
    json["figures"] = figures_json(run.figures);
    json["rates"] = figures_json(rates_of(run.figures, run.steps, run.seconds));
  }
  if (run.frames) {
    const BenchFrames& f = *run.frames;
    json["frames"] = {{"width", f.width},
                      {"height", f.height},
                      {"frames", f.frames},
                      {"ms_per_frame", f.ms_per_frame},
                      {"fps", f.ms_per_frame > 0 ? 1e3 / f.ms_per_frame : 0.0},
                      {"draw_ms_per_frame", f.draw_ms_per_frame},
                      {"bus_bytes_per_frame", f.bus_bytes_per_frame},
                      {"renderer", f.renderer}};
  }
  return json;
}

}  // namespace

void print_bench_header(std::ostream& out) {
  out << std::setw(kCountWidth) << "fluid" << std::setw(kCountWidth) << "boundary" << std::setw(kBackendWidth)
      << "backend" << std::setw(kStepWidth) << "ms/step" << std::setw(kRateWidth) << "particle-steps/s";
  for (const char* stage : kStageNames) out << std::setw(kStageWidth) << std::string(stage) + " ms (%)";
  out << std::setw(kBusWidth) << "bus B/step" << std::setw(kBusWidth) << "bus GB/s"
      << std::setw(kSpeedupWidth) << "vs cpu" << '\n';
}

void print_bench_row(std::ostream& out, const BenchRun& run) {
  out << std::setw(kCountWidth) << with_thousands(std::int64_t(run.fluid_particles)) << std::setw(kCountWidth)
      << with_thousands(std::int64_t(run.boundary_particles)) << std::setw(kBackendWidth) << run.backend
      << std::setw(kStepWidth) << fixed(run.ms_per_step(), 3) << std::setw(kRateWidth)
      << engineering(run.particle_steps_per_s());
  for (const StageShare& stage : stage_shares(run.stages)) {
    out << std::setw(kStageWidth)
        << fixed(stage.ms_per_step, 3) + " (" + fixed(100.0 * stage.share, 1) + "%)";
  }
  out << std::setw(kBusWidth) << with_thousands(std::int64_t(run.bus_bytes_per_step() + 0.5))
      << std::setw(kBusWidth) << (run.bus_ms > 0 ? fixed(run.bus_gb_per_s(), 2) : std::string("-"))
      << std::setw(kSpeedupWidth)
      << (run.speedup_over_cpu > 0 ? fixed(run.speedup_over_cpu, 2) + "x" : std::string("-"));
  out << '\n';
  // Iterative solvers: their per-step means over the timed steps (iterations, error reached), one line.
  std::string means;
  for (const NamedValue& f : run.figures) {
    const std::string& name = f.name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "_mean") == 0)
      means += "  " + name.substr(0, name.size() - 5) + " " + significant(std::get<double>(f.value), 4);
  }
  if (!means.empty())
    out << std::setw(kCountWidth) << ""
        << "  per step:" << means << '\n';
  const std::vector<NamedValue> rates = rates_of(run.figures, run.steps, run.seconds);
  if (!rates.empty()) {
    out << std::setw(kCountWidth) << ""
        << "  rates:";
    for (const NamedValue& rate : rates)
      out << "  " << rate.name << ' ' << engineering(std::get<double>(rate.value));
    out << '\n';
  }
  out << std::flush;
}

nlohmann::ordered_json bench_json(const BenchRecord& record) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const BenchRun& run : record.runs) runs.push_back(run_json(run));
  return {{"surge", {{"version", SURGE_VERSION}, {"commit", SURGE_GIT_COMMIT}}},
          {"date", utc_now_iso8601()},
          {"command_line", record.command_line},
          {"machine", machine_json()},
          {"gpu", gpu_json()},
          {"scene",
           {{"path", std::filesystem::absolute(record.scene_path).lexically_normal().string()},
            {"name", record.scene_name}}},
          {"warmup_steps", record.warmup_steps},
          {"runs", runs}};
}

}  // namespace surge::app
