// The web mail "Lark Mail" as a bundled site: its pages under /mail/ and its mailbox verifier
// (`/__owrl/verify/mail`). Every session gets its own copy of the seeded mailbox.
import { isTaskError } from '@owrl/tasks';
import { buildMailData, checkMailbox, newMailboxState, parseMailSpec, type MailData } from '@owrl/tasks/mail';
import { SitesError, SitesErrorCode } from '../errors.js';
import { peekSiteData, siteData, type SiteContext, type SiteModule } from '../site.js';
import { MAIL_NAME } from './mail-layout.js';
import { handleMail } from './mail-routes.js';
import { newMailSession, type MailSession } from './mail-session.js';

export interface MailSite extends SiteModule {
  readonly data: MailData;
}

export function createMailSite(ctx: SiteContext): MailSite {
  const data = buildMailData(ctx.seed);
  const name = 'mail';
  return {
    name,
    title: MAIL_NAME,
    blurb: 'A web mail client: inbox, folders, search, reply, forward, compose, labels and contacts.',
    data,
    handle: (req, res, url, session) => handleMail(req, res, url, data, siteData(session, name, () => newMailSession(data))),
    verify(session, specJson) {
      let spec;
      try {
        spec = parseMailSpec(specJson);
      } catch (e) {
        throw new SitesError(SitesErrorCode.BadRequest, isTaskError(e) ? e.message : String(e));
      }
      const state = peekSiteData<MailSession>(session, name);
      const result = checkMailbox(data, state?.box ?? newMailboxState(data), spec);
      return state === undefined ? { ok: result.ok, detail: `unknown session; ${result.detail}` } : result;
    },
    health: () => ({ dataSeed: data.seed, messages: data.messages.length, contacts: data.contacts.length }),
  };
}
