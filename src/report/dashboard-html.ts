// The fleet dashboard as one static HTML file: the model (report/dashboard-data) embedded as JSON,
// a stylesheet and a small script that renders the table lazily (a page of rows at a time, the
// timelines as one element a row) with filters by drift status and by name, and a panel a store
// opens to: what its latest drift found (records, fields, who or what changed them) and its last
// runs with their commit, actor and changes. No server, no network (a Content-Security-Policy
// forbids every fetch), works from disk. Every value from the data reaches the page through
// textContent or the escaped JSON block, never as markup: store and record names are hostile.
//
// What must stay true at any width from a laptop's 1280 px up: the page never scrolls sideways
// (the table's columns are fixed shares of its width, long names are cut with an ellipsis in the
// table and wrap in the panel); an opened store's panel takes at least a third of the window; and
// each timeline is fitted to its column — one mark a day when there is room, else one mark for
// several days (the worst of them), counted back from today, so today's mark is always the last
// one shown; should the fit still fall short, a timeline is cut on its old side, never on today's.
import type { DashboardModel } from './dashboard-data.js';
import { markRank } from './dashboard-data.js';

/** JSON safe inside a <script> element: no `<` (no `</script>`, no `<!--`), no line separators. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const style = `
*,*::before,*::after{box-sizing:border-box}
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{padding:12px 20px;background:#1d2430;color:#fff}header h1{font-size:18px;margin:0}
.bar{display:flex;gap:12px;align-items:center;padding:10px 20px;margin:0;flex-wrap:wrap}
.counts span{margin-right:12px}
main{display:grid;grid-template-columns:minmax(0,1fr);gap:16px;padding:0 20px 20px;align-items:start}
main.open{grid-template-columns:minmax(0,1fr) clamp(34vw,40vw,760px)}
@media (max-width:900px){main.open{grid-template-columns:minmax(0,1fr)}main.open #panel{order:-1;position:relative;top:0;max-height:none}}
table{border-collapse:collapse;background:#fff;width:100%;table-layout:fixed}
th,td{padding:4px 8px;border-bottom:1px solid #e3e6ea;text-align:left;vertical-align:top;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
col.name{width:26%}col.drift{width:8.5em}col.last{width:15.5em}th.timeline{text-align:right}
.sub{font-size:12px;color:#5b6472;overflow:hidden;text-overflow:ellipsis}
tr.store{cursor:pointer}tr.store:hover,tr.open{background:#eef3ff}tr.store:focus{outline:2px solid #6c8cff;outline-offset:-2px}
.tl{font:10px/11px "DejaVu Sans Mono",monospace;letter-spacing:0;white-space:pre;display:flex;justify-content:flex-end;overflow:hidden}
.tl .today{background:#fff0b3}
.st{padding:1px 6px;border-radius:8px;font-size:12px}.in-sync{background:#d8f3dc}.drifted{background:#ffe1a8}.error{background:#ffc9c9}.unknown{background:#e9ecef}
#panel{min-width:0;background:#fff;padding:12px 16px;border:1px solid #e3e6ea;overflow-wrap:anywhere;position:sticky;top:8px;max-height:calc(100vh - 16px);overflow-y:auto}
#panel h2{font-size:16px;margin:0 32px 8px 0}#panel h3{font-size:15px;margin:16px 0 6px;border-bottom:1px solid #e3e6ea}#panel h4{font-size:14px;margin:12px 0 4px}
#panel ul{padding-left:18px;margin:4px 0 8px}#panel p{margin:4px 0}
#close{position:absolute;top:8px;right:8px;padding:2px 8px}
.finding{margin:8px 0 12px}.fields,.by,.meta{font-size:13px;color:#3d4756}.meta span{display:block}
code,.mono{font-family:"DejaVu Sans Mono",monospace;font-size:12px}
button{padding:4px 12px}
`;

// The page's script: it runs on the embedded data only. Kept as plain ES2020 so any browser runs it.
const script = `
'use strict';
const data = JSON.parse(document.getElementById('dashboard-data').textContent);
const rank = ${JSON.stringify(markRank)};
const pageSize = 100;
let shown = pageSize;
let perMark = 1;
let drawn = [];
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; };
const add = (parent, tag, text, cls) => parent.appendChild(el(tag, text, cls));
const when = (at) => at.slice(0, 16).replace('T', ' ');
const statusFilter = document.getElementById('status');
const nameFilter = document.getElementById('name');
const main = document.querySelector('main');
const rows = document.getElementById('rows');
const more = document.getElementById('more');
const panel = document.getElementById('panel');
const timelineHead = document.getElementById('timeline-head');
const counts = { 'in-sync': 0, drifted: 0, error: 0, unknown: 0 };
for (const s of data.stores) counts[s.drift] += 1;
document.getElementById('counts').textContent = data.stores.length + ' stores: ' + counts['in-sync'] + ' in sync, ' + counts.drifted + ' drifted, ' + counts.error + ' with errors, ' + counts.unknown + ' without drift results';
const glyph = { '.': '\\u00b7', a: '\\u25cf', f: '\\u25b2', i: '\\u25a0', s: '\\u00b7', d: '\\u25c6', e: '\\u2716' };
/** The widest mark, as the timeline's font draws it (some marks come from a fallback font). */
const markWidth = (() => {
  const probe = el('div', undefined, 'tl');
  probe.style.cssText = 'position:absolute;visibility:hidden;display:block';
  document.body.appendChild(probe);
  let widest = 1;
  for (const g of Object.values(glyph)) { probe.textContent = g.repeat(20); widest = Math.max(widest, probe.getBoundingClientRect().width / 20); }
  probe.remove();
  return widest;
})();
/** Marks of per days each, counted back from today: the last mark always holds today. */
function marks(line) {
  const out = [];
  for (let end = line.length; end > 0; end -= perMark) {
    let worst = '.';
    for (let i = Math.max(0, end - perMark); i < end; i += 1) if (rank[line[i]] > rank[worst]) worst = line[i];
    out.push(glyph[worst] || ' ');
  }
  return out.reverse();
}
function drawTimeline(box, line, what) {
  const shownMarks = marks(line);
  const today = shownMarks.pop() || '';
  box.replaceChildren(el('span', shownMarks.join('')), el('span', today, 'today'));
  box.title = what + ', ' + (perMark === 1 ? 'a mark a day' : 'a mark for ' + perMark + ' days') + '; the last mark holds today';
}
function fitTimelines() {
  const room = timelineHead.getBoundingClientRect().width - 16;
  const per = Math.max(1, Math.ceil(data.days / Math.max(1, Math.floor(room / markWidth))));
  const changed = per !== perMark;
  perMark = per;
  document.getElementById('window').textContent = data.from + ' to ' + data.generatedAt + ' (' + data.days + ' days, ' + (perMark === 1 ? 'a mark a day' : 'a mark for ' + perMark + ' days') + ')';
  if (changed) for (const [store, applies, drifts] of drawn) { drawTimeline(applies, store.applies, 'applies'); drawTimeline(drifts, store.drifts, 'drift'); }
}
function filtered() {
  const status = statusFilter.value;
  const name = nameFilter.value.trim().toLowerCase();
  return data.stores.filter((s) => (status === 'all' || s.drift === status) && (name === '' || s.name.toLowerCase().includes(name)));
}
function cell(tr, text, sub) {
  const td = add(tr, 'td');
  add(td, 'bdi', text);
  td.title = text;
  if (sub !== undefined) add(td, 'div', sub, 'sub').title = sub;
}
function render() {
  const list = filtered();
  rows.replaceChildren();
  drawn = [];
  const fragment = document.createDocumentFragment();
  for (const store of list.slice(0, shown)) {
    const tr = el('tr', undefined, 'store');
    tr.dataset.drift = store.drift;
    tr.tabIndex = 0;
    cell(tr, store.name);
    const status = add(tr, 'td'); add(status, 'span', store.drift + (store.drifted ? ' (' + store.drifted + ')' : ''), 'st ' + store.drift);
    const by = [store.lastCommit, store.lastBy].filter((part) => part !== '').join(' \\u00b7 ');
    cell(tr, store.lastApply ? when(store.lastApply) + ' ' + store.lastStatus : 'never', by || undefined);
    const tl = add(tr, 'td');
    drawn.push([store, add(tl, 'div', undefined, 'tl'), add(tl, 'div', undefined, 'tl')]);
    tr.addEventListener('click', () => openStore(store, tr));
    tr.addEventListener('keydown', (event) => { if (event.key === 'Enter') openStore(store, tr); });
    fragment.appendChild(tr);
  }
  rows.appendChild(fragment);
  drawn.forEach(([store, applies, drifts]) => { drawTimeline(applies, store.applies, 'applies'); drawTimeline(drifts, store.drifts, 'drift'); });
  document.getElementById('matching').textContent = list.length + ' matching';
  more.hidden = list.length <= shown;
}
function showDrift(store) {
  add(panel, 'h3', 'Drift' + (store.driftAt ? ' \\u00b7 ' + when(store.driftAt) : ''));
  if (store.owners.length > 0) add(panel, 'p', 'Owners: ' + store.owners.join(', '), 'meta');
  if (store.drift === 'unknown') { add(panel, 'p', 'No drift result in the window: erpsync drift --all-targets keeps one each run.'); return; }
  if (store.drift === 'error') { add(panel, 'p', 'The latest drift could not tell: ' + (store.driftError || 'error')); return; }
  if (store.drift === 'in-sync') { add(panel, 'p', 'In sync: the account holds what the manifests declare.'); return; }
  if (store.records === null) { add(panel, 'p', store.drifted + ' drifted record(s); this result does not say which (it was kept before drift results held their records).'); return; }
  for (const record of store.records) {
    const box = add(panel, 'div', undefined, 'finding');
    const title = add(box, 'p'); add(title, 'strong', record.title + ': '); add(title, 'bdi', record.record);
    if (record.fields.length > 0) add(box, 'p', 'fields: ' + record.fields.join(', ') + (record.fieldsLeftOut ? ' and ' + record.fieldsLeftOut + ' more' : ''), 'fields');
    if (record.by) add(box, 'p', record.by, 'by');
  }
  if (store.recordsLeftOut > 0) add(panel, 'p', 'and ' + store.recordsLeftOut + ' more: erpsync drift --target lists them all, with their values.');
}
function showRuns(store) {
  add(panel, 'h3', 'Runs (' + store.runs + ' in the window)');
  if (store.recent.length === 0) { add(panel, 'p', 'No apply in the journal.'); return; }
  for (const [run, at, status, applied, failed, changes, more, commit, actor, runner] of store.recent) {
    add(panel, 'h4', when(at) + ' \\u00b7 ' + status + ' \\u00b7 ' + applied + ' applied' + (failed ? ', ' + failed + ' failed' : ''));
    const meta = add(panel, 'p', undefined, 'meta run-meta');
    add(meta, 'span', 'commit ' + commit, 'commit');
    add(meta, 'span', 'by ' + actor, 'actor');
    if (runner) add(meta, 'span', 'on ' + runner);
    add(meta, 'span', 'run ' + run, 'run-id mono');
    const ul = add(panel, 'ul');
    for (const [outcome, action, kind, key, fields] of changes) {
      const li = add(ul, 'li', outcome + ' \\u00b7 ' + action + ' ' + kind + ' \\u201c' + key + '\\u201d');
      if (fields.length > 0) { const inner = add(li, 'ul'); for (const field of fields) add(inner, 'li', field); }
    }
    if (more > 0) add(panel, 'p', 'and ' + more + ' more change(s): erpsync history ' + run);
  }
}
function closeStore() {
  panel.hidden = true;
  main.classList.remove('open');
  for (const open of rows.querySelectorAll('tr.open')) open.classList.remove('open');
}
function openStore(store, tr) {
  for (const open of rows.querySelectorAll('tr.open')) open.classList.remove('open');
  tr.classList.add('open');
  const close = el('button', '\\u00d7');
  close.id = 'close';
  close.title = 'Close';
  close.addEventListener('click', closeStore);
  panel.replaceChildren(close);
  add(add(panel, 'h2'), 'bdi', store.name);
  add(panel, 'p', (store.account ? store.account + ' \\u00b7 ' : '') + 'drift: ' + store.drift);
  showDrift(store);
  showRuns(store);
  panel.hidden = false;
  main.classList.add('open');
  panel.scrollTop = 0;
  // Below 900 px the panel sits above the table, out of view once the list was scrolled: bring it back.
  if (panel.getBoundingClientRect().top < 0) panel.scrollIntoView({ block: 'start' });
}
statusFilter.addEventListener('change', () => { shown = pageSize; render(); });
nameFilter.addEventListener('input', () => { shown = pageSize; render(); });
more.addEventListener('click', () => { shown += pageSize; render(); });
document.addEventListener('keydown', (event) => { if (event.key === 'Escape' && !panel.hidden) closeStore(); });
fitTimelines();
render();
new ResizeObserver(fitTimelines).observe(timelineHead);
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
<p class="bar">Timelines, today last: applies (\u25cf ok, \u25b2 failed, \u25a0 interrupted), then drift (\u25c6 drifted, \u2716 error, \u00b7 in sync or nothing). A store opens to what drifted and who changed it, and its last runs with their commit and actor.</p>
<main>
<div>
<table><colgroup><col class="name"><col class="drift"><col class="last"><col></colgroup>
<thead><tr><th>Store</th><th>Drift</th><th>Last apply</th><th id="timeline-head" class="timeline">Timeline, today last</th></tr></thead><tbody id="rows"></tbody></table>
<p class="bar"><button id="more" hidden>Show more</button></p>
</div>
<section id="panel" hidden></section>
</main>
<script type="application/json" id="dashboard-data">${embedJson(model)}</script>
<script>${script}</script>
</body>
</html>
`;
}
