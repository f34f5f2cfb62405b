// The embedded ERP emulator: a faithful, independent model of the Bling API v3 configuration
// resources, served over real HTTP on loopback for tests and for `erpsync sandbox`.
// It is written from the service's reference material only and must not import erpsync's own
// adapters or client (src/kinds, src/api, src/manifest, src/plan): it exists to catch their mistakes.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ErpsyncError } from '../model/errors.js';
import { errorEnvelope } from './api-error.js';
import { accessTokenTtlMs, addAccessToken, createAuthStore, defaultScopes, generateSecret, persistAuth } from './auth.js';
import { checkFaultSpec, createFaultPlan, parseFaultSpec } from './faults.js';
import type { RawResponse } from './oauth.js';
import { defaultOAuthClient, jsonResponse } from './oauth.js';
import type { StateFile } from './persistence.js';
import { parseStateDocument, readStateFile, writeStateFile } from './persistence.js';
import { createIpLedger } from './ip-rules.js';
import { createBucket, createDailyCounter, requestsCountedToday, setBucketRate } from './rate-limit.js';
import { countRequests } from './request-log.js';
import { emulatorRoutes } from './routes.js';
import { activeReadings, readingsFromEnvironment } from './readings.js';
import { modeFromEnvironment } from './rules.js';
import { buildSeed } from './seed.js';
import type { EmulatorRuntime } from './server.js';
import { apiPrefix, serveRequest } from './server.js';
import { cloneState } from './state.js';
import type { Emulator, EmulatorOptions, FaultSpec } from './types.js';

export type { CompanyRecord, EmulatorState } from './state.js';
export type { EmulatorMode, EmulatorRule, RuleId } from './rules.js';
export { emulatorRules, modeFromEnvironment } from './rules.js';
export type { ReadingId } from './readings.js';
export { emulatorReadings, readingIds, readingsFromEnvironment, truncatedNameLength } from './readings.js';
export type { Emulator, EmulatorOptions, FaultKind, FaultScheduleEntry, FaultSpec, OAuthClient, RequestLogEntry } from './types.js';
export { parseFaultSpec } from './faults.js';
export { claimStateFile, ownerFileOf } from './state-owner.js';
export type { StateClaim, StateOwner } from './state-owner.js';
export { defaultOAuthClient } from './oauth.js';
export { createIpLedger, serviceIpRules } from './ip-rules.js';
export type { IpLedger, IpRule, IpViolation } from './ip-rules.js';

/**
 * The state the emulator starts from: the state file when it exists (the account it holds, id and
 * all), else a new account seeded from `seed` with a company id of its own, which the state file
 * then keeps. So every state file is an account of its own, as every emulator without one is.
 */
async function loadInitial(options: EmulatorOptions): Promise<StateFile> {
  if (options.stateFile) {
    const existing = await readStateFile(options.stateFile);
    if (existing) return existing;
  }
  const seeded = await readSeed(options.seed ?? 'fresh');
  seeded.state.empresa = { ...seeded.state.empresa, id: generateSecret().slice(0, 32) };
  return seeded;
}

async function readSeed(seed: string): Promise<StateFile> {
  if (seed === 'fresh' || seed === 'empty') return { formatVersion: 1, state: buildSeed(seed), auth: { access: [], refresh: [] } };
  let text: string;
  try {
    text = await readFile(seed, 'utf8');
  } catch (error) {
    throw new ErpsyncError('STATE_FILE', `cannot read sandbox seed ${seed}`, { cause: error });
  }
  return parseStateDocument(text, seed);
}

function checkLimit(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new ErpsyncError('CONFIG', `${name} must be a non-negative number`);
  return value;
}

/** Starts an emulator; it is listening when the promise resolves. */
export async function createEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const now = options.now ?? Date.now;
  const initial = await loadInitial(options);
  if (options.company) initial.state.empresa = { ...initial.state.empresa, ...options.company };
  const token = options.token ?? generateSecret();
  const auth = createAuthStore(initial.auth);
  addAccessToken(auth, { token, scopes: [...(options.scopes ?? defaultScopes)], expiresAt: null });
  const mode = options.mode ?? modeFromEnvironment();
  const persist = createStateSaver(options.stateFile, () => ({ formatVersion: 1, state: runtime.state, auth: persistAuth(auth, token, now()) }));
  const runtime: EmulatorRuntime = {
    state: initial.state,
    mode,
    readings: activeReadings(mode, options.readings ?? readingsFromEnvironment()),
    routes: emulatorRoutes,
    auth,
    oauthClients: options.oauthClients ?? [defaultOAuthClient],
    log: { entries: [] },
    faults: createFaultPlan(options.faults),
    bucket: createBucket(checkLimit('rateLimit', options.rateLimit ?? 3), performance.now()),
    daily: createDailyCounter(checkLimit('dailyLimit', options.dailyLimit ?? 120_000), now()),
    // Alone, an emulator records violations of the per-IP rules without blocking (tests that send
    // unpaced bursts on purpose stay possible); given a ledger, it applies that ledger's knob.
    ip: options.ipRules ?? createIpLedger({ enforce: false }),
    now,
    persist,
    inspect: (method, path, body) => inspectSandbox(runtime, method, path, body),
  };
  const server = createServer((req, res) => {
    // A client that vanishes mid-request (reset, abort) leaves nothing to answer.
    serveRequest(runtime, req, res).catch(() => res.destroy());
  });
  await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
  try {
    await runtime.persist();
  } catch (error) {
    // A state file that cannot be written (a link in its place, a folder that is not one): no server left listening.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
  return emulatorHandle(runtime, server, token);
}

