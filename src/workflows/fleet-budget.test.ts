import { describe, expect, it } from 'vitest';
import { fleetWidth, UNPACED_FLEET_WIDTH } from './fleet-budget.js';

describe('fleet width', () => {
  it('follows the IP budget: stores at 2.9 req/s against 48 req/s run 25 at once, whatever the cap above that', () => {
    const rates = Array.from({ length: 100 }, () => 2.9);
    expect(fleetWidth(rates, 48)).toBe(25);
    expect(fleetWidth(rates, 48, 100)).toBe(25);
    expect(fleetWidth(rates, 48, 4)).toBe(4);
    // Stores that keep a reserve ask for less each: more of them fit the same budget.
    expect(fleetWidth(Array.from({ length: 100 }, () => 1.5), 48)).toBe(48);
  });

  it('never runs more stores than there are, nor fewer than one; unpaced stores run a few at a time', () => {
    expect(fleetWidth([2.9, 2.9], 48)).toBe(2);
    expect(fleetWidth([2.9], 0.1)).toBe(1);
    expect(fleetWidth(Array.from({ length: 10 }, () => Number.POSITIVE_INFINITY), 48)).toBe(UNPACED_FLEET_WIDTH);
    expect(fleetWidth([], 48)).toBe(1);
  });
});
