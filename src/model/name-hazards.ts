// Names that look like other names. In the ERP's screens a Cyrillic `а` is a Latin `a`, and a
// zero-width space or a control character is nothing at all, so two records whose names differ
// only that way look identical while erpsync (rightly) treats them as two identities. These
// helpers find such characters, for a warning with their code points, and fold them away, for
// the near-duplicate check. They decide nothing: names stay exactly as written.
import { asciiOnly, normalizeName } from './names.js';

/** Letters of these scripts that look like Latin letters, folded to the Latin letter. */
const lookalikes: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', ё: 'ë', і: 'i', ї: 'ï', ј: 'j', к: 'k', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', ѕ: 's', ԁ: 'd', ԛ: 'q', ԝ: 'w', ӏ: 'l', һ: 'h',
  А: 'A', В: 'B', Е: 'E', І: 'I', Ј: 'J', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', У: 'Y', Х: 'X', Ѕ: 'S', Ү: 'Y', Ԛ: 'Q', Ԝ: 'W',
  // Greek
  Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X', ο: 'o', ν: 'v', ι: 'i', ρ: 'p', υ: 'u', κ: 'k', α: 'a',
};

/** Characters that show as nothing, or drive the terminal: controls (Cc) and format characters (Cf: zero-width, bidi). */
const invisible = /[\p{Cc}\p{Cf}]/gu;
const scripts = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
] as const;

export function codePointOf(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

export interface NameHazard {
  /** What is wrong, in words, with the code points: `invisible or control characters (U+200B)`. */
  description: string;
}

/** Words that mix letters of Latin, Cyrillic and Greek: the letters of the less used scripts. */
function mixedScriptLetters(name: string): string[] {
  const found: string[] = [];
  for (const word of name.split(/[^\p{L}\p{M}]+/u)) {
    const byScript = scripts.map(([, pattern]) => [...word].filter((c) => pattern.test(c)));
    const used = byScript.filter((letters) => letters.length > 0);
    if (used.length < 2) continue;
    const most = Math.max(...used.map((letters) => letters.length));
    const majority = byScript.findIndex((letters) => letters.length === most);
    byScript.forEach((letters, index) => {
      if (index !== majority) found.push(...letters);
    });
  }
  return found;
}

/** Printable ASCII: no control or format character, and every letter Latin. */
const printableAscii = /^[\x20-\x7e]*$/;
/** Below U+0370 (Latin, its accents, IPA) no letter is Cyrillic or Greek: no word can mix them.
 * (Astral characters match by their surrogates, which lie above U+0370.) */
const beyondLatin = /[\u0370-\uffff]/;

/** The hazards of one name: invisible or control characters, and words of mixed scripts. */
export function findNameHazards(name: string): NameHazard[] {
  if (printableAscii.test(name)) return [];
  const hazards: NameHazard[] = [];
  const hidden = [...new Set(name.match(invisible) ?? [])];
  if (hidden.length > 0) hazards.push({ description: `invisible or control characters (${hidden.map(codePointOf).join(', ')})` });
  const mixed = beyondLatin.test(name) ? [...new Set(mixedScriptLetters(name))] : [];
  if (mixed.length > 0) {
    const named = mixed.map((c) => `${codePointOf(c)} ${scripts.find(([, pattern]) => pattern.test(c))?.[0] ?? 'letter'}`);
    hazards.push({ description: `letters of another script among the others (${named.join(', ')}), which look like Latin letters` });
  }
  return hazards;
}

/**
 * The form in which names that look alike are equal: invisible characters dropped, compatibility
 * forms (full-width letters) and look-alike letters folded to Latin, accents and case ignored.
 */
export function foldLookalikeName(name: string): string {
  const visible = normalizeName(name).replace(invisible, '');
  // ASCII has no compatibility form, look-alike letter or decomposition to fold (some of its
  // marks, such as ^ and `, are diacritics all the same).
  const latin = asciiOnly.test(visible) ? visible : [...visible.normalize('NFKC')].map((c) => lookalikes[c] ?? c).join('').normalize('NFD');
  return latin.replace(/\p{Diacritic}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}