/**
 * Each save writes the state as it is when its turn comes; saves never overlap. A save still
 * waiting for its turn will write this change too, so callers share it: a burst of writes costs
 * a few file writes, not one per change. Without a state file, saving does nothing.
 */
function createStateSaver(file: string | undefined, contents: () => StateFile): () => Promise<void> {
  let saving: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  return () => {
    if (!file) return saving;
    if (queued) return queued;
    const run = saving.then(() => {
      queued = undefined;
      return writeStateFile(file, contents());
    });
    queued = run;
    saving = run.catch(() => undefined);
    return run;
  };
}

/** The sandbox's own routes (the request log, faults, the rate limit), for tests and the bench. */
function inspectSandbox(runtime: EmulatorRuntime, method: string, path: string, body: string): RawResponse {
  const route = `${method} ${path}`;
  try {
    switch (route) {
      case 'GET /log':
        return jsonResponse(200, { data: runtime.log.entries });
      case 'GET /counters':
        return jsonResponse(200, { data: countRequests(runtime.log.entries) });
      case 'GET /state':
        return jsonResponse(200, { data: runtime.state });
      case 'POST /reset-log':
        runtime.log.entries = [];
        return { status: 204 };
      case 'GET /ip-violations':
        return jsonResponse(200, { data: { enforce: runtime.ip.enforce, violations: runtime.ip.violations(), refused: runtime.ip.refused() } });
      case 'PUT /faults':
        runtime.faults = createFaultPlan(readFaultBody(body));
        return { status: 204 };
      case 'PUT /rate-limit':
        setBucketRate(runtime.bucket, checkLimit('perSecond', Number((JSON.parse(body) as { perSecond?: unknown }).perSecond)), performance.now());
        return { status: 204 };
      default:
        return jsonResponse(404, errorEnvelope({ type: 'RESOURCE_NOT_FOUND', message: 'Recurso não encontrado', description: `No sandbox route ${route}.` }));
    }
  } catch (error) {
    return jsonResponse(400, errorEnvelope({ type: 'VALIDATION_ERROR', message: 'Invalid sandbox request', description: (error as Error).message }));
  }
}

async function listen(server: Server, host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(new ErpsyncError('SANDBOX_LISTEN', `cannot listen on ${host}:${port}`, { cause: error }));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function emulatorHandle(runtime: EmulatorRuntime, server: Server, token: string): Emulator {
  const address = server.address() as AddressInfo;
  const hostInUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  return {
    baseUrl: `http://${hostInUrl}:${address.port}${apiPrefix}`,
    mode: runtime.mode,
    readings: [...runtime.readings],
    token,
    requestLog: () => runtime.log.entries.map((e) => ({ ...e })),
    counters: () => countRequests(runtime.log.entries),
    clearLog: () => {
      runtime.log.entries = [];
    },
    setFaults: (spec) => {
      runtime.faults = createFaultPlan(spec);
    },
    setRateLimit: (perSecond) => setBucketRate(runtime.bucket, checkLimit('rateLimit', perSecond), performance.now()),
    setDailyLimit: (perDay) => {
      runtime.daily.limit = checkLimit('dailyLimit', perDay);
    },
    requestsToday: () => requestsCountedToday(runtime.daily, runtime.now()),
    snapshot: () => cloneState(runtime.state),
    ipViolations: () => runtime.ip.violations(),
    issueToken: (opts) => {
      const minted = generateSecret();
      addAccessToken(runtime.auth, { token: minted, scopes: [...(opts?.scopes ?? defaultScopes)], expiresAt: runtime.now() + accessTokenTtlMs });
      return minted;
    },
    save: runtime.persist,
    close: () => {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await runtime.persist();
      })();
      return closed;
    },
  };
}

function readFaultBody(body: string): FaultSpec | string | undefined {
  const trimmed = body.trim();
  if (trimmed === '' || trimmed === 'null') return undefined;
  if (!trimmed.startsWith('{')) return parseFaultSpec(trimmed);
  const parsed = JSON.parse(trimmed) as FaultSpec & { spec?: string };
  return typeof parsed.spec === 'string' ? parseFaultSpec(parsed.spec) : checkFaultSpec(parsed);
}
