#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on a GPU host that has Python and a GPU driver but no
# Node.js, npm or network, into one folder to copy next to the repository there:
#   node.xz            this machine's node binary (x86-64 Linux)
#   judge.tar.xz       the built judge, benchmark and device tests (their dist folders) and the
#                      node_modules they load, onnxruntime-node cut to its linux/x64 binaries
#   debs/              Debian's Vulkan loader (libvulkan1, for WebGPU) and pytest with its two
#                      pure-Python dependencies (for the trainer's tests where Python lacks pytest)
#   run.sh             on the GPU host: unpacks all of it and runs scripts/gpu-check.sh
#
# usage: scripts/gpu-kit.sh [KIT_DIR]       (default gpu-kit, ignored by git)
# then, on the GPU host, with KIT_DIR in the repository root: KIT_DIR/run.sh [OUT_DIR]
# Build first (npm run build). Needs xz and apt-get (for the .debs; without it they are left out).
set -euo pipefail
cd "$(dirname "$0")/.."
KIT=${1:-gpu-kit}
say() { echo "gpu-kit: $*" >&2; }

for f in bench/dist/src/main.js packages/judge-model/dist/test/device.test.js packages/judge-model/dist/src/testing.js; do
  [ -f "$f" ] || { say "$f is missing: run npm run build first"; exit 1; }
done
rm -rf "$KIT"
mkdir -p "$KIT/debs"

say "node $(node --version)"
xz -T0 -6 -c "$(command -v node)" >"$KIT/node.xz"

# What the benchmark, the device tests and gpu-check's probe load (found by tracing their file
# opens): the workspace packages they import and these node_modules.
MODULES=(@bufbuild/protobuf @huggingface/jinja @huggingface/tokenizers @protobufjs jpeg-js long onnx-proto onnxruntime-common)
PACKAGES=(packages/core packages/proto packages/judge-model bench)
files=(package.json)
for p in "${PACKAGES[@]}"; do files+=("$p/package.json" "$p/dist"); done
for m in "${MODULES[@]}"; do files+=("node_modules/$m"); done
for p in core proto judge-model bench; do files+=("node_modules/@owrl/$p"); done # links into packages/
files+=(node_modules/onnxruntime-node/package.json node_modules/onnxruntime-node/dist node_modules/onnxruntime-node/lib node_modules/onnxruntime-node/bin/napi-v6/linux/x64)
tar -cf - "${files[@]}" | xz -T0 -6 >"$KIT/judge.tar.xz"

if command -v apt-get >/dev/null; then
  (cd "$KIT/debs" && apt-get download libvulkan1 python3-pytest python3-pluggy python3-iniconfig >/dev/null 2>&1) ||
    say "apt-get download failed: the kit has no .debs (WebGPU then needs the host's own Vulkan loader)"
else
  say "no apt-get: the kit has no .debs (WebGPU then needs the host's own Vulkan loader)"
fi

cat >"$KIT/run.sh" <<'RUN'
#!/usr/bin/env bash
# On the GPU host, the kit folder in the repository root: unpacks it and runs scripts/gpu-check.sh.
# usage: KIT_DIR/run.sh [OUT_DIR]   (env: as scripts/gpu-check.sh; RUN_NO_VULKAN=1 leaves the loader out)
set -uo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
cd "$KIT/.." && [ -f scripts/gpu-check.sh ] || { echo "run.sh: keep the kit folder in the repository root" >&2; exit 2; }
mkdir -p "$KIT/bin"
xz -dc "$KIT/node.xz" >"$KIT/bin/node" && chmod +x "$KIT/bin/node"
xz -dc "$KIT/judge.tar.xz" | tar -xf -
shopt -s nullglob
# The Vulkan loader, where the host has none (the NVIDIA driver brings the ICD, not the loader).
if [ "${RUN_NO_VULKAN:-0}" != 1 ] && ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1'; then
  for d in "$KIT"/debs/libvulkan1_*.deb; do dpkg -x "$d" / && ldconfig && echo "run.sh: installed the Vulkan loader from $(basename "$d")" >&2; done
fi
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
# pytest for the trainer's tests, where the host's Python has none
PY=${PYTHON:-python3}
if ! "$PY" -c "import pytest" 2>/dev/null; then
  for d in "$KIT"/debs/python3-*.deb; do dpkg -x "$d" "$KIT/py"; done
  [ -d "$KIT/py/usr/lib/python3/dist-packages" ] && export PYTHONPATH="$KIT/py/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
fi
NODE="$KIT/bin/node" exec scripts/gpu-check.sh "$@"
RUN
chmod +x "$KIT/run.sh"
say "wrote $KIT: $(du -sh "$KIT" | cut -f1) ($(cd "$KIT" && ls | tr '\n' ' '))"
