// How names compare: Unicode NFC, surrounding blanks ignored. Paths of names join with ` > `.

export const pathSeparator = ' > ';

export function normalizeName(name: string): string {
  return name.normalize('NFC').trim();
}

export function joinPath(segments: readonly string[]): string {
  return segments.join(pathSeparator);
}
