#!/usr/bin/env node
// A policy check over a saved erpsync plan (`erpsync plan --out plan.json`, whose shape
// schemas/plan.schema.json publishes): fails the pipeline when the plan deletes or retires a
// payment method (formasPagamentos), which a store should only do by hand after review.
// Plain Node, no dependencies: `node check-plan.mjs plan.json` exits 0 (allowed) or 1 (denied),
// and names every offending change. Add rules the same way: read `changes`, decide, print why.
/* global process, console */
import { readFileSync } from 'node:fs';

/** The reasons to deny the plan, one line each; empty when it may be applied. */
function findViolations(plan) {
  if (plan.formatVersion !== 2 || !Array.isArray(plan.changes)) return ['not an erpsync plan of formatVersion 2'];
  // `removal` is decided by erpsync, never re-derived here: `removal` and `replacement` both take
  // the record out of the account, at least for a while.
  return plan.changes
    .filter((change) => change.kind === 'formasPagamentos' && change.removal !== 'none')
    .map((change) => `denied: the plan would ${change.action} the payment method "${change.key}" (${change.reason})`);
}

const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: node check-plan.mjs plan.json');
  process.exitCode = 1;
} else {
  const plan = JSON.parse(readFileSync(file, 'utf8'));
  const violations = findViolations(plan);
  for (const line of violations) console.error(line);
  if (plan.selection) console.error(`note: a targeted (partial) plan: ${JSON.stringify(plan.selection)}`);
  if (violations.length > 0) process.exitCode = 1;
  else console.log(`ok: ${plan.changes.length} change(s), no payment method removed`);
}
