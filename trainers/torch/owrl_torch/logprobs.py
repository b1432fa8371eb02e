"""Log-probabilities of completion tokens, computed the way the serving engine reported them.

The behaviour log-probs in a trace are of one of three distributions (docs/trainer.md, "The
loss"): RAW `log_softmax(logits)`; TEMPERATURE after penalties and temperature; PROCESSED the
distribution actually sampled from, after penalties, temperature, min-p, top-k and top-p, renormalised.
The trainer recomputes the same one with the step's own sampler, in fp32, so that on-policy
ratios are 1 and the engine/trainer gap measures only what it should (numerics, not semantics).
The filtering order and tie rules follow vLLM's sampler: temperature, then min-p, then top-k
(ties at the k-th value kept), then top-p on the top-k-renormalised probabilities (the most
likely token always kept).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple, Union

import torch

MODES = ("RAW", "TEMPERATURE", "PROCESSED")
_MODE_ALIASES = {
    "RAW": "RAW",
    "TEMPERATURE": "TEMPERATURE",
    "PROCESSED": "PROCESSED",
    "RAW_LOGPROBS": "RAW",
    "PROCESSED_LOGPROBS": "PROCESSED",
    "LOGPROB_MODE_RAW": "RAW",
    "LOGPROB_MODE_TEMPERATURE": "TEMPERATURE",
    "LOGPROB_MODE_PROCESSED": "PROCESSED",
}
_MODE_NUMBERS = {1: "RAW", 2: "TEMPERATURE", 3: "PROCESSED"}


def normalize_mode(mode: Union[str, int]) -> str:
    """RAW, TEMPERATURE or PROCESSED from a name, a vLLM `--logprobs-mode` value or the proto enum."""
    if isinstance(mode, int) and not isinstance(mode, bool):
        if mode in _MODE_NUMBERS:
            return _MODE_NUMBERS[mode]
        raise ValueError(f"logprob mode {mode} is not RAW (1), TEMPERATURE (2) or PROCESSED (3)")
    key = str(mode).strip().upper()
    if key in _MODE_ALIASES:
        return _MODE_ALIASES[key]
    raise ValueError(f"logprob mode {mode!r} is unknown (known: {', '.join(MODES)})")


@dataclass
class Sampler:
    """The sampling settings of one request; neutral values switch a filter off."""

    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    min_p: float = 0.0
    repetition_penalty: float = 1.0
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0

    @classmethod
    def of(cls, obj: Any) -> "Sampler":
        """From a Sampler, a dict, or any object with those attributes (a proto SamplerSettings).
        Zero repetition_penalty reads as unset (1), as proto3 defaults would say."""
        if isinstance(obj, Sampler):
            return obj
        get = (lambda k, d: obj.get(k, d)) if isinstance(obj, dict) else (lambda k, d: getattr(obj, k, d))
        rp = float(get("repetition_penalty", 1.0) or 1.0)
        return cls(
            temperature=float(get("temperature", 1.0)),
            top_p=float(get("top_p", 1.0)),
            top_k=int(get("top_k", -1)),
            min_p=float(get("min_p", 0.0)),
            repetition_penalty=rp,
            presence_penalty=float(get("presence_penalty", 0.0)),
            frequency_penalty=float(get("frequency_penalty", 0.0)),
        )

    def has_penalties(self) -> bool:
        return self.repetition_penalty != 1.0 or self.presence_penalty != 0.0 or self.frequency_penalty != 0.0


def _check_temperature(t: float) -> None:
    if not math.isfinite(t) or t < 1e-5:
        raise ValueError(f"sampler.temperature {t} is greedy (or invalid): it defines no distribution to compute log-probs of")


def _filter(logits: torch.Tensor, s: Sampler) -> torch.Tensor:
    """min-p, top-k, top-p masking (with -inf) of temperature-scaled logits [..., V]."""
    v = logits.shape[-1]
    out = logits
    if 0.0 < s.min_p <= 1.0:
        probs = torch.softmax(out, dim=-1)
        top = probs.max(dim=-1, keepdim=True).values
        out = out.masked_fill(probs < top * s.min_p, float("-inf"))
    use_k = 0 < s.top_k < v
    use_p = 0.0 < s.top_p < 1.0
    if not (use_k or use_p):
        return out
    sorted_logits, order = torch.sort(out, dim=-1, descending=False)
    if use_k:
        kth = sorted_logits[..., v - s.top_k].unsqueeze(-1)
        sorted_logits = sorted_logits.masked_fill(sorted_logits < kth, float("-inf"))
    if use_p:
        probs = torch.softmax(sorted_logits, dim=-1)
        cum = probs.cumsum(dim=-1)
        drop = cum <= 1.0 - s.top_p
        drop[..., -1] = False
        sorted_logits = sorted_logits.masked_fill(drop, float("-inf"))
    return torch.full_like(out, float("-inf")).scatter(-1, order, sorted_logits)


def process_logprobs(logits: torch.Tensor, sampler: Any, mode: Union[str, int]) -> torch.Tensor:
    """log-probs [..., V] (fp32) of the distribution `mode` names, for logits [..., V].

    Penalties depend on the tokens so far: apply `apply_penalties` to the logits first (as
    `sequence_logprobs` does) when the sampler has any.
    """
    m = normalize_mode(mode)
    s = Sampler.of(sampler)
    x = logits.float()
    if m == "RAW":
        return torch.log_softmax(x, dim=-1)
    _check_temperature(s.temperature)
    x = x / s.temperature
    if m == "TEMPERATURE":
        return torch.log_softmax(x, dim=-1)
    return torch.log_softmax(_filter(x, s), dim=-1)


def apply_penalties(logits: torch.Tensor, prompt_ids: Sequence[int], completion_ids: Sequence[int], sampler: Any) -> torch.Tensor:
    """Penalised logits [C, V] for the C positions that predict `completion_ids`, as vLLM applies
    them: repetition (divide positive, multiply negative logits of tokens seen in the prompt or
    output so far), frequency (minus count in the output so far) and presence (minus seen)."""
    s = Sampler.of(sampler)
    if not s.has_penalties():
        return logits
    c, v = logits.shape
    out = logits.float().clone()
    seen_prompt = _seen(prompt_ids, v, logits.device)
    counts = torch.zeros(v, dtype=torch.float32, device=logits.device)
    for i in range(c):
        out[i] = _penalise(out[i], seen_prompt, counts, s)
        if i < len(completion_ids):
            counts[int(completion_ids[i])] += 1
    return out


def _seen(ids: Sequence[int], v: int, device: Union[str, torch.device]) -> torch.Tensor:
    """bool [V]: the tokens of `ids`."""
    seen = torch.zeros(v, dtype=torch.bool, device=device)
    if len(ids):
        seen[torch.tensor(list(ids), device=device, dtype=torch.long)] = True
    return seen


def _penalise(row: torch.Tensor, seen_prompt: torch.Tensor, counts: torch.Tensor, s: Sampler) -> torch.Tensor:
    """One position's fp32 logits [V] penalised, given the prompt's tokens and the output's token counts so far."""
    if s.repetition_penalty != 1.0:
        seen = seen_prompt | (counts > 0)
        pen = torch.where(row > 0, row / s.repetition_penalty, row * s.repetition_penalty)
        row = torch.where(seen, pen, row)
    return row - s.frequency_penalty * counts - s.presence_penalty * (counts > 0).float()


