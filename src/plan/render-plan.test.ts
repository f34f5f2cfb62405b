import { describe, expect, it } from 'vitest';
import { kindAdapters } from '../kinds/registry.js';
import type { Plan } from './model.js';
import { renderPlanJson, renderPlanText } from './render-plan.js';

const base: Plan = {
  formatVersion: 1,
  target: { mode: 'sandbox', id: 'sandbox:x', name: 'sandbox' },
  manifestDigest: 'd',
  kinds: ['configuracoesNfse'],
  changes: [],
  fingerprints: {},
  absent: [],
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
          fields: [
            { path: 'envioEmail.mensagem', before: 'Olá,\nsegue a nota.\nObrigado!', after: 'Olá,\nsegue a sua nota fiscal.\nObrigado!' },
            { path: 'adicionais.cadastroPrefeitura.senha', before: undefined, after: undefined, sensitive: true },
          ],
          desired: { adicionais: { cadastroPrefeitura: { senha: 'hunter2' } } },
          secrets: { 'adicionais.cadastroPrefeitura.senha': 'NFSE_SENHA' },
          dependsOn: [],
          wave: 1,
        },
      ],
    };
    const text = renderPlanText(plan, { adapters: kindAdapters }).join('\n');
    expect(text).toContain(['    envioEmail.mensagem:', '        Olá,', '      - segue a nota.', '      + segue a sua nota fiscal.', '        Obrigado!'].join('\n'));
    expect(text).toContain('adicionais.cadastroPrefeitura.senha: (sensitive) changed');
    expect(text).not.toContain('hunter2');
    const json = renderPlanJson(plan);
    expect(json).not.toContain('hunter2');
    expect(JSON.parse(json).changes[0].secrets).toEqual({ 'adicionais.cadastroPrefeitura.senha': 'NFSE_SENHA' });
  });
});
