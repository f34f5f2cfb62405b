// The service's per-IP rules (api-facts §5): more than 600 requests in 10 s, or more than 300 error
// responses in 10 s (429s included), blocks the source IP for 10 minutes; more than 20 calls to
// /oauth/token in 60 s blocks it for 60 minutes. One ledger may be shared by every emulator of a
// process, so a fleet of sandbox accounts is judged as the service judges one machine. The ledger
// records every violation (what fleet tests and the bench read); whether it also blocks is the
// ledger's `enforce` knob. It knows nothing of routes or accounts: the server tells it what passed.

export type IpRuleName = 'requests' | 'errors' | 'token-calls';

export interface IpRule {
  name: IpRuleName;
  /** The most allowed in one window; one more trips the rule. */
  limit: number;
  windowMs: number;
  blockMs: number;
}

export const serviceIpRules: readonly IpRule[] = [
  { name: 'requests', limit: 600, windowMs: 10_000, blockMs: 600_000 },
  { name: 'errors', limit: 300, windowMs: 10_000, blockMs: 600_000 },
  { name: 'token-calls', limit: 20, windowMs: 60_000, blockMs: 3_600_000 },
];

export interface IpViolation {
  ip: string;
  rule: IpRuleName;
  /** What the window held when the rule tripped (limit + 1). */
  count: number;
  at: number;
  blockedUntil: number;
}

export interface IpLedger {
  /** When false, violations are recorded but nobody is blocked. */
  readonly enforce: boolean;
  /** A request arrived (token calls flagged): counts it; returns how long the block has left (ms) when the IP is (or now becomes) blocked. */
  admit(ip: string, tokenCall: boolean): number | undefined;
  /** An answer of status ≥ 400 left for this IP. */
  recordError(ip: string): void;
  violations(): readonly IpViolation[];
  /** Requests refused because their IP was blocked. */
  refused(): number;
  /** Forgets counts, blocks and violations (between bench runs). */
  reset(): void;
}

interface IpState {
  /** Arrival times per rule, oldest first, trimmed to the rule's window. */
  seen: Record<IpRuleName, number[]>;
  blockedUntil: number;
}

export function createIpLedger(options: { enforce?: boolean; rules?: readonly IpRule[]; now?: () => number } = {}): IpLedger {
  const rules = options.rules ?? serviceIpRules;
  const now = options.now ?? (() => performance.now());
  const enforce = options.enforce ?? true;
  let ips = new Map<string, IpState>();
  let violations: IpViolation[] = [];
  let refused = 0;
  const stateOf = (ip: string): IpState => {
    let state = ips.get(ip);
    if (!state) {
      state = { seen: { requests: [], errors: [], 'token-calls': [] }, blockedUntil: 0 };
      ips.set(ip, state);
    }
    return state;
  };
  const count = (ip: string, name: IpRuleName, at: number): void => {
    const rule = rules.find((r) => r.name === name);
    if (!rule) return;
    const state = stateOf(ip);
    const seen = state.seen[name];
    seen.push(at);
    while (seen.length > 0 && (seen[0] ?? at) <= at - rule.windowMs) seen.shift();
    if (seen.length > rule.limit) {
      const blockedUntil = Math.max(state.blockedUntil, at + rule.blockMs);
      violations.push({ ip, rule: name, count: seen.length, at, blockedUntil });
      if (enforce) state.blockedUntil = blockedUntil;
      // The window starts over: one burst is one violation, not one per request after the limit.
      seen.length = 0;
    }
  };
  return {
    enforce,
    admit(ip, tokenCall) {
      const at = now();
      const state = stateOf(ip);
      if (state.blockedUntil > at) {
        refused += 1;
        return state.blockedUntil - at;
      }
      count(ip, 'requests', at);
      if (tokenCall) count(ip, 'token-calls', at);
      if (state.blockedUntil <= at) return undefined;
      refused += 1;
      return state.blockedUntil - at;
    },
    recordError(ip) {
      count(ip, 'errors', now());
    },
    violations: () => violations.map((v) => ({ ...v })),
    refused: () => refused,
    reset() {
      ips = new Map();
      violations = [];
      refused = 0;
    },
  };
}
