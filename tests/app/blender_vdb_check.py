# Inside Blender (background): Surge's OpenVDB level set of a fluid surface imports as a Volume object whose
# grid "surface" is a float grid, and Blender's own Volume to Mesh at the zero level gives back a surface
# whose bounds match Surge's surface mesh of the same frame (its OBJ) within two voxels (the grid's own voxel
# size, from its transform).
# Usage: blender -b --factory-startup --python-exit-code 1 --python blender_vdb_check.py -- FRAME.vdb FRAME.obj
import sys

import bpy

vdb_path, obj_path = sys.argv[sys.argv.index("--") + 1:][:2]

bpy.ops.object.volume_import(filepath=vdb_path)
volume_object = bpy.context.selected_objects[0]
grids = volume_object.data.grids
assert grids.load(), f"{vdb_path}: Blender could not load its grids: {grids.error_message}"
names = {grid.name: grid for grid in grids}
assert "surface" in names, f"{vdb_path}: no grid 'surface' among {sorted(names)}"
assert names["surface"].data_type == "FLOAT", f"grid 'surface' is {names['surface'].data_type}"
voxel = names["surface"].matrix_object[0][0]
assert voxel > 0, f"grid 'surface' has voxels of {voxel} m"

# Volume to Mesh is a modifier of a mesh object that reads the volume object.
holder = bpy.data.objects.new("surface_mesh", bpy.data.meshes.new("surface_mesh"))
bpy.context.scene.collection.objects.link(holder)
modifier = holder.modifiers.new("surface", "VOLUME_TO_MESH")
modifier.object = volume_object
modifier.grid_name = "surface"
modifier.threshold = 0.0  # the level set's zero: the surface
modifier.adaptivity = 0.0
evaluated = holder.evaluated_get(bpy.context.evaluated_depsgraph_get())
mesh = evaluated.to_mesh()
assert len(mesh.vertices) > 100, f"Volume to Mesh gave {len(mesh.vertices)} vertices"
lows = [min(v.co[k] for v in mesh.vertices) for k in range(3)]
highs = [max(v.co[k] for v in mesh.vertices) for k in range(3)]

# Surge's own mesh of the frame, read from the OBJ's vertex lines.
points = [tuple(map(float, line.split()[1:4])) for line in open(obj_path) if line.startswith("v ")]
obj_lows = [min(p[k] for p in points) for k in range(3)]
obj_highs = [max(p[k] for p in points) for k in range(3)]
for k, axis in enumerate("xyz"):
    for name, got, want in (("min", lows[k], obj_lows[k]), ("max", highs[k], obj_highs[k])):
        assert abs(got - want) < 2 * voxel, f"{axis} {name}: Blender's mesh {got:.4f}, Surge's {want:.4f}"
print(f"blender_vdb_check: {len(mesh.vertices)} vertices from the level set (voxel {voxel:.4f} m), bounds "
      f"within 2 voxels of "
      f"Surge's mesh: [{lows[0]:.3f} {lows[1]:.3f} {lows[2]:.3f}] - [{highs[0]:.3f} {highs[1]:.3f} {highs[2]:.3f}]")
print("blender_vdb_check: passed")
