// The shop as a bundled site: its pages under /shop/ and its cart verifier.
import { buildShopCatalog, checkCart, isTaskError, parseCartSpec, type ShopCatalog } from '@owrl/tasks';
import { SitesError, SitesErrorCode } from '../errors.js';
import type { SiteContext, SiteModule } from '../site.js';
import { SHOP_NAME } from './pages.js';
import { handleShop } from './shop-routes.js';

export interface ShopSite extends SiteModule {
  readonly catalog: ShopCatalog;
}

export function createShopSite(ctx: SiteContext): ShopSite {
  const catalog = buildShopCatalog(ctx.seed);
  return {
    name: 'shop',
    title: SHOP_NAME,
    blurb: 'A general store: search, categories, product pages and a cart.',
    catalog,
    handle: (req, res, url, session) => handleShop(req, res, url, catalog, session),
    verify(session, specJson) {
      let spec;
      try {
        spec = parseCartSpec(specJson);
      } catch (e) {
        throw new SitesError(SitesErrorCode.BadRequest, isTaskError(e) ? e.message : String(e));
      }
      const result = checkCart(session?.cart ?? new Map<string, number>(), spec);
      return session === undefined ? { ok: result.ok, detail: `unknown session; ${result.detail}` } : result;
    },
    health: () => ({ catalogSeed: catalog.seed, products: catalog.products.length }),
  };
}
