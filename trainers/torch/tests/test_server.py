"""owrl.v1.Trainer over a real socket with a grpcio client: info, health, auth, train, replays,
restores, a retry joining the running update, refusals with their owrl-error-code; then the real
process (`python3 -m owrl_torch.serve`) on the tiny model, killed mid-update and restarted, and
under torchrun with two gloo ranks."""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import pytest
import torch

grpc = pytest.importorskip("grpc", reason="grpcio is not installed (setup installs it; a GPU host running only the model tests may lack it)")

from owrl_torch.proto.grpc.health.v1 import health_pb2  # noqa: E402
from owrl_torch.proto.owrl.v1 import trainer_pb2, trainer_pb2_grpc  # noqa: E402
from owrl_torch.store import verify_version  # noqa: E402
from trainreq import Harness, ImageServer, chunks, header, png, sample, sha, token_step, torchrun_unusable  # noqa: E402

TORCH_DIR = Path(__file__).resolve().parent.parent


class FakePolicy:
    """A policy whose 'weights' are a counter of tokens trained: enough to see restores and replays."""

    kind = "lora-adapter"
    base_model = "fake-base"
    processor = None
    image_id = None
    vocab_size = 100
    max_positions = 64

    def __init__(self, delay_s: float = 0.0, fail: bool = False, hold: Optional[threading.Event] = None) -> None:
        self.loaded_version: Optional[int] = None
        self.weights = 0
        self.delay_s = delay_s
        self.fail = fail
        self.hold = hold  # when given, train waits for it (set by the test) after setting `started`
        self.started = threading.Event()
        self.trained: List[Tuple[int, List[str], Dict[str, Any]]] = []
        self.loads: List[int] = []

    def write_version(self, folder: Path) -> None:
        (folder / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA"}))
        (folder / "adapter_model.safetensors").write_text(str(self.weights))

    def load_version(self, folder: Path, version: int) -> None:
        self.loads.append(version)
        self.weights = int((folder / "adapter_model.safetensors").read_text())

    def train(self, samples: Sequence[Any], hyper: Dict[str, Any], base_version: int) -> Dict[str, Any]:
        self.started.set()
        if self.hold is not None:
            self.hold.wait(30)
        time.sleep(self.delay_s)
        if self.fail:
            raise RuntimeError("CUDA out of memory (injected)")
        tokens = sum(sum(st.loss_mask) for s in samples for st in s.steps)
        self.weights += tokens
        self.trained.append((base_version, [s.trajectory_id for s in samples], hyper))
        return {
            "epochs": [{"epoch": 1, "loss": 0.5, "mean_ratio": 1.0, "actions": tokens}, {"epoch": 2, "loss": 0.25, "actions": tokens}],
            "off_policy": {"parity_tokens": tokens, "logprob_gap_max_abs": 1e-6, "logprob_gap_mean_abs": 1e-7, "ess": 1.0, "correction": "tis"},
            "samples": len(samples),
            "actions": tokens,
        }


def groups(n: int = 2, prefix: str = "t") -> List[trainer_pb2.TrainGroup]:
    return [
        trainer_pb2.TrainGroup(task_id=f"task{g}", samples=[sample(f"{prefix}{g}-{i}", 1.0 - i, [token_step([1, 2, 3], [4, 5])]) for i in range(2)])
        for g in range(n)
    ]


@pytest.fixture()
def h(tmp_path: Path) -> Iterator[Harness]:
    x = Harness(tmp_path, FakePolicy())
    yield x
    x.close()


def error_code(e: grpc.RpcError) -> Optional[str]:
    return dict(e.trailing_metadata() or ()).get("owrl-error-code")


def test_info_names_the_trainer_and_its_versions(h: Harness) -> None:
    info = h.stub.GetTrainerInfo(trainer_pb2.GetTrainerInfoRequest(), timeout=10)
    assert info.schema_version == 1 and info.name == "owrl-torch/0.1"
    assert list(info.trace_kinds) == ["tokens"] and info.artifact_kind == "lora-adapter"
    assert info.latest_version == 0 and list(info.restorable_versions) == [0]
    assert info.base_model == "fake-base" and info.max_group_bytes == 64 << 20


def test_health_serves_the_trainer_and_the_empty_name(h: Harness) -> None:
    for name in ("", "owrl.v1.Trainer"):
        assert h.health.Check(health_pb2.HealthCheckRequest(service=name), timeout=10).status == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.RpcError) as e:
        h.health.Check(health_pb2.HealthCheckRequest(service="other"), timeout=10)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    watch = h.health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=10)
    assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
    watch.cancel()


