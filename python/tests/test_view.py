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
    assert diffcol.three_version()


@pytest.mark.skipif(diffcol.has_viewer, reason="built with the viewer")
def test_view_without_the_viewer_raises_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError, match="viewer/setup.sh"):
        diffcol.view(tmp_path / "a.html", diffcol.Sphere(1.0), np.eye(4), diffcol.Sphere(1.0), [3, 0, 0, 1, 0, 0, 0])
    assert diffcol.three_version() == ""


def test_view_is_documented():
    for needle in ["path", "X_W1", "sequence", "subdivisions", "RuntimeError", "has_viewer"]:
        assert needle in diffcol.view.__doc__, needle
