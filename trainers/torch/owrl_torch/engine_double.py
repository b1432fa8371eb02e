"""A stand-in for vLLM serving an owrl tiny model, for tests that need a real model end to end.

It answers the OpenAI chat API the way vLLM's server does (the fields owrl's `openai` policy sends
and reads: `return_token_ids` giving `prompt_token_ids` on the response and `token_ids` on the
choice, `logprobs`/`top_logprobs`, hermes-style tool calls parsed into `tool_calls`, the model's
generation_config filling the sampling fields a request leaves out, vLLM's error bodies and
context-length wording) and vLLM's runtime LoRA API (`/v1/load_lora_adapter`,
`/v1/unload_lora_adapter`, mounted with `--enable-lora`), running the tiny model with torch.

Tokens are sampled from the processed distribution (temperature, then top-k, top-p and min-p,
renormalised: owrl_torch.logprobs) and the reported log-probs are the ones `--logprobs-mode`
names, as in vLLM: `raw_logprobs` (its default, before temperature and truncation) or
`processed_logprobs`. The same model code and log-prob code as the trainer's run here, so a
correct setup gives engine/trainer parity to float error and a wrong one (a mode the trainer is
not told, another chat template) shows as a gap.

`/owrl/stats` (not vLLM's) reports adapter loads per name and requests per model for tests.

    python3 -m owrl_torch.engine_double --model DIR --port 0 --enable-lora \
        --logprobs-mode processed_logprobs --served-model-name owrl/tiny

prints `owrl engine double listening on HOST:PORT` once it serves.
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import os
import re
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

import torch

LOGPROBS_MODES = ("raw_logprobs", "processed_logprobs")
_MODE_OF = {"raw_logprobs": "RAW", "processed_logprobs": "PROCESSED"}
# vLLM's sampling defaults for a field neither the request nor the generation config sets.
_ENGINE_DEFAULTS = {
    "temperature": 1.0,
    "top_p": 1.0,
    "top_k": -1,
    "min_p": 0.0,
    "repetition_penalty": 1.0,
    "presence_penalty": 0.0,
    "frequency_penalty": 0.0,
}
# Below this temperature vLLM samples greedily and computes log-probs at temperature 1.
_GREEDY_EPS = 1e-5
VERSION = "0.11.0+owrl.double"


class EngineError(Exception):
    """A request the engine refuses, answered with vLLM's error body."""

    def __init__(self, status: int, message: str, type_: str = "BadRequestError", param: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type_
        self.param = param

    def body(self) -> Dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.status}}


@dataclass
class EngineOptions:
    served_model_name: str
    logprobs_mode: str = "raw_logprobs"
    template: Optional[str] = None
    enable_lora: bool = False
    max_lora_rank: int = 16
    max_model_len: Optional[int] = None
    enable_auto_tool_choice: bool = False
    tool_call_parser: Optional[str] = None
    seed: int = 0


@dataclass
class EngineStats:
    """What tests read from `/owrl/stats`."""

    loads: Dict[str, int] = field(default_factory=dict)
    unloads: Dict[str, int] = field(default_factory=dict)
    load_calls: List[Dict[str, Any]] = field(default_factory=list)
    requests: Dict[str, int] = field(default_factory=dict)
    request_models: List[str] = field(default_factory=list)
    refused: int = 0
    completion_tokens: int = 0
    compute_ms: float = 0.0

    def as_json(self, adapters: Dict[str, str], opts: EngineOptions) -> Dict[str, Any]:
        return {
            "loads": dict(self.loads),
            "unloads": dict(self.unloads),
            "load_calls": list(self.load_calls),
            "requests": dict(self.requests),
            "request_models": list(self.request_models),
            "refused": self.refused,
            "completion_tokens": self.completion_tokens,
            "compute_ms": round(self.compute_ms, 3),
            "adapters": dict(adapters),
            "logprobs_mode": opts.logprobs_mode,
            "template": opts.template,
            "served_model_name": opts.served_model_name,
        }


