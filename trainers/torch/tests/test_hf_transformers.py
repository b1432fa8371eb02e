"""The Hugging Face path against transformers itself: tiny checkpoints of the documented families
(Qwen3 text; Qwen3-VL and Qwen2.5-VL, each with its processor) are built from transformers' own classes and saved as a
user's model folder, then loaded, scored and trained the way `python3 -m owrl_torch.serve --model
FOLDER` does. Skipped where transformers is not installed (Debian stable has none; Debian testing's
python3-transformers and a GPU host's pip install run it)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Dict, List

import pytest
import torch

transformers = pytest.importorskip("transformers", reason="transformers is not installed; the Hugging Face path is checked where it is")
tokenizers = pytest.importorskip("tokenizers", reason="tokenizers (transformers' fast tokenizers) is not installed")

from owrl_torch import hf, lora, safetensors_io  # noqa: E402
from owrl_torch.logprobs import Sampler, sequence_logprobs  # noqa: E402
from owrl_torch.serve import ModelPolicy, parse_args  # noqa: E402
from owrl_torch.store import STATE_DIR  # noqa: E402
from owrl_torch.update import Sample, Step  # noqa: E402
from trainreq import logprob_steps, png  # noqa: E402

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"]
WORDS = ["user", "assistant", "\n", "answer", "with", "the", "word", "kelp", "fjord", "amber", "look", "at", "this", "page"]
VOCAB = {w: i for i, w in enumerate(["<unk>"] + SPECIALS + WORDS)}
V = 64  # the model's vocabulary is wider than the tokenizer's, as real checkpoints' often is
TEXT = dict(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=512)


def ids(*words: str) -> List[int]:
    return [VOCAB[w] for w in words]


def tokenizer() -> "transformers.PreTrainedTokenizerFast":
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(VOCAB, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<|endoftext|>", eos_token="<|im_end|>", additional_special_tokens=SPECIALS
    )


@pytest.fixture(scope="module")
def text_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("qwen3-tiny")
    torch.manual_seed(0)
    transformers.Qwen3ForCausalLM(transformers.Qwen3Config(tie_word_embeddings=False, **TEXT)).save_pretrained(d)
    tokenizer().save_pretrained(d)
    return d


TEMPLATE = "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
MARKERS = dict(image_token_id=VOCAB["<|image_pad|>"], video_token_id=VOCAB["<|video_pad|>"], vision_start_token_id=VOCAB["<|vision_start|>"], vision_end_token_id=VOCAB["<|vision_end|>"])


def qwen3_vl(d: Path) -> None:
    cfg = transformers.Qwen3VLConfig(
        # mrope_section splits head_dim / 2 rotary frequencies between time, height and width
        text_config=dict(rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 1, 1], "mrope_interleaved": True}, **TEXT),
        vision_config=dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=4, out_hidden_size=32, patch_size=16, spatial_merge_size=2, temporal_patch_size=2, num_position_embeddings=64, deepstack_visual_indexes=[0]),
        **MARKERS,
    )
    torch.manual_seed(0)
    transformers.Qwen3VLForConditionalGeneration(cfg).save_pretrained(d)
    # Qwen3-VL's processor settings (16-pixel patches, 2x2 merge), small images allowed
    images = transformers.Qwen2VLImageProcessor(patch_size=16, merge_size=2, temporal_patch_size=2, min_pixels=32 * 32, max_pixels=128 * 128, image_mean=[0.5] * 3, image_std=[0.5] * 3)
    videos = transformers.Qwen3VLVideoProcessor(patch_size=16, merge_size=2, temporal_patch_size=2)
    transformers.Qwen3VLProcessor(image_processor=images, tokenizer=tokenizer(), video_processor=videos, chat_template=TEMPLATE).save_pretrained(d)


def qwen2_5_vl(d: Path) -> None:
    cfg = transformers.Qwen2_5_VLConfig(
        text_config=dict(rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 1, 1]}, **TEXT),
        vision_config=dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=4, out_hidden_size=32, patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=56, fullatt_block_indexes=[1]),
        **MARKERS,
    )
    torch.manual_seed(0)
    transformers.Qwen2_5_VLForConditionalGeneration(cfg).save_pretrained(d)
    # Qwen2.5-VL's processor settings (14-pixel patches, 2x2 merge)
    images = transformers.Qwen2VLImageProcessor(patch_size=14, merge_size=2, temporal_patch_size=2, min_pixels=28 * 28, max_pixels=128 * 128)
    videos = transformers.Qwen2VLVideoProcessor(patch_size=14, merge_size=2, temporal_patch_size=2)
    transformers.Qwen2_5_VLProcessor(image_processor=images, tokenizer=tokenizer(), video_processor=videos, chat_template=TEMPLATE).save_pretrained(d)


# family -> (builder, class, image tokens of a 100x60 and a 50x130 screenshot). Images are resized
# to multiples of patch x merge: Qwen3-VL's 32 gives 96x64 (6 tokens) and 64x128 (8); Qwen2.5-VL's
# 28 gives 112x56 (8) and 56x140 (10).
VL_FAMILIES = {
    "qwen3-vl": (qwen3_vl, "Qwen3VLForConditionalGeneration", [6, 8]),
    "qwen2.5-vl": (qwen2_5_vl, "Qwen2_5_VLForConditionalGeneration", [8, 10]),
}


@pytest.fixture(scope="module", params=sorted(VL_FAMILIES))
def vl(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Dict:
    build, cls, counts = VL_FAMILIES[request.param]
    d = tmp_path_factory.mktemp(request.param)
    build(d)
    return {"dir": d, "class": cls, "counts": counts}


def image_prompt(n: int) -> List[int]:
    """A user turn holding one screenshot of n placeholder tokens, then the assistant's turn."""
    return ids("<|im_start|>", "user", "\n", "look", "at", "<|vision_start|>") + [VOCAB["<|image_pad|>"]] * n + ids("<|vision_end|>", "<|im_end|>", "\n", "<|im_start|>", "assistant", "\n")


