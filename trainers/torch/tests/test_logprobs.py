import math

import pytest
import torch

from owrl_torch import tiny
from owrl_torch.logprobs import Sampler, apply_penalties, normalize_mode, process_logprobs, sample_completion, sequence_logprobs

LOGITS = torch.tensor([[2.0, 1.0, 0.0, -1.0, -3.0]])


def probs(lp):
    return lp.exp()[0].tolist()


def test_modes_and_names():
    assert normalize_mode("raw_logprobs") == "RAW"
    assert normalize_mode("processed_logprobs") == "PROCESSED"
    assert normalize_mode(2) == "TEMPERATURE"
    assert normalize_mode("LOGPROB_MODE_PROCESSED") == "PROCESSED"
    with pytest.raises(ValueError, match="unknown"):
        normalize_mode("processed_logits")
    with pytest.raises(ValueError, match="greedy"):
        process_logprobs(LOGITS, Sampler(temperature=0.0), "TEMPERATURE")


def test_raw_and_temperature():
    s = Sampler(temperature=0.5, top_k=2)
    assert torch.allclose(process_logprobs(LOGITS, s, "RAW"), torch.log_softmax(LOGITS, -1))
    assert torch.allclose(process_logprobs(LOGITS, s, "TEMPERATURE"), torch.log_softmax(LOGITS / 0.5, -1))
    # RAW ignores the sampler entirely, even a greedy one
    assert torch.allclose(process_logprobs(LOGITS, Sampler(temperature=0.0), "RAW"), torch.log_softmax(LOGITS, -1))


def test_processed_top_k():
    lp = process_logprobs(LOGITS, Sampler(top_k=2), "PROCESSED")
    e = [math.exp(2), math.exp(1)]
    want = [e[0] / sum(e), e[1] / sum(e), 0, 0, 0]
    assert probs(lp) == pytest.approx(want, abs=1e-6)
    assert lp[0, 2].item() == float("-inf")


def test_processed_top_p_keeps_the_smallest_set_reaching_p():
    p = torch.softmax(LOGITS, -1)[0].tolist()  # ≈ .64 .24 .087 .032 .004
    lp = process_logprobs(LOGITS, Sampler(top_p=0.8), "PROCESSED")
    kept = p[0] + p[1]
    assert probs(lp) == pytest.approx([p[0] / kept, p[1] / kept, 0, 0, 0], abs=1e-6)
    # top_p below the top probability keeps only the top token
    assert probs(process_logprobs(LOGITS, Sampler(top_p=0.1), "PROCESSED")) == pytest.approx([1, 0, 0, 0, 0], abs=1e-6)


def test_processed_min_p_and_order_with_temperature():
    # min_p 0.1 of the top prob: p = .64 -> threshold .064 drops the last two
    p = torch.softmax(LOGITS, -1)[0].tolist()
    lp = process_logprobs(LOGITS, Sampler(min_p=0.1), "PROCESSED")
    kept = sum(p[:3])
    assert probs(lp) == pytest.approx([p[0] / kept, p[1] / kept, p[2] / kept, 0, 0], abs=1e-6)
    # temperature first: at T=2 the distribution is flatter and min_p 0.1 keeps four
    lp2 = process_logprobs(LOGITS, Sampler(temperature=2.0, min_p=0.1), "PROCESSED")
    assert sum(1 for x in probs(lp2) if x > 0) == 4


def test_processed_equals_temperature_when_filters_are_off():
    s = Sampler(temperature=0.7, top_p=1.0, top_k=-1, min_p=0.0)
    assert torch.allclose(process_logprobs(LOGITS, s, "PROCESSED"), process_logprobs(LOGITS, s, "TEMPERATURE"))
    assert not torch.allclose(process_logprobs(LOGITS, s, "RAW"), process_logprobs(LOGITS, s, "TEMPERATURE"))


def test_sampler_from_proto_like_objects():
    class P:
        temperature, top_p, top_k, min_p = 0.7, 0.8, 20, 0.0
        repetition_penalty, presence_penalty, frequency_penalty = 0.0, 0.0, 0.0

    s = Sampler.of(P())
    assert (s.temperature, s.top_p, s.top_k, s.repetition_penalty) == (0.7, 0.8, 20, 1.0)
    assert not s.has_penalties()
    assert Sampler.of({"temperature": 0.5}).top_k == -1


def test_penalties():
    logits = torch.tensor([[1.0, -1.0, 0.5], [1.0, -1.0, 0.5]])
    s = Sampler(repetition_penalty=2.0, frequency_penalty=0.1, presence_penalty=0.2)
    out = apply_penalties(logits, prompt_ids=[1], completion_ids=[0, 2], sampler=s)
    # position 0: only the prompt token 1 is seen: -1 * 2
    assert out[0].tolist() == pytest.approx([1.0, -2.0, 0.5])
    # position 1: token 0 was generated once: 1/2 - 0.1 - 0.2
    assert out[1].tolist() == pytest.approx([0.5 - 0.3, -2.0, 0.5])


def steps_for(bundle, prompt, comps, sampler, mode):
    return [{"prompt_ids": prompt, "completion_ids": c, "sampler": sampler, "logprob_mode": mode, "images": []} for c in comps]