# ---------------------------------------------------------------------------------------------
# Hermes tool calls (vLLM's Hermes2ProToolParser, non-streaming)

_TOOL_CALL_RE = re.compile(r"<tool_call>(.*?)</tool_call>|<tool_call>(.*)", re.DOTALL)


def parse_hermes(text: str) -> Tuple[Optional[str], List[Dict[str, Any]]]:
    """(content, tool_calls) as vLLM's hermes parser returns them for a whole completion.

    Content is the text before the first `<tool_call>` (None when empty); a block that is not a
    JSON object with a name leaves the whole text as content and no calls, as vLLM does.
    """
    if "<tool_call>" not in text:
        return text, []
    calls: List[Dict[str, Any]] = []
    try:
        for m in _TOOL_CALL_RE.findall(text):
            raw = (m[0] if m[0] else m[1]).strip()
            obj = json.loads(raw)
            if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
                raise ValueError("tool call without a name")
            calls.append(
                {
                    "id": f"chatcmpl-tool-{uuid.uuid4().hex}",
                    "type": "function",
                    "function": {"name": obj["name"], "arguments": json.dumps(obj.get("arguments", {}), ensure_ascii=False)},
                }
            )
    except (ValueError, json.JSONDecodeError):
        return text, []
    content = text[: text.find("<tool_call>")]
    return (content if content else None), calls


# ---------------------------------------------------------------------------------------------
# Requests


def _number(body: Dict[str, Any], key: str) -> Optional[float]:
    v = body.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise EngineError(400, f"{key} must be a number, got {json.dumps(v)}", param=key)
    return float(v)


def effective_sampling(body: Dict[str, Any], generation_config: Dict[str, Any]) -> Dict[str, float]:
    """Request value, else the generation config's, else vLLM's default, field by field."""
    out: Dict[str, float] = {}
    for k, default in _ENGINE_DEFAULTS.items():
        v = _number(body, k)
        if v is None:
            g = generation_config.get(k)
            v = float(g) if isinstance(g, (int, float)) and not isinstance(g, bool) else default
        out[k] = v
    out["top_k"] = int(out["top_k"])
    if out["temperature"] < 0:
        raise EngineError(400, f"temperature must be non-negative, got {out['temperature']}.", param="temperature")
    if not 0 < out["top_p"] <= 1:
        raise EngineError(400, f"top_p must be in (0, 1], got {out['top_p']}.", param="top_p")
    if out["top_k"] < -1 or out["top_k"] == 0:
        raise EngineError(400, f"top_k must be -1 (disable), or at least 1, got {out['top_k']}.", param="top_k")
    if not 0 <= out["min_p"] <= 1:
        raise EngineError(400, f"min_p must be in [0, 1], got {out['min_p']}.", param="min_p")
    if out["repetition_penalty"] <= 0:
        raise EngineError(400, f"repetition_penalty must be greater than zero, got {out['repetition_penalty']}.", param="repetition_penalty")
    for k in ("presence_penalty", "frequency_penalty"):
        if not -2 <= out[k] <= 2:
            raise EngineError(400, f"{k} must be in [-2, 2], got {out[k]}.", param=k)
    return out


def _decode_image(url: str) -> bytes:
    if not url.startswith("data:") or "," not in url:
        raise EngineError(400, f"the engine double reads data: image URLs only, got {url[:60]!r}")
    head, data = url.split(",", 1)
    if not head.endswith(";base64"):
        raise EngineError(400, "image data URLs must be base64")
    try:
        return base64.b64decode(data, validate=True)
    except ValueError as e:
        raise EngineError(400, f"image data URL is not valid base64: {e}") from e


def request_images(messages: List[Dict[str, Any]]) -> List[bytes]:
    """The bytes of every image part, in message order."""
    out: List[bytes] = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        if not isinstance(content, list):
            continue
        for part in content:
            if isinstance(part, dict) and part.get("type") == "image_url":
                url = (part.get("image_url") or {}).get("url") if isinstance(part.get("image_url"), dict) else None
                if not isinstance(url, str):
                    raise EngineError(400, "image_url part without image_url.url")
                out.append(_decode_image(url))
    return out


