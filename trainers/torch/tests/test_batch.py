"""A Train stream to the updater's samples: framing, field-named refusals, images, rebuilt sequences."""

from __future__ import annotations

import math
from typing import List

import pytest

from owrl_torch.batch import InvalidRequest, SamplerView, build_batch, check_placeholders, read_stream, validate
from owrl_torch.proto.owrl.v1 import trainer_pb2, trajectory_pb2
from trainreq import ImageServer, chunks, header, png, sample, sha, token_step

PROMPT = [5, 6, 7, 8]


def groups_ok() -> List[trainer_pb2.TrainGroup]:
    return [
        trainer_pb2.TrainGroup(task_id="t0", samples=[sample("a", 1.0, [token_step(PROMPT, [9, 10])]), sample("b", -1.0, [token_step(PROMPT, [11])])]),
        trainer_pb2.TrainGroup(task_id="t1", samples=[sample("c", 0.5, [token_step(PROMPT, [12, 13, 14], loss_mask=[1, 0, 1]), token_step(PROMPT + [12], [15], index=1)])]),
    ]


def refused(match: str, h: trainer_pb2.TrainHeader, groups: List[trainer_pb2.TrainGroup], **kw: object) -> None:
    with pytest.raises(InvalidRequest, match=match):
        validate(h, groups, **kw)  # type: ignore[arg-type]


def test_stream_framing() -> None:
    h = header()
    g = groups_ok()
    got_h, got_g = read_stream(chunks(h, g))
    assert got_h == h and list(got_g) == g
    with pytest.raises(InvalidRequest, match="first chunk must be the TrainHeader"):
        read_stream([trainer_pb2.TrainChunk(group=g[0]), trainer_pb2.TrainChunk(header=h)])
    with pytest.raises(InvalidRequest, match="second TrainHeader"):
        read_stream([trainer_pb2.TrainChunk(header=h), trainer_pb2.TrainChunk(header=h)])
    with pytest.raises(InvalidRequest, match="neither header nor group"):
        read_stream([trainer_pb2.TrainChunk(header=h), trainer_pb2.TrainChunk()])
    with pytest.raises(InvalidRequest, match="without a TrainHeader"):
        read_stream([])


def test_a_good_request_passes() -> None:
    validate(header(groups=2, samples=3), groups_ok(), vocab_size=100, max_positions=64)


def test_header_refusals_name_the_field() -> None:
    g = groups_ok()
    h = header()
    h.schema_version = 2
    refused(r"header\.schema_version is 2", h, g)
    refused(r"header\.batch_id '' must be 1-256", header(batch_id=""), g)
    h = header()
    h.target_version = 5
    refused(r"header\.target_version 5 must be base_version \+ 1 = 1", h, g)
    refused(r"header\.groups says 3, 2 groups arrived", header(groups=3), g)
    refused(r"header\.samples says 4, 3 samples arrived", header(samples=4), g)
    refused(r"header\.hyper\.loss_agg 'sum' must be", header(loss_agg="sum"), g)
    refused(r"header\.hyper\.clip_low is -0\.1", header(clip_low=-0.1), g)
    refused("carries no groups", header(), [])


def test_sample_and_trace_refusals_name_the_path() -> None:
    h = header()
    g = groups_ok()
    g[1].samples[0].steps[1].trace.tokens.logprobs.append(-0.5)
    refused(r"groups\[1\]\.samples\[0\]\.steps\[1\]\.trace\.tokens\.logprobs has 2 entries for 1 token_ids", h, g)

    g = groups_ok()
    g[0].samples[1].trajectory_id = "a"
    refused(r"groups\[0\]\.samples\[1\]\.trajectory_id a appears twice", h, g)

    g = groups_ok()
    g[0].samples[0].advantage = math.nan
    refused(r"groups\[0\]\.samples\[0\]\.advantage is nan", h, g)

    g = groups_ok()
    g[1].samples[0].steps[0].trace.tokens.loss_mask[1] = 2
    refused(r"groups\[1\]\.samples\[0\]\.steps\[0\]\.trace\.tokens\.loss_mask\[1\] is 2", h, g)

    g = groups_ok()
    g[0].samples[0].steps[0].trace.tokens.logprobs[1] = 0.5
    refused(r"steps\[0\]\.trace\.tokens\.logprobs\[1\] is 0\.5, not a log-probability", h, g)

    g = groups_ok()
    del g[0].samples[0].steps[0].trace.tokens.prompt_token_ids[:]
    refused(r"groups\[0\]\.samples\[0\]\.steps\[0\]\.trace\.tokens\.prompt_token_ids is empty", h, g)

    g = groups_ok()
    g[0].samples[0].steps[0].trace.CopyFrom(trajectory_pb2.PolicyTrace(pointer=trajectory_pb2.PointerTrace(num_candidates=1)))
    refused(r"groups\[0\]\.samples\[0\]\.steps\[0\]\.trace is a pointer trace; this trainer takes tokens", h, g)

    g = groups_ok()
    g[0].samples[0].steps[0].trace.tokens.incomplete = True
    refused("marked incomplete", h, g)

    refused(r"groups\[0\]\.samples\[0\]\.steps\[0\]\.trace\.tokens\.token_ids\[0\] is 9, outside the model's vocabulary of 9", h, groups_ok(), vocab_size=9)
    refused(r"longer than the model's 5 positions", h, groups_ok(), max_positions=5)


