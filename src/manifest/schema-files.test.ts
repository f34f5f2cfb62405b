// The published schemas in schemas/ are generated from the kinds' TypeScript definitions: this test
// renders them and compares byte for byte (`npm run schemas` rewrites them), compiles them under
// ajv strict mode, checks them against the field tables that mirror the manifest types, and
// validates every example manifest with them.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { checkConfigText } from './load-config.js';
import { describe, expect, it } from 'vitest';
import { campoCustomizadoFieldTables } from '../kinds/campos-customizados.js';
import { categoriaLojaFieldTables } from '../kinds/categorias-lojas.js';
import { categoriaProdutoFieldTables } from '../kinds/categorias-produtos.js';
import { categoriaReceitaDespesaFieldTables } from '../kinds/categorias-receitas-despesas.js';
import { configuracaoNfseFieldTables } from '../kinds/configuracoes-nfse.js';
import { depositoFieldTables } from '../kinds/depositos.js';
import { formaPagamentoFieldTables } from '../kinds/formas-pagamentos.js';
import { grupoProdutoFieldTables } from '../kinds/grupos-produtos.js';
import type { JsonSchema } from '../kinds/kind.js';
import { logisticaFieldTables } from '../kinds/logisticas.js';
import { registry } from '../kinds/registry.js';
import type { FieldTableEntry } from '../kinds/shared-schema.js';
import { situacaoFieldTables } from '../kinds/situacoes.js';
import { transicaoFieldTables } from '../kinds/transicoes.js';
import { buildManifestSchema, buildSchemaFiles, kindSchemaFileName, manifestSchemaFileName, renderSchemaFile } from './manifest-schema.js';
import type { KindKey } from '../model/kinds.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const schemasDir = join(root, 'schemas');
const examplesDir = join(root, 'examples');

const fieldTablesByKind: Record<KindKey, readonly FieldTableEntry[]> = {
  formasPagamentos: formaPagamentoFieldTables,
  categoriasReceitasDespesas: categoriaReceitaDespesaFieldTables,
  categoriasProdutos: categoriaProdutoFieldTables,
  gruposProdutos: grupoProdutoFieldTables,
  situacoes: situacaoFieldTables,
  transicoes: transicaoFieldTables,
  logisticas: logisticaFieldTables,
  configuracoesNfse: configuracaoNfseFieldTables,
  depositos: depositoFieldTables,
  categoriasLojas: categoriaLojaFieldTables,
  camposCustomizados: campoCustomizadoFieldTables,
};

function readPublished(fileName: string): JsonSchema {
  return JSON.parse(readFileSync(join(schemasDir, fileName), 'utf8')) as JsonSchema;
}

/** ajv over the published files, as an editor or another tool would load them. */
function compilePublishedManifest() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const definition of registry.kinds) ajv.addSchema(readPublished(kindSchemaFileName(definition.key)));
  return ajv.compile(readPublished(manifestSchemaFileName));
}

function schemaAt(schema: JsonSchema, path: readonly string[]): JsonSchema {
  let current = schema;
  for (const segment of path) {
    const next = segment === '*' ? current.items : (current.properties as Record<string, JsonSchema> | undefined)?.[segment];
    if (typeof next !== 'object' || next === null) throw new Error(`schema has no ${path.join('.')}`);
    current = next as JsonSchema;
  }
  // A field that is a name, an id or an object (a carrier): its object branch.
  const objectBranch = Array.isArray(current.anyOf) ? (current.anyOf as JsonSchema[]).find((branch) => branch.properties !== undefined) : undefined;
  return objectBranch ?? current;
}

function propertyKeys(schema: JsonSchema): string[] {
  return Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {}).sort();
}

/**
 * Stands in for the loader's interpolation with an empty environment: `${NAME:-default}` takes its
 * default, `${NAME}` stays as written (a string, which every field it may appear in accepts).
 */
function applyDefaults(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*):-([^}]*)\}/g, (_match, _name, fallback: string) => fallback);
  if (Array.isArray(value)) return value.map(applyDefaults);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, applyDefaults(item)]));
  }
  return value;
}

