// The run file's reference (docs/run-file.md), generated from the schema: every section, key,
// type and range, default, the variables that set it (and override it) and the rules across keys.
// scripts/gen-run-file-doc.mjs writes it; its --check mode fails when the file is stale.
import { z } from 'zod';
import { FIXED_ON_RESUME } from './resume-diff.js';
import { RULES } from './rules.js';
import { runFileSchema } from './schema.js';
import { schemaKeys, sectionDocs, type MappedKey } from './service-env.js';

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  items?: JsonSchema;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function typeText(j: JsonSchema): string {
  if (j.enum) return j.enum.map((v) => `\`${String(v)}\``).join(' \\| ');
  if (j.type === 'array') return `list of ${j.items?.properties?.['max_steps'] ? '{rounds, max_steps}' : typeText(j.items ?? {})}`;
  if (j.type === 'integer' || j.type === 'number') {
    const lo = j.minimum;
    const hi = j.maximum !== undefined && j.maximum < MAX_SAFE ? j.maximum : undefined;
    const word = j.type === 'integer' ? 'integer' : 'number';
    if (lo !== undefined && hi !== undefined) return `${word} ${lo}–${hi}`;
    if (lo !== undefined) return `${word} ≥ ${lo}`;
    return word;
  }
  if (j.type === 'boolean') return 'true \\| false';
  return j.type ?? 'value';
}

function fieldSchema(k: MappedKey): JsonSchema {
  let s: z.ZodType = runFileSchema;
  for (const part of k.path) {
    while (s instanceof z.ZodOptional) s = s.unwrap() as z.ZodType;
    s = (s as z.ZodObject).shape[part] as z.ZodType;
  }
  while (s instanceof z.ZodOptional) s = s.unwrap() as z.ZodType;
  return z.toJSONSchema(s, { unrepresentable: 'any' }) as JsonSchema;
}

/** Table-cell text: pipes escaped, `<` escaped outside code spans (inside them it shows as typed). */
const cell = (s: string): string =>
  s
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, '&lt;')))
    .join('`')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');

function row(k: MappedKey): string {
  const name = `\`${k.path.join('.')}\``;
  const vars = k.meta.secretFor !== undefined ? `sets ${k.meta.secretFor} from the variable it names` : (k.meta.env ?? []).map((e) => `\`${e}\``).join(', ');
  const who = k.meta.cliOnly || (k.path[0] === 'policy' && k.path[1] === 'warmup') ? '`owrl train` only' : vars;
  if (k.group) return `| ${name} | group | | | ${cell(k.meta.description)} |`;
  return `| ${name} | ${typeText(fieldSchema(k))} | ${cell(k.meta.default ?? '')} | ${who} | ${cell(k.meta.description)} |`;
}

/** docs/run-file.md. */
export function renderReference(): string {
  const keys = schemaKeys();
  const out: string[] = [
    '# The run file',
    '',
    '<!-- Generated from packages/run-file/src/schema.ts by `node scripts/gen-run-file-doc.mjs`; do not edit. -->',
    '',
    'One YAML file names a whole training job. `owrl train RUN.yaml` runs it: locally it starts what is missing',
    '(nats-server, the bundled sites, learner, judge, actors, console), with `--nats URL` or `nats.url` it joins the',
    'services already running there. Every service reads its own sections of the same file when `OWRL_RUN_FILE`',
    'names it (the compose stack and the Kubernetes manifests mount one file). `owrl train --check RUN.yaml`',
    'checks the file and runs the preflight without training. Examples: `examples/`.',
    '',
    '- **Environment variables override the file.** Each key below names the variables it sets; a variable set',
    '  (non-empty) in a service\'s environment wins over the key. `owrl train` lists the overrides it sees.',
    '- **Secrets never live in the file.** Keys ending in `_env` name the variable that holds the secret',
    '  (`api_key_env: OWRL_POLICY_API_KEY`); a named variable that is not set is an error.',
    '- **Paths** of inputs (`tasks.files`, `judge.model_dir`, NATS credential files) are relative to the run file;',
    '  `state.data_dir` is relative to the current folder.',
    '- **Defaults** are the services\' own: a key left out sets nothing.',
    '- **Errors** name the place, the key and the value: `run.yaml:12:3: recipe.group_size: must be >= 2, got 1`;',
    '  an unknown key gets the nearest valid name. A bad file exits 2 and starts nothing.',
    '',
    '| top-level key | type | default | variables | meaning |',
    '| --- | --- | --- | --- | --- |',
    ...keys.filter((k) => k.path.length === 1).map(row),
    '',
  ];
  for (const { name, meta } of sectionDocs()) {
    out.push(`## \`${name}\``, '', `${meta.description} Read by: ${meta.services.join(', ')}.${name === 'tasks' ? ' Required.' : ''}`, '');
    out.push('| key | type | default | variables | meaning |', '| --- | --- | --- | --- | --- |');
    for (const k of keys.filter((x) => x.path[0] === name)) out.push(row(k));
    out.push('');
  }
  out.push('## Rules across keys', '', ...RULES.map((r) => `- ${r.text}`), '');
  out.push(
    '## Resuming',
    '',
    '`owrl train RUN.yaml --resume` takes the run up from `<data_dir>/<run_id>/`, where the file it started with is kept',
    '(`run.yaml`). A change the run cannot absorb is refused naming the key:',
    '',
    ...FIXED_ON_RESUME.map((f) => `- \`${f.key}\`: ${f.why}`),
    '',
    'Other changes (fleet size, log level, rounds, …) are taken and listed.',
    '',
  );
  return out.join('\n');
}
