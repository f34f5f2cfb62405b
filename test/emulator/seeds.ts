// Test support: seed files for emulators that need what no API call can create — a store (sales
// channel) to link categories to, a payment-integration account, a record in use.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSeed } from '../../src/emulator/seed.js';

export const storeId = 14_693_300_001;

/** Writes a fresh account with those records into `dir` and returns the file's path. */
export function writeStoreSeed(dir: string): string {
  const seed = buildSeed('fresh');
  seed.canaisVenda.push({
    id: storeId,
    descricao: 'Loja virtual',
    tipo: 'LojaIntegrada',
    situacao: 1,
    agrupador: 1,
    filiais: [{ cnpj: '12.345.678/0001-95', idUnidadeNegocio: 1, unidadeNegocio: 'Matriz', deposito: { id: seed.depositos[0]?.id ?? 0 }, padrao: true }],
  });
  // A transition that orders use, so deleting it is refused (rule in-use).
  seed.emUso.push(seed.transicoes[0]?.id ?? 0);
  seed.contasContabeis.push({ id: 14_693_300_002, descricao: 'Bling Conta', tipo: 'integracao-pagamento', aliasIntegracao: 'BlingPagamentos', situacao: 1, invisivel: false });
  const file = join(dir, 'seed.json');
  writeFileSync(file, JSON.stringify(seed));
  return file;
}
