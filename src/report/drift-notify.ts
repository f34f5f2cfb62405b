// `drift --notify FILE`: one notification per store of the run, for a CI job to post — an issue per
// store opened, updated or closed with `gh`/`glab`, or a message to a chat webhook. erpsync decides
// what each store's notification says; the job only posts it, finding the issue by the stable key.
//  - `open`: the store drifted. The job opens an issue with this key, or updates the open one.
//  - `close`: the store is in sync. The job closes the open issue with this key, if there is one.
//  - `error`: the store could not be checked. Nothing is closed on a failed read.
// Every field is safe to post as it stands: the title and `text` hold only erpsync's words, the
// target's name (the config's) and counts; the body holds the store's drift report in Markdown,
// where every name and value from the account or the manifests is escaped (drift-markdown), under
// GitHub's size limit. Nothing carries a secret's value (sensitive fields show none). Pure.
import { describeAccount } from '../model/account.js';
import { hasDrift } from '../model/drift.js';
import type { DriftReport, FleetDriftStore } from '../model/drift.js';
import { printable } from '../model/printable.js';
import { describeCoverage, describeFindingCounts } from './drift-format.js';
import type { DriftRenderOptions } from './drift-format.js';
import { renderDriftMarkdown } from './drift-markdown.js';
import { codeSpan, markdownText } from './markdown-escape.js';

/** A body holds at most this many characters (a GitHub issue or comment holds 65,536). */
export const notificationBodyLimit = 65_000;
export const notificationLabels: readonly string[] = ['erpsync-drift'];

export type NotificationAction = 'open' | 'close' | 'error';

export interface DriftNotification {
  /** Stable per store (`erpsync-drift/<target>`): the job finds the store's issue by it; the body's first line carries it. */
  key: string;
  action: NotificationAction;
  target: string;
  /** The store's owners as the config names them (logins, teams, e-mail addresses). */
  owners: string[];
  /** The owners an issue can be assigned to: user logins, without `@` (a team or an e-mail address cannot be). */
  assignees: string[];
  title: string;
  /** Markdown: the store's drifted records, their fields and who changed them (open); why it is closed or not checked (close, error). */
  body: string;
  labels: string[];
  /** One plain line for a chat webhook. */
  text: string;
  /** The store's findings by type; absent when it could not be checked. */
  counts?: { records: number; modified: number; missing: number; pending: number; unmanaged: number };
}

export interface DriftNotifications {
  formatVersion: 1;
  kind: 'erpsync-drift-notifications';
  /** When the drift was checked. */
  at: string;
  notifications: DriftNotification[];
}

export interface NotifyOptions extends DriftRenderOptions {
  at: string;
  /** Where a store's full report is (a URL, an artifact, its --out file), named in a body that had to be cut. */
  fullReportOf?: (target: string) => string | undefined;
}

const login = /^@?[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** An owner as a mention: `@maria`, `@agencia/suporte`; an e-mail address as written. */
function mention(owner: string): string {
  return owner.startsWith('@') || !owner.includes('@') ? `@${owner.replace(/^@/, '')}` : owner;
}

function countsOf(report: DriftReport): NonNullable<DriftNotification['counts']> {
  const { modified, missing, pending, unmanaged } = report.summary;
  return { records: report.findings.length, modified, missing, pending, unmanaged };
}

export function notificationKey(target: string): string {
  return `erpsync-drift/${target}`;
}

function openNotice(store: FleetDriftStore, report: DriftReport, options: NotifyOptions): Pick<DriftNotification, 'title' | 'body' | 'text'> {
  const counts = describeFindingCounts(report) ?? 'drift';
  const owners = store.owners.map(mention);
  const head = [
    `<!-- erpsync-drift key=${notificationKey(store.target)} -->`,
    `Store ${codeSpan(store.target)} has drifted from its manifests (checked ${options.at})${store.account ? ` · account ${markdownText(describeAccount(store.account))}` : ''}.`,
    ...(owners.length > 0 ? [`Owners: ${owners.join(' ')}`] : []),
    '',
    '',
  ].join('\n');
  const fullReport = options.fullReportOf?.(store.target) ?? 'the drift report of the job that sent this (or `erpsync drift --target` the store)';
  const details = renderDriftMarkdown(report, { ...options, maxChars: notificationBodyLimit - head.length, fullReport });
  return {
    title: `erpsync drift: ${store.target} drifted (${counts})`,
    body: `${head}${details}`,
    text: printable(`erpsync drift: store ${store.target} drifted: ${counts}.${owners.length > 0 ? ` Owners: ${owners.join(', ')}.` : ''}`),
  };
}

function closeNotice(store: FleetDriftStore, report: DriftReport, options: NotifyOptions): Pick<DriftNotification, 'title' | 'body' | 'text'> {
  return {
    title: `erpsync drift: ${store.target} is back in sync`,
    body: `<!-- erpsync-drift key=${notificationKey(store.target)} -->\nStore ${codeSpan(store.target)} is in sync: the account matches its manifests (${describeCoverage(report)}; checked ${options.at}).\n`,
    text: printable(`erpsync drift: store ${store.target} is in sync.`),
  };
}

function errorNotice(store: FleetDriftStore, options: NotifyOptions): Pick<DriftNotification, 'title' | 'body' | 'text'> {
  return {
    title: `erpsync drift: ${store.target} could not be checked`,
    body: `<!-- erpsync-drift key=${notificationKey(store.target)} -->\nStore ${codeSpan(store.target)} could not be checked for drift (${options.at}): ${markdownText(store.error ?? 'not checked')}\n\nIts drift issue, if one is open, stays as it is until a run checks the store again.\n`,
    text: printable(`erpsync drift: store ${store.target} could not be checked; see the job's log.`),
  };
}

/** One notification per store, in the run's order. */
export function buildDriftNotifications(stores: readonly FleetDriftStore[], options: NotifyOptions): DriftNotifications {
  const notifications = stores.map((store): DriftNotification => {
    const report = store.report;
    const action: NotificationAction = !report ? 'error' : hasDrift(report) ? 'open' : 'close';
    const words = !report ? errorNotice(store, options) : action === 'open' ? openNotice(store, report, options) : closeNotice(store, report, options);
    return {
      key: notificationKey(store.target),
      action,
      target: store.target,
      owners: store.owners,
      assignees: store.owners.filter((owner) => login.test(owner)).map((owner) => owner.replace(/^@/, '')),
      ...words,
      labels: [...notificationLabels],
      ...(report ? { counts: countsOf(report) } : {}),
    };
  });
  return { formatVersion: 1, kind: 'erpsync-drift-notifications', at: options.at, notifications };
}
