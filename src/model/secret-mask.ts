// Masks of secret values in text. Two users, two rules:
//  - the API layer's redactor (api/redact) masks every registered secret, in every form it may
//    travel in (JSON escapes, URL and form encoding, base64, markup escapes, printable()'s
//    escapes), inside the messages and debug lines it builds — free text of its own;
//  - the output mask (cli/output-mask) is the net over a command's whole output, and holds only
//    erpsync's credential tokens: long random strings, so an occurrence is always the token and
//    its replacement keeps the output valid. A value shorter than minTokenLength is not masked
//    there: it could be a word, a number or a JSON literal of the output itself (the password
//    `true` once turned `"ativo": true` into `"ativo": [redacted]`, invalid JSON that named it).
import { printable } from './printable.js';

export const REDACTED = '[redacted]';

/** Shorter values are not masked: masking "1" everywhere would mangle every message. */
export const minSecretLength = 4;

/**
 * The output mask masks credentials of at least this length only. Bling's tokens and client
 * secrets are far longer (40 hex characters, JWTs of thousands); no text of erpsync's own output
 * holds 16 such characters by chance.
 */
export const minTokenLength = 16;

/** erpsync's own credential settings (`BLING_ACCESS_TOKEN`, `BLING_CLIENT_ID`, …) live in these variables. */
export function isCredentialVariable(name: string): boolean {
  return name.startsWith('BLING_');
}

/** The credential variables whose values are secret: not the client id or the URLs, which every authorize link shows. */
export function isSecretCredentialVariable(name: string): boolean {
  return isCredentialVariable(name) && !/_(ID|URL)$/.test(name);
}

/** Every form in which `secret` may reach an output. */
export function encodedForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const form = new URLSearchParams({ v: secret }).toString().slice(2);
  const markup = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const forms = [secret, json, encodeURIComponent(secret), form, printable(secret), markup, Buffer.from(secret, 'utf8').toString('base64')];
  return [...new Set(forms)].filter((f) => f.length >= minSecretLength);
}

/** `text` with every occurrence of the given strings replaced, longest first (a secret may contain another). */
export function maskValues(text: string, values: Iterable<string>): string {
  let out = text;
  for (const value of [...values].sort((a, b) => b.length - a.length)) {
    if (value.length >= minSecretLength && out.includes(value)) out = out.split(value).join(REDACTED);
  }
  return out;
}

export interface SecretMask {
  /** Registers a value (ignored when undefined or too short to mask). */
  add(secret: string | undefined): void;
  /** The text with every registered value, in every form, replaced. */
  mask(text: string): string;
}

/** The output mask over credential tokens (see the top of this file). */
export function createSecretMask(initial: Iterable<string | undefined> = []): SecretMask {
  const forms = new Set<string>();
  const add = (secret: string | undefined): void => {
    if (secret === undefined || secret.length < minTokenLength) return;
    for (const form of encodedForms(secret)) forms.add(form);
  };
  for (const secret of initial) add(secret);
  return { add, mask: (text) => (forms.size === 0 ? text : maskValues(text, forms)) };
}
