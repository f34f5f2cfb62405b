// The request governor: one per process, in front of every request the process sends to the
// service (every store of a fleet, reads, writes, retries, token refreshes). The service judges a
// source IP by three rules (api-facts §5): 600 requests in 10 s, 300 error answers in 10 s (429s
// included), 20 calls to /oauth/token in 60 s — past any of them the IP is blocked for 10 or 60
// minutes, every integration behind it with it. The governor keeps a margin under each, on sliding
// windows like the service's: a request starts when the last 10 s hold fewer than its budget of
// requests and of errors, a token call when the last 60 s hold fewer than its budget of them. A
// run that sends less than the budget is never slowed; a fleet that would send more waits here. Per-account pacing stays the
// pacer's (pacing.ts); the governor only knows the IP. Runners that share one egress IP divide it.

import { ErpsyncError } from '../model/errors.js';
import { sleep } from './pacing.js';

/** The service's per-IP rules (api-facts §5). */
export const SERVICE_IP_RULES = { requests: 600, errors: 300, windowMs: 10_000, tokenCalls: 20, tokenWindowMs: 60_000 } as const;

/** The share of each rule the governor uses: room for clocks that disagree and for other tools on the machine. */
export const IP_MARGIN = 0.8;

export interface IpBudget {
  /** Requests per window. */
  requests: number;
  /** Error answers per window. */
  errors: number;
  windowMs: number;
  /** Token calls per token window. */
  tokenCalls: number;
  tokenWindowMs: number;
}

/**
 * This process's share of the IP: the rules with the margin, divided among the runners that share
 * the egress IP. `windowScale` shortens both windows alike (the bench's emulated service scales its
 * own the same way, so a run of minutes takes seconds); the service's windows are scale 1.
 */
export function ipBudgetOf(runnersSharingIp = 1, windowScale = 1): IpBudget {
  const share = IP_MARGIN / Math.max(1, Math.floor(runnersSharingIp));
  const { requests, errors, windowMs, tokenCalls, tokenWindowMs } = SERVICE_IP_RULES;
  return { requests: Math.floor(requests * share), errors: Math.floor(errors * share), windowMs: windowMs * windowScale, tokenCalls: Math.max(1, Math.floor(tokenCalls * share)), tokenWindowMs: tokenWindowMs * windowScale };
}

export interface GovernorStats {
  requests: number;
  tokenCalls: number;
  errors: number;
  /** Token call start times (ms, the governor's clock), for checking the window after a run. */
  tokenCallTimes: readonly number[];
}

/**
 * What the IP's windows hold, in wall-clock ms (Date.now): the processes behind one egress share it
 * as they run (the state store's IP budget, state/ip-claims); alone, each would spend the whole
 * budget — a fleet's `plan` then its `apply` back to back sent 780 requests in 10 s.
 */
export interface IpLedger {
  requests: number[];
  errors: number[];
  tokenCalls: number[];
}

export interface Governor {
  readonly budget: IpBudget;
  /** Resolves when one more request may start; rejects with the signal's reason when aborted. */
  acquireRequest(signal?: AbortSignal): Promise<void>;
  /**
   * Resolves when one more call to the token endpoint may start (it is a request too), with what to
   * call when its answer (or failure) is in: the call then counts from that moment, the latest the
   * service can have seen it, so a call slowed on its way cannot share the next window's turn.
   */
  acquireTokenCall(signal?: AbortSignal): Promise<() => void>;
  /** An error answer (status ≥ 400, 429s included) or a failed connection. */
  recordError(): void;
  /** Requests per second the budget allows. */
  requestRate(): number;
  stats(): GovernorStats;
  /** What this process's windows hold now (its own requests only). */
  ledger(): IpLedger;
  /**
   * Counts what the other processes on this IP sent (their ledgers) in the windows, as if sent
   * here, in place of what they were last said to have sent.
   */
  absorb(others: IpLedger): void;
  /** Puts the other processes' gate (state/ip-claims) before every request and token call from now on. */
  share(gate: IpGate): void;
}

/**
 * What this process must pass before each request or token call when other processes on the
 * machine share the IP: `take` resolves once one more may start with the others told of it (its
 * slot in the shared ledger); `answered` says a token call's answer is in.
 */
export interface IpGate {
  take(kind: 'requests' | 'tokenCalls', signal?: AbortSignal): Promise<void>;
  answered(): void;
}

