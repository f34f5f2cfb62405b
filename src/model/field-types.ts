// How two values of one field compare: by what they mean, one comparator per field type. The
// service may store a value in another form than the one sent (money read back as float32,
// 2.49 → 2.4900000095367432; an NCM or CNAE code stored with its dots) and that is no change.
// Each kind declares its fields' types in its own file (KindAdapter.fieldTypes); plan, drift,
// adopt and the check after apply all compare through kinds/compare-records, which uses this.
// Text is compared as written: no case folding, no trimming beyond what names already get.

export type FieldType =
  /** A number compared at `places` decimals: money at cents, rates at their documented precision. */
  | { type: 'decimal'; places: number }
  /** A code (CNAE, NCM, CEST, CNPJ, CEP, LC 116 item, CFOP …) compared by its digits alone. */
  | { type: 'code' }
  /** A `#rrggbb` colour: hex digits in either case are the same colour. */
  | { type: 'colour' };

/** Field types by dot path inside a record; `*` stands for any one segment (an item, a keyed entry). */
export type FieldTypes = Readonly<Record<string, FieldType>>;

export function decimal(places: number): FieldType {
  return { type: 'decimal', places };
}

export const code: FieldType = { type: 'code' };
export const colour: FieldType = { type: 'colour' };

/** The type declared for a field path (`ISS.tributos.8299 + 0107.CNAE` matches `ISS.tributos.*.CNAE`). */
export function fieldTypeAt(types: FieldTypes | undefined, path: string): FieldType | undefined {
  if (!types) return undefined;
  const exact = types[path];
  if (exact) return exact;
  const segments = path.split('.');
  for (const [pattern, type] of Object.entries(types)) {
    const parts = pattern.split('.');
    if (parts.length === segments.length && parts.every((part, i) => part === '*' || part === segments[i])) return type;
  }
  return undefined;
}

/**
 * The form two values of the type are compared in; a value that is not of the type's shape (a
 * string in a decimal field, an object) is compared as it is.
 */
export function comparableValue(type: FieldType | undefined, value: unknown): unknown {
  if (!type) return value;
  switch (type.type) {
    case 'decimal': {
      const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      return typeof number === 'number' && Number.isFinite(number) ? Math.round(number * 10 ** type.places) : value;
    }
    case 'code':
      return typeof value === 'string' || typeof value === 'number' ? String(value).replace(/\D/g, '') : value;
    case 'colour':
      return typeof value === 'string' ? value.toLowerCase() : value;
  }
}

/** Whether two values of a field mean the same. */
export function sameMeaning(type: FieldType | undefined, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!type) return false;
  const left = comparableValue(type, a);
  const right = comparableValue(type, b);
  return left === right && (typeof left === 'number' || typeof left === 'string');
}