function listFiles(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

describe('published schema files', () => {
  for (const file of buildSchemaFiles()) {
    it(`schemas/${file.fileName} matches the TypeScript definitions`, async () => {
      await expect(renderSchemaFile(file)).toMatchFileSnapshot(`../../schemas/${file.fileName}`);
    });
  }

  it('schemas/ holds exactly the generated files', () => {
    const generated = buildSchemaFiles().map((file) => file.fileName).sort();
    expect(readdirSync(schemasDir).sort()).toEqual(generated);
  });

  it('every published file compiles under ajv strict mode and refers to the others by relative file name', () => {
    const validate = compilePublishedManifest();
    expect(validate({ version: 1 })).toBe(true);
    const manifest = readPublished(manifestSchemaFileName);
    const refs = Object.values(manifest.properties as Record<string, JsonSchema>)
      .map((property) => (property.$ref ?? (property.items as JsonSchema | undefined)?.$ref) as string | undefined)
      .filter((ref): ref is string => ref !== undefined);
    expect(refs.sort()).toEqual(registry.kinds.map((definition) => kindSchemaFileName(definition.key)).sort());
  });

  it('accepts a whole ${VAR} wherever a value may come from a variable: numbers, booleans, enumerations', () => {
    const validate = compilePublishedManifest();
    const method = { descricao: '${NOME}', tipoPagamento: '${TIPO}', finalidade: '${FINALIDADE:-recebimentos}', destino: 3, juros: '${JUROS}', protect: '${PROTEGER}', taxas: { prazo: '${PRAZO}' } };
    expect(validate({ version: 1, formasPagamentos: [method] }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ version: 1, formasPagamentos: [{ ...method, juros: 'x${JUROS}' }] })).toBe(false);
    expect(validate({ version: 1, formasPagamentos: [{ ...method, tipoPagamento: 'pix' }] })).toBe(false);
  });

  it('every published file has an $id under erpsync.dev matching its name', () => {
    for (const fileName of readdirSync(schemasDir)) {
      expect(readPublished(fileName).$id).toBe(`https://erpsync.dev/schemas/${fileName}`);
    }
  });

  it('the self-contained schema compiles under ajv strict mode with both the draft-07 and 2020-12 classes', () => {
    for (const ajv of [new Ajv({ strict: true, allErrors: true }), new Ajv2020({ strict: true, allErrors: true })]) {
      const validate = ajv.compile(buildManifestSchema());
      expect(validate({ version: 1, formasPagamentos: [] })).toBe(true);
      expect(validate({ formasPagamentos: [] })).toBe(false);
    }
  });
});

describe('schemas and manifest types stay in step', () => {
  for (const definition of registry.kinds) {
    it(`${definition.key}: every field table equals the properties of the schema at its path`, () => {
      const published = readPublished(kindSchemaFileName(definition.key));
      const tables = fieldTablesByKind[definition.key];
      expect(tables.map((table) => table.path.join('.'))).toContain('');
      for (const table of tables) {
        const expected = Object.keys(table.fields).sort();
        expect(propertyKeys(schemaAt(definition.recordSchema, table.path)), table.path.join('.')).toEqual(expected);
        expect(propertyKeys(schemaAt(published, table.path)), table.path.join('.')).toEqual(expected);
      }
    });

    it(`${definition.key}: every nested object of the schema has a field table`, () => {
      const tablePaths = new Set(fieldTablesByKind[definition.key].map((table) => table.path.join('.')));
      const objectPaths: string[] = [];
      const walk = (schema: JsonSchema, path: string[]): void => {
        if (schema.type === 'object' && schema.properties !== undefined) {
          objectPaths.push(path.join('.'));
        }
        for (const [key, child] of Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {})) {
          walk(child, [...path, key]);
        }
        if (typeof schema.items === 'object' && schema.items !== null) walk(schema.items as JsonSchema, [...path, '*']);
      };
      walk(definition.recordSchema, []);
      for (const path of objectPaths) expect(tablePaths, path).toContain(path);
    });
  }
});

