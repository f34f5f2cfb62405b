import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import { renderPlanText } from './render-plan.js';
import { keyListField } from '../model/diff-fields.js';
import type { Plan } from '../model/plan.js';

const base: Plan = {
  formatVersion: 2,
  target: { mode: 'sandbox', id: 'sandbox:x', name: 'sandbox', account: { id: 'test-account', nome: 'Loja Teste Ltda', cnpj: '12.345.678/0001-90' } },
  manifestDigest: 'd',
  kinds: ['configuracoesNfse'],
  changes: [],
  budget: { limit: 10, source: 'default', removals: 0, exceeded: false },
  renames: [],
  warnings: [],
  cost: { reads: 1, writes: 1, seconds: 0.4, rate: 2.5 },
};

describe('renderPlanText', () => {
  it('shows long texts as a line diff and secrets only as changed', () => {
    const plan: Plan = {
      ...base,
      changes: [
        {
          id: 'configuracoesNfse:configuracoesNfse:update',
          action: 'update',
          kind: 'configuracoesNfse',
          key: 'configuracoesNfse',
          liveId: 0,
          reason: 'drift',
          removal: 'none',
          fields: [
            { path: 'envioEmail.mensagem', before: 'Olá,\nsegue a nota.\nObrigado!', after: 'Olá,\nsegue a sua nota fiscal.\nObrigado!' },
            { path: 'adicionais.cadastroPrefeitura.senha', before: undefined, after: undefined, sensitive: true },
          ],
          desired: { adicionais: { cadastroPrefeitura: { senha: 'hunter2' } } },
          secrets: { 'adicionais.cadastroPrefeitura.senha': 'NFSE_SENHA' },
          dependsOn: [],
          requires: [],
          wave: 1,
        },
      ],
    };
    const text = renderPlanText(plan, { adapters: registry.units }).join('\n');
    expect(text).toContain(['    envioEmail.mensagem:', '        Olá,', '      - segue a nota.', '      + segue a sua nota fiscal.', '        Obrigado!'].join('\n'));
    expect(text).toContain('adicionais.cadastroPrefeitura.senha: (sensitive) changed');
    expect(text).not.toContain('hunter2');
  });

  it('sums up only the actions present, lists kinds compactly with nested ones under their parent, and says why in words', () => {
    const change = (id: string, action: Plan['changes'][number]['action'], kind: Plan['changes'][number]['kind'], reason: Plan['changes'][number]['reason'], removal: 'none' | 'removal' = 'none') => ({
      id,
      action,
      kind,
      key: id,
      reason,
      removal,
      fields: [],
      dependsOn: [],
      requires: [],
      wave: 1,
      ...(action === 'create' ? {} : { liveId: 7 }),
    });
    const plan: Plan = {
      ...base,
      changes: [
        change('A', 'create', 'logisticas', 'missing'),
        change('A > X', 'create', 'logisticasServicos', 'missing'),
        change('B', 'update', 'logisticas', 'drift'),
        change('B > Y', 'retire', 'logisticasServicos', 'tombstone', 'removal'),
      ],
    };
    const lines = renderPlanText(plan, { adapters: registry.units });
    expect(lines.slice(0, 4)).toEqual(['Plan: 2 to create, 1 to update, 1 to retire.', '', '  logisticas             1 to create, 1 to update', '  logisticas › servicos  1 to create, 1 to retire']);
    expect(lines).toContain('+ logisticas › servicos "A > X" — create: not in the account (wave 1)');
    expect(lines).toContain('~ logisticas "B" — update: differs from the manifest (id 7, wave 1)');
    expect(lines).toContain('- logisticas › servicos "B > Y" — retire: ensure: absent (id 7, wave 1)');
    expect(lines.join('\n')).not.toMatch(/\bdrift\b|0 to /);
  });

  it('shows a keyed collection entry by entry: added entries with their fields, dropped ones by key', () => {
    const keys = keyListField('ISS.tributos', 'CNAE + listaServico');
    const plan: Plan = {
      ...base,
      changes: [
        {
          id: 'nfse',
          action: 'update',
          kind: 'configuracoesNfse',
          key: 'configuracoesNfse',
          liveId: 0,
          reason: 'drift',
          removal: 'none',
          fields: [
            { path: 'ISS.tributos.9602-5/01 + 06.01', before: undefined, after: { CNAE: '9602-5/01', codigo: { listaServico: '06.01' }, percentualISS: 2 } },
            { path: 'ISS.tributos.9602-5/02 + 06.02.percentualISS', before: 3, after: 2 },
            { path: keys, before: ['9602-5/02 + 06.02', '9999-9/99 + 01.01'], after: ['9602-5/01 + 06.01', '9602-5/02 + 06.02'] },
          ],
          dependsOn: [],
          requires: [],
          wave: 1,
        },
      ],
    };
    const text = renderPlanText(plan, { adapters: registry.units }).join('\n');
    expect(text).toContain(
      ['    + ISS.tributos["9602-5/01 + 06.01"]:', '        CNAE: "9602-5/01"', '        codigo.listaServico: "06.01"', '        percentualISS: 2', '    ISS.tributos["9602-5/02 + 06.02"].percentualISS: 3 → 2', '    - ISS.tributos["9999-9/99 + 01.01"]: removed'].join('\n'),
    );
    expect(text).not.toContain('CNAE + listaServico');
    expect(text).not.toContain('{"CNAE"');
  });

  it('says the sandbox is unpaced instead of promising a real account\'s pace', () => {
    const [cost] = renderPlanText(base, { adapters: registry.units }).slice(-1);
    expect(cost).toBe('Cost: 1 request(s) read the account; 1 write(s) planned (the sandbox is unpaced; a real account would take about 0.4 s at 2.5 req/s).');
    const remote = renderPlanText({ ...base, target: { ...base.target, mode: 'remote' } }, { adapters: registry.units }).slice(-1);
    expect(remote).toEqual(['Cost: 1 request(s) read the account; 1 write(s) planned, about 0.4 s at 2.5 req/s.']);
  });
});
