// Reading and rewriting nested plain objects by a path of property names (and, where a path
// says so with a number, items of arrays), and JSON pointers to and from such paths. Immutable:
// writes and removals return new objects and leave the input alone.

export type PlainRecord = Record<string, unknown>;

/** A property name, or the index of an array item. */
export type PathKey = string | number;

export function isPlainRecord(value: unknown): value is PlainRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value at `path`, or undefined where the path leaves the objects. */
export function readPath(value: unknown, path: readonly PathKey[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isPlainRecord(current)) current = current[String(segment)];
    else return undefined;
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

/** A copy of `value` without the property (or array item) at `path` (the same object when there is none). */
export function removePath<T>(value: T, path: readonly PathKey[]): T {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (Array.isArray(value)) {
    if (typeof head !== 'number' || head >= value.length) return value;
    return (rest.length === 0 ? value.filter((_, i) => i !== head) : value.map((item: unknown, i) => (i === head ? removePath(item, rest) : item))) as T;
  }
  const key = String(head);
  if (!isPlainRecord(value) || !(key in value)) return value;
  if (rest.length === 0) {
    const { [key]: _removed, ...others } = value;
    return others as T;
  }
  return { ...value, [key]: removePath(value[key], rest) } as T;
}

/** `/a/0/b` for ['a', 0, 'b'] (RFC 6901 escapes); the empty string for the root. */
export function toPointer(path: readonly PathKey[]): string {
  return path.length === 0 ? '' : `/${path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/** The path of a JSON pointer; all-digit segments are array indices. */
export function parsePointer(pointer: string): PathKey[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
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