def test_sampler_settings_the_trainer_cannot_reproduce_are_refused() -> None:
    h = header()
    g = groups_ok()
    g[0].samples[0].steps[0].CopyFrom(token_step(PROMPT, [9], mode=trajectory_pb2.LOGPROB_MODE_PROCESSED, repetition_penalty=1.1))
    refused(r"groups\[0\]\.samples\[0\]\.steps\[0\]\.trace\.tokens\.sampler\.repetition_penalty is 1\.1", h, g)
    # raw log-probs are before penalties: nothing to reproduce
    g[0].samples[0].steps[0].CopyFrom(token_step(PROMPT, [9], mode=trajectory_pb2.LOGPROB_MODE_RAW, repetition_penalty=1.1))
    validate(h, g)
    g[0].samples[0].steps[0].CopyFrom(token_step(PROMPT, [9], mode=trajectory_pb2.LOGPROB_MODE_TEMPERATURE, temperature=0.0))
    refused(r"sampler\.temperature is 0\.0", h, g)


class Counter:
    """A processor stand-in: an image of width w makes w // 4 placeholder tokens."""

    def image_tokens(self, data: bytes) -> int:
        from PIL import Image
        import io

        return Image.open(io.BytesIO(data)).size[0] // 4


IMG = 3


def test_placeholder_counts_are_checked_image_by_image() -> None:
    a, b = png(8, 4), png(12, 4)
    check_placeholders([1, IMG, IMG, 2, IMG, IMG, IMG, 2], [a, b], Counter(), IMG, "s")
    with pytest.raises(InvalidRequest, match=r"s\.prompt_token_ids holds image placeholder runs of \[3, 2\] tokens for 2 images; the processor makes \[2, 3\]"):
        check_placeholders([1, IMG, IMG, IMG, 2, IMG, IMG, 2], [a, b], Counter(), IMG, "s")
    with pytest.raises(InvalidRequest, match="references no image"):
        check_placeholders([1, IMG, 2], [], Counter(), IMG, "s")
    with pytest.raises(InvalidRequest, match="model takes no images"):
        check_placeholders([1, 2], [a], None, None, "s")


def test_build_batch_rebuilds_each_step_and_keeps_the_sampler() -> None:
    g = groups_ok()
    g[0].samples[0].steps[0].CopyFrom(token_step(PROMPT, [9, 10], logprobs=[-0.25, -0.5], mode=trajectory_pb2.LOGPROB_MODE_PROCESSED, temperature=0.7, top_p=0.8, top_k=20))
    b = build_batch(header(), g)
    assert [s.trajectory_id for s in b.samples] == ["a", "b", "c"] and b.refused == []
    s0 = b.samples[0].steps[0]
    assert (s0.prompt_ids, s0.completion_ids, s0.loss_mask) == (PROMPT, [9, 10], [1, 1])
    assert s0.logprobs == [-0.25, -0.5]
    assert s0.sampler == SamplerView(temperature=pytest.approx(0.7), top_p=pytest.approx(0.8), top_k=20, min_p=0.0)
    assert s0.logprob_mode == "PROCESSED"
    c = b.samples[2]
    assert c.advantage == 0.5 and [st.index for st in c.steps] == [0, 1]
    assert c.steps[0].loss_mask == [1, 0, 1] and c.steps[1].prompt_ids == PROMPT + [12]


def test_build_batch_fetches_images_and_refuses_samples_whose_image_it_cannot_get() -> None:
    a, b, missing = png(8, 4), png(12, 4), png(16, 4)
    srv = ImageServer({sha(a): a, sha(b): b})
    try:
        g = [
            trainer_pb2.TrainGroup(
                samples=[
                    sample("with-images", 1.0, [token_step([1, IMG, IMG, 2], [9], images=[a]), token_step([1, IMG, IMG, IMG, 2], [9], images=[b], index=1)]),
                    sample("missing", -1.0, [token_step([1, IMG, IMG, IMG, IMG, 2], [9], images=[missing])]),
                    sample("text", 0.0, [token_step([1, 2], [9])]),
                ]
            )
        ]
        out = build_batch(header(image_url=srv.url, images_missing=1), g, Counter(), IMG)
        assert [s.trajectory_id for s in out.samples] == ["with-images", "text"]
        assert out.refused == ["missing"]
        assert out.images_fetched == 2
        assert out.samples[0].steps[0].images == [a] and out.samples[0].steps[1].images == [b]

        g[0].samples[0].steps[1].trace.tokens.prompt_token_ids.insert(1, IMG)
        with pytest.raises(InvalidRequest, match=r"groups\[0\]\.samples\[0\]\.steps\[1\]\.trace\.tokens\.prompt_token_ids holds image placeholder runs of \[4\]"):
            build_batch(header(image_url=srv.url), g, Counter(), IMG)
    finally:
        srv.close()
