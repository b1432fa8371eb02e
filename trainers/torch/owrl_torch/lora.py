"""LoRA adapters in the PEFT layout, for any torch model (the tiny model, a transformers model).

A version the trainer publishes must load in vLLM's `/v1/load_lora_adapter`, so the files follow
PEFT's: `adapter_config.json` (peft_type LORA, r, lora_alpha, target_modules, …) and
`adapter_model.safetensors` with tensors named `base_model.model.<module path>.lora_A.weight`
([r, in]) and `.lora_B.weight` ([out, r]). The delta of a wrapped Linear is
`(alpha / r) · B · A · x`; B starts at zero so a fresh adapter is the base model exactly.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import torch
import torch.nn as nn

from . import safetensors_io

PEFT_PREFIX = "base_model.model."
CONFIG_FILE = "adapter_config.json"
WEIGHTS_FILE = "adapter_model.safetensors"


class LoRALinear(nn.Module):
    """A frozen Linear plus a trainable low-rank delta (`lora_A`, `lora_B`)."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float, generator: torch.Generator) -> None:
        super().__init__()
        self.base_layer = base
        self.rank = rank
        self.alpha = alpha
        self.scaling = alpha / rank
        self.enabled = True
        dev, dt = base.weight.device, base.weight.dtype
        # a bf16/fp16 model keeps its adapter in fp32 (as PEFT does by default): Adam steps of
        # lr 1e-5 on weights of size ~0.1 are below bf16's resolution and would be rounded away
        if dt in (torch.float16, torch.bfloat16):
            dt = torch.float32
        self.lora_A = nn.Linear(base.in_features, rank, bias=False, device=dev, dtype=dt)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False, device=dev, dtype=dt)
        # kaiming-uniform with a = sqrt(5), as nn.Linear and PEFT initialise A: bound 1/sqrt(fan_in)
        bound = 1.0 / math.sqrt(base.in_features)
        with torch.no_grad():
            a = torch.rand(rank, base.in_features, generator=generator, dtype=torch.float32) * 2 * bound - bound
            self.lora_A.weight.copy_(a.to(dt))
            self.lora_B.weight.zero_()
        for p in self.base_layer.parameters():
            p.requires_grad_(False)

    @property
    def in_features(self) -> int:
        return self.base_layer.in_features

    @property
    def out_features(self) -> int:
        return self.base_layer.out_features

    @property
    def weight(self) -> torch.Tensor:
        return self.base_layer.weight

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.base_layer(x)
        if not self.enabled:
            return out
        return out + self.lora_B(self.lora_A(x.to(self.lora_A.weight.dtype))).to(out.dtype) * self.scaling

    def merged_weight(self) -> torch.Tensor:
        delta = (self.lora_B.weight.float() @ self.lora_A.weight.float()) * self.scaling
        return (self.base_layer.weight.float() + delta).to(self.base_layer.weight.dtype)


def _matches(name: str, targets: Sequence[str]) -> bool:
    # PEFT's rule for a list of names: the full module name or its last components
    return any(name == t or name.endswith("." + t) for t in targets)


def lora_modules(model: nn.Module) -> Dict[str, LoRALinear]:
    return {n: m for n, m in model.named_modules() if isinstance(m, LoRALinear)}


def lora_info(model: nn.Module) -> Optional[Dict[str, Any]]:
    """rank, alpha, target_modules and wrapped module names of an applied model (None: none)."""
    return getattr(model, "_owrl_lora", None)


def apply_lora(model: nn.Module, rank: int, alpha: float, target_modules: Sequence[str], seed: int = 0) -> List[str]:
    """Wraps every nn.Linear whose name matches `target_modules`; freezes everything else.

    Returns the wrapped module names in model order. A and B are created in that order from one
    generator seeded with `seed`, so the initial adapter is the same in every process.
    """
    if rank <= 0:
        raise ValueError(f"lora: rank must be positive, got {rank}")
    if alpha <= 0:
        raise ValueError(f"lora: alpha must be positive, got {alpha}")
    targets = [t for t in target_modules if t]
    if not targets:
        raise ValueError("lora: target_modules is empty")
    if lora_info(model) is not None:
        raise ValueError("lora: the model already has LoRA applied")
    linears = [(n, m) for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    chosen = [(n, m) for n, m in linears if _matches(n, targets)]
    if not chosen:
        names = sorted({n.split(".")[-1] for n, _ in linears})
        raise ValueError(f"lora: no Linear module matches target_modules {targets}; the model's Linear names are {names}")
    for t in targets:
        if not any(_matches(n, [t]) for n, _ in chosen):
            raise ValueError(f"lora: target module {t!r} matches no Linear module of the model")
    for p in model.parameters():
        p.requires_grad_(False)
    gen = torch.Generator().manual_seed(seed)
    wrapped: List[str] = []
    for name, lin in chosen:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, LoRALinear(lin, rank, alpha, gen))
        wrapped.append(name)
    model._owrl_lora = {"rank": rank, "alpha": alpha, "target_modules": list(targets), "modules": wrapped}  # type: ignore[assignment]
    return wrapped


