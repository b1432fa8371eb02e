"""From a Train stream to what the updater trains on: checked, images fetched, sequences rebuilt.

Every refusal is an :class:`InvalidRequest` naming the field by its path, the way owrl's own
server names it (``groups[2].samples[0].steps[3].trace.tokens.logprobs has ...``), so a learner
gets the same message from this trainer as from the built-in one. Images are the exception: a
sample whose image cannot be fetched is refused alone and counted (samples_refused), while an image
whose placeholder count in the prompt disagrees with the processor refuses the batch, because then
the engine and the trainer did not see the same sequence and every log-prob of it would be wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any, Dict, Iterable, List, Optional, Protocol, Sequence, Tuple

from owrl_torch.images import fetch_images
from owrl_torch.proto.owrl.v1 import trainer_pb2, trajectory_pb2

SCHEMA_VERSION = 1
MAX_BATCH_ID = 256
LOGPROB_MODES = {
    trajectory_pb2.LOGPROB_MODE_UNSPECIFIED: "RAW",
    trajectory_pb2.LOGPROB_MODE_RAW: "RAW",
    trajectory_pb2.LOGPROB_MODE_TEMPERATURE: "TEMPERATURE",
    trajectory_pb2.LOGPROB_MODE_PROCESSED: "PROCESSED",
}


class InvalidRequest(Exception):
    """A malformed update: TRAINER_INVALID_REQUEST / INVALID_ARGUMENT, the message naming the field."""

    code = "TRAINER_INVALID_REQUEST"


class ImageCounter(Protocol):
    """What the trainer asks a model's image processor: how many placeholder tokens an image becomes."""

    def image_tokens(self, data: bytes) -> int: ...


@dataclass(frozen=True)
class SamplerView:
    """The sampler settings a step's behaviour log-probs were computed with, unset fields at their neutral value."""

    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    min_p: float = 0.0


@dataclass
class Batch:
    header: trainer_pb2.TrainHeader
    samples: List[Any]  # update.Sample
    refused: List[str] = field(default_factory=list)
    images_fetched: int = 0


def read_stream(chunks: Iterable[trainer_pb2.TrainChunk]) -> Tuple[trainer_pb2.TrainHeader, List[trainer_pb2.TrainGroup]]:
    """Header first, then groups: the framing of a Train call."""
    header: Optional[trainer_pb2.TrainHeader] = None
    groups: List[trainer_pb2.TrainGroup] = []
    for chunk in chunks:
        kind = chunk.WhichOneof("kind")
        if kind == "header":
            if header is not None:
                raise InvalidRequest("a second TrainHeader arrived; an update has exactly one, first")
            header = chunk.header
        elif kind == "group":
            if header is None:
                raise InvalidRequest("the first chunk must be the TrainHeader, a TrainGroup came first")
            groups.append(chunk.group)
        else:
            raise InvalidRequest("a TrainChunk carries neither header nor group")
    if header is None:
        raise InvalidRequest("the stream ended without a TrainHeader")
    return header, groups


def _finite(x: float) -> bool:
    return not (math.isnan(x) or math.isinf(x))


def validate_header(header: trainer_pb2.TrainHeader) -> None:
    """The header alone (checked before a replay is looked up, as owrl's server does)."""
    if header.schema_version != SCHEMA_VERSION:
        raise InvalidRequest(f"header.schema_version is {header.schema_version}; this trainer understands major version {SCHEMA_VERSION}")
    if not (1 <= len(header.batch_id) <= MAX_BATCH_ID):
        raise InvalidRequest(f"header.batch_id {header.batch_id[:40]!r} must be 1-{MAX_BATCH_ID} characters")
    if header.target_version != header.base_version + 1:
        raise InvalidRequest(f"header.target_version {header.target_version} must be base_version + 1 = {header.base_version + 1}")
    h = header.hyper
    for name in ("clip_low", "clip_high", "learning_rate", "temperature", "kl_stop", "trust_kl"):
        v = getattr(h, name)
        if not _finite(v) or v < 0:
            raise InvalidRequest(f"header.hyper.{name} is {v}; it must be a finite number >= 0")
    if h.loss_agg not in ("", "token_mean", "seq_mean"):
        raise InvalidRequest(f"header.hyper.loss_agg {h.loss_agg!r} must be token_mean or seq_mean")


