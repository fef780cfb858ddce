// The `surge` Python module (docs/python.md): a scene loaded from a file or a dict, stepped on any backend,
// its particle arrays read in place: NumPy views of the CPU backend's own memory, and objects with
// __cuda_array_interface__ (CuPy, PyTorch, Numba read them without a copy) on the GPU, and on either backend
// DLPack tensors (torch.from_dlpack, numpy.from_dlpack, cupy.from_dlpack, JAX) of the same memory. Live
// parameters, stage times and the transfer ledger are there as in the viewer; bench and validate run the
// commands and return their JSON as dicts.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <toml++/toml.h>
#include <unistd.h>
#if SURGE_HAVE_DLPACK
#include <dlpack/dlpack.h>
#endif

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "app/backend_choice.h"
#include "app/bench_command.h"
#include "app/cpu_threads.h"
#include "app/data_files.h"
#include "app/exit_codes.h"
#include "app/validate_command.h"
#include "sim/backend/simulation.h"
#include "sim/scene/scene.h"

namespace py = pybind11;

namespace surge::python {
namespace {

// ---- Scenes from a file, a dict, and overrides of single keys

// A str or os.PathLike as a path.
std::filesystem::path to_path(const py::object& path) {
  return py::module_::import("os").attr("fspath")(path).cast<std::string>();
}

// A Python value as a TOML node: bool, int, float, str, list, dict (nested tables).
toml::table to_table(const py::dict& dict, const std::string& where);

void insert_value(toml::table& table, const std::string& key, const py::handle& value,
                  const std::string& where) {
  const std::string path = where.empty() ? key : where + "." + key;
  if (py::isinstance<py::bool_>(value)) {
    table.insert_or_assign(key, value.cast<bool>());
  } else if (py::isinstance<py::int_>(value)) {
    table.insert_or_assign(key, value.cast<long long>());
  } else if (py::isinstance<py::float_>(value)) {
    table.insert_or_assign(key, value.cast<double>());
  } else if (py::isinstance<py::str>(value)) {
    table.insert_or_assign(key, value.cast<std::string>());
  } else if (py::isinstance<py::dict>(value)) {
    table.insert_or_assign(key, to_table(value.cast<py::dict>(), path));
  } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    toml::array array;
    for (const py::handle item : value) {
      if (py::isinstance<py::dict>(item)) {
        array.push_back(to_table(item.cast<py::dict>(), path));
      } else {
        toml::table holder;
        insert_value(holder, "item", item, path);
        array.push_back(*holder.get("item"));
      }
    }
    table.insert_or_assign(key, std::move(array));
  } else {
    throw py::type_error("scene key '" + path + "': a " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))) +
                         " is not a TOML value (bool, int, float, str, list or dict)");
  }
}

toml::table to_table(const py::dict& dict, const std::string& where) {
  toml::table table;
  for (const auto& [key, value] : dict) insert_value(table, py::str(key), value, where);
  return table;
}

// "fluid.viscosity_alpha" = 0.05 into the document: the dotted key names the table. A key inside an array
// of tables ([[fluid.block]]) is not reachable so; give the whole scene as a dict for that.
void apply_override(toml::table& document, const std::string& dotted, const py::handle& value) {
  toml::table* table = &document;
  std::string rest = dotted;
  for (std::size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1)) {
    const std::string name = rest.substr(0, dot);
    toml::node* node = table->get(name);
    if (node == nullptr) {
      table->insert(name, toml::table{});
      node = table->get(name);
    }
    if (!node->is_table())
      throw py::key_error("override '" + dotted + "': '" + name + "' is not a table in the scene");
    table = node->as_table();
  }
  insert_value(*table, rest, value, dotted.substr(0, dotted.size() - rest.size()));
}

std::string to_text(const toml::table& document) {
  std::ostringstream text;
  text << document;
  return text.str();
}