def test_train_stores_a_version_and_a_replay_answers_it_again(h: Harness) -> None:
    r = h.train(header(groups=2, samples=4), groups())
    assert (r.batch_id, r.version, r.replayed) == ("run-1/update-1", 1, False)
    assert r.artifact.version == 1 and r.artifact.kind == "lora-adapter" and r.artifact.base_model == "fake-base"
    folder = h.store.path(1)
    assert r.artifact.uri == folder.resolve().as_uri() and r.artifact.sha256 == verify_version(folder)
    assert [e.epoch for e in r.epochs] == [1, 2] and r.epochs[0].mean_ratio == 1.0
    assert (r.samples, r.actions, r.samples_refused) == (4, 8, 0)
    assert r.off_policy.parity_tokens == 8 and r.off_policy.ess == 1.0 and r.off_policy.correction == "tis"
    assert h.policy.trained[0][2]["ppo_epochs"] == 2
    again = h.train(header(groups=2, samples=4), groups())
    assert again.replayed and again.artifact.sha256 == r.artifact.sha256 and again.version == 1
    assert len(h.policy.trained) == 1
    info = h.stub.GetTrainerInfo(trainer_pb2.GetTrainerInfoRequest(), timeout=10)
    assert info.latest_version == 1 and list(info.restorable_versions) == [0, 1]


def test_the_request_hyperparameters_override_the_defaults(h: Harness) -> None:
    h.train(header(ppo_epochs=1, minibatches=6, learning_rate=0.5, loss_agg="seq_mean"), groups())
    hyper = h.policy.trained[0][2]
    assert (hyper["ppo_epochs"], hyper["minibatches"], hyper["learning_rate"], hyper["loss_agg"]) == (1, 6, 0.5, "seq_mean")


def test_an_older_base_is_restored_and_newer_versions_dropped(h: Harness) -> None:
    r1 = h.train(header("b1", base=0), groups())
    h.train(header("b2", base=1), groups(prefix="u"))
    assert h.policy.weights == 16
    other = h.train(header("b2-again", base=1), groups(1, prefix="v"))
    assert other.version == 2 and not other.replayed
    assert h.policy.loads[-1] == 1 and h.policy.weights == 8 + 4
    assert h.store.versions() == [0, 1, 2]
    # the replaced version's answer is gone; the restored base's answer stays
    assert h.train(header("b1", base=0), groups()).artifact.sha256 == r1.artifact.sha256
    assert h.train(header("b2-again", base=1), groups(1, prefix="v")).replayed
    assert h.store.replay("b2", 1) is None


def test_an_unknown_base_is_failed_precondition(h: Harness) -> None:
    with pytest.raises(grpc.RpcError) as e:
        h.train(header("b", base=7), groups())
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_code(e.value) == "TRAINER_UNKNOWN_BASE_VERSION"
    assert "base_version 7 is not among the restorable versions (0)" in (e.value.details() or "")


