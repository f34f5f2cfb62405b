// How an answer reads under the named readings float-noise and formatted-codes (readings.ts): decimals
// come back as the float32 they were stored in, codes come back formatted. Both act on every JSON
// answer, by member name, so every resource that holds such a member shows them alike. Pure.
import type { ReadingId } from './readings.js';

/** Members that hold money or rates (decimals the service keeps as float32). */
const decimalMembers = new Set(['juros', 'multa', 'aliquota', 'valor', 'freteItem', 'percentualISS', 'percentual', 'percentualAliq', 'valorMinimoAlternativoDescontol']);

/** Members that hold codes, each with how the service formats its digits. */
const codeMembers: Readonly<Record<string, (digits: string) => string>> = {
  CNAE: (d) => (d.length === 7 ? `${d.slice(0, 4)}-${d.slice(4, 5)}/${d.slice(5)}` : d.length === 4 ? `${d.slice(0, 2)}.${d.slice(2)}` : d),
  listaServico: (d) => (d.length === 4 ? `${d.slice(0, 2)}.${d.slice(2)}` : d),
  cnpjCredenciadora: formatCnpj,
  cnpjEmitente: formatCnpj,
};

function formatCnpj(d: string): string {
  return d.length === 14 ? `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}` : d;
}

/** An answer's body as the readings switched on make the service answer it. */
export function applyReadings(readings: ReadonlySet<ReadingId>, body: unknown): unknown {
  if (readings.size === 0) return body;
  return transform(body, readings);
}

function transform(value: unknown, readings: ReadonlySet<ReadingId>, member?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => transform(item, readings));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, transform(inner, readings, key)]));
  }
  if (member === undefined) return value;
  if (typeof value === 'number' && readings.has('float-noise') && decimalMembers.has(member)) return Math.fround(value);
  const format = codeMembers[member];
  if (typeof value === 'string' && format && readings.has('formatted-codes')) return format(value.replace(/\D/g, ''));
  return value;
}
