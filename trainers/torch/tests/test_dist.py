import json
import os
import socket
import subprocess
import sys

import pytest

from owrl_torch import safetensors_io
from trainreq import torchrun_unusable

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "dist_train.py")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd, out_dir):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"{cmd} failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    tensors = safetensors_io.load_file(os.path.join(out_dir, "adapter_model.safetensors"))
    outcomes = json.load(open(os.path.join(out_dir, "outcomes.json")))
    return tensors, outcomes


@pytest.mark.skipif(torchrun_unusable() is not None, reason=str(torchrun_unusable()))
def test_two_gloo_ranks_give_the_single_rank_adapter(tiny_dir, tmp_path):
    one_dir, two_dir = tmp_path / "one", tmp_path / "two"
    one_dir.mkdir()
    two_dir.mkdir()
    one, one_out = run([sys.executable, SCRIPT, str(one_dir), tiny_dir], one_dir)
    two, two_out = run(
        [
            # torch 1.13's launcher cannot parse its own default "0" for --redirects/--tee on
            # Python 3.11 (a zero Flag member is not iterated): name the streams explicitly
            sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc_per_node", "2", "--redirects", "1", "--tee", "1",
            "--master_addr", "127.0.0.1", "--master_port", str(free_port()), SCRIPT, str(two_dir), tiny_dir,
        ],
        two_dir,
    )
    assert sorted(one) == sorted(two)
    worst = max(float((one[k] - two[k]).abs().max()) for k in one)
    moved = max(float(one[k].abs().max()) for k in one if k.endswith("lora_B.weight"))
    assert moved > 1e-3  # the adapter trained (B starts at zero)
    assert worst <= 1e-5, worst
    for a, b in zip(one_out, two_out):
        assert a["off_policy"]["parity_tokens"] == b["off_policy"]["parity_tokens"]
        assert a["off_policy"]["positive_logprob_gain"] == pytest.approx(b["off_policy"]["positive_logprob_gain"], abs=1e-5)
        for ea, eb in zip(a["epochs"], b["epochs"]):
            assert ea["actions"] == eb["actions"]
            assert ea["loss"] == pytest.approx(eb["loss"], abs=1e-5)
            assert ea["mean_ratio"] == pytest.approx(eb["mean_ratio"], abs=1e-5)
