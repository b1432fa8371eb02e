// The shop as a bundled site: its pages under /shop/ and its verifier of cart and placed orders.
import { isTaskError } from '@owrl/tasks';
import { buildShopCatalog, checkShopState, parseCartSpec, type CartSpec, type ShopCatalog } from '@owrl/tasks/shop';
import { SitesError, SitesErrorCode } from '../errors.js';
import type { SiteContext, SiteModule } from '../site.js';
import { SHOP_NAME } from './layout.js';
import { handleShop } from './shop-routes.js';
import { peekOrders } from './shop-state.js';

export interface ShopSite extends SiteModule {
  readonly catalog: ShopCatalog;
}

export function createShopSite(ctx: SiteContext): ShopSite {
  const catalog = buildShopCatalog(ctx.seed);
  return {
    name: 'shop',
    title: SHOP_NAME,
    blurb: 'A general store: search, filters, sizes, a cart, checkout with promo codes, and orders.',
    catalog,
    handle: (req, res, url, session) => handleShop(req, res, url, catalog, session),
    verify(session, specJson) {
      let spec: CartSpec;
      try {
        spec = parseCartSpec(specJson);
      } catch (e) {
        throw new SitesError(SitesErrorCode.BadRequest, isTaskError(e) ? e.message : String(e));
      }
      const result = checkShopState(session?.cart ?? new Map<string, number>(), peekOrders(session), spec);
      return session === undefined ? { ok: result.ok, detail: `unknown session; ${result.detail}` } : result;
    },
    health: () => ({ catalogSeed: catalog.seed, products: catalog.products.length }),
  };
}
