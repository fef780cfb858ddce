#!/usr/bin/env python3
"""Writes the meshes under assets/meshes/ and the broken ones the geometry tests read
(tests/sim/data/meshes/). Run from anywhere: scripts/make-meshes.py. Deterministic, so a rerun that
changes nothing leaves git clean.

Every shape is built as an indexed face set with outward-facing triangles (counter-clockwise seen
from outside), and closed, so that sim/geometry's checks pass it; the broken ones break exactly one rule.
"""
import math
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets" / "meshes"
BAD = ROOT / "tests" / "sim" / "data" / "meshes"


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def face_outwards(vertices, faces):
    """For a convex shape around the origin: turn each triangle so its normal points away from it."""
    out = []
    for f in faces:
        a, b, c = (vertices[i] for i in f)
        centre = tuple((a[k] + b[k] + c[k]) / 3 for k in range(3))
        out.append(f if dot(cross(sub(b, a), sub(c, a)), centre) > 0 else (f[0], f[2], f[1]))
    return out


def unit_cube():
    """Side 1, centred on the origin; two triangles a face."""
    vertices = [(x, y, z) for z in (-0.5, 0.5) for y in (-0.5, 0.5) for x in (-0.5, 0.5)]
    index = {v: i for i, v in enumerate(vertices)}
    faces = []
    for axis in range(3):
        for side in (-0.5, 0.5):
            u, w = [k for k in range(3) if k != axis]
            corners = []
            for cu, cw in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
                p = [0.0, 0.0, 0.0]
                p[axis], p[u], p[w] = side, cu, cw
                corners.append(index[tuple(p)])
            faces += [(corners[0], corners[1], corners[2]), (corners[0], corners[2], corners[3])]
    return vertices, face_outwards(vertices, faces)


def icosphere(radius, subdivisions):
    """An icosahedron split `subdivisions` times (each triangle into four), vertices pushed onto the sphere."""
    g = (1 + math.sqrt(5)) / 2
    vertices = [(-1, g, 0), (1, g, 0), (-1, -g, 0), (1, -g, 0), (0, -1, g), (0, 1, g), (0, -1, -g), (0, 1, -g),
                (g, 0, -1), (g, 0, 1), (-g, 0, -1), (-g, 0, 1)]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
             (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
             (6, 2, 10), (8, 6, 7), (9, 8, 1)]

    def on_sphere(p):
        n = math.sqrt(dot(p, p))
        return tuple(radius * c / n for c in p)

    vertices = [on_sphere(v) for v in vertices]
    for _ in range(subdivisions):
        midpoint_of = {}

        def midpoint(i, j):
            key = (min(i, j), max(i, j))
            if key not in midpoint_of:
                a, b = vertices[i], vertices[j]
                vertices.append(on_sphere(tuple((a[k] + b[k]) / 2 for k in range(3))))
                midpoint_of[key] = len(vertices) - 1
            return midpoint_of[key]

        split = []
        for a, b, c in faces:
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            split += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = split
    return vertices, face_outwards(vertices, faces)


def paddle(hub_radius=0.06, blade_tip=0.2, blade_width=0.04, blade_thickness=0.02, shaft_radius=0.02,
           shaft_bottom=-0.03, shaft_top=0.3, arc_points=6):
    """A mixer's stirrer: a slab (a hub disc with four radial blades, z in +-thickness/2) on a shaft.

    The slab's outline is star-shaped about the axis and its vertices come in increasing angle, so the
    region between the shaft's circle and the outline splits into convex radial quads, one per angle
    step; the shaft's rings take a vertex at every angle of the outline, so its wall and the slab share
    edges and the whole surface is one closed manifold (not overlapping closed parts, whose volume
    would count twice).
    """
    half_w = blade_width / 2
    junction = math.sqrt(hub_radius ** 2 - half_w ** 2)
    alpha = math.asin(half_w / hub_radius)
    outline = []  # (x, y), counter-clockwise from just below blade 0
    for k in range(4):
        phi = k * math.pi / 2
        c, s = math.cos(phi), math.sin(phi)
        for x, y in ((junction, -half_w), (blade_tip, -half_w), (blade_tip, half_w), (junction, half_w)):
            outline.append((c * x - s * y, s * x + c * y))
        for a in range(1, arc_points + 1):
            theta = phi + alpha + (math.pi / 2 - 2 * alpha) * a / (arc_points + 1)
            outline.append((hub_radius * math.cos(theta), hub_radius * math.sin(theta)))
    angles = [math.atan2(y, x) for x, y in outline]
    n = len(outline)
    vertices = []

    def ring(points, z):
        first = len(vertices)
        vertices.extend((x, y, z) for x, y in points)
        return list(range(first, first + n))

    z_lo, z_hi = -blade_thickness / 2, blade_thickness / 2
    shaft_circle = [(shaft_radius * math.cos(a), shaft_radius * math.sin(a)) for a in angles]
    outline_top, outline_bottom = ring(outline, z_hi), ring(outline, z_lo)
    shaft_at_top, shaft_at_bottom = ring(shaft_circle, z_hi), ring(shaft_circle, z_lo)
    shaft_top_ring, shaft_bottom_ring = ring(shaft_circle, shaft_top), ring(shaft_circle, shaft_bottom)
    vertices += [(0.0, 0.0, shaft_top), (0.0, 0.0, shaft_bottom)]
    top_centre, bottom_centre = len(vertices) - 2, len(vertices) - 1

    faces = []

    def wall(lower, upper):  # outward for a counter-clockwise ring
        for i in range(n):
            j = (i + 1) % n
            faces.extend([(lower[i], lower[j], upper[j]), (lower[i], upper[j], upper[i])])

    wall(outline_bottom, outline_top)
    wall(shaft_at_top, shaft_top_ring)
    wall(shaft_bottom_ring, shaft_at_bottom)
    for i in range(n):
        j = (i + 1) % n
        faces += [(shaft_at_top[i], outline_top[i], outline_top[j]), (shaft_at_top[i], outline_top[j], shaft_at_top[j])]
        faces += [(shaft_at_bottom[i], outline_bottom[j], outline_bottom[i]),
                  (shaft_at_bottom[i], shaft_at_bottom[j], outline_bottom[j])]
        faces += [(top_centre, shaft_top_ring[i], shaft_top_ring[j]),
                  (bottom_centre, shaft_bottom_ring[j], shaft_bottom_ring[i])]
    return vertices, faces


