// The schedule loop, its notifications: each of erpsync's notifications (OUT/notify.json, written
// by `erpsync drift --notify`; schemas/drift-notify.schema.json) is one store's issue, found again
// by its stable key (the hidden marker erpsync puts on the body's first line) among the open
// issues labelled `erpsync-drift`: `open` opens it (its assignees assigned, every owner named in
// the body) or updates the open one while the store stays drifted; `close` closes it when the
// store is back in sync; `error` (the store could not be read) leaves it as it is and is named
// here (the job fails on the drift's exit code). When the secret holds ERPSYNC_CHAT_WEBHOOK_URL,
// each issue opened or closed is also POSTed there as JSON ({ text, key, target, action, owners,
// issue }): Slack, Mattermost, Google Chat and Teams workflows read `text`.
// Nothing is posted when erpsync wrote no notifications (the drift did not run).
// Usage: node post-drift-notifications.mjs OUT
/* global fetch -- Node.js 20 has it */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { URL } from 'node:url';
import { addSummary, outputFolder, readJson, readState, report, runScript, runUrl } from './ci-lib.mjs';
import { currentForge } from './forge.mjs';

const listLabel = 'erpsync-drift';
const markerPattern = /<!-- erpsync-drift key=(\S+) -->/;

/** erpsync's body (under 65,000 characters, its marker first) and a link to this run. */
const bodyOf = (notification) => `${notification.body}\n\n_[drift run](${runUrl()})_\n`;

/** Opens the store's issue; an owner the forge cannot assign (no access) is left named in the body only. */
function open(forge, issue) {
  try {
    return forge.createIssue(issue);
  } catch (error) {
    if (issue.assignees.length === 0) throw error;
    report('warning', `could not assign ${issue.assignees.join(', ')} (${error.message}); opening the issue unassigned`);
    return forge.createIssue({ ...issue, assignees: [] });
  }
}

async function tellChat(url, changes) {
  const endpoint = new URL(url);
  if (endpoint.protocol !== 'https:' && !['127.0.0.1', 'localhost', '[::1]'].includes(endpoint.hostname)) throw new Error('ERPSYNC_CHAT_WEBHOOK_URL must be https');
  for (const change of changes) {
    const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(change) });
    if (!response.ok) report('warning', `the chat webhook answered ${response.status} for ${change.target}`);
  }
}

await runScript(async () => {
  const out = outputFolder('node post-drift-notifications.mjs OUT');
  const file = path.join(out, 'notify.json');
  if (!existsSync(file)) return 0; // the drift did not run: finish.mjs fails the job
  const { notifications } = readJson(file);
  const state = readState();
  const forge = currentForge(state);
  const issues = new Map(forge.openIssues(listLabel).flatMap((issue) => { const key = markerPattern.exec(issue.body)?.[1]; return key ? [[key, issue]] : []; }));
  const drifted = notifications.filter((n) => n.action === 'open');
  forge.ensureLabels([...new Set([listLabel, ...drifted.flatMap((n) => n.labels)])]);
  const bodyFile = path.join(out, 'issue-body.md');
  const changes = [];
  for (const notification of notifications) {
    const existing = issues.get(notification.key);
    const change = { text: notification.text, key: notification.key, target: notification.target, owners: notification.owners };
    if (notification.action === 'error') {
      report('warning', `${notification.target} could not be checked: ${notification.text}`);
      continue;
    }
    if (notification.action === 'close') {
      if (!existing) continue;
      forge.closeIssue(existing.number, `Back in sync with its manifests ([drift run](${runUrl()})).`);
      changes.push({ ...change, action: 'closed', issue: existing.number });
      continue;
    }
    writeFileSync(bodyFile, bodyOf(notification));
    const issue = { title: notification.title, bodyFile, labels: [...new Set([listLabel, ...notification.labels])], assignees: notification.assignees };
    if (existing) forge.updateIssue(existing.number, issue);
    else changes.push({ ...change, action: 'opened', issue: open(forge, issue) });
  }
  if (state?.ERPSYNC_CHAT_WEBHOOK_URL) await tellChat(state.ERPSYNC_CHAT_WEBHOOK_URL, changes);
  const count = (action) => changes.filter((c) => c.action === action).length;
  addSummary(`### erpsync drift notifications\n\n${count('opened')} issue(s) opened, ${drifted.length - count('opened')} updated, ${count('closed')} closed.`);
  return 0;
});
