"""The generated Python of proto/: importable under owrl_torch.proto, current, and wire-compatible."""

from __future__ import annotations

import importlib
import pkgutil
import shutil
import subprocess
from pathlib import Path

import pytest

import owrl_torch.proto as gen
from owrl_torch.proto.grpc.health.v1 import health_pb2_grpc
from owrl_torch.proto.owrl.v1 import policy_pb2, trainer_pb2, trainer_pb2_grpc, trajectory_pb2

REPO = Path(__file__).resolve().parents[3]


def test_every_generated_module_imports_under_the_package() -> None:
    names = [m.name for m in pkgutil.walk_packages(gen.__path__, prefix="owrl_torch.proto.")]
    assert "owrl_torch.proto.owrl.v1.trainer_pb2" in names and "owrl_torch.proto.grpc.health.v1.health_pb2_grpc" in names
    for name in names:
        importlib.import_module(name)
    assert gen.GENERATOR


def test_the_generated_code_is_that_of_the_protos_in_the_tree() -> None:
    protos = sorted(p.stem for p in (REPO / "proto" / "owrl" / "v1").glob("*.proto"))
    made = sorted(p.name[: -len("_pb2.py")] for p in Path(gen.__file__).parent.joinpath("owrl", "v1").glob("*_pb2.py"))
    assert made == protos
    assert trainer_pb2.DESCRIPTOR.name == "owrl/v1/trainer.proto"
    assert "off_policy" in trainer_pb2.TrainResult.DESCRIPTOR.fields_by_name


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_gen_check_passes() -> None:
    out = subprocess.run(["node", "scripts/gen-proto.mjs", "--check"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr + out.stdout


def test_messages_round_trip_on_the_wire() -> None:
    r = trainer_pb2.TrainResult(
        schema_version=1,
        batch_id="run/update-1",
        version=1,
        artifact=policy_pb2.PolicyArtifact(version=1, uri="file:///x/v1", sha256="a" * 64, kind="lora-adapter"),
        off_policy=trainer_pb2.OffPolicyStat(parity_tokens=3, ess=0.9, correction="tis"),
    )
    assert trainer_pb2.TrainResult.FromString(r.SerializeToString()) == r
    t = trajectory_pb2.TokenTrace(token_ids=[1], sampler=trajectory_pb2.SamplerSettings(seed=0))
    assert trajectory_pb2.TokenTrace.FromString(t.SerializeToString()).sampler.HasField("seed")


def test_the_stubs_name_the_services_methods() -> None:
    assert hasattr(trainer_pb2_grpc, "TrainerStub") and hasattr(trainer_pb2_grpc, "add_TrainerServicer_to_server")
    assert hasattr(health_pb2_grpc, "HealthStub")
    service = trainer_pb2.DESCRIPTOR.services_by_name["Trainer"]
    train = service.methods_by_name["Train"]
    assert train.input_type.full_name == "owrl.v1.TrainChunk" and train.output_type.full_name == "owrl.v1.TrainResult"