# ---------------------------------------------------------------------------------------------
# The engine


class Engine:
    """The model, its adapters and the request handlers (HTTP-free, so tests can call them)."""

    def __init__(self, model_dir: str, opts: EngineOptions):
        from owrl_torch import tiny

        self.opts = opts
        self.bundle = tiny.load_tiny(model_dir)
        self.bundle.model.eval()
        for p in self.bundle.model.parameters():
            p.requires_grad_(False)
        self.template = opts.template or self.bundle.template
        self.generation_config: Dict[str, Any] = dict(self.bundle.generation_config or {})
        cfg = getattr(self.bundle.model, "config", None)
        self.max_model_len = opts.max_model_len or int(getattr(cfg, "max_positions", 8192))
        self.adapters: Dict[str, str] = {}
        self._adapter_models: Dict[str, torch.nn.Module] = {}
        self.stats = EngineStats()
        self._lock = threading.Lock()
        self._seq = 0
        tok = self.bundle.tokenizer
        self._stop_ids = {tok.eos_id, tok.pad_id}
        self._hidden_ids = self._special_ids()

    def _special_ids(self) -> set:
        """Ids that decode as nothing with skip_special_tokens (the tool-call markers stay, as in Qwen)."""
        tok = self.bundle.tokenizer
        ids = set()
        for s in ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|image_pad|>", "<|vision_end|>"):
            enc = tok.encode(s)
            if len(enc) == 1:
                ids.add(enc[0])
        ids.update({tok.eos_id, tok.pad_id})
        return ids

    # -- models ---------------------------------------------------------------------------------

    def models(self) -> Dict[str, Any]:
        now = int(time.time())
        base = self.opts.served_model_name
        data = [{"id": base, "object": "model", "created": now, "owned_by": "vllm", "root": base, "parent": None, "max_model_len": self.max_model_len}]
        for name, path in self.adapters.items():
            data.append({"id": name, "object": "model", "created": now, "owned_by": "vllm", "root": path, "parent": base, "max_model_len": self.max_model_len})
        return {"object": "list", "data": data}

    def _model_for(self, name: str) -> torch.nn.Module:
        if name == self.opts.served_model_name:
            return self.bundle.model
        m = self._adapter_models.get(name)
        if m is None:
            raise EngineError(404, f"The model `{name}` does not exist.", "NotFoundError", "model")
        return m

    # -- LoRA -----------------------------------------------------------------------------------

    def load_lora_adapter(self, body: Dict[str, Any]) -> Tuple[int, Any]:
        name = body.get("lora_name") if isinstance(body.get("lora_name"), str) else ""
        path = body.get("lora_path") if isinstance(body.get("lora_path"), str) else ""
        call: Dict[str, Any] = {"name": name, "path": path, "status": 200, "t": time.time()}
        self.stats.load_calls.append(call)
        try:
            if not name or not path:
                raise EngineError(400, "Both 'lora_name' and 'lora_path' must be provided.", "InvalidUserInput")
            if name in self.adapters and body.get("load_inplace") is not True:
                raise EngineError(
                    400,
                    f"The lora adapter '{name}' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True.",
                    "InvalidUserInput",
                )
            if not os.path.isfile(os.path.join(path, "adapter_config.json")):
                raise EngineError(404, f"Loading lora {name} failed: No adapter found for {path}", "NotFoundError")
            model = self._build_adapter_model(name, path)
        except EngineError as e:
            call["status"] = e.status
            return e.status, e.body()
        with self._lock:
            self._adapter_models[name] = model
            self.adapters[name] = path
            self.stats.loads[name] = self.stats.loads.get(name, 0) + 1
        return 200, f"Success: LoRA adapter '{name}' added successfully."

    def _build_adapter_model(self, name: str, path: str) -> torch.nn.Module:
        from owrl_torch import lora

        try:
            with open(os.path.join(path, "adapter_config.json"), encoding="utf-8") as f:
                cfg = json.load(f)
        except (OSError, ValueError) as e:
            raise EngineError(400, f"Loading lora {name} failed: adapter_config.json is not readable JSON: {e}", "BadRequestError") from e
        rank = cfg.get("r")
        if not isinstance(rank, int) or rank < 1:
            raise EngineError(400, f"Loading lora {name} failed: adapter_config.json has no valid r ({rank!r})", "BadRequestError")
        if rank > self.opts.max_lora_rank:
            raise EngineError(400, f"Loading lora {name} failed: LoRA rank {rank} is greater than max_lora_rank {self.opts.max_lora_rank}.", "BadRequestError")
        targets = cfg.get("target_modules")
        if isinstance(targets, str):
            targets = [targets]
        if not isinstance(targets, list) or not targets:
            raise EngineError(400, f"Loading lora {name} failed: adapter_config.json has no target_modules", "BadRequestError")
        model = copy.deepcopy(self.bundle.model)
        try:
            lora.apply_lora(model, rank, cfg.get("lora_alpha", rank), list(targets))
            lora.load_adapter(model, path)
        except (ValueError, KeyError, OSError, RuntimeError) as e:
            raise EngineError(400, f"Loading lora {name} failed: {e}", "BadRequestError") from e
        model.eval()
        for p in model.parameters():
            p.requires_grad_(False)
        return model

    def unload_lora_adapter(self, body: Dict[str, Any]) -> Tuple[int, Any]:
        name = body.get("lora_name") if isinstance(body.get("lora_name"), str) else ""
        if not name:
            e = EngineError(400, "'lora_name' needs to be provided to unload a LoRA adapter.", "InvalidUserInput")
            return e.status, e.body()
        with self._lock:
            if name not in self.adapters:
                e = EngineError(404, f"The lora adapter '{name}' cannot be found.", "NotFoundError")
                return e.status, e.body()
            del self.adapters[name]
            del self._adapter_models[name]
            self.stats.unloads[name] = self.stats.unloads.get(name, 0) + 1
        return 200, f"Success: LoRA adapter '{name}' removed successfully."

    # -- chat -----------------------------------------------------------------------------------

    def prompt(self, body: Dict[str, Any]) -> Tuple[List[int], List[bytes]]:
        """The prompt token ids (chat template applied, image placeholders expanded) and the images."""
        from owrl_torch import tiny

        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise EngineError(400, "messages must be a non-empty list", param="messages")
        tools = body.get("tools") if isinstance(body.get("tools"), list) else None
        images = request_images(messages)
        try:
            text = tiny.render_chat(messages, tools=tools, add_generation_prompt=True, template=self.template)
        except (ValueError, TypeError, KeyError) as e:
            raise EngineError(400, f"the chat template could not render the messages: {e}", param="messages") from e
        ids = self.bundle.tokenizer.encode(text)
        if images:
            try:
                ids = self.bundle.processor.expand(ids, images, self.bundle.tokenizer.image_id)
            except ValueError as e:
                raise EngineError(400, str(e), param="messages") from e
        return list(ids), images

    def chat(self, body: Dict[str, Any]) -> Tuple[int, Dict[str, Any]]:
        try:
            return 200, self._chat(body)
        except EngineError as e:
            self.stats.refused += 1
            return e.status, e.body()

    def _chat(self, body: Dict[str, Any]) -> Dict[str, Any]:
        t0 = time.perf_counter()
        model_name = body.get("model") if isinstance(body.get("model"), str) else ""
        if body.get("stream") is True:
            raise EngineError(400, "the engine double does not stream; send stream: false", param="stream")
        n = body.get("n", 1)
        if n != 1:
            raise EngineError(400, "the engine double answers n=1 only", param="n")
        tool_choice = body.get("tool_choice")
        if tool_choice == "auto" and not (self.opts.enable_auto_tool_choice and self.opts.tool_call_parser):
            raise EngineError(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set')
        model = self._model_for(model_name)
        sampling = effective_sampling(body, self.generation_config)
        prompt_ids, images = self.prompt(body)
        max_tokens_v = body.get("max_completion_tokens", body.get("max_tokens"))
        if max_tokens_v is not None and (isinstance(max_tokens_v, bool) or not isinstance(max_tokens_v, int) or max_tokens_v < 1):
            raise EngineError(400, f"max_tokens must be at least 1, got {max_tokens_v}.", param="max_tokens")
        n_in = len(prompt_ids)
        requested = int(max_tokens_v) if max_tokens_v is not None else 0
        if n_in + requested > self.max_model_len or n_in >= self.max_model_len:
            limit = self.max_model_len
            raise EngineError(
                400,
                f"You passed {n_in} input tokens and requested {requested} output tokens. However, the model's context length is only {limit} tokens, resulting in a maximum input length of {limit - requested} tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value={n_in})",
                param="input_tokens",
            )
        max_tokens = requested if max_tokens_v is not None else self.max_model_len - n_in
        seed = body.get("seed")
        gen = torch.Generator()
        if isinstance(seed, int) and not isinstance(seed, bool):
            gen.manual_seed(seed)
        else:
            with self._lock:
                self._seq += 1
                gen.manual_seed((self.opts.seed * 1_000_003 + self._seq) % (2**63))
        with self._lock:
            self.stats.requests[model_name] = self.stats.requests.get(model_name, 0) + 1
            self.stats.request_models.append(model_name)
        ids, lps, tops, finish = self.generate(model, prompt_ids, images, sampling, max_tokens, gen, int(body.get("top_logprobs") or 0))
        with self._lock:
            self.stats.completion_tokens += len(ids)
            self.stats.compute_ms += (time.perf_counter() - t0) * 1000
        return self._response(body, model_name, prompt_ids, ids, lps, tops, finish)

    def features(self, images: List[bytes]) -> Optional[List[torch.Tensor]]:
        if not images:
            return None
        try:
            return [self.bundle.processor.features(b) for b in images]
        except ValueError as e:
            raise EngineError(400, str(e), param="messages") from e

    @torch.no_grad()
    def generate(
        self,
        model: torch.nn.Module,
        prompt_ids: List[int],
        images: List[bytes],
        sampling: Dict[str, float],
        max_tokens: int,
        gen: torch.Generator,
        top_logprobs: int = 0,
    ) -> Tuple[List[int], List[float], List[List[Tuple[int, float]]], str]:
        """Samples up to max_tokens; returns ids, reported log-probs, top log-probs, finish reason.

        Sampling runs through owrl_torch.logprobs.sample_completion: the processed distribution is
        sampled from, the reported log-probs are those of `--logprobs-mode`. No KV cache: every
        token re-runs the context, the same computation as the trainer's forward over prompt +
        completion, so engine and trainer differ only by float reassociation.
        """
        from owrl_torch.logprobs import Sampler, process_logprobs, sample_completion

        greedy = sampling["temperature"] < _GREEDY_EPS
        # greedy: vLLM takes the most likely token and computes log-probs at temperature 1
        sampler = Sampler(
            temperature=1.0 if greedy else sampling["temperature"],
            top_p=sampling["top_p"],
            top_k=1 if greedy else int(sampling["top_k"]),
            min_p=sampling["min_p"],
            repetition_penalty=sampling["repetition_penalty"],
            presence_penalty=sampling["presence_penalty"],
            frequency_penalty=sampling["frequency_penalty"],
        )
        report = _MODE_OF[self.opts.logprobs_mode]
        feats = self.features(images) or []
        if len(prompt_ids) + max_tokens > self.max_model_len:
            raise EngineError(400, f"{len(prompt_ids)} prompt tokens and {max_tokens} completion tokens exceed max_model_len {self.max_model_len}")
        ids, lps, finish = sample_completion(
            model,
            prompt_ids,
            sampler,
            mode=report,
            max_new_tokens=max_tokens,
            generator=gen,
            stop_ids=sorted(self._stop_ids),
            image_features=feats,
        )
        tops: List[List[Tuple[int, float]]] = []
        if top_logprobs > 0 and ids:
            # one forward over prompt + completion gives every position's distribution
            x = torch.tensor([list(prompt_ids) + ids[:-1]], dtype=torch.long)
            logits = model(x, None, feats)[0, len(prompt_ids) - 1 :].float()
            dist = process_logprobs(logits, sampler, report)
            v, i = torch.topk(dist, min(top_logprobs, dist.shape[-1]), dim=-1)
            tops = [[(int(a), float(b)) for a, b in zip(ri.tolist(), rv.tolist())] for ri, rv in zip(i, v)]
        return ids, lps, tops, finish

    def _token_text(self, tid: int) -> str:
        return self.bundle.tokenizer.decode([tid])

    def _response(
        self,
        body: Dict[str, Any],
        model_name: str,
        prompt_ids: List[int],
        ids: List[int],
        lps: List[float],
        tops: List[List[Tuple[int, float]]],
        finish: str,
    ) -> Dict[str, Any]:
        text = self.bundle.tokenizer.decode([t for t in ids if t not in self._hidden_ids])
        tools_on = isinstance(body.get("tools"), list) and body.get("tool_choice", "auto") in ("auto", None) and self.opts.enable_auto_tool_choice
        content: Optional[str] = text
        calls: List[Dict[str, Any]] = []
        if tools_on and self.opts.tool_call_parser == "hermes":
            content, calls = parse_hermes(text)
        as_ids = body.get("return_tokens_as_token_ids") is True
        logprobs = None
        if body.get("logprobs") is True:
            entries = []
            for k, (tid, lp) in enumerate(zip(ids, lps)):
                piece = self._token_text(tid)
                entry: Dict[str, Any] = {
                    "token": f"token_id:{tid}" if as_ids else piece,
                    "logprob": max(lp, -9999.0),
                    "bytes": list(piece.encode("utf-8")),
                    "top_logprobs": [],
                }
                for t2, lp2 in tops[k] if k < len(tops) else []:
                    p2 = self._token_text(t2)
                    entry["top_logprobs"].append({"token": f"token_id:{t2}" if as_ids else p2, "logprob": max(lp2, -9999.0), "bytes": list(p2.encode("utf-8"))})
                entries.append(entry)
            logprobs = {"content": entries}
        message: Dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "refusal": None,
            "annotations": None,
            "audio": None,
            "function_call": None,
            "tool_calls": calls,
            "reasoning_content": None,
        }
        choice: Dict[str, Any] = {
            "index": 0,
            "message": message,
            "logprobs": logprobs,
            "finish_reason": "tool_calls" if calls else finish,
            "stop_reason": None,
        }
        want_ids = body.get("return_token_ids") is True
        if want_ids:
            choice["token_ids"] = list(ids)
        with self._lock:
            self._seq += 1
            rid = self._seq
        resp: Dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}{rid}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model_name,
            "choices": [choice],
            "service_tier": None,
            "system_fingerprint": None,
            "usage": {"prompt_tokens": len(prompt_ids), "total_tokens": len(prompt_ids) + len(ids), "completion_tokens": len(ids), "prompt_tokens_details": None},
            "prompt_logprobs": None,
            "prompt_token_ids": list(prompt_ids) if want_ids else None,
            "kv_transfer_params": None,
        }
        return resp


