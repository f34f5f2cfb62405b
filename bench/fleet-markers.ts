// Where `npm run bench:fleet` writes its section of bench/results.md; `npm run bench` keeps it.
export const fleetMarkers = ['<!-- fleet-bench:start -->', '<!-- fleet-bench:end -->'] as const;