export function createGovernor(budget: IpBudget = ipBudgetOf(), now: () => number = () => performance.now()): Governor {
  const requestTimes: number[] = [];
  const errorTimes: number[] = [];
  const tokenTimes: number[] = [];
  const allTokenTimes: number[] = [];
  const counts = { requests: 0, tokenCalls: 0, errors: 0 };
  let tokenQueue: Promise<void> = Promise.resolve();
  // Marks absorbed from other processes: counted in the windows, never in this process's own ledger.
  let foreign = { requests: [] as number[], errors: [] as number[], tokenCalls: [] as number[] };
  let gate: IpGate | undefined;
  // The clock's origin in wall-clock ms, so marks can cross processes.
  const origin = Date.now() - now();

  const trim = (times: number[], windowMs: number, at: number): void => {
    while (times.length > 0 && (times[0] ?? at) <= at - windowMs) times.shift();
  };
  type Kind = keyof IpLedger;
  const own: Record<Kind, number[]> = { requests: requestTimes, errors: errorTimes, tokenCalls: tokenTimes };
  /** How many marks the window holds, this process's and the others' (as last absorbed). */
  const held = (kind: Kind, windowMs: number, at: number): number => {
    trim(own[kind], windowMs, at);
    trim(foreign[kind], windowMs, at);
    return own[kind].length + foreign[kind].length;
  };
  /** Waits until the window holds fewer than `limit` of `kind`. */
  const waitForRoom = async (kind: Kind, limit: number, windowMs: number, signal?: AbortSignal): Promise<void> => {
    for (;;) {
      const at = now();
      if (held(kind, windowMs, at) < limit) return;
      const oldest = Math.min(own[kind][0] ?? Infinity, foreign[kind][0] ?? Infinity);
      await sleep(Math.max(1, Math.ceil(oldest + windowMs - at)), signal);
    }
  };
  const acquireRequest = async (signal?: AbortSignal): Promise<void> => {
    for (;;) {
      await waitForRoom('errors', budget.errors, budget.windowMs, signal);
      // Shared, the slot the gate gives is the room: it counted this process's requests and the
      // others', and must be used at once (the others count it until its lease ends).
      if (gate) await gate.take('requests', signal);
      else await waitForRoom('requests', budget.requests, budget.windowMs, signal);
      // Both windows are checked in the same turn that takes the place: no await between them.
      const at = now();
      if (held('errors', budget.windowMs, at) < budget.errors && (gate !== undefined || held('requests', budget.windowMs, at) < budget.requests)) {
        requestTimes.push(at);
        counts.requests += 1;
        return;
      }
    }
  };
  return {
    budget,
    acquireRequest,
    async acquireTokenCall(signal) {
      // One at a time through the window, in arrival order: a fleet's refreshes queue, none is starved.
      let admitted = 0;
      const turn = tokenQueue.then(async () => {
        if (gate) await gate.take('tokenCalls', signal);
        else await waitForRoom('tokenCalls', budget.tokenCalls, budget.tokenWindowMs, signal);
        admitted = now();
        tokenTimes.push(admitted);
        allTokenTimes.push(admitted);
      });
      tokenQueue = turn.catch(() => undefined);
      await turn;
      counts.tokenCalls += 1;
      await acquireRequest(signal);
      return () => {
        // Every mark is at most now: taking one out and adding now at the end keeps them in order.
        const index = tokenTimes.indexOf(admitted);
        if (index >= 0) tokenTimes.splice(index, 1);
        tokenTimes.push(now());
        gate?.answered();
      };
    },
    recordError() {
      counts.errors += 1;
      errorTimes.push(now());
    },
    requestRate: () => (budget.requests * 1000) / budget.windowMs,
    stats: () => ({ ...counts, tokenCallTimes: [...allTokenTimes] }),
    ledger() {
      const at = now();
      trim(requestTimes, budget.windowMs, at);
      trim(errorTimes, budget.windowMs, at);
      trim(tokenTimes, budget.tokenWindowMs, at);
      const own = (times: readonly number[]) => times.map((t) => Math.round(origin + t));
      return { requests: own(requestTimes), errors: own(errorTimes), tokenCalls: own(tokenTimes) };
    },
    absorb(others) {
      const at = now();
      // A mark ahead of now is a slot another process holds and may use until then (state/ip-claims).
      const local = (marks: readonly number[], windowMs: number) => marks.map((mark) => mark - origin).filter((t) => t > at - windowMs && t <= at + windowMs).sort((a, b) => a - b);
      foreign = { requests: local(others.requests, budget.windowMs), errors: local(others.errors, budget.windowMs), tokenCalls: local(others.tokenCalls, budget.tokenWindowMs) };
    },
    share(shared) {
      gate = shared;
    },
  };
}

let processGovernor: Governor | undefined;

/** The one governor of this process, made on first use with the whole IP's share unless configured before. */
export function theProcessGovernor(): Governor {
  processGovernor ??= createGovernor();
  return processGovernor;
}

/**
 * Sets this process's share of its egress IP (`--ip-runners N`, a whole number ≥ 1) before its first
 * request. `windowScale` is ERPSYNC_IP_WINDOW_SCALE, for benches against an emulator whose per-IP
 * windows are scaled alike (a number in (0, 1]); unset, the service's own windows.
 */
export function configureProcessGovernor(runnersSharingIp: string | undefined, windowScale?: string): Governor {
  if (runnersSharingIp === undefined && windowScale === undefined) return theProcessGovernor();
  const runners = Number(runnersSharingIp ?? 1);
  if (!Number.isInteger(runners) || runners < 1) throw new ErpsyncError('USAGE', `--ip-runners takes a whole number ≥ 1, not \`${runnersSharingIp}\``);
  const scale = Number(windowScale ?? 1);
  if (!(scale > 0 && scale <= 1)) throw new ErpsyncError('USAGE', `ERPSYNC_IP_WINDOW_SCALE takes a number above 0 and at most 1, not \`${windowScale}\``);
  const budget = ipBudgetOf(runners, scale);
  const current = processGovernor?.budget;
  if (current?.requests !== budget.requests || current.windowMs !== budget.windowMs) processGovernor = createGovernor(budget);
  return processGovernor as Governor;
}