// The scene: `source` a path (str or os.PathLike) or a dict of the file's tables; `overrides` dotted keys.
// Overrides are applied to the parsed file and the result read again, so every check of the loader runs; a
// bad value's message names the key and says the line is of the scene with its overrides.
Scene make_scene(const py::object& source, const py::dict& overrides) {
  if (py::isinstance<py::dict>(source)) {
    toml::table document = to_table(source.cast<py::dict>(), "");
    for (const auto& [key, value] : overrides) apply_override(document, py::str(key), value);
    return parse_scene(to_text(document), std::filesystem::current_path() / "scene-from-dict.toml");
  }
  const std::filesystem::path path = to_path(source);
  if (overrides.empty()) return load_scene(path);
  std::ifstream in(path);
  if (!in) return load_scene(path);  // its message names the file and the reason
  std::ostringstream text;
  text << in.rdbuf();
  toml::table document;
  try {
    document = toml::parse(text.str(), path.string());
  } catch (const toml::parse_error&) {
    return load_scene(path);  // the loader's own message, with line and column
  }
  for (const auto& [key, value] : overrides) apply_override(document, py::str(key), value);
  // Read from the scene's own path, so relative paths in it (meshes, motion tables) still resolve.
  return parse_scene(to_text(document),
                     path.parent_path() / (path.stem().string() + " (with overrides).toml"));
}

// ---- Arrays in place

// A device array as CuPy, PyTorch and Numba take it: __cuda_array_interface__ version 3, the data already
// complete (the simulation waited for its steps), so no stream is named. `owner` keeps the simulation alive.
struct CudaArray {
  std::uintptr_t pointer = 0;
  std::vector<py::ssize_t> shape;
  std::vector<py::ssize_t> strides;  // bytes
  std::string typestr;               // "<f4", "<u4"
  py::object owner;

  py::dict interface() const {
    py::dict d;
    d["shape"] = py::tuple(py::cast(shape));
    d["strides"] = py::tuple(py::cast(strides));
    d["typestr"] = typestr;
    d["data"] = py::make_tuple(pointer, true);  // read-only: the next step rewrites it
    d["version"] = 3;
    d["stream"] = py::none();
    return d;
  }
};

struct PySimulation {
  std::unique_ptr<Simulation> simulation;
  int device = 0;  // the CUDA device of a GPU backend
  std::string backend_description;
  std::string solver;
  std::string name;
  ParticleFrame copy;  // only for solvers without arrays in place (n-body)
};

enum class Field { position, velocity, density, pressure, id };

// The backend's array of `field`; null where the solver keeps none (a grain's density and pressure).
const void* field_data(const ParticleArrays& arrays, Field field) {
  switch (field) {
    case Field::position:
      return arrays.position;
    case Field::velocity:
      return arrays.velocity;
    case Field::density:
      return arrays.density;
    case Field::pressure:
      return arrays.pressure;
    case Field::id:
      return arrays.id;
  }
  return nullptr;
}

py::object field_array(py::object self_object, Field field) {
  PySimulation& self = self_object.cast<PySimulation&>();
  const std::optional<ParticleArrays> arrays = self.simulation->particle_arrays();
  const void* data = nullptr;
  std::size_t count = 0;
  bool on_device = false;
  if (arrays) {
    count = arrays->count;
    on_device = arrays->on_device;
    data = field_data(*arrays, field);
    if (data == nullptr) return py::none();  // grains have no density or pressure array
  } else {
    // n-body bodies are kept as (x, m) in double or float: a copy in the frame's layout instead.
    self.simulation->download(self.copy);
    count = self.copy.size();
    switch (field) {
      case Field::position:
        data = self.copy.position.data();
        break;
      case Field::velocity:
        data = self.copy.velocity.data();
        break;
      case Field::density:
        data = self.copy.density.data();
        break;
      case Field::pressure:
        data = self.copy.pressure.data();
        break;
      case Field::id:
        data = self.copy.id.data();
        break;
    }
  }
  const bool vector = field == Field::position || field == Field::velocity;
  const std::vector<py::ssize_t> shape =
      vector ? std::vector<py::ssize_t>{py::ssize_t(count), 3} : std::vector<py::ssize_t>{py::ssize_t(count)};
  // Vec4f rows: three floats of each 16-byte row (w is the solver's own).
  const std::vector<py::ssize_t> strides =
      vector ? std::vector<py::ssize_t>{16, 4} : std::vector<py::ssize_t>{4};
  const bool is_id = field == Field::id;
  if (on_device) {
    return py::cast(CudaArray{reinterpret_cast<std::uintptr_t>(data), shape, strides, is_id ? "<u4" : "<f4",
                              self_object});
  }
  py::array array = is_id ? py::array(py::dtype::of<std::uint32_t>(), shape, strides, data, self_object)
                          : py::array(py::dtype::of<float>(), shape, strides, data, self_object);
  // Read-only: a write would bypass the solver (and the next step overwrites it anyway).
  py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return array;
}

