"""`python3 -m owrl_torch.serve`: the reference trainer as a process.

Loads the model (an owrl tiny folder through tiny.load_tiny, anything else through hf.py), wraps
it in LoRA adapters (or trains full weights), opens the state folder and serves `owrl.v1.Trainer`.
Prints ``owrl-torch listening on HOST:PORT`` once it answers.

Under torchrun every rank loads the model; rank 0 serves gRPC and, for each update (and each
restore of an older version), broadcasts the command with its samples to the other ranks, which
run the same Updater.train on their share of the batch (the updater reduces the gradients). The
state folder is read by every rank on a restore, so on several nodes it must be shared.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import torch

from owrl_torch.store import OPTIMIZER, VersionStore

log = logging.getLogger("owrl_torch.serve")

TOKEN_ENV = "OWRL_TRAINER_TOKEN"
# files of an owrl tiny folder that make a full-weights version loadable by itself
_TINY_FILES = ("config.json", "tokenizer.json", "chat_template.json", "generation_config.json")


def _dist() -> Any:
    import torch.distributed as dist

    return dist if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1 else None


class ModelPolicy:
    """The model side of the trainer (server.Policy): weights in memory, versions in and out, the update."""

    def __init__(self, args: argparse.Namespace, device: torch.device) -> None:
        self.args = args
        self.device = device
        self.loaded_version: Optional[int] = None
        self.kind = "full-weights" if args.full_weights else "lora-adapter"
        self.targets: List[str] = [t for t in args.lora_targets.split(",") if t]
        self.processor: Any = None
        self.image_id: Optional[int] = None
        self.vocab_size: Optional[int] = None
        self.max_positions: Optional[int] = None
        self.model_dir: Optional[Path] = None
        from owrl_torch.tiny import is_tiny_dir

        if is_tiny_dir(args.model):
            from owrl_torch.tiny import load_tiny

            bundle = load_tiny(args.model, device="cpu")
            self.model = bundle.model
            self.processor = bundle.processor
            self.image_id = bundle.tokenizer.image_id
            self.vocab_size = bundle.tokenizer.vocab_size
            self.max_positions = getattr(getattr(bundle.model, "config", None), "max_positions", None)
            self.base_model = args.served_name or bundle.name
            self.model_dir = Path(args.model)
            self.hf = False
        else:
            from owrl_torch import hf

            bundle = hf.load_hf(args.model, device=device, dtype=args.dtype)
            self.model = bundle.model
            self.processor = bundle.processor
            self.image_id = bundle.model.image_id
            self.vocab_size = bundle.model.vocab_size
            self.max_positions = None  # the engine's max_model_len bounds it; transformers configs differ in where they say it
            self.base_model = args.served_name or args.model
            self.hf = True
        self.model.to(device)
        if self.kind == "lora-adapter":
            params = self._apply_lora()
        else:
            params = [p for p in self.model.parameters()]
            for p in params:
                p.requires_grad_(True)
        from owrl_torch.update import Updater

        self.updater = Updater(self.model, self.processor, params, device, args.lr)

    @property
    def _adapted(self) -> torch.nn.Module:
        """The module LoRA wraps: a transformers model itself (not owrl's HFPolicy around it), so
        the adapter's tensor names are the ones PEFT and the engines use."""
        return self.model.inner if self.hf else self.model

    def _apply_lora(self) -> List[torch.nn.Parameter]:
        from owrl_torch import lora

        a = self.args
        try:
            lora.apply_lora(self._adapted, a.lora_rank, a.lora_alpha, self.targets, seed=a.seed)
        except ValueError as e:
            raise SystemExit(f"--lora-targets {a.lora_targets}: {e}") from None
        return lora.lora_parameters(self._adapted)

    # --- versions ------------------------------------------------------------------------------

    def write_version(self, folder: Path) -> None:
        a = self.args
        if self.kind == "lora-adapter":
            from owrl_torch import lora

            lora.save_adapter(self._adapted, str(folder), self.base_model, a.lora_rank, a.lora_alpha, self.targets)
        elif self.hf:
            from owrl_torch import hf

            hf.save_hf_full(self.model, str(folder))
        else:
            from owrl_torch import safetensors_io

            state = {k: v.detach().to("cpu").contiguous() for k, v in self.model.state_dict().items()}
            safetensors_io.save_file(state, str(folder / "model.safetensors"), {"format": "pt"})
            assert self.model_dir is not None
            for name in _TINY_FILES:
                src = self.model_dir / name
                if src.is_file():
                    (folder / name).write_bytes(src.read_bytes())
        torch.save(self.updater.optimizer_state(), folder / OPTIMIZER)

    def load_version(self, folder: Path, version: int) -> None:
        dist = _dist()
        if dist is not None and dist.get_rank() == 0:
            dist.broadcast_object_list([("load", str(folder), version)], src=0)
        self._load_local(folder)

    def _load_local(self, folder: Path) -> None:
        if self.kind == "lora-adapter":
            from owrl_torch import lora

            lora.load_adapter(self._adapted, str(folder))
        else:
            if self.hf:
                self._load_hf_full(folder)
            else:
                from owrl_torch import safetensors_io

                state = safetensors_io.load_file(str(folder / "model.safetensors"))
                self.model.load_state_dict(state)
        opt = folder / OPTIMIZER
        if opt.is_file():
            self.updater.load_optimizer_state(torch.load(opt, map_location="cpu"))

    def _load_hf_full(self, folder: Path) -> None:
        """Full weights of a stored version back into the transformers model (a restore)."""
        from owrl_torch import safetensors_io

        files = sorted(folder.glob("*.safetensors"))
        if not files:
            raise FileNotFoundError(f"{folder}: no *.safetensors to restore full weights from")
        state: Dict[str, torch.Tensor] = {}
        for f in files:
            state.update(safetensors_io.load_file(str(f)))
        inner = self.model.inner
        missing, unexpected = inner.load_state_dict(state, strict=False)
        if unexpected:
            raise ValueError(f"{folder}: tensors the model does not have: {unexpected[:4]}")

    # --- the update ----------------------------------------------------------------------------

    def _hyper(self, overrides: Dict[str, Any]) -> Any:
        from owrl_torch.update import Hyper

        a = self.args
        h: Dict[str, Any] = {
            "ppo_epochs": a.ppo_epochs,
            "minibatches": a.minibatches,
            "learning_rate": a.lr,
            "correction": a.correction,
            "tis_cap": a.tis_cap,
            "kl_coef": a.kl_coef,
            "norm_constant": a.norm_constant,
        }
        h.update(overrides)
        return Hyper(**h)

    def train(self, samples: Sequence[Any], hyper: Dict[str, Any], base_version: int) -> Any:
        dist = _dist()
        if dist is not None and dist.get_rank() == 0:
            dist.broadcast_object_list([("train", list(samples), hyper, base_version)], src=0)
        return self.updater.train(list(samples), self._hyper(hyper), base_version)

    def follow(self) -> None:
        """A rank other than 0: runs what rank 0 broadcasts until it says stop."""
        dist = _dist()
        assert dist is not None
        while True:
            box: List[Any] = [None]
            dist.broadcast_object_list(box, src=0)
            cmd = box[0]
            if cmd[0] == "stop":
                return
            if cmd[0] == "load":
                self._load_local(Path(cmd[1]))
            elif cmd[0] == "train":
                _, samples, hyper, base = cmd
                self.updater.train(samples, self._hyper(hyper), base)
                print(f"owrl-torch rank {dist.get_rank()}: trained its share of the update from v{base}", flush=True)

    def stop_followers(self) -> None:
        dist = _dist()
        if dist is not None and dist.get_rank() == 0:
            dist.broadcast_object_list([("stop",)], src=0)


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python3 -m owrl_torch.serve", description="owrl's reference PyTorch GRPO trainer behind owrl.v1.Trainer.")
    p.add_argument("--model", required=True, help="an owrl tiny model folder, or a Hugging Face model id or folder (needs transformers)")
    p.add_argument("--state-dir", required=True, help="folder of the versions (versions/v<N>/: the artifacts, optimizer state and answers)")
    p.add_argument("--port", type=int, default=50070, help="gRPC port (0 = any free port; the ready line names it)")
    p.add_argument("--host", default="0.0.0.0", help="listen address")
    p.add_argument("--served-name", default="", help="the base model's name as the engine serves it (TrainerInfo.base_model, the adapters' base_model_name_or_path)")
    p.add_argument("--full-weights", action="store_true", help="train and store full weights (SGLang update_weights_from_disk) instead of a LoRA adapter")
    p.add_argument("--lora-rank", type=int, default=16)
    p.add_argument("--lora-alpha", type=float, default=32.0)
    p.add_argument("--lora-targets", default="q_proj,k_proj,v_proj,o_proj", help="comma-separated module names LoRA wraps")
    p.add_argument("--lr", type=float, default=1e-5, help="learning rate when the request leaves it 0")
    p.add_argument("--ppo-epochs", type=int, default=2, help="epochs when the request leaves it 0")
    p.add_argument("--minibatches", type=int, default=1, help="optimizer steps per epoch when the request leaves it 0")
    p.add_argument("--correction", choices=["tis", "decoupled", "none"], default="tis", help="off-policy correction of the engine/trainer gap and staleness")
    p.add_argument("--tis-cap", type=float, default=2.0, help="truncation of the importance weight with --correction tis")
    p.add_argument("--norm", choices=["token_mean", "seq_mean", "constant"], default=None, help="length normaliser; overrides the request's loss_agg when given")
    p.add_argument("--norm-constant", type=float, default=None, help="with --norm constant: the constant the summed token losses are divided by (default: the longest completion)")
    p.add_argument("--kl-coef", type=float, default=0.0, help="weight of a KL-to-reference term (0 = none)")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    p.add_argument("--dtype", default="bfloat16", help="weights dtype of a Hugging Face model")
    p.add_argument("--keep-versions", type=int, default=5, help="restorable versions kept besides version 0 (at least 2)")
    p.add_argument("--artifact-url", default=None, help="base URL of <state-dir>/versions as the engines see it (default: file:// paths)")
    p.add_argument("--seed", type=int, default=0, help="seed of the LoRA initialisation")
    p.add_argument("--log-level", default=os.environ.get("OWRL_LOG_LEVEL", "info"))
    args = p.parse_args(argv)
    if args.kl_coef < 0:
        p.error(f"--kl-coef {args.kl_coef}: must be >= 0")
    if args.kl_coef > 0 and args.full_weights:
        p.error("--kl-coef needs a reference policy, and with --full-weights none is kept (with LoRA it is the base model with the adapter off): train a LoRA adapter or leave --kl-coef 0")
    return args


def _device(arg: Optional[str]) -> torch.device:
    local = int(os.environ.get("LOCAL_RANK", "0"))
    name = arg or ("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda":
        if not torch.cuda.is_available():
            raise SystemExit("--device cuda: this torch sees no CUDA device")
        return torch.device("cuda", local)
    return torch.device(name)


def main(argv: Optional[Sequence[str]] = None) -> int:
    # grpcio is imported here, not above: ModelPolicy (the model side) runs and is tested without it
    from owrl_torch.server import TrainerConfig, TrainerCore, start_server

    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    device = _device(args.device)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if world > 1:
        import torch.distributed as dist

        if device.type == "cuda":
            torch.cuda.set_device(device)
        dist.init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
    torch.manual_seed(args.seed)
    policy = ModelPolicy(args, device)
    if rank != 0:
        policy.follow()
        return 0

    store = VersionStore(Path(args.state_dir), keep=args.keep_versions, artifact_url=args.artifact_url)
    cfg = TrainerConfig(loss_agg_override=args.norm)
    core = TrainerCore(policy, store, cfg)
    running = start_server(core, host=args.host, port=args.port, token=os.environ.get(TOKEN_ENV, ""))
    print(f"owrl-torch listening on {args.host}:{running.port}", flush=True)
    log.info(
        "serving %s (%s, base model %s) from %s; versions %s; %d rank(s)",
        args.model, policy.kind, policy.base_model, args.state_dir, store.versions(), world,
    )
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    done.wait()
    running.stop()
    policy.stop_followers()
    return 0


if __name__ == "__main__":
    sys.exit(main())
