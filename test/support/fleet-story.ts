// A small fleet's story for the dashboard, written through the state store as two runners would
// write it into a shared backend (not by running applies): 20 stores, several with hostile or very
// long names; each applied three times in the last 90 days, alternately by a GitHub Actions job
// and by a person on her laptop (stored as the host's runner), each run from a commit of its
// own (the job's last one applies a reviewed plan on the merge commit); tonight's fleet drift finds every 4th store drifted, with records, fields and who changed
// them (in the ERP after a run, as a run left it, never applied), and one store's latest result is
// of the older shape, a count without records. Also the fleet's names, for the test to look for.
import { hostname } from 'node:os';
import type { JournalActor, JournalLine, JournalRunLine } from '../../src/model/journal.js';
import { openStateStore } from '../../src/state/open-state.js';
import type { TestBackend } from './postgres.js';

export const storyToday = '2026-11-26';
export const hostileNames = [
  `lojas/${'filial-muito-longa-'.repeat(12)}fim`,
  '<img src=x onerror="window.__pwned=1">"</script><b>loja',
  '</script><script>window.__pwned=2</script>',
  'loja \u202e moc.live \u200b <!-- -->',
  `Loja${'Paulista'.repeat(30)}`,
];
/** The drifted store whose record has a hostile name, and the store whose run changed one. */
export const hostileRecordStore = 8;
export const hostileRecord = '<img src=x onerror="window.__pwned=5">';
export const hostileChangeStore = 1;
export const hostileChange = '<script>window.__pwned=4</script>';

export interface StoryStore {
  name: string;
  /** The commit and actor of its last run, as the dashboard's panel words them, and as its table does. */
  lastCommit: string;
  lastActor: string;
  lastInTable: string;
  lastRunner: string;
  drifted: boolean;
  /** Its latest drift result is a count without records. */
  countOnly: boolean;
}

const runners = {
  github: { GITHUB_RUN_ID: '501', GITHUB_REPOSITORY: 'agencia/lojas', GITHUB_JOB: 'apply' },
  laptop: {},
};
const actors: Record<keyof typeof runners, JournalActor> = {
  github: { type: 'ci', url: 'https://github.com/agencia/lojas/actions/runs/501', user: 'deployer' },
  laptop: { type: 'user', user: 'maria', host: 'laptop' },
};
const actorText = { github: 'deployer https://github.com/agencia/lojas/actions/runs/501', laptop: 'maria@laptop' };
const runnerText = { github: 'github agencia/lojas run 501 job apply', laptop: `host ${hostname()}` };

const dayAt = (daysAgo: number, hour: number) => new Date(Date.parse(`${storyToday}T00:00:00.000Z`) - daysAgo * 86_400_000 + hour * 3_600_000).toISOString();
const mergeCommit = 'feed'.repeat(10);
const commitOf = (i: number, n: number) => `${String(i).padStart(2, '0')}${String(n)}${'c0ffee'.repeat(7)}`.slice(0, 40);

export function storyNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => hostileNames[i] ?? `lojas/loja-${String(i).padStart(2, '0')}`);
}

/** The GitHub job's last run applies the plan reviewed on a pull request, on the merge commit; the others plan themselves. */
function revisionOf(i: number, n: number, runner: keyof typeof runners): Pick<JournalRunLine, 'source' | 'git' | 'planGit'> {
  if (runner !== 'github' || n !== 2) return { source: 'manifests', git: { revision: commitOf(i, n), dirty: false } };
  return { source: 'saved-plan', git: { revision: mergeCommit, dirty: false }, planGit: { revision: commitOf(i, n), dirty: false } };
}

