// The request log behind `requestLog()`, `counters()` and GET /__sandbox/log.
import type { RequestLogEntry } from './types.js';

export interface RequestLog {
  entries: RequestLogEntry[];
}

export function appendLogEntry(log: RequestLog, entry: RequestLogEntry): void {
  log.entries.push(entry);
}

/** Requests per `METHOD path`. */
export function countRequests(entries: readonly RequestLogEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) {
    const key = `${entry.method} ${entry.path}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
