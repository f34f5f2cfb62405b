// The drift report as JUnit XML, for CI systems that chart test results: one test suite per kind,
// one test case per managed record (failed when it drifted, skipped when policy.ignore covers it),
// and one failed test case per unmanaged record. No timings, so the same drift gives the same file.
// Pure: a string out.
import type { DriftRenderOptions } from './drift-format.js';
import { findingExplanations, findingTitles, formatFieldChange } from './drift-format.js';
import type { DriftFinding, DriftReport } from '../model/drift.js';
import type { UnitKind } from '../model/kinds.js';

/**
 * XML 1.0 holds only tab, line feed, carriage return, and U+0020–U+D7FF, U+E000–U+FFFD,
 * U+10000–U+10FFFF: other control characters, U+FFFE/U+FFFF and lone surrogates make the file
 * unreadable to every parser, so they are replaced with U+FFFD. (Iterating by code point keeps a
 * well-formed surrogate pair whole and yields a lone surrogate on its own.)
 */
function isXmlChar(code: number): boolean {
  return code === 0x09 || code === 0x0a || code === 0x0d || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || code >= 0x10000;
}

/** Text for an attribute value, or element content (no CDATA anywhere: escaping serves any input). */
function escapeXml(text: string, where: 'attribute' | 'content' = 'attribute'): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    if (!isXmlChar(code)) out += '\ufffd';
    else if (c === '&') out += '&amp;';
    else if (c === '<') out += '&lt;';
    else if (c === '>') out += '&gt;';
    else if (c === '"') out += '&quot;';
    else if (c === "'") out += '&apos;';
    // Parsers fold these to spaces in attributes, and a carriage return to a line feed anywhere, unless written as references.
    else if (c === '\r' || (where === 'attribute' && (c === '\n' || c === '\t'))) out += `&#${code};`;
    else out += c;
  }
  return out;
}

interface TestCase {
  name: string;
  findings: DriftFinding[];
  skipped?: string;
}

function failureOf(findings: readonly DriftFinding[], options: DriftRenderOptions): string {
  const message = findings.map((f) => `${findingTitles[f.type]}${f.fields.length > 0 ? `: ${f.fields.map((field) => field.path).join(', ')}` : ''}`).join('; ');
  const body = findings.flatMap((f) => [
    `${findingTitles[f.type]}: ${findingExplanations[f.type]}.`,
    ...(f.note ? [`note: ${f.note}`] : []),
    ...f.fields.map((field) => formatFieldChange(f, field, options)),
    ...(f.snippet ? [f.snippet.trimEnd()] : []),
  ]);
  return `      <failure type="${escapeXml(findings[0]?.type ?? 'drift')}" message="${escapeXml(message)}">${escapeXml(body.join('\n'), 'content')}</failure>\n`;
}

function renderCase(kind: UnitKind, test: TestCase, options: DriftRenderOptions): string {
  const open = `    <testcase classname="erpsync.drift.${escapeXml(kind)}" name="${escapeXml(test.name)}"`;
  if (test.skipped !== undefined) return `${open}>\n      <skipped message="${escapeXml(`ignored by policy: ${test.skipped}`)}"/>\n    </testcase>\n`;
  if (test.findings.length === 0) return `${open}/>\n`;
  return `${open}>\n${failureOf(test.findings, options)}    </testcase>\n`;
}

export function renderDriftJunit(report: DriftReport, options: DriftRenderOptions): string {
  const suites = report.kinds.map((kind) => {
    const findingsOf = (key: string) => report.findings.filter((f) => f.kind === kind && f.key === key && f.type !== 'unmanaged');
    const cases: TestCase[] = [
      ...report.managed
        .filter((m) => m.kind === kind)
        .map((m): TestCase => ({ name: m.key, findings: findingsOf(m.key), ...(m.status === 'ignored' ? { skipped: m.ignoredBecause ?? '' } : {}) })),
      ...report.findings.filter((f) => f.kind === kind && f.type === 'unmanaged').map((f): TestCase => ({ name: `${f.key} (unmanaged)`, findings: [f] })),
    ];
    return { kind, cases };
  });
  const count = (cases: readonly TestCase[], what: 'failures' | 'skipped') =>
    cases.filter((c) => (what === 'skipped' ? c.skipped !== undefined : c.skipped === undefined && c.findings.length > 0)).length;
  const all = suites.flatMap((s) => s.cases);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<testsuites name="erpsync drift" tests="${all.length}" failures="${count(all, 'failures')}" errors="0" skipped="${count(all, 'skipped')}">\n`,
  ];
  for (const suite of suites) {
    lines.push(
      `  <testsuite name="${escapeXml(suite.kind)}" tests="${suite.cases.length}" failures="${count(suite.cases, 'failures')}" errors="0" skipped="${count(suite.cases, 'skipped')}">\n`,
    );
    for (const test of suite.cases) lines.push(renderCase(suite.kind, test, options));
    lines.push('  </testsuite>\n');
  }
  lines.push('</testsuites>\n');
  return lines.join('');
}