#if SURGE_HAVE_DLPACK
// ---- DLPack: one particle array as a DLPack tensor (libdlpack-dev 0.6, the protocol's unversioned
// DLManagedTensor, which NumPy >= 1.22, PyTorch, CuPy and JAX all take). __dlpack__ hands out a capsule
// named "dltensor" that owns a reference to the simulation, so the memory outlives the Python objects that
// wrap it; like the arrays above it holds until the next step. DLPack 0.6 has no read-only flag: a consumer
// may write into the simulation's memory, which the next step overwrites.
struct DlpackArray {
  void* data = nullptr;
  std::vector<std::int64_t> shape, strides;  // strides in elements, as DLPack counts them
  bool is_uint = false;
  bool on_device = false;
  int device = 0;
  py::object owner;

  py::tuple dlpack_device() const { return py::make_tuple(int(on_device ? kDLCUDA : kDLCPU), device); }

  // The producer's side of the protocol; `stream` is accepted and not needed: the simulation has waited for
  // its steps before the array was made, so the memory is complete on every stream.
  py::capsule dlpack(const py::object& stream) const {
    (void)stream;
    struct Owned {
      DLManagedTensor tensor{};
      std::vector<std::int64_t> shape, strides;
      PyObject* owner = nullptr;
    };
    auto* owned = new Owned{{}, shape, strides, owner.ptr()};
    Py_INCREF(owned->owner);
    DLTensor& t = owned->tensor.dl_tensor;
    t.data = data;
    t.device = {on_device ? kDLCUDA : kDLCPU, device};
    t.ndim = int(owned->shape.size());
    t.dtype = {std::uint8_t(is_uint ? kDLUInt : kDLFloat), 32, 1};
    t.shape = owned->shape.data();
    t.strides = owned->strides.data();
    t.byte_offset = 0;
    owned->tensor.manager_ctx = owned;
    // The consumer calls this when it lets go, from any thread, with or without the GIL.
    owned->tensor.deleter = [](DLManagedTensor* tensor) {
      auto* o = static_cast<Owned*>(tensor->manager_ctx);
      {
        py::gil_scoped_acquire gil;
        Py_XDECREF(o->owner);
      }
      delete o;
    };
    // A capsule nobody consumed (still named "dltensor") deletes its tensor; a consumer renames it.
    return py::capsule(&owned->tensor, "dltensor", [](PyObject* capsule) {
      if (!PyCapsule_IsValid(capsule, "dltensor")) return;
      auto* tensor = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
      if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
    });
  }
};

