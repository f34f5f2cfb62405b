// Runtime failures as typed errors. Every failure that leaves a stage carries a stable `code`
// (for scripts and tests) and the original `cause`; the CLI's single top-level handler turns
// them into one message and an exit code. Input problems are not errors: they are diagnostics.

export type ErrorCode =
  | 'USAGE'
  | 'INVALID_MANIFEST'
  | 'FILE_UNREADABLE'
  | 'FILE_UNWRITABLE'
  | 'STATE_FILE'
  | 'API_ERROR'
  | 'API_UNREACHABLE'
  | 'API_TIMEOUT'
  | 'API_OUTCOME_UNKNOWN'
  | 'AUTH_MISSING'
  | 'AUTH_FAILED'
  | 'AUTH_SCOPE'
  | 'CREDENTIALS_MISMATCH'
  | 'RATE_BUDGET_EXHAUSTED'
  | 'DAILY_QUOTA'
  | 'CIRCUIT_OPEN'
  | 'INSECURE_URL'
  | 'CONFIG'
  | 'PLAN_STALE'
  | 'ACCOUNT_MISMATCH'
  | 'PLAN_INVALID'
  | 'PLAN_UNVERIFIABLE'
  | 'MANIFESTS_CHANGED'
  | 'LOCKED'
  | 'LOCK_LOST'
  | 'DELETE_BUDGET'
  | 'CONFIRMATION_REQUIRED'
  | 'SANDBOX_REFUSED'
  | 'SANDBOX_LISTEN'
  | 'SANDBOX_BUSY'
  | 'INTERRUPTED'
  | 'UNRESOLVED_REFERENCE'
  | 'BASELINE_UNAVAILABLE'
  | 'UNSAFE_PATH'
  | 'BACKEND_UNREACHABLE'
  | 'BACKEND_SCHEMA'
  | 'BACKEND_KEY'
  | 'BACKEND_LOST'
  | 'JOURNAL_DAMAGED'
  | 'INTERNAL';

/**
 * The exit codes, in one table (the README repeats it):
 * - 0 `ok`: done, or nothing to change;
 * - 1 `error`: anything failed — usage mistakes, invalid manifests, API errors, a failed or
 *   interrupted apply, a declined confirmation, a write that did not take, a plan holding
 *   blocked changes (apply sends the rest and names each blocked one);
 * - 2 `changes`: changes (blocked ones too) or drift present (`plan --detailed-exitcode`, `drift`);
 * - 3 `refused`: erpsync would not go on — a stale or unverifiable saved plan, saved plans whose
 *   manifests changed in the checkout since they were made (MANIFESTS_CHANGED), the delete
 *   budget, another run holding the account's lock (or taking it over from a paused run), confirmation missing without a terminal,
 *   another account, credentials issued for another base URL, the sandbox under CI, a sandbox
 *   state another run owns, a file to write whose path is a symbolic link, the account's daily
 *   request quota (what is left cannot carry the run, or the service answered its daily 429), the
 *   state backend unreachable at start, its schema newer than this erpsync, or its key wrong, a
 *   journal run whose lines fail their checks (named for history, revert and its resolution).
 */
export const exitCodes = { ok: 0, error: 1, changes: 2, refused: 3 } as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

const refusedCodes: ReadonlySet<ErrorCode> = new Set([
  'PLAN_STALE',
  'ACCOUNT_MISMATCH',
  'CREDENTIALS_MISMATCH',
  'PLAN_UNVERIFIABLE',
  'MANIFESTS_CHANGED',
  'LOCKED',
  'LOCK_LOST',
  'DELETE_BUDGET',
  'CONFIRMATION_REQUIRED',
  'SANDBOX_REFUSED',
  'SANDBOX_BUSY',
  'UNSAFE_PATH',
  'DAILY_QUOTA',
  'BACKEND_UNREACHABLE',
  'BACKEND_SCHEMA',
  'BACKEND_KEY',
  'JOURNAL_DAMAGED',
]);

export class ErpsyncError extends Error {
  readonly code: ErrorCode;
  /** Extra lines shown under the message (field messages, hints). Never secrets. */
  readonly details: readonly string[];

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: readonly string[] } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ErpsyncError';
    this.code = code;
    this.details = options.details ?? [];
  }

  get exitCode(): ExitCode {
    return refusedCodes.has(this.code) ? exitCodes.refused : exitCodes.error;
  }
}

export function isErpsyncError(value: unknown): value is ErpsyncError {
  return value instanceof ErpsyncError;
}
