// What `erpsync doctor` finds on an account: one line per assumption the engine relies on, and
// whether it holds there. Plain data, so text and JSON render the same facts.
import type { AccountIdentity } from './account.js';
import { exitCodes } from './errors.js';
import type { ExitCode } from './errors.js';

/** `holds`: as erpsync assumes; `differs`: not, and erpsync copes (said in `action`); `fails`: erpsync cannot work with it; `unknown`: nothing to tell by. */
export type DoctorStatus = 'holds' | 'differs' | 'fails' | 'unknown';

export interface DoctorCheck {
  subject: string;
  status: DoctorStatus;
  /** What the account answered. */
  found: string;
  /** What erpsync does about it. */
  action: string;
}

export interface DoctorReport {
  target: string;
  account: AccountIdentity;
  banner: string;
  checks: DoctorCheck[];
  /** Requests sent, all GETs (the account's identity included). */
  requests: number;
}

/** 0 every assumption holds (or cannot be told); 2 some differ and erpsync copes; 1 one fails. */
export function doctorExitCode(checks: readonly DoctorCheck[]): ExitCode {
  if (checks.some((c) => c.status === 'fails')) return exitCodes.error;
  return checks.some((c) => c.status === 'differs') ? exitCodes.changes : exitCodes.ok;
}
