// Looking for a secret in what erpsync printed or wrote: every form a value can take on its way
// out (as is, JSON-escaped, URL- and form-encoded, base64, inside HTTP Basic credentials), the
// output formats a command offers (read from its own --help), and the files under a folder.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../support/run-cli.js';

/** Every form of `secret` that would count as a leak. */
export function leakForms(secret: string, basicUser?: string): string[] {
  const forms = [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    new URLSearchParams({ v: secret }).toString().slice(2),
    Buffer.from(secret).toString('base64'),
    ...(basicUser === undefined ? [] : [Buffer.from(`${basicUser}:${secret}`).toString('base64')]),
  ];
  return [...new Set(forms)];
}

/** The forms of `forbidden` that `text` holds. */
export function leaksIn(text: string, forbidden: readonly string[]): string[] {
  return forbidden.filter((form) => text.includes(form));
}

export interface OutputFormat {
  flag: string[];
  name: 'text' | 'json' | 'markdown' | 'junit';
}

/** The output formats a command offers, from its own --help: text, and json/markdown/junit where listed. */
export async function formatsOf(command: string, cwd: string): Promise<OutputFormat[]> {
  const help = (await runCli([command, '--help'], { cwd, env: {} })).stdout;
  const formats: OutputFormat[] = [{ flag: [], name: 'text' }];
  if (/^\s+--json\b/m.test(help)) formats.push({ flag: ['--json'], name: 'json' });
  const formatLine = /^\s+--format\b(.*)$/m.exec(help)?.[1] ?? '';
  for (const name of ['markdown', 'junit'] as const) if (formatLine.includes(name)) formats.push({ flag: ['--format', name], name });
  return formats;
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}
