// Fault injection: a seeded probability and/or a scripted schedule decide, per request, whether it
// meets a fault. Also parses the CLI's `--faults` text. Pure apart from the PRNG state it owns.
import { ErpsyncError } from '../model/errors.js';
import type { DroppedMember, FaultKind, FaultScheduleEntry, FaultSpec } from './types.js';

export const faultKinds: readonly FaultKind[] = [
  'http500',
  'http502',
  'http503',
  'http429',
  'http429-html',
  'latency',
  'reset-before',
  'reset-after',
  'late-commit',
  'slow-response',
];

export const defaultLatencyMs = 250;
export const defaultHoldMs = 1000;

export interface FaultPlan {
  spec: FaultSpec;
  random: () => number;
  /** Matching requests seen so far, per schedule entry. */
  seen: number[];
}

function isFaultKind(value: string): value is FaultKind {
  return (faultKinds as readonly string[]).includes(value);
}

function invalid(message: string): ErpsyncError {
  return new ErpsyncError('CONFIG', `invalid fault spec: ${message}`, {
    details: [
      'syntax: p=0.2,seed=7,kinds=http500+late-commit,latency=300,hold=1500,retryAfter=0,methods=POST,POST/formas-pagamentos#2=reset-after,drop=PUT/formas-pagamentos:juros',
      `fault kinds: ${faultKinds.join(', ')}`,
    ],
  });
}

/**
 * Parses `--faults`. Either JSON (a FaultSpec) or comma-separated items:
 * `p=0.2` (or `probability=`), `seed=7`, `kinds=http500+http503`, `latency=300`, `hold=1500`,
 * `retryAfter=0` (on injected 429s), `methods=POST+PUT`, `drop=PUT/formas-pagamentos:juros`
 * (members dropped from matching writes, several joined by `+`), and schedule
 * items `[METHOD][/path]#N=kind`, e.g. `POST/formas-pagamentos#2=reset-after` or `#5=http503`.
 */
