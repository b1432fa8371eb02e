import io
import json
import os
import random

import pytest
import torch

from owrl_torch import tiny
from owrl_torch.logprobs import sequence_logprobs


def png(width: int, height: int, color=(200, 10, 30)) -> bytes:
    from PIL import Image

    img = Image.new("RGB", (width, height), color)
    for x in range(width // 2):
        for y in range(height):
            img.putpixel((x, y), (0, 0, 255))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def test_tokenizer_round_trips_any_text():
    tok = tiny.TinyTokenizer.default()
    rng = random.Random(3)
    samples = [
        "",
        "Answer with the single word amber and nothing else.",
        "<|im_start|>user\nhé ünïcødé ✓ 日本語 \t tabs  and   spaces\r\n<|im_end|>",
        '<tool_call>\n{"name": "done", "arguments": {"response": "kelp"}}\n</tool_call><|im_end|>',
        "< |im_end|> is not special, <|im_end|> is",
        "".join(chr(rng.randint(1, 0x2FFF)) for _ in range(400)),
    ]
    for s in samples:
        ids = tok.encode(s)
        assert tok.decode(ids) == s
        assert all(0 <= i < tok.vocab_size for i in ids)
    assert tok.encode("<|im_end|>") == [tok.eos_id]
    assert tok.encode("< |im_end|>") != [tok.eos_id]
    assert tok.pad_id == tok.token_id("<|endoftext|>") == 0
    assert tok.image_id == tok.token_id("<|image_pad|>")
    # known words are single tokens, so prompts stay short
    assert len(tok.encode("Answer with the single word amber")) == 6


def test_tokenizer_save_load(tmp_path):
    tok = tiny.TinyTokenizer.default()
    tok.save(str(tmp_path))
    back = tiny.TinyTokenizer.load(str(tmp_path))
    s = "Task: Answer with the single word fjord and nothing else. Zürich 42"
    assert back.encode(s) == tok.encode(s)
    assert back.vocab_size == tok.vocab_size


def conversation():
    return [
        {"role": "system", "content": "You are a web agent."},
        {"role": "user", "content": [{"type": "text", "text": "Task: find it"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,xx"}}]},
        {"role": "assistant", "content": "Clicking.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "click", "arguments": '{"element_id": 3}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "clicked"},
    ]


def test_qwen_template_exact():
    tools = [{"type": "function", "function": {"name": "done", "parameters": {"type": "object"}}}]
    text = tiny.render_chat(conversation(), tools=tools)
    assert text.startswith("<|im_start|>system\nYou are a web agent.\n\n# Tools\n")
    assert '<tools>\n{"type": "function", "function": {"name": "done", "parameters": {"type": "object"}}}\n</tools>' in text
    tail = text[text.index("<|im_end|>\n<|im_start|>user") + len("<|im_end|>\n") :]
    assert tail == (
        "<|im_start|>user\nTask: find it<|vision_start|><|image_pad|><|vision_end|><|im_end|>\n"
        '<|im_start|>assistant\nClicking.\n<tool_call>\n{"name": "click", "arguments": {"element_id": 3}}\n</tool_call><|im_end|>\n'
        "<|im_start|>user\n<tool_response>\nclicked\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    assert not tiny.render_chat(conversation(), add_generation_prompt=False).endswith("<|im_start|>assistant\n")


def test_alt_template_differs():
    q = tiny.render_chat(conversation())
    a = tiny.render_chat(conversation(), template="alt")
    assert q != a
    assert "<|im_start|>system" not in a
    assert a.startswith("<|im_start|>user\nYou are a web agent.\n\nTask: find it")
    with pytest.raises(ValueError, match="chat template 'nope' is unknown"):
        tiny.render_chat(conversation(), template="nope")
    with pytest.raises(ValueError, match=r"messages\[1\]: unknown role 'robot'"):
        tiny.render_chat([{"role": "system", "content": "x"}, {"role": "robot", "content": "y"}])


def test_processor_grid_features_expand():
    p = tiny.TinyProcessor(patch=16, max_side=64)
    wide = png(128, 64)  # scaled to 64x32: 4 x 2 patches
    assert p.grid(wide) == (4, 2)
    assert p.image_tokens(wide) == 8
    small = png(20, 10)  # not scaled: ceil(20/16) x ceil(10/16)
    assert p.image_tokens(small) == 2
    f = p.features(wide)
    assert f.shape == (8, 3)
    # left half blue, right half red: row-major patches
    assert torch.allclose(f[0], torch.tensor([0.0, 0.0, 1.0]), atol=0.02)
    assert torch.allclose(f[3], torch.tensor([200 / 255, 10 / 255, 30 / 255]), atol=0.02)
    assert torch.equal(p.features(wide), f)
    ids = [5, 4, 9, 4]
    assert p.expand(ids, [wide, small], image_id=4) == [5] + [4] * 8 + [9] + [4] * 2
    pad = tiny.TinyTokenizer.default().image_id
    assert p.expand([7, pad], [small]) == [7, pad, pad]
    with pytest.raises(ValueError, match="2 image placeholders but 1 images"):
        p.expand(ids, [wide], image_id=4)
    with pytest.raises(ValueError, match="not a readable PNG/JPEG"):
        p.image_tokens(b"nope")


def test_build_is_deterministic_and_loads(tmp_path):
    a = tiny.build_tiny(str(tmp_path / "a"), seed=7, pretrain_steps=2)
    b = tiny.build_tiny(str(tmp_path / "b"), seed=7, pretrain_steps=2)
    c = tiny.build_tiny(str(tmp_path / "c"), seed=8, pretrain_steps=2)
    sa, sb, sc = a.model.state_dict(), b.model.state_dict(), c.model.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not all(torch.equal(sa[k], sc[k]) for k in sa)
    for f in ("config.json", "model.safetensors", "tokenizer.json", "chat_template.json", "generation_config.json"):
        assert os.path.isfile(tmp_path / "a" / f), f
    gen = json.load(open(tmp_path / "a" / "generation_config.json"))
    assert (gen["temperature"], gen["top_p"], gen["top_k"], gen["repetition_penalty"]) == (0.7, 0.8, 20, 1.0)
    assert json.load(open(tmp_path / "a" / "chat_template.json")) == {"template": "qwen"}
    assert tiny.is_tiny_dir(str(tmp_path / "a"))
    loaded = tiny.load_tiny(str(tmp_path / "a"))
    ids = torch.tensor([loaded.tokenizer.encode("hello there <|im_start|>assistant\n")])
    assert torch.equal(loaded.model(ids), a.model(ids))


def test_padding_images_and_crop_do_not_change_logits(tiny_bundle):
    m, tok, proc = tiny_bundle.model, tiny_bundle.tokenizer, tiny_bundle.processor
    img = png(64, 48)
    n = proc.image_tokens(img)
    prompt = tok.encode("look <|vision_start|>") + [tok.image_id] * n + tok.encode("<|vision_end|> here")
    short = tok.encode("hi")
    feats = proc.features(img)
    with torch.no_grad():
        alone = m(torch.tensor([prompt]), None, [feats])[0]
        width = len(prompt)
        ids = torch.zeros(2, width, dtype=torch.long)
        mask = torch.zeros(2, width, dtype=torch.long)
        ids[0, :2], mask[0, :2] = torch.tensor(short), 1
        ids[1], mask[1] = torch.tensor(prompt), 1
        batched = m(ids, mask, [feats])
        assert torch.allclose(batched[1], alone, atol=1e-5)
        assert torch.allclose(batched[0, :2], m(torch.tensor([short]))[0], atol=1e-5)
        # images matter
        other = m(torch.tensor([prompt]), None, [torch.zeros_like(feats)])[0]
        assert (other - alone).abs().max() > 1e-3
        with pytest.raises(ValueError, match="image tokens but 0 image features"):
            m(torch.tensor([prompt]))
        # tokens further back than the receptive field cannot change the last logits
        long = tok.encode(" ".join(["page"] * 400) + " and then <|im_start|>assistant\n")
        rf = m.receptive_field
        full = m(torch.tensor([long]))[0, -1]
        cropped = m(torch.tensor([long[-rf:]]))[0, -1]
        assert torch.allclose(full, cropped, atol=1e-5)


def loop_like_prompt(tok, word: str, elements: int = 40) -> list:
    system = (
        "You are a web agent. You operate a Chromium browser to carry out a task for the user on live websites.\n\n"
        "How to act:\n- Think about what to do next, then call one or more tools."
    )
    tools = [
        {"type": "function", "function": {"name": n, "description": f"{n} on the page", "parameters": {"type": "object", "properties": {"element_id": {"type": "integer"}}}}}
        for n in ("click", "write", "scroll", "done")
    ]
    page = "\n".join(f'[{i}] link "Product {i} cart" at ({i * 7}, {i * 13})' for i in range(elements))
    user = f"Task: Answer with the single word {word} and nothing else.\n\nStep 1 of at most 5.\nURL: http://127.0.0.1:4000/shop\nTitle: \"Shop\"\nScrolled 0 of 900 px.\nInteractive elements:\n{page}"
    return tok.encode(tiny.render_chat([{"role": "system", "content": system}, {"role": "user", "content": user}], tools=tools))


def test_warm_model_answers_in_format_with_spread_words(tiny_bundle):
    tok = tiny_bundle.tokenizer
    prompt = loop_like_prompt(tok, "amber")
    assert len(prompt) > 600  # longer than anything the warm-up saw
    steps = []
    for w in tiny.ANSWER_WORDS:
        comp = tok.encode(tiny.answer_text(w)) + [tok.eos_id]
        steps.append({"prompt_ids": prompt, "completion_ids": comp, "sampler": {"temperature": 1.0}, "logprob_mode": "RAW", "images": []})
    with torch.no_grad():
        lps = sequence_logprobs(tiny_bundle.model, steps)
    probs = [float(lp.sum().exp()) for lp in lps]
    assert sum(probs) > 0.8, probs  # the exact tool-call format, almost always
    assert min(probs) > 1 / 48 and max(probs) < 1 / 4, probs  # roughly uniform: RL has room

