# SPDX-License-Identifier: MIT
"""What the tests share: the glTF samples of ../shared beside the checkout, the C CLI (ARBOR_CLI)
whose `arbor dump --json` is the reference for files, and double-precision reference math.

In CI (CI=true) a missing ../shared or CLI is a failure, never a skip."""
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
SAMPLES = os.path.join(SHARED, "gltf", "samples")
INVALID = os.path.join(SHARED, "gltf", "invalid")
IN_CI = os.environ.get("CI") == "true"


def need(condition, why):
    """Skips the test when condition is false, or fails it in CI."""
    if not condition:
        if IN_CI:
            pytest.fail(f"{why} (CI=true: a missing input is a failure)")
        pytest.skip(why)


def shared_path(*parts):
    path = os.path.join(SHARED, *parts)
    need(os.path.exists(path), f"{path} is absent (../shared beside the checkout)")
    return path


def sample_files():
    """Every .gltf / .glb under ../shared/gltf/samples, sorted."""
    found = []
    if os.path.isdir(SAMPLES):
        for folder in sorted(os.listdir(SAMPLES)):
            d = os.path.join(SAMPLES, folder)
            if os.path.isdir(d):
                found += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith((".gltf", ".glb"))]
    return found


@pytest.fixture(scope="session")
def cli():
    """The path of the `arbor` command line tool: ARBOR_CLI, else one of the usual build folders."""
    path = os.environ.get("ARBOR_CLI")
    if not path:
        for build in ("float", "dev", "bench", "."):
            candidate = os.path.join(ROOT, "build", build, "arbor")
            if os.path.isfile(candidate):
                path = candidate
                break
    path = path or shutil.which("arbor")
    need(path and os.access(path, os.X_OK), "the arbor CLI was not found (set ARBOR_CLI)")
    return path


def run_json(cli_path, *args):
    """The JSON an `arbor` command prints: run_json(cli, "dump", path, "--json")."""
    out = subprocess.run([cli_path, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


# ---- double-precision reference math (independent of arbor) --------------------------------------

def quat_matrix(q):
    x, y, z, w = (float(v) for v in q)
    n = np.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def trs_matrix(t=(0, 0, 0), r=(0, 0, 0, 1), s=(1, 1, 1)):
    """T @ R @ S in double precision."""
    m = np.eye(4)
    m[:3, :3] = quat_matrix(r) * np.asarray(s, dtype=np.float64)
    m[:3, 3] = t
    return m


def axis_quat(axis, degrees):
    h = np.radians(degrees) / 2
    a = np.asarray(axis, dtype=np.float64)
    return tuple(np.append(a / np.linalg.norm(a) * np.sin(h), np.cos(h)))
