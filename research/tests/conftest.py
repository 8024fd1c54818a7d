"""The research suite: tests of the harnesses under research/ (run by scripts/test after the product's
suite). The harnesses are scripts, not a package, so their folder, the benchmarks' folder (whose
cases they share) and the repository root (for the product suite's strategies) go on the path."""

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[2]
for folder in (ROOT, ROOT / "benchmarks", ROOT / "research"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

# numba compiles on first call; the first example of a property test may be slow (as in tests/conftest.py).
settings.register_profile("sweeplab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "sweeplab"))
