"""owrl's side of the Hugging Face path (hf.HFPolicy, hf.HFImageCounter) on modules shaped like
transformers' (a backbone under `.model` answering `last_hidden_state`, the head from
`get_output_embeddings()`, an image processor answering `image_grid_thw`): right padding, the
completion slice, the fp32 head and the image token count are owrl's code and are checked here
without transformers; test_hf_transformers.py checks them against transformers itself where it is
installed."""

from types import SimpleNamespace

import pytest
import torch
import torch.nn as nn

from owrl_torch import tiny
from owrl_torch.hf import HFImageCounter, HFPolicy
from owrl_torch.logprobs import Sampler, sequence_logprobs
from trainreq import logprob_steps


class _Backbone(nn.Module):
    def __init__(self, lm: tiny.TinyCausalLM) -> None:
        super().__init__()
        self.lm = lm
        self.calls = []

    def forward(self, input_ids, attention_mask=None, use_cache=None, return_dict=None, **extra):
        self.calls.append({"use_cache": use_cache, "return_dict": return_dict, "extra": sorted(extra)})
        feats = None
        if "pixel_values" in extra:  # the vision tower's output, one row per image token
            slots = int((input_ids == self.lm.image_id).sum())
            feats = [torch.zeros(slots, self.lm.config.image_feature_dim)]
        return SimpleNamespace(last_hidden_state=self.lm.hidden_states(input_ids, attention_mask, feats).to(torch.bfloat16))


class _HFShaped(nn.Module):
    """A causal LM laid out as transformers lays one out, computing in bf16 like a served model."""

    def __init__(self, lm: tiny.TinyCausalLM, image_token_id=None) -> None:
        super().__init__()
        self.model = _Backbone(lm)
        self.lm_head = nn.Linear(lm.lm_head.in_features, lm.lm_head.out_features, bias=False, dtype=torch.bfloat16)
        with torch.no_grad():
            self.lm_head.weight.copy_(lm.lm_head.weight)
        self.config = SimpleNamespace(image_token_id=image_token_id)

    def get_output_embeddings(self):
        return self.lm_head


class _ImageProcessor:
    merge_size = 2

    def __call__(self, images, return_tensors=None):
        grids = [[1, 2 * ((im.height + 27) // 28), 2 * ((im.width + 27) // 28)] for im in images]
        n = sum(t * h * w for t, h, w in grids)
        return {"pixel_values": torch.zeros(n, 4), "image_grid_thw": torch.tensor(grids)}


def _steps(prompt, comps, sampler, mode, images=()):
    return logprob_steps([(prompt, c, images) for c in comps], sampler, mode)


def test_completion_logprobs_take_the_rows_completion_slice_with_an_fp32_head(tiny_bundle):
    lm, tok = tiny_bundle.model, tiny_bundle.tokenizer
    policy = HFPolicy(_HFShaped(lm), None, SimpleNamespace(pad_token_id=tok.pad_id), "tiny-as-hf")
    prompt = tok.encode(tiny.render_chat([{"role": "user", "content": "Task: Answer with the single word fjord and nothing else."}]))
    comps = [tok.encode(tiny.answer_text(w)) + [tok.eos_id] for w in ("fjord", "amber")] + [tok.encode(" ok")]
    s = Sampler(temperature=0.7)
    with torch.no_grad():
        got = sequence_logprobs(policy, _steps(prompt, comps, s, "TEMPERATURE"))
        for g, c in zip(got, comps):
            full = lm.hidden_states(torch.tensor([prompt + c])).to(torch.bfloat16)[0, len(prompt) - 1 : -1]
            want = torch.log_softmax(nn.functional.linear(full.float(), policy.inner.lm_head.weight.float()) / 0.7, -1)
            want = want.gather(-1, torch.tensor(c)[:, None]).squeeze(-1)
            assert g.dtype == torch.float32 and g.shape == (len(c),)
            assert (g - want).abs().max().item() <= 1e-5, "each row is read at its own completion, padding aside"
    assert policy.inner.model.calls[0]["use_cache"] is False and policy.inner.model.calls[0]["return_dict"] is True
    # a row read one token off (the classic off-by-one of the completion slice) is far from it
    with torch.no_grad():
        shifted = lm.hidden_states(torch.tensor([prompt + comps[0]]))[0, len(prompt) : len(prompt) + len(comps[0])]
        off = torch.log_softmax(nn.functional.linear(shifted.to(torch.bfloat16).float(), policy.inner.lm_head.weight.float()) / 0.7, -1)
        off = off.gather(-1, torch.tensor(comps[0])[:, None]).squeeze(-1)
    assert (got[0] - off).abs().max().item() > 1e-2


def test_image_tokens_are_counted_from_the_processors_grid_and_a_mismatch_is_refused(tiny_bundle):
    from trainreq import png

    lm, tok = tiny_bundle.model, tiny_bundle.tokenizer
    counter = HFImageCounter(SimpleNamespace(image_processor=_ImageProcessor()))
    img = png(60, 30)  # 60 wide, 30 high: grid 1 x 4 x 6, merged 2x2 -> 6 tokens
    assert counter.image_tokens(img) == 6
    with pytest.raises(ValueError, match="not a readable PNG/JPEG"):
        counter.image_tokens(b"not an image")
    policy = HFPolicy(_HFShaped(lm, image_token_id=tok.image_id), SimpleNamespace(image_processor=_ImageProcessor()), SimpleNamespace(pad_token_id=tok.pad_id), "tiny-as-hf")
    prompt = tok.encode("look <|vision_start|>") + [tok.image_id] * 6 + tok.encode("<|vision_end|><|im_end|>\n<|im_start|>assistant\n")
    with torch.no_grad():
        lp = sequence_logprobs(policy, _steps(prompt, [tok.encode("<tool_call>")], Sampler(), "RAW", [img]))[0]
    assert lp.shape == (1,)
    assert policy.inner.model.calls[-1]["extra"] == ["image_grid_thw", "pixel_values"], "the processor's tensors reach the model"
    short = prompt[:6] + prompt[7:]
    with pytest.raises(ValueError, match=r"the prompt holds 5 image tokens but its 1 images give 6"):
        sequence_logprobs(policy, _steps(short, [tok.encode("<tool_call>")], Sampler(), "RAW", [img]))
