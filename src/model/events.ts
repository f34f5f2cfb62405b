// What an apply reports as it goes, and what it ends with: the engine's public event types. The
// apply workflow emits them; every reporter (plain lines, NDJSON, the terminal UI) is fed the
// same stream and imports these types from here, never from the engine's implementation.
import type { Change, Plan } from './plan.js';

export type ChangeOutcome =
  | { status: 'applied'; id?: number; adopted?: boolean }
  | { status: 'failed'; error: string; code: string }
  | { status: 'skipped'; because: string }
  | { status: 'blocked'; because: string };

/**
 * Events of applyPlan. `requests` counts the HTTP requests this apply has sent so far, retries
 * included, so reporters can show a request rate without access to the client.
 */
export type ApplyEvent =
  | { type: 'apply-start'; changes: number; waves: number }
  | { type: 'wave-start'; wave: number; changes: number }
  | { type: 'change-start'; change: Change }
  | { type: 'change-end'; change: Change; outcome: ChangeOutcome; requests: number }
  | { type: 'apply-end'; applied: number; failed: number; skipped: number; blocked: number; interrupted: boolean; requests: number };

/** The whole apply workflow: the plan shown, the core's events, a refusal at the prompt, the re-read after. */
export type ApplyReportEvent =
  | { type: 'plan'; plan: Plan }
  | ApplyEvent
  | { type: 'cancelled' }
  | { type: 'verify-start' }
  /** notes: what the read-back saw that is no failure (a value kept in another form that means the same); notKept: the ids of the changes it found not kept. */
  | { type: 'verify-end'; notConverged: string[]; notKept?: string[]; notes?: string[] };

export interface ApplyResult {
  outcomes: { change: Change; outcome: ChangeOutcome }[];
  applied: number;
  failed: number;
  skipped: number;
  blocked: number;
  interrupted: boolean;
}
