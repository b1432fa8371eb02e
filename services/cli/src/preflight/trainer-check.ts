// Preflight: the trainer answers gRPC health and the handshake (GetTrainerInfo), trains the base
// model the engine serves, takes the policy's traces, and produces versions the actors can run:
// the pointer policy runs onnx-pointer versions; vLLM loads LoRA adapters over HTTP but not full
// weights (its server has no such call: packages/llm-policy/src/engine-loader.ts); SGLang loads
// both; a hosted API loads none.
import * as grpc from '@grpc/grpc-js';
import { envSecret } from '@owrl/core';
import { grpcServiceDefinition, health, make, type TrainerInfo } from '@owrl/proto';
import { RemoteTrainer } from '@owrl/trainer-rpc';
import { why, type CheckLine, type PreflightContext } from './preflight-check.js';

/** The version kinds each way of running the policy can take. */
export const LOADABLE_KINDS: Record<string, readonly string[]> = {
  pointer: ['onnx-pointer'],
  vllm: ['lora-adapter'],
  sglang: ['lora-adapter', 'full-weights'],
  openai: [],
};

const HOW_TO_LOAD: Record<string, string> = {
  vllm: 'vLLM loads LoRA adapters at run time (VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, --enable-lora) and cannot load full weights over HTTP: have the trainer answer lora-adapter, or serve with SGLang (engine sglang)',
  sglang: 'SGLang loads lora-adapter (--enable-lora) and full-weights (update_weights_from_disk) versions',
  openai: 'a hosted API loads no trained versions: serve the model with vLLM or SGLang (policy.engine)',
  pointer: 'the pointer policy runs onnx-pointer versions: use the in-process trainer or services/trainer',
};

type HealthClient = grpc.Client & { check(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: health.HealthCheckResponse) => void): void };
const HealthCtor = grpc.makeGenericClientConstructor(grpcServiceDefinition(health.Health) as unknown as grpc.ServiceDefinition, 'Health');

function healthStatus(address: string, timeoutMs: number): Promise<string> {
  const client = new HealthCtor(address, grpc.credentials.createInsecure()) as unknown as HealthClient;
  return new Promise<string>((resolve, reject) => {
    client.check(make(health.HealthCheckRequestSchema, { service: '' }), new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
      client.close();
      if (err || !res) reject(err ?? new Error('no answer'));
      else resolve(health.HealthCheckResponse_ServingStatus[res.status] ?? String(res.status));
    });
  });
}

export async function checkTrainer(ctx: PreflightContext): Promise<CheckLine[]> {
  const s = ctx.settings;
  const address = s['OWRL_TRAINER'] ?? 'inprocess';
  const policy = s['OWRL_POLICY'] ?? 'pointer';
  if (address === 'inprocess') {
    return [{ name: 'trainer', ok: policy === 'pointer', detail: 'the built-in pointer trainer in the learner', fix: 'the in-process trainer trains only the pointer policy: give trainer.kind remote with an address' }];
  }
  const lines: CheckLine[] = [];
  try {
    const status = await healthStatus(address, 5000);
    lines.push(status === 'SERVING' ? { name: 'trainer.health', ok: true, detail: `${address} is SERVING` } : { name: 'trainer.health', ok: false, detail: `${address} answers health ${status}`, fix: 'wait for the trainer to finish loading, or see its log' });
  } catch (e) {
    return [{ name: 'trainer.health', ok: false, detail: `${address} does not answer gRPC health: ${why(e)}`, fix: 'start the trainer (docs/trainer.md) or correct trainer.address (OWRL_TRAINER)' }];
  }
  const client = new RemoteTrainer(address, { token: envSecret('OWRL_TRAINER_TOKEN', s), retries: 0, infoDeadlineMs: 10_000 });
  let info: TrainerInfo;
  try {
    info = await client.info();
  } catch (e) {
    return [...lines, { name: 'trainer.handshake', ok: false, detail: `GetTrainerInfo failed: ${why(e)}`, fix: /UNAUTHENTICATED|token/i.test(why(e)) ? 'set the token the trainer expects in the variable trainer.token_env names' : 'the trainer must implement owrl.v1.Trainer (docs/trainer.md)' }];
  } finally {
    await client.close().catch(() => {});
  }
  const model = s['OWRL_POLICY_MODEL'] ?? '';
  lines.push({ name: 'trainer.handshake', ok: true, detail: `${info.name || '(unnamed)'}: base model ${info.baseModel ? JSON.stringify(info.baseModel) : '(not named)'}, takes ${info.traceKinds.join(', ') || '(none)'} traces, produces ${info.artifactKind} versions, latest v${info.latestVersion}` });
  if (policy === 'openai') {
    if (info.baseModel === '') lines.push({ name: 'trainer.base_model', ok: false, detail: 'the trainer does not name its base model (TrainerInfo.base_model)', fix: `have the trainer answer base_model (${JSON.stringify(model)} here) so a mismatch with the served model is caught` });
    else if (info.baseModel !== model) lines.push({ name: 'trainer.base_model', ok: false, detail: `the trainer trains ${JSON.stringify(info.baseModel)} but the engine serves policy.model ${JSON.stringify(model)}`, fix: 'serve and train the same base model (policy.model, the trainer\'s base model)' });
  }
  const trace = policy === 'openai' ? 'tokens' : 'pointer';
  if (!info.traceKinds.includes(trace)) lines.push({ name: 'trainer.traces', ok: false, detail: `the ${policy} policy records ${trace} traces; the trainer takes ${info.traceKinds.join(', ') || 'none'}`, fix: `use a trainer that takes ${trace} traces (docs/trainer.md)` });
  const runner = policy === 'openai' ? (s['OWRL_POLICY_ENGINE'] ?? 'vllm') : 'pointer';
  const loadable = LOADABLE_KINDS[runner] ?? [];
  const loads = policy !== 'openai' || (s['OWRL_POLICY_LOAD_WEIGHTS'] ?? 'true') !== 'false';
  if (!loads) {
    lines.push({ name: 'trainer.versions', ok: true, detail: `the actors do not make ${runner} load versions (policy.load_weights false): ${info.artifactKind} versions must reach the engine some other way` });
  } else if (!loadable.includes(info.artifactKind)) {
    lines.push({ name: 'trainer.versions', ok: false, detail: `the trainer produces ${info.artifactKind} versions, which ${runner === 'pointer' ? 'the pointer policy' : `engine ${runner}`} cannot load (it loads ${loadable.join(', ') || 'none'})`, fix: HOW_TO_LOAD[runner] ?? '' });
  } else {
    lines.push({ name: 'trainer.versions', ok: true, detail: `${info.artifactKind} versions, which ${runner === 'pointer' ? 'the pointer policy runs' : `${runner} loads`}` });
  }
  return lines;
}
