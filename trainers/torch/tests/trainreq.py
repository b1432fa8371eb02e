"""Builders of Train requests, a tiny image server and an in-process trainer service, shared by the
batch, server and Hugging Face tests."""

from __future__ import annotations

import functools
import hashlib
import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

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


class Harness:
    """`policy` behind the trainer service on a free port (state in tmp/state), with a client.
    grpcio is imported here, so that the model tests that do not use it run without it."""

    def __init__(self, tmp: Path, policy: Any, token: str = "", fetch: Any = None) -> None:
        import grpc

        from owrl_torch.proto.grpc.health.v1 import health_pb2_grpc
        from owrl_torch.proto.owrl.v1 import trainer_pb2_grpc
        from owrl_torch.server import TrainerConfig, TrainerCore, start_server
        from owrl_torch.store import VersionStore

        self.policy = policy
        self.store = VersionStore(tmp / "state")
        kw = {"fetch": fetch} if fetch else {}
        self.core = TrainerCore(self.policy, self.store, TrainerConfig(defaults={"ppo_epochs": 2}), **kw)
        self.running = start_server(self.core, token=token)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.running.port}")
        self.stub = trainer_pb2_grpc.TrainerStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)
        self.token = token

    def md(self) -> List[Tuple[str, str]]:
        return [("authorization", f"Bearer {self.token}")] if self.token else []

    def train(self, h: trainer_pb2.TrainHeader, gs: Sequence[trainer_pb2.TrainGroup], timeout: float = 60, **kw: Any) -> trainer_pb2.TrainResult:
        return self.stub.Train(iter(chunks(h, gs)), metadata=kw.pop("metadata", self.md()), timeout=timeout, **kw)

    def close(self) -> None:
        self.channel.close()
        self.running.stop(0)


def logprob_steps(rows: Sequence[Tuple[Sequence[int], Sequence[int], Sequence[bytes]]], sampler: Any = None, mode: str = "RAW") -> List[Dict[str, Any]]:
    """Steps as `logprobs.sequence_logprobs` reads them, from (prompt, completion, images) rows."""
    if sampler is None:
        from owrl_torch.logprobs import Sampler

        sampler = Sampler()
    return [{"prompt_ids": list(p), "completion_ids": list(c), "images": list(im), "sampler": sampler, "logprob_mode": mode} for p, c, im in rows]
