// What `erpsync compare` prints: the differences of two stores record by record and field by
// field, as text lines or Markdown (JSON is the report itself). Values are written as drift writes
// them (the enum label beside a code); a secret only says that it differs. Pure.
import type { KindAdapter } from '../kinds/kind.js';
import type { CompareRecord, CompareReport, CompareSideInfo, CompareStatus } from '../model/compare.js';
import { describeAccount } from '../model/account.js';
import { formatValue } from './drift-format.js';

export interface CompareRenderOptions {
  adapters: readonly KindAdapter[];
}

/** `target loja-01` or `manifests base/` — how a side is named in headings. */
export function describeSide(side: CompareSideInfo): string {
  if (side.target !== undefined) return `target ${side.target}`;
  const files = side.manifests ?? [];
  return files.length === 1 ? `manifests ${files[0] ?? ''}` : `manifests (${files.length} files)`;
}

function describeSideInFull(side: CompareSideInfo): string {
  return side.account ? `${describeSide(side)} (${describeAccount(side.account)})` : describeSide(side);
}

const marks: Record<CompareStatus, string> = { differs: '~', 'only-left': '<', 'only-right': '>' };

export function summarizeCompare(report: CompareReport): string {
  const { summary } = report;
  const left = describeSide(report.left);
  const right = describeSide(report.right);
  if (report.records.length === 0) return `No differences: ${summary.same} record(s) the same on both sides.`;
  return `${report.records.length} difference(s): ${summary.differs} differ, ${summary.onlyLeft} only in ${left}, ${summary.onlyRight} only in ${right}; ${summary.same} the same.`;
}

function fieldLines(record: CompareRecord, report: CompareReport, options: CompareRenderOptions): string[] {
  const left = describeSide(report.left);
  const right = describeSide(report.right);
  return record.fields.map((field) =>
    field.sensitive
      ? `    ${field.path}: (secret) differs`
      : `    ${field.path}: ${formatValue(record, field.path, field.left, options)} (${left}) → ${formatValue(record, field.path, field.right, options)} (${right})`,
  );
}

export function renderCompareText(report: CompareReport, options: CompareRenderOptions): string[] {
  const lines = [`Comparing ${describeSideInFull(report.left)} with ${describeSideInFull(report.right)}.`, summarizeCompare(report)];
  if (report.records.length > 0) lines.push('', `  ~ differs   < only in ${describeSide(report.left)}   > only in ${describeSide(report.right)}`, '');
  for (const record of report.records) {
    const where = record.status === 'only-left' ? `  (only in ${describeSide(report.left)})` : record.status === 'only-right' ? `  (only in ${describeSide(report.right)})` : '';
    lines.push(`${marks[record.status]} ${record.kind} "${record.key}"${where}`, ...fieldLines(record, report, options));
  }
  return lines;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

export function renderCompareMarkdown(report: CompareReport, options: CompareRenderOptions): string {
  const left = describeSide(report.left);
  const right = describeSide(report.right);
  const lines = [`### erpsync compare: ${cell(describeSideInFull(report.left))} ↔ ${cell(describeSideInFull(report.right))}`, '', summarizeCompare(report)];
  if (report.records.length > 0) {
    lines.push('', `| record | field | ${cell(left)} | ${cell(right)} |`, '|---|---|---|---|');
    for (const record of report.records) {
      const name = `\`${record.kind}\` ${cell(record.key)}`;
      if (record.status !== 'differs') {
        lines.push(`| ${name} | — | ${record.status === 'only-left' ? 'present' : '*absent*'} | ${record.status === 'only-right' ? 'present' : '*absent*'} |`);
        continue;
      }
      for (const field of record.fields) {
        const [l, r] = field.sensitive ? ['*(secret)*', '*(secret, differs)*'] : [formatValue(record, field.path, field.left, options), formatValue(record, field.path, field.right, options)];
        lines.push(`| ${name} | \`${cell(field.path)}\` | ${cell(l)} | ${cell(r)} |`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