describe('what the composed schema accepts', () => {
  const validate = new Ajv({ strict: true, allErrors: true }).compile(buildManifestSchema());
  const errorsOf = (manifest: unknown) => {
    validate(manifest);
    return (validate.errors ?? []).filter((error) => error.keyword !== 'if').map((error) => `${error.instancePath} ${error.keyword}`);
  };

  it('accepts an enumerated field as the API code or as its label', () => {
    const method = { descricao: 'PIX', finalidade: 'recebimentos', destino: 3 };
    expect(errorsOf({ version: 1, formasPagamentos: [{ ...method, tipoPagamento: 17 }] })).toEqual([]);
    expect(errorsOf({ version: 1, formasPagamentos: [{ ...method, tipoPagamento: 'pix-dinamico' }] })).toEqual([]);
    expect(errorsOf({ version: 1, formasPagamentos: [{ ...method, tipoPagamento: 'pix' }] })).toEqual(['/formasPagamentos/0/tipoPagamento enum']);
  });

  it('refuses codes the API only returns', () => {
    const category = { descricao: 'Entradas', tipo: 4 };
    expect(errorsOf({ version: 1, categoriasReceitasDespesas: [category] })).toEqual(['/categoriasReceitasDespesas/0/tipo enum']);
    expect(errorsOf({ version: 1, categoriasReceitasDespesas: [{ descricao: 'Custo', tipo: 1, grupoDRE: 'custo-vendas' }] })).toEqual([
      '/categoriasReceitasDespesas/0/grupoDRE enum',
    ]);
  });

  it('asks for the create-required fields unless the record is a tombstone', () => {
    expect(errorsOf({ version: 1, formasPagamentos: [{ descricao: 'Cheque' }] })).toEqual([
      '/formasPagamentos/0 required',
      '/formasPagamentos/0 required',
      '/formasPagamentos/0 required',
    ]);
    expect(errorsOf({ version: 1, formasPagamentos: [{ descricao: 'Cheque', ensure: 'absent' }] })).toEqual([]);
    expect(errorsOf({ version: 1, situacoes: [{ modulo: 'Vendas', nome: 'Separando' }] })).toEqual(['/situacoes/0 required']);
    expect(errorsOf({ version: 1, logisticas: [{ descricao: 'Motoboy', situacao: 'H', servicos: [{ codigo: 'X', ensure: 'absent' }] }] })).toEqual([]);
    expect(errorsOf({ version: 1, logisticas: [{ descricao: 'Motoboy', ensure: 'absent', servicos: [{ codigo: 'X' }] }] })).toEqual([
      '/logisticas/0/servicos/0 required',
      '/logisticas/0/servicos/0 required',
      '/logisticas/0/servicos/0 required',
    ]);
  });

  it('reports unknown fields at every level, read-only API fields included', () => {
    expect(
      errorsOf({
        version: 1,
        formasPagamentos: [{ descricao: 'PIX', tipoPagamento: 17, finalidade: 2, destino: 3, fixa: false, taxas: { taxa: 1 } }],
        configuracoesNfse: { ISS: { tributos: [{ id: 4, CNAE: '96.02', descricaoServico: 'Estética', codigo: { listaServico: '0601' } }] } },
      }),
    ).toEqual([
      '/formasPagamentos/0 additionalProperties',
      '/formasPagamentos/0/taxas additionalProperties',
      '/configuracoesNfse/ISS/tributos/0 additionalProperties',
    ]);
  });

  it('checks the tool keys', () => {
    const group = { nome: 'Maquiagem' };
    expect(errorsOf({ version: 1, gruposProdutos: [{ ...group, id: 1, ensure: 'present', protect: true, previousNames: ['Make'] }] })).toEqual([]);
    expect(errorsOf({ version: 1, gruposProdutos: [{ ...group, id: 0, ensure: 'gone', protect: 'yes', previousNames: ['A', 'A', ''] }] })).toEqual([
      '/gruposProdutos/0/id minimum',
      '/gruposProdutos/0/ensure enum',
      '/gruposProdutos/0/protect type',
      '/gruposProdutos/0/previousNames/2 minLength',
      '/gruposProdutos/0/previousNames uniqueItems',
    ]);
  });

  it('checks the policy block', () => {
    const policy = {
      prune: ['gruposProdutos', 'categoriasProdutos'],
      maxDeletes: 0,
      retireInsteadOfDelete: ['formasPagamentos'],
      ignore: [{ kind: 'configuracoesNfse', field: 'adicionais.proximoNumeroLote', reason: 'advances with every batch' }],
    };
    expect(errorsOf({ version: 1, policy })).toEqual([]);
    expect(
      errorsOf({
        version: 1,
        policy: { prune: ['configuracoesNfse'], maxDeletes: -1, ignore: [{ kind: 'situacoes', field: 'cor..x', reason: ' ' }, { kind: 'logisticas' }] },
      }),
    ).toEqual([
      '/policy/prune/0 enum',
      '/policy/maxDeletes minimum',
      '/policy/ignore/0/field pattern',
      '/policy/ignore/0/reason pattern',
      '/policy/ignore/1 required',
    ]);
  });

  it('refuses unknown top-level keys and a wrong version', () => {
    expect(errorsOf({ version: 2, formaPagamentos: [] })).toEqual([' additionalProperties', '/version const']);
  });
});

