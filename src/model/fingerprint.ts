// Fingerprints of live records: what a saved plan remembers of every record it relies on, and
// compares with the account before it runs. A hash of the record as the API sent it, keys sorted.
import { createHash } from 'node:crypto';

/** JSON with object keys sorted and undefined members left out: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function fingerprintOf(raw: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(raw)).digest('hex').slice(0, 32);
}
