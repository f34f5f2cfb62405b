// `erpsync doctor`: read-only probes of one account that check each assumption the engine relies on
// (token host, scopes per kind, paging and filters of the lists, list-versus-detail fields, the
// reverse-logistics filter, rate-limit answers) and say which hold, which differ and what erpsync
// does about each. It only ever sends GETs, a small number known in advance (at most
// `maxDoctorRequests`), and never provokes a 429. Pure reporting is in report/doctor-report.ts.
import { ApiError } from '../api/index.js';
import type { ApiClient } from '../api/index.js';
import type { KindAdapter } from '../kinds/kind.js';
import { isPlainRecord } from '../model/paths.js';
import type { DoctorCheck, DoctorReport } from '../model/doctor.js';
import { describeRoutes } from '../target/open-target.js';
import type { OpenedTarget } from '../target/open-target.js';

/** Fields a payment method's list leaves out (api-facts §7.3); erpsync reads details only where a manifest sets one. */
const paymentDetailOnly = ['destino', 'condicao', 'utilizaDiasUteis', 'taxas'];
/** A category's list leaves `situacao` out (real-observations #23). */
const categoryDetailOnly = ['situacao'];

interface ListProbe {
  path: string;
  kinds: string[];
  first?: Record<string, unknown>;
}

/** The list paths the kinds read, each once: their scopes and paging are what the engine relies on. */
function listPaths(adapters: readonly KindAdapter[]): Map<string, { kinds: string[]; paged: boolean }> {
  const paths = new Map<string, { kinds: string[]; paged: boolean }>();
  for (const adapter of adapters) {
    const path = adapter.definition?.resource ?? adapter.readOnly?.resource;
    if (path === undefined || path.includes('{')) continue;
    const paged = adapter.readOnly?.paged !== false;
    paths.set(path, { kinds: [...(paths.get(path)?.kinds ?? []), adapter.kind], paged });
  }
  return paths;
}

/** Every probe, in order; `client` is the opened target's, so the requests are counted and paced like any run's. */
export async function diagnoseAccount(opened: OpenedTarget, adapters: readonly KindAdapter[]): Promise<DoctorReport> {
  const { client } = opened;
  const before = client.stats().total;
  const checks: DoctorCheck[] = [checkHost(opened), checkProxy(opened)];
  const probes: ListProbe[] = [];
  for (const [path, { kinds, paged }] of listPaths(adapters)) {
    const probe = await probeList(client, path, kinds, paged, checks);
    if (probe) probes.push(probe);
  }
  await checkDetailFields(client, probes, '/formas-pagamentos', paymentDetailOnly, checks);
  await checkDetailFields(client, probes, '/categorias/receitas-despesas', categoryDetailOnly, checks);
  if (probes.some((p) => p.path === '/logisticas')) checks.push(await checkReverseLogistics(client));
  checks.push(checkRateAnswers(client, opened.target.rate), ...writeSideAssumptions);
  return {
    target: opened.target.name,
    account: opened.account,
    banner: opened.banner,
    checks,
    requests: client.stats().total - before + opened.identityReads,
  };
}

/** What only a write would show; doctor never writes, so it says how erpsync is safe under either reading. */
const writeSideAssumptions: readonly DoctorCheck[] = [
  { subject: 'a PUT that omits a field', status: 'unknown', found: 'not checked: it takes a write (kept, or set to 0: real-observations #10)', action: 'erpsync sends every field the record holds in every PUT (padrao included), so either reading is safe' },
  { subject: 'values stored in another form', status: 'unknown', found: 'not checked: it takes a write (money as float noise, codes formatted: real-observations #17, #18)', action: 'erpsync compares decimals at their precision and codes by their digits, and the check after apply notes the form the service stores' },
  { subject: 'long names', status: 'unknown', found: 'not checked: it takes a write (whether the service cuts long names is unknown)', action: 'a cut name is matched to its manifest record with a warning, and the check after apply names the field and what the service stored' },
];

function checkHost(opened: OpenedTarget): DoctorCheck {
  const subject = 'token host';
  if (opened.target.mode === 'sandbox') return { subject, status: 'holds', found: 'the embedded sandbox', action: 'nothing to do' };
  const host = new URL(opened.target.baseUrl).hostname;
  if (host.startsWith('www.')) {
    return { subject, status: 'differs', found: `${host}: the www. host refuses JWT access tokens (403)`, action: 'use https://api.bling.com.br/Api/v3 (--base-url or the target\'s baseUrl)' };
  }
  return { subject, status: 'holds', found: `${host} answered with the token`, action: 'nothing to do' };
}

/** Which way the requests went: the account answered through it, or the run would have failed before. */
function checkProxy(opened: OpenedTarget): DoctorCheck {
  const subject = 'proxy';
  if (opened.target.mode === 'sandbox') return { subject, status: 'holds', found: 'the embedded sandbox: no proxy', action: 'nothing to do' };
  return { subject, status: 'holds', found: describeRoutes(opened.target).join('; '), action: 'nothing to do; HTTPS_PROXY, HTTP_PROXY and NO_PROXY decide the way (docs/config.md)' };
}

const pageQuery = (pagina: number) => ({ pagina, limite: 1 });

