// Text from the account or the manifests (names, notes, warnings that quote them) on its way into
// Markdown that GitHub renders in a pull-request comment. Whatever it holds, it must stay text: no
// raw HTML tag or comment (`<!-- hide` would swallow the rest of the comment), no emphasis, link,
// autolink or @mention, no code fence it could close. Each context has its own escape:
//  - markdownText: running text (a table cell, a quote, a sentence): HTML-escaped, the marks
//    that open Markdown constructs backslash-escaped, and `@`, `://` and `www.` broken with a word joiner
//    (U+2060, invisible) so GitHub links no user and no address;
//  - codeSpan: a name in Markdown, as inline code (which renders no HTML, link or mention);
//  - htmlCode: a name inside an HTML block (`<details><summary>`), where Markdown does not apply;
//  - fenceFor: a code-block fence longer than any run of backticks in its lines.
// Every one goes through printable() first, so control characters cannot break a line or drive
// a terminal that shows the raw text.
import { printable } from '../model/printable.js';

const wordJoiner = '\u2060';

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

/** Running Markdown text that renders exactly as `raw` reads, with no markup of its own. */
export function markdownText(raw: string): string {
  const broken = printable(raw)
    .replaceAll('@', `@${wordJoiner}`)
    .replaceAll('://', `:${wordJoiner}//`)
    .replace(/www\./gi, (www) => `${www.slice(0, 3)}${wordJoiner}.`);
  const numbered = /^\d+$/;
  let out = '';
  for (const [index, c] of [...broken].entries()) {
    const startsList = (index === 0 && '-+='.includes(c)) || ((c === '.' || c === ')') && numbered.test(broken.slice(0, index)));
    if (c === '&' || c === '<' || c === '>') out += escapeHtml(c);
    // What opens emphasis, code, links, images, tables, strikethrough and headings anywhere, and lists or rules at a line's start.
    else if ('\\`*_[]|~#!'.includes(c) || startsList) out += `\\${c}`;
    else out += c;
  }
  return out;
}

/** A name as inline code: a fence longer than any backtick run inside, and `<code>` where a span cannot hold it. */
export function codeSpan(raw: string): string {
  const text = printable(raw);
  // An empty or all-space span is not a code span; a pipe would split a table cell.
  if (text.trim() === '' || text.includes('|')) return htmlCode(raw);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const padded = /^[` ]|[` ]$/.test(text) ? ` ${text} ` : text;
  return `${fence}${padded}${fence}`;
}

/** A name as an HTML `<code>` element: for HTML blocks, and wherever a code span cannot hold it. */
export function htmlCode(raw: string): string {
  // `|` as an entity: inside a GFM table even HTML is split at a raw pipe.
  return `<code>${escapeHtml(printable(raw)).replaceAll('|', '&#124;')}</code>`;
}

/** Running text inside an HTML block (a `<summary>`): escaped, and free of mentions and autolinks. */
export function htmlText(raw: string): string {
  return escapeHtml(printable(raw).replaceAll('@', `@${wordJoiner}`).replaceAll('://', `:${wordJoiner}//`)).replaceAll('|', '&#124;');
}

/** A fence for a code block holding `lines`: longer than any run of backticks in them. */
export function fenceFor(lines: readonly string[]): string {
  const longest = Math.max(0, ...lines.flatMap((line) => line.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longest + 1));
}
