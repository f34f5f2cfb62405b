// Values no output may show — the values of variables that feed secret fields, and of erpsync's
// own credential variables — masked wherever they turn up, whatever put them there (a message, a
// record of the account that happens to hold the same text, a library's error). A value travels
// in more forms than its own: JSON string escapes, URL and form encoding, base64, XML/HTML escapes
// (JUnit and Markdown reports), and the escapes printable() writes for control characters; every
// form is masked. The API layer's redactor masks with the same core.
import { printable } from './printable.js';

export const REDACTED = '[redacted]';

/** Shorter values are not masked: masking "1" everywhere would mangle every message. */
export const minSecretLength = 4;

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

export function createSecretMask(initial: Iterable<string | undefined> = []): SecretMask {
  const forms = new Set<string>();
  const add = (secret: string | undefined): void => {
    if (secret === undefined || secret.length < minSecretLength) return;
    for (const form of encodedForms(secret)) forms.add(form);
  };
  for (const secret of initial) add(secret);
  return { add, mask: (text) => (forms.size === 0 ? text : maskValues(text, forms)) };
}
