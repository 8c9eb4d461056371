# SPDX-License-Identifier: MIT
"""bench/robots/python_fk.py FILE.urdf: arbor's Python robot.forward_kinematics of 1,000 random
configurations within limits, ns per link (median of 5 rounds of about 0.2 s), one JSON line."""
import json
import os
import sys
import time

import numpy as np

import arbor

robot = arbor.load_urdf(sys.argv[1])
rng = np.random.default_rng(27)
Q = np.empty((1000, robot.dof))
for j in robot.joints:
    if j.position_index is not None:
        lo, hi = (j.lower, j.upper) if j.lower is not None else (-np.pi, np.pi)
        Q[:, j.position_index] = rng.uniform(lo, hi, len(Q))
reps = 1
while True:  # the repetitions that take about 0.05 s
    t0 = time.perf_counter()
    for _ in range(reps):
        robot.forward_kinematics(Q)
    if time.perf_counter() - t0 >= 0.05:
        break
    reps *= 2
reps *= 4
rounds = []
for _ in range(5):
    t0 = time.perf_counter()
    for _ in range(reps):
        robot.forward_kinematics(Q)
    rounds.append((time.perf_counter() - t0) / reps)
ns = sorted(rounds)[2] * 1e9 / (len(Q) * len(robot.links))
print(json.dumps({"file": os.path.basename(sys.argv[1]), "python_batched_ns_per_link": round(ns, 2)}))
