"""Fetching the images an update references (docs/trainer.md, "Images").

The learner keeps every image of an update on its artifact server until the update is committed
and answers ``GET <image_url><sha256>`` with the bytes, 404 when it has none. An image that cannot
be fetched, or whose bytes do not hash to the sha256 that names it, costs the samples that
reference it (counted as samples_refused), never the whole update: so every failure here is a
``None``, with the reason logged, not an exception.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Iterable, Optional

log = logging.getLogger("owrl_torch.images")

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
MAX_IMAGE_BYTES = 64 << 20


def fetch_image(image_url: str, sha256: str, timeout_s: float = 30.0, retries: int = 2) -> Optional[bytes]:
    """The bytes of one image, or None when it is missing, unreachable or does not match its sha256."""
    if not _SHA256.match(sha256):
        log.warning("image reference %r is not a lowercase hex sha256", sha256)
        return None
    url = f"{image_url}{sha256}"
    for attempt in range(retries + 1):
        try:
            with urllib.request.urlopen(url, timeout=timeout_s) as res:
                data = res.read(MAX_IMAGE_BYTES + 1)
        except urllib.error.HTTPError as e:
            if e.code == 404:
                log.warning("image %s: the learner has none (404)", sha256)
                return None
            if e.code < 500 or attempt == retries:
                log.warning("image %s: GET %s answered %d", sha256, url, e.code)
                return None
            continue
        except (urllib.error.URLError, OSError) as e:
            if attempt == retries:
                log.warning("image %s: GET %s failed: %s", sha256, url, e)
                return None
            continue
        if len(data) > MAX_IMAGE_BYTES:
            log.warning("image %s is larger than %d bytes", sha256, MAX_IMAGE_BYTES)
            return None
        if hashlib.sha256(data).hexdigest() != sha256:
            log.warning("image %s: the bytes fetched hash to another sha256", sha256)
            return None
        return data
    return None


def open_image(data: bytes) -> Any:
    """The PIL image of PNG/JPEG bytes, loaded; ValueError when they are not one (what both
    processors, tiny.TinyProcessor and hf.HFImageCounter, say of a bad image)."""
    from PIL import Image

    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except Exception as e:  # PIL raises several types for bad data
        raise ValueError(f"processor: image bytes are not a readable PNG/JPEG ({e})") from None
    return img


def fetch_images(image_url: str, shas: Iterable[str], timeout_s: float = 30.0, workers: int = 8) -> Dict[str, Optional[bytes]]:
    """Every distinct image of ``shas``, fetched concurrently: sha256 -> bytes, or None for one it could not get."""
    wanted = sorted(set(shas))
    if not wanted:
        return {}
    if not image_url:
        log.warning("%d images referenced but the request names no image_url", len(wanted))
        return {s: None for s in wanted}
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(wanted)))) as pool:
        got = list(pool.map(lambda s: fetch_image(image_url, s, timeout_s), wanted))
    return dict(zip(wanted, got))
