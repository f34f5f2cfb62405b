// Every refusal and coercion the emulator makes, with where it comes from. `both` rules are
// documented (the official OpenAPI document, api-facts.md, more-config.md, the service interface)
// or keep the emulator's own data sound, and apply in every mode. `strict` rules are inferences
// where the references are silent: strict mode (the default) applies them, lenient mode does what
// `lenient` says instead — the other plausible reading. erpsync must be correct under both.
// RULES.md beside this file is this table rendered (rules.test.ts keeps it in step).

import { ErpsyncError } from '../model/errors.js';
import { renderReadingsTable } from './readings.js';

export type EmulatorMode = 'strict' | 'lenient';

export const emulatorModes: readonly EmulatorMode[] = ['strict', 'lenient'];

export interface EmulatorRule {
  /** What the emulator refuses (400/404/405) or changes. */
  does: string;
  /** api-facts.md §…, more-config.md, service-interface.md, the OpenAPI schema, or "inference". */
  source: string;
  applies: 'both' | 'strict';
  /** What lenient mode does instead (strict rules only). */
  lenient?: string;
}

const inference = 'inference (the references are silent)';

export const emulatorRules = {
  // ── bodies ────────────────────────────────────────────────────────────────
  'schema-members': {
    does: '400 when a member has the wrong JSON type, a required member is missing or blank, or a value is outside its enum',
    source: 'OpenAPI schema of the operation (types, `required`, `enum`); api-facts §7.17 ("strict on write")',
    applies: 'both',
  },
  'unknown-members-ignored': {
    does: 'members the request schema does not have (and readOnly ones: `id`, `fixa`, parents\' `nome`) are ignored',
    source: 'OpenAPI schema (readOnly, members absent from the request body); api-facts §2.4, §7.11',
    applies: 'both',
  },
  'put-replaces': {
    does: 'PUT replaces the record: omitted optional members go back to their defaults',
    source: 'api-facts §1 ("PUT replaces all data of the entity"), §7.19',
    applies: 'both',
  },
  'null-members': {
    does: '400 for `null` in an optional member',
    source: 'OpenAPI 3.0: no member of these schemas is `nullable`; the real service\'s handling is unknown',
    applies: 'strict',
    lenient: '`null` counts as the member being omitted',
  },
  'non-negative-numbers': {
    does: '400 for negative amounts, rates, days and ids',
    source: `${inference}: the schemas declare no minimum`,
    applies: 'strict',
    lenient: 'negative numbers are stored as sent',
  },
  'cnpj-digits': {
    does: '400 unless `dadosCartao.cnpjCredenciadora` is empty or 14 digits',
    source: `${inference}: the schema says string; its example is 14 digits`,
    applies: 'strict',
    lenient: 'any string is stored',
  },
  'hex-colour': {
    does: '400 unless a situation\'s `cor` is `#RRGGBB`',
    source: `${inference}: the schema says "Código hexadecimal", example \`#E9DC40\``,
    applies: 'strict',
    lenient: 'any string is stored (lowercased)',
  },
  'empty-body': {
    does: '400 MISSING_REQUIRED_FIELD_ERROR when a write has no body',
    source: 'OpenAPI (`requestBody.required: true`); api-facts §6 (example "no data was sent")',
    applies: 'both',
  },
  'json-content-type': {
    does: '400 INVALID_REQUEST_BODY when a body is not sent as application/json',
    source: `api-facts §1 (bodies are sent as application/json); refusing others is ${inference}`,
    applies: 'strict',
    lenient: 'the body is parsed as JSON whatever its content type',
  },
  'malformed-json': {
    does: '400 INVALID_REQUEST_BODY for a body that is not JSON, or larger than 1 MiB',
    source: 'OpenAPI Error.type enum (INVALID_REQUEST_BODY); status and size guard are inference (service-interface: payload limits "not shown")',
    applies: 'both',
  },
  // ── routes and listings ───────────────────────────────────────────────────
  'unknown-id': {
    does: '404 RESOURCE_NOT_FOUND when the addressed record does not exist; non-numeric ids match no route',
    source: 'service-interface Errors rule 1; api-facts §6; path parameters are integers (service-interface convention 8)',
    applies: 'both',
  },
  'trailing-slash': {
    does: '404 for a path ending in `/`',
    source: inference,
    applies: 'strict',
    lenient: 'the trailing slash is ignored',
  },
  'method-not-allowed': {
    does: '404 RESOURCE_NOT_FOUND for a method the path does not document (e.g. DELETE of a logistics service or a warehouse)',
    source: 'api-facts §6 lists METHOD_NOT_ALLOWED (status undocumented), §9 ("404/405"); which one the service answers is unknown',
    applies: 'strict',
    lenient: '405 METHOD_NOT_ALLOWED',
  },
  'paging': {
    does: '400 when `pagina` or `limite` is below 1; `limite` above 100 is served as 100; no totals, `data: []` past the end',
    source: 'OpenAPI parameters (minimum 1); api-facts §1 (maximum undocumented, community 100)',
    applies: 'both',
  },
  'filter-values': {
    does: '400 for a filter value outside its enum or not an integer (404 on GET /logisticas, whose errors the spec names as 404)',
    source: 'OpenAPI parameter schemas; service-interface Errors rule 3',
    applies: 'both',
  },
  'text-filters': {
    does: 'text filters (`descricao`, `nome`, `nomePai`, and `pesquisa` of /contatos) match the stored value exactly: case, accents, surrounding blanks and Unicode form must agree',
    source: `${inference}: the OpenAPI parameters only say "Descrição da forma de pagamento", "O nome do grupo"; the two modes take the narrowest and the loosest plausible match`,
    applies: 'strict',
    lenient: 'they match case- and accent-insensitively anywhere in the value',
  },
  // ── references and trees ──────────────────────────────────────────────────
  'reference-exists': {
    does: '400 when a body names a record that does not exist (parent category or group, module, base situation, logistics, transition situations and actions, store, product category, custom-field module and type)',
    source: inference,
    applies: 'strict',
    lenient: 'the reference is stored as sent',
  },
  'tree-without-cycles': {
    does: '400 when a category or group would move under itself or a descendant',
    source: `${inference}; kept in both modes: a cycle has no path from the root, so the tree could not be read back`,
    applies: 'both',
  },
  'delete-with-children': {
    does: '400 when deleting a category or group that has children',
    source: `${inference} (api-facts §8: the error of deleting a record in use is unknown)`,
    applies: 'strict',
    lenient: 'the record goes; its children become roots',
  },
  'category-in-use': {
    does: '400 when deleting a product category that a store category link (`/categorias/lojas`) or a custom field\'s grouping (`agrupadores`) names',
    source: `real-observations #14 (DELETE of a record in use → 400, seen for another resource); that links and groupings make a category in use is ${inference}`,
    applies: 'strict',
    lenient: 'the category goes; the store links that name it go with it (a link to no category links nothing), and custom fields keep the grouping id, dangling',
  },
  'in-use': {
    does: '400 when deleting a record that a seed marks as used by documents the emulator does not model (`emUso`), with `fields[].code` 64 like every in-use refusal',
    source: 'api-facts §7.4 (a method in use by receivables); real-observations #7, #14 (DELETE of a record in use → 400 code 64)',
    applies: 'both',
  },
  'bulk-delete-alerts': {
    does: 'bulk deletes remove what they can and answer 200 `{data:{alertas}}` for the rest, 204 when all went; 400 without ids',
    source: 'OpenAPI (200/204 of DELETE /categorias/receitas-despesas and /grupos-produtos); api-facts §7.11',
    applies: 'both',
  },
  // ── payment methods ───────────────────────────────────────────────────────
  'padrao-in-body': {
    does: '`padrao` (0/1/2) in a POST or PUT body is stored; a PUT without it keeps the current one (reading put-resets-padrao: sets it to 0)',
    source: 'OpenAPI (FormasPagamentosDadosBaseDTO.padrao is writable); keeping it on omission is inference (the default is the account\'s singleton, api-facts §7.1)',
    applies: 'both',
  },
  'padrao-one-per-purpose': {
    does: 'giving `padrao` 1 or 2 to a method (PATCH or body) takes it from the method that had it',
    source: 'api-facts §7.1 (Low: "probably clears it on another"), DESIGN §2 (flips are not drift)',
    applies: 'both',
  },
  'padrao-fiado': {
    does: 'PATCH …/padrao 3 (fiado) is remembered apart and never shows in `padrao`',
    source: 'api-facts §2.1, §7.1 (3 has no read-side value)',
    applies: 'both',
  },
  'fixa-not-deletable': {
    does: '400 when deleting a `fixa` (system) payment method',
    source: 'api-facts §7.2 (Low: "may not be deletable"), §8 (open question)',
    applies: 'strict',
    lenient: 'it is deleted',
  },
  'default-stays-active': {
    does: '400 when the default (padrao ≠ 0) or fiado method is deactivated (PUT or PATCH) or deleted',
    source: inference,
    applies: 'strict',
    lenient: 'allowed; a deleted default leaves the account without one',
  },
  'inactive-not-default': {
    does: '400 when PATCH …/padrao targets an inactive method',
    source: inference,
    applies: 'strict',
    lenient: 'allowed',
  },
  'card-data-card-types': {
    does: '`dadosCartao` is dropped unless `tipoPagamento` is 3 or 4',
    source: 'OpenAPI (FormasPagamentosDadosDTO: card data "used only" for types 3/4); dropping it is inference',
    applies: 'strict',
    lenient: 'it is stored for any type',
  },
  // ── income/expense categories ─────────────────────────────────────────────
  'dre-group': {
    does: 'writes take `grupoDRE` (no 5), reads show `idGrupoDre`; a child takes its parent\'s group, and follows it when the parent\'s changes',
    source: 'OpenAPI (grupoDRE enum); api-facts §2.2, §7.5 (read name real; inheritance Medium)',
    applies: 'both',
  },
  'child-tipo-matches-parent': {
    does: '400 when a child category\'s `tipo` differs from its parent\'s, or a category with children changes `tipo`',
    source: inference,
    applies: 'strict',
    lenient: 'stored as sent',
  },
  'transfer-categories-read-only': {
    does: '400 when a system transfer category (tipo 4/5) is updated, deleted or given children',
    source: `${inference} (api-facts §7.6 only says they exist and must be tolerated on read; writing tipo 4/5 is refused by the schema enum)`,
    applies: 'strict',
    lenient: 'allowed',
  },
  'category-filters': {
    does: 'list filter `tipo` 0 = all (N = exactly N), `situacao` 0 = all, 1 = active, 2 = inactive',
    source: 'OpenAPI parameters; api-facts §7.8',
    applies: 'both',
  },
  // ── product categories and groups ─────────────────────────────────────────
  'product-category-parent-fixed': {
    does: 'a `categoriaPai` sent to PUT /categorias/produtos/{id} is ignored: the parent is set on create only',
    source: 'OpenAPI (the PUT body is CategoriasProdutosDadosDTO, without categoriaPai); api-facts §7.10 — of "impossible or silently ignored", the schema\'s reading (an unknown member) is taken',
    applies: 'both',
  },
  'group-parent-name': {
    does: '`grupoProdutoPai.nome` is answered with the parent\'s name, whatever was sent',
    source: 'OpenAPI (readOnly); api-facts §2.4, §7.11',
    applies: 'both',
  },
  // ── situations and transitions ────────────────────────────────────────────
  'situations-per-module': {
    does: 'no GET /situacoes (404): situations are listed per module; the detail has no `idModuloSistema`',
    source: 'api-facts §2.5 (real probe, S6), §7.13',
    applies: 'both',
  },
  'situation-module-creatable': {
    does: '400 when creating a situation in a module without `criarSituacoes`',
    source: 'api-facts §7.13 (High)',
    applies: 'both',
  },
  'situation-base-required': {
    does: '400 when POST /situacoes has no `idHerdado`',
    source: 'api-facts §2.5 (the spec requires nothing), §7.13 ("custom ones must reference a base situation")',
    applies: 'strict',
    lenient: 'an omitted `idHerdado` takes the module\'s first built-in situation',
  },
  'situation-base-builtin': {
    does: '400 unless `idHerdado` is a built-in situation of the same module',
    source: `${inference} from api-facts §2.5 (observed bases are built-ins 9 and 15)`,
    applies: 'strict',
    lenient: 'any value is stored',
  },
  'builtin-situations-immutable': {
    does: '400 when a built-in situation (`idHerdado` 0) is updated or deleted',
    source: 'api-facts §7.13 (Medium: "treat as system/immutable"), §8 (open question)',
    applies: 'strict',
    lenient: 'allowed',
  },
  'situation-stays-in-module': {
    does: '400 when PUT /situacoes/{id} names another `idModuloSistema`',
    source: inference,
    applies: 'strict',
    lenient: 'the module in the body is ignored',
  },
  'situation-colour-case': {
    does: 'custom situations store `cor` lowercased',
    source: 'api-facts §2.5, §7.13 (observed: built-ins uppercase, custom lowercase)',
    applies: 'both',
  },
  'situation-in-transition': {
    does: '400 when deleting a situation that a transition uses',
    source: inference,
    applies: 'strict',
    lenient: 'the situation and its transitions are deleted',
  },
  'transition-module': {
    does: 'a transition without `modulo` belongs to its origin situation\'s module; `situacaoOrigem/Destino.nome` are answered with the situations\' names',
    source: `OpenAPI (SituacoesTransicaoDTO); filling the module is ${inference}`,
    applies: 'both',
  },
  // ── logistics ─────────────────────────────────────────────────────────────
  'logistics-shape': {
    does: '`situacao` is H/D; PUT /logisticas/{id} changes only `descricao` and `situacao`; created logistics are CustomLogistic',
    source: 'OpenAPI (LogisticasDadosPutDTO); api-facts §2.6, §7.16 (CustomLogistic: Low)',
    applies: 'both',
  },
  'reverse-logistics-filter': {
    does: 'GET /logisticas lists every logistics, reverse ones included; `logisticasReversas=true` narrows to those with a reverse service (reading reverse-logistics-hidden: the default leaves them out)',
    source: 'OpenAPI (`logisticasReversas`: "filtrar apenas as logísticas que possuem serviço de reversão"); real-observations "still unknown" (so the default means no filter)',
    applies: 'both',
  },
  'services-not-deletable': {
    does: 'logistics services have no DELETE (see method-not-allowed); deleting a logistics takes its services with it',
    source: 'api-facts §7.14 (no DELETE in the spec); the cascade is inference',
    applies: 'both',
  },
  'service-activation-paths': {
    does: 'service activation answers at PATCH /logisticas/{idServico}/situacoes and /logisticas/servicos/{id}/situacoes; the detail hides inactive services unless `listarServicosInativos=true`',
    source: 'api-facts §7.14, §7.15 (the emulator accepts both paths)',
    applies: 'both',
  },
  'service-stays-in-logistics': {
    does: '400 when PUT /logisticas/servicos/{id} names another `logistica`',
    source: 'api-facts §7.16 ("a service cannot be moved"); the PUT body has no `logistica`, so refusing it is inference',
    applies: 'strict',
    lenient: 'the member is ignored',
  },
  'native-logistics-read-only': {
    does: '400 when a native logistics (Correios …) is deleted or its services are created or edited',
    source: `OpenAPI operation descriptions ("logística personalizada"); api-facts §2.7 — that others are refused is ${inference}`,
    applies: 'strict',
    lenient: 'allowed',
  },
  'services-non-empty': {
    does: '400 when POST /logisticas/servicos has `servicos: []`',
    source: inference,
    applies: 'strict',
    lenient: '201 with `data: []`',
  },
  // ── NFS-e settings ────────────────────────────────────────────────────────
  'nfse-settings-shape': {
    does: 'GET answers the settings unwrapped; PUT replaces them; `ISS.tributos` entries with `id` update, without `id` are created, left out are removed',
    source: 'OpenAPI; api-facts §2.8, §7.18 (removal follows from put-replaces)',
    applies: 'both',
  },
  'nfse-tributo-ids': {
    does: '400 when a tax entry names an id that does not exist or appears twice',
    source: inference,
    applies: 'strict',
    lenient: 'such an entry is created with a new id',
  },
  'nfse-one-default-tributo': {
    does: '400 when more than one tax entry has `padrao: true`',
    source: inference,
    applies: 'strict',
    lenient: 'stored as sent',
  },
  // ── the rest of the configuration API ─────────────────────────────────────
  'warehouses': {
    does: 'no DELETE for /depositos (retire with `situacao: 0`); `padrao: true` on one warehouse clears it on the others',
    source: 'more-config.md, OpenAPI (DepositosDadosDTO, all four members required); the single default is inference ("the default warehouse")',
    applies: 'both',
  },
  'warehouse-list-default': {
    does: 'GET /depositos without `situacao` lists the active warehouses only: a retired one is found only with `situacao=0` (or by its id)',
    source: 'OpenAPI (GET /depositos: `situacao` defaults to 1)',
    applies: 'both',
  },
  'custom-fields': {
    does: 'PUT /campos-customizados/{id} ignores `nome`, `modulo` and `tipoCampo`; options and grouping links get ids, answered as `idsOpcoes` and `idsVinculosAgrupadores`',
    source: 'more-config.md; OpenAPI (CamposCustomizadosResponse_POST_PUT)',
    applies: 'both',
  },
  'contacts-list': {
    does: 'GET /contatos lists contacts (`id`, `nome`, `codigo`, `situacao`, `numeroDocumento`) by `pagina` and `limite`; `pesquisa` matches `nome`, `codigo` or `numeroDocumento` as the text filters match (rule text-filters, by mode); no other filter; a fresh sandbox account has one carrier contact',
    source: 'service-interface.md (GET /contatos: pagina, limite, pesquisa); the answered members, what `pesquisa` matches and the seeded carrier are inference (the OpenAPI documents in reference/ are silent on /contatos)',
    applies: 'both',
  },
  'ip-blocks': {
    does: 'per source IP: more than 600 requests in 10 s, or more than 300 error answers (status ≥ 400, 429s included) in 10 s, blocks the IP for 10 minutes; more than 20 calls to /oauth/token in 60 s blocks it for 60 minutes. A blocked IP gets 403 `IP_BLOCKED` for every request. Every violation is recorded (`ipViolations()`, GET /__sandbox/ip-violations); emulators sharing one ledger are counted together. `erpsync sandbox` blocks; a `createEmulator` without a ledger of its own only records',
    source: 'api-facts §5 (thresholds and block durations). What a blocked IP receives is undocumented (api-facts §8): the 403 and its body are our choice, a refusal no client retries',
    applies: 'both',
  },
  'daily-quota': {
    does: 'per account: past its requests of the day (default 120,000; `createEmulator({ dailyLimit })`, `setDailyLimit(n)`, `erpsync sandbox --daily-limit N`, 0 = off) every request gets 429 `TOO_MANY_REQUESTS` with `"limit"` (the day\'s limit) and `"period":"day"`, and no `Retry-After`, until the day turns at midnight in São Paulo (UTC−3). Counted: authenticated API requests the per-second limit let through; not counted: token calls, requests refused by the per-second limit or the daily limit itself',
    source: 'api-facts §5 (120,000 requests a day per account; the daily 429 body). When the day turns is undocumented: midnight in São Paulo is our choice (Bling\'s accounts are Brazilian companies); what counts toward the day is inference (the references are silent)',
    applies: 'both',
  },
  'read-only-resources': {
    does: 'sales channels, operation natures, financial accounts, contact types, contacts and the company record are read only',
    source: 'more-config.md, OpenAPI (only GET documented)',
    applies: 'both',
  },
} as const satisfies Record<string, EmulatorRule>;

