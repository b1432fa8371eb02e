// Metrics of the ONNX judge model on the injected meter: the device in use and each device `auto`
// passed over (with its reason code), and how full the forward passes are — passes, real and
// padding positions, time in the model — so a judge tier can be sized from its /metrics.
import type { Counter, Gauge, Meter } from '@owrl/core';
import type { PassStats } from './runner.js';
import type { DeviceSkip, JudgeDevice, ResolvedDevice } from './session.js';

export interface JudgeModelMetrics {
  device: Gauge<'device' | 'requested'>;
  passedOver: Gauge<'device' | 'code'>;
  passes: Counter;
  /** kind: real (prompt tokens) | padding (positions computed for padding). */
  tokens: Counter<'kind'>;
  paddingRatio: Gauge;
  inferenceSeconds: Counter;
}

export function createJudgeModelMetrics(meter: Meter): JudgeModelMetrics {
  return {
    device: meter.gauge({ name: 'owrl_judge_model_device_info', help: 'The device the judge model runs on (1), and the device asked for', labelNames: ['device', 'requested'] }),
    passedOver: meter.gauge({
      name: 'owrl_judge_model_device_passed_over_info',
      help: 'Devices that device auto tried before the one in use, with why each was passed over (1)',
      labelNames: ['device', 'code'],
    }),
    passes: meter.counter({ name: 'owrl_judge_model_passes_total', help: 'Forward passes of the judge model' }),
    tokens: meter.counter({ name: 'owrl_judge_model_tokens_total', help: 'Positions the judge model computed: real prompt tokens and padding', labelNames: ['kind'] }),
    paddingRatio: meter.gauge({ name: 'owrl_judge_model_padding_ratio', help: "Padding's share of the positions the judge model computed since start" }),
    inferenceSeconds: meter.counter({ name: 'owrl_judge_model_inference_seconds_total', help: 'Wall time of the judge model in forward passes' }),
  };
}

export function recordDevice(m: JudgeModelMetrics, requested: JudgeDevice, device: ResolvedDevice, passedOver: readonly DeviceSkip[]): void {
  m.device.set({ device, requested }, 1);
  for (const p of passedOver) m.passedOver.set({ device: p.device, code: p.code }, 1);
}

export function recordPasses(m: JudgeModelMetrics, passes: readonly PassStats[], paddingWaste: number): void {
  for (const p of passes) {
    m.passes.inc();
    m.tokens.inc({ kind: 'real' }, p.realTokens);
    m.tokens.inc({ kind: 'padding' }, p.paddedTokens - p.realTokens);
    m.inferenceSeconds.inc(p.inferenceMs / 1000);
  }
  m.paddingRatio.set(paddingWaste);
}
