// How names compare: Unicode NFC, surrounding blanks ignored. Paths of names join with ` > `.

export const pathSeparator = ' > ';

/** Text of ASCII only: it is already in every Unicode normal form (NFC, NFD, NFKC). */
export const asciiOnly = /^[^\u0080-\uffff]*$/;

export function normalizeName(name: string): string {
  // Most names are ASCII, and ICU's normalize costs even when it changes nothing.
  return (asciiOnly.test(name) ? name : name.normalize('NFC')).trim();
}

export function joinPath(segments: readonly string[]): string {
  return segments.join(pathSeparator);
}

/** The record's own name: the last segment of its identity. */
export function lastSegment(identity: string): string {
  const at = identity.lastIndexOf(pathSeparator);
  return at < 0 ? identity : identity.slice(at + pathSeparator.length);
}

/** The first segment of an identity: the scope of a scoped one (a situation's module). */
export function firstSegment(identity: string): string {
  const at = identity.indexOf(pathSeparator);
  return at < 0 ? identity : identity.slice(0, at);
}

/** Everything before the last segment (the scope and parent path); undefined for a bare name. */
export function parentPathOf(identity: string): string | undefined {
  const at = identity.lastIndexOf(pathSeparator);
  return at < 0 ? undefined : identity.slice(0, at);
}

/** The identity with its last segment (the name) replaced. */
export function withLastSegment(identity: string, name: string): string {
  const parent = parentPathOf(identity);
  return parent === undefined ? name : `${parent}${pathSeparator}${name}`;
}

/**
 * The identity rule, the one place it is written: the scope (a situation's module), then the
 * path of parent names from the root, then the record's own name.
 */
export function composeIdentity(parts: { scope?: string; parentPath?: readonly string[]; name: string }): string {
  return joinPath([...(parts.scope ? [parts.scope] : []), ...(parts.parentPath ?? []), parts.name]);
}
