// The journal's contract, the same cases against both backends: a run's lines are on disk before
// `append` returns; runs are read back oldest first, of one target when asked, finished or
// interrupted, by another store on the same state too; a run that wrote nothing leaves nothing; a
// line changed where the store keeps it (the file, the database row) makes its run damaged and the
// others are read on; a resolution is appended once after the lines it was read with.
// Then what only the postgres backend promises: lines written while the database is gone stay in
// the local file and are pushed by the next store's list (or open) exactly once, however often it
// runs and however many push at once; another machine (another local folder, same database) reads
// every machine's runs; `backend import` of a local journal folder pushes each line once, and
// names the files in it that are no runs.
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { onCleanup, scratchDir } from '../api/support.js';
import type { JournalChangeLine, JournalEndLine, JournalIntentLine, JournalLine, JournalOutcomeLine, JournalRunLine } from '../../src/model/journal.js';
import { localJournal } from '../../src/state/local/journal.js';
import type { PostgresConnection } from '../../src/state/postgres/connect.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import { importLocalState } from '../../src/state/postgres/import-local.js';
import { importLocalJournal, postgresJournal } from '../../src/state/postgres/journal.js';
import type { JournalLocation, JournalStore } from '../../src/state/state-store.js';
import type { TestBackend } from '../support/postgres.js';
import { freshBackend } from '../support/postgres.js';

const tempDir = (): string => scratchDir('erpsync-journal-');
/** A journal folder inside a working tree of its own. */
const at = (target: string, dir: string): JournalLocation => ({ target, dir, within: path.dirname(dir) });

function runLine(run: string, target: string): JournalRunLine {
  return {
    type: 'run',
    formatVersion: 2,
    run,
    startedAt: `${run.slice(0, 4)}-${run.slice(4, 6)}-${run.slice(6, 8)}T${run.slice(9, 11)}:${run.slice(11, 13)}:${run.slice(13, 15)}.${run.slice(15, 18)}Z`,
    erpsyncVersion: '0.1.0',
    source: 'manifests',
    git: { revision: 'f00dcafe', dirty: false },
    target: { name: target, id: `https://api.example/${target}`, mode: 'remote' },
    account: { id: `acc-${target}`, nome: 'Loja', cnpj: '00.000.000/0001-00' },
    actor: { type: 'ci', url: 'https://ci.example/jobs/7', user: 'bot' },
    changes: 2,
  };
}
const intent = (id: string): JournalIntentLine => ({
  type: 'intent',
  at: '2026-01-05T12:00:01.000Z',
  change: id,
  action: 'create',
  reason: 'missing',
  kind: 'gruposProdutos',
  key: `Grupo ${id}`,
  fields: [],
  written: { nome: `Grupo ${id}`, note: 'ação — ünïcode' },
});
const outcome = (id: string): JournalOutcomeLine => ({ type: 'outcome', at: '2026-01-05T12:00:02.000Z', change: id, outcome: 'applied', id: 101 });
/** A change as read back: its intent and its outcome together. */
const change = (id: string): JournalChangeLine => {
  const { type: _type, ...described } = intent(id);
  return { type: 'change', ...described, outcome: 'applied', id: 101 };
};
const end: JournalEndLine = { type: 'end', at: '2026-01-05T12:00:03.000Z', applied: 2, failed: 0, skipped: 0, interrupted: false, notConverged: [] };

/** A whole run's lines: it announces and settles two changes, and closes unless `ended` is false (then the second stays unknown). */
function linesOf(run: string, target: string, ended = true): JournalLine[] {
  return [runLine(run, target), intent('c1'), outcome('c1'), intent('c2'), ...(ended ? [outcome('c2'), end] : [])];
}

async function writeRun(store: JournalStore, location: JournalLocation, run: string, ended = true): Promise<void> {
  const sink = await store.open(location, run);
  for (const line of linesOf(run, location.target, ended)) sink.append(line, JSON.stringify(line));
  await sink.close();
}