def tolerance(device: str) -> float:
    return 1e-5 if device == "cpu" else 1e-4


def alone(model: torch.nn.Module, prompt: List[int], completion: List[int], device: str, temperature: float = 1.0, **extra: torch.Tensor) -> torch.Tensor:
    """The row's completion log-probs from the model's own forward, unpadded and by itself."""
    x = torch.tensor([prompt + completion], device=device)
    logits = model(input_ids=x, attention_mask=torch.ones_like(x), **extra).logits[0, len(prompt) - 1 : -1].float()
    lp = torch.log_softmax(logits / temperature, -1)
    return lp.gather(-1, torch.tensor(completion, device=device)[:, None]).squeeze(-1)


def serve_args(model: Path, state: Path, device: str, *extra: str) -> argparse.Namespace:
    return parse_args(["--model", str(model), "--state-dir", str(state), "--dtype", "float32", "--device", device, "--lora-rank", "4", "--lora-alpha", "8", "--lora-targets", "q_proj,v_proj", *extra])


PROMPT = ids("<|im_start|>", "user", "\n", "answer", "with", "the", "word", "kelp", "<|im_end|>", "\n", "<|im_start|>", "assistant", "\n")
GOOD, BAD = ids("kelp", "<|im_end|>"), ids("amber", "fjord", "<|im_end|>")


def version_folder(tmp_path: Path) -> Path:
    """A version folder as the store hands it to write_version."""
    folder = tmp_path / "v1"
    (folder / STATE_DIR).mkdir(parents=True)
    return folder


def group(model: ModelPolicy, device: str) -> List[Sample]:
    """Two on-policy samples of one prompt: the right answer with advantage +1, a wrong one -1."""
    lp = scores(model, device)
    return [
        Sample(f"t{k}", adv, 0, [Step(index=0, prompt_ids=PROMPT, completion_ids=c, logprobs=lp[k].tolist())])
        for k, (c, adv) in enumerate([(GOOD, 1.0), (BAD, -1.0)])
    ]


