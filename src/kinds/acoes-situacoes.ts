// The actions a situation transition can run (/situacoes/modulos/{id}/acoes), read-only and
// per module: `Lançar estoque`, `Lançar contas` … named by `descricao` within their module, so
// the identity is `<module> > <descricao>` (a transition's `acoes`, scoped by its `modulo`).
// Modules that allow no custom situations have no actions worth a request. See defineReadOnlyKind.
import type { ApiClient } from '../api/client.js';
import { joinPath, pathSeparator } from '../model/names.js';
import type { LiveRecord } from '../model/live.js';
import { defineReadOnlyKind } from './kind.js';
import type { ReadScope } from './kind.js';
import { identifyListItems, readBoolean, readName, readNamedList } from './live-helpers.js';

async function readActions(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  const modules = scope.earlier.get('modulosSituacoes') ?? (await readNamedList(client, '/situacoes/modulos', 'acoesSituacoes', 'nome', false));
  // Only the modules whose actions a manifest names, unless every action is wanted.
  const wanted = new Set([...(scope.named ?? [])].map((identity) => identity.split(pathSeparator)[0]));
  const lists = await Promise.all(
    modules
      .filter((module) => readBoolean(module.raw.criarSituacoes) !== false && (scope.all || wanted.has(module.name)))
      .map(async (module) => {
        const path = `/situacoes/modulos/${module.id}/acoes`;
        const { data } = await client.request<unknown>({ method: 'GET', path, kind: 'acoesSituacoes' });
        return identifyListItems(Array.isArray(data) ? data : [], path).map(({ id, raw }): LiveRecord => {
          const descricao = readName(raw.descricao) || readName(raw.nome);
          return { kind: 'acoesSituacoes', id, identity: joinPath([module.name, descricao]), name: descricao, fields: { descricao }, raw, detailLoaded: true };
        });
      }),
  );
  return lists.flat();
}

export const acoesSituacoes = defineReadOnlyKind({
  kind: 'acoesSituacoes',
  title: 'situation actions',
  resource: '/situacoes/modulos/{id}/acoes',
  readLive: readActions,
});