interface World {
  /** A store on this world's state, its local files in `dir` (another process; with postgres, another machine when `dir` differs). */
  store(dir: string): Promise<JournalStore>;
  /** Rewrites line `seq` (0-based) of a stored run where the store keeps it, as someone with access to it could. */
  tamper(dir: string, run: string, seq: number, edit: (text: string) => string): Promise<void>;
}

async function localWorld(): Promise<World> {
  return {
    store: async () => localJournal(),
    async tamper(dir, run, seq, edit) {
      const file = path.join(dir, `${run}.jsonl`);
      writeFileSync(file, readFileSync(file, 'utf8').split('\n').map((text, i) => (i === seq ? edit(text) : text)).join('\n'));
    },
  };
}

async function connect(backend: TestBackend): Promise<PostgresConnection> {
  const connection = await connectPostgres(backend.choice, { ...process.env, ...backend.env });
  onCleanup(() => connection.close().catch(() => undefined));
  return connection;
}

function newBackend(): TestBackend {
  const backend = freshBackend();
  onCleanup(() => backend.drop());
  return backend;
}

async function postgresWorld(): Promise<World> {
  const backend = newBackend();
  return {
    store: async () => postgresJournal(await connect(backend), localJournal(), { runner: 'runner-1' }),
    async tamper(_dir, run, seq, edit) {
      const connection = await connect(backend);
      const { rows } = await connection.pool.query<{ line: string }>(`select line from ${connection.schema}.journal_lines where run = $1 and seq = $2`, [run, seq]);
      await connection.pool.query(`update ${connection.schema}.journal_lines set line = $3 where run = $1 and seq = $2`, [run, seq, edit(rows[0]?.line ?? '')]);
    },
  };
}

const runA = '20260105T120000000Z-aaaaaa';
const runB = '20260105T130000000Z-bbbbbb';
const runC = '20260105T140000000Z-cccccc';