def scores(policy: ModelPolicy, device: str) -> List[torch.Tensor]:
    with torch.no_grad():
        return sequence_logprobs(policy.model, logprob_steps([(PROMPT, GOOD, []), (PROMPT, BAD, [])]), device)


def test_a_causal_lm_loads_by_folder_and_its_completion_logprobs_are_the_models_own(text_dir: Path, device: str) -> None:
    b = hf.load_hf(str(text_dir), device=device, dtype="float32", gradient_checkpointing=False)
    assert type(b.model.inner).__name__ == "Qwen3ForCausalLM"
    assert b.processor is None and b.model.image_id is None
    assert b.model.pad_id == VOCAB["<|endoftext|>"]
    rows = [(PROMPT, GOOD, []), (PROMPT[:5], BAD, []), (PROMPT + GOOD, ids("the", "page", "<|im_end|>"), [])]
    with torch.no_grad():
        got = sequence_logprobs(b.model, logprob_steps(rows, Sampler(temperature=0.7), "TEMPERATURE"), device)
        for g, (p, c, _) in zip(got, rows):
            want = alone(b.model.inner, p, c, device, temperature=0.7)
            assert g.dtype == torch.float32 and g.shape == (len(c),)
            assert (g - want).abs().max().item() <= tolerance(device), "rows padded into one batch score as each row alone"


