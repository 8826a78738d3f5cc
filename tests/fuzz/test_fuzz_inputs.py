"""Every input path fuzzed on every change, on a bounded budget.

The budget per kind is `MAFVAR_FUZZ_EXAMPLES` (default 150: a minute or two for
all six kinds on two cores); `scripts/fuzz_inputs.py` runs the big budget
(5,000 inputs per kind) and prints the figures. A failure names the input
Hypothesis shrank it to.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fuzz_kinds import KINDS, verify_store_after

EXAMPLES = int(os.environ.get("MAFVAR_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
                suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("kind", list(KINDS))
def test_hostile_inputs_end_in_a_result_or_one_line(kind, scratch):
    spec = KINDS[kind]
    work = scratch / kind
    work.mkdir(exist_ok=True)
    outcomes: dict[str, int] = {}

    @FUZZ
    @given(st.data())
    def check(data):
        inp = spec.draw(data, work)
        label = spec.run(inp, work)  # raises FuzzFailure on a traceback or a bad refusal
        outcomes[label] = outcomes.get(label, 0) + 1

    check()
    if kind == "store":
        verify_store_after(work)
    assert sum(outcomes.values()) >= EXAMPLES // 2, outcomes
