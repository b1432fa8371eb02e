import json
import os

import pytest
import torch

from owrl_torch import lora, safetensors_io
from owrl_torch.tiny import load_tiny

TARGETS = ["q_proj", "v_proj"]


def ids(bundle):
    return torch.tensor([bundle.tokenizer.encode("Task: Answer with the single word kelp<|im_end|>\n<|im_start|>assistant\n")])


def perturb(model, seed=1):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in lora.lora_parameters(model):
            p.add_(torch.randn(p.shape, generator=g) * 0.1)


def test_apply_wraps_targets_and_starts_at_the_base(tiny_dir):
    b = load_tiny(tiny_dir)
    x = ids(b)
    with torch.no_grad():
        base = b.model(x)
    names = lora.apply_lora(b.model, rank=4, alpha=8, target_modules=TARGETS, seed=0)
    assert names == [f"model.layers.{i}.self_attn.{t}" for i in range(2) for t in TARGETS]
    trainable = [p for p in b.model.parameters() if p.requires_grad]
    assert len(trainable) == 8 and all(any(p is q for q in lora.lora_parameters(b.model)) for p in trainable)
    with torch.no_grad():
        assert torch.equal(b.model(x), base)  # B = 0
    a0 = lora.lora_parameters(b.model)[0].clone()
    b2 = load_tiny(tiny_dir)
    lora.apply_lora(b2.model, rank=4, alpha=8, target_modules=TARGETS, seed=0)
    assert torch.equal(lora.lora_parameters(b2.model)[0], a0)  # same seed, same A
    with pytest.raises(ValueError, match="already has LoRA"):
        lora.apply_lora(b.model, 4, 8, TARGETS)


def test_bad_targets_are_named(tiny_dir):
    b = load_tiny(tiny_dir)
    with pytest.raises(ValueError, match=r"target module 'w_proj' matches no Linear"):
        lora.apply_lora(b.model, 4, 8, ["q_proj", "w_proj"])
    with pytest.raises(ValueError, match="Linear names are"):
        lora.apply_lora(b.model, 4, 8, ["nothing"])


def test_peft_layout(tiny_dir, tmp_path):
    b = load_tiny(tiny_dir)
    lora.apply_lora(b.model, rank=4, alpha=8, target_modules=TARGETS)
    perturb(b.model)
    files = lora.save_adapter(b.model, str(tmp_path), base_model="owrl/tiny-chat", rank=4, alpha=8, target_modules=TARGETS)
    assert sorted(files) == ["adapter_config.json", "adapter_model.safetensors"]
    cfg = json.load(open(tmp_path / "adapter_config.json"))
    assert cfg["peft_type"] == "LORA" and cfg["task_type"] == "CAUSAL_LM"
    assert cfg["r"] == 4 and cfg["lora_alpha"] == 8 and cfg["target_modules"] == ["q_proj", "v_proj"]
    assert cfg["base_model_name_or_path"] == "owrl/tiny-chat"
    assert cfg["bias"] == "none" and cfg["fan_in_fan_out"] is False and cfg["lora_dropout"] == 0
    assert cfg["use_rslora"] is False and cfg["modules_to_save"] is None
    t = safetensors_io.load_file(str(tmp_path / "adapter_model.safetensors"))
    assert sorted(t) == sorted(
        f"base_model.model.model.layers.{i}.self_attn.{m}.lora_{ab}.weight" for i in range(2) for m in TARGETS for ab in "AB"
    )
    assert tuple(t["base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight"].shape) == (4, 64)
    assert tuple(t["base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight"].shape) == (64, 4)


def test_save_load_gives_identical_logits(tiny_dir, tmp_path):
    b = load_tiny(tiny_dir)
    lora.apply_lora(b.model, rank=4, alpha=8, target_modules=TARGETS)
    perturb(b.model)
    x = ids(b)
    with torch.no_grad():
        trained = b.model(x)
        with lora.lora_disabled(b.model):
            base = b.model(x)
    assert (trained - base).abs().max() > 1e-3
    lora.save_adapter(b.model, str(tmp_path), "owrl/tiny-chat", 4, 8, TARGETS)
    # into a plain model: the adapter is applied from its config
    fresh = load_tiny(tiny_dir)
    lora.load_adapter(fresh.model, str(tmp_path))
    with torch.no_grad():
        assert torch.equal(fresh.model(x), trained)
    # into an applied model with the same shape
    again = load_tiny(tiny_dir)
    lora.apply_lora(again.model, 4, 8, TARGETS, seed=5)
    lora.load_adapter(again.model, str(tmp_path))
    with torch.no_grad():
        assert torch.equal(again.model(x), trained)
    # merged full weights give the same model without any adapter
    merged = load_tiny(tiny_dir)
    merged.model.load_state_dict(lora.merged_state_dict(b.model))
    with torch.no_grad():
        assert torch.allclose(merged.model(x), trained, atol=1e-5)


