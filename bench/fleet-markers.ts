// Where `npm run bench:fleet` writes its section of bench/results.md; `npm run bench` keeps it.
// A case that `--only` runs alone has its own pair inside the section, so its block is found again.
export const fleetMarkers = ['<!-- fleet-bench:start -->', '<!-- fleet-bench:end -->'] as const;

export function caseMarkers(name: string): readonly [string, string] {
  return [`<!-- fleet-bench:${name}:start -->`, `<!-- fleet-bench:${name}:end -->`];
}