describe.each([
  ['local', localWorld],
  ['postgres', postgresWorld],
] as const)('the journal (%s backend)', (_name, makeWorld) => {
  it('has each line in the run file before append returns, and a run that wrote nothing leaves no file', async () => {
    const dir = tempDir();
    const store = await (await makeWorld()).store(dir);
    const idle = await store.open(at('loja', dir), runC);
    await idle.close();
    const sink = await store.open(at('loja', dir), runA);
    const [first, second] = linesOf(runA, 'loja');
    sink.append(first as JournalLine, JSON.stringify(first));
    expect(readFileSync(path.join(dir, `${runA}.jsonl`), 'utf8')).toBe(`${JSON.stringify(first)}\n`);
    sink.append(second as JournalLine, JSON.stringify(second));
    expect(readFileSync(path.join(dir, `${runA}.jsonl`), 'utf8').split('\n')).toHaveLength(3);
    await sink.close();
    expect(readdirSync(dir)).toEqual([`${runA}.jsonl`]);
  });

  it('reads the runs back oldest first, of one target when asked, finished or interrupted, from another store too', async () => {
    const world = await makeWorld();
    const dir = tempDir();
    const store = await world.store(dir);
    await writeRun(store, at('loja', dir), runB, false);
    await writeRun(store, at('loja', dir), runA);
    await writeRun(store, at('outra', dir), runC);
    const { runs, damaged } = await (await world.store(dir)).list([at('loja', dir)]);
    expect(damaged).toEqual([]);
    expect(runs.map((r) => [r.header.run, r.header.target.name, r.status, r.trust, r.changes.map((c) => c.outcome)])).toEqual([
      [runA, 'loja', 'finished', 'verified', ['applied', 'applied']],
      [runB, 'loja', 'interrupted', 'verified', ['applied', 'unknown']],
      [runC, 'outra', 'finished', 'verified', ['applied', 'applied']],
    ]);
    expect(runs[0]?.header).toEqual(runLine(runA, 'loja'));
    expect(runs[0]?.changes[1]).toEqual(change('c2'));
    expect(runs[0]?.end).toMatchObject(end);
    const loja = await store.list([at('loja', dir)], { target: 'outra' });
    expect(loja.runs.map((r) => r.header.run)).toEqual([runC]);
  });

  it('finds a line changed where the store keeps it, and names the run; the other runs are read on', async () => {
    const world = await makeWorld();
    const dir = tempDir();
    const store = await world.store(dir);
    await writeRun(store, at('loja', dir), runA);
    await writeRun(store, at('loja', dir), runB);
    await store.list([at('loja', dir)]);
    await world.tamper(dir, runB, 1, (text) => text.replace('Grupo c1', 'Intocado'));
    const { runs, damaged } = await (await world.store(dir)).list([at('loja', dir)]);
    expect(runs.map((r) => r.header.run)).toEqual([runA]);
    expect(damaged).toEqual([{ run: runB, file: expect.stringContaining(runB), problems: [expect.stringMatching(/changed/)], ...(damaged[0]?.target === undefined ? {} : { target: 'loja' }) }]);
  });

  it('appends a resolution after the lines a run was read with, once: a second one from the same reading is refused', async () => {
    const world = await makeWorld();
    const dir = tempDir();
    const store = await world.store(dir);
    await writeRun(store, at('loja', dir), runA, false);
    const [read] = (await store.list([at('loja', dir)])).runs;
    if (!read) throw new Error('no run');
    const resolution: JournalLine = { type: 'resolution', at: '2026-01-05T12:10:00.000Z', change: 'c2', outcome: 'applied', id: 102, detail: 'its answer was lost; the account holds it (id 102)' };
    const chain = await store.extend(at('loja', dir), read, [{ line: resolution, text: JSON.stringify(resolution) }]);
    expect(chain.lines).toBe(5);
    await expect(store.extend(at('loja', dir), read, [{ line: resolution, text: JSON.stringify(resolution) }])).rejects.toMatchObject({ code: 'JOURNAL_DAMAGED' });
    const { runs, damaged } = await (await world.store(dir)).list([at('loja', dir)]);
    expect(damaged).toEqual([]);
    expect(runs[0]?.changes.map((c) => [c.outcome, c.id, c.resolvedAt])).toEqual([
      ['applied', 101, undefined],
      ['applied', 102, resolution.at],
    ]);
    expect(runs[0]?.chain).toEqual(chain);
  });

  it("lists only a target's newest run when asked, without reading the others", async () => {
    const world = await makeWorld();
    const dir = tempDir();
    const store = await world.store(dir);
    await writeRun(store, at('loja', dir), runA);
    await writeRun(store, at('loja', dir), runB, false);
    await writeRun(store, at('outra', dir), runC);
    await store.list([at('loja', dir)]);
    // An older run is not even read: damage in it is found by a full list only.
    await world.tamper(dir, runA, 1, (text) => text.replace('Grupo c1', 'Intocado'));
    const listing = await (await world.store(dir)).list([at('loja', dir)], { target: 'loja', latest: true });
    expect([listing.runs.map((r) => r.header.run), listing.damaged]).toEqual([[runB], []]);
  });

  it('leaves out a torn last line (a run killed while writing it)', async () => {
    const world = await makeWorld();
    const dir = tempDir();
    const store = await world.store(dir);
    const sink = await localJournal().open(at('loja', dir), runA);
    for (const line of linesOf(runA, 'loja', false)) sink.append(line, JSON.stringify(line));
    await sink.close();
    appendFileSync(path.join(dir, `${runA}.jsonl`), JSON.stringify(outcome('c2')).slice(0, 40));
    const { runs: [run], damaged } = await store.list([at('loja', dir)]);
    expect(damaged).toEqual([]);
    expect(run).toMatchObject({ status: 'interrupted', trust: 'verified' });
    expect(run?.changes.map((c) => c.outcome)).toEqual(['applied', 'unknown']);
  });
});

/** The database's own count of what it holds, to show nothing was stored twice. */
async function stored(connection: PostgresConnection): Promise<{ lines: number; runs: { run: string; lines: number; ended: boolean; runner: string | null }[] }> {
  const lines = await connection.pool.query<{ n: string }>(`select count(*) as n from ${connection.schema}.journal_lines`);
  const runs = await connection.pool.query<{ run: string; lines: number; ended: boolean; runner: string | null }>(`select run, lines, ended, runner from ${connection.schema}.journal_runs order by run`);
  return { lines: Number(lines.rows[0]?.n), runs: runs.rows };
}

