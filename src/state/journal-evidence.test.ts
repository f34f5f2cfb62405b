// A run read back as evidence, line by line: the chain of hashes the store writes, checked with
// and without what the store kept of it; a last line a kill cut off (only noted); a line added past
// the run's last hash; an outcome no intent announced; a resolution settling an unknown outcome
// after the closing line; and the read-back's verdict turning an applied write into `not-kept`.
import { describe, expect, it } from 'vitest';
import type { JournalLine } from '../model/journal.js';
import { chainedText, hashLine, isDamaged, readRunEvidence } from './journal-evidence.js';

const run = '20260105T120000000Z-aaaaaa';
const header: JournalLine = {
  type: 'run',
  formatVersion: 2,
  run,
  startedAt: '2026-01-05T12:00:00.000Z',
  erpsyncVersion: '0.1.0',
  source: 'manifests',
  git: null,
  target: { name: 'loja', id: 'sandbox:loja', mode: 'sandbox' },
  account: { id: '1', nome: 'Loja', cnpj: '' },
  actor: { type: 'user', user: 'maria' },
  changes: 2,
};
const at = '2026-01-05T12:00:01.000Z';
const intent = (change: string, key: string): JournalLine => ({ type: 'intent', at, change, action: 'create', reason: 'missing', kind: 'gruposProdutos', key, fields: [] });

/** The texts a store keeps for these lines: each but the first chained to the one before. */
function stored(lines: readonly JournalLine[]): string[] {
  const texts: string[] = [];
  for (const line of lines) texts.push(chainedText(JSON.stringify(line), texts.length > 0 ? hashLine(texts[texts.length - 1] ?? '') : undefined));
  return texts;
}

const lines: JournalLine[] = [
  header,
  intent('c1', 'Velas'),
  { type: 'outcome', at, change: 'c1', outcome: 'applied', id: 7 },
  intent('c2', 'Sabonetes'),
  { type: 'outcome', at, change: 'c2', outcome: 'unknown', detail: 'the connection broke' },
  { type: 'end', at, applied: 1, failed: 1, skipped: 0, interrupted: false, notConverged: ['gruposProdutos "Velas": nome was not kept'], notKept: ['c1'] },
  { type: 'resolution', at, change: 'c2', outcome: 'applied', id: 8, detail: 'its answer was lost; the account holds it (id 8)' },
];
const texts = stored(lines);
const source = { file: 'run.jsonl', run };

describe('a run read back as evidence', () => {
  it('assembles each change with its true outcome: the verdict of the read-back, an unknown one settled after the closing line', () => {
    const read = readRunEvidence(texts, source, { type: 'hashes', hashes: texts.map(hashLine) });
    if (isDamaged(read)) throw new Error(read.problems.join('\n'));
    expect(read.trust).toBe('verified');
    expect(read.changes.map((c) => [c.key, c.outcome, c.id])).toEqual([
      ['Velas', 'not-kept', 7],
      ['Sabonetes', 'applied', 8],
    ]);
    expect(read.changes[0]?.detail).toBe('gruposProdutos "Velas": nome was not kept');
    expect(read.chain).toEqual({ lines: 7, last: hashLine(texts[6] ?? '') });
  });

  it('notes a last line a kill cut off, and names a line added after the last hash', () => {
    const hashes = texts.map(hashLine);
    const cut = readRunEvidence(texts.slice(0, 4), { ...source, torn: true }, { type: 'hashes', hashes: hashes.slice(0, 5) });
    expect(isDamaged(cut) ? cut.problems : cut.notes).toEqual([
      'its last line never reached the file (the run was killed while writing it): the write it would have announced was not sent',
      'its last line was cut off (the run was killed while writing it) and is left out',
    ]);
    const added = readRunEvidence(texts, source, { type: 'hashes', hashes: hashes.slice(0, 6) });
    expect(isDamaged(added) && added.problems).toEqual(['run.jsonl:7: the line was not written by the run (inserted)']);
    const last = readRunEvidence(texts, source, { type: 'last', lines: 6, last: hashes[5] ?? '' });
    expect(isDamaged(last) && last.problems).toEqual(['run.jsonl: its lines are not the 6 the run wrote (the backend keeps the hash of its last line): a line was changed, removed or added since']);
  });

  it('without an anchor checks the chain and each line in its place', () => {
    const forged = [...texts];
    forged[1] = forged[1]?.replace('Velas', 'Intocado') ?? '';
    expect(readRunEvidence(forged, source)).toMatchObject({ problems: ['run.jsonl:3: the line does not follow line 2 (its hash of the line before differs: changed, inserted or reordered)'] });
    const orphan = stored([header, { type: 'outcome', at, change: 'c9', outcome: 'applied' }]);
    expect(readRunEvidence(orphan, source)).toMatchObject({ problems: ['run.jsonl:2: the outcome of the change "c9", which no intent line before it announced'] });
    const settledTwice = stored([...lines, { type: 'resolution', at, change: 'c1', outcome: 'not-applied', detail: 'forged' }]);
    expect(readRunEvidence(settledTwice, source)).toMatchObject({ problems: ['run.jsonl:8: a resolution of the change "c1", whose outcome was not left unknown'] });
    expect(readRunEvidence(texts, { ...source, run: '20260105T130000000Z-bbbbbb' })).toMatchObject({ problems: [`run.jsonl:1: the run line names the run "${run}", not "20260105T130000000Z-bbbbbb"`] });
  });
});
