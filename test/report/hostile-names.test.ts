// Names typed into the ERP (or a manifest) that are markup, fences, mentions, XML terminators,
// control characters, U+FFFE or lone surrogates stay inert in every report a CI posts: the
// Markdown of `plan` and `drift`, rendered by a CommonMark renderer with raw HTML allowed, holds no
// element or comment a name brought in (GitHub renders raw HTML the same way), and `drift --format
// junit` parses as XML with a strict parser. The account is the sandbox emulator, over HTTP.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

/** Each name, as a YAML double-quoted scalar (escapes included). */
const hostile = [
  '<!-- hide the rest',
  '<img src=x onerror=alert(1)>',
  '<details><summary>fake</summary>',
  '</details></summary><script>alert(1)</script>',
  '```\\n<b>fenced</b>\\n```',
  '~~~~ <i>tilde</i>',
  '@mallory please merge',
  '[link](https://evil.example) https://evil.example',
  '<a href=\\"https://evil.example\\">a</a> www.evil.example',
  'CDATA ]]> <![CDATA[ x ]]> end',
  'control \\x01 \\x1b[31m red \\x7f \\x0b end',
  'nonchar \\uFFFE \\uFFFF',
  'lone \\uD800 and \\uDC00 surrogates',
  '| pipe | `tick` *star* _under_ <br>',
];
/** Elements and comments a name would bring in if it reached the HTML raw. */
const markupFromNames = /<(img|script|b|i|a)[\s>]|<summary>fake|<!--|<!\[CDATA/i;

const manifestOf = (names: readonly string[], prune = false) =>
  ['version: 1', ...(prune ? ['policy:', '  prune: [gruposProdutos]'] : []), 'gruposProdutos:', ...names.map((n) => `  - nome: "${n}"`), ''].join('\n');

let dir: string;
const env = () => ({ ERPSYNC_LOCK_DIR: path.join(dir, 'locks') });
const run = (args: string[]) => runCli([...args, '--sandbox'], { cwd: dir, env: env() });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-hostile-names-'));
  writeFileSync(path.join(dir, 'hostile.yaml'), manifestOf(hostile));
  writeFileSync(path.join(dir, 'other.yaml'), manifestOf(['Outro']));
  writeFileSync(path.join(dir, 'prune.yaml'), manifestOf(['Outro'], true));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const markdown = new MarkdownIt({ html: true });

/** The HTML elements and comments of the rendered Markdown that erpsync did not write itself. */
function expectInert(text: string): void {
  const html = markdown.render(text);
  // Every tag left is one of erpsync's own: its details blocks, code, tables, emphasis of its headings.
  const tags = [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)|<!--/g)].map((m) => (m[1] ?? '!--').toLowerCase());
  const own = new Set(['details', 'summary', 'code', 'pre', 'p', 'h2', 'h3', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'ul', 'li', 'blockquote', 'br', 'em', 'hr']);
  expect(tags.filter((t) => !own.has(t))).toEqual([]);
  expect(html).not.toMatch(markupFromNames);
  // Each name's details block stays one block: as many open as close, and a summary per details.
  expect(html.match(/<details>/g)?.length ?? 0).toBe(html.match(/<\/details>/g)?.length ?? 0);
  expect(html.match(/<summary>/g)?.length ?? 0).toBe(html.match(/<\/summary>/g)?.length ?? 0);
  // No mention or address GitHub would link: `@` and `://` outside code are broken by a word joiner.
  const outsideCode = html.replace(/<code[^>]*>[\s\S]*?<\/code>/g, '');
  expect(outsideCode).not.toMatch(/@mallory|https:\/\/evil/);
}

function expectWellFormedXml(xml: string): void {
  const parser = new SaxesParser();
  const errors: string[] = [];
  parser.on('error', (error) => errors.push(error.message));
  let cases = 0;
  parser.on('opentag', (tag) => {
    if (tag.name === 'testcase') cases += 1;
  });
  parser.write(xml).close();
  expect(errors).toEqual([]);
  expect(cases).toBeGreaterThanOrEqual(hostile.length);
}

describe('hostile names in reports', () => {
  it('plan --format markdown of creating them, then of pruning them', async () => {
    const creates = await run(['plan', 'hostile.yaml', '--format', 'markdown']);
    expect(creates.code, creates.stderr).toBe(0);
    expect(creates.stdout).toContain('erpsync plan');
    expectInert(creates.stdout);
    const applied = await run(['apply', 'hostile.yaml', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const prunes = await run(['plan', 'prune.yaml', '--format', 'markdown']);
    expect(prunes.code, prunes.stderr).toBe(0);
    expect(prunes.stdout).toContain(`${hostile.length} record(s) will be deleted`);
    expectInert(prunes.stdout);
  });

  it('drift --format markdown: unmanaged (in details blocks) and modified or missing (in tables)', async () => {
    const drift = await run(['drift', 'other.yaml', '--format', 'markdown']);
    expect(drift.code, drift.stderr).toBe(2);
    expect(drift.stdout).toContain(`Unmanaged (${hostile.length})`);
    expectInert(drift.stdout);
  });

  it('drift --format junit parses as XML, every name a test case', async () => {
    const drift = await run(['drift', 'other.yaml', '--format', 'junit']);
    expect(drift.code, drift.stderr).toBe(2);
    expectWellFormedXml(drift.stdout);
    expect(drift.stdout).not.toContain(']]>');
  });
});
