// Episode sessions on the bundled sites: the actor opens the start URL with `owrl_session=<id>`,
// the site turns it into a cookie, and the verifier asks the site about that session id.
import { TaskError, TaskErrorCode } from './errors.js';

/** Query parameter (and cookie name) carrying the session id. */
export const SESSION_PARAM = 'owrl_session';
export const SESSION_COOKIE = 'owrl_session';

/** Longest session id the sites accept (trajectory ids fit easily). */
export const MAX_SESSION_ID_LENGTH = 200;

/** Whether `id` is a usable session id: 1–200 printable ASCII characters, no spaces. */
export function isValidSessionId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_SESSION_ID_LENGTH && /^[\x21-\x7e]+$/.test(id);
}

/**
 * Returns `startUrl` with `owrl_session=<sessionId>` set (replacing an existing one); other query
 * parameters and the fragment are kept.
 * @throws TaskError TASK_BAD_ARGUMENT for a URL that does not parse or an invalid session id.
 */
export function withSession(startUrl: string, sessionId: string): string {
  if (!isValidSessionId(sessionId)) {
    throw new TaskError(
      TaskErrorCode.BadArgument,
      `session id ${JSON.stringify(sessionId)} must be 1–${MAX_SESSION_ID_LENGTH} printable characters without spaces`,
      { field: 'session_id' },
    );
  }
  let url: URL;
  try {
    url = new URL(startUrl);
  } catch (cause) {
    throw new TaskError(TaskErrorCode.BadArgument, `start_url ${JSON.stringify(startUrl)} is not a URL`, { cause, field: 'start_url' });
  }
  url.searchParams.set(SESSION_PARAM, sessionId);
  return url.toString();
}
