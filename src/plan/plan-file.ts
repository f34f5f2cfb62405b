// Saved plans: `plan --out plan.json` writes one, `apply plan.json` reads it back. A saved plan
// holds no secret values (only the variables they come from) and a checksum over everything
// else. Reading one checks that it is whole and consistent — every decision it carries is the
// one buildPlan would have stored (removal classes, the budget, a precondition for every change
// it sends) — so a hand-edited plan is refused before anything is read from the account.
import { createHash } from 'node:crypto';
import { ErpsyncError } from '../model/errors.js';
import { canonicalJson } from '../model/fingerprint.js';
import { isPlainRecord, removePath, writePath } from '../model/paths.js';
import type { Change, Plan } from '../model/plan.js';
import { classifyRemoval, countsAgainstBudget, isActionable } from '../model/plan.js';

const formatVersion = 2;

/** Removes secret values from every change's desired record; their variable names stay in `secrets`. */
function stripSecrets(plan: Plan): Plan {
  return {
    ...plan,
    changes: plan.changes.map((change) => {
      if (!change.secrets || !change.desired) return change;
      let desired: Record<string, unknown> = change.desired;
      for (const path of Object.keys(change.secrets)) desired = removePath(desired, path.split('.'));
      return { ...change, desired };
    }),
  };
}

function checksumOf(plan: Plan): string {
  return createHash('sha256').update(canonicalJson(plan)).digest('hex');
}

/** The plan as JSON (saved plans and `plan --json`): versioned, secret values left out, checksummed. */
export function serializePlan(plan: Plan): string {
  const saved = stripSecrets(plan);
  return `${JSON.stringify({ ...saved, checksum: checksumOf(saved) }, null, 2)}\n`;
}

/** The value of a secret field's variable (model/variables), or undefined when it is not set. */
export type SecretReader = (variable: string, kind: Change['kind'], path: string) => string | undefined;

/** Parses a saved plan, checks that it is whole and consistent, and puts the secret values back from their variables. */
export function parsePlanFile(text: string, file: string, readSecret: SecretReader): Plan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ErpsyncError('PLAN_INVALID', `${file} is not a saved plan: it is not valid JSON`, { cause: error });
  }
  if (!isPlainRecord(value) || value.formatVersion !== formatVersion || !Array.isArray(value.changes) || !isPlainRecord(value.budget) || !isPlainRecord(value.target)) {
    throw new ErpsyncError('PLAN_INVALID', `${file} is not a saved plan of this erpsync version (formatVersion ${formatVersion} expected); plan again`);
  }
  if (!isPlainRecord(value.target.account) || typeof value.target.account.id !== 'string') {
    throw new ErpsyncError('PLAN_INVALID', `${file} names no account (it was saved by an older erpsync); plan again`);
  }
  const { checksum, ...rest } = value;
  const plan = rest as unknown as Plan;
  if (checksum !== checksumOf(plan)) {
    throw new ErpsyncError('PLAN_UNVERIFIABLE', `${file} was changed after erpsync wrote it (its checksum does not match); plan again instead of editing a saved plan`);
  }
  const problems = findInconsistencies(plan);
  if (problems.length > 0) throw new ErpsyncError('PLAN_UNVERIFIABLE', `${file} cannot be checked against the account; plan again`, { details: problems });
  return { ...plan, changes: restoreSecrets(plan.changes, readSecret) };
}

/** Where a plan contradicts what buildPlan stores: every such plan is refused. */
function findInconsistencies(plan: Plan): string[] {
  const problems: string[] = [];
  for (const change of plan.changes) {
    if (change.removal !== classifyRemoval(change.action, change.reason)) problems.push(`${change.id}: its removal class is not the one its action has`);
    if (!isActionable(change)) continue;
    const requires = Array.isArray(change.requires) ? change.requires : [];
    const own =
      change.liveId === undefined
        ? change.action !== 'create' || change.reason === 'replace' || requires.some((p) => p.type === 'absent' && p.kind === change.kind && p.identity === change.key)
        : requires.some((p) => p.type === 'record' && p.role === 'self' && p.kind === change.kind && p.id === change.liveId);
    if (!own) problems.push(`${change.id}: no fingerprint of the record it ${change.action === 'create' ? 'creates (its absence)' : 'changes'}`);
    if (change.removal !== 'none' && !requires.some((p) => p.type === 'children')) problems.push(`${change.id}: no record of what is inside the record it removes`);
  }
  const removals = plan.changes.filter(countsAgainstBudget).length;
  const budget = plan.budget;
  if (budget.removals !== removals || budget.exceeded !== removals > budget.limit) problems.push(`the delete budget (${budget.removals} of ${budget.limit}) does not match the plan's ${removals} removal(s)`);
  return problems;
}

function restoreSecrets(changes: readonly Change[], readSecret: SecretReader): Change[] {
  const missing = new Set<string>();
  const restored = changes.map((change): Change => {
    if (!change.secrets || !change.desired) return change;
    let desired = change.desired;
    for (const [path, variable] of Object.entries(change.secrets)) {
      const secret = readSecret(variable, change.kind, path);
      if (secret === undefined || secret === '') missing.add(variable);
      else desired = writePath(desired, path.split('.'), secret);
    }
    return { ...change, desired };
  });
  if (missing.size > 0) {
    throw new ErpsyncError('PLAN_INVALID', `the plan needs the variable(s) ${[...missing].sort().join(', ')} for its secret fields (set in the environment as the manifests read them: see docs/manifest.md)`);
  }
  return restored;
}
