#!/usr/bin/env bash
# The GPU check: on a machine with a GPU, runs the reference trainer's tests on CUDA (where Python
# has torch with a GPU), then finds the devices the judge can use (the CPU; WebGPU where Dawn finds
# an adapter through the Vulkan loader; CUDA where onnxruntime-node's CUDA provider is installed),
# runs the judge's device tests, then the judge benchmark on each device, and writes what it found
# and measured to OUT_DIR:
#   trainer-tests.txt  the trainer's pytest report on CUDA (transformers adds its Hugging Face tests)
#   machine.txt   GPU, driver, Vulkan loader, CPU cores, node and onnxruntime versions
#   devices.json  each GPU device: usable, or the reason it is not
#   tests.txt     the device, export and runtime tests of the judge model (node's spec reporter)
#   bench.jsonl   one line of figures per benchmark run (the bench's last line)
#   bench.log     the benchmarks' progress
#   summary.md    a table of the figures, ready for docs/benchmarks.md
#
# usage: scripts/gpu-check.sh [OUT_DIR]        (default runs/gpu-check-<UTC time>)
# env:   NODE               node binary (default: node on PATH)
#        GPU_CHECK_BUDGET_S stop starting benchmarks once this many seconds have passed (default 1800)
#        GPU_CHECK_LARGE    1 to also measure an 8B decoder of Qwen3-8B's shape in fp16 (16 GiB of
#                           weights, written to the temp folder; default 0)
#        GPU_CHECK_SECONDS  measured seconds per side of each benchmark (default 6)
#        GPU_CHECK_CPU      0 to leave out the CPU run of the judge-sized decoder (about 2.5 minutes on 16 cores)
#        GPU_CHECK_TRAINER  0 to leave out the trainer's tests
#        PYTHON             the Python of the trainer's tests (default python3)
# Build first where npm is (npm ci && npm run build); a host with only node needs the built tree.
set -uo pipefail
cd "$(dirname "$0")/.."
NODE=${NODE:-node}
OUT=${1:-runs/gpu-check-$(date -u +%Y%m%dT%H%M%SZ)}
BUDGET=${GPU_CHECK_BUDGET_S:-1800}
SECONDS_PER_SIDE=${GPU_CHECK_SECONDS:-6}
mkdir -p "$OUT"
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }
say() { echo "gpu-check [$(elapsed) s] $*" | tee -a "$OUT/bench.log" >&2; }

# The trainer's tests need torch, pytest and pillow; transformers adds the Hugging Face tests and
# grpcio the service tests (each skipped, with the reason, without it).
PY=${PYTHON:-python3}
if [ "${GPU_CHECK_TRAINER:-1}" = 1 ]; then
  if ! "$PY" -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
    say "trainer tests skipped: $PY has no torch that sees a CUDA device"
  elif ! "$PY" -c "import pytest, PIL" 2>/dev/null; then
    say "trainer tests skipped: $PY lacks pytest or pillow (Debian's python3-pytest, python3-pluggy and python3-iniconfig are pure Python: unpack their .debs with dpkg -x and put the dist-packages folder on PYTHONPATH)"
  else
    say "trainer tests on CUDA"
    (cd trainers/torch && OWRL_TEST_DEVICE=cuda timeout 900 "$PY" -m pytest -p no:cacheprovider -q -rs tests) >"$OUT/trainer-tests.txt" 2>&1
    say "trainer tests exit $? ($(tail -n 1 "$OUT/trainer-tests.txt"))"
  fi
fi

if [ ! -f bench/dist/src/main.js ] || [ ! -f packages/judge-model/dist/test/device.test.js ]; then
  if command -v npm >/dev/null; then npm run build >/dev/null || exit 1; else echo "gpu-check: build first (npm run build): bench/dist is missing" >&2; exit 1; fi
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'none found by nvidia-smi')"
  echo "vulkan loader: $( (ldconfig -p 2>/dev/null | grep -m1 'libvulkan.so.1') || echo 'not installed')"
  echo "VK_DRIVER_FILES: ${VK_DRIVER_FILES:-unset}"
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //')"
  echo "node: $("$NODE" --version)"
  echo "onnxruntime-node: $("$NODE" -p "require('./node_modules/onnxruntime-node/package.json').version")"
} >"$OUT/machine.txt"
cat "$OUT/machine.txt" >&2

