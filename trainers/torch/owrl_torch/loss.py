"""The OpenWebRL/GRPO policy loss on token log-probs, with the off-policy correction.

Per trained token with advantage A (docs/trainer.md, "The loss"):

    r = exp(log π_θ − log π_ref_point)
    loss = −w · min(r·A, clip(r, 1 − clip_low, 1 + clip_high)·A)

The asymmetric clip (0.2 / 0.28, DAPO's clip-higher) lets rewarded tokens gain faster than a
symmetric one. What `r` is measured against and the weight `w` depend on `correction`:

- ``none``: r = new / behaviour, w = 1 (plain PPO against the engine's log-probs).
- ``tis``: r = new / prox, where prox are the trainer's log-probs at the update's base version
  (no gradient), and w = min(prox / behaviour, tis_cap) detached: truncated importance sampling
  for the engine/trainer gap and staleness.
- ``decoupled``: r = new / prox clipped, w = prox / behaviour (AReaL's decoupled PPO); tokens whose
  w exceeds tis_cap (when > 0) are left out rather than truncated.

The length normaliser is a named choice: ``token_mean`` (sum over tokens / token count),
``seq_mean`` (per-sample mean, then mean over samples) or ``constant`` (sum over tokens /
(norm_constant · samples), the constant 1/k against length bias). `total_tokens` and
`total_samples` override the counts so that minibatches split across ranks are normalised by the
global counts and their summed gradients equal the single-process gradient.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

import torch

CORRECTIONS = ("tis", "decoupled", "none")
NORMS = ("token_mean", "seq_mean", "constant")
# log-ratios are clamped here: a token the processed distribution no longer contains has log-prob
# -inf, and exp/log of that would turn the statistics (not the gradient) into inf/nan
_LOG_RATIO_LIMIT = 20.0


@dataclass
class LossStats:
    loss: float
    tokens: int
    clip_fraction: float
    approx_kl: float
    mean_ratio: float
    ess: float
    truncated_tokens: int
    kl_ref: float
    # raw sums over trained tokens, for adding up across minibatches and ranks
    sums: Dict[str, float] = field(default_factory=dict)


def stats_from_sums(s: Dict[str, float], loss: float = 0.0) -> LossStats:
    """Means from summed statistics (see LossStats.sums)."""
    n = s.get("tokens", 0.0)
    w2 = s.get("w2_sum", 0.0)
    return LossStats(
        loss=loss,
        tokens=int(n),
        clip_fraction=s.get("clipped", 0.0) / n if n else 0.0,
        approx_kl=s.get("kl_sum", 0.0) / n if n else 0.0,
        mean_ratio=s.get("ratio_sum", 0.0) / n if n else 0.0,
        ess=(s.get("w_sum", 0.0) ** 2) / (n * w2) if n and w2 > 0 else 1.0 if n == 0 else 0.0,
        truncated_tokens=int(s.get("truncated", 0.0)),
        kl_ref=s.get("kl_ref_sum", 0.0) / n if n else 0.0,
        sums=dict(s),
    )


def effective_sample_size(weights: torch.Tensor) -> float:
    """(Σw)² / (n·Σw²) in (0, 1]: 1 when all weights are equal."""
    w = weights.double().reshape(-1)
    if w.numel() == 0:
        return 1.0
    den = float(w.numel()) * float((w * w).sum())
    return float(w.sum() ** 2) / den if den > 0 else 0.0


def grpo_loss(
    new_lp: torch.Tensor,
    behaviour_lp: torch.Tensor,
    prox_lp: Optional[torch.Tensor],
    advantages: torch.Tensor,
    mask: torch.Tensor,
    clip_low: float = 0.2,
    clip_high: float = 0.28,
    correction: str = "tis",
    tis_cap: float = 2.0,
    norm: str = "token_mean",
    norm_constant: Optional[float] = None,
    kl_coef: float = 0.0,
    ref_lp: Optional[torch.Tensor] = None,
    sample_index: Optional[torch.Tensor] = None,
    total_tokens: Optional[float] = None,
    total_samples: Optional[float] = None,
) -> Tuple[torch.Tensor, LossStats]:
    """Loss (a scalar with gradient through `new_lp`) and its statistics.

    Shapes: log-probs and `mask` [N, T] (rows are steps, right-padded); `advantages` [N] or
    [N, T]; `sample_index` [N] groups rows into samples for ``seq_mean`` and ``constant`` (default:
    each row its own sample).
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction {correction!r} is unknown (known: {', '.join(CORRECTIONS)})")
    if norm not in NORMS:
        raise ValueError(f"norm {norm!r} is unknown (known: {', '.join(NORMS)})")
    if norm == "constant" and (norm_constant is None or norm_constant <= 0):
        raise ValueError("norm 'constant' needs a positive norm_constant")
    if clip_low < 0 or clip_low >= 1 or clip_high < 0:
        raise ValueError(f"clip range must satisfy 0 <= clip_low < 1 and clip_high >= 0, got {clip_low}, {clip_high}")
    if kl_coef > 0 and ref_lp is None:
        raise ValueError("kl_coef > 0 needs the reference log-probs (ref_lp)")
    if new_lp.shape != behaviour_lp.shape or new_lp.shape != mask.shape:
        raise ValueError(f"shapes differ: new {tuple(new_lp.shape)}, behaviour {tuple(behaviour_lp.shape)}, mask {tuple(mask.shape)}")
    if new_lp.dim() == 1:
        new_lp, behaviour_lp, mask = new_lp[None], behaviour_lp[None], mask[None]
        prox_lp = prox_lp[None] if prox_lp is not None else None
        ref_lp = ref_lp[None] if ref_lp is not None else None
        advantages = advantages.reshape(1, -1) if advantages.numel() > 1 else advantages.reshape(1)
    n_rows = new_lp.shape[0]
    m = mask.bool()
    adv = advantages.to(new_lp.dtype)
    if adv.dim() == 1:
        adv = adv[:, None].expand_as(new_lp)
    beh = behaviour_lp.detach().to(new_lp.dtype)
    prox = prox_lp.detach().to(new_lp.dtype) if prox_lp is not None else beh

    def safe(x: torch.Tensor) -> torch.Tensor:
        # -inf - -inf (a token outside both processed distributions) is nan: treat as ratio 1
        x = torch.where(torch.isnan(x), torch.zeros_like(x), x)
        return torch.where(m, x, torch.zeros_like(x)).clamp(-_LOG_RATIO_LIMIT, _LOG_RATIO_LIMIT)

    anchor = beh if correction == "none" else prox
    log_r = safe(new_lp - anchor)
    ratio = torch.exp(log_r)
    log_w_raw = safe(prox - beh)
    w_raw = torch.exp(log_w_raw)
    keep = m.clone()
    truncated = torch.zeros_like(m)
    if correction == "none":
        w = torch.ones_like(ratio)
    elif correction == "tis":
        truncated = m & (w_raw > tis_cap) if tis_cap > 0 else truncated
        w = torch.clamp(w_raw, max=tis_cap) if tis_cap > 0 else w_raw
    else:
        if tis_cap > 0:
            truncated = m & (w_raw > tis_cap)
            keep = m & ~truncated
        w = w_raw
    w = w.detach()
    clipped_ratio = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    surrogate = torch.min(ratio * adv, clipped_ratio * adv)
    token_loss = -w * surrogate
    kl_ref_t = torch.zeros_like(ratio)
    if kl_coef > 0 and ref_lp is not None:
        d = safe(ref_lp.detach().to(new_lp.dtype) - new_lp)
        kl_ref_t = torch.exp(d) - d - 1.0
        token_loss = token_loss + kl_coef * kl_ref_t
    token_loss = torch.where(keep, token_loss, torch.zeros_like(token_loss))

    tokens_here = float(m.sum())
    if sample_index is None:
        sample_index = torch.arange(n_rows, device=new_lp.device)
    sample_index = sample_index.to(new_lp.device).long()
    uniq, inverse = torch.unique(sample_index, return_inverse=True)
    samples_here = float(uniq.numel())
    if norm == "token_mean":
        denom = float(total_tokens) if total_tokens is not None else tokens_here
        loss = token_loss.sum() / max(denom, 1.0)
    elif norm == "seq_mean":
        per_row = token_loss.sum(-1)
        per_sample = torch.zeros(uniq.numel(), dtype=per_row.dtype, device=per_row.device).index_add(0, inverse, per_row)
        count = torch.zeros(uniq.numel(), dtype=per_row.dtype, device=per_row.device).index_add(0, inverse, m.sum(-1).to(per_row.dtype))
        denom = float(total_samples) if total_samples is not None else samples_here
        loss = (per_sample / count.clamp(min=1.0)).sum() / max(denom, 1.0)
    else:
        denom = float(total_samples) if total_samples is not None else samples_here
        loss = token_loss.sum() / (float(norm_constant) * max(denom, 1.0))  # type: ignore[arg-type]

    with torch.no_grad():
        mf = m.to(torch.float64)
        r64 = ratio.double()
        clipped = ((adv > 0) & (ratio > 1.0 + clip_high)) | ((adv < 0) & (ratio < 1.0 - clip_low))
        w_is = w_raw.double() if prox_lp is not None else torch.exp(safe(new_lp.detach() - beh)).double()
        sums = {
            "tokens": tokens_here,
            "clipped": float((clipped & m).sum()),
            "kl_sum": float((((r64 - 1.0) - log_r.double()) * mf).sum()),
            "ratio_sum": float((r64 * mf).sum()),
            "w_sum": float((w_is * mf).sum()),
            "w2_sum": float((w_is * w_is * mf).sum()),
            "truncated": float(truncated.sum()),
            "kl_ref_sum": float((kl_ref_t.double() * mf).sum()),
            "loss_sum": float(token_loss.detach().double().sum()),
        }
    return loss, stats_from_sums(sums, float(loss.detach()))


__all__ = ["CORRECTIONS", "NORMS", "LossStats", "grpo_loss", "effective_sample_size", "stats_from_sums"]
