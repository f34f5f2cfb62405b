// The drift report as JUnit XML, for CI systems that chart test results: one test suite per kind,
// one test case per managed record (failed when it drifted, with its fields and who changed it;
// skipped when policy.ignore covers it), and one failed test case per unmanaged record. A fleet's
// file holds every store's suites, and an errored case for a store that could not be checked. No
// timings, so the same drift gives the same file. Pure: a string out.
import type { DriftRenderOptions } from './drift-format.js';
import { describeAttribution, findingExplanations, findingTitles, formatFieldChange } from './drift-format.js';
import type { DriftFinding, DriftReport, FleetDriftStore } from '../model/drift.js';

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
  /** The store could not be checked: why. */
  error?: string;
}

interface TestSuite {
  name: string;
  /** The classname of its cases: `erpsync.drift.<kind>`, a fleet's `erpsync.drift.<target>.<kind>`. */
  classname: string;
  cases: TestCase[];
}

function failureOf(findings: readonly DriftFinding[], options: DriftRenderOptions): string {
  const message = findings.map((f) => `${findingTitles[f.type]}${f.fields.length > 0 ? `: ${f.fields.map((field) => field.path).join(', ')}` : ''}`).join('; ');
  const body = findings.flatMap((f) => {
    const origin = describeAttribution(f);
    return [
      `${findingTitles[f.type]}: ${findingExplanations[f.type]}.`,
      ...(f.note ? [`note: ${f.note}`] : []),
      ...(origin ? [`origin: ${origin}`] : []),
      ...f.fields.map((field) => formatFieldChange(f, field, options)),
      ...(f.snippet ? [f.snippet.trimEnd()] : []),
    ];
  });
  return `      <failure type="${escapeXml(findings[0]?.type ?? 'drift')}" message="${escapeXml(message)}">${escapeXml(body.join('\n'), 'content')}</failure>\n`;
}

function renderCase(suite: TestSuite, test: TestCase, options: DriftRenderOptions): string {
  const open = `    <testcase classname="${escapeXml(suite.classname)}" name="${escapeXml(test.name)}"`;
  if (test.error !== undefined) return `${open}>\n      <error type="error" message="${escapeXml(test.error)}"/>\n    </testcase>\n`;
  if (test.skipped !== undefined) return `${open}>\n      <skipped message="${escapeXml(`ignored by policy: ${test.skipped}`)}"/>\n    </testcase>\n`;
  if (test.findings.length === 0) return `${open}/>\n`;
  return `${open}>\n${failureOf(test.findings, options)}    </testcase>\n`;
}

/** One suite per kind read: a case per managed record (failed when it drifted, skipped when ignored), and one per unmanaged record. */
function suitesOf(report: DriftReport, store?: string): TestSuite[] {
  return report.kinds.map((kind) => {
    const findingsOf = (key: string) => report.findings.filter((f) => f.kind === kind && f.key === key && f.type !== 'unmanaged');
    const cases: TestCase[] = [
      ...report.managed
        .filter((m) => m.kind === kind)
        .map((m): TestCase => ({ name: m.key, findings: findingsOf(m.key), ...(m.status === 'ignored' ? { skipped: m.ignoredBecause ?? '' } : {}) })),
      ...report.findings.filter((f) => f.kind === kind && f.type === 'unmanaged').map((f): TestCase => ({ name: `${f.key} (unmanaged)`, findings: [f] })),
    ];
    return store === undefined ? { name: kind, classname: `erpsync.drift.${kind}`, cases } : { name: `${store}: ${kind}`, classname: `erpsync.drift.${store}.${kind}`, cases };
  });
}

type Tally = 'failures' | 'errors' | 'skipped';

function count(cases: readonly TestCase[], what: Tally): number {
  if (what === 'errors') return cases.filter((c) => c.error !== undefined).length;
  if (what === 'skipped') return cases.filter((c) => c.skipped !== undefined).length;
  return cases.filter((c) => c.error === undefined && c.skipped === undefined && c.findings.length > 0).length;
}

function tallies(cases: readonly TestCase[]): string {
  return `tests="${cases.length}" failures="${count(cases, 'failures')}" errors="${count(cases, 'errors')}" skipped="${count(cases, 'skipped')}"`;
}

function renderSuites(suites: readonly TestSuite[], options: DriftRenderOptions): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<testsuites name="erpsync drift" ${tallies(suites.flatMap((s) => s.cases))}>\n`];
  for (const suite of suites) {
    lines.push(`  <testsuite name="${escapeXml(suite.name)}" ${tallies(suite.cases)}>\n`);
    for (const test of suite.cases) lines.push(renderCase(suite, test, options));
    lines.push('  </testsuite>\n');
  }
  lines.push('</testsuites>\n');
  return lines.join('');
}

export function renderDriftJunit(report: DriftReport, options: DriftRenderOptions): string {
  return renderSuites(suitesOf(report), options);
}

/**
 * A fleet's drift as one JUnit file: every store's suites, named and classed by store and kind; a
 * store that could not be checked is a suite of its own with one errored case saying why.
 */
export function renderFleetDriftJunit(stores: readonly Pick<FleetDriftStore, 'target' | 'report' | 'error'>[], options: DriftRenderOptions): string {
  const suites = stores.flatMap((store): TestSuite[] =>
    store.report ? suitesOf(store.report, store.target) : [{ name: store.target, classname: `erpsync.drift.${store.target}`, cases: [{ name: 'drift check', findings: [], error: store.error ?? 'not checked' }] }],
  );
  return renderSuites(suites, options);
}
