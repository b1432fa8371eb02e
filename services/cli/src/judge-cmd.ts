// `owrl judge eval | export`: measure a judge model on a labelled trajectory set (accuracy,
// precision, recall, F1, confusion table), and export judged trajectories from a run as records
// fit for distilling a new judge. Record format: docs/judge.md.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { addPair, calibrationFigures, confusionTable, emptyConfusion } from '@owrl/judge-core';
import { ApiJudge, describeChoice, judgeInputFromTrajectory, JUDGE_DEVICES, OnnxJudge, type BatchScorer, type JudgeDevice } from '@owrl/judge-model';
import { envOneOf, type Env } from '@owrl/core';
import { createLogger, LOG_LEVELS, type LogLevel } from '@owrl/telemetry';
import { exportJudgeRecords } from './judge-export.js';
import { JudgeRecordError, parseLabelledRecords } from './judge-records.js';
import { natsSettings } from './nats-option.js';
import { UsageError } from './usage.js';

/** OWRL_LOG_LEVEL of a command (default warn: its output is the figures). @throws UsageError naming the variable. */
function logLevel(env: Env): LogLevel {
  try {
    return envOneOf('OWRL_LOG_LEVEL', 'warn', LOG_LEVELS, env);
  } catch (e) {
    throw new UsageError((e as Error).message, { cause: e });
  }
}

export const JUDGE_HELP = `owrl judge — judge model tools

usage:
  owrl judge eval --labels FILE --model DIR [--device auto|cuda|webgpu|cpu] [--threshold P] [--batch N] [--json]
  owrl judge eval --labels FILE --api-url URL --api-model NAME [--threshold P] [--batch N] [--no-image] [--json]
      Judge every labelled trajectory of FILE (JSONL judge records with a boolean "label") with the
      ONNX model (--model) or a model behind an OpenAI-compatible API (--api-url, --api-model; key from
      OWRL_JUDGE_API_KEY; --batch = requests in flight) and print accuracy, precision, recall, F1 and
      the confusion table (positive = success). With --model it names the device the model ran
      on and, with --device auto, each device it passed over and why.
  owrl judge export [--nats URL] [--run ID] [--out FILE] [--labelled-only] [--include-excluded]
      Write the judged trajectories in OWRL_SCORED (one run or all) as JSONL judge records:
      trajectory, verdict, shadow verdict and label (the programmatic verdict where there is one).
`;

function isJudgeDevice(d: string): d is JudgeDevice {
  return (JUDGE_DEVICES as readonly string[]).includes(d);
}

function num(flag: string, raw: string | undefined, def: number, check: (n: number) => boolean, what: string): number {
  if (raw === undefined) return def;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n)) throw new UsageError(`--${flag} ${JSON.stringify(raw)} must be ${what}`);
  return n;
}