def test_load_refuses_a_mismatch_naming_the_field(tiny_dir, tmp_path):
    b = load_tiny(tiny_dir)
    lora.apply_lora(b.model, 4, 8, TARGETS)
    lora.save_adapter(b.model, str(tmp_path), "owrl/tiny-chat", 4, 8, TARGETS)
    other = load_tiny(tiny_dir)
    lora.apply_lora(other.model, 8, 8, TARGETS)
    with pytest.raises(ValueError, match="r is 4, the model's adapter has rank 8"):
        lora.load_adapter(other.model, str(tmp_path))
    other = load_tiny(tiny_dir)
    lora.apply_lora(other.model, 4, 16, TARGETS)
    with pytest.raises(ValueError, match="lora_alpha"):
        lora.load_adapter(other.model, str(tmp_path))
    other = load_tiny(tiny_dir)
    lora.apply_lora(other.model, 4, 8, ["q_proj"])
    with pytest.raises(ValueError, match="target_modules"):
        lora.load_adapter(other.model, str(tmp_path))
    cfg = json.load(open(tmp_path / "adapter_config.json"))
    cfg["peft_type"] = "IA3"
    json.dump(cfg, open(tmp_path / "adapter_config.json", "w"))
    with pytest.raises(ValueError, match="peft_type is 'IA3'"):
        lora.load_adapter(load_tiny(tiny_dir).model, str(tmp_path))
    os.remove(tmp_path / "adapter_model.safetensors")
    with pytest.raises(FileNotFoundError, match="adapter_model.safetensors"):
        lora.read_adapter(str(tmp_path))


def test_hf_path_says_what_is_missing():
    import importlib.util

    from owrl_torch import hf

    if importlib.util.find_spec("transformers") is not None:
        pytest.skip("transformers is installed")
    with pytest.raises(RuntimeError, match="needs the Python package 'transformers'"):
        hf.load_hf("Qwen/Qwen3-VL-4B-Instruct")


def test_kl_reference_uses_the_base_model(tiny_dir):
    b = load_tiny(tiny_dir)
    lora.apply_lora(b.model, 4, 8, TARGETS)
    perturb(b.model)
    x = ids(b)
    with torch.no_grad():
        with lora.lora_disabled(b.model):
            base = b.model(x)
        assert lora.lora_delta_norm(b.model) > 0
        assert (b.model(x) - base).abs().max() > 1e-3
    assert torch.equal(base, load_tiny(tiny_dir).model(x).detach())


def test_hf_models_load_with_the_dtype_keyword_their_transformers_takes():
    from owrl_torch.hf import dtype_kwarg

    assert dtype_kwarg("4.57.1", torch.bfloat16) == {"dtype": torch.bfloat16}
    assert dtype_kwarg("5.17.0", torch.bfloat16) == {"dtype": torch.bfloat16}
    assert dtype_kwarg("4.56.0.dev0", torch.float16) == {"dtype": torch.float16}
    assert dtype_kwarg("4.55.4", torch.float16) == {"torch_dtype": torch.float16}


def test_a_half_precision_model_trains_its_adapter_in_fp32():
    # Adam's first steps move each weight by about lr; at lr 1e-5 that is below bf16's resolution
    # for the adapter's A (~0.1), so an adapter kept in bf16 would not move at all.
    torch.manual_seed(0)
    model = torch.nn.Sequential()
    model.add_module("q_proj", torch.nn.Linear(16, 16, bias=False, dtype=torch.bfloat16))
    lora.apply_lora(model, 4, 8, ["q_proj"])
    wrapped = model.q_proj
    assert wrapped.lora_A.weight.dtype == torch.float32 and wrapped.lora_B.weight.dtype == torch.float32
    assert wrapped.base_layer.weight.dtype == torch.bfloat16
    x = torch.randn(8, 16, dtype=torch.bfloat16)
    assert model(x).dtype == torch.bfloat16
    opt = torch.optim.Adam(lora.lora_parameters(model), lr=1e-5)
    before = wrapped.lora_A.weight.detach().clone()
    for _ in range(2):  # B starts at zero, so A's gradient is zero until B has moved once
        opt.zero_grad()
        model(x).float().pow(2).sum().backward()
        opt.step()
    assert (wrapped.lora_A.weight.detach() - before).abs().max() > 1e-6
