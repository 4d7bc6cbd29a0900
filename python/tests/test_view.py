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
