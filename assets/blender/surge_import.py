"""Import Surge's per-frame particle exports (binary PLY) into Blender, with every per-particle attribute.

Blender's own PLY importer keeps positions only; this reads the file itself (numpy), so velocity, density,
pressure, id and, for grains and n-body runs, radius and mass arrive as point attributes of a vertex-only mesh.

A series is ONE object whose vertices and attributes follow the scene frame (a frame-change handler reads the
frame's file when the frame changes). That is what a user rendering a fluid animation expects from a cache:
one thing to select, modify and give a material, memory for one frame rather than for all of them, and a
particle count that may change from frame to frame (emitters, outflow). The price: the add-on (or this script)
must be loaded when the .blend is opened or rendered, since the mesh is rebuilt by Python at each frame.

Scene frame `frame_start + k` shows the series' k-th file; before the first and after the last the nearest file
is held. The object carries `surge_time_s` and `surge_step` of the frame shown (from the PLY's comment line).

Use it three ways (tested with Blender 3.4.1, Debian 12; Blender 4's node-group API differs and is untested):
  - Add-on: Edit > Preferences > Add-ons > Install..., pick this file, enable "Import-Export: Surge particles";
    then File > Import > Surge particles (.ply). Picking one frame imports its whole series (option).
  - Headless:  blender -b --python surge_import.py -- [options] FILE.ply ... | DIR
      options: --frame-start F (default 1), --no-speed, --spheres, --radius R [m], --save OUT.blend
    A bad file (not a Surge PLY, truncated) prints an error naming it and exits 1.
    Without `--` it only registers itself, to render a saved .blend where the add-on is not installed:
      blender -b scene.blend --python surge_import.py -a
  - From Python inside Blender:  import_frames(paths, ...) returns the object.

Attributes (point domain): velocity FLOAT_VECTOR [m/s], density [kg/m^3] and pressure [Pa] FLOAT, id INT
(creation index), radius [m] / mass [kg] FLOAT when the file has them, and speed = |velocity| FLOAT [m/s]
unless turned off. `add_sphere_instancing` (the Spheres option, --spheres) adds a Geometry Nodes modifier that
instances an icosphere on each point, sized by the `radius` attribute when present, else by a given radius
(default: half the median nearest-neighbour distance of the shown frame, i.e. half the particle spacing), with
the material `speed_material` makes: blue at rest to yellow at the top speed (of up to 8 frames spread over the
series; it is the Map Range node's From Max, edit it at will).
"""

bl_info = {
    "name": "Surge particles",
    "author": "Surge",
    "version": (1, 0, 0),
    "blender": (3, 4, 0),
    "location": "File > Import > Surge particles (.ply)",
    "description": "Surge's particle frames (binary PLY) with velocity, density, pressure, id as attributes",
    "category": "Import-Export",
}

import json
import os
import re
import sys

import bpy
import numpy as np

# PLY scalar types Surge may write, as little-endian numpy types.
PLY_TYPES = {
    "char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1",
    "short": "<i2", "int16": "<i2", "ushort": "<u2", "uint16": "<u2",
    "int": "<i4", "int32": "<i4", "uint": "<u4", "uint32": "<u4",
    "float": "<f4", "float32": "<f4", "double": "<f8", "float64": "<f8",
}
SURGE_PROPERTIES = ("x", "y", "z", "vx", "vy", "vz", "density", "pressure", "id")
FRAME_FILE = re.compile(r"^(?P<name>.+)_(?P<number>\d+)\.ply$")


class SurgePlyError(Exception):
    """A file that is not a Surge particle PLY; the message names the file."""


class SurgeFrame:
    """One frame: positions (n, 3) float32, and point attributes by name (numpy arrays of n or (n, 3))."""

    def __init__(self, positions, attributes, time_s, step):
        self.positions = positions
        self.attributes = attributes
        self.time_s = time_s
        self.step = step


