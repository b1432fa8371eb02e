"""Trains a fixed batch from a fixed seed and saves the adapter; run alone or under torchrun.

Used by test_dist.py: 1 rank and 2 ranks (gloo, CPU) must give the same adapter."""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402

from owrl_torch import lora, tiny  # noqa: E402
from owrl_torch.logprobs import Sampler, sample_completion  # noqa: E402
from owrl_torch.update import Hyper, Sample, Step, Updater  # noqa: E402


def main() -> None:
    out_dir, model_dir = sys.argv[1], sys.argv[2]
    torch.set_num_threads(1)
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        torch.distributed.init_process_group("gloo")
    rank = torch.distributed.get_rank() if torch.distributed.is_initialized() else 0
    bundle = tiny.load_tiny(model_dir)
    tok = bundle.tokenizer
    lora.apply_lora(bundle.model, rank=4, alpha=8, target_modules=["q_proj", "v_proj"], seed=0)
    up = Updater(bundle.model, bundle.processor, lora.lora_parameters(bundle.model), "cpu", lr=2e-3)
    sampler = Sampler(temperature=0.7, top_p=0.8, top_k=20)
    g = torch.Generator().manual_seed(11)
    samples = []
    for k, word in enumerate(["amber", "kelp", "dune", "fjord", "amber", "kelp", "lagoon"]):
        prompt = tok.encode(tiny.render_chat([{"role": "user", "content": f"Task: Answer with the single word {word} and nothing else."}]))
        steps = []
        for j in range(1 + k % 2):  # some samples have two steps
            ids, lps, _ = sample_completion(bundle.model, prompt, sampler, "PROCESSED", max_new_tokens=32, generator=g, stop_ids=[tok.eos_id])
            steps.append(Step(index=j, prompt_ids=prompt, completion_ids=ids, logprobs=lps, sampler=sampler, logprob_mode="PROCESSED"))
        reward = 1.0 if f'"{word}"' in tok.decode(steps[-1].completion_ids) else -0.5
        samples.append(Sample(trajectory_id=f"t{k}", advantage=reward + 0.1 * k, policy_version=0, steps=steps))
    outcomes = []
    for v, agg in enumerate(["token_mean", "seq_mean"]):
        out = up.train(samples, Hyper(ppo_epochs=2, minibatches=2, loss_agg=agg, correction="tis"), base_version=v)
        outcomes.append({"epochs": out.epochs, "off_policy": out.off_policy})
    if rank == 0:
        lora.save_adapter(bundle.model, out_dir, "owrl/tiny-chat", 4, 8, ["q_proj", "v_proj"])
        with open(os.path.join(out_dir, "outcomes.json"), "w") as f:
            json.dump(outcomes, f)
    if torch.distributed.is_initialized():
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
