"""diffcol.view: the self-contained HTML viewer page from Python.

When the module was built with the viewer (diffcol.has_viewer): the file is written, is an HTML
page with three.js inlined, holds the scene (both shapes' descriptions, one frame per pose, the
solved alpha*), and bad input raises ValueError / OSError. Without the viewer, diffcol.view
raises a RuntimeError that says how to enable it. The page's rendering itself is tested in
headless Chromium by viewer/tests/browser_test.py (ctest viewer_browser).
"""
import json
import re

import numpy as np
import pytest

import diffcol

needs_viewer = pytest.mark.skipif(not diffcol.has_viewer, reason="built without the viewer (three.js)")


def scene(html):
    """The diffcol-view/1 scene JSON embedded in the page."""
    m = re.search(r'<script type="application/json" id="diffcol-scene">(.*?)</script>', html, re.S)
    assert m, "no scene in the page"
    sc = json.loads(m.group(1))
    assert sc["format"] == "diffcol-view/1"
    return sc


@needs_viewer
def test_view_writes_a_self_contained_page_with_both_shapes(tmp_path):
    s1, s2 = diffcol.benchmark_shape("poly"), diffcol.Superellipsoid.ellipsoid(0.5, 1.0, 1.5)
    X2 = [2.5, 0.3, 0.1, 1.0, 0.0, 0.0, 0.0]
    out = diffcol.view(tmp_path / "one.html", s1, diffcol.Pose(), s2, X2, title="poly & <ellipsoid>", subdivisions=2)
    assert out == str(tmp_path / "one.html")
    html = (tmp_path / "one.html").read_text()
    assert html.lstrip().lower().startswith("<!doctype html") and "</html>" in html
    assert "poly &amp; &lt;ellipsoid&gt;" in html  # the title, escaped
    assert "<script src=" not in html  # three.js inlined: nothing to fetch
    sc = scene(html)
    assert [s["description"] for s in sc["shapes"]] == [s1.describe(), diffcol.Shape(s2).describe()]
    assert all(len(s["mesh"]) > 0 for s in sc["shapes"])
    assert len(sc["frames"]) == 1
    sol = diffcol.solve_contact(s1, diffcol.Pose(), s2, X2)
    assert sc["frames"][0]["alpha"] == pytest.approx(sol.alpha, rel=1e-12)


@needs_viewer
def test_view_animates_a_pose_sequence(tmp_path):
    s = diffcol.benchmark_shape("se")
    X2 = np.array([[x, 0.2, 0.0, 1.0, 0.0, 0.0, 0.0] for x in np.linspace(4.0, 1.0, 7)])
    diffcol.view(str(tmp_path / "seq.html"), s, np.eye(4), s, X2, subdivisions=1, autoplay=True)
    sc = scene((tmp_path / "seq.html").read_text())
    assert len(sc["frames"]) == 7
    alphas = [f["alpha"] for f in sc["frames"]]
    assert all(a > b for a, b in zip(alphas, alphas[1:]))  # approaching: alpha decreases
    # a list of Poses and an (n, 4, 4) array give the same frames
    poses = [diffcol.Pose(v) for v in X2]
    diffcol.view(tmp_path / "seq2.html", s, diffcol.Pose(), s, poses, subdivisions=1, autoplay=True)
    diffcol.view(tmp_path / "seq3.html", s, diffcol.Pose(), s, np.stack([p.matrix() for p in poses]), subdivisions=1,
                 autoplay=True)
    assert [f["alpha"] for f in scene((tmp_path / "seq2.html").read_text())["frames"]] == alphas
    assert [f["alpha"] for f in scene((tmp_path / "seq3.html").read_text())["frames"]] == alphas