def check_surge_ply(path, file):
    """Reads and checks a Surge particle PLY's header (binary little-endian, one vertex element) and the file's
    size; returns (vertex count, numpy vertex type, time_s, step), leaving `file` at the first vertex."""
    head = file.read(4096)  # Surge's header is under 400 bytes
    if not head.startswith(b"ply\n"):
        raise SurgePlyError(f"{path}: not a PLY file (it does not start with 'ply')")
    header_end = head.find(b"end_header\n")
    if header_end < 0:
        raise SurgePlyError(f"{path}: PLY header has no 'end_header' line")
    file.seek(header_end + len(b"end_header\n"))
    header = head[:header_end].decode("ascii", errors="replace").splitlines()[1:]

    count = None
    fields = []  # (name, numpy type) of the vertex element, in file order
    time_s, step = float("nan"), -1
    for line in header:
        words = line.split()
        if not words:
            continue
        if words[0] == "format" and words[1:] != ["binary_little_endian", "1.0"]:
            raise SurgePlyError(f"{path}: format '{' '.join(words[1:])}'; Surge writes binary_little_endian 1.0")
        elif words[0] == "comment" and words[1:3] == ["surge", "time_s"] and len(words) >= 6:
            time_s, step = float(words[3]), int(words[5])
        elif words[0] == "element":
            if words[1] != "vertex" or count is not None:
                raise SurgePlyError(f"{path}: element '{words[1]}': a Surge particle PLY has vertices only "
                                    "(a surface mesh? use Blender's PLY import for those)")
            count = int(words[2])
        elif words[0] == "property":
            if words[1] == "list" or words[1] not in PLY_TYPES:
                raise SurgePlyError(f"{path}: property '{' '.join(words[1:])}' is not a scalar Surge writes")
            fields.append((words[2], PLY_TYPES[words[1]]))
    if count is None:
        raise SurgePlyError(f"{path}: no 'element vertex' line")
    names = [name for name, _ in fields]
    missing = [name for name in SURGE_PROPERTIES if name not in names]
    if missing:
        raise SurgePlyError(f"{path}: not a Surge particle PLY: no property {', '.join(missing)}")

    vertex = np.dtype(fields)
    expected = count * vertex.itemsize
    body = os.fstat(file.fileno()).st_size - file.tell()
    if body < expected:
        raise SurgePlyError(f"{path}: truncated: the header gives {count} vertices ({expected} bytes), "
                            f"the file holds {body} bytes after the header")
    if body > expected:
        raise SurgePlyError(f"{path}: {body - expected} bytes after the last of {count} vertices")
    return count, vertex, time_s, step


def read_surge_ply(path, with_speed=True):
    """Reads a Surge particle PLY into a SurgeFrame."""
    with open(path, "rb") as file:
        count, vertex, time_s, step = check_surge_ply(path, file)
        table = np.fromfile(file, dtype=vertex, count=count)

    positions = np.column_stack([table["x"], table["y"], table["z"]]).astype(np.float32)
    velocity = np.column_stack([table["vx"], table["vy"], table["vz"]]).astype(np.float32)
    ids = table["id"]
    if count and int(ids.max()) > np.iinfo(np.int32).max:
        raise SurgePlyError(f"{path}: id {int(ids.max())} does not fit Blender's 32-bit INT attribute")
    attributes = {
        "velocity": velocity,
        "density": table["density"].astype(np.float32),
        "pressure": table["pressure"].astype(np.float32),
        "id": ids.astype(np.int32),
    }
    for name in vertex.names:  # radius (grains), mass (n-body), whatever else a newer Surge adds
        if name not in SURGE_PROPERTIES:
            attributes[name] = table[name].astype(np.float32)
    if with_speed:
        attributes["speed"] = np.linalg.norm(velocity, axis=1).astype(np.float32)
    return SurgeFrame(positions, attributes, time_s, step)


