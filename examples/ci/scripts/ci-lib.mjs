// What the loops' scripts share, on GitHub Actions and GitLab CI alike: the one secret, erpsync's
// runs, the job's outputs and messages. The scripts come with the erpsync package
// (node_modules/erpsync/examples/ci/scripts), so `npm ci` brings the version that matches the CLI.
/* global console -- Node.js scripts run by the CI */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { parseEnv } from 'node:util';

export const onGitHub = process.env.GITHUB_ACTIONS === 'true';

/** An annotation on GitHub (the run's page lists it), a plain line on GitLab. */
export function report(level, message) {
  if (onGitHub) console.log(`::${level} title=erpsync::${message.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')}`);
  else console.log(`${level === 'error' ? 'ERROR' : level === 'warning' ? 'WARNING' : 'NOTE'}: erpsync: ${message}`);
}

/** A step output on GitHub (`steps.ID.outputs.NAME`); GitLab jobs read the files in the output folder instead. */
export function setOutput(name, value) {
  if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

/** Markdown for the run's summary page on GitHub; the job log on GitLab. */
export function addSummary(markdown) {
  if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, `${markdown}\n`);
  else console.log(markdown);
}

/** The commit this job runs on. */
export function currentCommit() {
  const sha = process.env.GITHUB_SHA ?? process.env.CI_COMMIT_SHA;
  if (!sha) throw new Error('neither GITHUB_SHA nor CI_COMMIT_SHA is set: run this from GitHub Actions or GitLab CI');
  return sha;
}

/** The link to this run, for comments and issues. */
export function runUrl() {
  const env = process.env;
  if (env.GITHUB_RUN_ID) return `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  return env.CI_JOB_URL ?? env.CI_PIPELINE_URL ?? '';
}

/**
 * The one secret, ERPSYNC_STATE: `.env` lines with the backend's URL and key (and the OAuth app,
 * a chat webhook, GitLab's API token when used). On GitLab a variable of type File holds the path
 * of a file with those lines. Each value is masked on GitHub before anything else is printed. The
 * values go to the processes that need them, never into the job's environment.
 */
export function readState() {
  const raw = process.env.ERPSYNC_STATE ?? '';
  if (raw === '') return undefined;
  const text = !raw.includes('\n') && existsSync(raw) && statSync(raw).isFile() ? readFileSync(raw, 'utf8') : raw;
  const values = parseEnv(text);
  if (onGitHub) for (const value of Object.values(values)) for (const line of value.split('\n')) if (line.trim() !== '') console.log(`::add-mask::${line}`);
  return values;
}

/** The environment of a child process: the job's, without the raw secret, plus `extra`. */
export function childEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.ERPSYNC_STATE;
  return env;
}

/**
 * Runs erpsync (the package's bin, on PATH after `npm ci`): its output goes to the log, or is
 * returned when `capture` is set. Resolves to the exit code (and the captured text).
 */
export function erpsync(args, { state, capture = false } = {}) {
  const run = spawnSync('erpsync', args, { env: childEnv(state), stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.error) throw new Error(`could not run erpsync (is node_modules/.bin on PATH after npm ci?): ${run.error.message}`);
  return { code: run.status ?? 1, stdout: run.stdout ?? '' };
}

export function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

export function writeJson(file, value) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The folder a script works in, its first argument. */
export function outputFolder(usage) {
  const out = process.argv[2];
  if (!out) throw new Error(`usage: ${usage}`);
  return path.resolve(out);
}

/** Runs a script's body: its result is the exit code; a failure is reported as an error of the job. */
export async function runScript(body) {
  try {
    process.exitCode = (await body()) ?? 0;
  } catch (error) {
    report('error', error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}

/**
 * `erpsync targets … --json`: the matrix of the selected stores, one entry per job — with the
 * config's `concurrency: { groups: N }`, one per concurrency group that holds any ({ group, shard:
 * "I/N", targets }), else one per store ({ group, target, targets }).
 */
export function matrixOf(args) {
  const run = erpsync(['targets', ...args, '--json'], { capture: true });
  if (run.code !== 0) throw new Error(`erpsync targets ${args.join(' ')} --json exited with ${run.code}`);
  return JSON.parse(run.stdout).include;
}

/** The stores of a matrix's jobs. */
export const storesOf = (matrix) => matrix.flatMap((job) => job.targets);
