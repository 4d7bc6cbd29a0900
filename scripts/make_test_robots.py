#!/usr/bin/env python3
"""Writes the test robots of tests/data/robots (tests/test_robot_model.cpp).

arm7.urdf: a 7-joint arm with the Franka Emika Panda's published kinematics (modified
Denavit-Hartenberg parameters, joint limits from its datasheet) and primitive collision shapes
(boxes, cylinders, spheres, capsules through the <capsule> extension of
include/diffcol/scene/robot_model.hpp) roughly around each link, a flange 0.107 along joint 7 and
a hand box on it. arm7.srdf: collision pairs disabled, as MoveIt's setup assistant labels them
from sampled configurations: overlapping in every one of 2000 uniform samples within the joint
limits (Always: link2-link4, link5-link7) or in none of them (Never: link1-link3, 3.8 cm apart at
the closest sample; link6-hand, 4.7 cm).
arm7_mesh.urdf: the same arm with every shape as a closed, outward-oriented OBJ mesh in meshes/
(tessellated capsules, spheres, prisms, boxes), referenced by relative and package:// filenames.

Usage: python3 scripts/make_test_robots.py [output folder, default tests/data/robots]
"""
import math
import os
import sys

PI = math.pi

# modified DH (Craig): joint i has a = A[i], d = D[i], alpha = ALPHA[i] (from link i-1 to link i)
A = [0.0, 0.0, 0.0, 0.0825, -0.0825, 0.0, 0.088]
D = [0.333, 0.0, 0.316, 0.0, 0.384, 0.0, 0.0]
ALPHA = [0.0, -PI / 2, PI / 2, PI / 2, -PI / 2, PI / 2, PI / 2]
FLANGE_D = 0.107
LOWER = [-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973]
UPPER = [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973]
VELOCITY = [2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61]
EFFORT = [87.0, 87.0, 87.0, 87.0, 12.0, 12.0, 12.0]

# collision shapes per link: (kind, xyz, rpy, size); sizes: box (sx, sy, sz), cylinder (r, l),
# sphere (r,), capsule (r, core length). Cylinders and capsules lie along z of their frame.
Y_AXIS = (PI / 2, 0.0, 0.0)  # z of the shape along -y of the link
X_AXIS = (0.0, PI / 2, 0.0)  # z of the shape along x of the link
SHAPES = {
    "base": [("cylinder", (-0.04, 0.0, 0.07), (0, 0, 0), (0.11, 0.14)),
             ("box", (-0.12, 0.0, 0.03), (0, 0, 0), (0.12, 0.16, 0.06))],
    "link1": [("capsule", (0.0, 0.0, -0.13), (0, 0, 0), (0.075, 0.16))],
    "link2": [("capsule", (0.0, -0.1, 0.0), Y_AXIS, (0.075, 0.2))],
    "link3": [("cylinder", (0.04, 0.0, -0.08), (0, 0, 0), (0.075, 0.2)),
              ("sphere", (0.0825, 0.0, 0.0), (0, 0, 0), (0.075,))],
    "link4": [("sphere", (0.0, 0.0, 0.0), (0, 0, 0), (0.085,)),
              ("capsule", (-0.08, 0.1, 0.0), Y_AXIS, (0.07, 0.18))],
    "link5": [("capsule", (0.0, 0.04, -0.15), (0, 0, 0), (0.065, 0.18)),
              ("sphere", (0.0, 0.0, 0.0), (0, 0, 0), (0.07,))],
    "link6": [("box", (0.045, 0.0, -0.01), (0, 0, 0), (0.17, 0.12, 0.12))],
    "link7": [("cylinder", (0.0, 0.0, 0.05), (0, 0, 0), (0.055, 0.12))],
    "hand": [("box", (0.0, 0.0, 0.05), (0.0, 0.0, -PI / 4), (0.07, 0.21, 0.1))],
}
LINKS = ["base"] + [f"link{i}" for i in range(1, 8)] + ["hand"]


def f(x):
    x = float(x)
    return "0" if abs(x) < 1e-15 else repr(x)  # no -0.0 or 1.9e-17 from cos(pi/2)


def v3(t):
    return " ".join(f(x) for x in t)


def origin(xyz, rpy):
    return f'<origin xyz="{v3(xyz)}" rpy="{v3(rpy)}"/>'


def joints_xml():
    out = []
    for i in range(7):
        a, d, al = A[i], D[i], ALPHA[i]
        # Rx(alpha) Tx(a) Rz(theta) Tz(d) = T(a, -d sin(alpha), d cos(alpha)) Rx(alpha) Rz(theta)
        xyz = (a, -d * math.sin(al), d * math.cos(al))
        out.append(f'  <joint name="joint{i + 1}" type="revolute">\n'
                   f'    <parent link="{LINKS[i]}"/>\n    <child link="{LINKS[i + 1]}"/>\n'
                   f'    {origin(xyz, (al, 0.0, 0.0))}\n    <axis xyz="0 0 1"/>\n'
                   f'    <limit lower="{f(LOWER[i])}" upper="{f(UPPER[i])}" effort="{f(EFFORT[i])}" '
                   f'velocity="{f(VELOCITY[i])}"/>\n  </joint>')
    out.append('  <joint name="flange" type="fixed">\n    <parent link="link7"/>\n'
               f'    <child link="hand"/>\n    {origin((0, 0, FLANGE_D), (0, 0, 0))}\n  </joint>')
    return "\n".join(out)


def geometry_xml(kind, size):
    if kind == "box":
        return f'<box size="{v3(size)}"/>'
    if kind == "sphere":
        return f'<sphere radius="{f(size[0])}"/>'
    return f'<{kind} radius="{f(size[0])}" length="{f(size[1])}"/>'


