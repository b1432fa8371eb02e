"""The `owrl.v1.Trainer` gRPC service (and `grpc.health.v1`) in front of a policy and its state folder.

Behaves like owrl's own TrainerServer (docs/trainer.md): an optional bearer token on every
Trainer call; the request checked before anything trains, each refusal naming its field; one
update at a time, a retry of the update still running waiting for it instead of training twice;
``(batch_id, base_version)`` answered from the store once trained; an older base restored
(weights and optimizer) with the newer versions dropped; errors carried as a gRPC status with
``owrl-error-code`` in the trailing metadata.
"""

from __future__ import annotations

import hmac
import logging
import threading
import time
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Protocol, Sequence, Tuple

import grpc

from owrl_torch import TRAINER_NAME
from owrl_torch.batch import SCHEMA_VERSION, ImageCounter, InvalidRequest, build_batch, read_stream, validate, validate_header
from owrl_torch.images import fetch_images
from owrl_torch.proto.grpc.health.v1 import health_pb2, health_pb2_grpc
from owrl_torch.proto.owrl.v1 import trainer_pb2, trainer_pb2_grpc
from owrl_torch.store import ArtifactInfo, VersionStore

log = logging.getLogger("owrl_torch.server")

SERVICE = "owrl.v1.Trainer"
ERROR_CODE_KEY = "owrl-error-code"
DEFAULT_MAX_MESSAGE_BYTES = 64 << 20


class TrainerError(Exception):
    """An error of the contract: its owrl-error-code and the gRPC status it maps to."""

    STATUS = {
        "TRAINER_INVALID_REQUEST": grpc.StatusCode.INVALID_ARGUMENT,
        "TRAINER_UNKNOWN_BASE_VERSION": grpc.StatusCode.FAILED_PRECONDITION,
        "TRAINER_UNAUTHENTICATED": grpc.StatusCode.UNAUTHENTICATED,
        "TRAINER_FAILED": grpc.StatusCode.INTERNAL,
    }

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.status = self.STATUS[code]


class Policy(Protocol):
    """The model side of the trainer: what serve.py builds (tiny or Hugging Face, LoRA or full weights)."""

    kind: str  # artifact kind: "lora-adapter" or "full-weights"
    base_model: str  # as the engine serves it
    processor: Optional[ImageCounter]
    image_id: Optional[int]
    vocab_size: Optional[int]
    max_positions: Optional[int]
    loaded_version: Optional[int]  # version the weights in memory are (None: unknown after a failure)

    def write_version(self, folder: Path) -> None:
        """Writes the artifact files and the optimizer state of the weights in memory into ``folder``."""

    def load_version(self, folder: Path, version: int) -> None:
        """Loads weights and optimizer state of a stored version (a restore)."""

    def train(self, samples: Sequence[Any], hyper: Dict[str, Any], base_version: int) -> Any:
        """One update (update.UpdateOutcome: epochs, off_policy, samples, actions)."""


@dataclass
class TrainerConfig:
    name: str = TRAINER_NAME
    trace_kinds: Tuple[str, ...] = ("tokens",)
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    serve_prefix: str = "owrl"
    # the request's hyper-parameters override these; empty means the policy's own defaults
    defaults: Dict[str, Any] = field(default_factory=dict)
    # set by the command line: overrides the request's loss_agg (e.g. the constant normaliser)
    loss_agg_override: Optional[str] = None


def hyper_from_request(h: trainer_pb2.TrainHyperparams, cfg: TrainerConfig) -> Dict[str, Any]:
    """The update's hyper-parameters: the request's non-zero fields over the trainer's defaults."""
    out = dict(cfg.defaults)
    for name in ("ppo_epochs", "clip_low", "clip_high", "learning_rate", "minibatches", "kl_stop"):
        v = getattr(h, name)
        if v:
            out[name] = v
    if h.loss_agg:
        out["loss_agg"] = h.loss_agg
    if cfg.loss_agg_override:
        out["loss_agg"] = cfg.loss_agg_override
    return out


_EPOCH_FIELDS = {f.name for f in trainer_pb2.EpochStat.DESCRIPTOR.fields}
_OFF_POLICY_FIELDS = {f.name for f in trainer_pb2.OffPolicyStat.DESCRIPTOR.fields}


def _get(obj: Any, name: str, default: Any = None) -> Any:
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def epoch_stats(epochs: Iterable[Any]) -> List[trainer_pb2.EpochStat]:
    out = []
    for i, e in enumerate(epochs):
        d = e if isinstance(e, dict) else vars(e)
        stat = trainer_pb2.EpochStat(**{k: v for k, v in d.items() if k in _EPOCH_FIELDS})
        if not stat.epoch:
            stat.epoch = i + 1
        out.append(stat)
    return out