def _field(step: Any, *names: str, default: Any = None) -> Any:
    for n in names:
        if isinstance(step, dict) and n in step:
            return step[n]
        if hasattr(step, n):
            return getattr(step, n)
    return default


def _crop(model: Any, prompt: List[int]) -> int:
    """How many leading prompt tokens cannot influence the completion (sliding-window models)."""
    rf = getattr(model, "receptive_field", None)
    if not isinstance(rf, int) or rf <= 0:
        return 0
    return max(0, len(prompt) - rf)


def _completion_logits(
    model: Any,
    rows: List[Tuple[List[int], List[int], List[torch.Tensor], List[bytes]]],
    device: Union[str, torch.device],
) -> List[torch.Tensor]:
    """fp32 logits [C_i, V] predicting each row's completion tokens (one batched forward)."""
    if hasattr(model, "owrl_completion_logits"):
        return model.owrl_completion_logits(
            [r[0] for r in rows], [r[1] for r in rows], [r[3] for r in rows], device
        )
    width = max(len(p) + len(c) for p, c, _, _ in rows)
    ids = torch.zeros((len(rows), width), dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    feats: List[torch.Tensor] = []
    for r, (p, c, f, _) in enumerate(rows):
        seq = p + c
        ids[r, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[r, : len(seq)] = 1
        feats.extend(f)
    ids, mask = ids.to(device), mask.to(device)
    hidden = model.hidden_states(ids, mask, [f.to(device) for f in feats]) if hasattr(model, "hidden_states") else None
    out: List[torch.Tensor] = []
    if hidden is not None:
        for r, (p, c, _, _) in enumerate(rows):
            h = hidden[r, len(p) - 1 : len(p) + len(c) - 1]
            out.append(model.logits(h) if hasattr(model, "logits") else h)
        return out
    logits = model(ids, mask, feats)
    for r, (p, c, _, _) in enumerate(rows):
        out.append(logits[r, len(p) - 1 : len(p) + len(c) - 1].float())
    return out


def sequence_logprobs(
    model: Any,
    steps: Sequence[Any],
    device: Union[str, torch.device] = "cpu",
    processor: Any = None,
    max_batch_tokens: int = 8192,
) -> List[torch.Tensor]:
    """Per step, the log-probs [C] of its completion tokens under the step's sampler and mode.

    Steps need `prompt_ids`, `completion_ids`, `sampler`, `logprob_mode` and `images` (bytes of
    each image in prompt order; their features come from `processor`). Rows are right-padded and
    batched up to `max_batch_tokens`; the head runs in fp32. Gradients flow when enabled.
    """
    results: List[Optional[torch.Tensor]] = [None] * len(steps)
    img_tok = getattr(model, "image_id", None)
    prepared: List[Tuple[int, List[int], List[int], List[torch.Tensor], List[bytes]]] = []
    for k, st in enumerate(steps):
        prompt = [int(t) for t in _field(st, "prompt_ids", "prompt_token_ids")]
        comp = [int(t) for t in _field(st, "completion_ids", "token_ids")]
        if not prompt:
            raise ValueError(f"steps[{k}]: prompt token ids are empty")
        if not comp:
            results[k] = torch.zeros(0, device=device)
            continue
        images = list(_field(st, "images", default=[]) or [])
        feats: List[torch.Tensor] = []
        if img_tok is not None and not hasattr(model, "owrl_completion_logits"):
            slots = sum(1 for t in prompt if t == img_tok)
            if images:
                if processor is None:
                    raise ValueError(f"steps[{k}]: has images but no processor was given")
                feats = [processor.features(b) for b in images]
            n_feats = sum(int(f.shape[0]) for f in feats)
            if slots != n_feats:
                raise ValueError(f"steps[{k}]: the prompt holds {slots} image tokens but its {len(images)} images give {n_feats}")
            cut = _crop(model, prompt)
            if cut:
                dropped = sum(1 for t in prompt[:cut] if t == img_tok)
                prompt = prompt[cut:]
                if dropped:
                    flat = torch.cat(feats)[dropped:]
                    feats = [flat] if flat.numel() else []
        prepared.append((k, prompt, comp, feats, images))
    # batch by length to limit padding
    prepared.sort(key=lambda r: len(r[1]) + len(r[2]))
    batch: List[Tuple[int, List[int], List[int], List[torch.Tensor], List[bytes]]] = []

    def flush() -> None:
        if not batch:
            return
        logits = _completion_logits(model, [(p, c, f, im) for _, p, c, f, im in batch], device)
        for (k, p, c, _, _), lg in zip(batch, logits):
            st = steps[k]
            sampler = Sampler.of(_field(st, "sampler", default=Sampler()))
            mode = normalize_mode(_field(st, "logprob_mode", default="RAW"))
            if mode != "RAW" and sampler.has_penalties():
                lg = apply_penalties(lg, p, c, sampler)
            lp = process_logprobs(lg, sampler, mode)
            tgt = torch.tensor(c, dtype=torch.long, device=lp.device).unsqueeze(-1)
            results[k] = lp.gather(-1, tgt).squeeze(-1)
        batch.clear()

    for row in prepared:
        width = max([len(r[1]) + len(r[2]) for r in batch] + [len(row[1]) + len(row[2])])
        if batch and width * (len(batch) + 1) > max_batch_tokens:
            flush()
        batch.append(row)
    flush()
    return [r if r is not None else torch.zeros(0) for r in results]


def sample_completion(
    model: Any,
    prompt_ids: Sequence[int],
    sampler: Any,
    mode: Union[str, int] = "PROCESSED",
    max_new_tokens: int = 64,
    generator: Optional[torch.Generator] = None,
    stop_ids: Sequence[int] = (),
    image_features: Optional[Sequence[torch.Tensor]] = None,
    device: Union[str, torch.device] = "cpu",
) -> Tuple[List[int], List[float], str]:
    """Samples from the PROCESSED distribution (what an engine samples from) and reports each
    token's log-prob in `mode`. Returns (token ids, log-probs, finish reason "stop"|"length").

    Re-runs the (cropped) context for every token: fine for the tiny model, which is what the
    engine double serves."""
    s = Sampler.of(sampler)
    m = normalize_mode(mode)
    prompt = [int(t) for t in prompt_ids]
    feats = [f for f in (image_features or []) if f is not None and f.numel() > 0]
    out: List[int] = []
    lps: List[float] = []
    img_tok = getattr(model, "image_id", None)
    with torch.no_grad():
        for _ in range(max_new_tokens):
            seq = prompt + out
            cut = _crop(model, seq)
            f = feats
            if cut and img_tok is not None and feats:
                dropped = sum(1 for t in seq[:cut] if t == img_tok)
                flat = torch.cat(feats)[dropped:]
                f = [flat] if flat.numel() else []
            ids = torch.tensor([seq[cut:]], dtype=torch.long, device=device)
            if hasattr(model, "hidden_states"):
                h = model.hidden_states(ids, None, [x.to(device) for x in f])
                logits = model.logits(h[0, -1:])
            else:
                logits = model(ids, None, f)[0, -1:].float()
            logits_p = _penalised_last(logits, prompt, out, s) if s.has_penalties() else logits
            processed = process_logprobs(logits_p, s, "PROCESSED")[0]
            # sampled on the CPU so a CPU generator drives it whatever the model device
            tok = int(torch.multinomial(processed.exp().cpu(), 1, generator=generator).item())
            report = processed if m == "PROCESSED" else process_logprobs(logits_p if m != "RAW" else logits, s, m)[0]
            out.append(tok)
            lps.append(float(report[tok].item()))
            if tok in stop_ids:
                return out, lps, "stop"
    return out, lps, "length"


def _penalised_last(logits: torch.Tensor, prompt: List[int], out: List[int], s: Sampler) -> torch.Tensor:
    """Penalties for the next position after `out` (logits [1, V])."""
    v = logits.shape[-1]
    counts = torch.zeros(v, dtype=torch.float32, device=logits.device)
    for t in out:
        counts[t] += 1
    return _penalise(logits[0].float(), _seen(prompt, v, logits.device), counts, s).unsqueeze(0)


__all__ = ["MODES", "Sampler", "normalize_mode", "process_logprobs", "apply_penalties", "sequence_logprobs", "sample_completion"]
