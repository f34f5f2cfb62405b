// The undo log of one request. Handlers change the account only through it, so a request that
// fails half-way is rolled back at the cost of what it changed — never of the account's size,
// which is what keeps building a large account linear (cloning the state per write was not).
export class Journal {
  private readonly undo: (() => void)[] = [];

  /** Appends `item` to `list`. */
  push<T>(list: T[], item: T): void {
    list.push(item);
    this.undo.push(() => {
      const index = list.lastIndexOf(item);
      if (index >= 0) list.splice(index, 1);
    });
  }

  /** Removes `item` from `list` (no-op when absent). */
  remove<T>(list: T[], item: T): void {
    const index = list.indexOf(item);
    if (index < 0) return;
    list.splice(index, 1);
    this.undo.push(() => list.splice(index, 0, item));
  }

  /** Puts `next` where `current` is in `list`. */
  replace<T>(list: T[], current: T, next: T): void {
    const index = list.indexOf(current);
    if (index < 0) return;
    list[index] = next;
    this.undo.push(() => {
      list[index] = current;
    });
  }

  /** Object.assign that can be undone: members that were absent are removed again. */
  assign<T extends object>(target: T, patch: Partial<T>): void {
    const before = new Map<PropertyKey, { had: boolean; value: unknown }>();
    for (const key of Object.keys(patch)) {
      before.set(key, { had: Object.hasOwn(target, key), value: (target as Record<string, unknown>)[key] });
    }
    Object.assign(target, patch);
    this.undo.push(() => {
      const record = target as Record<PropertyKey, unknown>;
      for (const [key, { had, value }] of before) {
        if (had) record[key] = value;
        else delete record[key];
      }
    });
  }

  /** Undoes every change, newest first. */
  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i -= 1) this.undo[i]?.();
    this.undo.length = 0;
  }
}
