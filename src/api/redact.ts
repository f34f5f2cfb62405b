// Redaction of secrets from anything the API layer lets out: error messages, details, events and
// debug lines. Two nets: the exact strings registered as secret (tokens, client secret, refresh
// token, secret manifest values) and patterns that look like credentials whatever their value
// (Bearer/Basic headers, a URL's user:password, token fields in JSON or form bodies). It never throws and never logs.

import { encodedForms, maskValues, minSecretLength as MIN_SECRET_LENGTH, REDACTED } from '../model/secret-mask.js';

export { REDACTED };

const credentialPatterns: readonly [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // A URL's user:password (a proxy's, as HTTPS_PROXY may give it).
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi, `$1${REDACTED}@`],
  [/\b(access_token|refresh_token|client_secret|id_token|code)=([^&\s"']+)/gi, `$1=${REDACTED}`],
  [
    /("(?:access_?token|refresh_?token|client_?secret|accessToken|refreshToken|clientSecret|senha|password)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi,
    `$1"${REDACTED}"`,
  ],
];

export interface Redactor {
  /** Registers a secret value (ignored when empty or too short to be a credential). */
  add(secret: string | undefined): void;
  /** The text with every registered secret and credential-looking value replaced. */
  redact(text: string): string;
}

export function createRedactor(initial: Iterable<string | undefined> = []): Redactor {
  const secrets = new Set<string>();
  const add = (secret: string | undefined): void => {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) return;
    // The same secret also travels encoded (query strings, form bodies, JSON, base64).
    for (const form of encodedForms(secret)) secrets.add(form);
  };
  for (const secret of initial) add(secret);
  return {
    add,
    redact: (text) => redactText(text, secrets),
  };
}

/** Pure core of the redactor: registered strings first (longest first), then the patterns. */
export function redactText(text: string, secrets: Iterable<string>): string {
  let out = maskValues(text, secrets);
  for (const [pattern, replacement] of credentialPatterns) out = out.replace(pattern, replacement);
  return out;
}
