"""Images of an update: fetched from the learner's image_url, checked against their sha256."""

from __future__ import annotations

import pytest

from owrl_torch.images import fetch_image, fetch_images
from trainreq import ImageServer, png, sha


@pytest.fixture()
def server():
    good = png(20, 10)
    other = png(8, 8, (0, 0, 0))
    s = ImageServer({sha(good): good, "f" * 64: other})
    s.good = good  # type: ignore[attr-defined]
    yield s
    s.close()


def test_fetches_an_image_and_checks_its_hash(server: ImageServer) -> None:
    good = server.good  # type: ignore[attr-defined]
    assert fetch_image(server.url, sha(good)) == good


def test_a_missing_image_a_wrong_hash_or_a_bad_reference_is_none(server: ImageServer) -> None:
    assert fetch_image(server.url, "0" * 64) is None  # 404
    assert fetch_image(server.url, "f" * 64) is None  # bytes of another image
    assert fetch_image(server.url, "not-a-sha") is None
    assert fetch_image("http://127.0.0.1:1/shots/", "a" * 64, timeout_s=2, retries=0) is None


def test_fetch_images_gets_each_distinct_image_once(server: ImageServer) -> None:
    good = server.good  # type: ignore[attr-defined]
    got = fetch_images(server.url, [sha(good), sha(good), "0" * 64])
    assert got == {sha(good): good, "0" * 64: None}
    assert len(server.requests) == 2


def test_without_an_image_url_every_referenced_image_is_missing() -> None:
    assert fetch_images("", ["a" * 64]) == {"a" * 64: None}
    assert fetch_images("", []) == {}