/** GET path?limite=1 (scope, `limite`), then pagina=2 when it answered one record (`pagina`). */
async function probeList(client: ApiClient, path: string, kinds: string[], paged: boolean, checks: DoctorCheck[]): Promise<ListProbe | undefined> {
  const subject = `${path} (${kinds.join(', ')})`;
  let first: unknown;
  try {
    first = (await client.request<unknown>({ method: 'GET', path, ...(paged ? { query: pageQuery(1) } : {}), kind: kinds[0] })).data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) {
      checks.push({ subject: `scope of ${subject}`, status: 'fails', found: `403 ${error.type ?? 'forbidden'}`, action: 'erpsync cannot read or change these kinds: grant the app this scope in Bling and run `erpsync login` again' });
      return undefined;
    }
    // No list at this path (situations and custom fields are listed per module): nothing to page.
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return undefined;
    throw error;
  }
  checks.push({ subject: `scope of ${subject}`, status: 'holds', found: 'readable', action: 'nothing to do' });
  // A list the API serves whole (no paging documented) has nothing to probe.
  if (!Array.isArray(first) || !paged) return undefined;
  const item = isPlainRecord(first[0]) ? first[0] : undefined;
  const probe: ListProbe = { path, kinds, ...(item ? { first: item } : {}) };
  if (first.length > 1) {
    checks.push({ subject: `paging of ${path}`, status: 'differs', found: `answered ${first.length} records to limite=1 (limite ignored)`, action: 'erpsync reads a list that does not page whole, in one request, and notes it in the plan' });
    return probe;
  }
  if (first.length === 0) {
    checks.push({ subject: `paging of ${path}`, status: 'unknown', found: 'the list is empty', action: 'nothing to check yet' });
    return probe;
  }
  const second = (await client.request<unknown>({ method: 'GET', path, query: pageQuery(2), kind: kinds[0] })).data;
  const repeated = Array.isArray(second) && second.length > 0 && JSON.stringify(second) === JSON.stringify(first);
  checks.push(
    repeated
      ? { subject: `paging of ${path}`, status: 'differs', found: 'pagina=2 answered pagina 1 again (pagina ignored)', action: 'erpsync takes a repeated page as the end of the list and notes it; records past the first page cannot be read if limite is honoured' }
      : { subject: `paging of ${path}`, status: 'holds', found: 'limite and pagina honoured', action: 'nothing to do' },
  );
  return probe;
}

/** The list item against its detail: the fields erpsync expects only the detail to carry. */
async function checkDetailFields(client: ApiClient, probes: readonly ListProbe[], path: string, detailOnly: readonly string[], checks: DoctorCheck[]): Promise<void> {
  const probe = probes.find((p) => p.path === path);
  const id = probe?.first?.id;
  if (!probe?.first || typeof id !== 'number') return;
  const detail = (await client.request<unknown>({ method: 'GET', path: `${path}/${id}`, kind: probe.kinds[0] })).data;
  const subject = `list versus detail of ${path}`;
  const inList = detailOnly.filter((field) => probe.first && field in probe.first);
  const inDetail = isPlainRecord(detail) ? detailOnly.filter((field) => field in detail) : [];
  if (inList.length === 0 && inDetail.length === detailOnly.length) {
    checks.push({ subject, status: 'holds', found: `only the detail carries ${detailOnly.join(', ')}`, action: 'erpsync reads a detail only for records whose manifest sets one of them' });
  } else {
    const found = [inList.length > 0 ? `the list carries ${inList.join(', ')}` : '', inDetail.length < detailOnly.length ? `the detail lacks ${detailOnly.filter((f) => !inDetail.includes(f)).join(', ')}` : ''].filter((t) => t !== '').join('; ');
    checks.push({ subject, status: 'differs', found, action: 'erpsync still reads details where a manifest sets these fields: a few requests more than needed, never fewer' });
  }
}

async function checkReverseLogistics(client: ApiClient): Promise<DoctorCheck> {
  const subject = 'reverse-logistics filter of /logisticas';
  const read = async (query: Record<string, string | number | boolean>) =>
    (await client.request<unknown>({ method: 'GET', path: '/logisticas', query: { ...query, pagina: 1, limite: 100 }, kind: 'logisticas' })).data;
  const ids = (rows: unknown) => (Array.isArray(rows) ? rows.flatMap((r) => (isPlainRecord(r) && typeof r.id === 'number' ? [r.id] : [])) : []);
  const all = new Set(ids(await read({})));
  const reverse = ids(await read({ logisticasReversas: true }));
  if (reverse.length === 0) return { subject, status: 'unknown', found: 'the account has no reverse logistics', action: 'nothing to check yet' };
  if (reverse.every((id) => all.has(id))) {
    return { subject, status: 'holds', found: `the unfiltered list includes the ${reverse.length} reverse logistics; logisticasReversas=true narrows to them`, action: 'erpsync marks them as the account\'s: never pruned unless a manifest names them' };
  }
  return { subject, status: 'differs', found: `the unfiltered list leaves out ${reverse.filter((id) => !all.has(id)).length} reverse logistics`, action: 'erpsync asks with logisticasReversas=true when it reads every logistics or a manifest names one the list lacks' };
}

function checkRateAnswers(client: ApiClient, rate: number): DoctorCheck {
  const stats = client.stats();
  const subject = 'rate-limit answers';
  const pace = Number.isFinite(rate) ? `${rate} req/s (the account allows 3)` : 'no pacing (the sandbox)';
  if (stats.throttled === 0) return { subject, status: 'holds', found: `no 429 in ${stats.total} requests at ${pace}`, action: 'nothing to do; erpsync slows down on a 429 (JSON or HTML) and retries what is safe' };
  return { subject, status: 'differs', found: `${stats.throttled} answer(s) 429 in ${stats.total} requests at ${pace}: another integration shares the account's limit`, action: 'erpsync slows down on each 429; a lower --rate leaves the other integration room' };
}