@needs_viewer
def test_view_rejects_bad_input(tmp_path):
    s = diffcol.Sphere(1.0)
    with pytest.raises(ValueError, match="X_W2"):
        diffcol.view(tmp_path / "a.html", s, np.eye(4), s, np.ones((3, 5)))
    with pytest.raises(ValueError):
        diffcol.view(tmp_path / "a.html", s, np.zeros((2, 7)) + [0, 0, 0, 1, 0, 0, 0], s,
                     np.zeros((3, 7)) + [3, 0, 0, 1, 0, 0, 0])  # 2 vs 3 frames
    with pytest.raises(ValueError):
        diffcol.view(tmp_path / "a.html", s, np.eye(4), s, [3, 0, 0, 1, 0, 0, 0], subdivisions=9)
    with pytest.raises(ValueError):
        diffcol.view(tmp_path / "a.html", s, np.eye(4), s, [3, 0, 0, 1, 0, 0, 0], frame_duration=0.0)
    with pytest.raises(OSError):
        diffcol.view(tmp_path / "no" / "such" / "dir.html", s, np.eye(4), s, [3, 0, 0, 1, 0, 0, 0], subdivisions=0)
    assert diffcol.three_version


@pytest.mark.skipif(diffcol.has_viewer, reason="built with the viewer")
def test_view_without_the_viewer_raises_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError, match="viewer/setup.sh"):
        diffcol.view(tmp_path / "a.html", diffcol.Sphere(1.0), np.eye(4), diffcol.Sphere(1.0), [3, 0, 0, 1, 0, 0, 0])
    assert diffcol.three_version == ""


def test_view_is_documented():
    for needle in ["path", "X_W1", "sequence", "subdivisions", "RuntimeError", "has_viewer"]:
        assert needle in diffcol.view.__doc__, needle


# ------------------------------------------------------------------ mesh pages: manifolds, rollouts

def mesh_scene(html):
    """The diffcol-mesh-view/1 scene JSON embedded in a manifold / rollout page."""
    m = re.search(r'<script type="application/json" id="diffcol-scene">(.*?)</script>', html, re.S)
    assert m, "no scene in the page"
    sc = json.loads(m.group(1))
    assert sc["format"] == "diffcol-mesh-view/1"
    return sc


def boxes():
    from diffcol import manifold
    make = lambda: manifold.ContactObject(manifold.make_refined_box([1, 1, 1], 2), manifold.make_box_sdf([1, 1, 1], 0.1))
    return make(), make()


@needs_viewer
def test_view_manifold_holds_the_computed_manifold(tmp_path):
    from diffcol import manifold
    b1, b2 = boxes()
    X2 = [0.1, 0.0, 0.99, 1.0, 0.0, 0.0, 0.0]
    out = diffcol.view_manifold(tmp_path / "m.html", b1, diffcol.Pose(), b2, X2, title="boxes", min_activity=0.2)
    html = (tmp_path / "m.html").read_text()
    assert out == str(tmp_path / "m.html") and "<script src=" not in html
    sc = mesh_scene(html)
    assert [b["mesh"]["vertex_count"] for b in sc["bodies"]] == [b1.mesh.num_vertices, b2.mesh.num_vertices]
    assert sc["settings"]["min_activity"] == 0.2 and len(sc["frames"]) == 1
    ref = manifold.compute_manifold(b1, diffcol.Pose(), b2, X2)
    mf = sc["frames"][0]["manifold"]
    assert mf["count"] == len(ref)
    np.testing.assert_array_equal(mf["activities"], ref.activities)  # %.17g text reads back exactly
    np.testing.assert_array_equal(np.array(mf["points"]), ref.points)
    np.testing.assert_array_equal(np.array(mf["normals"]), ref.normals)
    # a pose sequence: one manifold per frame
    X2s = np.array([[0.1, 0.0, z, 1.0, 0.0, 0.0, 0.0] for z in np.linspace(1.3, 0.99, 4)])
    diffcol.view_manifold(tmp_path / "m4.html", b1, diffcol.Pose(), b2, X2s, autoplay=True)
    frames = mesh_scene((tmp_path / "m4.html").read_text())["frames"]
    assert len(frames) == 4
    assert max(frames[0]["manifold"]["activities"]) < 0.1 < max(frames[-1]["manifold"]["activities"])


