"""Surge: GPU particle and fluid simulation, from Python (docs/python.md).

    import surge
    sim = surge.Simulation(surge.data_file("scenes/dam_break.toml"), backend="cpu", particles=2000)
    sim.step(100)
    x = sim.positions      # (N, 3) float32, a NumPy view of the CPU backend's own memory
    t = torch.from_dlpack(sim.dlpack("positions"))   # the same memory as a DLPack tensor
"""
import os as _os

# libgomp reads OMP_WAIT_POLICY once, when the extension below loads it: waiting OpenMP threads then sleep
# instead of spinning against the rest of the machine (as the surge binary does; README, "CPU threads").
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from ._surge import (  # noqa: E402
    CudaArray,
    InputError,
    ParameterError,
    SceneError,
    Simulation,
    __version__,
    bench,
    data_file,
    has_dlpack,
    set_threads,
    validate_dam_break,
)

__all__ = [
    "CudaArray",
    "InputError",
    "ParameterError",
    "SceneError",
    "Simulation",
    "__version__",
    "bench",
    "data_file",
    "has_dlpack",
    "set_threads",
    "validate_dam_break",
]
