"""A small but real chat model family for tests: tokenizer, chat template, image processor and a
causal transformer that can be built and warmed up in seconds on a CPU.

The trainer's tests and the engine double must serve and train one and the same model, byte for
byte, without PyPI or a GPU. Everything here is deterministic for a seed so that two processes
(the engine double and the trainer) agree on every token id, image placeholder count and logit.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import safetensors_io
from .images import open_image

SPECIAL_TOKENS: Tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|image_pad|>",
    "<|vision_end|>",
    "<tool_call>",
    "</tool_call>",
)
ANSWER_WORDS: Tuple[str, ...] = (
    "amber", "birch", "cobalt", "dune", "ember", "fjord",
    "garnet", "harbor", "indigo", "juniper", "kelp", "lagoon",
)
# Qwen3-VL's sampling defaults (its generation_config.json), so requests that leave a field out
# are sampled the way the documented model would be.
GENERATION_DEFAULTS: Dict[str, float] = {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.0}
MODEL_TYPE = "owrl-tiny"
DEFAULT_NAME = "owrl/tiny-chat"

# Words of owrl's agent prompt, tool schemas and bundled sites: a word-level vocabulary keeps the
# prompts short; anything else falls back to the longest known pieces, then to bytes.
_WORDS = """
a about accept accepted account act acting action actions active activedescendant add address
after again agent airline airlines airport airports alert align All all allowed also amber amp
an and another Answer answer any API api application applied Archive archive are area arg
arguments aria array article articleLink articles as asc asks assistant at autocomplete Back
back bag bar be before being birch body book Booking booking boolean border bot box brand browse
browser btn button by bytes Cabin cabin cal calendar calendarDayName call Calls calls can cancel
cancelled cannot captcha card cards carry cart Categories categories Category category cc center
cf challenge change charset check checkbox checked checking Checkout checkout chip choice
choices choose Chromium Cities City city cityName class click close co cobalt code col color
colour com combobox complete compose confirmation confirmed Consent consent Contacts contacts
content controls Cookie cookie cookies coords core corner count crumbs cta ctx current data DATE
date day days DD dd decimal default deferred DELETE delete delivery departure desc detail device
dialog did difficulties Digest digest disabled discountCents dismiss dismissed display div dl do
document does dom done down draft drag dt dune dyk economy effects element element_id elements
else email ember empty en encodeURIComponent encyclopedia end Enter enter entries Error error
errors Every example exceeds expanded expected extra failed false fares FAULT fault FAULTS
faults featured field fieldset file files filter filters final FIRST first fjord flags flash
flex Flight flight flights fly focused FOLDER folder for form formaction format formatPrice
Forward forward found From from full function Functions garnet gateway GET get give Goods got
grid hang harbor has have hcaptcha HEAD head height here hidden high holds host hover How href
html http human I id idPrefix ids if im image in Inbox inbox includes index indigo inert
information initial input instead integer Interactive into Inventions Iowan is it item items its
jitter join js JSON json juniper kelp key keydown keys kg kind KINDS label labels lagoon Lark
lastList latency layout left leg legend legs length li like limit link list listbox listed
listing listingSearch lists live load longer loop low Mail mail main many map match MAX max
members Message message messages method middle min missing MM mode model month more most mouse
Move Moved ms msg Mug mug must mutation muted My NAME Name name names native nav needs
neutralize New Next next No no node noindex none Not not nothing notice noticeBlock num number
numbered object obs of off ok Old on once one oneway Only only Open open operate opt option opts
or Order order Orders orders Original original out outbound over OW OWRL Owrl owrl page pages
pair panel parameters parts Passenger passenger passengerLabel PASSENGERS passengers PATH path
pathname pax pending People pixels place placed Please Point point PORT port POST post Postcode
postcode press pressed Previous previous Price price priceCents prices priceValue probability
product products promo prompt provider proxy px qty query quiet quote radio Random range rating
raw ray reading ReadingList reasoning recaptcha redirect ref references regex region registry
reject rejected relative Remove remove Removed render replace Reply reply replyTo req request
requests required reset response responseName result results resultsHref ret retry Return return
right Rivers rl robot robots role Roman round routes row rows rule rules run running Save save
saved scale schemas scope screenshot script scroll Scrolled Search search seat see seed Segoe
Select selected self send Sent sent server service session Set setTimeout shop shopping
shopPromoText short shortcut show shown shows side single site sitekey SITES sites Size size
sizes sku Skyward slice slow slug small snippet solid Sort sort sortable source span spec
Special split stage Star star Starred starred start starting state status Step step stock stops
store String string stringify strong Style subject submit subscribe subscribed suggest
suggestions suite summary system tab table tagline takeNotice takes taking target Task task
tasks tbody td template text th than that The the thead then There things Think This this time
timeline Times times title TITLES tk To to toc together token toLowerCase tool Tools tools top
toString total totalCents totals tr Trash trash TRAVEL travel traveller trim trip trips true
turn Type type UI ul undefined Unknown unknown unread unset Unstar upstream URL url use user utf
util valid value variant Verification verify vh viewport vllm wait wall was waterproof We web
websites what where which while whole width wiki with word words wp write year You you Your your
YYYY"""

_PIECE = re.compile(r" ?[A-Za-z]+| ?[0-9]| ?[^\sA-Za-z0-9]|\n|[^\S\n]+")
_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"


def _default_pieces() -> List[str]:
    words = sorted(set(_WORDS.split()))
    pieces: List[str] = []
    seen = set()

    def add(p: str) -> None:
        if p not in seen and not (len(p.encode("utf-8")) == 1):
            seen.add(p)
            pieces.append(p)

    for w in words:
        add(w)
        add(" " + w)
        add(w.capitalize())
        add(" " + w.capitalize())
    for c in _PUNCT + "0123456789":
        add(" " + c)
    for n in range(2, 9):
        add(" " * n)
    return pieces


class TinyTokenizer:
    """Word-level tokenizer with byte fallback: `decode(encode(s)) == s` for every string.

    Ids: the special tokens first (so `<|endoftext|>` is 0), then the 256 byte tokens, then the
    word pieces. Special-token strings in the text always become the special token, as chat
    tokenizers do for added tokens; owrl neutralises them in page text before they get here.
    """

    def __init__(self, pieces: Sequence[str], specials: Sequence[str] = SPECIAL_TOKENS) -> None:
        self.specials: List[str] = list(specials)
        for s in SPECIAL_TOKENS:
            if s not in self.specials:
                raise ValueError(f"tokenizer: special token {s!r} is missing")
        self.pieces: List[str] = list(pieces)
        self._byte_base = len(self.specials)
        self._piece_base = self._byte_base + 256
        self._piece_ids: Dict[str, int] = {p: self._piece_base + i for i, p in enumerate(self.pieces)}
        self._special_ids: Dict[str, int] = {s: i for i, s in enumerate(self.specials)}
        self._max_piece = max((len(p) for p in self.pieces), default=1)
        self._split = re.compile("(" + "|".join(re.escape(s) for s in sorted(self.specials, key=len, reverse=True)) + ")")
        self._cache: Dict[str, List[int]] = {}

    # ids of the special tokens
    @property
    def pad_id(self) -> int:
        return self._special_ids["<|endoftext|>"]

    @property
    def eos_id(self) -> int:
        return self._special_ids["<|im_end|>"]

    @property
    def image_id(self) -> int:
        return self._special_ids["<|image_pad|>"]

    @property
    def vocab_size(self) -> int:
        return self._piece_base + len(self.pieces)

    def token_id(self, special: str) -> int:
        if special not in self._special_ids:
            raise KeyError(f"tokenizer: {special!r} is not a special token")
        return self._special_ids[special]

    @classmethod
    def default(cls) -> "TinyTokenizer":
        return cls(_default_pieces())

    def _bytes(self, s: str) -> List[int]:
        return [self._byte_base + b for b in s.encode("utf-8")]

    def _encode_piece(self, piece: str) -> List[int]:
        hit = self._piece_ids.get(piece)
        if hit is not None:
            return [hit]
        cached = self._cache.get(piece)
        if cached is not None:
            return cached
        out: List[int] = []
        i = 0
        while i < len(piece):
            for j in range(min(len(piece), i + self._max_piece), i + 1, -1):
                pid = self._piece_ids.get(piece[i:j])
                if pid is not None:
                    out.append(pid)
                    i = j
                    break
            else:
                out.extend(self._bytes(piece[i]))
                i += 1
        if len(self._cache) < 100_000:
            self._cache[piece] = out
        return out

    def encode(self, text: str) -> List[int]:
        ids: List[int] = []
        for part in self._split.split(text):
            if part == "":
                continue
            sid = self._special_ids.get(part)
            if sid is not None:
                ids.append(sid)
                continue
            for m in _PIECE.finditer(part):
                ids.extend(self._encode_piece(m.group(0)))
        return ids

    def decode(self, ids: Iterable[int], skip_special: bool = False) -> str:
        out: List[str] = []
        pending = bytearray()
        for raw in ids:
            i = int(raw)
            if self._byte_base <= i < self._piece_base:
                pending.append(i - self._byte_base)
                continue
            if pending:
                out.append(pending.decode("utf-8", errors="replace"))
                pending = bytearray()
            if 0 <= i < self._byte_base:
                if not skip_special:
                    out.append(self.specials[i])
            elif self._piece_base <= i < self.vocab_size:
                out.append(self.pieces[i - self._piece_base])
            else:
                raise ValueError(f"tokenizer: id {i} is outside the vocabulary (size {self.vocab_size})")
        if pending:
            out.append(pending.decode("utf-8", errors="replace"))
        return "".join(out)

    def to_json(self) -> Dict[str, Any]:
        return {"type": "owrl-tiny-words", "specials": self.specials, "byte_tokens": 256, "pieces": self.pieces}

    def save(self, directory: str) -> str:
        path = os.path.join(directory, "tokenizer.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, ensure_ascii=False)
        return path

    @classmethod
    def load(cls, directory: str) -> "TinyTokenizer":
        path = os.path.join(directory, "tokenizer.json")
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("type") != "owrl-tiny-words":
            raise ValueError(f"{path}: not an owrl tiny tokenizer (type {data.get('type')!r})")
        return cls(data["pieces"], data["specials"])


# ---------------------------------------------------------------------------------------------
# Chat template

TEMPLATES = ("qwen", "alt")
IMAGE_PLACEHOLDER = "<|vision_start|><|image_pad|><|vision_end|>"


def _content_text(content: Any, where: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: List[str] = []
        for k, part in enumerate(content):
            if not isinstance(part, dict):
                raise ValueError(f"{where}.content[{k}]: expected an object, got {type(part).__name__}")
            kind = part.get("type")
            if kind == "text":
                parts.append(str(part.get("text", "")))
            elif kind in ("image_url", "image"):
                parts.append(IMAGE_PLACEHOLDER)
            else:
                raise ValueError(f"{where}.content[{k}]: unsupported part type {kind!r}")
        return "".join(parts)
    raise ValueError(f"{where}.content: expected a string or a list of parts, got {type(content).__name__}")


def _tool_call_text(call: Dict[str, Any], where: str) -> str:
    fn = call.get("function", call)
    name = fn.get("name")
    if not isinstance(name, str):
        raise ValueError(f"{where}: tool call without a function name")
    args = fn.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as e:
            raise ValueError(f"{where}: arguments are not JSON ({e})") from None
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False) + "\n</tool_call>"


def _tools_text(tools: Sequence[Dict[str, Any]]) -> str:
    lines = [json.dumps(t, ensure_ascii=False) for t in tools]
    return (
        "# Tools\n\nFunctions you may call, one JSON schema per line:\n<tools>\n"
        + "\n".join(lines)
        + "\n</tools>\n\nCall a function as\n<tool_call>\n"
        + '{"name": <function name>, "arguments": <arguments object>}'
        + "\n</tool_call>"
    )


def render_chat(
    messages: Sequence[Dict[str, Any]],
    tools: Optional[Sequence[Dict[str, Any]]] = None,
    add_generation_prompt: bool = True,
    template: str = "qwen",
) -> str:
    """Renders OpenAI chat messages to the prompt text.

    `qwen` follows the Qwen chat format (system turn with the tools, hermes-style tool calls,
    tool results as a user turn in `<tool_response>`); `alt` folds the system text into the first
    user turn instead, so the same request gives other tokens (a template mismatch a test can see).
    """
    if template not in TEMPLATES:
        raise ValueError(f"chat template {template!r} is unknown (known: {', '.join(TEMPLATES)})")
    msgs = list(messages)
    system = ""
    if msgs and msgs[0].get("role") == "system":
        system = _content_text(msgs[0].get("content"), "messages[0]")
        msgs = msgs[1:]
        offset = 1
    else:
        offset = 0
    if tools:
        system = (system + "\n\n" if system else "") + _tools_text(tools)
    out: List[str] = []
    pending_system = system
    if template == "qwen" and system:
        out.append(f"<|im_start|>system\n{system}<|im_end|>\n")
        pending_system = ""
    i = 0
    while i < len(msgs):
        m = msgs[i]
        where = f"messages[{i + offset}]"
        role = m.get("role")
        if role == "user":
            text = _content_text(m.get("content"), where)
            if pending_system:
                text = pending_system + "\n\n" + text
                pending_system = ""
            out.append(f"<|im_start|>user\n{text}<|im_end|>\n")
        elif role == "assistant":
            text = _content_text(m.get("content"), where)
            calls = [_tool_call_text(c, f"{where}.tool_calls[{k}]") for k, c in enumerate(m.get("tool_calls") or [])]
            body = "\n".join(([text] if text else []) + calls)
            out.append(f"<|im_start|>assistant\n{body}<|im_end|>\n")
        elif role == "tool":
            parts = []
            while i < len(msgs) and msgs[i].get("role") == "tool":
                parts.append("<tool_response>\n" + _content_text(msgs[i].get("content"), f"messages[{i + offset}]") + "\n</tool_response>")
                i += 1
            out.append("<|im_start|>user\n" + "\n".join(parts) + "<|im_end|>\n")
            continue
        elif role == "system":
            raise ValueError(f"{where}: a system message is only allowed first")
        else:
            raise ValueError(f"{where}: unknown role {role!r}")
        i += 1
    if pending_system:
        out.append(f"<|im_start|>user\n{pending_system}<|im_end|>\n")
    if add_generation_prompt:
        out.append("<|im_start|>assistant\n")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Image processor


class TinyProcessor:
    """Turns a PNG/JPEG screenshot into a grid of patch features.

    The image is scaled (keeping its aspect) to fit `max_side`, then cut into `patch`-pixel
    squares; each patch is one image token whose feature is its mean RGB in [0, 1]. The engine
    double and the trainer both use this class, and the trainer checks the counts it gives
    against the placeholders of each trace.
    """

    def __init__(self, patch: int = 16, max_side: int = 64) -> None:
        if patch <= 0 or max_side < patch:
            raise ValueError(f"processor: need 0 < patch <= max_side, got patch={patch} max_side={max_side}")
        self.patch = patch
        self.max_side = max_side

    def _grid(self, width: int, height: int) -> Tuple[int, int]:
        scale = min(1.0, self.max_side / max(width, height))
        w = max(1, round(width * scale))
        h = max(1, round(height * scale))
        return math.ceil(w / self.patch), math.ceil(h / self.patch)

    def grid(self, data: bytes) -> Tuple[int, int]:
        return self._grid(*open_image(data).size)

    def image_tokens(self, data: bytes) -> int:
        gw, gh = self.grid(data)
        return gw * gh

    def features(self, data: bytes) -> torch.Tensor:
        """Tensor[n_tokens, 3]: mean RGB of each patch, row by row."""
        import numpy as np
        from PIL import Image

        img = open_image(data).convert("RGB")
        gw, gh = self._grid(*img.size)
        img = img.resize((gw * self.patch, gh * self.patch), Image.BILINEAR)
        arr = np.asarray(img, dtype=np.float32) / 255.0  # [H, W, 3]
        arr = arr.reshape(gh, self.patch, gw, self.patch, 3).mean(axis=(1, 3))
        return torch.from_numpy(np.ascontiguousarray(arr.reshape(gh * gw, 3)))

    def expand(self, prompt_ids: Sequence[int], images: Sequence[bytes], image_id: Optional[int] = None) -> List[int]:
        """Repeats each image placeholder token (default: the tiny tokenizer's `<|image_pad|>`)
        as many times as its image has tokens."""
        if image_id is None:
            image_id = SPECIAL_TOKENS.index("<|image_pad|>")
        slots = [k for k, t in enumerate(prompt_ids) if t == image_id]
        if len(slots) != len(images):
            raise ValueError(f"processor: the prompt holds {len(slots)} image placeholders but {len(images)} images were given")
        counts = iter([self.image_tokens(b) for b in images])
        out: List[int] = []
        for t in prompt_ids:
            if t == image_id:
                out.extend([image_id] * next(counts))
            else:
                out.append(int(t))
        return out

    def to_json(self) -> Dict[str, int]:
        return {"patch": self.patch, "max_side": self.max_side}


# ---------------------------------------------------------------------------------------------
# Model


@dataclass
class TinyConfig:
    vocab_size: int
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    d_ff: int = 128
    max_positions: int = 8192
    rope_theta: float = 10000.0
    # Sliding attention window (Mistral-style): answers depend on the end of the prompt only, so
    # a short warm-up carries over to prompts of any length.
    window: int = 64
    image_feature_dim: int = 3
    model_type: str = MODEL_TYPE

    def to_json(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "TinyConfig":
        if data.get("model_type") != MODEL_TYPE:
            raise ValueError(f"config.json: model_type {data.get('model_type')!r} is not {MODEL_TYPE!r}")
        known = {f for f in cls.__dataclass_fields__}  # type: ignore[attr-defined]
        return cls(**{k: v for k, v in data.items() if k in known})


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return (h * self.weight.float()).to(x.dtype)


def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    # x: [B, H, T, D]; rotate the two halves
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class Attention(nn.Module):
    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        if cfg.d_model % cfg.n_heads != 0:
            raise ValueError(f"config: d_model {cfg.d_model} is not a multiple of n_heads {cfg.n_heads}")
        self.n_heads = cfg.n_heads
        self.head_dim = cfg.d_model // cfg.n_heads
        self.q_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.k_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.v_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.o_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q = self.q_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        q = _rope(q, cos, sin)
        k = _rope(k, cos, sin)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim) + bias
        attn = torch.softmax(scores.float(), dim=-1).to(v.dtype)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(b, t, d)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.up_proj = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.down_proj = nn.Linear(cfg.d_ff, cfg.d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(cfg.d_model)
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg.d_model)
        self.mlp = MLP(cfg)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, bias)
        return x + self.mlp(self.post_attention_layernorm(x))


class TinyBackbone(nn.Module):
    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.image_proj = nn.Linear(cfg.image_feature_dim, cfg.d_model)
        self.layers = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layers)])
        self.norm = RMSNorm(cfg.d_model)


class TinyCausalLM(nn.Module):
    """Pre-norm transformer (RoPE, SwiGLU, sliding causal attention) with Qwen-like module names
    (`model.layers.N.self_attn.q_proj` …), so LoRA targets read the same as for the real model."""

    def __init__(self, cfg: TinyConfig, image_id: Optional[int] = None) -> None:
        super().__init__()
        self.config = cfg
        self.image_id = image_id if image_id is not None else SPECIAL_TOKENS.index("<|image_pad|>")
        self.model = TinyBackbone(cfg)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    @property
    def receptive_field(self) -> int:
        """Tokens (the last one included) that can influence the logits at a position: earlier
        ones are outside every layer's window, so callers may crop them."""
        return self.config.n_layers * (self.config.window - 1) + 1

    def _embed(self, input_ids: torch.Tensor, image_features: Optional[Sequence[Optional[torch.Tensor]]]) -> torch.Tensor:
        x = self.model.embed_tokens(input_ids)
        slots = input_ids == self.image_id
        n_slots = int(slots.sum().item())
        feats = [f for f in (image_features or []) if f is not None and f.numel() > 0]
        n_feats = sum(int(f.shape[0]) for f in feats)
        if n_slots != n_feats:
            raise ValueError(f"model: the input holds {n_slots} image tokens but {n_feats} image features were given")
        if n_slots == 0:
            return x
        flat = torch.cat([f.reshape(-1, self.config.image_feature_dim) for f in feats], dim=0).to(x.device, x.dtype)
        proj = self.model.image_proj(flat)
        return x.masked_scatter(slots.unsqueeze(-1), proj)

    def hidden_states(
        self,
        input_ids: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        image_features: Optional[Sequence[Optional[torch.Tensor]]] = None,
    ) -> torch.Tensor:
        """Final normed hidden states [B, T, d] (before the head)."""
        if input_ids.dim() != 2:
            raise ValueError(f"model: input_ids must be [batch, tokens], got shape {tuple(input_ids.shape)}")
        b, t = input_ids.shape
        if t > self.config.max_positions:
            raise ValueError(f"model: {t} tokens exceed max_positions {self.config.max_positions}")
        device = input_ids.device
        x = self._embed(input_ids, image_features)
        if attention_mask is None:
            attention_mask = torch.ones(b, t, dtype=torch.long, device=device)
        mask = attention_mask.to(torch.long)
        pos = (mask.cumsum(-1) - 1).clamp(min=0).to(torch.float32)  # [B, T]
        hd = self.config.d_model // self.config.n_heads
        inv = 1.0 / (self.config.rope_theta ** (torch.arange(0, hd // 2, device=device, dtype=torch.float32) / (hd // 2)))
        ang = pos.unsqueeze(-1) * inv  # [B, T, hd/2]
        cos = ang.cos().unsqueeze(1).to(x.dtype)
        sin = ang.sin().unsqueeze(1).to(x.dtype)
        idx = torch.arange(t, device=device)
        allowed = (idx.view(1, t) <= idx.view(t, 1)) & (idx.view(t, 1) - idx.view(1, t) < self.config.window)
        allowed = allowed.unsqueeze(0) & mask.bool().unsqueeze(1)  # [B, T(q), T(k)]
        bias = torch.zeros(b, 1, t, t, device=device, dtype=x.dtype)
        bias = bias.masked_fill(~allowed.unsqueeze(1), torch.finfo(x.dtype).min)
        for layer in self.model.layers:
            x = layer(x, cos, sin, bias)
        return self.model.norm(x)

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """The fp32 head: engine and trainer must agree to 1e-4 on log-probs."""
        return F.linear(hidden.float(), self.lm_head.weight.float())

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        image_features: Optional[Sequence[Optional[torch.Tensor]]] = None,
    ) -> torch.Tensor:
        """logits[B, T, V] in fp32. `image_features`: the features of every image in order of
        appearance, row by row (one tensor per image or per row: they are concatenated)."""
        return self.logits(self.hidden_states(input_ids, attention_mask, image_features))


# ---------------------------------------------------------------------------------------------
# Building, saving and loading


@dataclass
class TinyBundle:
    model: TinyCausalLM
    tokenizer: TinyTokenizer
    processor: TinyProcessor
    template: str
    generation_config: Dict[str, Any]
    name: str
    directory: str = ""


def answer_text(word: str) -> str:
    """The exact reply the warm-up teaches (a `done` call), without the end-of-turn token."""
    return "<tool_call>\n" + json.dumps({"name": "done", "arguments": {"response": word}}) + "\n</tool_call>"


def _warmup_tools(rng: random.Random) -> List[Dict[str, Any]]:
    names = ["click", "write", "press", "scroll", "go_back", "wait", "done", "select", "hover", "open_tab"]
    rng.shuffle(names)
    if "done" not in names[:4]:
        names[0] = "done"
    tools = []
    for n in names[: rng.randint(2, 5)]:
        desc = " ".join(rng.choice(_VOCAB_WORDS) for _ in range(rng.randint(3, 12)))
        props = {rng.choice(["response", "element_id", "text", "key", "point_2d"]): {"type": rng.choice(["string", "integer", "array"])}}
        tools.append({"type": "function", "function": {"name": n, "description": desc, "parameters": {"type": "object", "properties": props}}})
    return tools


def _warmup_page(rng: random.Random) -> str:
    words = lambda k: " ".join(rng.choice(_VOCAB_WORDS) for _ in range(k))  # noqa: E731
    lines = [f"URL: http://127.0.0.1:{rng.randint(1000, 65000)}/{rng.choice(_VOCAB_WORDS)}", f'Title: "{words(rng.randint(1, 4))}"']
    lines.append(f"Scrolled {rng.randint(0, 900)} of {rng.randint(0, 2000)} px.")
    n = rng.randint(0, 14)
    lines.append("Interactive elements:" if n else "Interactive elements: none")
    for k in range(n):
        role = rng.choice(["link", "button", "textbox", "checkbox", "combobox"])
        lines.append(f'[{k + 1}] {role} "{words(rng.randint(1, 5))}" at ({rng.randint(0, 1000)}, {rng.randint(0, 1000)})')
    return "\n".join(lines)


def _warmup_example(tok: TinyTokenizer, rng: random.Random, template: str) -> Tuple[List[int], int, List[torch.Tensor]]:
    """(token ids, index where the answer starts, image features) of one warm-up conversation."""
    target = rng.choice(ANSWER_WORDS)
    asked = rng.choice(ANSWER_WORDS)
    msgs: List[Dict[str, Any]] = []
    if rng.random() < 0.8:
        msgs.append({"role": "system", "content": " ".join(rng.choice(_VOCAB_WORDS) for _ in range(rng.randint(5, 60)))})
    steps = rng.choice([0, 0, 0, 1, 2])
    images: List[torch.Tensor] = []
    for s in range(steps + 1):
        text = (f"Task: Answer with the single word {asked} and nothing else.\n\n" if s == 0 else "") + (
            f"Step {s + 1} of at most {rng.randint(s + 1, 20)}.\n" + _warmup_page(rng) if s == steps else f"URL: http://{rng.choice(_VOCAB_WORDS)}/"
        )
        if s > 0:
            text = "<tool_response>\n" + " ".join(rng.choice(_VOCAB_WORDS) for _ in range(rng.randint(1, 8))) + "\n</tool_response>\n\n" + text
        if s == steps and rng.random() < 0.6:
            n = rng.choice([1, 2, 4, 6, 8, 12, 16])
            images.append(torch.rand(n, 3, generator=torch.Generator().manual_seed(rng.randint(0, 2**31))))
            msgs.append({"role": "user", "content": [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": "data:"}}]})
        else:
            msgs.append({"role": "user", "content": text})
        if s < steps:
            msgs.append({"role": "assistant", "content": " ".join(rng.choice(_VOCAB_WORDS) for _ in range(rng.randint(1, 10)))})
    tools = _warmup_tools(rng) if rng.random() < 0.7 else None
    prompt = tok.encode(render_chat(msgs, tools=tools, template=template))
    if images:
        expanded: List[int] = []
        counts = iter([int(f.shape[0]) for f in images])
        for t in prompt:
            expanded.extend([t] * next(counts) if t == tok.image_id else [t])
        prompt = expanded
    window = 40
    if len(prompt) > window:
        # the model attends to the last `window` tokens only; keep what it sees
        cut = len(prompt) - window
        dropped_images = sum(1 for t in prompt[:cut] if t == tok.image_id)
        prompt = prompt[cut:]
        if dropped_images:
            flat = torch.cat(images)[dropped_images:]
            images = [flat] if flat.numel() else []
    answer = tok.encode(answer_text(target)) + [tok.eos_id]
    return prompt + answer, len(prompt), images


def build_tiny(
    directory: str,
    seed: int = 0,
    pretrain_steps: int = 100,
    name: str = DEFAULT_NAME,
    template: str = "qwen",
    config: Optional[TinyConfig] = None,
    log: bool = False,
) -> TinyBundle:
    """Creates the tiny model in `directory` and warms it up to answer in the loop's format.

    The warm-up targets are drawn uniformly from the 12 answer words whatever the prompt asks, so
    the model starts in the exact tool-call format with a roughly uniform answer: right about one
    time in twelve, leaving RL something to learn. Deterministic for a seed.
    """
    os.makedirs(directory, exist_ok=True)
    tok = TinyTokenizer.default()
    cfg = config or TinyConfig(vocab_size=tok.vocab_size)
    if cfg.vocab_size != tok.vocab_size:
        raise ValueError(f"config: vocab_size {cfg.vocab_size} differs from the tokenizer's {tok.vocab_size}")
    rng = random.Random(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = TinyCausalLM(cfg, image_id=tok.image_id)
        for m in model.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.05)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Embedding):
                nn.init.normal_(m.weight, std=0.05)
        threads = torch.get_num_threads()
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
        batch = 8
        model.train()
        for step in range(pretrain_steps):
            exs = [_warmup_example(tok, rng, template) for _ in range(batch)]
            width = max(len(e[0]) for e in exs)
            ids = torch.full((batch, width), tok.pad_id, dtype=torch.long)
            mask = torch.zeros(batch, width, dtype=torch.long)
            labels = torch.full((batch, width), -100, dtype=torch.long)
            feats: List[torch.Tensor] = []
            for r, (seq, start, imgs) in enumerate(exs):
                ids[r, : len(seq)] = torch.tensor(seq)
                mask[r, : len(seq)] = 1
                labels[r, start - 1 : len(seq) - 1] = torch.tensor(seq[start:])
                feats.extend(imgs)
            lr = 1e-2 * min(1.0, (step + 1) / 10) * (0.1 + 0.9 * (1 - step / max(1, pretrain_steps)))
            for g in opt.param_groups:
                g["lr"] = lr
            hidden = model.hidden_states(ids, mask, feats)
            keep = labels != -100
            logits = model.logits(hidden[keep])
            loss = F.cross_entropy(logits, labels[keep])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if log and (step % 50 == 0 or step == pretrain_steps - 1):
                print(f"warm-up step {step} loss {loss.item():.4f}", file=sys.stderr)
        torch.set_num_threads(threads)
    model.eval()
    bundle = TinyBundle(
        model=model,
        tokenizer=tok,
        processor=TinyProcessor(),
        template=template,
        generation_config=generation_config(tok),
        name=name,
        directory=directory,
    )
    save_tiny(bundle, directory)
    return bundle


def generation_config(tok: TinyTokenizer) -> Dict[str, Any]:
    return {
        **GENERATION_DEFAULTS,
        "do_sample": True,
        "eos_token_id": [tok.eos_id, tok.pad_id],
        "pad_token_id": tok.pad_id,
        "bos_token_id": tok.pad_id,
    }


def save_tiny(bundle: TinyBundle, directory: str) -> None:
    os.makedirs(directory, exist_ok=True)
    cfg = {**bundle.model.config.to_json(), "name": bundle.name, "processor": bundle.processor.to_json(), "image_token_id": bundle.tokenizer.image_id}
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    state = {k: v.detach().contiguous() for k, v in bundle.model.state_dict().items()}
    safetensors_io.save_file(state, os.path.join(directory, "model.safetensors"), metadata={"format": "pt"})
    bundle.tokenizer.save(directory)
    with open(os.path.join(directory, "chat_template.json"), "w") as f:
        json.dump({"template": bundle.template}, f)
    with open(os.path.join(directory, "generation_config.json"), "w") as f:
        json.dump(bundle.generation_config, f, indent=2)


def is_tiny_dir(directory: str) -> bool:
    path = os.path.join(directory, "config.json")
    if not os.path.isfile(path):
        return False
    try:
        with open(path) as f:
            return json.load(f).get("model_type") == MODEL_TYPE
    except (OSError, ValueError):  # ValueError: not JSON, or not UTF-8
        return False


def load_tiny(directory: str, device: Union[str, torch.device] = "cpu") -> TinyBundle:
    path = os.path.join(directory, "config.json")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{directory}: no config.json (build one with `python3 -m owrl_torch.tiny build DIR`)")
    with open(path) as f:
        raw = json.load(f)
    cfg = TinyConfig.from_json(raw)
    tok = TinyTokenizer.load(directory)
    if tok.vocab_size != cfg.vocab_size:
        raise ValueError(f"{directory}: tokenizer.json has {tok.vocab_size} tokens but config.json says vocab_size {cfg.vocab_size}")
    model = TinyCausalLM(cfg, image_id=tok.image_id)
    state = safetensors_io.load_file(os.path.join(directory, "model.safetensors"))
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ValueError(f"{directory}/model.safetensors: missing {sorted(missing)}, unexpected {sorted(unexpected)}")
    model.to(device).eval()
    template = "qwen"
    tpath = os.path.join(directory, "chat_template.json")
    if os.path.isfile(tpath):
        with open(tpath) as f:
            template = json.load(f).get("template", "qwen")
    gpath = os.path.join(directory, "generation_config.json")
    gen: Dict[str, Any] = generation_config(tok)
    if os.path.isfile(gpath):
        with open(gpath) as f:
            gen = json.load(f)
    proc = raw.get("processor") or {}
    return TinyBundle(
        model=model,
        tokenizer=tok,
        processor=TinyProcessor(**proc),
        template=template,
        generation_config=gen,
        name=raw.get("name", DEFAULT_NAME),
        directory=directory,
    )


_VOCAB_WORDS: List[str] = sorted(set(_WORDS.split()))


def ensure_tiny(seed: int = 0, cache_root: Optional[str] = None, pretrain_steps: int = 100) -> str:
    """A built tiny model folder, shared between test processes: built once per seed and per
    version of this code under `cache_root` (default $OWRL_TINY_CACHE or the temp folder),
    behind a lock, and renamed into place only when complete."""
    import fcntl
    import hashlib
    import shutil
    import tempfile

    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for name in ("tiny.py", "safetensors_io.py"):
        with open(os.path.join(here, name), "rb") as f:
            h.update(f.read())
    h.update(f"{seed}/{pretrain_steps}/{torch.__version__}".encode())
    root = cache_root or os.environ.get("OWRL_TINY_CACHE") or os.path.join(tempfile.gettempdir(), "owrl-torch-tiny")
    os.makedirs(root, exist_ok=True)
    final = os.path.join(root, f"{h.hexdigest()[:16]}-s{seed}")
    if os.path.isfile(os.path.join(final, "model.safetensors")):
        return final
    with open(os.path.join(root, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if os.path.isfile(os.path.join(final, "model.safetensors")):
                return final
            tmp = tempfile.mkdtemp(prefix=".build-", dir=root)
            build_tiny(tmp, seed=seed, pretrain_steps=pretrain_steps)
            if os.path.isdir(final):
                shutil.rmtree(final)
            os.rename(tmp, final)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return final


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m owrl_torch.tiny", description="Builds the tiny test chat model.")
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build and warm up a tiny model into DIR")
    b.add_argument("dir")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--steps", type=int, default=100, help="warm-up optimizer steps")
    b.add_argument("--name", default=DEFAULT_NAME)
    b.add_argument("--template", default="qwen", choices=TEMPLATES)
    c = sub.add_parser("cached", help="print the folder of a cached build (building it once)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--cache-root", default=None)
    args = p.parse_args(argv)
    if args.cmd == "cached":
        print(ensure_tiny(seed=args.seed, cache_root=args.cache_root))
        return 0
    bundle = build_tiny(args.dir, seed=args.seed, pretrain_steps=args.steps, name=args.name, template=args.template, log=True)
    print(json.dumps({"dir": args.dir, "name": bundle.name, "vocab_size": bundle.tokenizer.vocab_size, "seed": args.seed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