function runLines(name: string, i: number, n: number, runner: keyof typeof runners): { id: string; lines: JournalLine[] } {
  const startedAt = dayAt(20 - 9 * n, 3 + n);
  const id = `${startedAt.replace(/[-:.]/g, '')}-${String(i).padStart(6, '0')}`;
  const key = i === hostileChangeStore ? hostileChange : `Pix ${n}`;
  return {
    id,
    lines: [
      { type: 'run', formatVersion: 1, run: id, startedAt, erpsyncVersion: '0.1.0', ...revisionOf(i, n, runner), target: { name, id: `https://api.example/${i}`, mode: 'remote' }, account: { id: `acc-${i}`, nome: `Loja ${i} <Ltda>`, cnpj: '' }, actor: actors[runner], changes: 1 },
      { type: 'change', at: startedAt, change: 'c1', action: 'update', reason: 'drift', kind: 'formasPagamentos', key, liveId: 100 + i, outcome: 'applied', id: 100 + i, fields: [{ path: 'taxas.aliquota', before: 1, after: 1.5 }] },
      { type: 'end', at: startedAt, applied: 1, failed: 0, skipped: 0, interrupted: false, notConverged: [] },
    ],
  };
}

/** What tonight's drift found on a drifted store, as a drift snapshot keeps it: who changed each record, by the store's runs. */
function driftedOf(i: number, lastRun: string, firstRun: string) {
  return [
    { type: 'modified', kind: 'formasPagamentos', key: i === hostileRecordStore ? hostileRecord : 'Pix 2', fields: ['taxas.aliquota', 'taxas.valor'], attribution: { by: 'erp', run: lastRun, at: dayAt(2, 5) } },
    { type: 'pending', kind: 'formasPagamentos', key: 'Boleto', fields: ['descricao'], fieldsLeftOut: 2, attribution: { by: 'erpsync', run: firstRun } },
    { type: 'missing', kind: 'gruposProdutos', key: 'Atacado', fields: [], attribution: { by: 'never-applied' } },
  ];
}

/** Writes the fleet's runs and drift results into the backend, from both runners; returns the stores as the dashboard should tell them. */
export async function writeFleetStory(backend: TestBackend, folder: (runner: string) => string, count = 20): Promise<StoryStore[]> {
  const stores = await Promise.all(
    (Object.keys(runners) as (keyof typeof runners)[]).map(async (runner) => [runner, await openStateStore({ kind: 'postgres', ...backend.choice }, { cwd: folder(runner), env: { ...backend.env, ...runners[runner] } })] as const),
  );
  const story: StoryStore[] = [];
  const rows: Record<string, unknown>[] = [];
  try {
    const written = await Promise.all(
      storyNames(count).map(async (name, i) => {
        const ids: string[] = [];
        let last: keyof typeof runners = 'github';
        for (let n = 0; n < 3; n += 1) {
          last = (i + n) % 2 === 0 ? 'github' : 'laptop';
          const state = stores.find(([r]) => r === last)?.[1];
          if (!state) throw new Error(`no state store for ${last}`);
          const run = runLines(name, i, n, last);
          const sink = await state.journal.open({ target: name, dir: `${folder(last)}/.erpsync/journal`, within: folder(last) }, run.id);
          for (const line of run.lines) sink.append(line, JSON.stringify(line));
          await sink.close();
          ids.push(run.id);
        }
        return { name, ids, last };
      }),
    );
    for (const [i, { name, ids, last }] of written.entries()) {
      const drifted = i % 4 === 0;
      const countOnly = i === count - 1;
      const owners = ['@agencia/lojas', i % 2 === 0 ? 'maria' : 'joao'];
      rows.push(countOnly ? { target: name, changes: 1 } : { target: name, changes: drifted ? 5 : 0, owners, drifted: drifted ? driftedOf(i, ids[2] ?? '', ids[0] ?? '') : [], ...(drifted ? { driftedLeftOut: 2 } : {}) });
      const planned = commitOf(i, 2).slice(0, 12);
      const lastCommit = last === 'github' ? `planned at ${planned}, applied at ${mergeCommit.slice(0, 12)}` : planned;
      story.push({ name, lastCommit, lastActor: actorText[last], lastInTable: `${planned} · ${last === 'github' ? 'deployer' : 'maria'}`, lastRunner: runnerText[last], drifted: drifted || countOnly, countOnly });
    }
    const [, github] = stores[0] ?? [];
    await github?.driftResults.record({ at: dayAt(30, 2), rows: rows.map((row) => ({ target: String(row.target), changes: 0 })) });
    await github?.driftResults.record({ at: dayAt(0, 2), rows: rows as { target: string; changes: number }[] });
  } finally {
    await Promise.all(stores.map(([, state]) => state.close()));
  }
  return story;
}