async function evaluate(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      labels: { type: 'string' },
      model: { type: 'string' },
      device: { type: 'string' },
      threshold: { type: 'string' },
      batch: { type: 'string' },
      json: { type: 'boolean' },
      'api-url': { type: 'string' },
      'api-model': { type: 'string' },
      'no-image': { type: 'boolean' },
    },
  });
  if (values.labels === undefined) throw new UsageError('--labels FILE is required');
  const apiUrl = values['api-url'];
  if (apiUrl !== undefined && values.model !== undefined) throw new UsageError('--model and --api-url are exclusive: judge with an ONNX folder or an API, not both');
  if (apiUrl === undefined && values.model === undefined) {
    throw new UsageError('--model DIR (a judge model folder, see packages/judge-model/README.md) or --api-url URL --api-model NAME is required');
  }
  if (apiUrl !== undefined && (values['api-model'] ?? '').trim() === '') throw new UsageError('--api-model NAME is required with --api-url');
  const device = values.device ?? 'auto';
  if (!isJudgeDevice(device)) throw new UsageError(`--device ${JSON.stringify(device)} must be ${JUDGE_DEVICES.join(', ')}`);
  const batch = num('batch', values.batch, 8, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1');
  const threshold = values.threshold === undefined ? undefined : num('threshold', values.threshold, 0.5, (n) => n >= 0 && n <= 1, 'a number within [0, 1]');
  let text: string;
  try {
    text = fs.readFileSync(values.labels, 'utf8');
  } catch (e) {
    throw new UsageError(`--labels: cannot read ${values.labels}: ${(e as Error).message}`);
  }
  let records;
  try {
    records = parseLabelledRecords(text);
  } catch (e) {
    if (e instanceof JudgeRecordError) throw new UsageError(`${values.labels}:${e.line}: ${e.field}: ${e.message.replace(/^line \d+: [^:]+: /, '')}`);
    throw e;
  }
  if (records.length === 0) throw new UsageError(`${values.labels} holds no labelled records`);

  // Logs (device in use, fallback warnings) go to stderr; the figures to stdout.
  const logger = createLogger('owrl-judge-eval', { toStderr: true, level: logLevel(process.env) });
  let judge: BatchScorer & { close(): Promise<void> };
  let where: string;
  let onnxJudge: OnnxJudge | undefined;
  if (apiUrl !== undefined) {
    const key = process.env['OWRL_JUDGE_API_KEY'] ?? '';
    let api: ApiJudge;
    try {
      api = new ApiJudge({
        url: apiUrl,
        model: values['api-model'] ?? '',
        concurrency: batch,
        image: values['no-image'] !== true,
        logger,
        ...(key !== '' ? { apiKey: key } : {}),
        ...(threshold !== undefined ? { threshold } : {}),
      });
    } catch (e) {
      throw new UsageError(`--api-url/--api-model: ${(e as Error).message}`, { cause: e });
    }
    const probe = await api.probe();
    if (!probe.ok) process.stderr.write(`owrl judge eval: warning: ${probe.problem}\n`);
    judge = api;
    where = api.endpoint;
  } else {
    const onnx = await OnnxJudge.load({ modelDir: values.model ?? '', device, maxBatch: batch, logger, ...(threshold !== undefined ? { threshold } : {}) });
    judge = onnx;
    onnxJudge = onnx;
    where = describeChoice(onnx.requested, onnx.device, onnx.passedOver);
  }
  const confusion = emptyConfusion();
  const started = performance.now();
  const errors: string[] = [];
  try {
    for (let i = 0; i < records.length; i += batch) {
      const chunk = records.slice(i, i + batch);
      const scores = await judge.scoreEach(chunk.map((r) => judgeInputFromTrajectory(r.trajectory)));
      scores.forEach((s, j) => {
        const r = chunk[j];
        if (r === undefined) return;
        if (s instanceof Error) errors.push(`line ${r.line} (${r.id}): ${s.message}`);
        else addPair(confusion, s.pYes >= judge.threshold, r.label);
      });
    }
  } finally {
    await judge.close();
  }
  const f = calibrationFigures(confusion);
  const seconds = (performance.now() - started) / 1000;
  if (values.json) {
    process.stdout.write(
      JSON.stringify({
        model: judge.version,
        device: onnxJudge?.device ?? where,
        ...(onnxJudge !== undefined
          ? {
              requested: onnxJudge.requested,
              passed_over: onnxJudge.passedOver.map((p) => ({ device: p.device, code: p.code, reason: p.reason })),
              padding_waste: Number(onnxJudge.stats().paddingWaste.toFixed(4)),
            }
          : {}),
        threshold: judge.threshold,
        n: f.n,
        errors: errors.length,
        accuracy: f.agreement,
        precision: f.precision,
        recall: f.recall,
        f1: f.f1,
        tp: f.tp,
        fp: f.fp,
        fn: f.fn,
        tn: f.tn,
        seconds,
      }) + '\n',
    );
  } else {
    const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
    process.stdout.write(
      [
        `judge ${judge.version} on ${where}, threshold ${judge.threshold}: ${f.n} trajectories in ${seconds.toFixed(1)} s`,
        `accuracy ${pct(f.agreement)}  precision ${pct(f.precision)}  recall ${pct(f.recall)}  F1 ${f.f1.toFixed(3)}`,
        '',
        confusionTable(confusion),
        '',
      ].join('\n'),
    );
  }
  for (const e of errors) process.stderr.write(`owrl judge eval: not judged: ${e}\n`);
  return errors.length > 0 ? 1 : 0;
}

async function exportCmd(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      nats: { type: 'string' },
      run: { type: 'string' },
      out: { type: 'string' },
      'labelled-only': { type: 'boolean' },
      'include-excluded': { type: 'boolean' },
    },
  });
  if (values.run !== undefined && !/^[A-Za-z0-9_-]+$/.test(values.run)) throw new UsageError(`--run ${JSON.stringify(values.run)} must be a run id ([A-Za-z0-9_-])`);
  const summary = await exportJudgeRecords({
    nats: natsSettings(process.env, values.nats),
    runId: values.run ?? '',
    out: values.out ?? '',
    labelledOnly: values['labelled-only'] === true,
    includeExcluded: values['include-excluded'] === true,
  });
  process.stderr.write(
    `owrl judge export: ${summary.written} records written (${summary.labelled} labelled) of ${summary.read} scored trajectories read` +
      `${summary.undecodable > 0 ? `, ${summary.undecodable} undecodable skipped` : ''}\n`,
  );
  return 0;
}

/** Runs `owrl judge <sub> ...`. @throws UsageError (exit 2) for bad flags or input. */
export async function runJudgeCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    switch (sub) {
      case 'eval':
        return await evaluate(rest);
      case 'export':
        return await exportCmd(rest);
      case undefined:
      case 'help':
      case '--help':
        process.stdout.write(JUDGE_HELP);
        return 0;
      default:
        throw new UsageError(`unknown judge command ${JSON.stringify(sub)}\n\n${JUDGE_HELP}`);
    }
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((e as Error).message, { cause: e });
    throw e;
  }
}
