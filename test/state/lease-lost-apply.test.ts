// Issue 34, must show: a runner stopped (SIGSTOP: a stalled VM, a runner frozen by its host) past
// its lease while its creates are in flight, on the postgres backend. A second runner — its own
// folder, HOME and lock folder, the database its only link to the first — takes the lease over and
// finishes the apply; the first, resumed (SIGCONT), is refused at its next write and exits 3 with
// the lease-lost message. Every record exists once. Real processes of the built CLI against an
// emulated account over HTTP whose creates are slowed (a latency fault), so they are in flight when
// the runner stops; the test stops it when its first create reaches the account, not on a clock.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDuplicates } from '../reliability/support/account.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import { groupNamesOf, groupsManifest } from '../support/account.js';
import { eventually } from '../support/eventually.js';
import { openFleetAccounts, storeName } from '../support/fleet.js';
import type { FleetAccounts } from '../support/fleet.js';
import { freshBackend } from '../support/postgres.js';
import type { TestBackend } from '../support/postgres.js';
import { openRunnerFolder } from './support/runner-folders.js';

const names = Array.from({ length: 12 }, (_, i) => `Grupo ${String(i + 1).padStart(2, '0')}`);
/** A lease of 1.5 s; a create of unknown outcome may commit for 2 s (the latency is 0.5 s). */
const runEnv = { ERPSYNC_LOCK_LEASE_MS: '1500', ERPSYNC_OUTCOME_WAIT: '2' };

let root = '';
let fleet: FleetAccounts;
let backend: TestBackend;

beforeAll(async () => {
  await ensureBuiltCli();
  root = mkdtempSync(path.join(tmpdir(), 'erpsync-lease-lost-'));
  fleet = await openFleetAccounts(root, 1, () => ({ manifests: ['grupos.yaml'] }));
  backend = freshBackend();
}, 120_000);

afterAll(async () => {
  await fleet.close();
  await backend.drop();
  rmSync(root, { recursive: true, force: true });
});

describe('an apply stopped past its postgres lease with creates in flight', () => {
  it('loses the lease to a runner on another folder, which finishes; resumed, it exits 3 with the lease-lost message: zero duplicates', async () => {
    const store = fleet.stores[0];
    if (!store) throw new Error('no store');
    const account = store.emulator;
    account.setFaults({ probability: 1, kinds: ['latency'], methods: ['POST'], latencyMs: 500 });
    const files = { 'erpsync.config.yaml': readFileSync(path.join(root, 'erpsync.config.yaml'), 'utf8'), 'grupos.yaml': groupsManifest(names) };
    const shared = { ...fleet.env, ...backend.env, ...runEnv };
    const [first, second] = ['stopped', 'taker'].map((name) => openRunnerFolder(root, name, shared, files));
    if (!first || !second) throw new Error('no runners');
    const creates = () => account.requestLog().filter((entry) => entry.method === 'POST');

    // Three creates at a time, each held 0.5 s by the account: stopped at the first, all three are in flight.
    const stopped = first.run(['apply', '--target', storeName(1), '--auto-approve', '--concurrency', '3']);
    await eventually(() => expect(creates().length).toBeGreaterThan(0));
    stopped.child.kill('SIGSTOP');

    const taker = await second.run(['apply', '--target', storeName(1), '--auto-approve', '--lock-timeout', '60']).exit;
    expect(taker.code, taker.stderr).toBe(0);
    expect(taker.stderr).toMatch(/took over the lock of `erpsync apply` \(pid \d+ on .+, since .+\), which stopped/);
    const takerCreates = Number(/Plan: (\d+) to create/.exec(taker.stdout + taker.stderr)?.[1]);
    expect(groupNamesOf(account)).toEqual(names);

    stopped.child.kill('SIGCONT');
    const resumed = await stopped.exit;
    // Each record once: the taker created what the stopped runner had not sent, and the stopped runner sent nothing more.
    expect(findDuplicates(account.snapshot()), resumed.stderr).toEqual([]);
    expect(groupNamesOf(account)).toEqual(names);
    expect(creates()).toHaveLength(names.length);
    expect(resumed.code, resumed.stderr).toBe(3);
    // The taker is named while its lease is there; once it finished and let go, the lease is simply not this
    // run's. How long the run was stopped is said when the refusal's renewal was sent after the pause.
    expect(resumed.stderr).toMatch(
      /the lock on account \w+ (was taken over by `erpsync apply` \(pid \d+ on .+\)|is no longer held by this run)( after this run was not running for \d+(\.\d)? s \(its lease is 1\.5 s\))?; this run stopped writing/,
    );
    // What it had in flight when stopped committed while it was stopped; the taker planned only the rest.
    const sent = Number(/sent before it stopped \((\d+)\):/.exec(resumed.stderr)?.[1]);
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThanOrEqual(3);
    expect(takerCreates).toBe(names.length - sent);
  }, 120_000);
});
