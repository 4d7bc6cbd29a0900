"""diffcol.sim: penalty-contact simulation (docs/sim.md)."""

import numpy as np
import pytest

import diffcol
from diffcol import sim


def two_bodies():
    scene = diffcol.Scene()
    a, b = scene.add_body(), scene.add_body()
    scene.add_shape(a, diffcol.Superellipsoid(n=1, a=0.5, b=0.3, c=0.3))
    scene.add_shape(b, diffcol.Sphere(0.4))
    inertia = [np.diag([0.05, 0.08, 0.08]), np.eye(3) * 0.06]
    model = sim.ContactModel()
    model.stiffness = 1e3
    system = sim.PenaltySystem(scene, [1.0, 1.5], inertia, model)
    y0 = system.pack([[-1, 0, 0, 1, 0, 0, 0], [1, 0.1, 0, 1, 0, 0, 0]],
                     [[1, 0, 0], [-1, 0, 0]], [[0, 0, 1], [0, 0, 0]])
    return system, y0


def test_simulate_conserves_momentum():
    system, y0 = two_bodies()
    options = sim.SimOptions()
    options.rtol, options.atol = 1e-9, 1e-11
    r = system.simulate(y0, [0.0, 0.5, 1.0, 1.5], options)
    assert r["success"], r["message"]
    assert r["states"].shape == (4, system.state_size)
    assert r["stats"]["max_penetration"] > 0
    i0, i1 = system.invariants(r["states"][0]), system.invariants(r["final_y"])
    assert np.linalg.norm(i1["linear"] - i0["linear"]) < 1e-9 * i0["momentum_scale"]
    assert np.linalg.norm(i1["angular"] - i0["angular"]) < 1e-7 * i0["momentum_scale"]


def test_jacobian_and_sensitivities():
    system, y0 = two_bodies()
    y = y0.copy()
    y[0], y[13] = -0.4, 0.4  # in contact
    J = system.rhs_jacobian(y)
    h = 1e-6
    for j in (0, 3, 7, 10, 13, 20):
        e = np.zeros_like(y)
        e[j] = h
        fd = (system.rhs(y + e) - system.rhs(y - e)) / (2 * h)
        assert np.allclose(J[:, j], fd, atol=1e-5 * max(1.0, np.abs(fd).max()))
    s = system.simulate_sensitivities(y0, 1.0)
    assert s["success"], s["message"]
    assert s["d_initial"].shape == (26, 26) and s["d_stiffness"].shape == (26,)


def test_bad_input():
    system, y0 = two_bodies()
    y = y0.copy()
    y[2] = np.nan
    with pytest.raises(ValueError):
        system.simulate(y, [0.0, 1.0])
    with pytest.raises(ValueError):
        system.rhs(y0[:5])
