"""Reading and writing the safetensors format.

Adapters and full weights leave the trainer as safetensors files because that is what vLLM's
`/v1/load_lora_adapter` and SGLang's `update_weights_from_disk` read. The `safetensors` package
is used when it is installed; otherwise this module writes and reads the format itself (it is
small: an 8-byte little-endian header length, a JSON header naming each tensor's dtype, shape and
byte range, optional `__metadata__` of string pairs, then the raw little-endian data), so the
trainer works with nothing but torch.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from typing import Dict, Optional

import torch

_DTYPES: Dict[torch.dtype, str] = {
    torch.float64: "F64",
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.int64: "I64",
    torch.int32: "I32",
    torch.int16: "I16",
    torch.int8: "I8",
    torch.uint8: "U8",
    torch.bool: "BOOL",
}
_BY_NAME: Dict[str, torch.dtype] = {v: k for k, v in _DTYPES.items()}


def _have_package() -> bool:
    if os.environ.get("OWRL_SAFETENSORS_BUILTIN") == "1":
        return False
    try:
        import safetensors.torch  # noqa: F401
    except ImportError:
        return False
    return True


def _raw_bytes(t: torch.Tensor) -> bytes:
    t = t.detach().to("cpu").contiguous()
    if t.numel() == 0:
        return b""
    # view as bytes keeps bf16 (which numpy lacks) exact
    data = t.reshape(-1).view(torch.uint8).numpy().tobytes()
    if sys.byteorder != "little" and t.element_size() > 1:
        raise RuntimeError("safetensors_io: big-endian hosts are not supported by the built-in writer")
    return data


def save_file(tensors: Dict[str, torch.Tensor], path: str, metadata: Optional[Dict[str, str]] = None) -> None:
    """Writes `tensors` to `path` (tensors in name order, as the reference implementation does)."""
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"safetensors: {name!r} is a {type(t).__name__}, not a tensor")
        if t.dtype not in _DTYPES:
            raise TypeError(f"safetensors: {name!r} has dtype {t.dtype}, which the format has no name for")
    if metadata is not None:
        for k, v in metadata.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError(f"safetensors: metadata must map str to str, got {k!r}: {v!r}")
    if _have_package():
        from safetensors.torch import save_file as st_save

        st_save({k: v.detach().to("cpu").contiguous() for k, v in tensors.items()}, path, metadata=metadata)
        return
    header: Dict[str, object] = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    chunks = []
    offset = 0
    for name in sorted(tensors):
        t = tensors[name]
        data = _raw_bytes(t)
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * ((8 - len(raw) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for c in chunks:
            f.write(c)


def read_header(path: str) -> Dict[str, object]:
    """The JSON header of a safetensors file (tensor entries and `__metadata__`)."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) != 8:
            raise ValueError(f"{path}: not a safetensors file (shorter than its 8-byte header length)")
        (n,) = struct.unpack("<Q", head)
        size = os.fstat(f.fileno()).st_size
        if n > size - 8:
            raise ValueError(f"{path}: header length {n} runs past the end of the file ({size} bytes)")
        try:
            header = json.loads(f.read(n).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"{path}: header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{path}: header is not a JSON object")
    return header


def load_metadata(path: str) -> Dict[str, str]:
    meta = read_header(path).get("__metadata__") or {}
    return dict(meta)  # type: ignore[arg-type]


def load_file(path: str) -> Dict[str, torch.Tensor]:
    """Reads every tensor of `path` onto the CPU."""
    if _have_package():
        from safetensors.torch import load_file as st_load

        return dict(st_load(path))
    header = read_header(path)
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        f.seek(8 + n)
        data = f.read()
    out: Dict[str, torch.Tensor] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict):
            raise ValueError(f"{path}: entry {name!r} is not an object")
        dtype_name = info.get("dtype")
        if dtype_name not in _BY_NAME:
            raise ValueError(f"{path}: tensor {name!r} has dtype {dtype_name!r}, which this reader does not know")
        dtype = _BY_NAME[str(dtype_name)]
        shape = [int(s) for s in info.get("shape", [])]  # type: ignore[union-attr]
        begin, end = (int(x) for x in info.get("data_offsets", [0, 0]))  # type: ignore[union-attr]
        count = 1
        for s in shape:
            count *= s
        itemsize = torch.empty((), dtype=dtype).element_size()
        if end - begin != count * itemsize or end > len(data) or begin < 0:
            raise ValueError(f"{path}: tensor {name!r} byte range {begin}..{end} does not fit shape {shape} of {dtype_name}")
        buf = bytearray(data[begin:end])
        if count == 0:
            out[name] = torch.empty(shape, dtype=dtype)
        else:
            out[name] = torch.frombuffer(buf, dtype=torch.uint8).view(dtype).reshape(shape).clone()
    return out
