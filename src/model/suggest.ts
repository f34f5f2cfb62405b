// "Did you mean …?" for misspelt keys and labels, and for names of records a manifest refers to
// (the planner lists close matches when a name is unknown or ambiguous). Pure.

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = previous[0] ?? 0;
    previous[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = previous[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, (previous[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length] ?? 0;
}

/** Case and accents ignored: people type `Prestacao` for `Prestação`. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase();
}

/** How far a candidate is from the input, when it is close enough to be a likely typo. */
function closeness(needle: string, candidate: string): number | undefined {
  // Lengths bound the distance from below: most candidates are ruled out before folding (an
  // offline check compares each undeclared name with every declared one). Folding keeps the
  // length of composed Latin text, but not always (a lower-cased İ grows), hence the slack.
  if (Math.abs(candidate.length - needle.length) > Math.max(2, Math.floor(Math.max(needle.length, candidate.length) / 3)) + 1) return undefined;
  const folded = fold(candidate);
  const distance = editDistance(needle, folded);
  const allowed = Math.max(2, Math.floor(Math.max(needle.length, folded.length) / 3));
  return distance <= allowed ? distance : undefined;
}

/** The closest candidate, if it is close enough to be a likely typo. */
export function suggestClosest(input: string, candidates: Iterable<string>): string | undefined {
  return suggestClose(input, candidates, 1)[0];
}

/** Up to `limit` candidates close to the input, the closest first (ties in the candidates' order). */
export function suggestClose(input: string, candidates: Iterable<string>, limit = 3): string[] {
  const needle = fold(input);
  const scored: { candidate: string; distance: number; index: number }[] = [];
  let index = 0;
  for (const candidate of new Set(candidates)) {
    const distance = closeness(needle, candidate);
    if (distance !== undefined) scored.push({ candidate, distance, index });
    index += 1;
  }
  scored.sort((a, b) => a.distance - b.distance || a.index - b.index);
  return scored.slice(0, limit).map((s) => s.candidate);
}

/** The hint for names close to an unknown one (`did you mean \`A\`, \`B\`?`); undefined when none is. */
export function didYouMean(suggestions: readonly string[]): string | undefined {
  return suggestions.length > 0 ? `did you mean ${suggestions.map((s) => `\`${s}\``).join(', ')}?` : undefined;
}