# ---------------------------------------------------------------------------------------------
# HTTP


def _handler(engine: Engine, api_key: Optional[str]):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "owrl-engine-double"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (BaseHTTPRequestHandler's name)
            if os.environ.get("OWRL_ENGINE_DOUBLE_ACCESS_LOG") == "1":
                sys.stderr.write("%s - %s\n" % (self.address_string(), format % args))

        def _send(self, status: int, body: Any) -> None:
            if isinstance(body, (dict, list)):
                data = json.dumps(body).encode("utf-8")
                ctype = "application/json"
            else:
                data = str(body).encode("utf-8")
                ctype = "text/plain; charset=utf-8"
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _authorized(self) -> bool:
            if api_key is None or not self.path.startswith("/v1"):
                return True
            if self.headers.get("authorization") == f"Bearer {api_key}":
                return True
            self._send(401, {"error": "Unauthorized"})
            return False

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            p = self.path.split("?")[0]
            if p == "/health":
                return self._send(200, "")
            if p == "/version":
                return self._send(200, {"version": VERSION})
            if p == "/owrl/stats":
                with engine._lock:
                    return self._send(200, engine.stats.as_json(engine.adapters, engine.opts))
            if not self._authorized():
                return
            if p == "/v1/models":
                return self._send(200, engine.models())
            return self._send(404, {"detail": "Not Found"})

        def do_POST(self) -> None:  # noqa: N802
            p = self.path.split("?")[0]
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length > 0 else b""
            if not self._authorized():
                return
            lora_route = p in ("/v1/load_lora_adapter", "/v1/unload_lora_adapter")
            if p != "/v1/chat/completions" and not (lora_route and engine.opts.enable_lora):
                return self._send(404, {"detail": "Not Found"})
            try:
                body = json.loads(raw.decode("utf-8") or "null")
                if not isinstance(body, dict):
                    raise ValueError("the body is not a JSON object")
            except (ValueError, UnicodeDecodeError) as e:
                err = EngineError(400, f"invalid JSON body: {e}")
                return self._send(err.status, err.body())
            if p == "/v1/chat/completions":
                status, out = engine.chat(body)
            elif p == "/v1/load_lora_adapter":
                status, out = engine.load_lora_adapter(body)
            else:
                status, out = engine.unload_lora_adapter(body)
            return self._send(status, out)

    return Handler


def serve(engine: Engine, host: str, port: int, api_key: Optional[str] = None) -> ThreadingHTTPServer:
    """A started server (serving on a thread); `server.server_address` has the port."""
    server = ThreadingHTTPServer((host, port), _handler(engine, api_key))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="engine-double", daemon=True).start()
    return server


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m owrl_torch.engine_double", description="A vLLM-like OpenAI server for an owrl tiny model (tests).")
    ap.add_argument("--model", required=True, help="folder written by `python3 -m owrl_torch.tiny build`")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000, help="0 picks a free port (printed on the ready line)")
    ap.add_argument("--served-model-name", default=None, help="the model name requests use (default: --model as given)")
    ap.add_argument("--logprobs-mode", choices=LOGPROBS_MODES, default="raw_logprobs")
    ap.add_argument("--template", choices=("qwen", "alt"), default=None, help="chat template (default: the model's)")
    ap.add_argument("--enable-lora", action="store_true")
    ap.add_argument("--max-lora-rank", type=int, default=16)
    ap.add_argument("--max-loras", type=int, default=1, help="accepted for vLLM compatibility")
    ap.add_argument("--max-model-len", type=int, default=None)
    ap.add_argument("--enable-auto-tool-choice", action="store_true")
    ap.add_argument("--tool-call-parser", choices=("hermes",), default=None)
    ap.add_argument("--api-key", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    args = ap.parse_args(argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    if not os.path.isdir(args.model):
        ap.error(f"--model {args.model}: no such folder (build one with `python3 -m owrl_torch.tiny build DIR`)")
    opts = EngineOptions(
        served_model_name=args.served_model_name or args.model,
        logprobs_mode=args.logprobs_mode,
        template=args.template,
        enable_lora=args.enable_lora,
        max_lora_rank=args.max_lora_rank,
        max_model_len=args.max_model_len,
        enable_auto_tool_choice=args.enable_auto_tool_choice,
        tool_call_parser=args.tool_call_parser,
        seed=args.seed,
    )
    engine = Engine(args.model, opts)
    server = serve(engine, args.host, args.port, args.api_key)
    host, port = server.server_address[:2]
    print(f"owrl engine double listening on {host}:{port}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
