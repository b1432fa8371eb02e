// The wiki's other pages: main page, search results, categories, all articles, the sortable list
// articles, the reading list and "not found". Pure functions of the data and the session state.
import {
  cellText,
  sortedRows,
  WIKI_LISTS,
  type WikiArticle,
  type WikiCategory,
  type WikiColumnKey,
  type WikiList,
  type WikiSearchHit,
  type WikiSortOrder,
} from '@owrl/tasks/wiki';
import { html, raw, type Html } from '../html.js';
import { layout, type WikiPageContext } from './layout.js';
import { paragraph } from './article-page.js';
import { WIKI_NAME } from './wiki-state.js';

const MAIN_CATEGORIES = ['Category:Cities', 'Category:Rivers', 'Category:People', 'Category:Inventions'];

function articleLink(a: WikiArticle): Html {
  return html`<a href="/wiki/${a.slug}">${a.title}</a>`;
}

export function mainPage(ctx: WikiPageContext): Html {
  const featured = ctx.data.bySlug.get(ctx.data.featured);
  // "From the timelines": the first timeline event of three articles picked by the data seed.
  const n = ctx.data.articles.length;
  const dyk = [0, 1, 2].flatMap((i) => {
    const a = ctx.data.articles[(((ctx.data.seed * 7 + i * 19) % n) + n) % n];
    const e = a?.timeline[0];
    return a && e ? [html`<li>${e.year}: ${e.text} (${articleLink(a)})</li>`] : [];
  });
  const lists = WIKI_LISTS.map((l) => html`<li><a href="/wiki/${l.slug}">${l.title}</a></li>`);
  const cats = MAIN_CATEGORIES.flatMap((slug) => {
    const c = ctx.data.categoryBySlug.get(slug);
    return c ? [html`<li><a href="/wiki/${c.slug}">${c.title}</a> (${c.members.length})</li>`] : [];
  });
  const body = html`<h1>Welcome to ${WIKI_NAME}</h1>
<p class="tagline">The encyclopedia of the Far Reaches: ${ctx.data.articles.length} articles about its cities, rivers, people and inventions.</p>
<div class="boxes">
<section class="box" aria-labelledby="featured"><h2 id="featured">Featured article</h2>${
    featured ? html`<p><b>${articleLink(featured)}</b> — ${featured.summary}.</p>${paragraph(featured.lead[0] ?? [])}` : ''
  }</section>
<section class="box" aria-labelledby="browse"><h2 id="browse">Browse</h2><h3>Lists</h3><ul class="entries">${lists}</ul>
<h3>Categories</h3><ul class="entries">${cats}</ul></section>
<section class="box" aria-labelledby="dyk"><h2 id="dyk">From the timelines</h2><ul class="entries">${dyk}</ul></section>
<section class="box" aria-labelledby="about"><h2 id="about">About ${WIKI_NAME}</h2><p>Every article has an infobox with the key figures, a table of contents and a timeline at the end of its history. Save articles to your reading list to find them again later.</p></section>
</div>`;
  return layout(ctx, 'Main page', body);
}

export function searchPage(ctx: WikiPageContext, query: string, hits: readonly WikiSearchHit[]): Html {
  const found =
    query.trim() === ''
      ? html`<p>Type a title or a few words into the search box.</p>`
      : hits.length === 0
        ? html`<p>There were no results matching the query "${query}".</p>`
        : html`<p>${hits.length} ${hits.length === 1 ? 'result' : 'results'} for "${query}"</p>
<ul class="entries">${hits.map((h) => html`<li><a href="/wiki/${h.slug}">${h.title}</a><div class="snippet">${h.snippet}</div></li>`)}</ul>`;
  return layout(ctx, query.trim() === '' ? 'Search' : `Search results for ${query}`, html`<h1>Search results</h1>${found}`);
}

/** Subcategories of a main category: the other categories whose members are all of its kind. */
function subcategories(ctx: WikiPageContext, c: WikiCategory): WikiCategory[] {
  if (!MAIN_CATEGORIES.includes(c.slug)) return [];
  const kinds = new Set(c.members.map((m) => ctx.data.bySlug.get(m)?.kind));
  return ctx.data.categories.filter(
    (o) => o !== c && !MAIN_CATEGORIES.includes(o.slug) && o.members.every((m) => kinds.has(ctx.data.bySlug.get(m)?.kind)),
  );
}