def validate(
    header: trainer_pb2.TrainHeader,
    groups: Sequence[trainer_pb2.TrainGroup],
    trace_kinds: Sequence[str] = ("tokens",),
    vocab_size: Optional[int] = None,
    max_positions: Optional[int] = None,
) -> None:
    """Every field of the request, each refusal naming its path."""
    validate_header(header)
    if not groups:
        raise InvalidRequest("the update carries no groups")
    if header.groups and header.groups != len(groups):
        raise InvalidRequest(f"header.groups says {header.groups}, {len(groups)} groups arrived")
    n_samples = sum(len(g.samples) for g in groups)
    if header.samples and header.samples != n_samples:
        raise InvalidRequest(f"header.samples says {header.samples}, {n_samples} samples arrived")
    ids = set()
    for gi, g in enumerate(groups):
        if not g.samples:
            raise InvalidRequest(f"groups[{gi}] has no samples")
        for si, s in enumerate(g.samples):
            at = f"groups[{gi}].samples[{si}]"
            if not s.trajectory_id:
                raise InvalidRequest(f"{at}.trajectory_id is empty")
            if s.trajectory_id in ids:
                raise InvalidRequest(f"{at}.trajectory_id {s.trajectory_id} appears twice in the update")
            ids.add(s.trajectory_id)
            if not _finite(s.advantage):
                raise InvalidRequest(f"{at}.advantage is {s.advantage}")
            if not _finite(s.reward):
                raise InvalidRequest(f"{at}.reward is {s.reward}")
            if not s.steps:
                raise InvalidRequest(f"{at}.steps is empty (the learner sends only samples with a step that trains)")
            for ti, st in enumerate(s.steps):
                _check_step(st, f"{at}.steps[{ti}].trace", trace_kinds, vocab_size, max_positions)


def _check_step(st: trainer_pb2.TrainStep, where: str, trace_kinds: Sequence[str], vocab_size: Optional[int], max_positions: Optional[int]) -> None:
    kind = st.trace.WhichOneof("kind") if st.HasField("trace") else None
    if kind is None:
        raise InvalidRequest(f"{where} is missing")
    if kind not in trace_kinds:
        raise InvalidRequest(f"{where} is a {kind} trace; this trainer takes {', '.join(trace_kinds) or 'none'}")
    t = st.trace.tokens
    w = f"{where}.tokens"
    if t.incomplete:
        raise InvalidRequest(f"{w} is marked incomplete (the server returned no token ids or log-probs for it): leave such steps out")
    if not t.token_ids:
        raise InvalidRequest(f"{w}.token_ids is empty")
    if not t.prompt_token_ids:
        raise InvalidRequest(f"{w}.prompt_token_ids is empty (ask the server for them: vLLM/SGLang return_token_ids, SGLang return_prompt_token_ids)")
    if len(t.logprobs) != len(t.token_ids):
        raise InvalidRequest(f"{w}.logprobs has {len(t.logprobs)} entries for {len(t.token_ids)} token_ids")
    if t.loss_mask and len(t.loss_mask) != len(t.token_ids):
        raise InvalidRequest(f"{w}.loss_mask has {len(t.loss_mask)} entries for {len(t.token_ids)} token_ids (empty means all 1)")
    for i, m in enumerate(t.loss_mask):
        if m not in (0, 1):
            raise InvalidRequest(f"{w}.loss_mask[{i}] is {m}; entries are 0 or 1")
    for i, lp in enumerate(t.logprobs):
        if not _finite(lp) or lp > 1e-4:
            raise InvalidRequest(f"{w}.logprobs[{i}] is {lp}, not a log-probability")
    if vocab_size is not None:
        for name, ids in (("prompt_token_ids", t.prompt_token_ids), ("token_ids", t.token_ids)):
            for i, tok in enumerate(ids):
                if tok >= vocab_size:
                    raise InvalidRequest(f"{w}.{name}[{i}] is {tok}, outside the model's vocabulary of {vocab_size} (is the engine serving another model?)")
    if max_positions is not None and len(t.prompt_token_ids) + len(t.token_ids) > max_positions:
        raise InvalidRequest(f"{w}: prompt_token_ids + token_ids is {len(t.prompt_token_ids) + len(t.token_ids)} tokens, longer than the model's {max_positions} positions")
    _sampler_view(t, w)


