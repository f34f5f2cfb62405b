// Issue 35, must show: `report --html` tells each store's story from the shared backend — what its
// latest drift found (records, fields, who or what changed them) and what each run changed, with
// its commit and actor, every runner's runs included — and is usable on a laptop and a wide
// screen. A 20-store fleet with hostile and very long names, written into PostgreSQL by two
// runners (test/support/fleet-story.ts), rendered with the default 90 days from a third folder,
// opened in Debian's Chromium at 1280, 1440 and 1920 px: the page never scrolls sideways, every
// drifted store's last timeline mark is today's drift and in view, an opened store's panel takes at
// least a third of the width and shows its drifted records and its last run's commit and actor,
// and no name runs as markup.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumPath, openChromium, watchPageProblems } from '../support/fleet-history.js';
import type { StoryStore } from '../support/fleet-story.js';
import { hostileChange, hostileChangeStore, hostileRecord, hostileRecordStore, storyToday, writeFleetStory } from '../support/fleet-story.js';
import { freshBackend } from '../support/postgres.js';
import type { TestBackend } from '../support/postgres.js';
import { runCli } from '../support/run-cli.js';

const widths = [1280, 1440, 1920];

let dir: string;
let backend: TestBackend;
let story: StoryStore[];
let html: string;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  expect(existsSync(chromiumPath), 'Debian chromium (apt-get install chromium; .ci/run installs it)').toBe(true);
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-dashboard-story-'));
  backend = freshBackend();
  const folder = (name: string) => {
    mkdirSync(path.join(dir, name), { recursive: true });
    return path.join(dir, name);
  };
  story = await writeFleetStory(backend, folder);
  const result = await runCli(['report', '--html', 'fleet.html'], { cwd: folder('reader'), env: { ...backend.env, ERPSYNC_TODAY: storyToday } });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain(`Wrote the dashboard of ${story.length} store(s) to fleet.html`);
  html = pathToFileURL(path.join(dir, 'reader', 'fleet.html')).href;
  context = await openChromium(path.join(dir, 'profile'));
  page = context.pages()[0] ?? (await context.newPage());
  watchPageProblems(page, problems);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await backend?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** The page has no DOM types here: measurements run in the page as text. */
const noSidewaysScroll = `document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth`;
/** Every drifted store's drift timeline ends in ◆, today's mark, inside its cell and the window. */
const todayInView = `[...document.querySelectorAll('#rows tr[data-drift="drifted"]')].every((tr) => {
  const today = tr.querySelector('td:last-child .tl:last-child .today');
  if (!today || today.textContent !== '\\u25c6') return false;
  const mark = today.getBoundingClientRect();
  const cell = tr.lastElementChild.getBoundingClientRect();
  return mark.width > 0 && mark.left >= cell.left && mark.right <= cell.right && mark.right <= document.scrollingElement.clientWidth;
})`;

async function openStore(store: StoryStore): Promise<string> {
  await page.fill('#name', store.name);
  await page.waitForFunction(`document.querySelector('#matching').textContent === '1 matching'`);
  await page.click('#rows tr');
  await page.waitForSelector('#panel:not([hidden])');
  return (await page.textContent('#panel')) ?? '';
}

describe('the dashboard tells each store\'s story at laptop and wide widths', () => {
  for (const width of widths) {
    it(`at ${width} px: no sideways scroll, today's drift in view, an opened store's panel a third of the width with its records, commit and actor`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(html, { waitUntil: 'load' });
      await page.waitForSelector('#rows tr');
      expect(await page.textContent('#matching')).toBe(`${story.length} matching`);
      expect(await page.evaluate(noSidewaysScroll)).toBe(true);
      await page.waitForFunction(todayInView);

      // A drifted store with a hostile, very long name opens to its story.
      const drifted = story.find((s) => s.drifted && !s.countOnly && s.name.length > 100);
      if (!drifted) throw new Error('the story has no drifted store with a long name');
      const panel = await openStore(drifted);
      expect(await page.textContent('#rows tr.open .sub')).toBe(drifted.lastInTable);
      const box = await page.locator('#panel').boundingBox();
      expect(box?.width ?? 0).toBeGreaterThanOrEqual(width / 3);
      expect(await page.evaluate(noSidewaysScroll)).toBe(true);
      expect(panel).toContain(drifted.name);
      expect(panel).toContain('Owners: @agencia/lojas, maria');
      expect(panel).toContain('Modified in the ERP: formasPagamentos "Pix 2"');
      expect(panel).toContain('fields: taxas.aliquota, taxas.valor');
      expect(panel).toMatch(/changed in the ERP since erpsync run \S+ \(2026-11-24T05:00:00\.000Z\), the last run that touched it \(that run applied planned at [0-9a-f]{12}, applied at [0-9a-f]{12}, by deployer /);
      expect(panel).toContain('Pending from git: formasPagamentos "Boleto"fields: descricao and 2 more');
      expect(panel).toContain('Missing from the ERP: gruposProdutos "Atacado"');
      expect(panel).toContain('no erpsync run in the journal touched this record');
      expect(panel).toContain('and 2 more: erpsync drift --target lists them all');
      const lastRun = (await page.locator('#panel .run-meta').first().textContent()) ?? '';
      expect(lastRun).toContain(`commit ${drifted.lastCommit}`);
      expect(lastRun).toContain(`by ${drifted.lastActor}`);
      expect(lastRun).toContain(`on ${drifted.lastRunner}`);
      // The table narrowed for the panel: the timelines were fitted again, today's mark still in view.
      await page.fill('#name', '');
      await page.waitForFunction(`document.querySelector('#matching').textContent === '${story.length} matching'`);
      await page.waitForFunction(`${noSidewaysScroll} && ${todayInView}`);
      expect(problems).toEqual([]);
    });
  }

  it('shows both runners\' runs, an older result without records, and keeps every hostile name text', async () => {
    const recordPanel = await openStore(story[hostileRecordStore] as StoryStore);
    expect(recordPanel).toContain(`Modified in the ERP: formasPagamentos "${hostileRecord}"`);
    const changePanel = await openStore(story[hostileChangeStore] as StoryStore);
    expect(changePanel).toContain(`applied · update formasPagamentos “${hostileChange}”`);
    const laptop = story.find((s) => s.lastRunner.startsWith('host ') && !s.drifted);
    const countOnly = story.find((s) => s.countOnly);
    if (!laptop || !countOnly) throw new Error('the story lacks a store applied last from the laptop, or one with a count-only result');
    const laptopPanel = await openStore(laptop);
    expect(laptopPanel).toContain(`by ${laptop.lastActor}`);
    expect(laptopPanel).toContain(`commit ${laptop.lastCommit}`);
    expect(laptopPanel).toContain('In sync: the account holds what the manifests declare.');
    expect(await openStore(countOnly)).toContain('1 drifted record(s); this result does not say which');
    // The bidi override and zero-width space of a name are shown as escapes, not obeyed.
    await page.fill('#name', 'moc.live');
    await page.waitForFunction(`document.querySelector('#matching').textContent === '1 matching'`);
    expect(await page.textContent('#rows tr td')).toBe('loja \\u202e moc.live \\u200b <!-- -->');
    await page.fill('#name', '');
    await page.waitForFunction(`document.querySelector('#matching').textContent === '${story.length} matching'`);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('img, b').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(2);
    expect(problems).toEqual([]);
  });
});
