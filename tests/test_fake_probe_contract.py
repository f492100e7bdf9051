"""The fake probe of the runner tests speaks as the real one does: what it prints for
``list --json`` has the real probe's shape, kernel for kernel and parameter for parameter, so
that a test passing against the fake says something about the real probe."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require_probe

FAKE = Path(__file__).with_name("fake_probe.py")


def listed(argv) -> dict:
    out = subprocess.run([*argv, "list", "--json"], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def real():
    return listed([require_probe()])


@pytest.fixture(scope="module")
def fake():
    return listed([sys.executable, str(FAKE)])


def shape(value):
    """The JSON type of a value, as the contract compares them."""
    if isinstance(value, list):
        return ("list", tuple(sorted({shape(v) for v in value}, key=str)))
    return type(value).__name__


def test_the_document_has_the_same_keys(real, fake):
    assert set(fake) == set(real) == {"kernels"}


def test_every_fake_kernel_is_a_real_one_with_the_same_keys(real, fake):
    kernels = {k["name"]: k for k in real["kernels"]}
    for kernel in fake["kernels"]:
        assert kernel["name"] in kernels
        assert set(kernel) == set(kernels[kernel["name"]])
        assert shape(kernel["help"]) == shape(kernels[kernel["name"]]["help"])


def test_every_fake_parameter_is_a_real_one_of_the_same_shape(real, fake):
    kernels = {k["name"]: {p["name"]: p for p in k["params"]} for k in real["kernels"]}
    for kernel in fake["kernels"]:
        for param in kernel["params"]:
            truth = kernels[kernel["name"]].get(param["name"])
            assert truth is not None, f"{kernel['name']} has no parameter {param['name']}"
            assert set(param) == set(truth), (kernel["name"], param["name"])
            for key in truth:
                if truth[key] is not None and param[key] is not None:
                    assert shape(param[key]) == shape(truth[key]), (kernel["name"], param["name"], key)
            assert param["kind"] == truth["kind"], (kernel["name"], param["name"])
            assert (param["choices"] is None) == (truth["choices"] is None)
            assert set(param["choices"] or ()) <= set(truth["choices"] or ())


def test_the_contract_sees_a_drift():
    """An int default where the probe prints text is found: the contract can fail."""
    assert shape(64) != shape("64")
    assert shape(["a", "b"]) == shape(["c"]) != shape([1])