def lora_parameters(model: nn.Module) -> List[nn.Parameter]:
    """The trainable adapter parameters, A then B per module, in model order."""
    out: List[nn.Parameter] = []
    for m in lora_modules(model).values():
        out.append(m.lora_A.weight)
        out.append(m.lora_B.weight)
    return out


def lora_state_dict(model: nn.Module) -> Dict[str, torch.Tensor]:
    """Adapter tensors under PEFT's names (CPU, detached)."""
    out: Dict[str, torch.Tensor] = {}
    for name, m in lora_modules(model).items():
        out[f"{PEFT_PREFIX}{name}.lora_A.weight"] = m.lora_A.weight.detach().to("cpu").contiguous()
        out[f"{PEFT_PREFIX}{name}.lora_B.weight"] = m.lora_B.weight.detach().to("cpu").contiguous()
    return out


def merged_state_dict(model: nn.Module) -> Dict[str, torch.Tensor]:
    """The model's weights under their original names with every adapter folded in (full-weights
    versions for engines that load weights, not adapters)."""
    wrapped = lora_modules(model)
    out: Dict[str, torch.Tensor] = {}
    for key, value in model.state_dict().items():
        if ".lora_A." in key or ".lora_B." in key:
            continue
        mod, _, leaf = key.rpartition(".")
        if mod.endswith(".base_layer"):
            owner = mod[: -len(".base_layer")]
            if owner in wrapped and leaf == "weight":
                out[f"{owner}.weight"] = wrapped[owner].merged_weight().detach().to("cpu").contiguous()
                continue
            out[f"{owner}.{leaf}"] = value.detach().to("cpu").contiguous()
            continue
        out[key] = value.detach().to("cpu").contiguous()
    return out


def adapter_config(base_model: str, rank: int, alpha: float, target_modules: Sequence[str]) -> Dict[str, Any]:
    """adapter_config.json as PEFT writes it for a plain LoRA, the fields vLLM reads included."""
    return {
        "peft_type": "LORA",
        "task_type": "CAUSAL_LM",
        "base_model_name_or_path": base_model,
        "r": int(rank),
        "lora_alpha": alpha,
        "target_modules": sorted(set(target_modules)),
        "lora_dropout": 0.0,
        "bias": "none",
        "fan_in_fan_out": False,
        "use_rslora": False,
        "use_dora": False,
        "modules_to_save": None,
        "layers_to_transform": None,
        "layers_pattern": None,
        "rank_pattern": {},
        "alpha_pattern": {},
        "init_lora_weights": True,
        "inference_mode": True,
        "revision": None,
    }


def save_adapter(model: nn.Module, directory: str, base_model: str, rank: int, alpha: float, target_modules: Sequence[str]) -> List[str]:
    """Writes the adapter folder; returns the file names written (relative to `directory`)."""
    info = lora_info(model)
    if info is None:
        raise ValueError("lora: the model has no LoRA applied; nothing to save")
    if int(info["rank"]) != int(rank) or float(info["alpha"]) != float(alpha) or sorted(set(info["target_modules"])) != sorted(set(target_modules)):
        raise ValueError(
            f"lora: save_adapter(rank={rank}, alpha={alpha}, target_modules={list(target_modules)}) differs from the applied "
            f"rank={info['rank']}, alpha={info['alpha']}, target_modules={info['target_modules']}"
        )
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, CONFIG_FILE), "w") as f:
        json.dump(adapter_config(base_model, rank, alpha, target_modules), f, indent=2, sort_keys=True)
        f.write("\n")
    safetensors_io.save_file(lora_state_dict(model), os.path.join(directory, WEIGHTS_FILE), metadata={"format": "pt"})
    return [CONFIG_FILE, WEIGHTS_FILE]


