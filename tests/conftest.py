"""Shared test helpers: where the real data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
#: ../shared/corpus next to the repository (present in CI).
CORPUS = TESTS.parent.parent / "shared" / "corpus"
PUBLIC = CORPUS / "public"


def require_corpus(path: Path = PUBLIC) -> Path:
    """`path` inside ../shared/corpus, or skip when it is absent outside CI (fail in CI)."""
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: CI must provide ../shared/corpus")
        pytest.skip(f"{path} not present (outside CI)")
    return path