def number(x):
    return "%.9g" % x


def write_obj(path, vertices, faces, comment, extra_lines=()):
    lines = ["# " + line for line in comment.splitlines()] + ["# written by scripts/make-meshes.py"]
    lines += ["v %s %s %s" % tuple(v if isinstance(v, str) else number(v) for v in p) for p in vertices]
    lines += ["f %d %d %d" % (a + 1, b + 1, c + 1) for a, b, c in faces]
    lines += list(extra_lines)
    path.write_text("\n".join(lines) + "\n")


def normal_of(vertices, f):
    n = cross(sub(vertices[f[1]], vertices[f[0]]), sub(vertices[f[2]], vertices[f[0]]))
    length = math.sqrt(dot(n, n)) or 1.0
    return tuple(c / length for c in n)


def write_binary_stl(path, vertices, faces, title):
    data = bytearray(title.encode().ljust(80, b" ")[:80])
    data += struct.pack("<I", len(faces))
    for f in faces:
        data += struct.pack("<3f", *normal_of(vertices, f))
        for i in f:
            data += struct.pack("<3f", *vertices[i])
        data += struct.pack("<H", 0)
    path.write_bytes(bytes(data))


def write_ascii_stl(path, vertices, faces, name):
    lines = ["solid " + name]
    for f in faces:
        lines.append("  facet normal %s %s %s" % tuple(number(c) for c in normal_of(vertices, f)))
        lines.append("    outer loop")
        lines += ["      vertex %s %s %s" % tuple(number(c) for c in vertices[i]) for i in f]
        lines += ["    endloop", "  endfacet"]
    lines.append("endsolid " + name)
    path.write_text("\n".join(lines) + "\n")


def main():
    ASSETS.mkdir(parents=True, exist_ok=True)
    BAD.mkdir(parents=True, exist_ok=True)
    cube_v, cube_f = unit_cube()
    write_obj(ASSETS / "unit_cube.obj", cube_v, cube_f, "Unit cube: side 1 m, centred on the origin, 12 triangles.")
    write_binary_stl(ASSETS / "unit_cube.stl", cube_v, cube_f, "Surge unit cube (binary STL), scripts/make-meshes.py")
    ico_v, ico_f = icosphere(0.5, 2)
    write_obj(ASSETS / "icosphere.obj", ico_v, ico_f,
              "Icosphere: radius 0.5 m (vertices on the sphere), icosahedron split twice: 162 vertices, 320 triangles.")
    pad_v, pad_f = paddle()
    write_obj(ASSETS / "paddle.obj", pad_v, pad_f,
              "Paddle for a mixer: hub radius 0.06 m with four blades to 0.2 m (0.04 m wide, 0.02 m thick,\n"
              "z in [-0.01, 0.01]) on a shaft of radius 0.02 m from z = -0.03 to 0.3 m. Axis along z.")

    write_ascii_stl(BAD / "unit_cube_ascii.stl", cube_v, cube_f, "unit_cube")
    write_obj(BAD / "open_box.obj", cube_v, [f for f in cube_f if not all(cube_v[i][2] == 0.5 for i in f)],
              "The unit cube without its top face (z = 0.5): 4 open edges.")
    nan_v = list(cube_v)
    nan_v[3] = (0.5, "nan", 0.5)
    write_obj(BAD / "nan_vertex.obj", nan_v, cube_f, "The unit cube with one coordinate of vertex 3 (0-based) NaN.")
    degenerate_v = cube_v + [(0.0, -0.5, -0.5)]  # the midpoint of the edge between vertices 0 and 1
    write_obj(BAD / "degenerate_triangle.obj", degenerate_v, cube_f + [(0, 8, 1)],
              "The unit cube plus a triangle of zero area (three points on one edge).")
    flipped_one = list(cube_f)
    flipped_one[5] = (cube_f[5][0], cube_f[5][2], cube_f[5][1])
    write_obj(BAD / "inconsistent_orientation.obj", cube_v, flipped_one,
              "The unit cube with triangle 5 turned the other way: closed, but not consistently oriented.")
    write_obj(BAD / "inside_out_cube.obj", cube_v, [(a, c, b) for a, b, c in cube_f],
              "The unit cube with every triangle facing inwards: loads, flipped.")
    write_obj(BAD / "no_triangles.obj", cube_v, [], "Vertices and a line, no face.", ["l 1 2"])
    (BAD / "not_a_mesh.txt").write_text("This file is not a mesh: a test checks that loading it says so.\n")


if __name__ == "__main__":
    main()
