// A mutation fuzzer for manifests: takes a valid manifest and breaks it the ways people and tools
// do — lines lost, duplicated or re-indented, stray YAML syntax, hostile scalars (huge numbers,
// control characters, unset or malformed variables, bidi marks, invalid UTF-8, look-alike letters
// of other scripts, zero-width characters), keys renamed, types swapped, records duplicated,
// references pointed nowhere or into cycles, and scalars replaced by variables whose values are
// YAML syntax or secrets (quoted or not, whole or inside text). Pure: the same seed and input
// always give the same bytes and the same environment.
import { parse, stringify } from 'yaml';
import type { Random } from './random.js';

const tokens = [
  ':', '- ', '{', '}', '[', ']', ',', '&a ', '*a', '!!binary ', '!tag ', '"', "'", '#', '|', '>', '? ', '<<: *a',
  '${', '${X', '${UNSET_VARIABLE}', '${1BAD}', '${NFSE_SENHA_PREFEITURA:-x}', '$${', '\t', '\u0000', '\uFEFF', '\u202E', '\r', '\u001b[31m',
  '%YAML 1.1\n', '---\n', '...\n', 'é', '🙂', ' > ', '\\', '\u00A0', '\n? [a, b]\n: ', '\n{ descricao: x }: ', '\n"": ', '\n: ',
];

const hostileScalars: unknown[] = [
  1e308, -1, 0, 3.14159, 1e-9, Number.MAX_SAFE_INTEGER + 2, '', ' ', 'x'.repeat(5000), 'Ünïcödé', '\u202Eevil', 'a > b', ' > ', 'two\nlines', '\u001b[2Jwipe',
  '${UNSET_VARIABLE}', '${NFSE_SENHA_PREFEITURA}', '${A:-${B}}', true, false, null, [], {}, ['x'], { nested: { deep: [1, { x: 2 }] } },
  '0x1F', '.nan', '.inf', '2024-01-01', '#ffffff', '#GGGGGG', 'padrao', 'pix-dinamico', 99, 17, 'ativa', 'inativa',
  // Look-alikes: Cyrillic а and о, Greek Ρ and ο, zero-width space and joiner, a soft hyphen, a bell.
  'M\u0430quiagem', 'R\u043eupas', '\u03a1\u03bfupas', 'Kits\u200b', 'Ma\u200dquiagem', 'Maqui\u00adagem', 'Sino\u0007',
];

/** Passwords as people type them: what the variables that feed secret fields hold. */
export const secretShapes = ['98765432', '@Segr3do!', '!x Segr3do', '[Segr3do', '"Segr3do', "'Segr3do", 'Segr3do #x', 'Segr3do: valor', 'linha1\nlinha2', '*Segr3do &a', '<Segr3do>&"x'];

/** Variable values that are YAML syntax, or read as another type, if anything parsed them as YAML. */
const yamlValues = ['@nome', '[1,2', '*x', '&a b', '!tag x', '{a: 1}', '"x', "'x", '# x', 'a: b', '- x', '|', '>', '%YAML', '---', 'true', 'null', '1e3', '0x1F', '17', '2.5', '', ' ', '${NESTED}', '$${x}', 'pix-dinamico', '#4a90e2'];

/** What the case's variables hold: drawn from YAML syntax and from the secret shapes (`${FUZZ_TEXT}` reads ERPSYNC_VAR_FUZZ_TEXT). */
export function pickVariableValues(random: Random): NodeJS.ProcessEnv {
  return {
    ERPSYNC_VAR_FUZZ_TEXT: random.pick([...yamlValues, ...secretShapes]),
    ERPSYNC_VAR_FUZZ_NUMBER: random.pick(['3', '2.5', '-1', '1e400', 'abc', '@1', '[1]', '']),
    NFSE_SENHA_PREFEITURA: random.pick(secretShapes),
  };
}

/** References a mutation puts where a scalar was: ordinary, secret and credential variables, quoted or not. */
const references = [
  '${FUZZ_TEXT}', '"${FUZZ_TEXT}"', "'${FUZZ_TEXT}'", 'x ${FUZZ_TEXT} y', '${FUZZ_NUMBER}', '"${FUZZ_NUMBER}"', '${FUZZ_TEXT:-@d}',
  '${NFSE_SENHA_PREFEITURA}', '"${NFSE_SENHA_PREFEITURA}"', '${BLING_CLIENT_SECRET}', '${BLING_ACCESS_TOKEN}', '$${FUZZ_TEXT}',
];

const keys = [
  'descricao', 'nome', 'tipoPagamento', 'finalidade', 'destino', 'padrao', 'situacao', 'categoriaPai', 'grupoProdutoPai', 'tipo',
  'grupoDRE', 'modulo', 'herdado', 'cor', 'servicos', 'codigo', 'freteItem', 'id', 'ensure', 'protect', 'previousNames', 'policy',
  'prune', 'maxDeletes', 'ignore', 'version', 'formasPagamento', 'gruposProduto', 'descrição', '', '<<', 'senha', 'ISS', 'tributos',
];

type Tree = unknown;

function lines(text: string): string[] {
  return text.split('\n');
}

/** A scalar becomes a variable: its value reaches the field as text, typed by the schema. */
function variableMutation(random: Random, text: string): string {
  const all = lines(text);
  const candidates = all.map((line, i) => [line, i] as const).filter(([line]) => line.includes(': '));
  if (candidates.length === 0) return text;
  const [line, at] = random.pick(candidates);
  all[at] = `${line.slice(0, line.indexOf(': ') + 2)}${random.pick(references)}`;
  return all.join('\n');
}

