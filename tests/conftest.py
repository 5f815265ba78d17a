"""Test settings: property-based tests run derandomized, so a red run can be reproduced.

Profiles: "ci" (the default: derandomized, the fuzzing suite within a few minutes) and
"long" (by hand, ``--hypothesis-profile=long``: the fuzzing suite over more than 10,000
inputs, a fresh random draw each run)."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("long", parent=settings.get_profile("ci"), derandomize=False, max_examples=1_200)
settings.load_profile("ci")


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    """How the fuzzing suite's runs ended, by target and exit status."""
    import sys

    fuzz = sys.modules.get("test_fuzz")
    if fuzz is None or not fuzz.OUTCOMES:
        return
    terminalreporter.write_line(
        "fuzzing: "
        + ", ".join(f"{target} {status}: {n}" for (target, status), n in sorted(fuzz.OUTCOMES.items()))
        + f"; {sum(fuzz.OUTCOMES.values())} runs"
    )
