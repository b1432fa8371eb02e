"""owrl-torch: the reference PyTorch GRPO trainer behind `owrl.v1.Trainer`."""

__version__ = "0.1.0"
TRAINER_NAME = "owrl-torch/0.1"
