// The page at `/`: the list of the bundled sites this server hosts.
import { html, type Html } from './html.js';
import type { SiteModule } from './site.js';

export function portalPage(sites: readonly SiteModule[]): Html {
  const items = sites.map((s) => html`<li><a href="/${s.name}/">${s.title}</a> <span>${s.blurb}</span></li>`);
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>owrl bundled web</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:40px auto;max-width:720px;color:#222}li{margin:8px 0}span{color:#666}</style></head>
<body><h1>owrl bundled web</h1><p>Local websites for training and testing web agents.</p><ul>${items}</ul></body></html>`;
}
