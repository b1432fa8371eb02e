// Detection of bot walls (captchas, challenge interstitials) from cheap page signals collected in
// the page: title, the first matching challenge selector, and the text of small pages. Pure logic.

export interface WallSignals {
  title: string;
  /** First challenge selector that matched ('' when none). */
  selector: string;
  /** Visible text of the page when it is small (walls are small pages), '' otherwise. */
  smallText: string;
}

export interface WallVerdict {
  kind: 'captcha' | 'interstitial';
  marker: string;
}

/** Selectors of challenge interstitials (a whole page that stands between the agent and the site). */
export const INTERSTITIAL_SELECTORS: ReadonlySet<string> = new Set(['#cf-challenge-running', '#challenge-form', '#challenge-stage', '#challenge-running']);

/**
 * Selectors of well-known challenge pages and widgets, checked in the page in this order (the
 * first match is the marker): interstitials first, since they often embed a captcha widget.
 */
export const WALL_SELECTORS = [
  '#cf-challenge-running',
  '#challenge-form',
  '#challenge-stage',
  '#challenge-running',
  'iframe[src*="recaptcha"]',
  'iframe[src*="hcaptcha"]',
  'iframe[src*="challenges.cloudflare.com"]',
  'iframe[src*="captcha"]',
  '.g-recaptcha',
  '.h-captcha',
  '.cf-turnstile',
  '#px-captcha',
  '[data-sitekey]',
  'form[action*="captcha"]',
] as const;

const CAPTCHA_TITLE = /\bcaptcha\b|security check|are you a (ro)?bot|human verification/i;
const CAPTCHA_TEXT = /(solve|complete|enter) the captcha|verify (that )?you are (a )?human|are you a (ro)?bot|i'?m not a robot|press (&|and) hold|prove you('| a)re human|complete the security check|unusual traffic from your (computer )?network/i;
const INTERSTITIAL_TEXT = /checking (if the site connection is secure|your browser)|just a moment\.\.\.|attention required|access denied|request blocked|you have been blocked|enable javascript and cookies to continue|ddos protection by/i;

export function detectWall(s: WallSignals): WallVerdict | null {
  if (s.selector) return { kind: INTERSTITIAL_SELECTORS.has(s.selector) ? 'interstitial' : 'captcha', marker: s.selector };
  const title = s.title.slice(0, 200);
  const text = s.smallText.slice(0, 3000);
  let m = CAPTCHA_TITLE.exec(title) ?? CAPTCHA_TEXT.exec(title) ?? CAPTCHA_TEXT.exec(text);
  if (m) return { kind: 'captcha', marker: m[0].toLowerCase() };
  m = INTERSTITIAL_TEXT.exec(title) ?? INTERSTITIAL_TEXT.exec(text);
  if (m) return { kind: 'interstitial', marker: m[0].toLowerCase() };
  return null;
}