export function categoryPage(ctx: WikiPageContext, c: WikiCategory): Html {
  const subs = subcategories(ctx, c);
  const members = c.members.flatMap((slug) => {
    const a = ctx.data.bySlug.get(slug);
    return a ? [html`<li>${articleLink(a)} <span class="snippet">— ${a.summary}</span></li>`] : [];
  });
  const body = html`<h1>Category: ${c.title}</h1><p>${c.description}</p>${
    subs.length > 0
      ? html`<h2>Subcategories</h2><ul class="entries">${subs.map((s) => html`<li><a href="/wiki/${s.slug}">${s.title}</a> (${s.members.length})</li>`)}</ul>`
      : ''
  }<h2>Pages in category "${c.title}"</h2><p>This category contains ${c.members.length} ${c.members.length === 1 ? 'page' : 'pages'}.</p><ul class="entries">${members}</ul>`;
  return layout(ctx, `Category: ${c.title}`, body);
}

export function categoriesIndexPage(ctx: WikiPageContext): Html {
  const items = ctx.data.categories.map((c) => html`<li><a href="/wiki/${c.slug}">${c.title}</a> (${c.members.length})</li>`);
  return layout(ctx, 'Categories', html`<h1>Categories</h1><p>All ${ctx.data.categories.length} categories of ${WIKI_NAME}.</p><ul class="entries">${items}</ul>`);
}

export function allPagesPage(ctx: WikiPageContext): Html {
  const sorted = ctx.data.articles.slice().sort((a, b) => a.title.localeCompare(b.title, 'en'));
  const items = sorted.map((a) => html`<li>${articleLink(a)}</li>`);
  const lists = WIKI_LISTS.map((l) => html`<li><a href="/wiki/${l.slug}">${l.title}</a></li>`);
  return layout(ctx, 'All articles', html`<h1>All articles</h1><ul class="entries">${items}</ul><h2>Lists</h2><ul class="entries">${lists}</ul>`);
}

/** The sortable table of a list article; `sort`/`order` come from the query (already validated). */
export function listPage(ctx: WikiPageContext, list: WikiList, sort: WikiColumnKey, order: WikiSortOrder): Html {
  const rows = sortedRows(ctx.data, list, sort, order);
  const head = list.columns.map((c) => {
    const active = c.key === sort;
    const next: WikiSortOrder = active && order === 'asc' ? 'desc' : 'asc';
    const ariaSort = active ? raw(` aria-sort="${order === 'asc' ? 'ascending' : 'descending'}"`) : '';
    return html`<th scope="col" data-col="${c.key}"${ariaSort}${c.format === 'text' ? '' : raw(' class="num"')}><a href="/wiki/${list.slug}?sort=${c.key}&amp;order=${next}">${c.label}</a></th>`;
  });
  const body = rows.map((a) => {
    const cells = list.columns.map((c, i) => {
      if (i === 0) return html`<th scope="row">${articleLink(a)}</th>`;
      const fact = a.facts.find((f) => f.key === c.key);
      const slug = fact?.links[0];
      const text = cellText(a, c);
      if (slug !== undefined) return html`<td><a href="/wiki/${slug}">${text}</a></td>`;
      return html`<td${c.format === 'text' ? '' : raw(' class="num"')}>${text}</td>`;
    });
    return html`<tr>${cells}</tr>`;
  });
  const page = html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/wiki/">Main page</a> › Lists</nav><h1>${list.title}</h1><p>${list.intro}</p>
<p class="snippet">Click a column header to sort the table by it; click it again to reverse the order.</p>
<table id="list-table" class="data sortable"><caption>${list.title} (${rows.length})</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
  return layout(ctx, list.title, page);
}

export function readingListPage(ctx: WikiPageContext): Html {
  const saved = ctx.state.saved.flatMap((slug) => {
    const a = ctx.data.bySlug.get(slug);
    return a ? [a] : [];
  });
  const body =
    saved.length === 0
      ? html`<p>Your reading list is empty. Use "Save to reading list" on an article to add it here.</p>`
      : html`<p>${saved.length} saved ${saved.length === 1 ? 'article' : 'articles'}.</p><ul class="entries">${saved.map(
          (a) => html`<li>${articleLink(a)} <span class="snippet">— ${a.summary}</span>
<form method="post" action="/wiki/Special:ReadingList/remove" style="display:inline"><input type="hidden" name="slug" value="${a.slug}">
<input type="hidden" name="back" value="/wiki/Special:ReadingList"><button type="submit" class="quiet" aria-label="Remove ${a.title}">Remove</button></form></li>`,
        )}</ul>`;
  return layout(ctx, 'Reading list', html`<h1>Your reading list</h1>${body}`);
}

export function notFoundPage(ctx: WikiPageContext, what: string): Html {
  return layout(
    ctx,
    'Not found',
    html`<h1>Not found</h1><p>${what}</p><p>Try the search box above, or go back to the <a href="/wiki/">main page</a>.</p>`,
  );
}
