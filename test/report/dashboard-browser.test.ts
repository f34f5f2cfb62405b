// The fleet dashboard in a real headless browser: 200 sandbox stores with 30 days of history,
// generated directly as journal files and drift results (not by running 6,000 applies), rendered by
// `erpsync report --html` and opened from disk in Debian's Chromium (never a browser a library
// downloads). It loads without console errors, hostile names stay text, the drift filter and the
// name filter work, a store opens to its changes, the screenshot is not empty, the file is < 2 MB.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { runCli } from '../support/run-cli.js';
import { chromiumPath, openChromium, watchPageProblems, writeFleetHistory } from '../support/fleet-history.js';

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

beforeAll(async () => {
  expect(existsSync(chromiumPath), 'Debian chromium (apt-get install chromium; .ci/run installs it)').toBe(true);
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-dashboard-'));
  writeFleetHistory(dir, { stores, days, today, storeName });
  const result = await runCli(['report', '--html', 'fleet.html', '--drift', 'drift', '--days', '30'], { cwd: dir, env: { ERPSYNC_TODAY: today } });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain(`Wrote the dashboard of ${stores} store(s) to fleet.html`);
  html = path.join(dir, 'fleet.html');
  context = await openChromium(path.join(dir, 'profile'));
  page = context.pages()[0] ?? (await context.newPage());
  watchPageProblems(page, problems);
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

  it('shows each store\'s timelines; a store opens to its last runs and their changes; an interrupted run says so', async () => {
    // The timelines, one mark a day: a drifting store's drift line ends in ◆; loja-009's last apply was killed (■).
    await page.fill('#name', 'loja-010');
    await matching(1);
    const [applies010, drifts010] = await page.locator('#rows tr .tl').allTextContents();
    expect(applies010).toContain('\u25cf');
    expect(drifts010?.trimEnd().endsWith('\u25c6')).toBe(true);
    expect(drifts010).toHaveLength(days);
    await page.fill('#name', 'loja-009');
    await matching(1);
    expect(await page.locator('#rows tr .tl').first().textContent()).toContain('\u25a0');
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