def test_a_vision_language_model_counts_image_tokens_with_its_own_processor_and_scores_rows_with_screenshots(vl: Dict, device: str) -> None:
    b = hf.load_hf(str(vl["dir"]), device=device, dtype="float32", gradient_checkpointing=False)
    assert type(b.model.inner).__name__ == vl["class"]
    assert b.model.image_id == VOCAB["<|image_pad|>"] and b.processor is not None
    wide, tall = png(100, 60), png(50, 130, (20, 160, 90))
    counts = []
    for img in (wide, tall):
        t, h, w = (int(x) for x in b.processor.pixel_inputs([img])["image_grid_thw"][0])
        counts.append(t * h * w // 4)
        assert b.processor.image_tokens(img) == counts[-1]
    assert counts == vl["counts"]
    prompt = image_prompt

    rows = [(prompt(counts[0]), GOOD, [wide]), (prompt(counts[1]), BAD, [tall]), (PROMPT, GOOD, [])]
    with torch.no_grad():
        got = sequence_logprobs(b.model, logprob_steps(rows), device)
        for g, (p, c, im) in zip(got, rows):
            extra = {k: v.to(device) for k, v in b.processor.pixel_inputs(im).items()} if im else {}
            raw = b.model.processor  # the model's own processor marks the image positions where transformers asks for them
            if im and hasattr(raw, "create_mm_token_type_ids"):
                extra["mm_token_type_ids"] = torch.tensor(raw.create_mm_token_type_ids([p + c]), device=device)
            want = alone(b.model.inner, p, c, device, **extra)
            assert (g - want).abs().max().item() <= tolerance(device), "a screenshot row in a padded batch scores as it does alone"
        # the screenshot reaches the model: the same tokens with another image score differently
        other = sequence_logprobs(b.model, logprob_steps([(prompt(counts[0]), GOOD, [png(100, 60, (0, 0, 250))])]), device)[0]
        assert (other - got[0]).abs().max().item() > 1e-6
    short = prompt(counts[0] - 1)
    with pytest.raises(ValueError, match=rf"rows\[0\]: the prompt holds {counts[0] - 1} image tokens but its 1 images give {counts[0]}"):
        sequence_logprobs(b.model, logprob_steps([(short, GOOD, [wide])]), device)


def test_the_trainer_trains_a_lora_adapter_on_a_transformers_model_and_writes_it_as_peft_names_it(text_dir: Path, tmp_path: Path, device: str) -> None:
    policy = ModelPolicy(serve_args(text_dir, tmp_path / "state", device, "--lr", "0.01"), torch.device(device))
    assert policy.vocab_size == V
    base_good, base_bad = scores(policy, device)
    out = policy.train(group(policy, device), {}, 0)
    assert out.samples == 2 and out.actions == len(GOOD) + len(BAD)  # trained tokens
    good, bad = scores(policy, device)
    assert good.sum() > base_good.sum() and bad.sum() < base_bad.sum(), "the positive answer gains probability, the negative loses it"
    with torch.no_grad(), lora.lora_disabled(policy.model):
        off_good, _ = scores(policy, device)
    assert (off_good - base_good).abs().max().item() <= tolerance(device), "the reference (adapter off) is the base model"

    folder = version_folder(tmp_path)
    policy.write_version(folder)
    cfg = json.loads((folder / "adapter_config.json").read_text())
    assert cfg["peft_type"] == "LORA" and cfg["r"] == 4 and cfg["lora_alpha"] == 8 and cfg["target_modules"] == ["q_proj", "v_proj"]
    assert cfg["base_model_name_or_path"] == str(text_dir)
    tensors = safetensors_io.load_file(str(folder / "adapter_model.safetensors"))
    # PEFT's names for a transformers causal LM: base_model.model + the module's path in the model
    want = {f"base_model.model.model.layers.{i}.self_attn.{m}.lora_{ab}.weight" for i in range(2) for m in ("q_proj", "v_proj") for ab in "AB"}
    assert set(tensors) == want
    assert tensors["base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight"].shape == (4, 32)
    assert tensors["base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight"].shape == (2 * 8, 4)  # kv heads x head_dim

    restored = ModelPolicy(serve_args(text_dir, tmp_path / "state2", device), torch.device(device))
    restored.load_version(folder, 1)
    for a, b in zip(scores(restored, device), (good, bad)):
        assert (a - b).abs().max().item() <= tolerance(device), "a stored adapter reloads to the trained model"


def test_a_vision_language_adapter_trains_on_screenshots_and_wraps_only_the_language_model(vl: Dict, tmp_path: Path, device: str) -> None:
    policy = ModelPolicy(serve_args(vl["dir"], tmp_path / "state", device, "--lr", "0.01"), torch.device(device))
    assert policy.vocab_size == V, "the request checks bound token ids by the text model's vocabulary"
    wrapped = lora.lora_info(policy.model.inner)["modules"]
    assert wrapped and all(m.startswith("model.language_model.layers.") for m in wrapped), wrapped
    img = png(100, 60)
    prompt = image_prompt(vl["counts"][0])
    with torch.no_grad():
        before = sequence_logprobs(policy.model, logprob_steps([(prompt, GOOD, [img])]), device)[0]
    sample = Sample("t0", 1.0, 0, [Step(index=0, prompt_ids=prompt, completion_ids=GOOD, logprobs=before.tolist(), images=[img])])
    other = Sample("t1", -1.0, 0, [Step(index=0, prompt_ids=PROMPT, completion_ids=BAD, logprobs=scores(policy, device)[1].tolist())])
    policy.train([sample, other], {}, 0)
    with torch.no_grad():
        after = sequence_logprobs(policy.model, logprob_steps([(prompt, GOOD, [img])]), device)[0]
    assert after.sum() > before.sum()
    folder = version_folder(tmp_path)
    policy.write_version(folder)
    names = set(safetensors_io.load_file(str(folder / "adapter_model.safetensors")))
    assert "base_model.model.model.language_model.layers.0.self_attn.q_proj.lora_A.weight" in names


def test_a_half_precision_transformers_model_keeps_and_trains_its_adapter_in_fp32(text_dir: Path, tmp_path: Path, device: str) -> None:
    args = serve_args(text_dir, tmp_path / "state", device, "--lr", "1e-5")
    args.dtype = "bfloat16"
    policy = ModelPolicy(args, torch.device(device))
    assert next(policy.model.inner.parameters()).dtype == torch.bfloat16
    params = lora.lora_parameters(policy.model.inner)
    assert params and all(p.dtype == torch.float32 for p in params)
    a_before = [p.detach().clone() for p in params[0::2]]
    for _ in range(2):  # B starts at zero: A's gradient is zero until B has moved once
        policy.train(group(policy, device), {}, 0)
    moved = max((p.detach() - b).abs().max().item() for p, b in zip(params[0::2], a_before))
    assert moved > 1e-7, "steps of lr 1e-5 reach the adapter"


def test_full_weights_versions_are_transformers_checkpoints(text_dir: Path, tmp_path: Path, device: str) -> None:
    policy = ModelPolicy(serve_args(text_dir, tmp_path / "state", device, "--full-weights", "--lr", "0.001"), torch.device(device))
    policy.train(group(policy, device), {}, 0)
    trained = scores(policy, device)
    folder = version_folder(tmp_path)
    policy.write_version(folder)
    # what SGLang's update_weights_from_disk reads: a checkpoint folder transformers loads, tokenizer included
    reloaded = transformers.AutoModelForCausalLM.from_pretrained(str(folder)).to(device)
    assert transformers.AutoTokenizer.from_pretrained(str(folder)).pad_token_id == VOCAB["<|endoftext|>"]
    with torch.no_grad():
        for (p, c), t in zip([(PROMPT, GOOD), (PROMPT, BAD)], trained):
            assert (alone(reloaded, p, c, device) - t).abs().max().item() <= tolerance(device)
    restored = ModelPolicy(serve_args(text_dir, tmp_path / "state2", device, "--full-weights"), torch.device(device))
    restored.load_version(folder, 1)
    for a, b in zip(scores(restored, device), trained):
        assert (a - b).abs().max().item() <= tolerance(device)



def test_the_service_trains_a_vision_language_model_from_a_request_with_a_screenshot_and_refuses_what_it_cannot_reproduce(vl: Dict, tmp_path: Path) -> None:
    grpc = pytest.importorskip("grpc", reason="grpcio is not installed; the service needs it")
    from owrl_torch.proto.owrl.v1 import trainer_pb2
    from owrl_torch.store import verify_version
    from trainreq import Harness, ImageServer, header, sample, sha, token_step

    policy = ModelPolicy(serve_args(vl["dir"], tmp_path / "state", "cpu", "--lr", "0.01"), torch.device("cpu"))
    img = png(100, 60)
    n = vl["counts"][0]
    shot = image_prompt(n)
    with torch.no_grad():
        lp_shot, lp_text = sequence_logprobs(policy.model, logprob_steps([(shot, GOOD, [img]), (PROMPT, BAD, [])]), "cpu")
    srv = ImageServer({sha(img): img})
    service = Harness(tmp_path, policy)
    try:
        def train(prompt: List[int], completion: List[int] = GOOD, batch: str = "run-1/update-1") -> trainer_pb2.TrainResult:
            good = sample("t0", 1.0, [token_step(prompt, completion, lp_shot.tolist() if completion == GOOD else None, images=[img])])
            bad = sample("t1", -1.0, [token_step(PROMPT, BAD, lp_text.tolist())])
            group = trainer_pb2.TrainGroup(task_id="look", samples=[good, bad])
            return service.train(header(batch_id=batch, groups=1, samples=2, image_url=srv.url), [group], timeout=300)

        r = train(shot)
        assert (r.version, r.samples, r.samples_refused) == (1, 2, 0)
        assert r.artifact.kind == "lora-adapter" and r.artifact.sha256 == verify_version(tmp_path / "state" / "versions" / "v1")
        assert r.off_policy.parity_tokens == len(GOOD) + len(BAD) and r.off_policy.logprob_gap_max_abs <= 1e-5
        assert srv.requests == [f"/shots/{sha(img)}"], "the screenshot is fetched by its sha256"

        with pytest.raises(grpc.RpcError) as e:
            train(image_prompt(n - 1), batch="run-1/update-2")
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert f"placeholder runs of [{n - 1}] tokens for 1 images; the processor makes [{n}]" in e.value.details()
        with pytest.raises(grpc.RpcError) as e:
            train(shot, ids("kelp") + [V + 3], batch="run-1/update-2")
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert f"token_ids[1] is {V + 3}, outside the model's vocabulary of {V}" in e.value.details()
    finally:
        service.close()
        srv.close()