"$NODE" --input-type=module -e "
import { probeDevice } from '@owrl/judge-model';
import { probeGraphBytes } from '@owrl/judge-model/testing';
const out = {};
for (const d of ['cuda', 'webgpu']) {
  const p = await probeDevice(d, probeGraphBytes());
  out[d] = p.ok ? { usable: true } : { usable: false, code: p.skip.code, reason: p.skip.reason };
}
console.log(JSON.stringify(out, null, 2));
" >"$OUT/devices.json" 2>>"$OUT/bench.log"
cat "$OUT/devices.json" >&2
usable() { "$NODE" -p "JSON.parse(require('fs').readFileSync('$OUT/devices.json','utf8'))['$1']?.usable === true" 2>/dev/null; }
GPUS=()
for d in cuda webgpu; do [ "$(usable "$d")" = true ] && GPUS+=("$d"); done
say "usable GPU devices: ${GPUS[*]:-none}"

say "device tests"
timeout 600 "$NODE" --test --test-reporter=spec packages/judge-model/dist/test/device.test.js packages/judge-model/dist/test/exports.test.js \
  >"$OUT/tests.txt" 2>&1
say "device tests exit $? ($(grep -cE '^\s*✔' "$OUT/tests.txt") passed, $(grep -cE '^\s*✖' "$OUT/tests.txt") failed, $(grep -cE '^\s*﹣' "$OUT/tests.txt") skipped)"

# bench DEVICE SHAPE DTYPE PROMPT_TOKENS [extra flags...]: one benchmark run, its figures appended to bench.jsonl.
bench() {
  local device=$1 shape=$2 dtype=$3 tokens=$4
  shift 4
  if [ "$(elapsed)" -ge "$BUDGET" ]; then
    say "skipped (budget of $BUDGET s spent): $device $shape $dtype"
    return
  fi
  say "bench: --device $device --shape $shape --dtype $dtype --prompt-tokens $tokens $*"
  local line
  line=$(timeout 900 "$NODE" bench/dist/src/main.js judge --device "$device" --shape "$shape" --dtype "$dtype" --prompt-tokens "$tokens" --seconds "$SECONDS_PER_SIDE" "$@" 2>>"$OUT/bench.log" | tail -n 1)
  if [ -n "$line" ] && [ "${line:0:1}" = "{" ]; then
    echo "$line" >>"$OUT/bench.jsonl"
    say "  $line"
  else
    say "  failed (see bench.log)"
    echo "{\"bench\":\"judge\",\"device\":\"$device\",\"shape\":\"$shape\",\"dtype\":\"$dtype\",\"failed\":true}" >>"$OUT/bench.jsonl"
  fi
}

JUDGE_SHAPE=1024,24,16,2816,32000
# auto first: it shows which device the judge picks here and what it passed over.
bench auto 256,4,4,1024,4096 fp32 512
for d in "${GPUS[@]}"; do
  bench "$d" "$JUDGE_SHAPE" fp32 1024
  bench "$d" "$JUDGE_SHAPE" fp16 1024
done
[ "${GPU_CHECK_CPU:-1}" = 1 ] && bench cpu "$JUDGE_SHAPE" fp32 1024 --judgements 16
if [ "${GPU_CHECK_LARGE:-0}" = 1 ]; then
  for d in "${GPUS[@]}"; do bench "$d" 4096,36,32,12288,151936 fp16 1024 --batch-tokens 8192 --judgements 16; done
fi

"$NODE" -e "
const fs = require('fs');
const rows = fs.existsSync('$OUT/bench.jsonl') ? fs.readFileSync('$OUT/bench.jsonl', 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
const machine = fs.readFileSync('$OUT/machine.txt', 'utf8');
const out = ['# Judge GPU check', '', '\`\`\`', machine.trim(), '\`\`\`', '',
  '| device | model | prompt tokens | batch / tokens | tokens/s | judgements/s | p50 / p99 ms | padding | bare tokens/s | overhead ratio |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
for (const r of rows) {
  if (r.failed) { out.push('| ' + r.device + ' | ' + r.shape + ' ' + r.dtype + ' | failed | | | | | | | |'); continue; }
  out.push('| ' + r.device + (r.fallback ? ' (auto; passed over ' + r.fallback.join(', ') + ')' : '') + ' | ' + r.model + ' | ' + r.prompt_tokens + ' | ' + r.batch + ' / ' + r.batch_tokens +
    ' | ' + r.tokens_per_s + ' | ' + r.judgements_per_s + ' | ' + r.p50_ms + ' / ' + r.p99_ms + ' | ' + r.padding_waste + ' | ' + (r.bare_tokens_per_s ?? '') + ' | ' + (r.overhead_ratio ?? '') + ' |');
}
fs.writeFileSync('$OUT/summary.md', out.join('\n') + '\n');
console.log(out.join('\n'));
"
say "done: $OUT"
