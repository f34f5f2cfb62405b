// Named readings: behaviours the real service was seen to have only sometimes, or that nobody has
// observed either way (real-observations.md), each switchable on its own. Strict mode applies none
// of them unless named; lenient mode applies those marked `lenient`. They are named in
// `createEmulator({ readings })` or in `ERPSYNC_EMULATOR_READINGS` (comma-separated), so a test or
// the sandbox can run one reading at a time. RULES.md lists them (rules.ts renders this table).
import { ErpsyncError } from '../model/errors.js';
import type { EmulatorMode } from './rules.js';

export interface EmulatorReading {
  does: string;
  source: string;
  /** Whether lenient mode applies it without being named. */
  lenient: boolean;
}

/** Past this many characters the `names-truncated` reading cuts a name: shorter than erpsync's own offline limit (60, kinds/shared-schema), so a service that cuts below it is what the engine must survive. */
export const truncatedNameLength = 40;

export const emulatorReadings = {
  'categories-unpaged': {
    does: 'GET /categorias/receitas-despesas ignores `limite` and `pagina`: every page answers every matching record',
    source: 'real-observations #1 (`?limite=1` returned all 62 records; other lists honoured `limite`)',
    lenient: true,
  },
  'put-resets-padrao': {
    does: 'a PUT /formas-pagamentos/{id} without `padrao` sets it to 0 (the method stops being the default)',
    source: 'real-observations #10 (an omitted field was sometimes set to 0); api-facts §1, §7.19 (PUT replaces the record)',
    lenient: true,
  },
  'reverse-logistics-hidden': {
    does: 'GET /logisticas without `logisticasReversas=true` leaves reverse logistics out (the default `false` read as "not reverse")',
    source: 'api-facts §2.6 (`logisticasReversas`, default false); real-observations "still unknown" (the real default); the parameter text says `true` narrows, so this reading is the less likely one',
    lenient: false,
  },
  'names-truncated': {
    does: `a POST or PUT stores \`descricao\` and \`nome\` cut to their first ${truncatedNameLength} characters`,
    source: 'real-observations "still unknown" (whether long names are truncated); the length is inference',
    lenient: false,
  },
  'float-noise': {
    does: 'decimal members (juros, multa, taxas, freteItem, the NFS-e rates and amounts) are answered as the float32 the value was stored in, read as float64: 2.49 → 2.4900000095367432',
    source: 'real-observations.md #17 (`preco` 49.90 → 49.9000015259, RZ)',
    lenient: false,
  },
  'formatted-codes': {
    does: 'codes are stored formatted whatever was sent: CNAE `8299-1/00` (7 digits) or `82.99` (4), LC 116 `listaServico` `01.07`, CNPJs `00.000.000/0000-00`',
    source: 'real-observations.md #18 (NCM `85011019` → `8501.10.19`, CEST likewise, RZ)',
    lenient: false,
  },
} as const satisfies Record<string, EmulatorReading>;

export type ReadingId = keyof typeof emulatorReadings;

export const readingIds = Object.keys(emulatorReadings) as ReadingId[];

/** The readings named in `ERPSYNC_EMULATOR_READINGS`; an unknown name is refused. */
export function readingsFromEnvironment(env: NodeJS.ProcessEnv = process.env): ReadingId[] {
  const names = (env.ERPSYNC_EMULATOR_READINGS ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
  return names.map((name) => {
    const id = readingIds.find((r) => r === name);
    if (!id) throw new ErpsyncError('CONFIG', `ERPSYNC_EMULATOR_READINGS names an unknown reading "${name}" (known: ${readingIds.join(', ')})`);
    return id;
  });
}

/** The readings a run applies: those named, and in lenient mode those lenient mode takes. */
export function activeReadings(mode: EmulatorMode, named: readonly ReadingId[]): ReadonlySet<ReadingId> {
  return new Set([...named, ...(mode === 'lenient' ? readingIds.filter((id) => emulatorReadings[id].lenient) : [])]);
}

/** The table as Markdown, appended to RULES.md. */
export function renderReadingsTable(): string[] {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '## Named readings',
    '',
    'Behaviours the real service shows only sometimes, or that nobody has observed either way. Name them in',
    '`ERPSYNC_EMULATOR_READINGS` (comma-separated) or `createEmulator({ readings })`; lenient mode applies',
    'those marked so without being named.',
    '',
    '| reading | the emulator … | source | in lenient mode |',
    '|---|---|---|---|',
    ...Object.entries(emulatorReadings).map(([id, r]: [string, EmulatorReading]) => `| \`${id}\` | ${cell(r.does)} | ${cell(r.source)} | ${r.lenient ? 'yes' : 'only when named'} |`),
    '',
  ];
}

/** Reading names-truncated: the name members of a write body, cut as the service would store them. */
export function truncateNames(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const cut = Object.entries(body).map(([key, value]) =>
    [key, (key === 'descricao' || key === 'nome') && typeof value === 'string' ? [...value].slice(0, truncatedNameLength).join('') : value] as const,
  );
  return Object.fromEntries(cut);
}