export function parseFaultSpec(text: string): FaultSpec {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw invalid(`not valid JSON (${(error as Error).message})`);
    }
    return checkFaultSpec(parsed as FaultSpec);
  }
  const spec: FaultSpec = {};
  const schedule: FaultScheduleEntry[] = [];
  for (const item of trimmed.split(',').map((s) => s.trim()).filter(Boolean)) {
    const scheduled = /^([A-Za-z]*)\s*(\/[^#\s]*)?#(\d+)=([\w-]+)$/.exec(item);
    if (scheduled) {
      const [, method, path, nth, fault] = scheduled;
      if (!fault || !isFaultKind(fault)) throw invalid(`unknown fault kind in '${item}'`);
      const entry: FaultScheduleEntry = { nth: Number(nth), fault };
      if (method) entry.method = method.toUpperCase();
      if (path) entry.path = path;
      schedule.push(entry);
      continue;
    }
    const [key, value, extra] = item.split('=');
    if (value === undefined || extra !== undefined) throw invalid(`cannot read '${item}'`);
    switch (key) {
      case 'p':
      case 'probability':
        spec.probability = Number(value);
        break;
      case 'seed':
        spec.seed = Number(value);
        break;
      case 'latency':
      case 'latencyMs':
        spec.latencyMs = Number(value);
        break;
      case 'hold':
      case 'holdMs':
        spec.holdMs = Number(value);
        break;
      case 'retryAfter':
      case 'retryAfterSeconds':
        spec.retryAfterSeconds = Number(value);
        break;
      case 'methods':
        spec.methods = value.split('+').map((m) => m.toUpperCase());
        break;
      case 'drop':
        spec.dropMembers = value.split('+').map(parseDroppedMember);
        break;
      case 'kinds':
        spec.kinds = value.split('+').map((k) => {
          if (!isFaultKind(k)) throw invalid(`unknown fault kind '${k}'`);
          return k;
        });
        break;
      default:
        throw invalid(`unknown key '${key ?? ''}'`);
    }
  }
  if (schedule.length > 0) spec.schedule = schedule;
  return checkFaultSpec(spec);
}

function parseDroppedMember(text: string): DroppedMember {
  const found = /^([A-Za-z]*)(\/[^:\s]+):([\w.]+)$/.exec(text);
  if (!found) throw invalid(`cannot read the dropped member '${text}' (METHOD/path:member)`);
  const [, method, path = '', member = ''] = found;
  return { ...(method ? { method: method.toUpperCase() } : {}), path, member };
}

/**
 * A write's parsed body without the members the spec drops for it, as a proxy that drops them
 * would pass it on: the service never sees them (a PUT, which replaces the record, resets them).
 */
export function dropMembers(plan: FaultPlan | undefined, method: string, path: string, body: unknown): unknown {
  const dropped = (plan?.spec.dropMembers ?? []).filter(
    (d) => method !== 'GET' && (d.method === undefined || d.method === method) && (path === d.path || path.startsWith(`${d.path}/`)),
  );
  let result = body;
  for (const { member } of dropped) result = withoutMember(result, member.split('.'));
  return result;
}

function withoutMember(value: unknown, path: readonly string[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined || typeof value !== 'object' || value === null || Array.isArray(value) || !(head in value)) return value;
  const record = value as Record<string, unknown>;
  if (rest.length > 0) return { ...record, [head]: withoutMember(record[head], rest) };
  const { [head]: _dropped, ...kept } = record;
  return kept;
}

export function checkFaultSpec(spec: FaultSpec): FaultSpec {
  const p = spec.probability;
  if (p !== undefined && !(typeof p === 'number' && p >= 0 && p <= 1)) throw invalid('probability must be between 0 and 1');
  if (spec.seed !== undefined && !Number.isInteger(spec.seed)) throw invalid('seed must be an integer');
  if (spec.latencyMs !== undefined && !(Number.isFinite(spec.latencyMs) && spec.latencyMs >= 0)) {
    throw invalid('latency must be a non-negative number of milliseconds');
  }
  if (spec.holdMs !== undefined && !(Number.isFinite(spec.holdMs) && spec.holdMs >= 0)) throw invalid('hold must be a non-negative number of milliseconds');
  if (spec.retryAfterSeconds !== undefined && !(Number.isInteger(spec.retryAfterSeconds) && spec.retryAfterSeconds >= 0)) throw invalid('retryAfter must be a whole number of seconds ≥ 0');
  for (const kind of spec.kinds ?? []) if (!isFaultKind(kind)) throw invalid(`unknown fault kind '${String(kind)}'`);
  if (spec.kinds?.length === 0) throw invalid('kinds must not be empty');
  for (const entry of spec.schedule ?? []) {
    if (!Number.isInteger(entry.nth) || entry.nth < 1) throw invalid('schedule nth must be a positive integer');
    if (!isFaultKind(entry.fault)) throw invalid(`unknown fault kind '${String(entry.fault)}'`);
  }
  return spec;
}

export function createFaultPlan(spec: FaultSpec | string | undefined): FaultPlan | undefined {
  if (spec === undefined) return undefined;
  const checked = typeof spec === 'string' ? parseFaultSpec(spec) : checkFaultSpec(structuredClone(spec));
  return {
    spec: checked,
    random: createRandom(checked.seed ?? 1),
    seen: (checked.schedule ?? []).map(() => 0),
  };
}

/** Decides the fault of one request; the schedule takes precedence over the probability. */
export function pickFault(plan: FaultPlan | undefined, method: string, path: string): FaultKind | undefined {
  if (!plan) return undefined;
  let scheduled: FaultKind | undefined;
  (plan.spec.schedule ?? []).forEach((entry, index) => {
    if (entry.method !== undefined && entry.method.toUpperCase() !== method) return;
    if (entry.path !== undefined && entry.path !== path) return;
    const seen = (plan.seen[index] ?? 0) + 1;
    plan.seen[index] = seen;
    if (seen === entry.nth && scheduled === undefined) scheduled = entry.fault;
  });
  if (scheduled) return scheduled;
  const p = plan.spec.probability ?? 0;
  if (p <= 0 || (plan.spec.methods !== undefined && !plan.spec.methods.includes(method)) || plan.random() >= p) return undefined;
  const kinds = plan.spec.kinds ?? faultKinds;
  return kinds[Math.floor(plan.random() * kinds.length)] ?? kinds[0];
}

/** mulberry32: small, fast and good enough to make fault sequences reproducible from a seed. */
function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