describe('docs/manifest.md', () => {
  const docs = readFileSync(join(root, 'docs', 'manifest.md'), 'utf8');
  const quoted = new Set([...docs.matchAll(/`([^`\n]+)`/g)].flatMap((match) => (match[1] ?? '').split(/[^A-Za-z0-9_-]+/)));

  for (const definition of registry.kinds) {
    it(`documents every field and label of ${definition.key}`, () => {
      expect(docs).toContain(`### \`${definition.key}\``);
      for (const table of fieldTablesByKind[definition.key]) {
        for (const field of Object.keys(table.fields)) expect(quoted, `${table.path.join('.')} ${field}`).toContain(field);
      }
      for (const field of definition.enums) {
        for (const label of Object.keys(field.labels)) expect(quoted, `${field.path.join('.')} ${label}`).toContain(label);
      }
    });
  }
});

describe('examples', () => {
  // examples/ci holds pipeline files (GitHub Actions workflows), not manifests.
  // erpsync.config.yaml files are configs, checked against schemas/config.schema.json below.
  const exampleFiles = listFiles(examplesDir, (name) => (name.endsWith('.yaml') || name.endsWith('.yml')) && name !== 'erpsync.config.yaml').filter((file) => !relative(examplesDir, file).startsWith(`ci${sep}`));
  const configFiles = listFiles(examplesDir, (name) => name === 'erpsync.config.yaml');

  it('example configs validate against schemas/config.schema.json and point editors at it', () => {
    expect(configFiles.length).toBeGreaterThan(0);
    for (const file of configFiles) {
      const text = readFileSync(file, 'utf8');
      expect(text.split('\n')[0]).toBe(`# yaml-language-server: $schema=${relative(dirname(file), join(schemasDir, 'config.schema.json')).split(sep).join('/')}`);
      const diagnostics = checkConfigText(file, Buffer.from(text)).diagnostics;
      expect(diagnostics).toEqual([]);
    }
  });

  it('there are examples for a new store and for several environments', () => {
    const folders = new Set(exampleFiles.map((file) => relative(examplesDir, file).split(sep)[0]));
    expect([...folders]).toEqual(expect.arrayContaining(['loja-nova', 'multi-ambiente']));
  });

  it('examples/loja-nova touches every kind and declares a policy', () => {
    const keys = new Set(
      exampleFiles
        .filter((file) => relative(examplesDir, file).startsWith(`loja-nova${sep}`))
        .flatMap((file) => Object.keys(parse(readFileSync(file, 'utf8')) as object)),
    );
    for (const definition of registry.kinds) expect(keys, definition.key).toContain(definition.key);
    expect(keys).toContain('policy');
  });

  let validate: ReturnType<typeof compilePublishedManifest> | undefined;
  for (const file of exampleFiles) {
    const name = relative(root, file);
    it(`${name} validates against schemas/manifest.schema.json (variables at their defaults) and points editors at it`, () => {
      const text = readFileSync(file, 'utf8');
      const schemaPath = relative(dirname(file), join(schemasDir, manifestSchemaFileName)).split(sep).join('/');
      expect(text.split('\n')[0]).toBe(`# yaml-language-server: $schema=${schemaPath}`);
      validate ??= compilePublishedManifest();
      validate(applyDefaults(parse(text)));
      expect(validate.errors ?? []).toEqual([]);
    });
  }
});