def series_files(path):
    """The frames of the series `path` belongs to (a frame file, or a directory holding one series), in order."""
    if os.path.isdir(path):
        candidates = [os.path.join(path, name) for name in os.listdir(path)]
        series_names = {m.group("name") for m in map(FRAME_FILE.match, os.listdir(path))
                        if m and not m.group("name").endswith("_surface")}
        if len(series_names) != 1:
            found = ", ".join(sorted(series_names)) or "none"
            raise SurgePlyError(f"{path}: expected one series of NAME_000000.ply frames, found: {found}")
        series_name = series_names.pop()
    else:
        match = FRAME_FILE.match(os.path.basename(path))
        if not match:
            return [path]
        candidates = [os.path.join(os.path.dirname(path), name) for name in os.listdir(os.path.dirname(path) or ".")]
        series_name = match.group("name")
    frames = [c for c in candidates
              if (m := FRAME_FILE.match(os.path.basename(c))) and m.group("name") == series_name]
    return sorted(frames, key=lambda c: int(FRAME_FILE.match(os.path.basename(c)).group("number")))


def _write_frame_to_mesh(mesh, frame):
    mesh.clear_geometry()  # also drops the previous frame's attributes
    mesh.vertices.add(len(frame.positions))
    mesh.vertices.foreach_set("co", frame.positions.ravel())
    for name, values in frame.attributes.items():
        if values.ndim == 2:
            mesh.attributes.new(name, "FLOAT_VECTOR", "POINT").data.foreach_set("vector", values.ravel())
        elif values.dtype == np.int32:
            mesh.attributes.new(name, "INT", "POINT").data.foreach_set("value", values)
        else:
            mesh.attributes.new(name, "FLOAT", "POINT").data.foreach_set("value", values)
    mesh.update()


def show_frame(obj, scene_frame):
    """Loads the file that `scene_frame` maps to into a series object (no work if it is already shown)."""
    files = json.loads(obj["surge_files"])
    index = min(max(scene_frame - obj["surge_frame_start"], 0), len(files) - 1)
    if obj.get("surge_file_shown") == files[index]:
        return
    frame = read_surge_ply(files[index], with_speed=bool(obj["surge_speed"]))
    _write_frame_to_mesh(obj.data, frame)
    obj["surge_file_shown"] = files[index]
    obj["surge_time_s"] = frame.time_s
    obj["surge_step"] = frame.step


@bpy.app.handlers.persistent
def _on_frame_change(scene, *_):
    for obj in scene.objects:
        if "surge_files" in obj:
            show_frame(obj, scene.frame_current)


def _install_frame_handler():
    if _on_frame_change not in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.append(_on_frame_change)


def import_frames(paths, frame_start=1, with_speed=True, spheres=False, radius=None):
    """Imports a series (frame files in order, or one directory) as one object; returns it.

    The scene's frame range is set to cover the series. Raises SurgePlyError, naming the file, on a bad frame;
    every frame is checked before the object is made, so an error leaves the scene as it was."""
    if isinstance(paths, str):
        paths = [paths]
    files = [os.path.abspath(f) for p in paths for f in (series_files(p) if os.path.isdir(p) else [p])]
    if not files:
        raise SurgePlyError("no frame files given")
    for path in files:  # check every header and size up front, so a bad frame is found now, not mid-render
        with open(path, "rb") as file:
            check_surge_ply(path, file)
    match = FRAME_FILE.match(os.path.basename(files[0]))
    name = match.group("name") if match else os.path.splitext(os.path.basename(files[0]))[0]

    scene = bpy.context.scene
    obj = bpy.data.objects.new(name, bpy.data.meshes.new(name))
    scene.collection.objects.link(obj)
    obj["surge_files"] = json.dumps(files)
    obj["surge_frame_start"] = frame_start
    obj["surge_speed"] = with_speed
    scene.frame_start = frame_start
    scene.frame_end = frame_start + len(files) - 1
    show_frame(obj, scene.frame_current)
    _install_frame_handler()
    if spheres:
        add_sphere_instancing(obj, radius, speed_material(_top_speed(files)) if with_speed else None)
    return obj


