// The NATS client's answered requests without a thrown-away stack trace (src/request-cancel.ts):
// cancel() without an error rejects with the one shared RequestError, an error given to cancel()
// is passed on, and over a real nats-server requests are still answered, time out and fail as before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MuxSubscription, RequestError, RequestOne } from '@nats-io/nats-core/internal';
import type { NatsServer } from '@owrl/nats-server';
import { startNatsServer } from './harness.js';
import { connectBus, type Bus } from '../src/index.js';
import { CANCELLED, installSharedCancelError } from '../src/request-cancel.js';

installSharedCancelError();

/** A request whose deferred's rejections land in `rejected`. */
function request(): { r: RequestOne; rejected: unknown[] } {
  const r = new RequestOne(new MuxSubscription(), 'subject', { timeout: 60_000 }, false);
  const rejected: unknown[] = [];
  const reject = r.deferred.reject.bind(r.deferred);
  r.deferred.reject = (e?: unknown) => {
    rejected.push(e);
    reject(e);
  };
  r.deferred.catch(() => {});
  return { r, rejected };
}

void describe('request cancel', () => {
  void it('an answered request is cancelled with the one shared error, not a new one', async () => {
    const a = request();
    const b = request();
    const msg = { data: new Uint8Array([1]) } as unknown as Parameters<RequestOne['resolver']>[1];
    a.r.resolver(null, msg);
    b.r.resolver(null, msg);
    assert.equal(await a.r.deferred, msg, 'the answer is what the request resolves to');
    assert.equal(a.rejected.length, 1, 'resolver() still cancels');
    assert.equal(a.rejected[0], CANCELLED);
    assert.equal(b.rejected[0], CANCELLED, 'the same object for every request');
    assert.ok(CANCELLED instanceof RequestError);
    assert.equal(CANCELLED.message, 'cancelled');
    a.r.timer.cancel();
    b.r.timer.cancel();
  });

  void it('an error given to cancel() is the one the request fails with', async () => {
    const { r } = request();
    const err = new Error('publish failed');
    r.cancel(err);
    await assert.rejects(r.deferred, (e) => e === err);
  });

  void describe('over a real nats-server', () => {
    let nats: NatsServer;
    let bus: Bus;
    before(async () => {
      nats = await startNatsServer();
      bus = await connectBus({ servers: nats.url, name: 'request-cancel-test' });
    });
    after(async () => {
      await bus.close();
      await nats.dispose();
    });

    void it('requests are answered, time out and meet no responders as before', async () => {
      const sub = bus.nc.subscribe('echo', { callback: (_err, m) => void m.respond(m.data) });
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => bus.nc.request('echo', new TextEncoder().encode(String(i)), { timeout: 5000 })));
      assert.deepEqual(
        answers.map((m) => m.string()),
        Array.from({ length: 200 }, (_, i) => String(i)),
      );
      sub.unsubscribe();
      await assert.rejects(bus.nc.request('nobody.listens', new Uint8Array(), { timeout: 2000 }), (e) => e instanceof RequestError && e.isNoResponders());
      bus.nc.subscribe('silent', { callback: () => {} });
      await assert.rejects(bus.nc.request('silent', new Uint8Array(), { timeout: 200 }), (e) => (e as Error).name === 'TimeoutError');
    });
  });
});
