import json
import struct

import pytest
import torch

from owrl_torch import safetensors_io


@pytest.fixture(params=["package-or-builtin", "builtin"])
def mode(request, monkeypatch):
    if request.param == "builtin":
        monkeypatch.setenv("OWRL_SAFETENSORS_BUILTIN", "1")
    return request.param


def sample_tensors():
    g = torch.Generator().manual_seed(1)
    return {
        "b.weight": torch.randn(3, 5, generator=g),
        "a.half": torch.randn(4, generator=g).half(),
        "a.bf16": torch.randn(2, 3, generator=g).to(torch.bfloat16),
        "ints": torch.arange(7, dtype=torch.int64),
        "flags": torch.tensor([True, False, True]),
        "empty": torch.zeros(0, 4),
        "scalar": torch.tensor(2.5),
    }


def test_round_trip_every_dtype(tmp_path, mode):
    t = sample_tensors()
    path = str(tmp_path / "x.safetensors")
    safetensors_io.save_file(t, path, metadata={"format": "pt", "k": "v"})
    back = safetensors_io.load_file(path)
    assert sorted(back) == sorted(t)
    for k in t:
        assert back[k].dtype == t[k].dtype, k
        assert tuple(back[k].shape) == tuple(t[k].shape), k
        assert torch.equal(back[k], t[k]), k
    assert safetensors_io.load_metadata(path) == {"format": "pt", "k": "v"}


def test_builtin_layout(tmp_path, monkeypatch):
    monkeypatch.setenv("OWRL_SAFETENSORS_BUILTIN", "1")
    path = str(tmp_path / "x.safetensors")
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    safetensors_io.save_file({"w": w, "b": torch.tensor([7], dtype=torch.int32)}, path, metadata={"m": "1"})
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    assert (8 + n) % 8 == 0  # data starts 8-byte aligned (header padded with spaces)
    header = json.loads(raw[8 : 8 + n].decode())
    assert header["__metadata__"] == {"m": "1"}
    assert header["b"] == {"dtype": "I32", "shape": [1], "data_offsets": [0, 4]}
    assert header["w"] == {"dtype": "F32", "shape": [2, 2], "data_offsets": [4, 20]}
    data = raw[8 + n :]
    assert struct.unpack("<i", data[0:4]) == (7,)
    assert struct.unpack("<4f", data[4:20]) == (1.0, 2.0, 3.0, 4.0)


def test_refuses_bad_files(tmp_path, monkeypatch):
    monkeypatch.setenv("OWRL_SAFETENSORS_BUILTIN", "1")
    short = tmp_path / "short.safetensors"
    short.write_bytes(b"\x01\x02")
    with pytest.raises(ValueError, match="not a safetensors file"):
        safetensors_io.load_file(str(short))
    long = tmp_path / "long.safetensors"
    long.write_bytes(struct.pack("<Q", 1000) + b"{}")
    with pytest.raises(ValueError, match="runs past the end"):
        safetensors_io.load_file(str(long))
    bad = tmp_path / "bad.safetensors"
    hdr = json.dumps({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}).encode()
    bad.write_bytes(struct.pack("<Q", len(hdr)) + hdr + b"\0" * 8)
    with pytest.raises(ValueError, match="does not fit shape"):
        safetensors_io.load_file(str(bad))
    with pytest.raises(TypeError, match="metadata"):
        safetensors_io.save_file({"x": torch.zeros(1)}, str(tmp_path / "m.safetensors"), metadata={"k": 1})  # type: ignore[dict-item]