@needs_viewer
def test_view_rollout(tmp_path):
    from diffcol import mesh
    meshes = [mesh.make_box([1, 1, 1]), mesh.make_icosphere(0.3, 2)]
    T = 5
    poses = np.array([[[0, 0, 0, 1, 0, 0, 0], [0, 0, z, 1, 0, 0, 0]] for z in np.linspace(2, 1, T)])
    diffcol.view_rollout(tmp_path / "r.html", meshes, poses, names=["box", "ball"])
    sc = mesh_scene((tmp_path / "r.html").read_text())
    assert [b["name"] for b in sc["bodies"]] == ["box", "ball"]
    assert len(sc["frames"]) == T and "manifold" not in sc["frames"][0]
    assert [f["poses"][1]["position"][2] for f in sc["frames"]] == pytest.approx(list(np.linspace(2, 1, T)))
    # one body: (T, 7) works too; 4x4 matrices as well
    diffcol.view_rollout(tmp_path / "r1.html", meshes[:1], poses[:, 0])
    mats = np.stack([[diffcol.Pose(p).matrix() for p in frame] for frame in poses])
    diffcol.view_rollout(tmp_path / "r2.html", meshes, mats)
    # with manifolds (any objects with the four arrays)
    class M:
        points = np.zeros((2, 3))
        normals = np.tile([0.0, 0.0, 1.0], (2, 1))
        distances = np.array([0.0, -0.1])
        activities = np.array([0.5, 1.0])
    diffcol.view_rollout(tmp_path / "r3.html", meshes, poses, manifolds=[M()] * T)
    assert mesh_scene((tmp_path / "r3.html").read_text())["frames"][2]["manifold"]["count"] == 2


@needs_viewer
def test_mesh_pages_reject_bad_input(tmp_path):
    from diffcol import manifold, mesh
    b1, b2 = boxes()
    m = [mesh.make_box([1, 1, 1])]
    with pytest.raises(ValueError):
        diffcol.view_manifold(tmp_path / "a.html", b1, diffcol.Pose(), b2, [np.nan, 0, 0, 1, 0, 0, 0])
    with pytest.raises(ValueError):
        diffcol.view_manifold(tmp_path / "a.html", b1, diffcol.Pose(), b2, diffcol.Pose(), min_activity=2.0)
    with pytest.raises(ValueError):
        diffcol.view_manifold(tmp_path / "a.html", b1, diffcol.Pose(), b2, diffcol.Pose(),
                              manifold.ManifoldOptions(t_topk=-1.0))
    with pytest.raises(ValueError):
        diffcol.view_rollout(tmp_path / "a.html", m, np.zeros((3, 2, 7)) + [0, 0, 0, 1, 0, 0, 0])  # 2 poses, 1 mesh
    with pytest.raises(ValueError):
        diffcol.view_rollout(tmp_path / "a.html", m, np.zeros((3, 5)))
    with pytest.raises(ValueError):
        diffcol.view_rollout(tmp_path / "a.html", m, np.zeros((3, 7)) + [0, 0, 0, 1, 0, 0, 0], names=["a", "b"])
    with pytest.raises(ValueError):
        diffcol.view_rollout(tmp_path / "a.html", m, np.zeros((3, 7)) + [0, 0, 0, 1, 0, 0, 0], manifolds=[None] * 3)
    with pytest.raises(ValueError):
        diffcol.view_rollout(tmp_path / "a.html", [], np.zeros((3, 7)))
    with pytest.raises(OSError):
        diffcol.view_rollout(tmp_path / "no" / "dir.html", m, np.zeros((1, 7)) + [0, 0, 0, 1, 0, 0, 0])


