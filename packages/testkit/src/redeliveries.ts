// Counts a JetStream consumer's redeliveries as they happen, for fault tests. The consumer info's
// num_redelivered is no count of redeliveries: it is the number of messages now pending that were
// delivered more than once (the server forgets one when it is acked), so a redelivered message
// worked on and acked between two polls is never seen, and one acked after the test's first read
// hides a later one. Every client settles a JetStream message on its ack subject,
// `$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<ms>.<pending>` (a domain
// and an account hash come before the stream in the newer form), whether it acks, naks or sends
// working(): the server delivers those to any other subscriber of the subject too. Watching them
// records, per stream sequence, when a client first reported it with a delivery count of 2 or more.
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

export interface RedeliveryWatch {
  /** Stream sequences reported with a delivery count of 2 or more since `sinceMs` (Date.now() time). */
  redeliveredSince(sinceMs: number): number[];
  /** Ack-subject messages seen so far (all kinds). */
  readonly seen: number;
  close(): void;
}

/** Parses an ack subject into its delivery count and stream sequence (undefined: not one of `stream`/`consumer`). */
export function parseAckSubject(subject: string, stream: string, consumer: string): { delivered: number; streamSeq: number } | undefined {
  const t = subject.split('.');
  if (t[0] !== '$JS' || t[1] !== 'ACK') return undefined;
  // $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<dseq>.<ms>.<pending>: 9 tokens; the newer form
  // puts <domain>.<account hash> before the stream (11 tokens, or 12 with a trailing token).
  const at = t.length === 9 ? 2 : t.length >= 11 ? 4 : -1;
  if (at < 0 || t[at] !== stream || t[at + 1] !== consumer) return undefined;
  const delivered = Number(t[at + 2]);
  const streamSeq = Number(t[at + 3]);
  if (!Number.isInteger(delivered) || !Number.isInteger(streamSeq)) return undefined;
  return { delivered, streamSeq };
}

/**
 * Watches the acks, naks and working() of `stream`/`consumer` on `nc` (its user must be allowed to
 * subscribe to `$JS.ACK.>`), from now on. Call it before the fault.
 */
export function watchRedeliveries(nc: NatsConnection, stream: string, consumer: string): RedeliveryWatch {
  // stream seq → time it was first reported with a delivery count of 2 or more.
  const redelivered = new Map<number, number>();
  let seen = 0;
  const subs: Subscription[] = [`$JS.ACK.${stream}.${consumer}.>`, `$JS.ACK.*.*.${stream}.${consumer}.>`].map((subject) =>
    nc.subscribe(subject, {
      callback: (err, m) => {
        if (err) return;
        const a = parseAckSubject(m.subject, stream, consumer);
        if (!a) return;
        seen++;
        if (a.delivered >= 2 && !redelivered.has(a.streamSeq)) redelivered.set(a.streamSeq, Date.now());
      },
    }),
  );
  return {
    redeliveredSince(sinceMs) {
      return [...redelivered].filter(([, at]) => at >= sinceMs).map(([seq]) => seq);
    },
    get seen() {
      return seen;
    },
    close() {
      for (const s of subs) s.unsubscribe();
    },
  };
}