def test_an_invalid_request_names_the_field(h: Harness) -> None:
    gs = groups()
    gs[1].samples[0].steps[0].trace.tokens.logprobs.append(-1.0)
    with pytest.raises(grpc.RpcError) as e:
        h.train(header(), gs)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_code(e.value) == "TRAINER_INVALID_REQUEST"
    assert "groups[1].samples[0].steps[0].trace.tokens.logprobs has 3 entries for 2 token_ids" in (e.value.details() or "")
    with pytest.raises(grpc.RpcError) as e:
        h.stub.Train(iter([trainer_pb2.TrainChunk(group=groups()[0])]), timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "first chunk must be the TrainHeader" in (e.value.details() or "")
    bad = header()
    bad.target_version = 3
    with pytest.raises(grpc.RpcError) as e:
        h.train(bad, groups())
    assert "header.target_version 3 must be base_version + 1 = 1" in (e.value.details() or "")
    assert h.policy.trained == [] and h.store.versions() == [0]


def test_a_wrong_or_missing_token_is_unauthenticated(tmp_path: Path) -> None:
    x = Harness(tmp_path, FakePolicy(), token="s3cret")
    try:
        for md in ([], [("authorization", "Bearer nope")]):
            with pytest.raises(grpc.RpcError) as e:
                x.stub.GetTrainerInfo(trainer_pb2.GetTrainerInfoRequest(), metadata=md, timeout=10)
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED and error_code(e.value) == "TRAINER_UNAUTHENTICATED"
            with pytest.raises(grpc.RpcError) as e:
                x.train(header(), groups(), metadata=md)
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert x.train(header(), groups()).version == 1
        # health is open (the preflight asks it before it knows the token is right)
        assert x.health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == health_pb2.HealthCheckResponse.SERVING
    finally:
        x.close()


def test_a_retry_while_the_update_runs_waits_for_it(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="owrl_torch.server")
    release = threading.Event()
    x = Harness(tmp_path, FakePolicy(hold=release))
    try:
        out: List[trainer_pb2.TrainResult] = []
        threads = [threading.Thread(target=lambda: out.append(x.train(header(), groups()))) for _ in range(2)]
        threads[0].start()
        assert x.policy.started.wait(30), "the first call reaches the policy"
        threads[1].start()
        # the retry arrives while the first update is held in train: it must join it, not train again
        joined = "already running; the retry waits for it"
        deadline = time.monotonic() + 30
        while not any(joined in r.getMessage() for r in caplog.records):
            assert time.monotonic() < deadline, "the retry never joined the running update"
            time.sleep(0.01)
        release.set()
        for t in threads:
            t.join(30)
        assert len(out) == 2 and len(x.policy.trained) == 1
        assert out[0].artifact.sha256 == out[1].artifact.sha256
        assert sorted(r.replayed for r in out) == [False, True]
    finally:
        x.close()


def test_updates_run_one_at_a_time(tmp_path: Path) -> None:
    x = Harness(tmp_path, FakePolicy(delay_s=0.5))
    try:
        x.train(header("b1", base=0), groups())
        out: List[Any] = []

        def call(batch: str) -> None:
            try:
                out.append(x.train(header(batch, base=1), groups(prefix=batch)))
            except grpc.RpcError as e:
                out.append(e)

        threads = [threading.Thread(target=call, args=(b,)) for b in ("x", "y")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        # both from base 1: the second restores v1 (dropping the first one's v2) before training
        assert [base for base, _, _ in x.policy.trained] == [0, 1, 1]
        assert x.policy.loads[-1] == 1 and x.policy.weights == 16
        assert all(isinstance(r, trainer_pb2.TrainResult) and r.version == 2 for r in out)
    finally:
        x.close()


def test_a_failing_update_is_internal_and_the_next_one_starts_from_the_stored_base(tmp_path: Path) -> None:
    p = FakePolicy(fail=True)
    x = Harness(tmp_path, p)
    try:
        with pytest.raises(grpc.RpcError) as e:
            x.train(header(), groups())
        assert e.value.code() == grpc.StatusCode.INTERNAL and error_code(e.value) == "TRAINER_FAILED"
        assert "CUDA out of memory (injected)" in (e.value.details() or "")
        p.fail = False
        loads = len(p.loads)
        assert x.train(header(), groups()).version == 1
        assert p.loads[loads:] == [0]
    finally:
        x.close()


def test_samples_with_an_image_it_cannot_fetch_are_refused_and_counted(tmp_path: Path) -> None:
    img = png(8, 8)
    srv = ImageServer({})  # has none of them
    x = Harness(tmp_path, FakePolicy())
    try:
        gs = groups()
        gs[0].samples[0].steps[0].CopyFrom(token_step([1, 2, 3], [4, 5], images=[img]))
        x.policy.processor = object()  # type: ignore[assignment]  (not reached: the sample is refused first)
        x.policy.image_id = 99  # type: ignore[assignment]
        r = x.train(header(image_url=srv.url, images_missing=1), gs)
        assert r.samples_refused == 1 and r.samples == 3
        assert srv.requests == [f"/shots/{sha(img)}"]
    finally:
        x.close()
        srv.close()


# --- the real process on the tiny model -----------------------------------------------------------

PY = sys.executable


@pytest.fixture(scope="module")
def service_tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from owrl_torch.tiny import build_tiny

    d = tmp_path_factory.mktemp("tiny")
    build_tiny(str(d), seed=0, pretrain_steps=5)  # the service is under test, not what the model answers
    return d


def tiny_groups(tiny: Path, n: int = 2) -> List[trainer_pb2.TrainGroup]:
    from owrl_torch.tiny import TinyTokenizer, render_chat

    tok = TinyTokenizer.load(str(tiny))
    out = []
    for g, word in enumerate(["amber", "birch"][:n]):
        prompt = tok.encode(render_chat([{"role": "user", "content": f"Answer with the single word {word} and nothing else."}]))
        samples = []
        for i, (answer, adv) in enumerate([(word, 1.0), ("cobalt", -1.0)]):
            completion = tok.encode('<tool_call>\n{"name": "done", "arguments": {"response": "' + answer + '"}}\n</tool_call><|im_end|>')
            samples.append(sample(f"g{g}-{i}", adv, [token_step(prompt, completion, logprobs=[-0.5] * len(completion))]))
        out.append(trainer_pb2.TrainGroup(task_id=f"task-{word}", samples=samples))
    return out


class Proc:
    def __init__(self, args: List[str], env: Optional[Dict[str, str]] = None, launcher: Optional[List[str]] = None) -> None:
        e = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TORCH_DIR), os.environ.get("PYTHONPATH", "")])), **(env or {})}
        cmd = (launcher or [PY, "-m"]) + ["owrl_torch.serve"] + args
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, cwd=TORCH_DIR, start_new_session=True)
        self.lines: List[str] = []
        self.err: List[str] = []
        self.ready = threading.Event()
        self.port = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.err.extend(self.p.stderr or []), daemon=True).start()

    def _read(self) -> None:
        for line in self.p.stdout or []:
            self.lines.append(line)
            m = re.search(r"owrl-torch listening on \S+:(\d+)", line)  # torchrun prefixes "[default0]:"
            if m:
                self.port = int(m.group(1))
                self.ready.set()

    def wait_for(self, text: str, timeout: float) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if any(text in l for l in self.lines):
                return
            if self.p.poll() is not None:
                raise AssertionError(f"the trainer exited {self.p.returncode}: {''.join(self.err)[-3000:]}")
            time.sleep(0.05)
        raise AssertionError(f"no {text!r} in {timeout} s: {''.join(self.err)[-3000:]}")

    def stub(self) -> trainer_pb2_grpc.TrainerStub:
        self.wait_for("owrl-torch listening on", 120)
        return trainer_pb2_grpc.TrainerStub(grpc.insecure_channel(f"127.0.0.1:{self.port}"))

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.p.poll() is None:
            os.killpg(self.p.pid, sig)
        self.p.wait(30)


