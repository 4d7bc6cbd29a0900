"""diffcol.Robot / RobotModel: a URDF arm in a scene, joint-space derivatives against central
differences in q, bad input."""

from pathlib import Path

import numpy as np
import pytest

import diffcol
from diffcol import dcol

ROBOTS = Path(__file__).resolve().parents[2] / "tests" / "data" / "robots"


def arm_among_obstacles():
    scene = diffcol.Scene()
    table = scene.add_body([0.45, 0, 0.2, 1, 0, 0, 0], static=True)
    scene.add_shape(table, dcol.Polytope.box(0.15, 0.3, 0.2))
    ball = scene.add_body([0.3, -0.3, 0.7, 1, 0, 0, 0], static=True)
    scene.add_shape(ball, dcol.Sphere(0.1))
    model = diffcol.RobotModel.from_urdf_file(str(ROBOTS / "arm7.urdf"), str(ROBOTS / "arm7.srdf"))
    return scene, diffcol.Robot(scene, model), model


def test_model():
    _, robot, model = arm_among_obstacles()
    assert model.num_positions == 7 and model.num_links == 9
    X = model.forward_kinematics(np.zeros(7))
    assert np.allclose(X[-1].p, [0.088, 0.0, 0.926], atol=1e-12)  # the flange at q = 0
    assert model.link_jacobian(np.zeros(7), 8).shape == (6, 7)
    assert robot.num_positions == 7


def test_joint_space_gradients_against_central_differences():
    scene, robot, model = arm_among_obstacles()
    rng = np.random.default_rng(3)
    q = rng.uniform(model.lower_limits + 0.2, model.upper_limits - 0.2)
    robot.set_configuration(q)
    r = robot.query(margin=0.2)
    pairs = r.pairs
    assert len(r) > 0 and r.J_distance_q.shape == (len(r), 7) and r.J_p1_W_q.shape == (len(r), 3, 7)
    keys = list(zip(pairs.shape1, pairs.shape2))

    def values(qq):
        robot.set_configuration(qq)
        p = robot.query(margin=0.6, joint_derivatives=False).pairs
        index = {k: i for i, k in enumerate(zip(p.shape1, p.shape2))}
        return np.array([[p.gap[index[k]], p.distance[index[k]]] for k in keys])

    h = 1e-6
    for j in range(7):
        e = np.zeros(7)
        e[j] = h
        fd = (values(q + e) - values(q - e)) / (2 * h)
        for i in range(len(keys)):
            if not pairs.ok[i]:
                continue
            if pairs.has_gap[i]:
                assert abs(r.J_gap_q[i, j] - fd[i, 0]) <= 1e-5 * max(1.0, abs(fd[i, 0])), (i, j)
            if pairs.separated[i] and pairs.has_distance[i]:
                assert abs(r.J_distance_q[i, j] - fd[i, 1]) <= 1e-5 * max(1.0, abs(fd[i, 1])), (i, j)


def test_bad_input():
    scene, robot, _ = arm_among_obstacles()
    with pytest.raises(ValueError):
        robot.set_configuration(np.zeros(6))
    with pytest.raises(ValueError):
        robot.set_configuration(np.array([0, 0, np.nan, 0, 0, 0, 0.0]))
    with pytest.raises(ValueError, match="floating"):
        diffcol.RobotModel.from_urdf_string(
            '<robot name="r"><link name="a"/><link name="b"/>'
            '<joint name="j" type="floating"><parent link="a"/><child link="b"/></joint></robot>')
    with pytest.raises(ValueError):
        diffcol.RobotModel.from_urdf_file(str(ROBOTS / "missing.urdf"))
