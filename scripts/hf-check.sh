#!/usr/bin/env bash
# The reference trainer's Hugging Face path against transformers itself, on a machine with Debian's
# packages but no PyPI: builds a Debian testing root (debootstrap) holding python3-transformers,
# python3-torch, grpcio and pytest, and runs the trainer's tests there
# (trainers/torch/tests/test_hf_transformers.py is skipped wherever transformers is missing).
# Needs root and a Debian mirror; the first run downloads about 400 MB into a root of about 2 GB
# (a few minutes on a fast mirror), later runs reuse it.
#
# usage: scripts/hf-check.sh [ROOT_DIR]      (default /var/tmp/owrl-hf-root)
# env:   HF_CHECK_MIRROR   Debian mirror (default http://deb.debian.org/debian)
#        HF_CHECK_SUITE    suite (default testing)
#        HF_CHECK_PYTEST   extra pytest arguments (default -q)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
ROOT=${1:-/var/tmp/owrl-hf-root}
MIRROR=${HF_CHECK_MIRROR:-http://deb.debian.org/debian}
SUITE=${HF_CHECK_SUITE:-testing}
PACKAGES="python3-transformers python3-torch python3-pytest python3-pil python3-grpcio python3-protobuf"
say() { echo "hf-check: $*" >&2; }

[ "$(id -u)" = 0 ] || { say "needs root (debootstrap, chroot, a bind mount)"; exit 2; }
if ! command -v debootstrap >/dev/null; then
  command -v apt-get >/dev/null || { say "needs debootstrap (Debian/Ubuntu: apt-get install debootstrap)"; exit 2; }
  apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

if [ ! -x "$ROOT/usr/bin/python3" ]; then
  say "building a Debian $SUITE root in $ROOT"
  debootstrap --variant=minbase --include=python3 "$SUITE" "$ROOT" "$MIRROR" >&2
fi
# A mirror's snapshot of testing may carry a Release file past its Valid-Until date: apt would
# refuse it. The packages are still checked against the archive key.
APT=(apt-get -o Acquire::Check-Valid-Until=false -qq)
if ! chroot "$ROOT" python3 -c "import transformers, torch, grpc, pytest, PIL, google.protobuf" 2>/dev/null; then
  say "installing $PACKAGES"
  chroot "$ROOT" "${APT[@]}" update >&2
  chroot "$ROOT" "${APT[@]}" -y --no-install-recommends install $PACKAGES >&2
fi

mkdir -p "$ROOT/owrl" "$ROOT/proc"
mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
mount --bind "$REPO" "$ROOT/owrl"
trap 'umount "$ROOT/owrl"; umount "$ROOT/proc" 2>/dev/null || true' EXIT

chroot "$ROOT" python3 -c "import sys, torch, transformers; print(f'hf-check: Python {sys.version.split()[0]}, torch {torch.__version__}, transformers {transformers.__version__}')" >&2
# the tests' caches (tiny models) go to the root's /tmp, not the repository
chroot "$ROOT" env -C /owrl/trainers/torch PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -p no:cacheprovider ${HF_CHECK_PYTEST:--q} -rs tests
