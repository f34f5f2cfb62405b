// The fleet dashboard as one static HTML file: the model (report/dashboard-data) embedded as JSON,
// a stylesheet and a small script that renders the table lazily (a page of rows at a time, the
// timelines as one element a row) with filters by drift status and by name, and a panel a store
// opens to with its last runs and their changes. No server, no network (a Content-Security-Policy
// forbids every fetch), works from disk. Every value from the data reaches the page through
// textContent or the escaped JSON block, never as markup: store and record names are hostile.
import type { DashboardModel } from './dashboard-data.js';

/** JSON safe inside a <script> element: no `<` (no `</script>`, no `<!--`), no line separators. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const style = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{padding:12px 20px;background:#1d2430;color:#fff}header h1{font-size:18px;margin:0}
.bar{display:flex;gap:12px;align-items:center;padding:10px 20px;flex-wrap:wrap}
.counts span{margin-right:12px}
main{display:flex;gap:16px;padding:0 20px 20px}
table{border-collapse:collapse;background:#fff;flex:1}th,td{padding:4px 8px;border-bottom:1px solid #e3e6ea;text-align:left;white-space:nowrap}
tr.store{cursor:pointer}tr.store:hover,tr.open{background:#eef3ff}
.tl{font:10px/10px monospace;letter-spacing:0;display:inline-block;white-space:pre}
.st{padding:1px 6px;border-radius:8px;font-size:12px}.in-sync{background:#d8f3dc}.drifted{background:#ffe1a8}.error{background:#ffc9c9}.unknown{background:#e9ecef}
#panel{width:420px;background:#fff;padding:12px;border:1px solid #e3e6ea;align-self:flex-start;overflow-wrap:anywhere}
#panel h2{font-size:16px;margin:0 0 8px}#panel ul{padding-left:18px;margin:4px 0 12px}
button{padding:4px 12px}
`;

// The page's script: it runs on the embedded data only. Kept as plain ES2020 so any browser runs it.
const script = `
'use strict';
const data = JSON.parse(document.getElementById('dashboard-data').textContent);
const pageSize = 100;
let shown = pageSize;
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; };
const statusFilter = document.getElementById('status');
const nameFilter = document.getElementById('name');
const rows = document.getElementById('rows');
const more = document.getElementById('more');
const panel = document.getElementById('panel');
const counts = { 'in-sync': 0, drifted: 0, error: 0, unknown: 0 };
for (const s of data.stores) counts[s.drift] += 1;
document.getElementById('counts').textContent = data.stores.length + ' stores: ' + counts['in-sync'] + ' in sync, ' + counts.drifted + ' drifted, ' + counts.error + ' with errors, ' + counts.unknown + ' without drift results';
document.getElementById('window').textContent = data.from + ' to ' + data.generatedAt + ' (' + data.days + ' days)';
const glyph = { '.': '\\u00b7', a: '\\u25cf', f: '\\u25b2', i: '\\u25a0', s: '\\u00b7', d: '\\u25c6', e: '\\u2716' };
function timeline(line) { let out = ''; for (const c of line) out += glyph[c] || ' '; return out; }
function filtered() {
  const status = statusFilter.value;
  const name = nameFilter.value.trim().toLowerCase();
  return data.stores.filter((s) => (status === 'all' || s.drift === status) && (name === '' || s.name.toLowerCase().includes(name)));
}
function render() {
  const list = filtered();
  rows.replaceChildren();
  const fragment = document.createDocumentFragment();
  for (const store of list.slice(0, shown)) {
    const tr = el('tr', undefined, 'store');
    tr.dataset.drift = store.drift;
    tr.appendChild(el('td', store.name));
    const status = el('td'); status.appendChild(el('span', store.drift + (store.drifted ? ' (' + store.drifted + ')' : ''), 'st ' + store.drift)); tr.appendChild(status);
    tr.appendChild(el('td', store.lastApply ? store.lastApply.slice(0, 16).replace('T', ' ') + ' ' + store.lastStatus : 'never'));
    const tl = el('td'); tl.appendChild(el('div', timeline(store.applies), 'tl')); tl.appendChild(el('div', timeline(store.drifts), 'tl')); tr.appendChild(tl);
    tr.addEventListener('click', () => openStore(store, tr));
    fragment.appendChild(tr);
  }
  rows.appendChild(fragment);
  document.getElementById('matching').textContent = list.length + ' matching';
  more.hidden = list.length <= shown;
}
function openStore(store, tr) {
  for (const open of rows.querySelectorAll('tr.open')) open.classList.remove('open');
  tr.classList.add('open');
  panel.replaceChildren(el('h2', store.name));
  panel.appendChild(el('p', (store.account ? store.account + ' \\u00b7 ' : '') + 'drift: ' + store.drift + ' \\u00b7 ' + store.runs + ' run(s) in the window'));
  if (store.recent.length === 0) panel.appendChild(el('p', 'No apply in the journal.'));
  for (const [run, at, status, applied, failed, changes] of store.recent) {
    panel.appendChild(el('h3', at.slice(0, 16).replace('T', ' ') + ' \\u00b7 ' + status + ' \\u00b7 ' + applied + ' applied' + (failed ? ', ' + failed + ' failed' : '')));
    panel.appendChild(el('div', 'run ' + run, 'run-id'));
    const ul = el('ul');
    for (const [outcome, action, kind, key] of changes) ul.appendChild(el('li', outcome + ' \\u00b7 ' + action + ' ' + kind + ' \\u201c' + key + '\\u201d'));
    panel.appendChild(ul);
  }
  panel.hidden = false;
}
statusFilter.addEventListener('change', () => { shown = pageSize; render(); });
nameFilter.addEventListener('input', () => { shown = pageSize; render(); });
more.addEventListener('click', () => { shown += pageSize; render(); });
render();
`;

export function renderDashboardHtml(model: DashboardModel): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>erpsync fleet dashboard</title>
<style>${style}</style>
</head>
<body>
<header><h1>erpsync fleet dashboard</h1><div id="window"></div></header>
<div class="bar">
<label>Drift <select id="status"><option value="all">all</option><option value="drifted">drifted</option><option value="error">error</option><option value="in-sync">in sync</option><option value="unknown">unknown</option></select></label>
<label>Store <input id="name" type="search" placeholder="filter by name"></label>
<span id="matching"></span><span class="counts" id="counts"></span>
</div>
<p class="bar">Timelines, one mark a day: applies (\u25cf ok, \u25b2 failed, \u25a0 interrupted), then drift (\u25c6 drifted, \u2716 error, \u00b7 in sync or nothing).</p>
<main>
<table><thead><tr><th>Store</th><th>Drift</th><th>Last apply</th><th>Timeline</th></tr></thead><tbody id="rows"></tbody></table>
<section id="panel" hidden></section>
</main>
<p class="bar"><button id="more" hidden>Show more</button></p>
<script type="application/json" id="dashboard-data">${embedJson(model)}</script>
<script>${script}</script>
</body>
</html>
`;
}
