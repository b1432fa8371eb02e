"""Builders of Train requests and a tiny image server, shared by the batch and server tests."""

from __future__ import annotations

import functools
import hashlib
import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Sequence, Tuple

from owrl_torch.proto.owrl.v1 import trainer_pb2, trajectory_pb2


@functools.lru_cache(maxsize=None)
def torchrun_unusable() -> Optional[str]:
    """Why torchrun cannot start with this torch, or None. Debian's torch 2.x is built without
    libuv, and torchrun's rendezvous asks the TCP store for libuv whatever USE_LIBUV says."""
    import datetime

    import torch.distributed as dist

    if not dist.is_available():
        return "torch.distributed is not built in"
    try:
        store = dist.TCPStore("127.0.0.1", 0, 1, True, datetime.timedelta(seconds=5))
    except RuntimeError as e:
        if "libuv" in str(e):
            return f"torchrun cannot start with this torch build: {e}"
        raise
    del store
    return None


def png(width: int, height: int, color: Tuple[int, int, int] = (200, 30, 60)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, format="PNG")
    return buf.getvalue()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def token_step(
    prompt: Sequence[int],
    completion: Sequence[int],
    logprobs: Optional[Sequence[float]] = None,
    loss_mask: Sequence[int] = (),
    images: Sequence[bytes] = (),
    index: int = 0,
    mode: int = trajectory_pb2.LOGPROB_MODE_RAW,
    temperature: float = 1.0,
    **sampler: float,
) -> trainer_pb2.TrainStep:
    t = trajectory_pb2.TokenTrace(
        prompt_token_ids=list(prompt),
        token_ids=list(completion),
        logprobs=list(logprobs) if logprobs is not None else [-1.0] * len(completion),
        loss_mask=list(loss_mask),
        prompt_tokens=len(prompt),
        finish_reason="stop",
        model="tiny",
        sampler=trajectory_pb2.SamplerSettings(temperature=temperature, top_p=sampler.pop("top_p", 1.0), top_k=int(sampler.pop("top_k", -1)), logprob_mode=mode, **sampler),
    )
    for img in images:
        t.images.add(sha256=sha(img), mime="image/png", bytes=len(img))
    return trainer_pb2.TrainStep(index=index, trace=trajectory_pb2.PolicyTrace(tokens=t))


def sample(tid: str, advantage: float, steps: List[trainer_pb2.TrainStep], version: int = 0, reward: float = 1.0) -> trainer_pb2.TrainSample:
    return trainer_pb2.TrainSample(trajectory_id=tid, advantage=advantage, reward=reward, policy_version=version, steps=steps)


def header(batch_id: str = "run-1/update-1", base: int = 0, groups: int = 0, samples: int = 0, image_url: str = "", images_missing: int = 0, **hyper: object) -> trainer_pb2.TrainHeader:
    return trainer_pb2.TrainHeader(
        schema_version=1,
        run_id="run-1",
        batch_id=batch_id,
        base_version=base,
        target_version=base + 1,
        groups=groups,
        samples=samples,
        image_url=image_url,
        images_missing=images_missing,
        hyper=trainer_pb2.TrainHyperparams(**hyper),  # type: ignore[arg-type]
    )


def chunks(h: trainer_pb2.TrainHeader, groups: Sequence[trainer_pb2.TrainGroup]) -> List[trainer_pb2.TrainChunk]:
    return [trainer_pb2.TrainChunk(header=h)] + [trainer_pb2.TrainChunk(group=g) for g in groups]


class ImageServer:
    """Answers GET /shots/<sha256> from a dict, 404 otherwise; counts requests."""

    def __init__(self, images: Dict[str, bytes]) -> None:
        self.images = images
        self.requests: List[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                outer.requests.append(self.path)
                key = self.path.rsplit("/", 1)[-1]
                data = outer.images.get(key)
                if data is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/shots/"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