def read_adapter(directory: str) -> Tuple[Dict[str, Any], Dict[str, torch.Tensor]]:
    """(adapter_config, tensors) of an adapter folder, checked to be a plain PEFT LoRA."""
    cpath = os.path.join(directory, CONFIG_FILE)
    wpath = os.path.join(directory, WEIGHTS_FILE)
    if not os.path.isfile(cpath):
        raise FileNotFoundError(f"{directory}: no {CONFIG_FILE}")
    if not os.path.isfile(wpath):
        raise FileNotFoundError(f"{directory}: no {WEIGHTS_FILE}")
    with open(cpath) as f:
        try:
            cfg = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{cpath}: not JSON ({e})") from None
    if cfg.get("peft_type") != "LORA":
        raise ValueError(f"{cpath}: peft_type is {cfg.get('peft_type')!r}, expected 'LORA'")
    for key in ("r", "lora_alpha", "target_modules"):
        if key not in cfg:
            raise ValueError(f"{cpath}: field {key!r} is missing")
    if cfg.get("bias", "none") != "none":
        raise ValueError(f"{cpath}: bias {cfg.get('bias')!r} is not supported (only 'none')")
    if cfg.get("use_dora"):
        raise ValueError(f"{cpath}: use_dora is not supported")
    if cfg.get("fan_in_fan_out"):
        raise ValueError(f"{cpath}: fan_in_fan_out true is not supported")
    if cfg.get("modules_to_save"):
        raise ValueError(f"{cpath}: modules_to_save {cfg.get('modules_to_save')!r} is not supported")
    return cfg, safetensors_io.load_file(wpath)


def load_lora_tensors(model: nn.Module, tensors: Dict[str, torch.Tensor], where: str = "adapter") -> None:
    """Copies PEFT-named adapter tensors into an applied model; every name must match."""
    mods = lora_modules(model)
    expected = {}
    for name, m in mods.items():
        expected[f"{PEFT_PREFIX}{name}.lora_A.weight"] = m.lora_A.weight
        expected[f"{PEFT_PREFIX}{name}.lora_B.weight"] = m.lora_B.weight
    missing = sorted(set(expected) - set(tensors))
    unexpected = sorted(set(tensors) - set(expected))
    if missing or unexpected:
        raise ValueError(f"{where}: tensor names do not match the model (missing {missing[:4]}, unexpected {unexpected[:4]})")
    with torch.no_grad():
        for key, param in expected.items():
            t = tensors[key]
            if tuple(t.shape) != tuple(param.shape):
                raise ValueError(f"{where}: {key} has shape {tuple(t.shape)}, the model expects {tuple(param.shape)}")
            param.copy_(t.to(param.device, param.dtype))


def load_adapter(model: nn.Module, directory: str, seed: int = 0) -> List[str]:
    """Loads an adapter folder into `model`.

    A model without LoRA gets it applied from the folder's config first; a model with LoRA must
    match the config (r, lora_alpha, target_modules), else the load is refused naming the field.
    Returns the wrapped module names.
    """
    cfg, tensors = read_adapter(directory)
    rank, alpha, targets = int(cfg["r"]), float(cfg["lora_alpha"]), list(cfg["target_modules"])
    info = lora_info(model)
    if info is None:
        apply_lora(model, rank, alpha, targets, seed=seed)
        info = lora_info(model)
        assert info is not None
    else:
        if int(info["rank"]) != rank:
            raise ValueError(f"{directory}/{CONFIG_FILE}: r is {rank}, the model's adapter has rank {info['rank']}")
        if float(info["alpha"]) != alpha:
            raise ValueError(f"{directory}/{CONFIG_FILE}: lora_alpha is {cfg['lora_alpha']}, the model's adapter has {info['alpha']}")
        if sorted(set(info["target_modules"])) != sorted(set(targets)):
            raise ValueError(f"{directory}/{CONFIG_FILE}: target_modules {sorted(set(targets))} differ from the model's {sorted(set(info['target_modules']))}")
    load_lora_tensors(model, tensors, where=f"{directory}/{WEIGHTS_FILE}")
    set_lora_enabled(model, True)
    return list(info["modules"])


def set_lora_enabled(model: nn.Module, enabled: bool) -> None:
    for m in lora_modules(model).values():
        m.enabled = enabled


@contextlib.contextmanager
def lora_disabled(model: nn.Module) -> Iterator[None]:
    """The base model inside the block (reference log-probs, requests for the base model)."""
    mods = list(lora_modules(model).values())
    before = [m.enabled for m in mods]
    for m in mods:
        m.enabled = False
    try:
        yield
    finally:
        for m, b in zip(mods, before):
            m.enabled = b


def lora_delta_norm(model: nn.Module) -> float:
    """Frobenius norm of all adapter deltas (zero for a fresh adapter): a cheap "did it train"."""
    total = 0.0
    for m in lora_modules(model).values():
        total += float(((m.lora_B.weight.float() @ m.lora_A.weight.float()) * m.scaling).pow(2).sum())
    return math.sqrt(total)


__all__ = [
    "LoRALinear",
    "apply_lora",
    "lora_parameters",
    "lora_state_dict",
    "merged_state_dict",
    "save_adapter",
    "read_adapter",
    "load_adapter",
    "load_lora_tensors",
    "lora_disabled",
    "set_lora_enabled",
    "lora_info",
    "adapter_config",
    "lora_delta_norm",
]
