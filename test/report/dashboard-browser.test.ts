// The fleet dashboard in a real headless browser: 200 sandbox stores with 30 days of history,
// generated directly as journal files and drift results (not by running 6,000 applies), rendered by
// `erpsync report --html` and opened from disk in Debian's Chromium (never a browser a library
// downloads). It loads without console errors, hostile names stay text, the drift filter and the
// name filter work, a store opens to its changes, the screenshot is not empty, the file is < 2 MB.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { runCli } from '../support/run-cli.js';

const chromiumPath = '/usr/bin/chromium';
const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const stores = 200;
const days = 30;
const today = '2026-11-26';
const hostile = '<img src=x onerror="window.__pwned=1">"</script><b>loja';

let dir: string;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];
let html: string;

function storeName(i: number): string {
  return i === 7 ? hostile : `lojas/loja-${String(i).padStart(3, '0')}`;
}

/** Day d (0 = 29 days ago) at hour h, as an ISO time. */
function at(d: number, h = 3): string {
  return new Date(Date.parse(`${today}T00:00:00.000Z`) - (days - 1 - d) * 86_400_000 + h * 3_600_000).toISOString();
}

/** What the drift results say of store i on day d: every 5th store drifts from day 20 on, store 3 errs. */
function driftOf(i: number, d: number): { changes: number; error?: string } {
  if (i === 3) return { changes: 0, error: 'token rejected' };
  return { changes: i % 5 === 0 && d >= 20 ? 2 : 0 };
}

function generate(): void {
  const journal = path.join(dir, '.erpsync/journal');
  mkdirSync(journal, { recursive: true });
  mkdirSync(path.join(dir, 'drift'));
  for (let d = 0; d < days; d += 1) {
    for (let i = 0; i < stores; i += 1) {
      // Every store applies every third day; store 9 was killed on its last run.
      if ((d + i) % 3 !== 0) continue;
      const run = `${at(d).replace(/[-:.]/g, '')}-${String(i).padStart(6, '0')}`;
      const header = { type: 'run', formatVersion: 1, run, startedAt: at(d), erpsyncVersion: '0.1.0', source: 'manifests', git: { revision: 'a'.repeat(40), dirty: false }, target: { name: storeName(i), id: `sandbox:${i}`, mode: 'sandbox' }, account: { id: `acc-${i}`, nome: `Loja ${i} <Ltda>`, cnpj: '' }, actor: { type: 'ci', url: 'https://ci.example/run/1' }, changes: 2 };
      const change = (n: number) => ({ type: 'change', at: at(d), change: `c${n}`, action: 'update', reason: 'drift', kind: 'formasPagamentos', key: n === 0 ? '<script>alert(1)</script>' : `Pix ${d}`, liveId: 100 + n, outcome: 'applied', id: 100 + n, fields: [{ path: 'juros', before: 1, after: 2 }] });
      const killed = i === 9 && d + 3 >= days;
      const lines = [header, change(0), change(1), ...(killed ? [] : [{ type: 'end', at: at(d), applied: 2, failed: 0, skipped: 0, interrupted: false, notConverged: [] }])];
      writeFileSync(path.join(journal, `${run}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    }
    const rows = Array.from({ length: stores }, (_, i) => ({ target: storeName(i), changes: driftOf(i, d).changes, ...(driftOf(i, d).error ? { error: driftOf(i, d).error } : {}), exitCode: 2, seconds: 1 }));
    writeFileSync(path.join(dir, 'drift', `drift-${at(d).slice(0, 10)}.json`), JSON.stringify({ formatVersion: 1, command: 'drift', rows, exitCode: 2, seconds: 3 }));
  }
}

beforeAll(async () => {
  expect(existsSync(chromiumPath), 'Debian chromium (apt-get install chromium; .ci/run installs it)').toBe(true);
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-dashboard-'));
  generate();
  const result = await runCli(['report', '--html', 'fleet.html', '--drift', 'drift', '--days', '30'], { cwd: dir, env: { ERPSYNC_TODAY: today } });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain(`Wrote the dashboard of ${stores} store(s) to fleet.html`);
  html = path.join(dir, 'fleet.html');
  context = await chromium.launchPersistentContext(path.join(dir, 'profile'), { executablePath: chromiumPath, headless: true, args: flags });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('request', (request) => {
    if (!request.url().startsWith('file:') && !request.url().startsWith('data:')) problems.push(`request: ${request.url()}`);
  });
  await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
}, 120_000);

afterAll(async () => {
  await context?.close();
  rmSync(dir, { recursive: true, force: true });
});

const visibleDrift = async () => Promise.all((await page.locator('#rows tr').all()).map((row) => row.getAttribute('data-drift')));
/** The page has no DOM types here: conditions run in the page as text. */
const matching = (count: number) => page.waitForFunction(`document.querySelector('#matching').textContent === '${count} matching'`);

describe('the fleet dashboard in headless Chromium', () => {
  it('loads from disk without console errors or requests, and the file is under 2 MB', async () => {
    await page.waitForSelector('#rows tr');
    expect(await page.textContent('#matching')).toBe(`${stores} matching`);
    expect(await page.textContent('#counts')).toBe(`${stores} stores: 159 in sync, 40 drifted, 1 with errors, 0 without drift results`);
    // A page of rows at a time: the rest on request.
    expect(await page.locator('#rows tr').count()).toBe(100);
    expect(statSync(html).size).toBeLessThan(2 * 1024 * 1024);
    expect(problems).toEqual([]);
  });

  it('filters by drift status and by name; hostile names stay text', async () => {
    await page.selectOption('#status', 'drifted');
    await matching(40);
    expect(new Set(await visibleDrift())).toEqual(new Set(['drifted']));
    await page.selectOption('#status', 'error');
    await matching(1);
    expect(await page.textContent('#rows tr td')).toBe('lojas/loja-003');
    await page.selectOption('#status', 'all');
    await page.fill('#name', 'onerror');
    await matching(1);
    expect(await page.textContent('#rows tr td')).toBe(hostile);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('a store opens to its last runs and their changes; an interrupted run says so', async () => {
    await page.fill('#name', 'loja-009');
    await matching(1);
    await page.click('#rows tr');
    await page.waitForSelector('#panel:not([hidden])');
    const panel = (await page.textContent('#panel')) ?? '';
    expect(panel).toContain('lojas/loja-009');
    expect(panel).toContain('interrupted');
    expect(panel).toContain('applied · update formasPagamentos “<script>alert(1)</script>”');
    const shot = await page.screenshot({ fullPage: true });
    expect(shot.length).toBeGreaterThan(10_000);
    // Not one flat colour: a PNG of a blank page compresses to almost nothing.
    expect(new Set(shot.subarray(100, 4000)).size).toBeGreaterThan(50);
    expect(problems).toEqual([]);
  });
});
