// One delivered, decoded message as a handler sees it, with the settle operations (ack, nak,
// term, working). Settling is once-only; term() dead-letters the message before terminating it
// so a poison message keeps its bytes and reason.
import type { JsMsg } from '@nats-io/jetstream';
import type { BusContext } from './context.js';
import { deadLetterOf, DlqReason, publishDeadLetter } from './dlq.js';
import { BusError, BusErrorCode } from './errors.js';

export interface Delivery<T> {
  /** The decoded message. */
  readonly value: T;
  /** The message's bytes as delivered (a service forwarding them embeds them unencoded again). */
  readonly data: Uint8Array;
  readonly stream: string;
  readonly consumer: string;
  readonly subject: string;
  /** Stream sequence. */
  readonly seq: number;
  /** 1 on first delivery, +1 per redelivery. */
  readonly deliveryCount: number;
  /** Nats-Msg-Id the message was published with (trajectory_id), if any. */
  readonly msgId: string | undefined;
  /** Whether ack/nak/term has been called. */
  readonly settled: boolean;
  /** A header of the message, or undefined. */
  header(name: string): string | undefined;
  /**
   * Acks. With the consumer's `confirmAcks` (the default) it waits for the server's confirmation
   * (double ack); without, the ack is sent and the promise resolves at once (a lost ack only
   * brings the message back, as an unconfirmed one does).
   * @throws BusError BUS_ACK_FAILED when unconfirmed: the message may come back (consumers dedupe).
   */
  ack(): Promise<void>;
  /** Negative ack: redeliver after `delayMs` (immediately when omitted). */
  nak(delayMs?: number): void;
  /**
   * Poison message: publishes it to the DLQ with `reason`, then terminates it (never redelivered).
   * When the DLQ publish fails it naks instead (so it is not lost) and rethrows.
   */
  term(reason: string): Promise<void>;
  /**
   * Resets the ack_wait clock (the bus also sends it periodically while the handler runs). A call
   * within a tenth of the ack_wait of the delivery or of the last one sent is not sent again (an
   * actor calls it every step; the clock is reset often enough either way).
   */
  working(): void;
  /**
   * Lets go of the message's bytes (for a consumer that holds the message unacked for long and
   * keeps what it needs of it elsewhere): ack, nak, working() and header() still work; `data` is
   * empty from then on, and term() refuses (it would dead-letter nothing: nak instead).
   */
  releaseData(): void;
}

export interface DeliveryDeps {
  ctx: BusContext;
  consumer: string;
  /** Whether the server takes a reason with +TERM (2.11+). */
  termReasons: boolean;
  ackTimeoutMs: number;
  /** Whether ack() waits for the server's confirmation (ConsumeOptions.confirmAcks). Default true. */
  confirmAcks?: boolean;
  /** working() calls closer than this to the delivery or to the last one sent are not sent (a tenth of the ack_wait). */
  workingMinGapMs: number;
}

const EMPTY = new Uint8Array(0);

/** The fields of nats-core 3.x's MsgImpl that releaseData() clears or copies. */
interface ClientMsg {
  readonly subject: string;
  readonly reply: string;
  _rdata?: Uint8Array | undefined;
  _msg?: { subject?: Uint8Array; reply?: Uint8Array | undefined };
}

export class DeliveryImpl<T> implements Delivery<T> {
  private state: 'open' | 'acked' | 'naked' | 'termed' = 'open';
  /** releaseData() was called. */
  private released = false;
  /** When the ack_wait clock was last reset by this client (the delivery, or a working() sent). */
  private resetAt = performance.now();

  constructor(
    readonly value: T,
    private readonly m: JsMsg,
    private readonly deps: DeliveryDeps,
  ) {}

  get stream(): string {
    return this.m.info.stream;
  }
  get consumer(): string {
    return this.deps.consumer;
  }
  get subject(): string {
    return this.m.subject;
  }
  get data(): Uint8Array {
    return this.released ? EMPTY : this.m.data;
  }
  get seq(): number {
    return this.m.seq;
  }
  get deliveryCount(): number {
    return this.m.info.deliveryCount;
  }
  get msgId(): string | undefined {
    return this.header('Nats-Msg-Id');
  }
  get settled(): boolean {
    return this.state !== 'open';
  }

  header(name: string): string | undefined {
    const h = this.m.headers;
    if (!h || !h.has(name)) return undefined;
    return h.get(name);
  }

  async ack(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'acked';
    if (this.deps.confirmAcks === false) {
      this.m.ack();
      return;
    }
    try {
      await this.m.ackAck({ timeout: this.deps.ackTimeoutMs });
    } catch (e) {
      throw new BusError(BusErrorCode.AckFailed, `ack of ${this.stream}#${this.seq} not confirmed: ${(e as Error).message}`, { cause: e });
    }
  }

  nak(delayMs?: number): void {
    if (this.state !== 'open') return;
    this.state = 'naked';
    this.m.nak(delayMs !== undefined && delayMs > 0 ? delayMs : undefined);
  }

  async term(reason: string, dlqReason: DlqReason = DlqReason.Terminated): Promise<void> {
    if (this.state !== 'open') return;
    if (this.released) throw new BusError(BusErrorCode.InvalidArgument, `term() of ${this.stream}#${this.seq} after releaseData(): its bytes are gone, so the dead letter would hold nothing (nak it instead)`);
    this.state = 'termed';
    try {
      await publishDeadLetter(this.deps.ctx, deadLetterOf(this.m, this.deps.consumer, dlqReason, reason));
    } catch (e) {
      this.state = 'naked';
      this.m.nak(1000);
      throw e;
    }
    if (this.deps.termReasons) this.m.term(reason.replace(/[\r\n]+/g, ' ').slice(0, 256));
    else this.m.term();
  }

  releaseData(): void {
    if (this.released) return;
    // Headers are parsed from the bytes on first read: parsed now, they stay readable.
    void this.m.headers;
    this.released = true;
    // nats-core's MsgImpl keeps the delivered bytes (headers and payload) in `_rdata`, and answers
    // an empty payload when it is unset. Its message arguments (`_msg.subject`, `_msg.reply`) are
    // views of the socket read they came in, unless the payload spanned reads: they are copied,
    // or each held delivery keeps that whole read (64 KiB) alive after its payload was let go (a
    // learner holding 20 000 results would keep hundreds of MB of reads so).
    // Checked by the bus tests against the client version (a moved field fails them).
    const msg = (this.m as unknown as { msg?: ClientMsg }).msg;
    if (!msg) return;
    // The subject and the ack subject decoded now (the client caches them as strings).
    void msg.subject;
    void msg.reply;
    if ('_rdata' in msg) msg._rdata = undefined;
    const args = msg._msg;
    if (args) {
      if (args.subject instanceof Uint8Array) args.subject = new Uint8Array(args.subject);
      if (args.reply instanceof Uint8Array) args.reply = new Uint8Array(args.reply);
    }
  }

  working(): void {
    if (this.state !== 'open') return;
    const now = performance.now();
    if (now - this.resetAt < this.deps.workingMinGapMs) return;
    this.resetAt = now;
    this.m.working();
  }
}
