"""Runs inside Blender on a .blend saved by `surge_import.py -- FLUID_DIR --spheres --save` (with surge_import.py
loaded before it): the saved series follows the frame, and Cycles renders the particles as spheres coloured by
speed. With a black world and no lamp only the material's emission shows, so a pixel's colour is the speed
ramp's: all blue at rest (frame 1), and at the last frame some pixels toward yellow (red above blue)."""

import os

import bpy
import mathutils
import numpy as np

out_dir = os.path.dirname(bpy.data.filepath)  # pictures beside the .blend
scene = bpy.context.scene
fluid = bpy.data.objects["dam_break"]
last = scene.frame_end
for other in [obj for obj in scene.objects if obj != fluid]:  # the startup scene's cube, lamp and camera
    bpy.data.objects.remove(other)

camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
scene.collection.objects.link(camera)
camera.location = (0.8, -1.2, 0.5)
camera.rotation_euler = (mathutils.Vector((0.3, 0.1, 0.15)) - camera.location).to_track_quat("-Z", "Y").to_euler()
scene.camera = camera
scene.world = bpy.data.worlds.new("black")
scene.world.color = (0.0, 0.0, 0.0)
scene.render.engine = "CYCLES"
scene.cycles.samples = 4
scene.cycles.use_denoising = False  # Debian's Blender is built without OpenImageDenoise
scene.render.resolution_x, scene.render.resolution_y, scene.render.resolution_percentage = 160, 100, 100


def render(frame):
    scene.frame_set(frame)
    scene.render.filepath = f"{out_dir}/frame{frame}.png"
    bpy.ops.render.render(write_still=True)
    pixels = np.array(bpy.data.images.load(scene.render.filepath).pixels[:]).reshape(-1, 4)[:, :3]
    lit = pixels[pixels.sum(axis=1) > 0.02]
    warm = int((lit[:, 0] > lit[:, 2]).sum())
    print(f"rendered frame {frame} ({fluid['surge_file_shown'].rsplit('/', 1)[-1]}, step {fluid['surge_step']}): "
          f"{len(lit)} of {len(pixels)} pixels lit, {warm} warmer than blue")
    return fluid["surge_step"], len(lit), warm


rest, moving = render(1), render(last)
assert rest[0] == 0 and moving[0] > 0, f"frames did not follow: steps {rest[0]}, {moving[0]}"
assert rest[1] > 500 and moving[1] > 500, "the spheres are not in the picture"
assert rest[2] == 0, f"{rest[2]} pixels of resting particles are not blue"
assert moving[2] > 50, f"only {moving[2]} pixels of moving particles are coloured toward yellow"
print("blender_render_check: passed")