def serve_args(tiny: Path, state: Path) -> List[str]:
    return ["--model", str(tiny), "--state-dir", str(state), "--port", "0", "--host", "127.0.0.1", "--device", "cpu", "--lora-rank", "4", "--lr", "1e-3"]


def test_the_process_trains_the_tiny_model_and_writes_a_peft_adapter(service_tiny: Path, tmp_path: Path) -> None:
    proc = Proc(serve_args(service_tiny, tmp_path / "state"), env={"OWRL_TRAINER_TOKEN": "tok"})
    md = [("authorization", "Bearer tok")]
    try:
        stub = proc.stub()
        info = stub.GetTrainerInfo(trainer_pb2.GetTrainerInfoRequest(), metadata=md, timeout=30)
        assert info.artifact_kind == "lora-adapter" and info.base_model and list(info.restorable_versions) == [0]
        gs = tiny_groups(service_tiny)
        r = stub.Train(iter(chunks(header(groups=2, samples=4), gs)), metadata=md, timeout=300)
        assert r.version == 1 and not r.replayed and r.samples == 4 and r.actions > 0
        assert len(r.epochs) >= 1 and r.off_policy.correction
        folder = tmp_path / "state" / "versions" / "v1"
        cfg = json.loads((folder / "adapter_config.json").read_text())
        assert cfg["peft_type"] == "LORA" and cfg["r"] == 4 and cfg["base_model_name_or_path"] == info.base_model
        assert (folder / "adapter_model.safetensors").is_file()
        assert r.artifact.sha256 == verify_version(folder)
        again = stub.Train(iter(chunks(header(groups=2, samples=4), gs)), metadata=md, timeout=60)
        assert again.replayed and again.artifact.sha256 == r.artifact.sha256
        with pytest.raises(grpc.RpcError) as e:
            stub.Train(iter(chunks(header("x", base=5), gs)), metadata=md, timeout=60)
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION and error_code(e.value) == "TRAINER_UNKNOWN_BASE_VERSION"
    finally:
        proc.kill(signal.SIGTERM)


