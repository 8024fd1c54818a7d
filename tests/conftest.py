import os

from hypothesis import HealthCheck, settings

# numba compiles on first call; the first example of a property test may be slow.
settings.register_profile("sweeplab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "sweeplab"))