py::object dlpack_array(py::object self_object, Field field) {
  PySimulation& self = self_object.cast<PySimulation&>();
  const std::optional<ParticleArrays> arrays = self.simulation->particle_arrays();
  if (!arrays) {
    throw std::invalid_argument(
        "this simulation keeps its particles in another layout (n-body bodies): read the copies "
        "(positions, ...) instead");
  }
  const void* data = field_data(*arrays, field);
  if (data == nullptr) return py::none();  // grains have no density or pressure array
  const bool vector = field == Field::position || field == Field::velocity;
  const auto n = std::int64_t(arrays->count);
  DlpackArray array;
  array.data = const_cast<void*>(data);
  array.shape = vector ? std::vector<std::int64_t>{n, 3} : std::vector<std::int64_t>{n};
  array.strides = vector ? std::vector<std::int64_t>{4, 1} : std::vector<std::int64_t>{1};  // Vec4f rows
  array.is_uint = field == Field::id;
  array.on_device = arrays->on_device;
  array.device = self.device;
  array.owner = self_object;
  return py::cast(array);
}

Field parse_field(const std::string& name) {
  if (name == "positions") return Field::position;
  if (name == "velocities") return Field::velocity;
  if (name == "density") return Field::density;
  if (name == "pressure") return Field::pressure;
  if (name == "ids") return Field::id;
  throw std::invalid_argument("unknown array '" + name +
                              "': expected positions, velocities, density, pressure or ids");
}
#endif

py::dict status_dict(const StepStatus& status) {
  py::dict d;
  d["step"] = status.step;
  d["time"] = status.time_s;
  d["dt"] = status.dt_s;
  d["unstable"] = status.instability != Instability::none;
  if (status.instability != Instability::none) d["diagnosis"] = status.diagnosis();
  return d;
}

void check_stable(const StepStatus& status) {
  if (status.instability != Instability::none)
    throw std::runtime_error("the simulation went unstable: " + status.diagnosis());
}

py::object named_value(const NamedValue& value) {
  return std::visit(
      [](const auto& v) -> py::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Vec3f>)
          return py::make_tuple(v.x, v.y, v.z);
        else
          return py::cast(v);
      },
      value.value);
}

// ---- bench and validate: the commands themselves, their JSON returned

std::filesystem::path temporary_json(const char* what) {
  return std::filesystem::temp_directory_path() /
         ("surge-" + std::string(what) + "-" + std::to_string(getpid()) + ".json");
}

py::object read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return py::module_::import("json").attr("loads")(text.str());
}

py::object bench(const py::object& scene, std::vector<long> particles, long steps, long warmup,
                 const std::string& backend, const std::string& solver) {
  app::BenchOptions options;
  options.scene_path = to_path(scene);
  options.particles = std::move(particles);
  options.steps = steps;
  options.warmup = warmup;
  options.backend = backend;
  if (!solver.empty()) options.solvers = {solver};
  options.json_path = temporary_json("bench");
  options.command_line = "surge.bench (Python)";
  const int code = app::run_bench(options);
  py::object result = code == app::kExitSuccess ? read_json(options.json_path) : py::none();
  std::filesystem::remove(options.json_path);  // read or not, the temporary file goes
  if (code != app::kExitSuccess) throw std::runtime_error("surge bench exited " + std::to_string(code));
  return result;
}

py::object validate_dam_break(const std::string& solver, int resolution, const std::string& backend,
                              const std::filesystem::path& out_dir, bool quiet) {
  app::ValidateOptions options;
  options.solver = solver;
  options.resolution = resolution;
  options.backend = backend;
  options.out_dir = out_dir;
  options.quiet = quiet;
  options.command_line = "surge.validate_dam_break (Python)";
  const int code = app::run_validate_dam_break(options);
  py::dict result = read_json(app::validation_out_dir(options) / "summary.json");
  result["exit_code"] = code;
  return result;
}

}  // namespace
}  // namespace surge::python

