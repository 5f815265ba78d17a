"""Test settings: property-based tests run derandomized, so a red run can be reproduced."""

from hypothesis import HealthCheck, settings

settings.register_profile("deterministic", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("deterministic")