def test_mesh_pages_are_documented():
    for needle in ["activity", "X_W1", "ManifoldOptions", "min_activity"]:
        assert needle in diffcol.view_manifold.__doc__, needle
    for needle in ["(T, B, 7)", "manifolds", "names"]:
        assert needle in diffcol.view_rollout.__doc__, needle


# ------------------------------------------------------------------ DCOL and DiffPills pages, PNG

@needs_viewer
def test_view_dcol_page_holds_the_primitives_and_the_solved_contact(tmp_path):
    from diffcol import dcol
    cone, box = dcol.Cone(1.5, 0.4), dcol.Polytope.box(0.4, 0.3, 0.5)
    X2 = np.array([[x, 0.3, 0.2, 1.0, 0.0, 0.0, 0.0] for x in (2.2, 1.2, 0.7)])
    diffcol.view(tmp_path / "d.html", cone, diffcol.Pose(), box, X2, subdivisions=2)
    sc = scene((tmp_path / "d.html").read_text())
    assert sc["method"] == "dcol" and sc["settings"]["show_scaled_shapes"] is False
    assert [s["type"] for s in sc["shapes"]] == ["cone", "polytope"]
    assert sc["shapes"][1]["mesh"]["vertex_count"] == 24  # 6 faces x 4 corners (flat normals)
    assert len(sc["frames"]) == 3
    for f, x2 in zip(sc["frames"], X2):
        r = dcol.solve_contact(cone, diffcol.Pose(), box, x2)
        assert f["status"] == "ok" and f["alpha"] == r.alpha and f["gap"] == r.gap
        np.testing.assert_array_equal(f["p1_W"], r.p1_W)
        np.testing.assert_array_equal(f["p2_W"], r.p2_W)
        n, p1, p2 = np.array(f["normal_W"]), np.array(f["p1_W"]), np.array(f["p2_W"])
        assert np.linalg.norm(n) == pytest.approx(1.0, abs=1e-12)
        # p2 lies on the box surface: its largest |coordinate / half-extent| is 1
        q = (p2 - x2[:3]) / [0.4, 0.3, 0.5]
        assert np.max(np.abs(q)) == pytest.approx(1.0, abs=1e-9)
        # separating normal: no box corner lies before p2 along n
        corners = x2[:3] + np.array([[sx * 0.4, sy * 0.3, sz * 0.5] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        assert np.min((corners - p2) @ n) >= -1e-9
    alphas = [f["alpha"] for f in sc["frames"]]
    assert alphas[0] > 1.0 > alphas[-1]  # apart, then penetrating
    diffcol.view(tmp_path / "d2.html", cone, diffcol.Pose(), box, X2[0], show_scaled_shapes=True,
                 options=dcol.SolveOptions())
    assert scene((tmp_path / "d2.html").read_text())["settings"]["show_scaled_shapes"] is True


@needs_viewer
def test_view_qp_page_holds_the_closest_points(tmp_path):
    from diffcol import qp
    cap, rect = qp.Capsule(0.5, 2.0), qp.PaddedPolygon.rectangle(1.0, 0.5, 0.1)
    X2 = np.array([[0.5, y, 0.3, 0.9, 0.1, 0.3, 0.2] for y in (1.6, 0.9)])
    diffcol.view(tmp_path / "q.html", cap, diffcol.Pose(), rect, X2, subdivisions=2)
    sc = scene((tmp_path / "q.html").read_text())
    assert sc["method"] == "qp" and [s["type"] for s in sc["shapes"]] == ["capsule", "padded_polygon"]
    assert sc["shapes"][0]["description"] == "capsule(a=1/0/0, b=-1/0/0, radius=0.5)"
    for f, x2 in zip(sc["frames"], X2):
        r = qp.proximity(cap, diffcol.Pose(), rect, x2)
        assert f["status"] == "ok" and f["signed_distance"] == r.signed_distance
        np.testing.assert_array_equal(f["p1_W"], r.p1_W)
        np.testing.assert_array_equal(f["p2_W"], r.p2_W)
        np.testing.assert_array_equal(f["normal_W"], r.normal_W)
        # closest point 1 on the capsule's surface: 0.5 from the core segment [-1, 1] x {0} x {0}
        c1 = np.array(f["p1_W"])
        assert np.linalg.norm(c1 - [np.clip(c1[0], -1, 1), 0, 0]) == pytest.approx(0.5, abs=1e-12)
    assert sc["frames"][0]["signed_distance"] > 0 > sc["frames"][1]["signed_distance"]


@needs_viewer
def test_view_rejects_mixed_kinds_and_wrong_options(tmp_path):
    from diffcol import dcol, qp
    with pytest.raises(ValueError, match="same kind"):
        diffcol.view(tmp_path / "x.html", dcol.Sphere(1.0), np.eye(4), qp.Capsule(0.2, 1.0), [3, 0, 0, 1, 0, 0, 0])
    with pytest.raises(ValueError, match="same kind"):
        diffcol.view(tmp_path / "x.html", diffcol.Sphere(1.0), np.eye(4), dcol.Sphere(1.0), [3, 0, 0, 1, 0, 0, 0])
    with pytest.raises(ValueError, match="options"):
        diffcol.view(tmp_path / "x.html", dcol.Sphere(1.0), np.eye(4), dcol.Sphere(1.0), [3, 0, 0, 1, 0, 0, 0],
                     options=diffcol.SolveOptions())
    with pytest.raises(ValueError):
        diffcol.view(tmp_path / "x.html", "sphere", np.eye(4), "sphere", [3, 0, 0, 1, 0, 0, 0])


def decode_png(data):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, interlace = (int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big"),
                                             body[8], body[9], body[12])
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
        elif kind == b"IDAT":
            idat += body
    ch = 3 if ctype == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * ch)
    out = np.zeros((h, w * ch), np.int64)
    prev = np.zeros(w * ch, np.int64)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) % 256
        else:  # Sub, Average, Paeth: byte by byte
            cur = np.zeros_like(line)
            for i in range(len(line)):
                a = cur[i - ch] if i >= ch else 0
                b, c = prev[i], (prev[i - ch] if i >= ch else 0)
                if f == 1:
                    p = a
                elif f == 3:
                    p = (a + b) // 2
                else:
                    pp = a + b - c
                    pa, pb, pc = abs(pp - a), abs(pp - b), abs(pp - c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (line[i] + p) % 256
        out[y], prev = cur, cur
    return w, h, out.reshape(h, w, ch)[:, :, :3]


def check_picture(png_path, width, height):
    """The PNG has the requested size, is not one colour, and shows both bodies (blue, orange) and
    both witness-point markers (magenta, green: viewer/src/viewer.js)."""
    w, h, rgb = decode_png(open(png_path, "rb").read())
    assert (w, h) == (width, height)
    px = rgb.reshape(-1, 3)
    colours, counts = np.unique(px, axis=0, return_counts=True)
    assert len(colours) > 100, f"only {len(colours)} colours"
    assert counts.max() < 0.95 * len(px), "nearly one colour"
    r, g, b = px[:, 0], px[:, 1], px[:, 2]
    blue = np.mean((b - r > 30) & (b >= g))
    orange = np.mean((r - b > 70) & (r > g) & (g - b > 20))
    near = lambda ref: int(np.sum(np.abs(px - ref).sum(axis=1) <= 12))
    assert blue > 0.005, f"body 1 (blue) hardly visible: {blue:.2%}"
    assert orange > 0.005, f"body 2 (orange) hardly visible: {orange:.2%}"
    assert near([0xD8, 0x1B, 0x60]) >= 10, "witness point 1 (magenta) not visible"
    assert near([0x1E, 0x8A, 0x3C]) >= 10, "witness point 2 (green) not visible"


needs_chromium = pytest.mark.skipif(not (diffcol.has_viewer and diffcol.find_chromium()),
                                    reason="no viewer, or no Chromium to draw the PNG (apt-get install chromium)")


@needs_chromium
def test_view_png_draws_the_dcol_contact(tmp_path):
    from diffcol import dcol
    png = tmp_path / "d.png"
    diffcol.view(tmp_path / "d.html", dcol.Cone(2.0, 0.5), diffcol.Pose(), dcol.Polytope.box(0.5, 0.4, 0.6),
                 [1.9, 0.6, 0.3, 0.9, 0.1, 0.3, 0.2], subdivisions=3, png=png, width=640, height=480)
    check_picture(png, 640, 480)


@needs_chromium
def test_cli_png_draws_the_qp_contact_and_a_dcol_page(tmp_path, cli_exe):
    import subprocess
    png = tmp_path / "q.png"
    r = subprocess.run([cli_exe, "view", "--method", "qp", "--shape1", "capsule:length=2,radius=0.4",
                        "--shape2", "rect:half_x=0.8,half_y=0.5,radius=0.15", "--pose2", "0.3,1.5,0.2,0.9,0.3,0.1,0.2",
                        "--png", str(png), "--width", "640", "--height", "480"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    check_picture(png, 640, 480)
    assert list(tmp_path.iterdir()) == [png]  # the temporary page is gone
    page = tmp_path / "d.html"
    r = subprocess.run([cli_exe, "view", "--method", "dcol", "--shape1", "cylinder:R=0.5,L=2", "--shape2", "sphere:R=0.4",
                        "--pose2", "0.3,1.2,0.1", "--out", str(page), "--subdivisions", "2"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    sc = scene(page.read_text())
    assert sc["method"] == "dcol" and [s["type"] for s in sc["shapes"]] == ["cylinder", "sphere"]
    f = sc["frames"][0]
    # a sphere over the cylinder's side: the normal is radial (along y, z), p2 = centre - 0.4 n
    n = np.array(f["normal_W"])
    np.testing.assert_allclose(n, np.array([0, 1.2, 0.1]) / np.hypot(1.2, 0.1), atol=1e-9)
    np.testing.assert_allclose(f["p2_W"], np.array([0.3, 1.2, 0.1]) - 0.4 * n, atol=1e-9)


@needs_viewer
def test_cli_png_without_chromium_is_a_clear_error(tmp_path, cli_exe):
    import os
    import subprocess
    env = {k: v for k, v in os.environ.items() if k != "DIFFCOL_CHROMIUM"}
    env["PATH"] = str(tmp_path)  # no browser here
    r = subprocess.run([cli_exe, "view", "--shape1", "sphere", "--shape2", "se", "--pose2", "3,0,0",
                        "--png", str(tmp_path / "a.png")], capture_output=True, text=True, env=env)
    assert r.returncode == 2
    assert "Chromium" in r.stderr and "apt-get install chromium" in r.stderr, r.stderr
    assert not (tmp_path / "a.png").exists()


@needs_viewer
def test_render_png_with_a_missing_browser_raises(tmp_path):
    page = diffcol.view(tmp_path / "a.html", diffcol.Sphere(1.0), np.eye(4), diffcol.Sphere(1.0),
                        [3, 0, 0, 1, 0, 0, 0], subdivisions=0)
    with pytest.raises(RuntimeError, match="not an executable"):
        diffcol.render_png(page, tmp_path / "a.png", chromium=str(tmp_path / "no-browser"))
    with pytest.raises(ValueError):
        diffcol.render_png(page, tmp_path / "a.png", width=4)
    with pytest.raises(RuntimeError, match="no directory"):
        diffcol.render_png(page, tmp_path / "no" / "a.png")
    with pytest.raises(RuntimeError, match="no page"):
        diffcol.render_png(tmp_path / "missing.html", tmp_path / "a.png")
