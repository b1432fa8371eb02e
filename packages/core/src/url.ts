// The host key of a task URL: `host[:port]` as the scheduler, the blacklist and the metrics use it.

/** `host[:port]` of `url` (lowercase, as URL gives it); '' when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
