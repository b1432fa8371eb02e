// The screenshot store on a real nats-server: content addressing (same bytes → one copy, bytes
// verified against the key), bad keys and non-images refused with a clear error, and retention
// by age and by bytes (oldest first).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BusErrorCode, ensureTopology, isBusError, ScreenshotStore, sha256Hex, STREAM_SHOTS } from '../src/index.js';
import { startSuite, until, type Suite } from './harness.js';

/** A PNG header (signature + IHDR with the size) followed by `fill` bytes of payload. */
function png(width: number, height: number, fill: number, tag = 0): Uint8Array {
  const b = new Uint8Array(33 + fill);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const dv = new DataView(b.buffer);
  dv.setUint32(16, width);
  dv.setUint32(20, height);
  for (let i = 33; i < b.length; i++) b[i] = (i * 31 + tag) & 0xff;
  b[b.length - 1] = tag;
  return b;
}

/** A JPEG with SOI, an APP0 segment and a SOF0 frame header of the given size. */
function jpeg(width: number, height: number): Uint8Array {
  return new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 4, 1, 2, 0xff, 0xc0, 0, 11, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0, 0xff, 0xd9]);
}

void describe('ScreenshotStore', () => {
  let s: Suite;
  let store: ScreenshotStore;
  before(async () => {
    s = await startSuite('shots-test');
    await ensureTopology(s.bus);
    store = new ScreenshotStore(s.bus);
  });
  after(async () => {
    await s.close();
  });

  void it('stores by sha256, keeps one copy of the same bytes, and returns them verified', async () => {
    const a = png(1280, 800, 5000, 1);
    const ref = await store.put(a);
    assert.deepEqual([ref.sha256, ref.mime, ref.width, ref.height, ref.bytes], [sha256Hex(a), 'image/png', 1280, 800, BigInt(a.length)]);
    const again = await store.put(a);
    assert.equal(again.sha256, ref.sha256);
    const j = jpeg(640, 480);
    const jref = await store.put(j);
    assert.deepEqual([jref.mime, jref.width, jref.height], ['image/jpeg', 640, 480]);
    const info = await s.bus.streamInfo(STREAM_SHOTS);
    assert.equal(info.state.messages, 2, 'the same picture is kept once');
    const got = await store.get(ref.sha256);
    assert.ok(got);
    assert.equal(got.mime, 'image/png');
    assert.deepEqual(Buffer.from(got.bytes), Buffer.from(a));
    assert.equal((await store.get(jref.sha256))?.mime, 'image/jpeg');
  });

  void it('answers null for an unknown key and refuses bad keys and non-images', async () => {
    assert.equal(await store.get('0'.repeat(64)), null);
    await assert.rejects(store.get('../etc/passwd'), (e) => isBusError(e, BusErrorCode.InvalidArgument) && /not a sha256/.test(e.message));
    await assert.rejects(store.get('A'.repeat(64)), (e) => isBusError(e, BusErrorCode.InvalidArgument));
    await assert.rejects(store.put(new TextEncoder().encode('hello')), (e) => isBusError(e, BusErrorCode.InvalidArgument) && /not a JPEG or PNG/.test(e.message));
    await assert.rejects(store.put(new Uint8Array()), (e) => isBusError(e, BusErrorCode.InvalidArgument));
  });
});

void describe('ScreenshotStore retention', () => {
  let s: Suite;
  after(async () => {
    await s.close();
  });

  void it('drops pictures past their age, and the oldest first past the byte limit', async () => {
    s = await startSuite('shots-retention');
    await ensureTopology(s.bus, { duplicateWindowMs: 1000, shotsRetentionMs: 1500, shotsMaxBytes: 1024 * 1024 });
    const store = new ScreenshotStore(s.bus);
    const big = [1, 2, 3].map((t) => png(100, 100, 400_000, t));
    const refs: Awaited<ReturnType<ScreenshotStore['put']>>[] = [];
    for (const b of big) refs.push(await store.put(b));
    assert.equal(await store.get(refs[0]!.sha256), null, 'the oldest went first past max_bytes');
    assert.ok(await store.get(refs[2]!.sha256), 'the newest is kept');
    await until(async () => (await store.get(refs[2]!.sha256)) === null, 10_000, 'the screenshot to expire');
    assert.equal((await s.bus.streamInfo(STREAM_SHOTS)).state.messages, 0);
  });
});
