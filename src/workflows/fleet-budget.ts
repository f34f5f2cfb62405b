// How many stores of a fleet run at once: as many as the process's request budget keeps busy.
// Every paced store asks for its own rate (the account's 3 req/s less its reserve); together the
// stores in flight ask for a little more than the governor lets through per IP, so the budget
// never idles while a store waits on its own account, and more would only queue at the governor.
// `--parallel` caps the width; it can no longer widen the IP's budget (the governor holds it).
// Unpaced stores (the sandbox) have no budget to follow: they run a few at a time, CPU-bound.

/** Stores in flight ask for this multiple of the IP budget: a store also parses, plans and waits on answers. */
const OVERSUBSCRIBE = 1.5;
/** The width for stores that are not paced (the embedded sandbox): bound by the CPU, not a budget. */
export const UNPACED_FLEET_WIDTH = 4;

export function fleetWidth(storeRates: readonly number[], ipRate: number, cap?: number): number {
  const paced = storeRates.filter((rate) => Number.isFinite(rate) && rate > 0);
  const byBudget = paced.length === 0 ? UNPACED_FLEET_WIDTH : Math.ceil((OVERSUBSCRIBE * ipRate * paced.length) / paced.reduce((sum, rate) => sum + rate, 0));
  return Math.max(1, Math.min(cap ?? Number.POSITIVE_INFINITY, byBudget, Math.max(1, storeRates.length)));
}
