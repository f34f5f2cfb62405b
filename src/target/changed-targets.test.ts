// Which targets a change touches, from paths alone: a shared base touches every target reading it,
// an overlay its own target, a config entry its target, the config's shared settings every target.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TargetReads } from './changed-targets.js';
import { compareConfigs, touchedTargets } from './changed-targets.js';

const root = path.resolve('/repo');
const at = (...parts: string[]) => path.join(root, ...parts);
const show = (file: string) => path.relative(root, file);
const none = { shared: false, entries: new Set<string>() };

const reads: TargetReads[] = [
  { target: 'lojas/a', manifests: [at('base'), at('overlays', 'a.yaml')] },
  { target: 'lojas/b', manifests: [at('base'), at('overlays', 'b')], envFile: at('ambientes', 'b.env') },
  { target: 'lojas/c', manifests: [at('outra-base')] },
];
const touched = (changed: string[], config = none) => touchedTargets(changed, reads, config, 'erpsync.config.yaml', show);

describe('touchedTargets', () => {
  it('a shared base file touches every target that reads it, and only those', () => {
    expect(touched([at('base', 'grupos.yaml')])).toEqual([
      { target: 'lojas/a', because: ['base/grupos.yaml'] },
      { target: 'lojas/b', because: ['base/grupos.yaml'] },
    ]);
  });

  it('an overlay (a file, or a folder scanned for manifests) touches its own target', () => {
    expect(touched([at('overlays', 'a.yaml')]).map((t) => t.target)).toEqual(['lojas/a']);
    expect(touched([at('overlays', 'b', 'fundo', 'pagamentos.yml')]).map((t) => t.target)).toEqual(['lojas/b']);
    expect(touched([at('ambientes', 'b.env')]).map((t) => t.target)).toEqual(['lojas/b']);
  });

  it('files a folder scan never reads touch nothing: other extensions, hidden folders, the config file, a folder of a similar name', () => {
    expect(touched([at('base', 'LEIAME.md'), at('base', '.rascunho', 'x.yaml'), at('base', 'node_modules', 'x.yaml'), at('base', 'erpsync.config.yaml'), at('base-antiga', 'x.yaml'), at('overlays', 'a.yaml.bak')])).toEqual([]);
  });

  it('a file gone from the work tree counts as the change it is', () => {
    // Paths alone: nothing on disk is consulted, so a deleted manifest touches its readers too.
    expect(touched([at('outra-base', 'removido.yaml')]).map((t) => t.target)).toEqual(['lojas/c']);
  });

  it('the config: a target\'s own entry touches it, shared settings touch all', () => {
    expect(touched([], { shared: false, entries: new Set(['lojas/b']) })).toEqual([{ target: 'lojas/b', because: ['its entry in erpsync.config.yaml'] }]);
    expect(touched([], { shared: true, entries: new Set() }).map((t) => t.target)).toEqual(['lojas/a', 'lojas/b', 'lojas/c']);
  });
});

describe('compareConfigs', () => {
  const before = { version: 1, egress: 'escritorio', targets: { 'lojas/a': { sandbox: true, manifests: ['base'] }, 'lojas/b': { sandbox: true, variables: { LOJA: 'B' } } } };

  it('tells entries apart by meaning: key order does not count, a changed value or a new target does', () => {
    const reordered = { targets: { 'lojas/b': { variables: { LOJA: 'B' }, sandbox: true }, 'lojas/a': { manifests: ['base'], sandbox: true } }, egress: 'escritorio', version: 1 };
    expect(compareConfigs(before, reordered)).toEqual({ shared: false, entries: new Set() });
    const changed = { ...before, targets: { ...before.targets, 'lojas/b': { sandbox: true, variables: { LOJA: 'B2' } }, 'lojas/novo': { sandbox: true } } };
    expect(compareConfigs(before, changed)).toEqual({ shared: false, entries: new Set(['lojas/b', 'lojas/novo']) });
  });

  it('anything outside `targets:` is shared; no config before is all new', () => {
    expect(compareConfigs(before, { ...before, egress: 'nuvem' }).shared).toBe(true);
    expect(compareConfigs(null, before)).toEqual({ shared: true, entries: new Set(['lojas/a', 'lojas/b']) });
  });
});
