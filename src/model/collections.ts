// Small helpers for the indexes every stage builds (by name, by identity, by file).

/**
 * Adds `value` to the list under `key`, in place: copying the list on every add made an index of
 * n records sharing one key cost n² (all the records of a kind in one file, one parent's children).
 */
export function appendTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * `compute` remembered per argument: many records name the same undeclared record (children of a
 * default category), and looking for close names compares with every declared one.
 */
export function memoize<T>(compute: (key: string) => T): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    if (known.has(key)) return known.get(key) as T;
    const value = compute(key);
    known.set(key, value);
    return value;
  };
}

const identityKeys = new WeakMap<object, number>();
let nextIdentityKey = 0;

/** A number for an object itself (not its contents), for keys made of several shared objects: the same object always gets the same number. */
export function identityKeyOf(object: object): number {
  let key = identityKeys.get(object);
  if (key === undefined) identityKeys.set(object, (key = nextIdentityKey++));
  return key;
}
