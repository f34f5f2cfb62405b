// The built CLI (dist/cli/bin.js) for tests that need a real process: to kill, in a terminal, in
// a pipe. CI builds it in `npm ci` (prepare); a local tree whose sources are newer is rebuilt first.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../../..');
const builtBin = path.join(root, 'dist/cli/bin.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function builtAt(): number {
  try {
    return statSync(builtBin).mtimeMs;
  } catch {
    return 0;
  }
}

/** Builds dist/ when it is missing or older than src/; resolves to the path of bin.js. */
export async function ensureBuiltCli(): Promise<string> {
  if (builtAt() >= newestSource(path.join(root, 'src'))) return builtBin;
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  // Type errors in work in progress elsewhere in the tree do not stop tsc from emitting.
  await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root }).catch(() => undefined);
  // The rest of `npm run build`: the generated validators, then the bundles of the new code.
  for (const step of ['scripts/generate-validators.js', 'scripts/bundle-cli.js']) await promisify(execFile)(process.execPath, [step], { cwd: root });
  if (builtAt() === 0) throw new Error('dist/cli/bin.js could not be built');
  return builtBin;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the built CLI with exactly `env` (plus PATH), as `uid` (its gid the same) when given; output is collected for the exit record. */
export function startCli(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; uid?: number }): { child: ChildProcess; exit: Promise<Exit> } {
  const user = options.uid === undefined ? {} : { uid: options.uid, gid: options.uid };
  const child = spawn(process.execPath, [builtBin, ...args], { cwd: options.cwd, env: { PATH: process.env.PATH, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], ...user });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<Exit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, exit };
}
