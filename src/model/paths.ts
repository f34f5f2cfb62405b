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

/**
 * Every value at `path`, where a `*` segment walks each item of an array (`['acoes', '*']`):
 * how references that hold a list of names are read. Missing values are left out.
 */
export function readPathValues(value: unknown, path: readonly string[]): unknown[] {
  const [head, ...rest] = path;
  if (head === undefined) return value === undefined ? [] : [value];
  if (head === '*') return Array.isArray(value) ? value.flatMap((item) => readPathValues(item, rest)) : [];
  return isPlainRecord(value) ? readPathValues(value[head], rest) : [];
}

/** `value` with each leaf at `path` replaced by `map(leaf)`; undefined removes it. `*` walks every item. */
export function mapPath(value: unknown, path: readonly string[], map: (leaf: unknown) => unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return map(value);
  if (head === '*') return Array.isArray(value) ? value.map((item) => mapPath(item, rest, map)) : value;
  if (!isPlainRecord(value) || !(head in value)) return value;
  const inner = mapPath(value[head], rest, map);
  const { [head]: _old, ...others } = value;
  return inner === undefined ? others : { ...value, [head]: inner };
}
