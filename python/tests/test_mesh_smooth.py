"""diffcol.mesh and diffcol.smooth: independent references (closed forms, numpy formulas, finite
differences), ValueError on invalid input, docstrings."""
import numpy as np
import pytest

from diffcol import mesh, smooth


def box_signed_distance(p, half):
    """Closed-form signed distance of an axis-aligned box centred at the origin."""
    q = np.abs(p) - half
    outside = np.linalg.norm(np.maximum(q, 0.0), axis=-1)
    inside = np.minimum(np.max(q, axis=-1), 0.0)
    return outside + inside


def test_box_closed_forms():
    size = np.array([1.0, 0.6, 0.4])
    b = mesh.make_box(size)
    assert b.num_vertices == 8 and b.num_faces == 12 and b.edges.shape == (18, 2)
    assert b.volume() == pytest.approx(np.prod(size), rel=1e-12)
    assert b.area() == pytest.approx(2 * (size[0] * size[1] + size[1] * size[2] + size[0] * size[2]), rel=1e-12)
    np.testing.assert_allclose(b.bounding_box(), [-size / 2, size / 2], atol=1e-15)
    rng = np.random.default_rng(3)
    p = rng.uniform(-1.0, 1.0, size=(300, 3))
    np.testing.assert_allclose(mesh.signed_distance(b, p), box_signed_distance(p, size / 2), atol=1e-12)
    inside = np.all(np.abs(p) < size / 2, axis=1)
    np.testing.assert_array_equal(mesh.contains(b, p), inside)
    assert mesh.contains(b, [0, 0, 0]) is True
    d, c = mesh.distance_to_surface(b, [2.0, 0.0, 0.0])
    assert d == pytest.approx(1.5) and np.allclose(c, [0.5, 0.0, 0.0])
    # face normals point outward: the face centroid moved along the normal leaves the box
    for f in range(b.num_faces):
        centroid = b.vertices[b.faces[f]].mean(axis=0)
        assert not mesh.contains(b, centroid + 0.01 * b.face_normal(f))


def test_icosphere_and_t_shape():
    s = mesh.make_icosphere(0.5, 3)
    assert s.num_faces == 20 * 4 ** 3
    np.testing.assert_allclose(np.linalg.norm(s.vertices, axis=1), 0.5, rtol=1e-12)
    assert s.volume() == pytest.approx(4 / 3 * np.pi * 0.125, rel=2e-2)
    t = mesh.make_t_shape()
    lo, hi = t.bounding_box()
    np.testing.assert_allclose(hi - lo, [0.25, 0.20, 0.05], rtol=1e-12)
    np.testing.assert_allclose(t.volume_centroid(), 0.0, atol=1e-12)
    dims = mesh.TShapeDimensions(bar_length=0.3)
    assert mesh.make_t_shape(dims).bounding_box()[1][0] == pytest.approx(0.15)


def test_mesh_from_arrays_and_obj(tmp_path):
    b = mesh.make_box([1, 1, 1])
    again = mesh.TriangleMesh(b.vertices, b.faces)
    np.testing.assert_array_equal(again.vertices, b.vertices)
    np.testing.assert_array_equal(again.faces, b.faces)
    path = tmp_path / "box.obj"
    with open(path, "w") as f:
        for v in b.vertices:
            f.write("v %r %r %r\n" % tuple(v))
        for face in b.faces:
            f.write("f %d %d %d\n" % tuple(face + 1))
    loaded = mesh.load_mesh(path)
    assert loaded.volume() == pytest.approx(1.0, rel=1e-12)
    assert sorted(map(tuple, loaded.vertices)) == sorted(map(tuple, b.vertices))


def test_mesh_invalid_input(tmp_path):
    b = mesh.make_box([1, 1, 1])
    with pytest.raises(ValueError):                      # open mesh (a face missing)
        mesh.TriangleMesh(b.vertices, b.faces[:-1])
    with pytest.raises(ValueError):                      # inconsistent orientation
        mesh.TriangleMesh(b.vertices, np.vstack([b.faces[:-1], b.faces[-1][::-1]]))
    with pytest.raises(ValueError):                      # inside out
        mesh.TriangleMesh(b.vertices, b.faces[:, ::-1])
    with pytest.raises(ValueError, match="faces"):
        mesh.TriangleMesh(b.vertices, b.faces[:, :2])
    with pytest.raises(ValueError, match="vertices"):
        mesh.TriangleMesh(np.where(np.arange(24).reshape(8, 3) == 0, np.nan, b.vertices), b.faces)
    with pytest.raises(ValueError):
        mesh.make_box([1, -1, 1])
    with pytest.raises(ValueError):
        mesh.make_box([1, np.inf, 1])
    with pytest.raises(ValueError):
        mesh.make_icosphere(0.5, 9)
    with pytest.raises(ValueError):
        mesh.make_t_shape(mesh.TShapeDimensions(stem_width=0.3))
    with pytest.raises(ValueError):
        mesh.load_mesh(tmp_path / "missing.obj")
    with pytest.raises(ValueError):
        b.face_normal(12)
    with pytest.raises(ValueError):
        mesh.contains(b, [0, 0])


def fd(f, x, h=1e-4):
    return (4 * (f(x + h / 2) - f(x - h / 2)) / h - (f(x + h) - f(x - h)) / (2 * h)) / 3


