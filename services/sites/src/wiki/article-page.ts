// The article page of the wiki: breadcrumb, title, save button, infobox table, lead, table of
// contents, long sections with the timeline closing the last one, see also, references and the
// categories footer.
import type { Segment, WikiArticle, WikiFact } from '@owrl/tasks/wiki';
import { html, type Html } from '../html.js';
import { digestDue, WIKI_NAME } from './wiki-state.js';
import { layout, type WikiPageContext } from './layout.js';

const KIND_CRUMB: Readonly<Record<WikiArticle['kind'], { slug: string; name: string }>> = {
  city: { slug: 'Category:Cities', name: 'Cities' },
  river: { slug: 'Category:Rivers', name: 'Rivers' },
  person: { slug: 'Category:People', name: 'People' },
  invention: { slug: 'Category:Inventions', name: 'Inventions' },
};

const PLATE: Readonly<Record<WikiArticle['kind'], string>> = {
  city: 'View over the old town',
  river: 'The river in its middle course',
  person: 'Portrait, artist unknown',
  invention: 'An early production model',
};

export function paragraph(segments: readonly Segment[]): Html {
  return html`<p>${segments.map((s) => (typeof s === 'string' ? s : html`<a href="/wiki/${s.slug}">${s.text}</a>`))}</p>`;
}

/** The saved/unsaved toggle, sent in place by the page script. */
export function saveForm(ctx: WikiPageContext, a: WikiArticle): Html {
  const saved = ctx.state.saved.includes(a.slug);
  return html`<form class="save" method="post" action="/wiki/Special:ReadingList/${saved ? 'remove' : 'add'}" data-async="save">
<input type="hidden" name="slug" value="${a.slug}"><input type="hidden" name="back" value="${ctx.here}">
<button type="submit" class="quiet">${saved ? 'Remove from reading list' : 'Save to reading list'}</button></form>`;
}

/** An infobox row: "Label: value" in one cell, so the row reads as one labelled fact. */
function infoboxRow(f: WikiFact): Html {
  if (f.links.length === 0) return html`<tr><td><span class="k">${f.label}:</span> ${f.display}</td></tr>`;
  const links = f.links.map((slug, i) => {
    const name = slug.replace(/_/g, ' ');
    return html`${i > 0 ? ', ' : ''}<a href="/wiki/${slug}">${name}</a>`;
  });
  return html`<tr><td><span class="k">${f.label}:</span> ${links}</td></tr>`;
}

function infobox(a: WikiArticle): Html {
  return html`<table class="infobox" aria-label="Infobox: ${a.title}"><caption>${a.title}</caption><tbody>
<tr><td><div class="plate" role="img" aria-label="${PLATE[a.kind]}">${PLATE[a.kind]}</div></td></tr>
${a.facts.map(infoboxRow)}</tbody></table>`;
}

function timeline(a: WikiArticle): Html {
  const rows = a.timeline.map((e) => html`<tr><td class="num">${e.year}</td><td>${e.text}</td></tr>`);
  return html`<table class="data timeline"><caption>Timeline of ${a.title}</caption>
<thead><tr><th scope="col">Year</th><th scope="col">Event</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function articlePage(ctx: WikiPageContext, a: WikiArticle): Html {
  const crumb = KIND_CRUMB[a.kind];
  const toc = [...a.sections.map((s) => ({ id: s.id, heading: s.heading })), { id: 'see-also', heading: 'See also' }, { id: 'references', heading: 'References' }];
  const sections = a.sections.map(
    (s) => html`<section aria-labelledby="${s.id}"><h2 id="${s.id}">${s.heading}</h2>${
      s.withTimeline ? html`<p class="hatnote">This section is a summary; the dates of the main events are listed in the timeline at its end.</p>` : ''
    }${s.paragraphs.map(paragraph)}${s.withTimeline ? timeline(a) : ''}</section>`,
  );
  const seeAlso = a.seeAlso.map((slug) => html`<li><a href="/wiki/${slug}">${ctx.data.bySlug.get(slug)?.title ?? slug}</a></li>`);
  const cats = a.categories.map((slug, i) => {
    const title = ctx.data.categoryBySlug.get(slug)?.title ?? slug;
    return html`${i > 0 ? ' · ' : ''}<a href="/wiki/${slug}">${title}</a>`;
  });
  const body = html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/wiki/">Main page</a> › <a href="/wiki/${crumb.slug}">${crumb.name}</a></nav>
<article class="entry"><h1>${a.title}</h1><p class="tagline">From ${WIKI_NAME}, the encyclopedia of the Far Reaches</p>
<div class="tools">${saveForm(ctx, a)}</div>
${infobox(a)}${a.lead.map(paragraph)}
<nav class="toc" aria-labelledby="toc-title"><h2 id="toc-title">Contents</h2><ol>${toc.map((t) => html`<li><a href="#${t.id}">${t.heading}</a></li>`)}</ol></nav>
${sections}
<section aria-labelledby="see-also"><h2 id="see-also">See also</h2><ul class="entries">${seeAlso}</ul></section>
<section aria-labelledby="references"><h2 id="references">References</h2><ol class="refs">${a.references.map((r) => html`<li>${r}</li>`)}</ol></section>
<footer class="cats">Categories: ${cats}</footer></article>`;
  return layout(ctx, a.title, body, { digest: digestDue(ctx.state) });
}
