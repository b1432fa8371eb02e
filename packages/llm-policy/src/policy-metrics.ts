// Metrics of the `openai` policy: requests to the model server by outcome with their latency and
// retries, replies by what they became (calls, parse error, generation limit, context overflow),
// and completion lengths. Recorded through the injected Meter (noop by default).
import { EPISODE_BUCKETS, type Counter, type Histogram, type Meter } from '@owrl/core';

export class PolicyMetrics {
  private readonly requests: Counter<'outcome'>;
  private readonly retries: Counter;
  private readonly seconds: Histogram<'outcome'>;
  private readonly replies: Counter<'result'>;
  readonly completionTokens: Histogram;

  constructor(meter: Meter) {
    this.requests = meter.counter({ name: 'owrl_policy_requests_total', help: 'Policy steps sent to the model server, by outcome (ok, context_overflow, unavailable, rejected, aborted).', labelNames: ['outcome'] });
    this.retries = meter.counter({ name: 'owrl_policy_retries_total', help: 'Extra HTTP attempts of policy steps (server errors, timeouts, resets).' });
    this.seconds = meter.histogram({ name: 'owrl_policy_request_seconds', help: 'Wall time of a policy step at the model server, retries included.', labelNames: ['outcome'], buckets: EPISODE_BUCKETS });
    this.replies = meter.counter({ name: 'owrl_policy_replies_total', help: 'Model replies by result (calls, parse_error, generation_limit, context_overflow).', labelNames: ['result'] });
    this.completionTokens = meter.histogram({ name: 'owrl_policy_completion_tokens', help: 'Completion length of a policy step.', buckets: [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192] });
  }

  request(outcome: string, attempts: number, ms: number): void {
    this.requests.inc({ outcome });
    if (attempts > 1) this.retries.inc(attempts - 1);
    this.seconds.observe({ outcome }, ms / 1000);
  }

  reply(result: string): void {
    this.replies.inc({ result });
  }
}
