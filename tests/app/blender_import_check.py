"""Runs inside Blender (blender -b --factory-startup --python-exit-code 1 --python THIS -- ADDON FLUID GRAINS BODIES):
imports Surge PLY series with assets/blender/surge_import.py and compares the mesh with the files, read here
independently with struct. FLUID, GRAINS and BODIES are directories holding one series of two or more frames."""

import glob
import importlib.util
import math
import os
import struct
import sys

import bpy

addon_path, fluid_dir, grains_dir, bodies_dir = sys.argv[sys.argv.index("--") + 1:]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree (Blender ignores PYTHONDONTWRITEBYTECODE)
spec = importlib.util.spec_from_file_location("surge_import", addon_path)
surge_import = importlib.util.module_from_spec(spec)
spec.loader.exec_module(surge_import)

SIZES = {"float": ("f", 4), "uint": ("I", 4)}


def read_ply(path):
    """The vertices of a Surge PLY as a list of {property: value}, by a reader that shares nothing with the add-on."""
    with open(path, "rb") as file:
        data = file.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    names, codes, count = [], "<", 0
    for line in data[:end].decode().splitlines():
        words = line.split()
        if words[0] == "element":
            count = int(words[2])
        elif words[0] == "property":
            names.append(words[2])
            codes += SIZES[words[1]][0]
    size = struct.calcsize(codes)
    assert len(data) - end == count * size, f"{path}: size does not match its header"
    return [dict(zip(names, struct.unpack_from(codes, data, end + i * size))) for i in range(count)]


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def check_frame(obj, path, extra_floats):
    """The mesh holds exactly the file's particles, in file order, with every attribute's type and values."""
    particles = read_ply(path)
    mesh = obj.data
    check(len(mesh.vertices) == len(particles),
          f"{obj.name}: {len(mesh.vertices)} vertices, {path} has {len(particles)}")
    types = {"velocity": "FLOAT_VECTOR", "density": "FLOAT", "pressure": "FLOAT", "id": "INT", "speed": "FLOAT"}
    types.update({name: "FLOAT" for name in extra_floats})
    for name, data_type in types.items():
        attribute = mesh.attributes.get(name)
        check(attribute is not None, f"{obj.name}: no attribute '{name}'")
        check((attribute.data_type, attribute.domain) == (data_type, "POINT"),
              f"{name}: {attribute.data_type} on {attribute.domain}, expected {data_type} on POINT")
    for i in sorted({0, 1, len(particles) // 2, len(particles) - 1}):
        p = particles[i]
        position = tuple(mesh.vertices[i].co)
        check(position == (p["x"], p["y"], p["z"]), f"particle {i}: position {position} != {p}")
        velocity = tuple(mesh.attributes["velocity"].data[i].vector)
        check(velocity == (p["vx"], p["vy"], p["vz"]), f"particle {i}: velocity {velocity} != {p}")
        for name in ["density", "pressure", "id"] + list(extra_floats):
            check(mesh.attributes[name].data[i].value == p[name],
                  f"particle {i}: {name} {mesh.attributes[name].data[i].value} != {p[name]}")
        speed = math.sqrt(p["vx"] ** 2 + p["vy"] ** 2 + p["vz"] ** 2)
        check(math.isclose(mesh.attributes["speed"].data[i].value, speed, rel_tol=1e-6, abs_tol=1e-9),
              f"particle {i}: speed {mesh.attributes['speed'].data[i].value} != {speed}")
    return particles


def frames_of(directory):
    frames = sorted(glob.glob(os.path.join(directory, "*_[0-9]*.ply")))
    check(len(frames) >= 2, f"{directory}: need two frames, found {frames}")
    return frames


def check_series(directory, extra_floats, frame_start=1):
    """Import, check the first frame, step the scene to the last frame and check again: positions must follow;
    then past the end and before the start, which hold the last and the first file."""
    frames = frames_of(directory)
    obj = surge_import.import_frames(directory, frame_start=frame_start)
    scene = bpy.context.scene
    frame_end = frame_start + len(frames) - 1
    check((scene.frame_start, scene.frame_end) == (frame_start, frame_end),
          f"frame range {scene.frame_start}..{scene.frame_end}, expected {frame_start}..{frame_end}")
    scene.frame_set(frame_start)
    first = check_frame(obj, frames[0], extra_floats)
    scene.frame_set(frame_end)
    last = check_frame(obj, frames[-1], extra_floats)
    moved = sum((a["x"], a["y"], a["z"]) != (b["x"], b["y"], b["z"]) for a, b in zip(first, last))
    check(moved > len(first) // 2, f"{directory}: only {moved} of {len(first)} particles moved between the frames")
    scene.frame_set(frame_end + 5)  # outside the series the nearest file is held
    check_frame(obj, frames[-1], extra_floats)
    scene.frame_set(frame_start - 1)
    check_frame(obj, frames[0], extra_floats)
    scene.frame_set(frame_start)
    print(f"checked {obj.name}: {len(frames)} frames from scene frame {frame_start}, {len(first)} particles, {moved} moved, "
          f"attributes {sorted(obj.data.attributes.keys())}")
    return obj


def instance_scales(obj):
    """The scale of every instance the object's modifiers make (a sphere of radius 1 scaled to the particle's)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    return sorted(instance.matrix_world.to_scale().x for instance in depsgraph.object_instances
                  if instance.is_instance and instance.parent and instance.parent.original == obj)


def check_spheres(obj, expected_radius=None):
    """The sphere modifier makes one sphere per particle, of the radius attribute or of the given radius."""
    modifier = surge_import.add_sphere_instancing(obj)
    if expected_radius is None:
        expected = sorted(value.value for value in obj.data.attributes["radius"].data)
    else:
        expected = [expected_radius] * len(obj.data.vertices)
    scales = instance_scales(obj)
    check(len(scales) == len(expected), f"{obj.name}: {len(scales)} sphere instances for {len(expected)} particles")
    check(all(math.isclose(a, b, rel_tol=0.05 if expected_radius else 1e-5) for a, b in zip(scales, expected)),
          f"{obj.name}: sphere radii {scales[0]}..{scales[-1]}, expected {expected[0]}..{expected[-1]}")
    print(f"spheres on {obj.name}: {len(scales)} instances, radius {scales[0]:.6g}..{scales[-1]:.6g} m "
          f"(expected {expected[0]:.6g}..{expected[-1]:.6g})")


def half_spacing(path):
    """Half the median nearest-neighbour distance, by brute force over all pairs (the add-on uses a k-d tree)."""
    import numpy as np

    points = np.array([(p["x"], p["y"], p["z"]) for p in read_ply(path)])
    nearest = [np.sort(np.linalg.norm(points - point, axis=1))[1] for point in points]
    return 0.5 * float(np.median(nearest))


fluid = check_series(fluid_dir, [])  # left showing the first frame: the particles' initial lattice
check_spheres(fluid, expected_radius=half_spacing(frames_of(fluid_dir)[0]))
grains = check_series(grains_dir, ["radius"])
check_spheres(grains)
check_series(bodies_dir, ["mass"], frame_start=10)

# The menu's operator: picking one frame imports its whole series.
surge_import.register()
frames = frames_of(fluid_dir)
before = set(bpy.data.objects)
check(bpy.ops.import_scene.surge_particles(filepath=frames[-1]) == {"FINISHED"}, "operator did not finish")
(picked,) = set(bpy.data.objects) - before
check(len(frames) == len(surge_import.json.loads(picked["surge_files"])), "the operator did not take the whole series")
print(f"operator: {picked.name} with {len(frames)} frames")

# The operator on a bad file: an error naming the file (raised in background mode), and no new object.
bad = os.path.join(os.path.dirname(os.path.abspath(fluid_dir)), "not_surge.ply")
with open(bad, "w") as file:
    file.write("hello\n")
before = set(bpy.data.objects)
try:
    bpy.ops.import_scene.surge_particles(filepath=bad)
    check(False, "the operator accepted a file that is not a PLY")
except RuntimeError as error:
    check(bad in str(error), f"the operator's error does not name the file: {error}")
    print(f"operator refused: {error}")
check(set(bpy.data.objects) == before, "the refused import left an object")
print("blender_import_check: all checks passed")
