"""ReferenceFrame in the Python API: every derivative function takes `frame`, records it, and its
X1 / X2 columns are the world columns times world_twist_from_frame (the C++ tests check each
frame against finite differences: tests/test_reference_frames.cpp)."""

import numpy as np
import pytest

import diffcol
from diffcol import dcol, manifold, qp, ssdf, mesh

RF = diffcol.ReferenceFrame
FRAMES = [RF.local, RF.local_world_aligned]
X1 = diffcol.Pose([0.1, -0.2, 0.3, 0.9, 0.1, 0.3, 0.2])
X2 = diffcol.Pose([1.0, 0.4, 0.2, 0.8, -0.2, 0.1, 0.4])


def M(frame, X):
    return diffcol.world_twist_from_frame(frame, X)


def check_blocks(world, other, names, frame, X_a, X_b):
    assert other.frame == frame
    for n in names:
        for suffix, X in (("X1", X_a), ("X2", X_b)):
            w = np.atleast_2d(getattr(world, f"{n}_{suffix}"))
            o = np.atleast_2d(getattr(other, f"{n}_{suffix}"))
            np.testing.assert_allclose(o, w @ M(frame, X), rtol=1e-9, atol=1e-12, err_msg=f"{n}_{suffix}")


def test_frame_maps():
    for frame in [RF.world, *FRAMES]:
        J = np.arange(18.0).reshape(3, 6)
        np.testing.assert_allclose(diffcol.express_in_frame(J, frame, X1), J @ M(frame, X1))
    np.testing.assert_allclose(M(RF.world, X1), np.eye(6))
    np.testing.assert_allclose(M(RF.local, X1), diffcol.adjoint(X1))
    with pytest.raises(ValueError):
        diffcol.express_in_frame(np.zeros((2, 5)), RF.local, X1)


@pytest.mark.parametrize("frame", FRAMES)
def test_idcol_dcol_qp_frames(frame):
    s1, s2 = diffcol.Superellipsoid(0.5, 0.3, 0.4, 4), diffcol.Sphere(0.35)
    sol = diffcol.solve_contact(s1, X1, s2, X2)
    check_blocks(diffcol.contact_derivatives(sol), diffcol.contact_derivatives(sol, frame=frame),
                 ["J_alpha", "J_gap", "J_p1_W", "J_normal_W"], frame, X1, X2)
    env_w, env = diffcol.alpha_gradient_envelope_world(sol), diffcol.alpha_gradient_envelope_world(sol, frame)
    np.testing.assert_allclose(env[6:], env_w[6:] @ M(frame, X2), rtol=1e-9, atol=1e-12)

    a, b = dcol.Polytope.box(0.4, 0.3, 0.2), dcol.Ellipsoid.from_semi_axes(0.3, 0.2, 0.25)
    r = dcol.solve_contact(a, X1, b, X2)
    check_blocks(dcol.contact_derivatives(r), dcol.contact_derivatives(r, frame=frame),
                 ["J_alpha", "J_gap", "J_p1_W"], frame, X1, X2)
    check_blocks(dcol.normal_derivatives(r), dcol.normal_derivatives(r, frame=frame), ["J_normal_W"], frame, X1, X2)
    e = dcol.euclidean_distance(a, X1, b, X2)
    check_blocks(dcol.distance_derivatives(e), dcol.distance_derivatives(e, frame=frame),
                 ["J_distance", "J_p1_W", "J_normal_W"], frame, X1, X2)

    c, p = qp.Capsule(radius=0.2, length=0.8), qp.PaddedPolygon.rectangle(0.4, 0.3, 0.05)
    pr = qp.proximity(c, X1, p, X2)
    check_blocks(qp.proximity_derivatives(c, X1, p, X2, pr), qp.proximity_derivatives(c, X1, p, X2, pr, frame),
                 ["J_signed_distance", "J_p1_W", "J_normal_W"], frame, X1, X2)


def test_batch_records_its_frame():
    b = diffcol.ContactBatch([(diffcol.Sphere(0.3), diffcol.Sphere(0.4))], derivatives=True,
                             frame=RF.local_world_aligned)
    assert b.frame == RF.local_world_aligned
    b.solve([[0, 0, 0, 1, 0, 0, 0]], [[1.0, 0.2, 0.0, 1, 0, 0, 0]])
    d = b.contact_derivatives(0, 0)
    assert d.frame == RF.local_world_aligned


def test_manifold_and_ssdf_take_the_frame():
    assert {c.name for c in manifold.PoseCoordinates.__members__.values()} == {
        "world", "local", "local_world_aligned", "se3_log"}
    cloud = ssdf.make_aopc(mesh.make_box([0.2, 0.1, 0.1]), ssdf.AopcOptions(num_points=60))
    q_w = ssdf.soft_signed_distance_world(cloud, X1, [0.3, 0.0, 0.4], 1e-3)
    q_l = ssdf.soft_signed_distance_world(cloud, X1, [0.3, 0.0, 0.4], 1e-3, frame=RF.local)
    assert q_w.frame == RF.world and q_l.frame == RF.local
    np.testing.assert_allclose(q_l.J_phi_X, q_w.J_phi_X @ M(RF.local, X1), rtol=1e-9, atol=1e-12)