# closed meshes, faces counter-clockwise seen from outside
def capsule_mesh(r, core, n=16, rings=4):
    """A capsule (a sphere for core = 0) along z: poles and 2*rings latitude rings."""
    verts = [(0.0, 0.0, core / 2 + r)]
    lat = []
    for k in range(1, rings + 1):  # upper hemisphere, pole to equator
        lat.append((r * math.sin(PI / 2 * k / rings), core / 2 + r * math.cos(PI / 2 * k / rings)))
    for k in range(0, rings):  # lower hemisphere, equator to pole
        lat.append((r * math.cos(PI / 2 * k / rings), -core / 2 - r * math.sin(PI / 2 * k / rings)))
    if core == 0.0:
        lat.pop(rings)  # the two equators coincide
    for rho, z in lat:
        for j in range(n):
            t = 2 * PI * j / n
            verts.append((rho * math.cos(t), rho * math.sin(t), z))
    verts.append((0.0, 0.0, -core / 2 - r))
    faces = []
    ring = lambda k, j: 1 + k * n + j % n  # noqa: E731
    for j in range(n):
        faces.append((0, ring(0, j), ring(0, j + 1)))
    for k in range(len(lat) - 1):
        for j in range(n):
            faces.append((ring(k, j), ring(k + 1, j), ring(k + 1, j + 1)))
            faces.append((ring(k, j), ring(k + 1, j + 1), ring(k, j + 1)))
    last = len(verts) - 1
    for j in range(n):
        faces.append((last, ring(len(lat) - 1, j + 1), ring(len(lat) - 1, j)))
    return verts, faces


def prism_mesh(r, length, n=24):
    """A prism with n sides around a cylinder's circle (vertices on the circle), along z."""
    h = length / 2
    verts = [(0.0, 0.0, h), (0.0, 0.0, -h)]
    for z in (h, -h):
        for j in range(n):
            t = 2 * PI * j / n
            verts.append((r * math.cos(t), r * math.sin(t), z))
    top = lambda j: 2 + j % n  # noqa: E731
    bot = lambda j: 2 + n + j % n  # noqa: E731
    faces = []
    for j in range(n):
        faces.append((0, top(j), top(j + 1)))
        faces.append((1, bot(j + 1), bot(j)))
        faces.append((top(j), bot(j), bot(j + 1)))
        faces.append((top(j), bot(j + 1), top(j + 1)))
    return verts, faces


def unit_box_mesh():
    verts = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = []
    for a, b, c, d in quads:
        faces += [(a, b, c), (a, c, d)]
    return verts, faces


def write_obj(path, verts, faces, comment):
    with open(path, "w") as fh:
        fh.write(f"# {comment} (scripts/make_test_robots.py)\n")
        for p in verts:
            fh.write("v " + " ".join(f"{x:.9g}" for x in p) + "\n")
        for t in faces:
            fh.write("f " + " ".join(str(i + 1) for i in t) + "\n")


def robot_xml(name, collision):
    parts = [f'<?xml version="1.0"?>\n<!-- {name}: written by scripts/make_test_robots.py -->',
             f'<robot name="{name}">']
    for link in LINKS:
        parts.append(f'  <link name="{link}">')
        for k, shape in enumerate(SHAPES[link]):
            parts.append(collision(link, k, *shape))
        parts.append("  </link>")
    parts.append(joints_xml())
    parts.append("</robot>\n")
    return "\n".join(parts)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data", "robots")
    os.makedirs(os.path.join(out, "meshes"), exist_ok=True)

    def primitive(link, k, kind, xyz, rpy, size):
        return (f'    <collision name="{link}_{kind}{k}">\n      {origin(xyz, rpy)}\n'
                f'      <geometry>{geometry_xml(kind, size)}</geometry>\n    </collision>')

    def mesh(link, k, kind, xyz, rpy, size):
        scale = ""
        if kind == "box":  # one unit cube, scaled
            verts, faces = unit_box_mesh()
            scale = f' scale="{v3(size)}"'
            fname = "unit_box.obj"
        else:
            if kind == "capsule":
                verts, faces = capsule_mesh(size[0], size[1])
            elif kind == "sphere":
                verts, faces = capsule_mesh(size[0], 0.0)
            else:
                verts, faces = prism_mesh(size[0], size[1])
            fname = f"{link}_{k}.obj"
        write_obj(os.path.join(out, "meshes", fname), verts, faces, f"{kind} {size}")
        # the hand through package:// (the folder 'robots' above the URDF), the rest relative
        uri = f"package://robots/meshes/{fname}" if link == "hand" else f"meshes/{fname}"
        return (f'    <collision name="{link}_mesh{k}">\n      {origin(xyz, rpy)}\n'
                f'      <geometry><mesh filename="{uri}"{scale}/></geometry>\n    </collision>')

    with open(os.path.join(out, "arm7.urdf"), "w") as fh:
        fh.write(robot_xml("arm7", primitive))
    with open(os.path.join(out, "arm7_mesh.urdf"), "w") as fh:
        fh.write(robot_xml("arm7_mesh", mesh))
    with open(os.path.join(out, "arm7.srdf"), "w") as fh:
        fh.write('<?xml version="1.0"?>\n<!-- arm7: written by scripts/make_test_robots.py -->\n'
                 '<robot name="arm7">\n'
                 '  <disable_collisions link1="base" link2="link1" reason="Adjacent"/>\n'
                 '  <disable_collisions link1="link1" link2="link3" reason="Never"/>\n'
                 '  <disable_collisions link1="link2" link2="link4" reason="Always"/>\n'
                 '  <disable_collisions link1="link5" link2="link7" reason="Always"/>\n'
                 '  <disable_collisions link1="link6" link2="hand" reason="Never"/>\n'
                 '</robot>\n')


if __name__ == "__main__":
    main()
