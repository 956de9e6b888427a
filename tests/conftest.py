import os

from hypothesis import HealthCheck, settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# How fast this machine is belongs to the benchmarks, not the tests: no deadline per
# example and no health check that fails when generating examples is slow.
settings.register_profile("fbd", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("fbd")

# The tests build native code by the thousand; they leave the user's cache of
# machine code (fbd.native.objcache) alone: its own tests turn it on in a tmp dir.
os.environ.setdefault("FBD_NATIVE_CACHE", "off")
