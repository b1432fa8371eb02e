import math

import pytest
import torch

from owrl_torch import lora, tiny
from owrl_torch.logprobs import Sampler, sample_completion, sequence_logprobs
from owrl_torch.update import Hyper, Sample, Step, Updater

QWEN = Sampler(temperature=0.7, top_p=0.8, top_k=20)
TARGETS = ["q_proj", "v_proj", "o_proj"]


def prompt_messages(word):
    return [
        {"role": "system", "content": "You are a web agent."},
        {"role": "user", "content": f"Task: Answer with the single word {word} and nothing else.\n\nURL: http://127.0.0.1/shop"},
    ]


_SAMPLED = {}


def sampled(bundle, word, seed, n, device="cpu"):
    """n completions sampled from the base model (PROCESSED), once per module: every test starts
    from the base model (a fresh adapter is the base exactly), so they can share them."""
    key = (bundle.directory, word, seed, device)
    have = _SAMPLED.get(key, [])
    if len(have) < n:
        tok = bundle.tokenizer
        prompt = tok.encode(tiny.render_chat(prompt_messages(word)))
        g = torch.Generator().manual_seed(seed)
        have = []
        for _ in range(n):
            ids, lps, _ = sample_completion(bundle.model, prompt, QWEN, "PROCESSED", max_new_tokens=40, generator=g, stop_ids=[tok.eos_id], device=device)
            have.append((ids, lps))
        _SAMPLED[key] = have
    return have[:n]


def sampled_batch(bundle, n=6, mode="PROCESSED", seed=1, word="amber", version=0, report_template=None, device="cpu"):
    """Completions sampled from the model itself, as the engine double samples them, with the
    log-probs an engine in `mode` reports and the prompt ids rendered with `report_template`."""
    tok = bundle.tokenizer
    prompt = tok.encode(tiny.render_chat(prompt_messages(word)))
    reported = tok.encode(tiny.render_chat(prompt_messages(word), template=report_template)) if report_template else prompt
    out = []
    bundle.model.to(device)
    for k, (ids, lps) in enumerate(sampled(bundle, word, seed, n, device)):
        if mode != "PROCESSED":
            with torch.no_grad():
                step = {"prompt_ids": prompt, "completion_ids": ids, "sampler": QWEN, "logprob_mode": mode, "images": []}
                lps = sequence_logprobs(bundle.model, [step], device)[0].tolist()
        text = tok.decode(ids)
        reward = 1.0 if f'"response": "{word}"' in text else 0.0
        st = Step(index=0, prompt_ids=list(reported), completion_ids=list(ids), logprobs=list(lps), sampler=QWEN, logprob_mode=mode)
        out.append(Sample(trajectory_id=f"t{k}", advantage=reward, policy_version=version, steps=[st]))
    rewards = [s.advantage for s in out]
    mean = sum(rewards) / len(rewards)
    sd = math.sqrt(sum((r - mean) ** 2 for r in rewards) / len(rewards)) or 1.0
    for s in out:
        s.advantage = (s.advantage - mean) / sd
    return out


def with_lora(bundle, lr=1e-3, device="cpu"):
    bundle.model.to(device)
    lora.apply_lora(bundle.model, rank=8, alpha=16, target_modules=TARGETS, seed=0)
    return Updater(bundle.model, bundle.processor, lora.lora_parameters(bundle.model), device, lr=lr)


def test_parity_with_self_sampled_logprobs(tiny_bundle, device):
    up = with_lora(tiny_bundle, device=device)
    batch = sampled_batch(tiny_bundle, n=4, device=device)
    out = up.train(batch, Hyper(ppo_epochs=1), base_version=0)
    op = out.off_policy
    assert op["parity_tokens"] == sum(len(s.steps[0].completion_ids) for s in batch) > 0
    assert op["logprob_gap_max_abs"] <= 1e-4, op
    assert op["ess"] == pytest.approx(1.0, abs=1e-6)
    assert op["truncated_tokens"] == 0 and op["correction"] == "tis"
    assert out.epochs[0]["mean_ratio"] == pytest.approx(1.0, abs=1e-5)
    assert out.epochs[0]["approx_kl"] == pytest.approx(0.0, abs=1e-8)
    assert out.actions == op["parity_tokens"]


