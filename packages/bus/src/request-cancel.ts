// No stack trace thrown away after every answered request.
//
// When a request (every JetStream publish waiting for its PubAck, every KV put, every confirmed
// ack) is answered, the NATS client (@nats-io/nats-core 3.x, RequestOne.resolver) resolves it and
// then calls cancel(), which rejects the already resolved promise with a new
// RequestError("cancelled"): an Error, stack trace and all, made for nothing and never seen. On
// the bus bench that construction was 2–3 % of the judge's and the learner's CPU (one per
// published trajectory, scored trajectory and rollout request).
//
// Installed once per process by connectBus: cancel() called without an error rejects with one
// RequestError("cancelled") made once, instead of a new one each time. The only callers that can
// observe that rejection are the client's own (the promise it races is settled before), and an
// error passed to cancel() is passed on as before. Checked against the client version by the
// `request cancel` tests (a RequestOne whose cancel() or resolver moved fails them).
import { RequestError, RequestOne } from '@nats-io/nats-core/internal';

/** The one rejection of cancel() without an error (same class and message as the client's). */
export const CANCELLED = new RequestError('cancelled');

let installed = false;

/** Makes RequestOne.cancel() without an error reuse CANCELLED (idempotent). */
export function installSharedCancelError(): void {
  if (installed) return;
  installed = true;
  const cancel = RequestOne.prototype.cancel;
  RequestOne.prototype.cancel = function (this: RequestOne, err?: Error): void {
    cancel.call(this, err ?? CANCELLED);
  };
}