describe('the postgres journal', () => {
  it('keeps the lines written while the database is gone in the local file, and a new store pushes them exactly once', async () => {
    const backend = newBackend();
    const dir = tempDir();
    const location = at('loja', dir);
    const before = await connect(backend);
    await writeRun(postgresJournal(before, localJournal(), { runner: 'runner-1' }), location, runA);
    const gone = await connect(backend);
    const store = postgresJournal(gone, localJournal(), { runner: 'runner-1' });
    const sink = await store.open(location, runB);
    await gone.close();
    for (const line of linesOf(runB, 'loja')) sink.append(line, JSON.stringify(line));
    await sink.close();
    expect(readFileSync(path.join(dir, `${runB}.jsonl`), 'utf8').trim().split('\n')).toHaveLength(6);
    const check = await connect(backend);
    expect((await stored(check)).runs.map((r) => r.run)).toEqual([runA]);

    const next = postgresJournal(await connect(backend), localJournal(), { runner: 'runner-2' });
    for (let i = 0; i < 2; i += 1) {
      const { runs } = await next.list([location]);
      expect(runs.map((r) => [r.header.run, r.status, r.changes.length])).toEqual([
        [runA, 'finished', 2],
        [runB, 'finished', 2],
      ]);
    }
    const again = postgresJournal(await connect(backend), localJournal(), {});
    expect((await again.list([location])).runs.map((r) => [r.header.run, r.trust])).toEqual([
      [runA, 'verified'],
      [runB, 'verified'],
    ]);
    expect(await stored(check)).toEqual({
      lines: 12,
      runs: [
        { run: runA, lines: 6, ended: true, runner: 'runner-1' },
        { run: runB, lines: 6, ended: true, runner: 'runner-2' },
      ],
    });
  });

  it('pushes what a run wrote after the database was lost on the next open too, from the first line it lacks', async () => {
    const backend = newBackend();
    const dir = tempDir();
    const location = at('loja', dir);
    const connection = await connect(backend);
    const lines = linesOf(runA, 'loja');
    const writing = await connect(backend);
    const sink = await postgresJournal(writing, localJournal(), {}).open(location, runA);
    for (const line of lines.slice(0, 3)) sink.append(line, JSON.stringify(line));
    // Waits for the queue to push them (the test's timeout bounds the wait).
    while ((await stored(connection)).lines < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    // The database is lost: the same run goes on in its local file alone.
    await writing.close();
    for (const line of lines.slice(3)) sink.append(line, JSON.stringify(line));
    await sink.close();
    expect((await stored(connection)).lines).toBe(3);
    const next = await postgresJournal(await connect(backend), localJournal(), {}).open(location, runB);
    await next.close();
    expect(await stored(connection)).toMatchObject({ lines: 6, runs: [{ run: runA, lines: 6, ended: true }] });
    expect((await postgresJournal(connection, localJournal(), {}).list([])).runs.map((r) => [r.header.run, r.trust, r.status])).toEqual([[runA, 'verified', 'finished']]);
  });

  it('stores each line once when two stores push the same folder at once', async () => {
    const backend = newBackend();
    const dir = tempDir();
    for (const run of [runA, runB, runC]) await writeRun(localJournal(), at('loja', dir), run);
    const stores = await Promise.all([1, 2, 3].map(async () => postgresJournal(await connect(backend), localJournal(), {})));
    const lists = await Promise.all(stores.map((store) => store.list([at('loja', dir)])));
    for (const { runs } of lists) expect(runs.map((r) => [r.header.run, r.changes.length])).toEqual([runA, runB, runC].map((run) => [run, 2]));
    expect((await stored(await connect(backend))).lines).toBe(18);
  });

  it('goes on pushing a run whose first lines another process pushed while it was being written', async () => {
    const backend = newBackend();
    const dir = tempDir();
    const location = at('loja', dir);
    const writer = await connect(backend);
    // Every connection of the writer's pool taken: its queue waits while the other process pushes.
    const held = await Promise.all(Array.from({ length: writer.pool.options.max }, () => writer.pool.connect()));
    const sink = await postgresJournal(writer, localJournal(), {}).open(location, runA);
    const lines = linesOf(runA, 'loja');
    for (const line of lines.slice(0, 3)) sink.append(line, JSON.stringify(line));
    const other = await connect(backend);
    expect(await importLocalJournal(other, [location], {})).toEqual({ runs: 1, lines: 3, failed: [] });
    for (const client of held) client.release();
    for (const line of lines.slice(3)) sink.append(line, JSON.stringify(line));
    await sink.close();
    expect(await stored(other)).toMatchObject({ lines: 6, runs: [{ run: runA, lines: 6, ended: true }] });
  });

  it("reads every machine's runs: another local folder, the same database", async () => {
    const backend = newBackend();
    const first = tempDir();
    const second = tempDir();
    await writeRun(postgresJournal(await connect(backend), localJournal(), { runner: 'host-a' }), at('loja', first), runA);
    await writeRun(postgresJournal(await connect(backend), localJournal(), { runner: 'host-a' }), at('outra', first), runB);
    const elsewhere = postgresJournal(await connect(backend), localJournal(), { runner: 'host-b' });
    const { runs } = await elsewhere.list([at('loja', second)]);
    expect(runs.map((r) => [r.header.run, r.runner, r.status])).toEqual([
      [runA, 'host-a', 'finished'],
      [runB, 'host-a', 'finished'],
    ]);
    expect(runs[0]?.header).toEqual(runLine(runA, 'loja'));
    expect((await elsewhere.list([], { target: 'outra' })).runs.map((r) => r.header.run)).toEqual([runB]);
    expect(readdirSync(second)).toEqual([]);
  });

  it('imports a local journal folder and the read-back memory once, however often it runs', async () => {
    const backend = newBackend();
    const cwd = tempDir();
    const dir = path.join(cwd, '.erpsync', 'journal');
    await writeRun(localJournal(), at('loja', dir), runA);
    await writeRun(localJournal(), at('loja', dir), runB, false);
    writeFileSync(path.join(dir, 'notes.jsonl'), 'not a run\n');
    writeFileSync(path.join(dir, `${runC}.jsonl`), `${JSON.stringify(runLine(runA, 'loja'))}\n`);
    writeFileSync(path.join(cwd, '.erpsync', 'read-back.json'), JSON.stringify({ formatVersion: 1, accounts: { 'acc-1': { unkept: [], restated: ['situacoes cor'] } } }));
    const connection = await connect(backend);
    const location = at('loja', dir);
    // The two files that are no runs are named, not imported.
    const refused = [
      { run: runC, reason: expect.stringContaining(`the run line names the run "${runA}", not "${runC}"`) },
      { run: 'notes', reason: expect.stringContaining('notes.jsonl:1: the line is not JSON') },
    ];
    expect(await importLocalState(connection, { journals: [location], cwd }, { runner: 'laptop' })).toEqual({ journal: { runs: 2, lines: 10, failed: refused }, readBackAccounts: 1 });
    expect(await importLocalState(connection, { journals: [location, location], cwd }, { runner: 'laptop' })).toEqual({ journal: { runs: 0, lines: 0, failed: refused }, readBackAccounts: 0 });
    expect(await importLocalJournal(connection, [location], {})).toEqual({ runs: 0, lines: 0, failed: refused });
    expect(await stored(connection)).toMatchObject({ lines: 10, runs: [{ run: runA, lines: 6, ended: true }, { run: runB, lines: 4, ended: false }] });
    const { runs } = await postgresJournal(connection, localJournal(), {}).list([]);
    expect(runs.map((r) => [r.header.run, r.status, r.runner])).toEqual([
      [runA, 'finished', 'laptop'],
      [runB, 'interrupted', 'laptop'],
    ]);
  });
});
