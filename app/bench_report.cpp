#include "app/bench_report.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <type_traits>
#include <variant>

#include "app/machine_info.h"
#include "app/number_format.h"
#include "app/stage_report.h"
#include "sim/backend/gpu_info.h"

namespace surge::app {
namespace {

constexpr int kCountWidth = 12;
constexpr int kBackendWidth = 9;
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
  nlohmann::ordered_json out = {{"particles", run.fluid_particles},
                                {"boundary_particles", run.boundary_particles},
                                {"backend", run.backend},
                                {"steps", run.steps},
                                {"ms_per_step", run.ms_per_step()},
                                {"particle_steps_per_s", run.particle_steps_per_s()},
                                {"stages", stages},
                                {"parameters", parameters_json(run.parameters)}};
  if (run.frames) {
    const BenchFrames& f = *run.frames;
    out["frames"] = {{"width", f.width},
                     {"height", f.height},
                     {"frames", f.frames},
                     {"ms_per_frame", f.ms_per_frame},
                     {"fps", f.ms_per_frame > 0 ? 1e3 / f.ms_per_frame : 0.0},
                     {"draw_ms_per_frame", f.draw_ms_per_frame},
                     {"bus_bytes_per_frame", f.bus_bytes_per_frame},
                     {"renderer", f.renderer}};
  }
  return out;
}

}  // namespace

void print_bench_header(std::ostream& out) {
  out << std::setw(kCountWidth) << "fluid" << std::setw(kCountWidth) << "boundary" << std::setw(kBackendWidth)
      << "backend" << std::setw(kStepWidth) << "ms/step" << std::setw(kRateWidth) << "particle-steps/s";
  for (const char* stage : kStageNames) out << std::setw(kStageWidth) << std::string(stage) + " ms (%)";
  out << '\n';
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
  out << '\n' << std::flush;
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