def _sampler_view(t: trajectory_pb2.TokenTrace, where: str) -> Tuple[SamplerView, str]:
    """The step's sampler and log-prob mode as the trainer recomputes them; refuses what it cannot reproduce."""
    if not t.HasField("sampler"):
        return SamplerView(), "RAW"
    s = t.sampler
    mode = LOGPROB_MODES.get(s.logprob_mode)
    if mode is None:
        raise InvalidRequest(f"{where}.sampler.logprob_mode {s.logprob_mode} is not a LogprobMode this trainer knows")
    for name, value in (("temperature", s.temperature), ("top_p", s.top_p), ("min_p", s.min_p)):
        if not _finite(value) or value < 0:
            raise InvalidRequest(f"{where}.sampler.{name} is {value}")
    if s.top_p > 1 or s.min_p > 1:
        raise InvalidRequest(f"{where}.sampler: top_p {s.top_p} and min_p {s.min_p} must be at most 1")
    if mode != "RAW":
        if s.temperature <= 0:
            raise InvalidRequest(f"{where}.sampler.temperature is {s.temperature}: {mode} log-probs of greedy decoding are not a distribution to train on")
        # penalties depend on the tokens generated so far; this trainer does not replay them
        for name, value, neutral in (
            ("repetition_penalty", s.repetition_penalty, 1.0),
            ("presence_penalty", s.presence_penalty, 0.0),
            ("frequency_penalty", s.frequency_penalty, 0.0),
        ):
            unset = value == 0.0 and name == "repetition_penalty"
            if value != neutral and not unset:
                raise InvalidRequest(f"{where}.sampler.{name} is {value}: this trainer does not reproduce sampling penalties in {mode} log-probs (sample without them, or report RAW log-probs)")
    view = SamplerView(
        temperature=s.temperature if s.temperature > 0 else 1.0,
        top_p=s.top_p if s.top_p > 0 else 1.0,
        top_k=s.top_k if s.top_k > 0 else -1,
        min_p=s.min_p,
    )
    return view, mode


def _placeholder_runs(ids: Sequence[int], image_id: int) -> List[int]:
    return [sum(1 for _ in run) for tok, run in groupby(ids) if tok == image_id]


def check_placeholders(
    prompt_ids: Sequence[int],
    images: Sequence[bytes],
    processor: Optional[ImageCounter],
    image_id: Optional[int],
    where: str,
) -> None:
    """The prompt's image placeholder tokens agree with what the processor makes of the images, image by image."""
    runs = _placeholder_runs(prompt_ids, image_id) if image_id is not None else []
    if images and (processor is None or image_id is None):
        raise InvalidRequest(f"{where}.images holds {len(images)} images; this trainer's model takes no images")
    if not images:
        if runs:
            raise InvalidRequest(f"{where}.prompt_token_ids holds {sum(runs)} image placeholder tokens but the step references no image")
        return
    assert processor is not None
    want = [processor.image_tokens(b) for b in images]
    if len(runs) != len(images) or runs != want:
        raise InvalidRequest(
            f"{where}.prompt_token_ids holds image placeholder runs of {runs} tokens for {len(images)} images; "
            f"the processor makes {want} (engine and trainer processors differ: match their image settings, e.g. min_pixels/max_pixels)"
        )


def build_batch(
    header: trainer_pb2.TrainHeader,
    groups: Sequence[trainer_pb2.TrainGroup],
    processor: Optional[ImageCounter] = None,
    image_id: Optional[int] = None,
    fetch: Any = fetch_images,
) -> Batch:
    """The samples to train (validated first by :func:`validate`): images fetched and checked, sequences rebuilt.

    A sample referencing an image that cannot be fetched is refused (its trajectory id in
    ``Batch.refused``); the rest train.
    """
    from owrl_torch.update import Sample, Step  # the updater's types; imported here to keep this module light

    shas = [img.sha256 for g in groups for s in g.samples for st in s.steps for img in st.trace.tokens.images]
    got: Dict[str, Optional[bytes]] = fetch(header.image_url, shas) if shas else {}
    out = Batch(header=header, samples=[], images_fetched=sum(1 for v in got.values() if v is not None))
    for gi, g in enumerate(groups):
        for si, s in enumerate(g.samples):
            at = f"groups[{gi}].samples[{si}]"
            images_of = [[got.get(img.sha256) for img in st.trace.tokens.images] for st in s.steps]
            if any(b is None for imgs in images_of for b in imgs):
                out.refused.append(s.trajectory_id)
                continue
            steps = []
            for ti, st in enumerate(s.steps):
                t = st.trace.tokens
                where = f"{at}.steps[{ti}].trace.tokens"
                imgs = [b for b in images_of[ti] if b is not None]
                check_placeholders(t.prompt_token_ids, imgs, processor, image_id, where)
                sampler, mode = _sampler_view(t, where)
                steps.append(
                    Step(
                        index=st.index,
                        prompt_ids=list(t.prompt_token_ids),
                        completion_ids=list(t.token_ids),
                        logprobs=list(t.logprobs),
                        loss_mask=list(t.loss_mask) if t.loss_mask else [1] * len(t.token_ids),
                        sampler=sampler,
                        logprob_mode=mode,
                        images=imgs,
                    )
                )
            out.samples.append(Sample(trajectory_id=s.trajectory_id, advantage=s.advantage, policy_version=s.policy_version, steps=steps))
    return out