export type RuleId = keyof typeof emulatorRules;

/** Whether `mode` applies rule `id`: documented rules always, inferred ones in strict mode only. */
export function enforces(mode: EmulatorMode, id: RuleId): boolean {
  const rule: EmulatorRule = emulatorRules[id];
  return rule.applies === 'both' || (rule.applies === 'strict' && mode === 'strict');
}

/** The mode `ERPSYNC_EMULATOR_MODE` names, so whole test runs (and the sandbox) can switch. */
export function modeFromEnvironment(env: NodeJS.ProcessEnv = process.env): EmulatorMode {
  const value = env.ERPSYNC_EMULATOR_MODE?.trim() ?? '';
  if (value === '') return 'strict';
  const mode = emulatorModes.find((m) => m === value);
  if (!mode) throw new ErpsyncError('CONFIG', `ERPSYNC_EMULATOR_MODE must be strict or lenient, not "${value}"`);
  return mode;
}

function appliesCell(rule: EmulatorRule): string {
  return rule.applies === 'both' ? 'both modes' : 'strict only';
}

/** The table as Markdown, for RULES.md. */
export function renderRulesTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const rows = Object.entries(emulatorRules).map(([id, rule]: [string, EmulatorRule]) =>
    `| \`${id}\` | ${cell(rule.does)} | ${cell(rule.source)} | ${appliesCell(rule)} | ${cell(rule.lenient ?? '—')} |`,
  );
  return [
    '# Emulator rules',
    '',
    'Every refusal and coercion of the emulator, with its source. Generated from `rules.ts` (run',
    '`npx vitest run src/emulator/rules.test.ts -u` after changing it). Strict mode is the default;',
    '`ERPSYNC_EMULATOR_MODE=lenient` (or `createEmulator({ mode: \'lenient\' })`) switches the',
    'inferred rules to their other plausible reading. Named readings (the table after this one) are',
    'switched on one by one: `ERPSYNC_EMULATOR_READINGS=float-noise,formatted-codes` (or',
    '`createEmulator({ readings: [...] })`).',
    '',
    '| rule | the emulator … | source | applies | lenient mode instead |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    ...renderReadingsTable(),
  ].join('\n');
}
