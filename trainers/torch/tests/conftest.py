"""Shared fixtures: the package on sys.path and one tiny model built per code version."""

from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import torch  # noqa: E402

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))


@pytest.fixture(scope="session")
def tiny_dir() -> str:
    """Folder of the warmed-up tiny model (seed 0), built once and cached across runs."""
    from owrl_torch.tiny import ensure_tiny

    return ensure_tiny(seed=0)


@pytest.fixture()
def tiny_bundle(tiny_dir: str):
    """A fresh TinyBundle loaded from the cached folder (tests may modify its model)."""
    from owrl_torch.tiny import load_tiny

    return load_tiny(tiny_dir)


@pytest.fixture(scope="session")
def device() -> str:
    """Where the model tests run: $OWRL_TEST_DEVICE (e.g. cuda) or the CPU."""
    want = os.environ.get("OWRL_TEST_DEVICE", "cpu")
    if want.startswith("cuda") and not torch.cuda.is_available():
        pytest.skip(f"OWRL_TEST_DEVICE={want} but CUDA is not available")
    return want
