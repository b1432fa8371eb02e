// The wiki "Lorewell" as a bundled site: its pages under /wiki/ and its reading-list verifier.
import { isTaskError } from '@owrl/tasks';
import { buildWiki, checkReadingList, parseReadingListSpec, WIKI_LISTS, type ReadingListSpec, type WikiData } from '@owrl/tasks/wiki';
import { SitesError, SitesErrorCode } from '../errors.js';
import type { SiteContext, SiteModule } from '../site.js';
import { handleWiki } from './wiki-routes.js';
import { savedOf, WIKI_NAME } from './wiki-state.js';

export interface WikiSite extends SiteModule {
  readonly data: WikiData;
}

function parseSpec(data: WikiData, specJson: string): ReadingListSpec {
  let spec: ReadingListSpec;
  try {
    spec = parseReadingListSpec(specJson);
  } catch (e) {
    throw new SitesError(SitesErrorCode.BadRequest, isTaskError(e) ? e.message : String(e));
  }
  spec.saved.forEach((slug, i) => {
    if (!data.bySlug.has(slug)) {
      throw new SitesError(SitesErrorCode.BadRequest, `spec.saved[${i}] = ${JSON.stringify(slug)} is not an article of this wiki`);
    }
  });
  return spec;
}

export function createWikiSite(ctx: SiteContext): WikiSite {
  const data = buildWiki(ctx.seed);
  return {
    name: 'wiki',
    title: WIKI_NAME,
    blurb: 'An encyclopedia: search, articles with infoboxes and long histories, sortable lists, categories and a reading list.',
    data,
    handle: (req, res, url, session) => handleWiki(req, res, url, data, session),
    verify(session, specJson) {
      const result = checkReadingList(savedOf(session), parseSpec(data, specJson));
      return session === undefined ? { ok: result.ok, detail: `unknown session; ${result.detail}` } : result;
    },
    health: () => ({ dataSeed: data.seed, articles: data.articles.length, categories: data.categories.length, lists: WIKI_LISTS.length }),
  };
}