@pytest.mark.parametrize("t", [0.05, 0.5])
def test_scalar_operators_against_formulas(t):
    for x in np.linspace(-1, 1, 9):
        assert smooth.sigmoid(x, t) == pytest.approx(1 / (1 + np.exp(-x / t)), rel=1e-12)
        assert smooth.softplus(x, t) == pytest.approx(t * np.log1p(np.exp(x / t)), rel=1e-12)
        assert smooth.soft_sign(x, t) == pytest.approx(np.tanh(x / t), rel=1e-12, abs=1e-15)
        assert smooth.sigmoid_derivative(x, t) == pytest.approx(fd(lambda y: smooth.sigmoid(y, t), x), rel=1e-6, abs=1e-9)
        v, dx = smooth.softplus(x, t, derivative=True)
        assert dx == pytest.approx(fd(lambda y: smooth.softplus(y, t), x), rel=1e-6, abs=1e-9)
        assert smooth.soft_sign_derivative(x, t) == pytest.approx(fd(lambda y: smooth.soft_sign(y, t), x), rel=1e-6, abs=1e-9)
        dxc, dlo, dhi = smooth.soft_clip_derivative(x, -0.3, 0.4, t)
        assert dxc == pytest.approx(fd(lambda y: smooth.soft_clip(y, -0.3, 0.4, t), x), rel=1e-6, abs=1e-9)
        assert dlo == pytest.approx(fd(lambda y: smooth.soft_clip(x, y, 0.4, t), -0.3), rel=1e-6, abs=1e-9)
        assert dhi == pytest.approx(fd(lambda y: smooth.soft_clip(x, -0.3, y, t), 0.4), rel=1e-6, abs=1e-9)
    assert smooth.soft_clip(5.0, -1, 1, 0.0) == 1.0 and smooth.sigmoid(0.0, 0.0) == 0.5


def test_vector_operators_against_numpy():
    rng = np.random.default_rng(1)
    x, t = rng.normal(size=7), 0.3
    v, w = smooth.logsumexp(x, t)
    assert v == pytest.approx(t * np.log(np.sum(np.exp(x / t))), rel=1e-13)
    np.testing.assert_allclose(w, np.exp(x / t) / np.sum(np.exp(x / t)), rtol=1e-12)
    v, w = smooth.softmin(x, t)
    assert v == pytest.approx(-t * np.log(np.sum(np.exp(-x / t))), rel=1e-13)
    np.testing.assert_allclose(smooth.soft_argmin(x, t), w, rtol=1e-14)
    np.testing.assert_array_equal(smooth.soft_argmax(x, 0.0), np.eye(7)[np.argmax(x)])
    # SoftSort (Prillo & Eisenschlos) written in numpy
    k = 3
    P, order = smooth.soft_top_k(x, k, t)
    s = np.sort(x)[::-1][:k]
    ref = np.exp(-np.abs(s[:, None] - x[None, :]) / t)
    ref /= ref.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(P, ref, rtol=1e-12)
    np.testing.assert_array_equal(order, np.argsort(-x, kind="stable")[:k])
    # VJP / JVP against central differences (sort order locally constant)
    G = rng.normal(size=(k, 7))
    g = smooth.soft_top_k_vjp(x, k, t, P, G)
    dx = rng.normal(size=7)
    dP = smooth.soft_top_k_jvp(x, k, t, P, dx)
    num = fd(lambda e: smooth.soft_top_k(x + e * dx, k, t)[0], 0.0, 1e-5)
    np.testing.assert_allclose(dP, num, rtol=1e-6, atol=1e-8)
    assert float(g @ dx) == pytest.approx(float(np.sum(G * dP)), rel=1e-10)


def test_smooth_invalid_input():
    for f in (lambda: smooth.sigmoid(1.0, -1.0), lambda: smooth.softplus(1.0, np.nan),
              lambda: smooth.soft_clip(0.0, 1.0, -1.0, 0.1), lambda: smooth.logsumexp([], 0.1),
              lambda: smooth.soft_top_k([1.0, 2.0], 3, 0.1), lambda: smooth.logsumexp([[1.0]], 0.1),
              lambda: smooth.soft_top_k_vjp([1.0, 2.0], 1, 0.1, np.ones((2, 2)), np.ones((1, 2)))):
        with pytest.raises(ValueError):
            f()
    # NaN inputs (they used to come back as NaN); -inf stays allowed where the operator has a limit
    nan = float("nan")
    for f in (lambda: smooth.sigmoid(nan, 0.1), lambda: smooth.soft_sign(nan, 0.1),
              lambda: smooth.softplus(nan, 0.1), lambda: smooth.soft_clip(nan, 0.0, 1.0, 0.1),
              lambda: smooth.soft_clip_derivative(0.5, nan, 1.0, 0.1), lambda: smooth.soft_greater(1.0, nan, 0.1),
              lambda: smooth.soft_within(nan, 0.0, 1.0, 0.1), lambda: smooth.logsumexp([nan, 1.0, 2.0], 0.1),
              lambda: smooth.softmin([1.0, nan], 0.1), lambda: smooth.soft_argmax([nan, 1.0], 0.1),
              lambda: smooth.soft_argmin([nan, 1.0], 0.1), lambda: smooth.soft_top_k([1.0, nan], 1, 0.1),
              lambda: smooth.soft_top_k_jvp([1.0, 2.0], 1, 0.1, np.full((1, 2), nan), np.ones(2))):
        with pytest.raises(ValueError, match="NaN"):
            f()
    value, w = smooth.logsumexp([-np.inf, 1.0, 2.0], 0.1)
    assert np.isfinite(value) and w[0] == 0.0 and np.isclose(w.sum(), 1.0)


def test_docstrings():
    for mod in (mesh, smooth):
        assert mod.__doc__ and len(mod.__doc__) > 100
        for name in dir(mod):
            if name.startswith("_"):
                continue
            obj = getattr(mod, name)
            if callable(obj):
                assert obj.__doc__ and obj.__doc__.strip(), f"{mod.__name__}.{name} has no docstring"