def _top_speed(files):
    """The top of the speed material's colour ramp: the top speed of up to 8 frames spread over the series."""
    sampled = files[:: max(1, len(files) // 8)][:8]
    return max(float(read_surge_ply(path).attributes["speed"].max(initial=0.0)) for path in sampled)


def estimate_radius(obj):
    """Half the median nearest-neighbour distance of the shown points: half the particle spacing [m]."""
    from mathutils import kdtree

    count = len(obj.data.vertices)
    if count < 2:
        raise SurgePlyError(f"{obj.name}: fewer than two particles; give the sphere radius")
    points = np.empty(count * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", points)
    points = points.reshape(count, 3)
    tree = kdtree.KDTree(count)
    for i, point in enumerate(points):
        tree.insert(point, i)
    tree.balance()
    sample = points[:: max(1, count // 2000)]  # the median of 2,000 is plenty, and keeps a 1M-particle frame fast
    return 0.5 * float(np.median([tree.find_n(point, 2)[1][2] for point in sample]))


def _sphere_node_group():
    group = bpy.data.node_groups.get("Surge spheres")
    if group:
        return group
    group = bpy.data.node_groups.new("Surge spheres", "GeometryNodeTree")
    group.inputs.new("NodeSocketGeometry", "Geometry")
    group.inputs.new("NodeSocketFloat", "Radius")
    group.inputs.new("NodeSocketMaterial", "Material")
    group.outputs.new("NodeSocketGeometry", "Geometry")
    group_in = group.nodes.new("NodeGroupInput")
    group_out = group.nodes.new("NodeGroupOutput")
    sphere = group.nodes.new("GeometryNodeMeshIcoSphere")
    sphere.inputs["Radius"].default_value = 1.0  # unit sphere, scaled per point
    sphere.inputs["Subdivisions"].default_value = 2
    instance = group.nodes.new("GeometryNodeInstanceOnPoints")
    group.links.new(group_in.outputs["Geometry"], instance.inputs["Points"])
    group.links.new(sphere.outputs["Mesh"], instance.inputs["Instance"])
    group.links.new(group_in.outputs["Radius"], instance.inputs["Scale"])
    # The spheres need their material here: an instanced mesh does not take the object's material slots.
    set_material = group.nodes.new("GeometryNodeSetMaterial")
    group.links.new(group_in.outputs["Material"], set_material.inputs["Material"])
    group.links.new(instance.outputs["Instances"], set_material.inputs["Geometry"])
    group.links.new(set_material.outputs["Geometry"], group_out.inputs["Geometry"])
    return group


def speed_material(max_speed):
    """Colour by speed: blue at rest to yellow at `max_speed` [m/s], read from the sphere instances' `speed`
    (an Attribute node of type Instancer); a little emission of the same colour keeps slow, shadowed spheres
    readable."""
    material = bpy.data.materials.new("Surge speed")
    material.use_nodes = True
    nodes, links = material.node_tree.nodes, material.node_tree.links
    speed = nodes.new("ShaderNodeAttribute")
    speed.attribute_type = "INSTANCER"
    speed.attribute_name = "speed"
    to_unit = nodes.new("ShaderNodeMapRange")
    to_unit.inputs["From Max"].default_value = max_speed if max_speed > 0 else 1.0
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = (0.0, 0.1, 1.0, 1.0)
    ramp.color_ramp.elements[1].color = (1.0, 0.8, 0.0, 1.0)
    shader = nodes["Principled BSDF"]
    links.new(speed.outputs["Fac"], to_unit.inputs["Value"])
    links.new(to_unit.outputs["Result"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], shader.inputs["Base Color"])
    links.new(ramp.outputs["Color"], shader.inputs["Emission"])
    shader.inputs["Emission Strength"].default_value = 0.3
    return material


def add_sphere_instancing(obj, radius=None, material=None):
    """Geometry Nodes modifier: an icosphere on every point, of the `radius` attribute if the series has one,
    else of `radius` [m] (estimated from the spacing when None), with `material`. Point attributes (speed,
    density...) pass to the instances, so a material reads them with an Attribute node of type Instancer."""
    group = _sphere_node_group()
    modifier = obj.modifiers.new("Surge spheres", "NODES")
    modifier.node_group = group
    modifier[group.inputs["Material"].identifier] = material
    socket = group.inputs["Radius"].identifier
    if "radius" in obj.data.attributes:
        modifier[socket + "_use_attribute"] = True
        modifier[socket + "_attribute_name"] = "radius"
    else:
        modifier[socket] = radius if radius is not None else estimate_radius(obj)
    return modifier


class ImportSurgeParticles(bpy.types.Operator):
    """Import Surge particle frames (binary PLY) with their attributes"""

    bl_idname = "import_scene.surge_particles"
    bl_label = "Import Surge particles"
    bl_options = {"REGISTER", "UNDO"}

    filepath: bpy.props.StringProperty(subtype="FILE_PATH")
    filter_glob: bpy.props.StringProperty(default="*.ply", options={"HIDDEN"})
    whole_series: bpy.props.BoolProperty(name="Whole series", default=True,
                                         description="Import every NAME_<digits>.ply frame beside the picked one")
    with_speed: bpy.props.BoolProperty(name="Speed attribute", default=True, description="Add speed = |velocity|")
    spheres: bpy.props.BoolProperty(name="Spheres", default=False,
                                    description="Add a Geometry Nodes modifier that draws points as spheres")
    radius: bpy.props.FloatProperty(name="Sphere radius", default=0.0, min=0.0, unit="LENGTH",
                                    description="0: the radius attribute, or half the estimated spacing")

    def invoke(self, context, _event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        try:
            files = series_files(self.filepath) if self.whole_series else [self.filepath]
            obj = import_frames(files, frame_start=context.scene.frame_start, with_speed=self.with_speed,
                                spheres=self.spheres, radius=self.radius or None)
        except (SurgePlyError, OSError) as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        self.report({"INFO"}, f"{obj.name}: {len(json.loads(obj['surge_files']))} frames")
        return {"FINISHED"}


def _menu_entry(self, _context):
    self.layout.operator(ImportSurgeParticles.bl_idname, text="Surge particles (.ply)")


def register():
    bpy.utils.register_class(ImportSurgeParticles)
    bpy.types.TOPBAR_MT_file_import.append(_menu_entry)
    _install_frame_handler()


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(_menu_entry)
    bpy.utils.unregister_class(ImportSurgeParticles)
    if _on_frame_change in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.remove(_on_frame_change)


def _main(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="blender -b --python surge_import.py --",
                                     description="Import a Surge particle series (binary PLY) into Blender.")
    parser.add_argument("paths", nargs="+", help="frame files in order, or a directory holding one series")
    parser.add_argument("--frame-start", type=int, default=1, help="scene frame of the first file")
    parser.add_argument("--no-speed", action="store_true", help="do not add the speed attribute")
    parser.add_argument("--spheres", action="store_true", help="draw the points as spheres coloured by speed")
    parser.add_argument("--radius", type=float, help="sphere radius [m] (default: radius attribute or spacing/2)")
    parser.add_argument("--save", help="save the scene to this .blend")
    args = parser.parse_args(argv)
    try:
        obj = import_frames(args.paths, args.frame_start, not args.no_speed, args.spheres, args.radius)
    except (SurgePlyError, OSError) as error:
        print(f"surge_import: error: {error}", file=sys.stderr)
        sys.exit(1)
    print(f"surge_import: {obj.name}: {len(json.loads(obj['surge_files']))} frames, "
          f"{len(obj.data.vertices)} particles in frame {bpy.context.scene.frame_current}")
    if args.save:
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(args.save))


if __name__ == "__main__":
    if "--" in sys.argv:
        _main(sys.argv[sys.argv.index("--") + 1:])
    else:  # `blender -b scene.blend --python surge_import.py -a`: only load it, so saved series follow the frame
        register()
