// The drift report as GitHub-flavoured markdown, for a pull-request comment or a step summary.
// Those hold about 65,536 characters, so the output is capped (60,000 by default): it is cut
// between findings, never inside one, and the last lines say where it was cut and where the full
// report is. Pure: a string out.
import { printable } from '../model/printable.js';
import { fenceFor, htmlCode, htmlText, markdownText } from './markdown-escape.js';
import type { DriftRenderOptions } from './drift-format.js';
import {
  describeAccountOwn,
  describeAttribution,
  describeCoverage,
  describeFindingCounts,
  describePendingBasis,
  findingExplanations,
  findingTitles,
  fieldChangeParts,
  shownId,
} from './drift-format.js';
import { findingTypes } from '../model/drift.js';
import type { DriftFinding, DriftReport } from '../model/drift.js';

export const defaultMarkdownLimit = 60_000;

export interface DriftMarkdownOptions extends DriftRenderOptions {
  /** Most characters of the output. */
  maxChars?: number;
  /** Where the full report is (a file, an artifact URL), said when the output is cut. */
  fullReport?: string;
}

/** A piece of the output that is kept or dropped whole; `finding` marks the piece that shows one. */
interface Chunk {
  text: string;
  finding?: DriftFinding;
  section?: string;
}

/** Inline code that survives any content: backticks, pipes and line breaks included. */
function code(raw: string): string {
  const text = printable(raw, { keepLineBreaks: true });
  const escaped = text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('|', '&#124;').replaceAll('\n', '<br>');
  return text.includes('`') || text.includes('\n') || text.includes('|') ? `<code>${escaped}</code>` : `\`${text}\``;
}

function sentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** Running text from outside (a note, a warning, a target's name): inert Markdown, line breaks as `<br>`. */
function cell(text: string): string {
  return text.split('\n').map(markdownText).join('<br>');
}

function findingRow(finding: DriftFinding, options: DriftRenderOptions): string {
  const changes = finding.fields.map((field) => {
    const parts = fieldChangeParts(finding, field, options);
    return parts ? `${code(field.path)}: ${code(parts.from)} → ${code(parts.to)}` : `${code(field.path)}: (sensitive) differs`;
  });
  const origin = describeAttribution(finding);
  const details = [...changes, ...(finding.note ? [`_${cell(finding.note)}_`] : []), ...(origin ? [`_${cell(origin)}_`] : [])].join('<br>');
  return `| ${code(finding.kind)} | ${code(finding.key)} | ${shownId(finding, options) ?? ''} | ${details} |\n`;
}

function unmanagedBlock(finding: DriftFinding, options: DriftRenderOptions): string {
  // An HTML block: Markdown does not apply inside it, so the names are HTML-escaped, not quoted as code spans.
  const summary = `${htmlCode(finding.kind)} ${htmlCode(finding.key)}${finding.note ? ` — ${htmlText(finding.note)}` : ''}`;
  const liveId = shownId(finding, options);
  const id = liveId === undefined ? '' : ` (id ${liveId})`;
  const snippet = printable(finding.snippet?.trimEnd() ?? '', { keepLineBreaks: true });
  const fence = fenceFor(snippet.split('\n'));
  return `<details><summary>${summary}${id}</summary>\n\n${fence}yaml\n${snippet}\n${fence}\n\n</details>\n`;
}

function buildChunks(report: DriftReport, options: DriftRenderOptions): Chunk[] {
  const counts = describeFindingCounts(report);
  const chunks: Chunk[] = [
    {
      text: `## erpsync drift: ${counts ?? 'no drift'}\n\nTarget **${cell(report.target.name)}** · ${describeCoverage(report)}.\n`,
    },
  ];
  for (const warning of report.warnings) chunks.push({ text: `\n> **Warning:** ${cell(warning)}\n` });
  for (const type of findingTypes) {
    const findings = report.findings.filter((f) => f.type === type);
    if (findings.length === 0) continue;
    const section = findingTitles[type];
    if (type === 'unmanaged') {
      chunks.push({ text: `\n### ${section} (${findings.length})\n\n${sentence(findingExplanations[type])}\n\n` });
      for (const finding of findings) chunks.push({ text: unmanagedBlock(finding, options), finding, section });
      continue;
    }
    chunks.push({ text: `\n### ${section} (${findings.length})\n\n${sentence(findingExplanations[type])}\n\n| Kind | Record | Id | Fields |\n|---|---|---|---|\n` });
    for (const finding of findings) chunks.push({ text: findingRow(finding, options), finding, section });
  }
  if (report.ignored.length > 0) {
    const rows = report.ignored.map(({ rule, count }) => `| ${code(rule.kind)} | ${rule.key === undefined ? 'every record' : code(rule.key)} | ${rule.field === undefined ? 'whole record' : code(rule.field)} | ${cell(rule.reason)} | ${count} |`);
    chunks.push({ text: `\n### Ignored by policy\n\n| Kind | Record | Field | Reason | Kept out |\n|---|---|---|---|---:|\n${rows.join('\n')}\n` });
  }
  const own = describeAccountOwn(report);
  // Sentences of erpsync's own, but quoting a git revision given on the command line (and `<…>` placeholders).
  chunks.push({ text: `\n${cell(describePendingBasis(report))}${own ? `\n\n${cell(own)}` : ''}\n` });
  return chunks;
}

function cutNotice(shown: number, total: number, last: Chunk | undefined, limit: number, fullReport: string): string {
  const where = last?.finding ? ` (the last one shown is ${code(last.finding.kind)} ${code(last.finding.key)} under ${last.section ?? 'findings'})` : '';
  return `\n\n---\n\n> **Report cut here:** it shows ${shown} of ${total} findings${where}, to stay under ${limit.toLocaleString('en-US')} characters. The full report: ${fullReport}.\n`;
}

export function renderDriftMarkdown(report: DriftReport, options: DriftMarkdownOptions): string {
  const limit = options.maxChars ?? defaultMarkdownLimit;
  const fullReport = options.fullReport ?? 'run `erpsync drift` (text, or `--json`) on the same manifests and account';
  const chunks = buildChunks(report, options);
  const whole = chunks.map((c) => c.text).join('');
  if (whole.length <= limit) return whole;

  const total = report.findings.length;
  // Room for the notice at its longest: counts at their widest, whichever finding it ends up naming.
  const namable = [undefined, ...chunks.filter((c) => c.finding)];
  const reserve = Math.max(...namable.map((c) => cutNotice(total, total, c, limit, fullReport).length));
  let text = '';
  let shown = 0;
  let last: Chunk | undefined;
  for (const chunk of chunks) {
    if (text.length + chunk.text.length + reserve > limit) break;
    text += chunk.text;
    if (chunk.finding) {
      shown += 1;
      last = chunk;
    }
  }
  return `${text.trimEnd()}${cutNotice(shown, total, last, limit, fullReport)}`;
}