def off_policy_stat(d: Any) -> trainer_pb2.OffPolicyStat:
    d = d if isinstance(d, dict) else vars(d)
    return trainer_pb2.OffPolicyStat(**{k: v for k, v in d.items() if k in _OFF_POLICY_FIELDS})


class TrainerCore:
    """The contract's logic, apart from gRPC: info, and train with replays, restores and one update at a time."""

    def __init__(self, policy: Policy, store: VersionStore, cfg: Optional[TrainerConfig] = None, fetch: Any = fetch_images) -> None:
        self.policy = policy
        self.store = store
        self.cfg = cfg or TrainerConfig()
        self.fetch = fetch
        self._update_lock = threading.Lock()
        self._inflight_lock = threading.Lock()
        self._inflight: Dict[Tuple[str, int], futures.Future] = {}
        self.updates = {"trained": 0, "replayed": 0, "refused": 0, "failed": 0}
        store.commit_initial(policy.write_version, policy.kind)
        if policy.loaded_version != store.latest:
            policy.load_version(store.path(store.latest), store.latest)
            policy.loaded_version = store.latest

    def info(self) -> trainer_pb2.TrainerInfo:
        return trainer_pb2.TrainerInfo(
            schema_version=SCHEMA_VERSION,
            name=self.cfg.name,
            trace_kinds=list(self.cfg.trace_kinds),
            artifact_kind=self.policy.kind,
            latest_version=self.store.latest,
            restorable_versions=self.store.versions(),
            max_group_bytes=self.cfg.max_message_bytes,
            base_model=self.policy.base_model,
        )

    def train(self, header: trainer_pb2.TrainHeader, groups: Sequence[trainer_pb2.TrainGroup]) -> trainer_pb2.TrainResult:
        """Answers one Train call; raises TrainerError."""
        try:
            validate(header, groups, self.cfg.trace_kinds, self.policy.vocab_size, self.policy.max_positions)
        except InvalidRequest as e:
            self.updates["refused"] += 1
            raise TrainerError(InvalidRequest.code, str(e)) from e
        key = (header.batch_id, header.base_version)
        with self._inflight_lock:
            running = self._inflight.get(key)
            mine = running is None
            if mine:
                running = futures.Future()
                self._inflight[key] = running
        assert running is not None
        if not mine:
            log.info("update %s from v%d already running; the retry waits for it", header.batch_id, header.base_version)
            r = running.result()
            out = trainer_pb2.TrainResult()
            out.CopyFrom(r)
            out.replayed = True
            return out
        try:
            with self._update_lock:
                r = self._train_locked(header, groups)
            running.set_result(r)
            return r
        except BaseException as e:
            running.set_exception(e)
            raise
        finally:
            with self._inflight_lock:
                self._inflight.pop(key, None)

    def _train_locked(self, header: trainer_pb2.TrainHeader, groups: Sequence[trainer_pb2.TrainGroup]) -> trainer_pb2.TrainResult:
        t0 = time.monotonic()
        base, target = header.base_version, header.target_version
        prior = self.store.replay(header.batch_id, base)
        if prior is not None:
            prior.replayed = True
            self.updates["replayed"] += 1
            log.info("update %s from v%d: replayed v%d", header.batch_id, base, prior.version)
            return prior
        if not self.store.has(base):
            self.updates["refused"] += 1
            held = ", ".join(str(v) for v in self.store.versions())
            raise TrainerError("TRAINER_UNKNOWN_BASE_VERSION", f"base_version {base} is not among the restorable versions ({held})")
        try:
            batch = build_batch(header, groups, self.policy.processor, self.policy.image_id, self.fetch)
        except InvalidRequest as e:
            self.updates["refused"] += 1
            raise TrainerError(InvalidRequest.code, str(e)) from e
        try:
            dropped = self.store.drop_after(base)
            if dropped:
                log.info("restoring v%d: dropped versions %s", base, dropped)
            if self.policy.loaded_version != base:
                self.policy.loaded_version = None
                self.policy.load_version(self.store.path(base), base)
                self.policy.loaded_version = base
            result = trainer_pb2.TrainResult(schema_version=SCHEMA_VERSION, batch_id=header.batch_id, version=target)
            if batch.samples:
                self.policy.loaded_version = None  # the weights change from here on
                outcome = self.policy.train(batch.samples, hyper_from_request(header.hyper, self.cfg), base)
                result.epochs.extend(epoch_stats(_get(outcome, "epochs", [])))
                off = _get(outcome, "off_policy")
                if off is not None:
                    result.off_policy.CopyFrom(off_policy_stat(off))
                result.samples = int(_get(outcome, "samples", len(batch.samples)))
                result.actions = int(_get(outcome, "actions", 0))
            result.samples_refused = len(batch.refused)
            result.train_s = time.monotonic() - t0
            info = ArtifactInfo(
                kind=self.policy.kind,
                base_model=self.policy.base_model,
                run_id=header.run_id,
                temperature=header.hyper.temperature or 1.0,
                serve_prefix=self.cfg.serve_prefix,
            )
            stored = self.store.commit(target, self.policy.write_version, result, info)
            self.policy.loaded_version = target
        except TrainerError:
            raise
        except Exception as e:
            self.updates["failed"] += 1
            log.exception("update %s from v%d failed", header.batch_id, base)
            raise TrainerError("TRAINER_FAILED", f"the update failed: {type(e).__name__}: {e}") from e
        self.updates["trained"] += 1
        log.info(
            "update %s: v%d -> v%d, %d samples (%d refused), %d tokens, %.2f s",
            header.batch_id, base, target, stored.samples, stored.samples_refused, stored.actions, stored.train_s,
        )
        return stored


