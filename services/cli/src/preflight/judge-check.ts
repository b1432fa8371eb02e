// Preflight: the judge backend. Verifiers need nothing; an ONNX judge model folder must read
// (its configuration, its tokenizer and the graph files of its layout); a judge behind an API must serve the model and
// answer one tiny chat request with the key the run file names.
import { readModelFolder } from '@owrl/judge-model';
import { why, type CheckLine, type PreflightContext } from './preflight-check.js';

export async function checkJudge(ctx: PreflightContext): Promise<CheckLine[]> {
  const s = ctx.settings;
  const kind = s['OWRL_JUDGE_BACKEND'] ?? (s['OWRL_JUDGE_API_URL'] ? 'api' : s['OWRL_JUDGE_MODEL'] ? 'onnx' : 'verifiers');
  if (kind === 'onnx') return [checkOnnx(s['OWRL_JUDGE_MODEL'] ?? '')];
  if (kind === 'api') return [await checkApi(s['OWRL_JUDGE_API_URL'] ?? '', s['OWRL_JUDGE_API_MODEL'] ?? '', s['OWRL_JUDGE_API_KEY'] ?? '', ctx.signal)];
  return [{ name: 'judge', ok: true, detail: "the tasks' verifiers (format check and rule filter first)" }];
}

function checkOnnx(dir: string): CheckLine {
  try {
    // reads its configuration and tokenizer and finds the graph files its layout needs
    const folder = readModelFolder(dir);
    return { name: 'judge', ok: true, detail: `ONNX judge model ${dir} reads (layout ${folder.judge.layout}, threshold ${folder.judge.threshold})` };
  } catch (e) {
    return { name: 'judge', ok: false, detail: `the ONNX judge model does not load: ${why(e)}`, fix: 'give judge.model_dir a folder exported for owrl (docs/judge.md)' };
  }
}

async function checkApi(url: string, model: string, key: string, signal: AbortSignal): Promise<CheckLine> {
  const base = url.replace(/\/+$/, '').replace(/\/chat\/completions$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== '') headers['authorization'] = `Bearer ${key}`;
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(30_000)]);
  try {
    const res = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Answer with one word: yes or no. Is this a check?' }], max_tokens: 1, temperature: 0 }),
      signal: deadline,
    });
    const text = await res.text();
    if (res.status === 401 || res.status === 403) return { name: 'judge', ok: false, detail: `${base} refused the key (HTTP ${res.status})`, fix: 'set the API key in the variable judge.api_key_env names' };
    if (res.status === 404) return { name: 'judge', ok: false, detail: `${base} does not serve ${JSON.stringify(model)} (HTTP 404: ${text.slice(0, 160)})`, fix: 'give judge.model a model the endpoint serves' };
    if (!res.ok) return { name: 'judge', ok: false, detail: `${base} answered HTTP ${res.status}: ${text.slice(0, 160)}`, fix: 'see the judge endpoint' };
    const body = JSON.parse(text) as { choices?: unknown[] };
    if (!Array.isArray(body.choices) || body.choices.length === 0) return { name: 'judge', ok: false, detail: `${base} answered without choices`, fix: 'the judge endpoint must speak the OpenAI chat completions API' };
    return { name: 'judge', ok: true, detail: `judge model ${JSON.stringify(model)} at ${base} answers` };
  } catch (e) {
    return { name: 'judge', ok: false, detail: `${base} does not answer: ${why(e)}`, fix: 'start the judge model server, or correct judge.url' };
  }
}
