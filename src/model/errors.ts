// Runtime failures as typed errors. Every failure that leaves a stage carries a stable `code`
// (for scripts and tests) and the original `cause`; the CLI's single top-level handler turns
// them into one message and an exit code. Input problems are not errors: they are diagnostics.

export type ErrorCode =
  | 'USAGE'
  | 'INVALID_MANIFEST'
  | 'FILE_UNREADABLE'
  | 'STATE_FILE'
  | 'API_ERROR'
  | 'API_UNREACHABLE'
  | 'API_TIMEOUT'
  | 'API_OUTCOME_UNKNOWN'
  | 'AUTH_MISSING'
  | 'AUTH_FAILED'
  | 'RATE_BUDGET_EXHAUSTED'
  | 'CIRCUIT_OPEN'
  | 'INSECURE_URL'
  | 'CONFIG'
  | 'PLAN_STALE'
  | 'PLAN_INVALID'
  | 'DELETE_BUDGET'
  | 'CONFIRMATION_REQUIRED'
  | 'SANDBOX_REFUSED'
  | 'SANDBOX_LISTEN'
  | 'INTERRUPTED'
  | 'UNRESOLVED_REFERENCE'
  | 'BASELINE_UNAVAILABLE'
  | 'INTERNAL';

/** Exit codes of DESIGN.md §6. */
export type ExitCode = 0 | 1 | 2 | 3;

const refusedCodes: ReadonlySet<ErrorCode> = new Set([
  'PLAN_STALE',
  'DELETE_BUDGET',
  'CONFIRMATION_REQUIRED',
  'SANDBOX_REFUSED',
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
    if (this.code === 'USAGE') return 2;
    return refusedCodes.has(this.code) ? 3 : 1;
  }
}

export function isErpsyncError(value: unknown): value is ErpsyncError {
  return value instanceof ErpsyncError;
}