def test_sequence_logprobs_match_one_by_one_and_batching(tiny_bundle):
    m, tok = tiny_bundle.model, tiny_bundle.tokenizer
    prompt = tok.encode(tiny.render_chat([{"role": "user", "content": "Task: Answer with the single word dune and nothing else."}]))
    comps = [tok.encode(tiny.answer_text(w)) + [tok.eos_id] for w in ("dune", "kelp")] + [tok.encode("hello")]
    s = Sampler(temperature=0.7, top_p=0.8, top_k=20)
    with torch.no_grad():
        for mode in ("RAW", "TEMPERATURE", "PROCESSED"):
            got = sequence_logprobs(m, steps_for(tiny_bundle, prompt, comps, s, mode))
            one = sequence_logprobs(m, steps_for(tiny_bundle, prompt, comps, s, mode), max_batch_tokens=1)
            for g, o, c in zip(got, one, comps):
                assert g.shape == (len(c),)
                assert torch.allclose(g, o, atol=1e-5)
            # by hand, for the first
            full = m(torch.tensor([prompt + comps[0]]))[0]
            lp = process_logprobs(full[len(prompt) - 1 : -1], s, mode)
            want = lp.gather(-1, torch.tensor(comps[0])[:, None]).squeeze(-1)
            assert torch.allclose(got[0], want, atol=1e-5)
    # "hello" after the assistant header is outside the top-k/top-p set somewhere: -inf processed
    assert math.isinf(float(got[2].min()))


def test_sampled_logprobs_are_what_the_trainer_recomputes(tiny_bundle):
    m, tok = tiny_bundle.model, tiny_bundle.tokenizer
    prompt = tok.encode(tiny.render_chat([{"role": "user", "content": "Task: Answer with the single word ember and nothing else."}]))
    s = Sampler(temperature=0.7, top_p=0.8, top_k=20)
    g = torch.Generator().manual_seed(0)
    for mode in ("PROCESSED", "RAW"):
        ids, lps, finish = sample_completion(m, prompt, s, mode, max_new_tokens=40, generator=g, stop_ids=[tok.eos_id])
        assert finish == "stop"
        assert tok.decode(ids).startswith('<tool_call>\n{"name": "done", "arguments": {"response": "')
        with torch.no_grad():
            again = sequence_logprobs(m, steps_for(tiny_bundle, prompt, [ids], s, mode))[0]
        assert (again - torch.tensor(lps)).abs().max().item() <= 1e-4
        # the other mode is a different distribution: the gap is far above 1e-4
        other = "RAW" if mode == "PROCESSED" else "PROCESSED"
        with torch.no_grad():
            wrong = sequence_logprobs(m, steps_for(tiny_bundle, prompt, [ids], s, other))[0]
        assert (wrong - torch.tensor(lps)).abs().max().item() > 1e-2


def test_sampled_logprobs_under_penalties_are_what_the_trainer_recomputes(tiny_bundle):
    """sample_completion penalises the next position, sequence_logprobs every position of a
    completion: both must apply vLLM's penalties the same way."""
    m, tok = tiny_bundle.model, tiny_bundle.tokenizer
    prompt = tok.encode(tiny.render_chat([{"role": "user", "content": "Task: Answer with the single word ember and nothing else."}]))
    plain = Sampler(temperature=0.7, top_p=0.8, top_k=20)
    s = Sampler(temperature=0.7, top_p=0.8, top_k=20, repetition_penalty=1.3, presence_penalty=0.2, frequency_penalty=0.1)
    ids, lps, _ = sample_completion(m, prompt, s, "PROCESSED", max_new_tokens=40, generator=torch.Generator().manual_seed(0), stop_ids=[tok.eos_id])
    assert len(ids) > 1 and len(set(ids)) < len(ids), "a completion repeating a token, so the output counts matter"
    with torch.no_grad():
        again = sequence_logprobs(m, steps_for(tiny_bundle, prompt, [ids], s, "PROCESSED"))[0]
        unpenalised = sequence_logprobs(m, steps_for(tiny_bundle, prompt, [ids], plain, "PROCESSED"))[0]
    assert (again - torch.tensor(lps)).abs().max().item() <= 1e-4
    assert (unpenalised - torch.tensor(lps)).abs().max().item() > 1e-2


def test_image_steps_need_matching_counts(tiny_bundle):
    from trainreq import png

    m, tok, proc = tiny_bundle.model, tiny_bundle.tokenizer, tiny_bundle.processor
    img = png(64, 64)
    n = proc.image_tokens(img)
    prompt = tok.encode("see <|vision_start|>") + [tok.image_id] * n + tok.encode("<|vision_end|><|im_end|>\n<|im_start|>assistant\n")
    step = {"prompt_ids": prompt, "completion_ids": tok.encode("<tool_call>"), "sampler": Sampler(), "logprob_mode": "RAW", "images": [img]}
    with torch.no_grad():
        lp = sequence_logprobs(m, [step], processor=proc)[0]
    assert lp.shape == (1,)
    bad = dict(step, prompt_ids=prompt[: len(prompt) - 20] + prompt[-19:])  # one image token short
    with pytest.raises(ValueError, match=r"steps\[0\]: the prompt holds 15 image tokens but its 1 images give 16"):
        sequence_logprobs(m, [bad], processor=proc)
