// Filtered listings of the bundled shop (category and search pages): the filters a shopper can
// combine (size available, colour, waterproof, minimum rating, brands, price range), the facets a
// page offers, and the listing order. Pure rules shared by the site and the task generator.
import { compareShopItems, shopDefaultVariant, findShopVariant, type ShopCatalog, type ShopProduct, type ShopSort, type ShopVariant } from './shop-catalog.js';

export interface ShopFilters {
  /** Only products with this size in stock; prices are then those of that size. */
  size?: string | undefined;
  color?: string | undefined;
  /** true = waterproof products only. */
  waterproof?: boolean | undefined;
  /** Rating at least this (one of {@link SHOP_RATING_STEPS}). */
  minRating?: number | undefined;
  /** Any of these brands (empty = all). */
  brands?: readonly string[] | undefined;
  minPriceCents?: number | undefined;
  maxPriceCents?: number | undefined;
}

/** Choices of the "Minimum rating" filter. */
export const SHOP_RATING_STEPS: readonly number[] = [3, 3.5, 4, 4.5];

/** `4` → `4.0 & up` (the option text of the rating filter). */
export function shopRatingLabel(r: number): string {
  return `${r.toFixed(1)} & up`;
}

/** One listed product: the variant whose price is shown (the filtered size, else the default). */
export interface ShopListingItem {
  product: ShopProduct;
  variant: ShopVariant;
  priceCents: number;
}

/** What a listing's filter panel offers, from the products in scope (before filtering). */
export interface ShopFacets {
  sizes: string[];
  colors: string[];
  brands: string[];
  /** Whether some product in scope is waterproof (else the checkbox is left out). */
  waterproof: boolean;
}

function inStock(p: ShopProduct, size: string): ShopVariant | undefined {
  const v = findShopVariant(p, size);
  return v !== undefined && v.stock > 0 ? v : undefined;
}

/** Applies `filters` to `products` and sorts the result; same rules on the site and in tasks. */
export function browseShop(products: readonly ShopProduct[], filters: ShopFilters, sort: ShopSort): ShopListingItem[] {
  const items: ShopListingItem[] = [];
  for (const p of products) {
    let variant = shopDefaultVariant(p);
    if (filters.size !== undefined) {
      const v = inStock(p, filters.size);
      if (v === undefined) continue;
      variant = v;
    }
    if (filters.color !== undefined && p.color !== filters.color) continue;
    if (filters.waterproof === true && !p.waterproof) continue;
    if (filters.minRating !== undefined && p.rating < filters.minRating) continue;
    if (filters.brands !== undefined && filters.brands.length > 0 && !filters.brands.includes(p.brand)) continue;
    if (filters.minPriceCents !== undefined && variant.priceCents < filters.minPriceCents) continue;
    if (filters.maxPriceCents !== undefined && variant.priceCents > filters.maxPriceCents) continue;
    items.push({ product: p, variant, priceCents: variant.priceCents });
  }
  return items.sort((a, b) =>
    compareShopItems(sort, { name: a.product.name, rating: a.product.rating, priceCents: a.priceCents }, { name: b.product.name, rating: b.product.rating, priceCents: b.priceCents }),
  );
}

/** Filter choices for `products`, sizes in the catalog's size order, colours and brands by name. */
export function shopFacets(catalog: ShopCatalog, products: readonly ShopProduct[]): ShopFacets {
  const sizes = new Set(products.flatMap((p) => p.variants.map((v) => v.code)));
  return {
    sizes: catalog.sizeOrder.filter((s) => sizes.has(s)),
    colors: [...new Set(products.map((p) => p.color))].sort(),
    brands: [...new Set(products.map((p) => p.brand))].sort(),
    waterproof: products.some((p) => p.waterproof),
  };
}

/** Whether any filter is set. */
export function hasShopFilters(f: ShopFilters): boolean {
  return (
    f.size !== undefined ||
    f.color !== undefined ||
    f.waterproof === true ||
    f.minRating !== undefined ||
    (f.brands?.length ?? 0) > 0 ||
    f.minPriceCents !== undefined ||
    f.maxPriceCents !== undefined
  );
}
