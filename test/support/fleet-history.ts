// A fleet's history for the dashboard, generated directly as journal files and drift results (not
// by running thousands of applies): each store applies every third day (two payment-method
// updates a run, one key a hostile name), every 5th store drifts from day 20 on, store 3's drift
// run errs, store 9 was killed on its last run. Used by the browser test (200 × 30) and the bench
// (1,000 × 90); also the Chromium both start, Debian's own (never a browser a library downloads).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';

export const chromiumPath = '/usr/bin/chromium';
const chromiumFlags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Headless Chromium with a profile in `profile`. */
export function openChromium(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, { executablePath: chromiumPath, headless: true, args: chromiumFlags });
}

/** Collects the page's console errors, uncaught errors and dialogs (dismissed) into `problems`. */
export function watchPageProblems(page: Page, problems: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
}

export interface FleetHistory {
  stores: number;
  days: number;
  /** The last day, `YYYY-MM-DD`. */
  today: string;
  storeName: (i: number) => string;
}

/** Day d (0 = the first) at hour h, as an ISO time. */
function at(history: FleetHistory, d: number, h = 3): string {
  return new Date(Date.parse(`${history.today}T00:00:00.000Z`) - (history.days - 1 - d) * 86_400_000 + h * 3_600_000).toISOString();
}

function driftOf(i: number, d: number): { changes: number; error?: string } {
  if (i === 3) return { changes: 0, error: 'token rejected' };
  return { changes: i % 5 === 0 && d >= 20 ? 2 : 0 };
}

/** Writes `.erpsync/journal/*.jsonl` and `drift/drift-DAY.json` under `dir`. */
export function writeFleetHistory(dir: string, history: FleetHistory): void {
  const { stores, days, storeName } = history;
  const journal = path.join(dir, '.erpsync/journal');
  mkdirSync(journal, { recursive: true });
  mkdirSync(path.join(dir, 'drift'), { recursive: true });
  for (let d = 0; d < days; d += 1) {
    const time = at(history, d);
    for (let i = 0; i < stores; i += 1) {
      if ((d + i) % 3 !== 0) continue;
      const run = `${time.replace(/[-:.]/g, '')}-${String(i).padStart(6, '0')}`;
      const header = { type: 'run', formatVersion: 1, run, startedAt: time, erpsyncVersion: '0.1.0', source: 'manifests', git: { revision: 'a'.repeat(40), dirty: false }, target: { name: storeName(i), id: `sandbox:${i}`, mode: 'sandbox' }, account: { id: `acc-${i}`, nome: `Loja ${i} <Ltda>`, cnpj: '' }, actor: { type: 'ci', url: 'https://ci.example/run/1' }, changes: 2 };
      const change = (n: number) => ({ type: 'change', at: time, change: `c${n}`, action: 'update', reason: 'drift', kind: 'formasPagamentos', key: n === 0 ? '<script>alert(1)</script>' : `Pix ${d}`, liveId: 100 + n, outcome: 'applied', id: 100 + n, fields: [{ path: 'juros', before: 1, after: 2 }] });
      const killed = i === 9 && d + 3 >= days;
      const lines = [header, change(0), change(1), ...(killed ? [] : [{ type: 'end', at: time, applied: 2, failed: 0, skipped: 0, interrupted: false, notConverged: [] }])];
      writeFileSync(path.join(journal, `${run}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    }
    const rows = Array.from({ length: stores }, (_, i) => ({ target: storeName(i), changes: driftOf(i, d).changes, ...(driftOf(i, d).error ? { error: driftOf(i, d).error } : {}), exitCode: 2, seconds: 1 }));
    writeFileSync(path.join(dir, 'drift', `drift-${time.slice(0, 10)}.json`), JSON.stringify({ formatVersion: 1, command: 'drift', rows, exitCode: 2, seconds: 3 }));
  }
}