class TrainerServicer(trainer_pb2_grpc.TrainerServicer):
    def __init__(self, core: TrainerCore, token: str = "") -> None:
        self.core = core
        self.token = token

    def _authorized(self, context: grpc.ServicerContext) -> bool:
        if not self.token:
            return True
        sent = dict(context.invocation_metadata()).get("authorization", "")
        return hmac.compare_digest(sent.encode(), f"Bearer {self.token}".encode())

    @staticmethod
    def _abort(context: grpc.ServicerContext, e: TrainerError) -> None:
        context.set_trailing_metadata(((ERROR_CODE_KEY, e.code),))
        context.abort(e.status, str(e))

    def _unauthenticated(self, context: grpc.ServicerContext) -> None:
        self._abort(context, TrainerError("TRAINER_UNAUTHENTICATED", "missing or wrong trainer token (metadata authorization: Bearer <token>)"))

    def GetTrainerInfo(self, request: trainer_pb2.GetTrainerInfoRequest, context: grpc.ServicerContext) -> trainer_pb2.TrainerInfo:  # noqa: N802
        if not self._authorized(context):
            self._unauthenticated(context)
        return self.core.info()

    def Train(self, request_iterator: Iterable[trainer_pb2.TrainChunk], context: grpc.ServicerContext) -> trainer_pb2.TrainResult:  # noqa: N802
        if not self._authorized(context):
            self._unauthenticated(context)
        try:
            header, groups = read_stream(request_iterator)
            validate_header(header)
            return self.core.train(header, groups)
        except InvalidRequest as e:
            self._abort(context, TrainerError(InvalidRequest.code, str(e)))
        except TrainerError as e:
            self._abort(context, e)
        raise AssertionError("unreachable")


class HealthServicer(health_pb2_grpc.HealthServicer):
    """grpc.health.v1 for "" and owrl.v1.Trainer (the preflight of `owrl train` asks it)."""

    def __init__(self) -> None:
        self._status = health_pb2.HealthCheckResponse.SERVING
        self._changed = threading.Condition()
        self._closed = False

    def set_serving(self, serving: bool) -> None:
        with self._changed:
            self._status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
            self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    @staticmethod
    def _known(service: str) -> bool:
        return service in ("", SERVICE)

    def Check(self, request: health_pb2.HealthCheckRequest, context: grpc.ServicerContext) -> health_pb2.HealthCheckResponse:  # noqa: N802
        if not self._known(request.service):
            context.abort(grpc.StatusCode.NOT_FOUND, f"unknown service {request.service}")
        return health_pb2.HealthCheckResponse(status=self._status)

    def Watch(self, request: health_pb2.HealthCheckRequest, context: grpc.ServicerContext) -> Iterable[health_pb2.HealthCheckResponse]:  # noqa: N802
        if not self._known(request.service):
            yield health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVICE_UNKNOWN)
            return
        last = None
        while context.is_active():
            with self._changed:
                if self._status == last and not self._closed:
                    self._changed.wait(timeout=1.0)
                status, closed = self._status, self._closed
            if status != last:
                last = status
                yield health_pb2.HealthCheckResponse(status=status)
            if closed:
                return


@dataclass
class RunningServer:
    server: grpc.Server
    port: int
    core: TrainerCore
    health: HealthServicer

    def stop(self, grace_s: float = 5.0) -> None:
        self.health.set_serving(False)
        self.health.close()
        self.server.stop(grace_s).wait()


def start_server(core: TrainerCore, host: str = "127.0.0.1", port: int = 0, token: str = "", workers: int = 8) -> RunningServer:
    """Binds and serves; returns with the port (0 = any free port)."""
    limit = core.cfg.max_message_bytes
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="owrl-trainer-rpc"),
        options=[
            ("grpc.max_receive_message_length", limit),
            ("grpc.max_send_message_length", limit),
            ("grpc.keepalive_permit_without_calls", 1),
        ],
    )
    trainer_pb2_grpc.add_TrainerServicer_to_server(TrainerServicer(core, token), server)
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    server.start()
    return RunningServer(server=server, port=bound, core=core, health=health)
