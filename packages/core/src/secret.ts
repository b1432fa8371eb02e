// A secret setting (password, token, key seed): its value is read only through reveal(), and every
// other way of turning it into text (JSON, String, util.inspect, a pino log line) gives
// `[redacted]`, so a configuration object that holds one can be logged whole.

const REDACTED = '[redacted]';

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The secret itself: only for the call that authenticates with it. */
  reveal(): string {
    return this.#value;
  }

  /** Whether a value is set (an empty secret is no secret). */
  get isSet(): boolean {
    return this.#value !== '';
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Secret(${REDACTED})`;
  }
}
