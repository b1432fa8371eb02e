"""The engine double: vLLM's chat and LoRA API over HTTP on the tiny model, and the numbers it
reports agreeing with the trainer's recomputation (same model, same adapter, same sampler)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple

import pytest
import torch

from owrl_torch.engine_double import Engine, EngineOptions, effective_sampling, EngineError, parse_hermes, serve
from trainreq import png

TORCH_DIR = Path(__file__).resolve().parent.parent
BASE = "owrl/tiny-chat"
TOOLS = [{"type": "function", "function": {"name": "done", "description": "finish the task", "parameters": {"type": "object", "properties": {"response": {"type": "string"}}}}}]


def chat_body(word: str = "kelp", image: Optional[bytes] = None, **extra: Any) -> Dict[str, Any]:
    text = f"Task: Answer with the single word {word} and nothing else.\n\nStep 1 of at most 5.\nURL: http://127.0.0.1/shop\nScrolled 0 of 0 px.\nInteractive elements: none"
    content: Any = text
    if image is not None:
        content = [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(image).decode()}}]
    body: Dict[str, Any] = {
        "model": BASE,
        "messages": [{"role": "system", "content": "You are a web agent."}, {"role": "user", "content": content}],
        "tools": TOOLS,
        "tool_choice": "auto",
        "max_tokens": 40,
        "temperature": 0.7,
        "top_p": 0.8,
        "top_k": 20,
        "min_p": 0,
        "repetition_penalty": 1,
        "presence_penalty": 0,
        "frequency_penalty": 0,
        "logprobs": True,
        "return_token_ids": True,
        "seed": 7,
        "stream": False,
    }
    body.update(extra)
    return body


def make_engine(tiny_dir: str, **kw: Any) -> Engine:
    opts = dict(served_model_name=BASE, logprobs_mode="processed_logprobs", enable_lora=True, max_lora_rank=16, enable_auto_tool_choice=True, tool_call_parser="hermes")
    opts.update(kw)
    return Engine(tiny_dir, EngineOptions(**opts))


class Http:
    def __init__(self, origin: str) -> None:
        self.origin = origin

    def call(self, method: str, path: str, body: Any = None) -> Tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.origin + path, data=data, method=method, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                raw, status, ctype = r.read(), r.status, r.headers.get("content-type", "")
        except urllib.error.HTTPError as e:
            raw, status, ctype = e.read(), e.code, e.headers.get("content-type", "")
        return status, (json.loads(raw) if "json" in ctype else raw.decode())


@pytest.fixture()
def http(tiny_dir: str) -> Iterator[Tuple[Http, Engine]]:
    engine = make_engine(tiny_dir)
    server = serve(engine, "127.0.0.1", 0)
    try:
        yield Http(f"http://127.0.0.1:{server.server_address[1]}"), engine
    finally:
        server.shutdown()
        server.server_close()


def trainer_logprobs(model: torch.nn.Module, processor: Any, prompt: list, completion: list, images: list, sampling: Dict[str, Any], mode: str) -> torch.Tensor:
    """The trainer's recomputation of a completion's log-probs (owrl_torch.logprobs.sequence_logprobs)."""
    from owrl_torch.logprobs import Sampler, sequence_logprobs

    step = {"prompt_ids": prompt, "completion_ids": completion, "sampler": Sampler(**sampling), "logprob_mode": mode, "images": images}
    with torch.no_grad():
        return sequence_logprobs(model, [step], "cpu", processor=processor)[0]


SAMPLING = {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "min_p": 0.0}

# --- pure parts ---------------------------------------------------------------------------------


def test_hermes_calls_are_parsed_as_vllm_does() -> None:
    content, calls = parse_hermes('Thinking it over.\n<tool_call>\n{"name": "done", "arguments": {"response": "kelp"}}\n</tool_call>')
    assert content == "Thinking it over.\n"
    assert [(c["type"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [("function", "done", {"response": "kelp"})]
    assert calls[0]["id"].startswith("chatcmpl-tool-")
    content, calls = parse_hermes('<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "b", "arguments": {"x": 1}}\n</tool_call>')
    assert content is None and [c["function"]["name"] for c in calls] == ["a", "b"]
    # an unterminated block still parses when its JSON is whole; a broken one leaves everything as content
    assert parse_hermes('<tool_call>\n{"name": "a", "arguments": {}}')[1][0]["function"]["name"] == "a"
    assert parse_hermes("<tool_call>\n{not json\n</tool_call>") == ("<tool_call>\n{not json\n</tool_call>", [])
    assert parse_hermes("plain text") == ("plain text", [])


def test_sampling_fields_come_from_the_request_then_the_generation_config_then_the_defaults() -> None:
    gen = {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.0}
    assert effective_sampling({}, gen) == {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "min_p": 0.0, "repetition_penalty": 1.0, "presence_penalty": 0.0, "frequency_penalty": 0.0}
    s = effective_sampling({"temperature": 1, "top_k": -1}, gen)
    assert (s["temperature"], s["top_p"], s["top_k"]) == (1.0, 0.8, -1)
    for bad in ({"temperature": -1}, {"top_p": 0}, {"top_k": 0}, {"min_p": 2}, {"temperature": "hot"}):
        with pytest.raises(EngineError) as e:
            effective_sampling(bad, gen)
        assert e.value.status == 400


# --- HTTP ---------------------------------------------------------------------------------------


def test_chat_answers_in_vllms_shape_with_token_ids_and_logprobs(http: Tuple[Http, Engine]) -> None:
    client, engine = http
    assert client.call("GET", "/health")[0] == 200
    assert client.call("GET", "/version")[1]["version"]
    models = client.call("GET", "/v1/models")[1]
    assert [m["id"] for m in models["data"]] == [BASE]
    status, r = client.call("POST", "/v1/chat/completions", chat_body())
    assert status == 200, r
    assert r["object"] == "chat.completion" and r["model"] == BASE and r["prompt_logprobs"] is None
    choice = r["choices"][0]
    ids = choice["token_ids"]
    lps = [e["logprob"] for e in choice["logprobs"]["content"]]
    assert len(ids) == len(lps) > 0 and all(lp <= 0 for lp in lps)
    assert r["prompt_token_ids"] == engine.prompt(chat_body())[0]
    assert r["usage"] == {"prompt_tokens": len(r["prompt_token_ids"]), "completion_tokens": len(ids), "total_tokens": len(ids) + len(r["prompt_token_ids"]), "prompt_tokens_details": None}
    tok = engine.bundle.tokenizer
    # the warmed-up model answers with a done call, parsed into tool_calls; the text drops the end-of-turn token
    if choice["finish_reason"] == "tool_calls":
        assert choice["message"]["tool_calls"][0]["function"]["name"] == "done"
        assert ids[-1] == tok.eos_id
    else:
        assert choice["finish_reason"] in ("stop", "length")
    assert choice["stop_reason"] is None
    # same seed, same completion; without return_token_ids no ids
    again = client.call("POST", "/v1/chat/completions", chat_body())[1]
    assert again["choices"][0]["token_ids"] == ids
    bare = client.call("POST", "/v1/chat/completions", chat_body(return_token_ids=False, logprobs=False))[1]
    assert "token_ids" not in bare["choices"][0] and bare["prompt_token_ids"] is None and bare["choices"][0]["logprobs"] is None
    as_ids = client.call("POST", "/v1/chat/completions", chat_body(return_tokens_as_token_ids=True, top_logprobs=2))[1]
    content = as_ids["choices"][0]["logprobs"]["content"]
    assert [e["token"] for e in content] == [f"token_id:{t}" for t in ids]
    assert all(len(e["top_logprobs"]) == 2 and e["top_logprobs"][0]["logprob"] >= e["logprob"] - 1e-6 for e in content)
    stats = client.call("GET", "/owrl/stats")[1]
    assert stats["requests"] == {BASE: 4} and stats["request_models"] == [BASE] * 4 and stats["loads"] == {}


def test_errors_are_vllms(http: Tuple[Http, Engine], tiny_dir: str) -> None:
    client, _ = http
    status, r = client.call("POST", "/v1/chat/completions", chat_body(model="owrl-v9"))
    assert status == 404 and r == {"error": {"message": "The model `owrl-v9` does not exist.", "type": "NotFoundError", "param": "model", "code": 404}}
    status, r = client.call("POST", "/v1/chat/completions", chat_body(temperature=-1))
    assert status == 400 and r["error"]["param"] == "temperature"
    short = make_engine(tiny_dir, max_model_len=64)
    status, r = short.chat(chat_body(max_tokens=10))
    n = len(short.prompt(chat_body())[0])
    assert status == 400 and r["error"]["message"] == (
        f"You passed {n} input tokens and requested 10 output tokens. However, the model's context length is only 64 tokens, "
        f"resulting in a maximum input length of 54 tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value={n})"
    )
    no_tools = make_engine(tiny_dir, enable_auto_tool_choice=False, tool_call_parser=None)
    status, r = no_tools.chat(chat_body())
    assert status == 400 and "--enable-auto-tool-choice" in r["error"]["message"]
    status, r = client.call("POST", "/v1/chat/completions", chat_body(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]))
    assert status == 400 and "PNG/JPEG" in r["error"]["message"]


# --- log-prob parity with the trainer ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["processed_logprobs", "raw_logprobs"])
def test_reported_logprobs_are_the_trainers_recomputation(tiny_dir: str, mode: str) -> None:
    engine = make_engine(tiny_dir, logprobs_mode=mode)
    image = png(96, 40, (200, 40, 90))
    gap = 0.0
    for seed in range(3):
        body = chat_body(image=image if seed != 1 else None, seed=seed)
        status, r = engine.chat(body)
        assert status == 200, r
        ids = r["choices"][0]["token_ids"]
        lps = torch.tensor([e["logprob"] for e in r["choices"][0]["logprobs"]["content"]])
        images = [image] if seed != 1 else []
        mine = trainer_logprobs(engine.bundle.model, engine.bundle.processor, r["prompt_token_ids"], ids, images, SAMPLING, "PROCESSED" if mode == "processed_logprobs" else "RAW")
        gap = max(gap, float((mine - lps).abs().max()))
        # the other mode is another distribution: far apart at temperature 0.7 with top-p/top-k
        other = trainer_logprobs(engine.bundle.model, engine.bundle.processor, r["prompt_token_ids"], ids, images, SAMPLING, "RAW" if mode == "processed_logprobs" else "PROCESSED")
        assert float((other - lps).abs().max()) > 1e-2
    assert gap <= 1e-5, gap


def test_a_loaded_adapter_serves_its_own_weights_and_is_counted(http: Tuple[Http, Engine], tiny_dir: str, tmp_path: Path) -> None:
    from owrl_torch import lora
    from owrl_torch.tiny import load_tiny

    client, engine = http
    trained = load_tiny(tiny_dir)
    lora.apply_lora(trained.model, 8, 16, ["q_proj", "v_proj"], seed=1)
    with torch.no_grad():
        g = torch.Generator().manual_seed(3)
        for m in lora.lora_modules(trained.model).values():
            m.lora_B.weight.copy_(torch.randn(m.lora_B.weight.shape, generator=g) * 0.3)
    lora.save_adapter(trained.model, str(tmp_path / "v1"), BASE, 8, 16, ["q_proj", "v_proj"])

    assert client.call("POST", "/v1/load_lora_adapter", {"lora_name": "owrl-v1", "lora_path": str(tmp_path / "v1")}) == (200, "Success: LoRA adapter 'owrl-v1' added successfully.")
    status, r = client.call("POST", "/v1/load_lora_adapter", {"lora_name": "owrl-v1", "lora_path": str(tmp_path / "v1")})
    assert status == 400 and r["error"]["message"].startswith("The lora adapter 'owrl-v1' has already been loaded.")
    status, r = client.call("POST", "/v1/load_lora_adapter", {"lora_name": "owrl-v2", "lora_path": str(tmp_path / "nowhere")})
    assert status == 404 and r["error"] == {"message": f"Loading lora owrl-v2 failed: No adapter found for {tmp_path / 'nowhere'}", "type": "NotFoundError", "param": None, "code": 404}
    assert client.call("POST", "/v1/load_lora_adapter", {"lora_name": "x"})[0] == 400
    assert [m["id"] for m in client.call("GET", "/v1/models")[1]["data"]] == [BASE, "owrl-v1"]

    status, r = client.call("POST", "/v1/chat/completions", chat_body(model="owrl-v1"))
    assert status == 200 and r["model"] == "owrl-v1"
    ids = r["choices"][0]["token_ids"]
    lps = torch.tensor([e["logprob"] for e in r["choices"][0]["logprobs"]["content"]])
    with_adapter = trainer_logprobs(trained.model, trained.processor, r["prompt_token_ids"], ids, [], SAMPLING, "PROCESSED")
    # a large random adapter makes large logits: float reassociation stays within the contract's 1e-4
    assert float((with_adapter - lps).abs().max()) <= 1e-4
    base = trainer_logprobs(engine.bundle.model, engine.bundle.processor, r["prompt_token_ids"], ids, [], SAMPLING, "PROCESSED")
    assert float((base - lps).abs().max()) > 1e-3, "the adapter changes the distribution"

    assert client.call("POST", "/v1/load_lora_adapter", {"lora_name": "owrl-v1", "lora_path": str(tmp_path / "v1"), "load_inplace": True})[0] == 200
    assert client.call("POST", "/v1/unload_lora_adapter", {"lora_name": "owrl-v1"}) == (200, "Success: LoRA adapter 'owrl-v1' removed successfully.")
    status, r = client.call("POST", "/v1/unload_lora_adapter", {"lora_name": "owrl-v1"})
    assert status == 404 and r["error"]["message"] == "The lora adapter 'owrl-v1' cannot be found."
    stats = client.call("GET", "/owrl/stats")[1]
    assert stats["loads"] == {"owrl-v1": 2} and stats["unloads"] == {"owrl-v1": 1}
    assert [(c["name"], c["status"]) for c in stats["load_calls"]] == [("owrl-v1", 200), ("owrl-v1", 400), ("owrl-v2", 404), ("x", 400), ("owrl-v1", 200)]
    assert stats["request_models"] == ["owrl-v1"]

    big = make_engine(tiny_dir, max_lora_rank=4)
    status, r = big.load_lora_adapter({"lora_name": "owrl-v1", "lora_path": str(tmp_path / "v1")})
    assert status == 400 and "LoRA rank 8 is greater than max_lora_rank 4" in r["error"]["message"]


def test_lora_routes_need_enable_lora_and_the_cli_prints_its_port(tiny_dir: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(TORCH_DIR)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "owrl_torch.engine_double", "--model", tiny_dir, "--port", "0", "--served-model-name", BASE, "--threads", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("owrl engine double listening on 127.0.0.1:"), line
        client = Http("http://" + line.strip().rsplit(" ", 1)[1])
        assert client.call("POST", "/v1/load_lora_adapter", {"lora_name": "a", "lora_path": "/x"}) == (404, {"detail": "Not Found"})
        assert client.call("GET", "/v1/models")[1]["data"][0]["id"] == BASE
    finally:
        proc.terminate()
        proc.wait(timeout=30)
