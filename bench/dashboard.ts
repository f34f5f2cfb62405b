// The fleet dashboard's figures (issue 27): `erpsync report --html` for 200 stores × 30 days (the
// size the browser test opens) and for 1,000 stores × 90 days (the size the issue asks to stay fast
// with), the same generated history at both sizes (test/support/fleet-history.ts). Per size: the
// file's bytes, the built CLI's wall time to write it, and in Debian's headless Chromium the time
// from navigation to the first rows and from choosing the drift filter to its rows, with the ratio
// of the large to the small. A benchmark: it asserts nothing; console errors are counted and shown.
import { mkdtempSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openChromium, writeFleetHistory } from '../test/support/fleet-history.js';
import type { Spread } from './measure.js';
import { runBuiltCli, spreadOf } from './measure.js';

const today = '2026-11-26';
const sizes = [
  { stores: 200, days: 30 },
  { stores: 1000, days: 90 },
] as const;

export interface DashboardRow {
  stores: number;
  days: number;
  bytes: number;
  reportMs: Spread;
  loadMs: Spread;
  filterMs: Spread;
  consoleErrors: number;
}

async function timeInBrowser(file: string, stores: number, runs: number, profile: string): Promise<Pick<DashboardRow, 'loadMs' | 'filterMs' | 'consoleErrors'>> {
  const context = await openChromium(profile);
  const load: number[] = [];
  const filter: number[] = [];
  let consoleErrors = 0;
  try {
    for (let run = 0; run < runs; run += 1) {
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors += 1;
      });
      page.on('pageerror', () => (consoleErrors += 1));
      const started = performance.now();
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      await page.waitForSelector('#rows tr');
      load.push(performance.now() - started);
      const chosen = performance.now();
      await page.selectOption('#status', 'drifted');
      await page.waitForFunction(`document.querySelector('#matching').textContent !== '${stores} matching'`);
      filter.push(performance.now() - chosen);
      await page.close();
    }
  } finally {
    await context.close();
  }
  return { loadMs: spreadOf(load), filterMs: spreadOf(filter), consoleErrors };
}

/** Both sizes, `runs` times each (the medians are shown). */
export async function measureDashboard(workDir: string, runs: number): Promise<DashboardRow[]> {
  const rows: DashboardRow[] = [];
  for (const { stores, days } of sizes) {
    const dir = mkdtempSync(path.join(workDir, `dashboard-${stores}-`));
    writeFleetHistory(dir, { stores, days, today, storeName: (i) => `lojas/loja-${String(i).padStart(4, '0')}` });
    const report: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const written = await runBuiltCli(['report', '--html', 'fleet.html', '--drift', 'drift', '--days', String(days)], { ERPSYNC_TODAY: today }, dir);
      if (written.code !== 0) throw new Error(`erpsync report --html exited ${written.code}: ${written.stderr}`);
      report.push(written.wallMs);
    }
    const file = path.join(dir, 'fleet.html');
    rows.push({ stores, days, bytes: statSync(file).size, reportMs: spreadOf(report), ...(await timeInBrowser(file, stores, runs, path.join(dir, 'profile'))) });
  }
  return rows;
}

const ms = (spread: Spread) => `${Math.round(spread.median)} ms [${Math.round(spread.min)}–${Math.round(spread.max)}]`;
const ratio = (large: number, small: number) => `${(large / small).toFixed(2)}×`;

export function renderDashboardSection(rows: readonly DashboardRow[], runs: number): string {
  const [small, large] = rows;
  const lines = [
    '## Fleet dashboard (issue 27)',
    '',
    `\`erpsync report --html\` of a generated history (test/support/fleet-history.ts), ${runs} run(s) each; the browser is Debian's headless Chromium, a new page per run.`,
    '',
    '| fleet | file | `report --html` (wall) | open to first rows | drift filter | console errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.stores} stores × ${r.days} days | ${(r.bytes / 1024 / 1024).toFixed(2)} MB | ${ms(r.reportMs)} | ${ms(r.loadMs)} | ${ms(r.filterMs)} | ${r.consoleErrors} |`),
  ];
  if (small && large) {
    lines.push(`| large ÷ small | ${ratio(large.bytes, small.bytes)} | ${ratio(large.reportMs.median, small.reportMs.median)} | ${ratio(large.loadMs.median, small.loadMs.median)} | ${ratio(large.filterMs.median, small.filterMs.median)} | |`);
    lines.push('', `The large fleet holds ${ratio(large.stores * large.days, small.stores * small.days)} the store-days of the small one.`);
  }
  return `${lines.join('\n')}\n`;
}