PYBIND11_MODULE(_surge, m) {
  using namespace surge;
  using namespace surge::python;
  m.doc() = "Surge: GPU particle and fluid simulation (docs/python.md)";
  m.attr("__version__") = std::string(SURGE_VERSION) + "+" + SURGE_GIT_COMMIT;
  // The scenes shipped with this build or install, for surge.data_file("scenes/dam_break.toml").
  m.def(
      "data_file", [](const std::string& relative) { return app::data_file(relative); }, py::arg("relative"),
      "A shipped file: the working directory's copy, else the installed or source one");
  m.def(
      "set_threads", [](int threads) { return app::apply_cpu_threads(threads).count; }, py::arg("threads"),
      "OpenMP threads of the CPU backend (as --threads)");

  py::class_<CudaArray>(m, "CudaArray",
                        "A particle array in GPU memory, read in place by CuPy (cupy.asarray), PyTorch "
                        "(torch.as_tensor) and Numba through __cuda_array_interface__")
      .def_property_readonly("__cuda_array_interface__", &CudaArray::interface)
      .def_property_readonly("shape", [](const CudaArray& a) { return py::tuple(py::cast(a.shape)); })
      .def_property_readonly("pointer", [](const CudaArray& a) { return a.pointer; });

#if SURGE_HAVE_DLPACK
  py::class_<DlpackArray>(m, "DlpackArray",
                          "A particle array as a DLPack producer (__dlpack__, __dlpack_device__)")
      .def("__dlpack__", &DlpackArray::dlpack, py::arg("stream") = py::none())
      .def("__dlpack_device__", &DlpackArray::dlpack_device)
      .def_property_readonly("shape", [](const DlpackArray& a) { return py::tuple(py::cast(a.shape)); });
  m.attr("has_dlpack") = true;
#else
  m.attr("has_dlpack") = false;
#endif

  py::class_<PySimulation>(m, "Simulation")
      .def(
          py::init([](const py::object& scene, const std::string& backend, long particles,
                      const py::dict& overrides, const std::string& solver) {
            Scene loaded = make_scene(scene, overrides);
            app::apply_solver_override(loaded, solver);
            const SimulationOptions options{.particles_override = particles};
            app::BackendChoice choice =
                app::choose_backend(app::parse_backend_request(backend), loaded, options);
            auto self = std::make_unique<PySimulation>();
            self->backend_description = app::backend_line(choice);
            self->device = choice.gpu ? choice.gpu->device : 0;
            self->simulation = std::move(choice.simulation);
            self->solver = std::string(solver_name(loaded.solver));
            self->name = loaded.name;
            return self;
          }),
          py::arg("scene"), py::arg("backend") = "auto", py::arg("particles") = 0,
          py::arg("overrides") = py::dict(), py::arg("solver") = "",
          "scene: a path or a dict of the scene file's tables. backend: cpu, gpu or auto. particles: a fluid "
          "particle count that replaces the resolution. overrides: {'fluid.viscosity_alpha': 0.05, ...}")
      .def(
          "step",
          [](PySimulation& self, long steps) {
            py::gil_scoped_release release;
            for (long i = 0; i < steps; ++i) self.simulation->step();
            const StepStatus status = self.simulation->status();
            py::gil_scoped_acquire acquire;
            check_stable(status);
            return status_dict(status);
          },
          py::arg("steps") = 1, "Takes `steps` steps; returns the status")
      .def(
          "run",
          [](PySimulation& self, double time) {
            StepStatus status = self.simulation->status();
            {
              py::gil_scoped_release release;
              while (status.time_s < time && status.instability == Instability::none) {
                self.simulation->step();
                status = self.simulation->status();
              }
            }
            check_stable(status);
            return status_dict(status);
          },
          py::arg("time"), "Steps until the simulated time reaches `time`; returns the status")
      .def_property_readonly("status",
                             [](PySimulation& self) { return status_dict(self.simulation->status()); })
      .def_property_readonly("time", [](PySimulation& self) { return self.simulation->status().time_s; })
      .def_property_readonly("name", [](const PySimulation& self) { return self.name; })
      .def_property_readonly("solver", [](const PySimulation& self) { return self.solver; })
      .def_property_readonly("backend", [](const PySimulation& self) { return self.backend_description; })
      .def_property_readonly("count", [](PySimulation& self) { return self.simulation->fluid_count(); })
      .def_property_readonly("on_device",
                             [](PySimulation& self) {
                               const auto arrays = self.simulation->particle_arrays();
                               return arrays && arrays->on_device;
                             })
      .def_property_readonly(
          "arrays_in_place",
          [](PySimulation& self) { return self.simulation->particle_arrays().has_value(); },
          "False where the arrays are copies (n-body)")
      .def_property_readonly("positions", [](py::object self) { return field_array(self, Field::position); })
      .def_property_readonly("velocities", [](py::object self) { return field_array(self, Field::velocity); })
      .def_property_readonly("density", [](py::object self) { return field_array(self, Field::density); })
      .def_property_readonly("pressure", [](py::object self) { return field_array(self, Field::pressure); })
      .def_property_readonly("ids", [](py::object self) { return field_array(self, Field::id); })
#if SURGE_HAVE_DLPACK
      .def(
          "dlpack",
          [](py::object self, const std::string& name) { return dlpack_array(self, parse_field(name)); },
          py::arg("array"),
          "The array (positions, velocities, density, pressure, ids) as a DLPack tensor of the backend's "
          "memory, "
          "for torch.from_dlpack, numpy.from_dlpack, cupy.from_dlpack; valid until the next step")
#endif
      .def("live_parameters",
           [](PySimulation& self) {
             py::list list;
             for (const LiveParameter& p : self.simulation->live_parameters()) {
               py::dict d;
               d["name"] = std::string(p.name);
               d["min"] = p.min;
               d["max"] = p.max;
               d["unit"] = std::string(p.unit);
               d["vector"] = p.vector;
               list.append(d);
             }
             return list;
           })
      .def(
          "set_parameter",
          [](PySimulation& self, const std::string& name, const py::object& value) {
            if (py::isinstance<py::sequence>(value) && py::len(value) == 3) {
              const auto v = value.cast<std::vector<float>>();
              self.simulation->set_parameter(name, Vec3f{v[0], v[1], v[2]});
            } else {
              self.simulation->set_parameter(name, value.cast<double>());
            }
          },
          py::arg("name"), py::arg("value"), "A live parameter, for the following steps (as the viewer)")
      .def("parameters",
           [](PySimulation& self) {
             py::dict d;
             for (const NamedValue& v : self.simulation->parameters()) d[py::str(v.name)] = named_value(v);
             return d;
           })
      .def(
          "stage_times",
          [](PySimulation& self) {
            const StageTimes times = self.simulation->stage_times();
            py::dict d;
            for (int stage = 0; stage < kStageCount; ++stage) d[kStageNames[stage]] = times.ms[stage];
            d["steps"] = times.steps;
            return d;
          },
          "Milliseconds per stage since the start, and the steps they cover")
      .def(
          "ledger",
          [](PySimulation& self) {
            py::list list;
            for (const auto& [key, entry] : self.simulation->ledger().entries()) {
              py::dict d;
              d["direction"] =
                  key.first == CopyDirection::host_to_device ? "host to device" : "device to host";
              d["what"] = key.second;
              d["bytes"] = entry.bytes;
              d["copies"] = entry.copies;
              d["ms"] = entry.ms;
              list.append(d);
            }
            return list;
          },
          "Every copy across the bus so far (the transfer ledger)");

  m.def("bench", &bench, py::arg("scene"), py::arg("particles") = std::vector<long>{}, py::arg("steps") = 100,
        py::arg("warmup") = 20, py::arg("backend") = "auto", py::arg("solver") = "",
        "Runs `surge bench` and returns its JSON as a dict");
  m.def("validate_dam_break", &validate_dam_break, py::arg("solver") = "wcsph", py::arg("resolution") = 20,
        py::arg("backend") = "auto", py::arg("out_dir") = std::filesystem::path(), py::arg("quiet") = true,
        "Runs `surge validate dam-break` and returns its summary.json as a dict, with its exit code");

  py::register_exception<SceneError>(m, "SceneError", PyExc_ValueError);
  py::register_exception<app::InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<ParameterError>(m, "ParameterError", PyExc_ValueError);
}
