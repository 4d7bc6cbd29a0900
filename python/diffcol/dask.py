"""diffcol.dask: batches of queries spread over the workers of a dask.distributed cluster.

Optional: needs dask.distributed (Debian's python3-distributed); ``import diffcol`` does not
import it. diffcol must be importable on every worker (the same build, or one built alike).

    map_contact_batch(client, pairs, X_W1, X_W2, chunk_size=..., **batch_options)
        ContactBatch.solve over many pairs: the pair axis is cut into chunks, each chunk is solved
        by a ContactBatch on a worker (on the worker's cores), and the arrays come back joined in
        order: the same arrays as ContactBatch(pairs, **batch_options).solve(X_W1, X_W2) run
        here, bit for bit (a pair's queries depend on that pair alone, its warm start included).

    map_scene_query(client, scene, X_WB, chunk_size=..., **query_options)
        Scene.query at many configurations of one scene: the scene is pickled once and sent to
        the workers once; each configuration is queried from cold warm starts, so each result
        equals the same loop run here (scene_query_arrays below), bit for bit.

Shapes, Scene and RobotModel pickle; a Robot does not (rebuild it on the worker from a pickled
Scene and RobotModel, see docs/scene.md).
"""

import pickle

import numpy as np
from distributed import Client  # noqa: F401  (ImportError here: dask.distributed is missing)

from . import _diffcol

__all__ = ["BatchArrays", "map_contact_batch", "map_scene_query", "scene_query_arrays"]

# The keyword arguments of SolveOptions: a SolveOptions travels to the workers as these values.
_SOLVE_OPTION_FIELDS = ("tolerance", "max_iterations", "max_attempts", "surrogate_factor", "coincident_tolerance",
                        "warm_start", "continuation", "polish_threshold", "warm_predictor", "last_resort_iterations")

# The per-pair arrays of a SceneQueryResult (those of derivatives only with derivatives=True).
_SCENE_FIELDS = ("shape1", "shape2", "body1", "body2", "family", "status", "solver_status", "ok", "separated",
                 "has_alpha", "has_gap", "has_distance", "closest", "alpha", "gap", "distance", "p1_W", "p2_W",
                 "normal_W")
_SCENE_DERIVATIVE_FIELDS = ("derivatives_ok", "points_ok", "normal_ok", "J_alpha", "J_gap", "J_distance", "J_p1_W",
                            "J_p2_W", "J_normal_W")


class BatchArrays:
    """The arrays of a ContactBatch.solve gathered from the workers: the fields of BatchResult
    (status, alpha, p1_W, ..., X_12) as attributes and by name, ok, steps, pairs, and derivatives
    (None or a BatchArrays of the BatchDerivatives fields)."""

    def __init__(self, arrays, steps, pairs, derivatives=None):
        self._arrays = dict(arrays)
        self.steps = steps
        self.pairs = pairs
        self.derivatives = derivatives

    def as_dict(self):
        """The arrays as a dict {name: array}."""
        return dict(self._arrays)

    def __getitem__(self, name):
        return self._arrays[name]

    def __getattr__(self, name):
        arrays = self.__dict__.get("_arrays", {})
        if name in arrays:
            return arrays[name]
        raise AttributeError(name)

    def __repr__(self):
        ok = self._arrays.get("ok")
        okt = "" if ok is None else f", ok={int(np.sum(ok))}/{ok.size}"
        return (f"BatchArrays(steps={self.steps}, pairs={self.pairs}{okt}, "
                f"derivatives={self.derivatives is not None})")


def _pose_array(X, what):
    """X as a float64 array and the length of its leading axes: (), (P,) or (T, P)."""
    if isinstance(X, _diffcol.Pose):
        X = X.matrix()
    a = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
    if a.ndim >= 1 and a.shape[-1] == 7:
        lead = a.shape[:-1]
    elif a.ndim >= 2 and a.shape[-2:] == (4, 4):
        lead = a.shape[:-2]
    else:
        raise ValueError(f"{what}: expected poses of shape (..., 7) or (..., 4, 4), got {a.shape}")
    if len(lead) > 2:
        raise ValueError(f"{what}: at most two leading axes (T, P), got {a.shape}")
    return a, lead


def _is_one_pair(pairs):
    return (isinstance(pairs, tuple) and len(pairs) == 2
            and not isinstance(pairs[0], (tuple, list)) and not isinstance(pairs[1], (tuple, list)))


def _options_dict(options):
    if options is None:
        return None
    if isinstance(options, dict):
        return dict(options)
    return {k: getattr(options, k) for k in _SOLVE_OPTION_FIELDS}


def _solve_chunk(pairs, count, X_W1, X_W2, kwargs):
    """One chunk on a worker: a ContactBatch of these pairs (or of `count` copies of one pair)."""
    kwargs = dict(kwargs)
    if kwargs.get("options") is not None:
        kwargs["options"] = _diffcol.SolveOptions(**kwargs["options"])
    else:
        kwargs.pop("options", None)
    if count is not None:
        pairs = [pairs] * count
    res = _diffcol.ContactBatch(list(pairs), **kwargs).solve(X_W1, X_W2)
    arrays = res.as_dict()
    arrays["ok"] = np.asarray(res.ok)
    der = None if res.derivatives is None else res.derivatives.as_dict()
    return arrays, der


