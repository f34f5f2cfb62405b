// Reading and rewriting nested plain objects by a path of property names. Immutable: writes and
// removals return new objects and leave the input alone.

export type PlainRecord = Record<string, unknown>;

export function isPlainRecord(value: unknown): value is PlainRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value at `path`, or undefined where the path leaves the objects. */
export function readPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (!isPlainRecord(current)) return undefined;
    current = current[segment];
  }
  return current;
}

/** A copy of `value` with `leaf` at `path`, creating the objects on the way. */
export function writePath(value: PlainRecord, path: readonly string[], leaf: unknown): PlainRecord {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (rest.length === 0) return { ...value, [head]: leaf };
  const inner = value[head];
  return { ...value, [head]: writePath(isPlainRecord(inner) ? inner : {}, rest, leaf) };
}

/** A copy of `value` without the property at `path` (the same object when there is none). */
export function removePath(value: PlainRecord, path: readonly string[]): PlainRecord {
  const [head, ...rest] = path;
  if (head === undefined || !(head in value)) return value;
  if (rest.length === 0) {
    const { [head]: _removed, ...others } = value;
    return others;
  }
  const inner = value[head];
  return isPlainRecord(inner) ? { ...value, [head]: removePath(inner, rest) } : value;
}
