// The bundled shop's task layer (suite `shop`): the seeded catalog, listing and checkout rules,
// the cart and order verifier, and the task generator.
export {
  buildShopCatalog,
  DEFAULT_CATALOG_SEED,
  findCategory,
  findShopVariant,
  formatPrice,
  listCategory,
  parseShopLineKey,
  searchProducts,
  SHOP_SORTS,
  shopDefaultVariant,
  shopLineKey,
} from './shop-catalog.js';
export type {
  ShopCatalog,
  ShopProduct,
  ShopPromo,
  ShopSort,
  ShopVariant,
} from './shop-catalog.js';
export {
  browseShop,
  hasShopFilters,
  SHOP_RATING_STEPS,
  shopFacets,
  shopRatingLabel,
} from './shop-listing.js';
export type {
  ShopFilters,
  ShopListingItem,
} from './shop-listing.js';
export {
  findShopDelivery,
  findShopPromo,
  priceShopOrder,
  SHOP_DEFAULT_DELIVERY,
  SHOP_DELIVERY_OPTIONS,
  shopPromoProblem,
  shopPromoText,
} from './shop-checkout.js';
export type {
  ShopDeliveryId,
  ShopOrder,
  ShopOrderTotals,
} from './shop-checkout.js';
export {
  checkShopState,
  parseCartSpec,
} from './shop-verify.js';
export type {
  CartSpec,
} from './shop-verify.js';
export {
  generateShopTasks,
  SHOP_FAMILIES,
} from './shop-tasks.js';
