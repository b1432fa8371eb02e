"""Hugging Face models (transformers) behind the interfaces the trainer uses for the tiny model:
completion log-probs with an fp32 head and image placeholder counts from the model's own
processor. LoRA is owrl_torch.lora applied to the transformers model itself, so adapters carry
the tensor names PEFT gives them (`base_model.model.<module path>`) and peft is not needed.

transformers is imported inside the functions: the rest of the package (and its tests) runs
without it. Qwen3-VL-4B-Instruct on one GPU is the documented case; any causal LM or
Qwen-style VLM (`<|image_pad|>` expanded to grid_t·grid_h·grid_w / merge_size² tokens) works the
same way.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Union

import torch
import torch.nn as nn

from owrl_torch.images import open_image


def _require(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        raise RuntimeError(
            f"loading a Hugging Face model needs the Python package {name!r} "
            f"(pip install 'owrl-torch[transformers]'); a tiny test model folder does not"
        ) from None


def _takes(module: nn.Module, name: str) -> bool:
    try:
        return name in inspect.signature(module.forward).parameters
    except (TypeError, ValueError):
        return False


class HFImageCounter:
    """`image_tokens(bytes)` from the model's image processor, so the trainer can check a trace's
    placeholder count before training on it."""

    def __init__(self, processor: Any) -> None:
        self.processor = processor
        ip = getattr(processor, "image_processor", processor)
        self.image_processor = ip
        self.merge_size = int(getattr(ip, "merge_size", 1) or 1)

    def pixel_inputs(self, images: Sequence[bytes]) -> Dict[str, torch.Tensor]:
        out = self.image_processor(images=[open_image(b).convert("RGB") for b in images], return_tensors="pt")
        return dict(out)

    def image_tokens(self, data: bytes) -> int:
        grid = self.pixel_inputs([data]).get("image_grid_thw")
        if grid is None:
            raise ValueError("processor: the image processor returns no image_grid_thw; cannot count image tokens")
        t, h, w = (int(x) for x in grid[0].tolist())
        return (t * h * w) // (self.merge_size**2)


class HFPolicy(nn.Module):
    """A transformers causal LM / VLM with the hooks `logprobs.sequence_logprobs` looks for. LoRA
    goes on `inner` (lora.apply_lora(policy.inner, …)), whose module paths are the ones PEFT and
    the engines name adapter tensors by."""

    def __init__(self, model: nn.Module, processor: Any, tokenizer: Any, name: str) -> None:
        super().__init__()
        self.inner = model
        self.processor = processor
        self.tokenizer = tokenizer
        self.name = name
        self.images = HFImageCounter(processor) if processor is not None and hasattr(processor, "image_processor") else None
        cfg = getattr(model, "config", None)
        self.image_id: Optional[int] = getattr(cfg, "image_token_id", None)
        # a VLM's config holds the vocabulary in its text config (transformers 5: only there)
        text = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
        vocab = getattr(text, "vocab_size", None) or getattr(cfg, "vocab_size", None)
        self.vocab_size: Optional[int] = int(vocab) if vocab else None
        pad = getattr(tokenizer, "pad_token_id", None)
        self.pad_id = int(pad) if pad is not None else 0

    def _backbone_and_head(self) -> Any:
        m = self.inner
        head = m.get_output_embeddings() if hasattr(m, "get_output_embeddings") else getattr(m, "lm_head")
        backbone = getattr(m, "model", None)
        if backbone is None:
            base_prefix = getattr(m, "base_model_prefix", "model")
            backbone = getattr(m, base_prefix)
        return backbone, head

    def owrl_completion_logits(
        self,
        prompts: List[List[int]],
        completions: List[List[int]],
        images: List[List[bytes]],
        device: Union[str, torch.device],
    ) -> List[torch.Tensor]:
        """fp32 logits [C_i, V] predicting each row's completion: one right-padded forward, the
        head applied only where a completion token is predicted (a 150k vocabulary is large)."""
        width = max(len(p) + len(c) for p, c in zip(prompts, completions))
        ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for r, (p, c) in enumerate(zip(prompts, completions)):
            seq = p + c
            ids[r, : len(seq)] = torch.tensor(seq, dtype=torch.long)
            mask[r, : len(seq)] = 1
        kwargs: Dict[str, Any] = {"input_ids": ids.to(device), "attention_mask": mask.to(device)}
        flat = [b for row in images for b in row]
        if flat:
            if self.images is None:
                raise ValueError("model: the steps carry images but the model has no image processor")
            for r, (p, row) in enumerate(zip(prompts, images)):
                want = sum(self.images.image_tokens(b) for b in row)
                have = sum(1 for t in p if t == self.image_id)
                if want != have:
                    raise ValueError(f"rows[{r}]: the prompt holds {have} image tokens but its {len(row)} images give {want}")
            pix = self.images.pixel_inputs(flat)
            for k, v in pix.items():
                if isinstance(v, torch.Tensor):
                    kwargs[k] = v.to(device)
            dtype = next(self.inner.parameters()).dtype
            if "pixel_values" in kwargs and kwargs["pixel_values"].is_floating_point():
                kwargs["pixel_values"] = kwargs["pixel_values"].to(dtype)
        backbone, head = self._backbone_and_head()
        if flat and _takes(backbone, "mm_token_type_ids"):
            # transformers 5 computes a VLM's multimodal rotary positions from each position's
            # modality (0 text, 1 image), which its processor returns next to input_ids
            kwargs["mm_token_type_ids"] = (kwargs["input_ids"] == self.image_id).to(torch.int32)
        out = backbone(**kwargs, use_cache=False, return_dict=True)
        hidden = out.last_hidden_state if hasattr(out, "last_hidden_state") else out[0]
        w = head.weight.float()
        b = head.bias.float() if getattr(head, "bias", None) is not None else None
        res = []
        for r, (p, c) in enumerate(zip(prompts, completions)):
            h = hidden[r, len(p) - 1 : len(p) + len(c) - 1].float()
            res.append(torch.nn.functional.linear(h, w, b))
        return res

    def forward(self, *args: Any, **kwargs: Any) -> Any:  # plain calls go to the model
        return self.inner(*args, **kwargs)


def dtype_kwarg(transformers_version: str, dtype: torch.dtype) -> Dict[str, Any]:
    """`from_pretrained`'s dtype keyword: `dtype` from transformers 4.56 on (`torch_dtype` is
    deprecated there, and Qwen3-VL needs 4.57), `torch_dtype` before."""
    parts = []
    for piece in transformers_version.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    major, minor = (parts + [0, 0])[:2]
    return {"dtype": dtype} if (major, minor) >= (4, 56) else {"torch_dtype": dtype}


@dataclass
class HFBundle:
    model: HFPolicy
    tokenizer: Any
    processor: Any  # HFImageCounter or None: what the trainer's checks and logprobs use
    name: str


def load_hf(
    model_id: str,
    device: Union[str, torch.device] = "cpu",
    dtype: str = "bfloat16",
    gradient_checkpointing: bool = True,
) -> HFBundle:
    """Loads a causal LM or VLM and its processor/tokenizer (folder or hub id)."""
    transformers = _require("transformers")
    torch_dtype = getattr(torch, dtype) if isinstance(dtype, str) else dtype
    processor = None
    try:
        processor = transformers.AutoProcessor.from_pretrained(model_id)
    except Exception:
        processor = None
    tokenizer = getattr(processor, "tokenizer", None) or transformers.AutoTokenizer.from_pretrained(model_id)
    model = None
    errors: List[str] = []
    for auto in ("AutoModelForImageTextToText", "AutoModelForVision2Seq", "AutoModelForCausalLM"):
        cls = getattr(transformers, auto, None)
        if cls is None:
            continue
        try:
            model = cls.from_pretrained(model_id, **dtype_kwarg(getattr(transformers, "__version__", "0"), torch_dtype))
            break
        except (ValueError, KeyError) as e:
            errors.append(f"{auto}: {e}")
    if model is None:
        raise ValueError(f"{model_id}: no transformers auto class loads it ({'; '.join(errors)[:500]})")
    model.to(device)
    if gradient_checkpointing and hasattr(model, "gradient_checkpointing_enable"):
        model.gradient_checkpointing_enable()
        if hasattr(model, "enable_input_require_grads"):
            model.enable_input_require_grads()
    if hasattr(model, "config"):
        model.config.use_cache = False
    policy = HFPolicy(model, processor, tokenizer, model_id)
    return HFBundle(model=policy, tokenizer=tokenizer, processor=policy.images, name=model_id)


def save_hf_full(policy: HFPolicy, directory: str) -> List[str]:
    """Full weights, with the processor or tokenizer, for engines that load weights from disk
    (SGLang's update_weights_from_disk)."""
    os.makedirs(directory, exist_ok=True)
    policy.inner.save_pretrained(directory)
    if policy.processor is not None and hasattr(policy.processor, "save_pretrained"):
        policy.processor.save_pretrained(directory)
    elif policy.tokenizer is not None and hasattr(policy.tokenizer, "save_pretrained"):
        policy.tokenizer.save_pretrained(directory)
    return sorted(os.listdir(directory))


__all__ = ["HFPolicy", "HFBundle", "HFImageCounter", "dtype_kwarg", "load_hf", "save_hf_full"]
