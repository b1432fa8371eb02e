"""The state folder: atomic versions, the manifest's sha256, replays, restores, and recovery after a kill."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from owrl_torch.proto.owrl.v1 import trainer_pb2
from owrl_torch.store import FAULT_PAUSE_ENV, MANIFEST, OPTIMIZER, RESULT, ArtifactInfo, StoreError, VersionStore, verify_version

TORCH_DIR = Path(__file__).resolve().parent.parent
INFO = ArtifactInfo(kind="lora-adapter", base_model="tiny", run_id="run-1")


def writer(payload: bytes):
    def write(folder: Path) -> None:
        (folder / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": 2}))
        (folder / "adapter_model.safetensors").write_bytes(payload)
        (folder / OPTIMIZER).write_bytes(b"opt" + payload)

    return write


def commit(store: VersionStore, version: int, batch: str, payload: bytes) -> trainer_pb2.TrainResult:
    r = trainer_pb2.TrainResult(schema_version=1, batch_id=batch, samples=3, actions=10)
    return store.commit(version, writer(payload), r, INFO)


def test_a_version_holds_its_files_a_manifest_over_them_and_the_answer(tmp_path: Path) -> None:
    store = VersionStore(tmp_path)
    store.commit_initial(writer(b"v0"), "lora-adapter")
    r = commit(store, 1, "run-1/update-1", b"weights-1")
    folder = store.path(1)
    manifest_bytes = (folder / MANIFEST).read_bytes()
    manifest = json.loads(manifest_bytes)
    assert sorted(manifest["files"]) == ["adapter_config.json", "adapter_model.safetensors", OPTIMIZER]
    assert manifest["files"]["adapter_model.safetensors"]["sha256"] == hashlib.sha256(b"weights-1").hexdigest()
    assert r.artifact.sha256 == hashlib.sha256(manifest_bytes).hexdigest() == verify_version(folder)
    assert r.artifact.uri == folder.resolve().as_uri()
    assert r.artifact.bytes == sum(f["bytes"] for f in manifest["files"].values())
    assert (r.artifact.version, r.version, r.artifact.kind, r.artifact.base_model) == (1, 1, "lora-adapter", "tiny")
    assert r.artifact.serve_name == f"owrl-v1-{r.artifact.sha256[:8]}"
    assert (folder / RESULT).is_file() and not r.replayed
    assert store.versions() == [0, 1] and store.latest == 1
    assert not [p for p in store.dir.iterdir() if p.name.startswith(".")]


def test_artifact_url_replaces_the_file_uri(tmp_path: Path) -> None:
    store = VersionStore(tmp_path, artifact_url="http://trainer:8500/versions")
    assert commit(store, 1, "b", b"x").artifact.uri == "http://trainer:8500/versions/v1"


def test_replays_are_keyed_by_batch_and_base_and_survive_a_restart(tmp_path: Path) -> None:
    store = VersionStore(tmp_path)
    first = commit(store, 1, "run-1/update-1", b"w1")
    assert store.replay("run-1/update-1", 0) == first
    assert store.replay("run-1/update-1", 1) is None
    assert store.replay("another", 0) is None
    again = VersionStore(tmp_path)
    assert again.replay("run-1/update-1", 0) == first
    assert again.versions() == [1]


def test_restoring_an_older_base_drops_the_newer_versions_and_their_answers(tmp_path: Path) -> None:
    store = VersionStore(tmp_path)
    store.commit_initial(writer(b"v0"), "lora-adapter")
    a1 = commit(store, 1, "b1", b"w1")
    commit(store, 2, "b2", b"w2")
    assert store.drop_after(0) == [2, 1]
    assert store.versions() == [0]
    assert store.replay("b1", 0) is None and store.replay("b2", 1) is None
    b1 = commit(store, 1, "b1-other", b"w1-other")
    assert b1.artifact.sha256 != a1.artifact.sha256 and b1.artifact.serve_name != a1.artifact.serve_name
    assert VersionStore(tmp_path).replay("b1-other", 0) == b1


def test_keeps_version_0_and_the_newest_versions(tmp_path: Path) -> None:
    store = VersionStore(tmp_path, keep=2)
    store.commit_initial(writer(b"v0"), "lora-adapter")
    for v in range(1, 5):
        commit(store, v, f"b{v}", f"w{v}".encode())
    assert store.versions() == [0, 3, 4]
    with pytest.raises(ValueError, match="at least 2"):
        VersionStore(tmp_path, keep=1)


def test_open_removes_half_written_versions_and_drops_damaged_ones(tmp_path: Path) -> None:
    store = VersionStore(tmp_path)
    commit(store, 1, "b1", b"w1")
    commit(store, 2, "b2", b"w2")
    half = store.dir / ".tmp-v3-0000"
    half.mkdir()
    (half / "adapter_model.safetensors").write_bytes(b"partial")
    (store.path(2) / "adapter_model.safetensors").write_bytes(b"w2 damaged")
    again = VersionStore(tmp_path)
    assert again.versions() == [1]
    assert not half.exists()
    assert again.replay("b2", 1) is None and again.replay("b1", 0) is not None


def test_verify_names_the_file_that_does_not_match(tmp_path: Path) -> None:
    store = VersionStore(tmp_path)
    commit(store, 1, "b1", b"w1")
    (store.path(1) / "adapter_config.json").write_text("{}")
    with pytest.raises(StoreError, match="adapter_config.json does not match"):
        verify_version(store.path(1))


CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from owrl_torch.proto.owrl.v1 import trainer_pb2
    from owrl_torch.store import ArtifactInfo, VersionStore, OPTIMIZER

    root, mode = Path(sys.argv[1]), sys.argv[2]
    store = VersionStore(root)

    def write(folder):
        (folder / "adapter_model.safetensors").write_bytes(b"w" * 100000)
        if mode == "in-write":
            print("writing", flush=True)
            time.sleep(60)
        (folder / OPTIMIZER).write_bytes(b"opt")

    store.commit(1, write, trainer_pb2.TrainResult(schema_version=1, batch_id="b1"), ArtifactInfo("lora-adapter", "tiny"))
    print("committed", flush=True)
    """
)


@pytest.mark.parametrize("mode", ["in-write", "before-rename"])
def test_a_process_killed_while_writing_a_version_leaves_none_of_it(tmp_path: Path, mode: str) -> None:
    store = VersionStore(tmp_path)
    store.commit_initial(writer(b"v0"), "lora-adapter")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TORCH_DIR), os.environ.get("PYTHONPATH", "")]))}
    if mode == "before-rename":
        env[FAULT_PAUSE_ENV] = "60"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path), mode], stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = child.stdout.readline() if child.stdout else ""
        assert ("writing" if mode == "in-write" else "fault pause") in line
        assert [p.name for p in store.dir.iterdir() if p.name.startswith(".tmp-v1-")]
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    again = VersionStore(tmp_path)
    assert again.versions() == [0]
    assert not [p for p in again.dir.iterdir() if p.name.startswith(".")]
    assert again.replay("b1", 0) is None
    r = commit(again, 1, "b1", b"w1")
    assert again.replay("b1", 0) == r


def test_a_process_killed_after_the_rename_keeps_the_version(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TORCH_DIR), os.environ.get("PYTHONPATH", "")]))}
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), "whole"], capture_output=True, text=True, env=env, timeout=60)
    assert "committed" in out.stdout, out.stderr
    again = VersionStore(tmp_path)
    assert again.versions() == [1]
    r = again.replay("b1", 0)
    assert r is not None and r.artifact.sha256 == verify_version(again.path(1))
