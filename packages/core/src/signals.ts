// Shutdown signals for service mains: SIGTERM/SIGINT are taken from the first moment, and one that
// arrives while the process is still starting is honoured as soon as there is something to shut
// down (a half-started process is never killed outright, leaving browsers or sockets behind).

export interface SignalHandoff {
  /** Hands over the shutdown function; a signal already received runs it at once. */
  ready(shutdown: (signal: string) => Promise<void>): void;
}

export function takeShutdownSignals(signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): SignalHandoff {
  let onSignal: ((signal: string) => Promise<void>) | undefined;
  let pending: string | undefined;
  for (const s of signals) {
    process.on(s, () => {
      if (onSignal) void onSignal(s);
      else pending ??= s;
    });
  }
  return {
    ready(fn) {
      onSignal = fn;
      if (pending !== undefined) void fn(pending);
    },
  };
}
