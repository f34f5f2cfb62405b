// The default lock folder, for a container's user: the built CLI runs apply as a uid with no
// passwd entry (as `docker run --user 54321` does) when the test runs as root, else as the test's
// own user. The folder is made for that user alone (0700); once read-only it refuses the apply by
// name (exit 3) and nothing is written; one that another user made first is refused the same way.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { groupNamesOf, groupsManifest } from '../support/account.js';
import { ensureBuiltCli, startCli } from './support/built-cli.js';
import type { Exit } from './support/built-cli.js';

let emulator: Emulator | undefined;
let dir: string | undefined;
const isRoot = process.getuid?.() === 0;
/** A uid no passwd entry names, when the test may switch to it. */
const user = isRoot ? 54321 : (process.getuid?.() ?? 0);

beforeAll(async () => {
  await ensureBuiltCli();
}, 120_000);

afterEach(async () => {
  await emulator?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function applyAsUser(cwd: string, env: NodeJS.ProcessEnv): Promise<Exit> {
  return startCli(['apply', 'm.yaml', '--auto-approve'], { cwd, env, ...(isRoot ? { uid: user } : {}) }).exit;
}

describe('the default lock folder', () => {
  it('works for a uid with no passwd entry, is private to it, and refuses the apply once read-only or another user\'s', async () => {
    emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    dir = mkdtempSync(path.join(tmpdir(), 'erpsync-lock-user-'));
    if (isRoot) chownSync(dir, user, user);
    const env = { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', TMPDIR: dir, HOME: dir };
    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
    if (isRoot) chownSync(path.join(dir, 'm.yaml'), user, user);

    const first = await applyAsUser(dir, env);
    expect(first.code, first.stderr).toBe(0);
    const locks = path.join(dir, `erpsync-locks-${user}`);
    expect(statSync(locks).mode & 0o777).toBe(0o700);
    expect(statSync(locks).uid).toBe(user);
    expect(groupNamesOf(emulator)).toEqual(['Maquiagem']);

    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem', 'Perfumaria']));
    chmodSync(locks, 0o500);
    const readOnly = await applyAsUser(dir, env);
    expect(readOnly.code, readOnly.stderr).toBe(3);
    expect(readOnly.stderr).toContain(`cannot lock the account in ${locks}: it is read-only; nothing was changed`);
    expect(groupNamesOf(emulator)).toEqual(['Maquiagem']);

    if (isRoot) {
      // Made first by another user (root here), private or not: refused, never used.
      rmSync(locks, { recursive: true });
      mkdirSync(locks, { mode: 0o700 });
      const planted = await applyAsUser(dir, env);
      expect(planted.code, planted.stderr).toBe(3);
      expect(planted.stderr).toContain(`cannot lock the account in ${locks}: it belongs to another user (uid 0)`);
      expect(groupNamesOf(emulator)).toEqual(['Maquiagem']);
    }
  }, 60_000);
});
