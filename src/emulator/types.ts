// Public types of the embedded emulator: the options a test or the CLI passes in and the handle
// it gets back. Other modules of erpsync code against these names, so they change only with care.
import type { IpLedger, IpViolation } from './ip-rules.js';
import type { ReadingId } from './readings.js';
import type { EmulatorMode } from './rules.js';
import type { CompanyRecord } from './state.js';
import type { EmulatorState } from './state.js';

export type FaultKind =
  | 'http500'
  | 'http502'
  | 'http503'
  | 'http429'
  | 'http429-html'
  | 'latency'
  | 'reset-before'
  | 'reset-after'
  /** The server keeps processing after the client gave up: the write commits `holdMs` later, whether or not anyone waits for the answer. */
  | 'late-commit'
  /** The write commits at once; the answer comes `holdMs` later, beyond a short client timeout. */
  | 'slow-response';

export interface FaultScheduleEntry {
  method?: string;
  /** Path relative to the base URL, without query (e.g. `/formas-pagamentos`). */
  path?: string;
  /** The nth matching request (1-based) meets the fault. */
  nth: number;
  fault: FaultKind;
}

/** A member a write's body loses on its way in (a proxy that drops it): the service never sees it. */
export interface DroppedMember {
  /** Default: every write method. */
  method?: string;
  /** The resource: this path and every path under it (`/formas-pagamentos` covers `/formas-pagamentos/7`). */
  path: string;
  /** Dot path inside the body, e.g. `juros` or `taxas.valor`. */
  member: string;
}

export interface FaultSpec {
  /** 0..1, drawn per request. */
  probability?: number;
  /** Seed of the deterministic PRNG behind `probability`. */
  seed?: number;
  /** Kinds drawn from when `probability` fires; default: all. */
  kinds?: FaultKind[];
  /** Extra delay of the `latency` fault. */
  latencyMs?: number;
  /** How long `late-commit` holds a write before committing it, and `slow-response` its answer. Default 1000. */
  holdMs?: number;
  /**
   * A `Retry-After` (seconds) on injected 429s, JSON and HTML. Absent: none, as the service documents
   * none (api-facts §5); tests that inject many 429s give 0, so each costs no pause of a second.
   */
  retryAfterSeconds?: number;
  /** Methods `probability` draws faults for (e.g. only POST, to fault creates); default: every method. */
  methods?: string[];
  schedule?: FaultScheduleEntry[];
  /** Members dropped from every matching write (see DroppedMember). */
  dropMembers?: DroppedMember[];
}

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface EmulatorOptions {
  /**
   * `strict` applies the inferred rules of rules.ts (RULES.md) as well as the documented ones;
   * `lenient` takes the other plausible reading where the references are silent. Default: the
   * `ERPSYNC_EMULATOR_MODE` environment variable, else strict.
   */
  mode?: EmulatorMode;
  /** Named readings to apply besides the mode's (readings.ts). Default: `ERPSYNC_EMULATOR_READINGS`. */
  readings?: readonly ReadingId[];
  /** `fresh` (default): a new account's defaults; `empty`: system records only; else a JSON file path. */
  seed?: 'fresh' | 'empty' | string;
  /** Loaded when it exists (else the seed is used); every change is persisted to it atomically. */
  stateFile?: string;
  host?: string;
  port?: number;
  /** Requests per second per account (token bucket); 0 turns the limit off. Default 3. */
  rateLimit?: number;
  /** Requests per service day per account (rule daily-quota); 0 turns the limit off. Default 120000. */
  dailyLimit?: number;
  /** A spec or the CLI's `--faults` text. */
  faults?: FaultSpec | string;
  /** A static bearer token that is always accepted. Default: random. */
  token?: string;
  /**
   * The static token's scopes: resource scopes by path (`formas-pagamentos`,
   * `categorias-receitas-despesas`, `logisticas` …; auth.ts scopeOf). Default: the whole grant.
   */
  scopes?: readonly string[];
  oauthClients?: OAuthClient[];
  /** The account's company, replacing the seed's or the state file's (two emulators, two accounts). */
  company?: Partial<CompanyRecord>;
  /** Clock in ms for token expiry, authorization codes, the daily limit and log times. */
  now?: () => number;
  /**
   * The per-IP rules (rule ip-blocks). Emulators given one ledger are judged together, as the
   * service judges one machine's fleet. Default: a ledger of its own that records violations
   * without blocking (`createIpLedger({ enforce: false })`).
   */
  ipRules?: IpLedger;
}

export interface RequestLogEntry {
  method: string;
  /** Relative to the base URL, without query. */
  path: string;
  /** Raw query string without `?` ('' when none). */
  query: string;
  /** Route template that matched, e.g. `GET /formas-pagamentos/{idFormaPagamento}`, when one did. */
  route?: string;
  /**
   * Status sent, or that would have been sent for `reset-after`; 0 for `reset-before` and while
   * the request is still being served (entries are logged on arrival).
   */
  status: number;
  fault?: FaultKind;
  at: number;
}

export interface Emulator {
  /** e.g. http://127.0.0.1:PORT/Api/v3; the API and /oauth/* live under it. */
  baseUrl: string;
  mode: EmulatorMode;
  /** The named readings applied, the mode's included. */
  readings: readonly ReadingId[];
  token: string;
  requestLog(): readonly RequestLogEntry[];
  /** Requests per `METHOD path`, e.g. `{ 'GET /formas-pagamentos': 3 }`. */
  counters(): Record<string, number>;
  clearLog(): void;
  setFaults(spec: FaultSpec | string | undefined): void;
  setRateLimit(perSecond: number): void;
  /** The account's requests per service day (rule daily-quota; 0 = off); the requests counted today stay counted. */
  setDailyLimit(perDay: number): void;
  /** Requests counted toward the account's daily limit this service day. */
  requestsToday(): number;
  /** Deep copy of every record, for assertions. */
  snapshot(): EmulatorState;
  /** Every time a source IP broke one of the service's per-IP rules (rule ip-blocks). */
  ipViolations(): readonly IpViolation[];
  /** Mints another valid access token; an empty `scopes` list yields 403 insufficient_scope. */
  issueToken(opts?: { scopes?: string[] }): string;
  save(): Promise<void>;
  /** Stops the server; saves when a state file is set. */
  close(): Promise<void>;
}
