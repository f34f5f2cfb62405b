import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import { renderPlanText } from './render-plan.js';
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
});
