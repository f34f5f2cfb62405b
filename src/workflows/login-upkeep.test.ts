import { describe, expect, it } from 'vitest';
import type { StoredCredentials } from '../api/index.js';
import { describeLogin, planLoginUpkeep } from './login-upkeep.js';

const now = Date.parse('2026-11-28T03:00:00.000Z');
const minute = 60_000;
const hour = 60 * minute;

function login(expiresInMs: number | undefined, extra: Partial<StoredCredentials> = {}): StoredCredentials {
  return {
    version: 1,
    refreshToken: 'refresh',
    accessToken: 'access',
    ...(expiresInMs === undefined ? {} : { expiresAt: new Date(now + expiresInMs).toISOString() }),
    updatedAt: new Date(now - 90 * minute).toISOString(),
    ...extra,
  };
}

describe('planLoginUpkeep', () => {
  it('refreshes the logins whose token expires within the margin, soonest first; those of no known expiry before all', () => {
    const plan = planLoginUpkeep(
      [
        { target: 'b', credentials: login(90 * minute) },
        { target: 'a', credentials: login(5 * hour) },
        { target: 'c', credentials: login(-10 * minute) },
        { target: 'd', credentials: login(undefined) },
        { target: 'e', credentials: login(2 * hour) },
        { target: 'f', credentials: login(2 * hour + 1) },
        { target: 'g', credentials: login(3 * hour, { accessToken: undefined }) },
      ],
      { now, withinMs: 2 * hour },
    );
    expect(plan.due.map((l) => l.target)).toEqual(['d', 'g', 'c', 'b', 'e']);
    expect(plan.due[2]).toEqual({ target: 'c', expiresAt: '2026-11-28T02:50:00.000Z', expiresInMs: -10 * minute });
    expect(plan.due[0]).toEqual({ target: 'd', expiresAt: null, expiresInMs: null });
    expect(plan.fresh.map((l) => l.target)).toEqual(['f', 'a']);
    expect(plan.missing).toEqual([]);
  });

  it('names the command that stores a missing login', () => {
    const plan = planLoginUpkeep(
      [
        { target: 'lojas/loja-01', credentials: undefined },
        { target: 'default', credentials: undefined },
      ],
      { now, withinMs: 2 * hour },
    );
    expect(plan.missing).toEqual([
      { target: 'lojas/loja-01', hint: 'run `erpsync login --target lojas/loja-01`' },
      { target: 'default', hint: 'run `erpsync login`' },
    ]);
    expect(plan.due).toEqual([]);
  });

  it('spreads a fleet run hourly with the default margin: each login every 5 h, never with less than an hour left', () => {
    // 100 logins refreshed at moments spread over 5 h; then 24 hourly runs, each refreshing what is due (a 6 h token).
    const lifetime = 6 * hour;
    const refreshedAt = Array.from({ length: 100 }, (_, i) => now - (i * 5 * hour) / 100 - minute);
    const perRun: number[] = [];
    let leastLeft = Infinity;
    for (let run = 0; run < 24; run += 1) {
      const at = now + run * hour;
      const plan = planLoginUpkeep(
        refreshedAt.map((t, i) => ({ target: `t${i}`, credentials: login(t + lifetime - now) })),
        { now: at, withinMs: 2 * hour },
      );
      for (const due of plan.due) {
        leastLeft = Math.min(leastLeft, due.expiresInMs ?? -Infinity);
        refreshedAt[Number(due.target.slice(1))] = at + minute;
      }
      perRun.push(plan.due.length);
    }
    expect(Math.min(...perRun)).toBeGreaterThanOrEqual(19);
    expect(Math.max(...perRun)).toBeLessThanOrEqual(21);
    expect(leastLeft).toBeGreaterThan(hour);
  });
});

describe('describeLogin', () => {
  it('says its age, expiry and scopes, and holds no token', () => {
    const described = describeLogin(login(4 * hour, { scope: 'formas-pagamentos  empresas' }), now);
    expect(described).toEqual({
      updatedAt: '2026-11-28T01:30:00.000Z',
      ageMs: 90 * minute,
      expiresAt: '2026-11-28T07:00:00.000Z',
      expiresInMs: 4 * hour,
      scopes: ['formas-pagamentos', 'empresas'],
    });
    expect(JSON.stringify(described)).not.toMatch(/refresh|access/);
  });

  it('says what it cannot know as null, and no scopes as none', () => {
    expect(describeLogin(login(undefined, { updatedAt: 'yesterday' }), now)).toEqual({ updatedAt: 'yesterday', ageMs: null, expiresAt: null, expiresInMs: null, scopes: [] });
  });
});