def test_a_trainer_killed_mid_update_answers_correctly_after_a_restart(service_tiny: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    gs = tiny_groups(service_tiny)
    # 1. killed while writing v1 (after training, before the rename): no v1, the retry trains it
    proc = Proc(serve_args(service_tiny, state), env={"OWRL_TORCH_FAULT_PAUSE_BEFORE_COMMIT_S": "60"})
    try:
        stub = proc.stub()
        fut = stub.Train.future(iter(chunks(header(), gs)), timeout=300)
        proc.wait_for("fault pause before committing v1", 300)
        assert [p.name for p in (state / "versions").iterdir() if p.name.startswith(".tmp-v1-")]
        proc.kill()
        with pytest.raises(grpc.RpcError) as e:
            fut.result()
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        proc.kill()
    proc = Proc(serve_args(service_tiny, state))
    try:
        stub = proc.stub()
        info = stub.GetTrainerInfo(trainer_pb2.GetTrainerInfoRequest(), timeout=30)
        assert info.latest_version == 0 and list(info.restorable_versions) == [0]
        assert not [p for p in (state / "versions").iterdir() if p.name.startswith(".")]
        r1 = stub.Train(iter(chunks(header(), gs)), timeout=300)
        assert r1.version == 1 and not r1.replayed
    finally:
        proc.kill()  # 2. killed after the answer: the restart replays it
    proc = Proc(serve_args(service_tiny, state))
    try:
        stub = proc.stub()
        again = stub.Train(iter(chunks(header(), gs)), timeout=60)
        assert again.replayed and again.artifact.sha256 == r1.artifact.sha256
        r2 = stub.Train(iter(chunks(header("run-1/update-2", base=1), gs)), timeout=300)
        assert r2.version == 2 and r2.artifact.sha256 != r1.artifact.sha256
    finally:
        proc.kill(signal.SIGTERM)


@pytest.mark.skipif(torchrun_unusable() is not None, reason=str(torchrun_unusable()))
def test_torchrun_with_two_gloo_ranks_answers_a_train_call(service_tiny: Path, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # --tee/--redirects named: Debian's torch 1.13 on Python 3.11 cannot parse their default "0"
    launcher = [PY, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_addr", "127.0.0.1", "--master_port", str(port), "--tee", "1", "--redirects", "2", "-m"]
    proc = Proc(serve_args(service_tiny, tmp_path / "state"), launcher=launcher)
    try:
        stub = proc.stub()
        r = stub.Train(iter(chunks(header(groups=2, samples=4), tiny_groups(service_tiny))), timeout=300)
        assert r.version == 1 and r.samples == 4 and r.actions > 0
        assert r.artifact.sha256 == verify_version(tmp_path / "state" / "versions" / "v1")
        proc.wait_for("owrl-torch rank 1: trained its share of the update from v0", 30)
    finally:
        proc.kill(signal.SIGTERM)


def test_the_served_tiny_model_states_its_vocabulary_and_context_for_the_request_checks(service_tiny: Path, tmp_path: Path) -> None:
    from owrl_torch.serve import ModelPolicy, parse_args

    policy = ModelPolicy(parse_args(serve_args(service_tiny, tmp_path / "state")), torch.device("cpu"))
    cfg = json.loads((service_tiny / "config.json").read_text())
    assert policy.vocab_size == cfg["vocab_size"]
    assert policy.max_positions == cfg["max_positions"], "a step longer than the model's context is refused before training"


def test_a_kl_term_without_a_reference_policy_is_refused_at_start_up(capsys: Any) -> None:
    from owrl_torch.serve import parse_args

    with pytest.raises(SystemExit) as e:
        parse_args(["--model", "m", "--state-dir", "s", "--full-weights", "--kl-coef", "0.1"])
    assert e.value.code == 2
    assert "--kl-coef needs a reference policy" in capsys.readouterr().err
    assert parse_args(["--model", "m", "--state-dir", "s", "--kl-coef", "0.1"]).kl_coef == 0.1, "with LoRA the base model is the reference"
