// What the web mail keeps per session: the mailbox (flags and sent mail, checked by the
// verifier), a one-shot notice, an unsent draft after a failed send, the list to return to after
// an action, and the cookie choice.
import { newMailboxState, type MailboxState, type MailData } from '@owrl/tasks/mail';
import type { Notice } from '../session-store.js';

export interface ComposeDraft {
  /** Page heading: `New message`, `Reply`, `Reply all` or `Forward`. */
  title: string;
  to: string;
  cc: string;
  subject: string;
  body: string;
  replyTo?: string | undefined;
  forwardOf?: string | undefined;
}

export interface MailSession {
  box: MailboxState;
  notice: Notice | undefined;
  /** Kept after a failed send so the form comes back as it was. */
  draft: ComposeDraft | undefined;
  /** Path and query of the last list shown (inbox page, folder, label, search results). */
  lastList: string;
  cookies: 'accepted' | 'rejected' | undefined;
}

export function newMailSession(data: MailData): MailSession {
  return { box: newMailboxState(data), notice: undefined, draft: undefined, lastList: '/mail/', cookies: undefined };
}

/** A same-site return path under /mail/, or the inbox. */
export function safeBack(v: string | null | undefined): string {
  if (v === null || v === undefined) return '/mail/';
  return /^\/mail\/[^\s\\]*$/.test(v) && !v.startsWith('//') ? v : '/mail/';
}