def map_contact_batch(client, pairs, X_W1, X_W2, *, chunk_size=1024, num_threads=0, options=None,
                      derivatives=False, frame=None):
    """ContactBatch(pairs, ...).solve(X_W1, X_W2) with the pairs cut into chunks of chunk_size,
    each solved on a worker of `client` (a dask.distributed.Client).

    pairs: a list of P pairs (shape1, shape2), or one pair (shape1, shape2) for every pose (P from
      the pose arrays; it is sent to the workers once).
    X_W1, X_W2: as ContactBatch.solve takes them: (P, 7), (P, 4, 4), (T, P, 7), (T, P, 4, 4), or
      one pose (a Pose, (7,) or (4, 4)) for every query.
    num_threads, options, derivatives, frame: those of ContactBatch, for each chunk's batch
      (num_threads=0: all the worker's cores).
    Returns a BatchArrays: the arrays of BatchResult (leading axes (P,) or (T, P)), joined in the
    order of the pairs, equal to the local batch's bit for bit. ValueError for inconsistent sizes.
    """
    if not (isinstance(chunk_size, (int, np.integer)) and chunk_size >= 1):
        raise ValueError(f"map_contact_batch: chunk_size must be an integer >= 1, got {chunk_size!r}")
    a1, lead1 = _pose_array(X_W1, "X_W1")
    a2, lead2 = _pose_array(X_W2, "X_W2")
    if lead1 and lead2 and lead1 != lead2:
        raise ValueError(f"map_contact_batch: X_W1 and X_W2 have leading shapes {lead1} and {lead2}")
    lead = lead1 or lead2
    one_pair = _is_one_pair(pairs)
    if one_pair:
        if not lead:
            lead = (1,)
        P = lead[-1]
    else:
        pairs = list(pairs)
        P = len(pairs)
        if not lead:
            lead = (P,)
        if lead[-1] != P:
            raise ValueError(f"map_contact_batch: {P} pairs but the poses' last leading axis is {lead[-1]}")
    steps = lead[0] if len(lead) == 2 else 1
    axis = len(lead) - 1  # the pair axis of the pose arrays and of every result array
    kwargs = {"num_threads": num_threads, "options": _options_dict(options), "derivatives": derivatives}
    if frame is not None:
        kwargs["frame"] = frame
    if P == 0:
        return BatchArrays(_solve_chunk([], None, a1, a2, kwargs)[0], steps, 0)

    shared = client.scatter([pairs], broadcast=True)[0] if one_pair else None  # one future: the pair
    futures = []
    for start in range(0, P, chunk_size):
        end = min(P, start + chunk_size)
        c1 = np.take(a1, range(start, end), axis=axis) if lead1 else a1
        c2 = np.take(a2, range(start, end), axis=axis) if lead2 else a2
        if one_pair:
            futures.append(client.submit(_solve_chunk, shared, end - start, c1, c2, kwargs, pure=False))
        else:
            futures.append(client.submit(_solve_chunk, pairs[start:end], None, c1, c2, kwargs, pure=False))
    parts = client.gather(futures)
    arrays = {k: np.concatenate([p[0][k] for p in parts], axis=axis) for k in parts[0][0]}
    der = None
    if parts[0][1] is not None:
        der = BatchArrays({k: np.concatenate([p[1][k] for p in parts], axis=axis) for k in parts[0][1]}, steps, P)
    return BatchArrays(arrays, steps, P, der)


def scene_query_arrays(result):
    """The arrays of a SceneQueryResult as a dict {name: array} (what map_scene_query returns per
    configuration): the pair fields, candidates, and the derivative blocks when it has them."""
    out = {k: np.asarray(getattr(result, k)) for k in _SCENE_FIELDS}
    out["candidates"] = result.candidates
    try:
        der = {k: np.asarray(getattr(result, k)) for k in _SCENE_DERIVATIVE_FIELDS}
    except ValueError:  # a query without derivatives
        der = {}
    out.update(der)
    return out


def _query_chunk(scene_bytes, X_WB, options):
    scene = pickle.loads(scene_bytes)
    out = []
    for X in X_WB:
        scene.set_body_poses(X)
        scene.reset_warm_starts()
        out.append(scene_query_arrays(scene.query(**options)))
    return out


def map_scene_query(client, scene, X_WB, *, chunk_size=64, margin=0.0, euclidean=True, derivatives=False,
                    frame=None, num_threads=1):
    """Scene.query at C configurations of one scene, spread over the workers of `client`.

    X_WB: (C, num_bodies, 7) or (C, num_bodies, 4, 4), every body's pose per configuration (as
      Scene.set_body_poses takes them). The scene is pickled once and sent to the workers once;
      each chunk of chunk_size configurations runs on one worker, on its own copy of the scene.
    margin, euclidean, derivatives, frame, num_threads: those of Scene.query.
    Returns a list of C dicts of arrays (scene_query_arrays), in order: configuration c's equals
    scene_query_arrays of scene.set_body_poses(X_WB[c]); scene.reset_warm_starts();
    scene.query(...) run here, bit for bit. The scene passed in is not changed.
    """
    if not (isinstance(chunk_size, (int, np.integer)) and chunk_size >= 1):
        raise ValueError(f"map_scene_query: chunk_size must be an integer >= 1, got {chunk_size!r}")
    X = np.ascontiguousarray(np.asarray(X_WB, dtype=np.float64))
    n = scene.num_bodies
    if not ((X.ndim == 3 and X.shape[1:] == (n, 7)) or (X.ndim == 4 and X.shape[1:] == (n, 4, 4))):
        raise ValueError(f"map_scene_query: X_WB must have shape (C, {n}, 7) or (C, {n}, 4, 4), got {X.shape}")
    options = {"margin": margin, "euclidean": euclidean, "derivatives": derivatives, "num_threads": num_threads}
    if frame is not None:
        options["frame"] = frame
    if X.shape[0] == 0:
        return []
    blob = client.scatter(pickle.dumps(scene), broadcast=True)
    futures = [client.submit(_query_chunk, blob, X[s:s + chunk_size], options, pure=False)
               for s in range(0, X.shape[0], chunk_size)]
    return [r for part in client.gather(futures) for r in part]