function textMutation(random: Random, text: string): string {
  const all = lines(text);
  const at = random.int(0, Math.max(0, all.length - 1));
  switch (random.int(0, 9)) {
    case 9:
      return variableMutation(random, text);
    case 0:
      all.splice(at, 1);
      return all.join('\n');
    case 1:
      all.splice(at, 0, all[at] ?? '');
      return all.join('\n');
    case 2: {
      const other = random.int(0, Math.max(0, all.length - 1));
      [all[at], all[other]] = [all[other] ?? '', all[at] ?? ''];
      return all.join('\n');
    }
    case 3: {
      const line = all[at] ?? '';
      all[at] = random.chance(0.5) ? `${random.pick([' ', '  ', '   ', '\t'])}${line}` : line.replace(/^ {1,3}/, '');
      return all.join('\n');
    }
    case 4: {
      const offset = random.int(0, text.length);
      return `${text.slice(0, offset)}${random.pick(tokens)}${text.slice(offset)}`;
    }
    case 5:
      return text.slice(0, random.int(0, text.length));
    case 6: {
      const line = all[at] ?? '';
      const colon = line.indexOf(': ');
      if (colon >= 0) all[at] = `${line.slice(0, colon + 2)}${String(random.pick(hostileScalars))}`;
      return all.join('\n');
    }
    case 7: {
      const line = all[at] ?? '';
      const key = /^(\s*-?\s*)([\w$À-ÿ]+):/.exec(line);
      if (key) all[at] = `${key[1] ?? ''}${random.pick(keys)}${line.slice(key[0].length - 1)}`;
      return all.join('\n');
    }
    default:
      all.splice(at, 0, `${' '.repeat(random.int(0, 6))}${random.pick(keys)}: ${String(random.pick(hostileScalars))}`);
      return all.join('\n');
  }
}

/** Every container in the tree with the path to it. */
function containers(tree: Tree, path: (string | number)[] = []): { node: Record<string, unknown> | unknown[]; path: (string | number)[] }[] {
  if (tree === null || typeof tree !== 'object') return [];
  const node = tree as Record<string, unknown> | unknown[];
  const entries = Array.isArray(node) ? node.map((v, i) => [i, v] as const) : Object.entries(node);
  return [{ node, path }, ...entries.flatMap(([k, v]) => containers(v, [...path, k]))];
}

function treeMutation(random: Random, tree: Tree): Tree {
  const all = containers(tree);
  if (all.length === 0) return random.pick(hostileScalars);
  const { node } = random.pick(all);
  const slots: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
  const slot = slots.length > 0 ? random.pick(slots) : undefined;
  const get = (k: string | number) => (node as Record<string | number, unknown>)[k];
  const set = (k: string | number, v: unknown) => {
    (node as Record<string | number, unknown>)[k] = v;
  };
  switch (random.int(0, 6)) {
    case 0:
      if (slot === undefined) return tree;
      if (Array.isArray(node)) node.splice(Number(slot), 1);
      else delete node[String(slot)];
      return tree;
    case 1:
      if (slot !== undefined) set(slot, random.pick(hostileScalars));
      return tree;
    case 2:
      // The same record twice (or a near copy): duplicates, near-duplicates, two defaults.
      if (Array.isArray(node) && slot !== undefined) node.push(structuredClone(get(slot)));
      return tree;
    case 3:
      if (!Array.isArray(node)) node[random.pick(keys)] = random.pick(hostileScalars);
      return tree;
    case 4: {
      // Point a reference at another record's name, possibly its own child: unknown parents and cycles.
      const names = containers(tree).flatMap(({ node: n }) => (!Array.isArray(n) && typeof (n.descricao ?? n.nome) === 'string' ? [String(n.descricao ?? n.nome)] : []));
      if (!Array.isArray(node) && names.length > 0) node[random.pick(['categoriaPai', 'grupoProdutoPai', 'herdado'])] = random.pick([...names, 'Não existe']);
      return tree;
    }
    case 5:
      if (slot !== undefined) {
        const value = get(slot);
        set(slot, Array.isArray(value) ? { ...value } : value !== null && typeof value === 'object' ? Object.values(value) : [value]);
      }
      return tree;
    default:
      return random.chance(0.5) ? [tree] : { version: 1, wrapped: tree };
  }
}

/** One fuzz case: 1–3 mutations of `source`, each on the text or on the parsed tree. */
export function mutateManifest(random: Random, source: string): Buffer {
  let text = source;
  for (let round = random.int(1, 3); round > 0; round -= 1) {
    if (random.chance(0.4)) {
      let tree: Tree;
      try {
        tree = parse(text, { maxAliasCount: 200, logLevel: 'error' });
      } catch {
        text = textMutation(random, text);
        continue;
      }
      text = stringify(treeMutation(random, tree ?? {}), { aliasDuplicateObjects: false });
    } else {
      text = textMutation(random, text);
    }
  }
  // The variable family on its own, often: a value of YAML syntax or a secret in an otherwise valid file.
  if (random.chance(0.2)) text = variableMutation(random, text);
  const bytes = Buffer.from(text, 'utf8');
  // Now and then, bytes that are not UTF-8 at all.
  if (random.chance(0.05) && bytes.length > 0) bytes[random.int(0, bytes.length - 1)] = random.pick([0xff, 0xc3, 0x80, 0xfe]);
  return bytes;
}