def test_parity_check_fails_on_a_sampling_or_template_mismatch(tiny_bundle, device):
    up = with_lora(tiny_bundle, device=device)
    # engine sampled at 0.7 but the trace claims 1.0: the trainer computes another distribution
    batch = sampled_batch(tiny_bundle, n=3, device=device)
    for s in batch:
        s.steps[0].sampler = Sampler(temperature=1.0, top_p=0.8, top_k=20)
    assert up.train(batch, Hyper(ppo_epochs=1, learning_rate=0.0), base_version=0).off_policy["logprob_gap_max_abs"] > 1e-2
    # engine reported RAW log-probs but the trace says PROCESSED
    batch = sampled_batch(tiny_bundle, n=3, mode="RAW", device=device)
    for s in batch:
        s.steps[0].logprob_mode = "PROCESSED"
    assert up.train(batch, Hyper(ppo_epochs=1, learning_rate=0.0), base_version=0).off_policy["logprob_gap_max_abs"] > 1e-2
    # the prompt the trace reports was rendered with another chat template than the one served
    batch = sampled_batch(tiny_bundle, n=3, report_template="alt", device=device)
    assert up.train(batch, Hyper(ppo_epochs=1, learning_rate=0.0), base_version=0).off_policy["logprob_gap_max_abs"] > 1e-2
    # samples from an older version are not parity tokens
    old = sampled_batch(tiny_bundle, n=2, version=3, device=device)
    assert up.train(old, Hyper(ppo_epochs=1, learning_rate=0.0), base_version=4).off_policy["parity_tokens"] == 0


def rewarded_probability(bundle, batch, device="cpu"):
    pos = [s.steps[0] for s in batch if s.advantage > 0]
    with torch.no_grad():
        lps = sequence_logprobs(bundle.model, pos, device)
    return sum(float(lp.sum().exp()) for lp in lps) / len(pos)


def learn(bundle, lr, device, updates=3):
    up = with_lora(bundle, lr=lr, device=device)
    batch = sampled_batch(bundle, n=8, device=device)
    assert any(s.advantage > 0 for s in batch) and any(s.advantage < 0 for s in batch)
    before = rewarded_probability(bundle, batch, device)
    gains = []
    for v in range(updates):
        out = up.train(batch, Hyper(ppo_epochs=2, minibatches=2), base_version=v)
        gains.append(out.off_policy["positive_logprob_gain"])
    return before, rewarded_probability(bundle, batch, device), gains


def test_learning_raises_the_rewarded_completions(tiny_bundle, device):
    before, after, gains = learn(tiny_bundle, lr=1e-3, device=device)
    assert after > before * 1.2, (before, after)
    assert all(g > 0 for g in gains), gains


def test_learning_rate_zero_learns_nothing(tiny_dir, device):
    bundle = tiny.load_tiny(tiny_dir)
    before, after, gains = learn(bundle, lr=0.0, device=device)
    # the check of the test above fails
    assert not (after > before * 1.2)
    assert after == pytest.approx(before, rel=1e-6) and all(abs(g) < 1e-6 for g in gains)


def test_optimizer_state_round_trips(tiny_bundle, tiny_dir):
    up = with_lora(tiny_bundle, lr=1e-3)
    batch = sampled_batch(tiny_bundle, n=2)
    up.train(batch, Hyper(ppo_epochs=1), base_version=0)
    state = up.optimizer_state()
    other = tiny.load_tiny(tiny_dir)
    up2 = with_lora(other, lr=1e-3)
    lora.load_lora_tensors(other.model, lora.lora_state_dict(tiny_bundle.model))
    up2.load_optimizer_state(state)
    up.train(batch, Hyper(ppo_epochs=1), base_version=1)
    up2.train(batch, Hyper(ppo_epochs=1), base_version=1)
    a, b = lora.lora_state_dict(tiny_bundle.model), lora.lora_state_dict(other.model)
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)


def test_bad_batches_are_named(tiny_bundle):
    up = with_lora(tiny_bundle)
    st = Step(index=0, prompt_ids=[1, 2], completion_ids=[3, 4], logprobs=[-0.1])
    with pytest.raises(ValueError, match=r"samples\[0\]\.steps\[0\]: 1 logprobs for 2 completion tokens"):
        up.train([Sample("t", 1.0, 0, [st])], Hyper(), base_version=0)
    st = Step(index=0, prompt_ids=[1, 2], completion_ids=[3], logprobs=[0.5])
    with pytest.raises(ValueError, match=r"logprobs\[0\] = 0.5 is not a log-probability"):
        up.train([Sample("t", 1.0, 0, [st])], Hyper(), base_version=0)
    with pytest.raises(ValueError, match="loss_agg 'sum' is unknown"):
        up.train([Sample("t", 1.0, 0, [])], Hyper(loss_agg="sum"), base_version=0)