def test_cli_shape_order_and_keywords():
    # radius first everywhere; keywords name the same thing
    assert qp.Capsule(0.2, 1.0).radius == qp.Capsule(radius=0.2, length=1.0).radius == 0.2
    assert qp.Capsule(0.2, 1.0).length == pytest.approx(1.0)


# The command line's one shape vocabulary (docs/cli.md, "Shapes"): a cylinder, capsule or cone along
# z and a polytope about its centroid are the layers' shapes at X_WG·X_GS; the X1 / X2 columns stay
# twists of the given poses X_WG in every frame (world columns times M(frame, X_WG); one frame
# against central differences through the program).
CLI_PAIRS = [
    ("idcol", "cylinder:radius=0.3,length=1", "polytope:points=0/0/0;1/0/0;0/1/0;0/0/1", "gap", ["--exponent", "6"],
     "local"),
    ("dcol", "cone:height=1,half_angle=0.4", "cylinder:radius=0.3,length=0.8", "gap", [], "local_world_aligned"),
    ("qp", "capsule:radius=0.2,length=1", "capsule:radius=0.3,length=0.6", "signed_distance", [], "local"),
]


def cli_json(cli_exe, *args):
    import json
    import subprocess
    r = subprocess.run([cli_exe, "query", *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def pose_arg(X):
    return ",".join(repr(float(v)) for v in X.to_vector())


@pytest.mark.parametrize("method,shape1,shape2,field,extra,frame", CLI_PAIRS)
def test_cli_vocabulary_columns_are_twists_of_the_given_poses(cli_exe, method, shape1, shape2, field, extra, frame):
    A = diffcol.Pose([0.1, -0.2, 0.3, 0.9, 0.1, 0.3, 0.2])
    B = diffcol.Pose([0.9, 0.7, 1.4, 0.8, -0.2, 0.1, 0.4])
    base = ["--method", method, "--shape1", shape1, "--shape2", shape2, *extra]
    poses = ["--pose1", pose_arg(A), "--pose2", pose_arg(B)]
    blocks = {f: cli_json(cli_exe, *base, *poses, "--derivatives", "--frame", f)["derivatives"]
              for f in ("world", "local", "local_world_aligned")}
    for f, d in blocks.items():
        assert d["ok"] and d["frame"] == f
        for body, X in (("X1", A), ("X2", B)):  # every frame: the world columns times M(frame, X_WG)
            np.testing.assert_allclose(np.array(d[f"J_{field}_{body}"]),
                                       np.array(blocks["world"][f"J_{field}_{body}"]) @ M(getattr(RF, f), X),
                                       rtol=1e-9, atol=1e-12, err_msg=f"{method} {f} {body}")
    # one frame against central differences of the pose of body 1
    h, fd = 1e-6, np.zeros(6)
    for k in range(6):
        vals = []
        for s in (h, -h):
            xi = np.zeros(6)
            xi[k] = s
            X = diffcol.perturb(A, xi, getattr(RF, frame))
            vals.append(cli_json(cli_exe, *base, "--pose1", pose_arg(X), "--pose2", pose_arg(B))[field])
        fd[k] = (vals[0] - vals[1]) / (2 * h)
    np.testing.assert_allclose(np.ravel(blocks[frame][f"J_{field}_X1"]), fd, rtol=1e-5, atol=1e-6, err_msg=method)


def test_cli_vocabulary_same_spelling_same_shape(cli_exe):
    # a capsule along z under a ball: the same witness points in DCOL and QP (by symmetry)
    pair = ["--shape1", "capsule:radius=0.2,length=1", "--shape2", "sphere:radius=0.3", "--pose2", "0,0,1.5"]
    d, q = cli_json(cli_exe, "--method", "dcol", *pair), cli_json(cli_exe, "--method", "qp", *pair)
    np.testing.assert_allclose(d["p1_W"], [0, 0, 0.7], atol=1e-9)
    np.testing.assert_allclose(q["p1_W"], [0, 0, 0.7], atol=1e-9)
    np.testing.assert_allclose(d["p2_W"], q["p2_W"], atol=1e-9)
    # a box of half-extents (0.5, 0.4, 0.3) beside a ball: the smooth iDCOL box within its 2% fit
    pair = ["--shape1", "box:half_extents=0.5/0.4/0.3", "--shape2", "sphere:radius=0.5", "--pose2", "2,0,0"]
    i, d = cli_json(cli_exe, *pair), cli_json(cli_exe, "--method", "dcol", *pair)
    assert d["gap"] == pytest.approx(1.0, abs=1e-9)
    assert i["gap"] == pytest.approx(1.0, abs=0.02 * 0.3 * 2)
    # a shape a method has not: exit 2, naming the shape and the method
    import subprocess
    r = subprocess.run([cli_exe, "query", "--method", "qp", *pair], capture_output=True, text=True)
    assert r.returncode == 2 and "--method qp cannot represent box" in r.stderr and r.stdout == ""
    r = subprocess.run([cli_exe, "query", "--method", "dcol", *pair, "--beta", "30"], capture_output=True, text=True)
    assert r.returncode == 2 and "exact shapes" in r.stderr
