# SPDX-License-Identifier: MIT
"""arbor/time.h from Python: records, lookups (one time, an array of times), time travel, the
refusals. Expected values are worked out here from the samples given (numpy, in double)."""
import math

import numpy as np
import pytest

import arbor

TOL = 1e-9 if arbor.real == np.float64 else 2e-6


def rz(angle):
    """The quaternion (x, y, z, w) of a rotation by angle about z, and its 4x4 matrix."""
    c, s = math.cos(angle), math.sin(angle)
    return (0, 0, math.sin(angle / 2), math.cos(angle / 2)), np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def tr(x, y, z):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


@pytest.fixture
def two_samples():
    """base -> arm, arm recorded at 1 s (translation (0, 1, 0), 0.2 rad about z) and 2 s ((2, 3, 0), 1 rad)."""
    with arbor.Scene() as s:
        base = s.add(name="base")
        arm = s.add(name="arm", parent=base)
        arm.record(1.0, translation=(0, 1, 0), rotation=rz(0.2)[0])
        arm.record(2.0, translation=(2, 3, 0), rotation=rz(1.0)[0])
        yield s, base, arm


def test_record_lookup_and_many_times(two_samples):
    s, base, arm = two_samples
    assert np.allclose(arm.translation, (2, 3, 0))  # the latest is the present
    for t in (1.0, 1.25, 2.0):
        u = t - 1
        want = tr(2 * u, 1 + 2 * u, 0) @ rz(0.2 + 0.8 * u)[1]
        assert np.allclose(s.lookup(base, arm, t), want, atol=TOL, rtol=0)
        assert np.allclose(s.lookup(arm, base, t), np.linalg.inv(want), atol=TOL * 10, rtol=0)
    times = np.linspace(1, 2, 101)
    many = s.lookup(None, arm, times)
    assert many.shape == (101, 4, 4)
    for k in (0, 37, 100):
        u = times[k] - 1
        assert np.allclose(many[k], tr(2 * u, 1 + 2 * u, 0) @ rz(0.2 + 0.8 * u)[1], atol=TOL, rtol=0)
    assert np.allclose(s.lookup(base, arm, arbor.LATEST), s.lookup(base, arm, 2.0))
    assert arm.history_range == (1.0, 2.0)
    assert base.history_range == (-math.inf, math.inf)


def test_pose_record_and_lookup_between():
    with arbor.Scene() as s:
        world = s.add(name="world")
        a = s.add(name="a", parent=world)
        pose = s.pose([a])
        for k in range(2):
            pose.translations = [(k, 0, 0)]
            pose.record(k / 60)
        # from a at 1/60 s into world, then into a at 0 s: translation 1
        m = s.lookup_between(a, 0.0, a, 1 / 60, world)
        assert np.allclose(m, tr(1, 0, 0), atol=TOL)


def test_refusals():
    with arbor.Scene() as s:
        base = s.add(name="base")
        arm = s.add(name="arm", parent=base)
        other = s.add(name="other")
        for i in range(101):
            arm.record(3.1 + i * 0.1, translation=(i, 0, 0))
        with pytest.raises(arbor.ExtrapolationError) as e:
            s.lookup(base, arm, 13.12)
        assert "'base/arm' has samples from 3.10 s to 13.10 s; 13.12 s is 0.02 s after the last" in str(e.value)
        assert e.value.node == arm and e.value.time == 13.12 and e.value.first == 3.1
        assert abs(e.value.last - 13.1) < 1e-12
        with pytest.raises(arbor.ExtrapolationError):
            s.lookup(base, arm, np.array([4.0, 20.0]))
        with pytest.raises(arbor.NotConnectedError):
            s.lookup(other, arm, 5.0)


def test_time_hold(two_samples):
    s, base, arm = two_samples
    m1 = rz(1.0)[1]
    assert s.time_hold == 0
    with pytest.raises(arbor.ExtrapolationError):
        s.lookup(base, arm, 2.05)                   # the default: never
    with pytest.raises(arbor.InvalidArgumentError):
        s.time_hold = -1
    assert s.time_hold == 0
    s.time_hold = 0.1
    assert s.time_hold == 0.1
    want = tr(2, 3, 0) @ m1                        # the last sample, held
    assert np.allclose(s.lookup(base, arm, 2.05), want, atol=TOL, rtol=0)
    ms = s.lookup(base, arm, np.array([0.95, 2.05]))
    assert np.allclose(ms[0], tr(0, 1, 0) @ rz(0.2)[1], atol=TOL, rtol=0)
    assert np.allclose(ms[1], want, atol=TOL, rtol=0)
    with pytest.raises(arbor.ExtrapolationError):
        s.lookup(base, arm, 2.2)
