import { describe, expect, it } from 'vitest';
import { concurrencyGroupName, concurrencyGroupOf, MAX_MATRIX_JOBS, namesOfShard, parseShard, shardCountFor, shardsByGroup } from './fleet-shards.js';

describe('fleet shards', () => {
  it('cuts 1,000 targets into at most 256 shards, every target in exactly one', () => {
    const names = Array.from({ length: 1_000 }, (_, i) => `loja-${i}`);
    const count = shardCountFor(names.length);
    expect(count).toBeLessThanOrEqual(MAX_MATRIX_JOBS);
    const seen = Array.from({ length: count }, (_, i) => namesOfShard(names, { index: i + 1, count })).flat();
    expect(seen).toEqual(names);
    expect(new Set(Array.from({ length: count }, (_, i) => namesOfShard(names, { index: i + 1, count }).length))).toEqual(new Set([4]));
  });

  it('keeps one target a job while they fit, and uneven cuts differ by one at most', () => {
    expect(shardCountFor(256)).toBe(256);
    expect(shardCountFor(257)).toBe(129);
    expect(shardCountFor(0)).toBe(1);
    const sizes = [1, 2, 3].map((index) => namesOfShard(['a', 'b', 'c', 'd', 'e', 'f', 'g'], { index, count: 3 }).length);
    expect(sizes).toEqual([2, 2, 3]);
  });

  it('reads I/N and refuses anything else', () => {
    expect(parseShard('3/8')).toEqual({ index: 3, count: 8 });
    for (const bad of ['0/8', '9/8', '3', 'a/b', '1/0']) expect(() => parseShard(bad)).toThrow(/--shard takes I\/N/);
  });

  it('puts a target in a concurrency group by its name alone: fixed, spread, and the shard of that group', () => {
    const names = Array.from({ length: 1_000 }, (_, i) => `lojas/loja-${i}`);
    const groups = 64;
    const before = new Map(names.map((name) => [name, concurrencyGroupOf(name, groups)]));
    // Hashed, not counted: the same in any company of targets, and every group used about equally.
    expect(concurrencyGroupOf('lojas/loja-7', groups)).toBe(before.get('lojas/loja-7'));
    const sizes = Array.from({ length: groups }, (_, g) => names.filter((name) => before.get(name) === g + 1).length);
    expect(Math.min(...sizes)).toBeGreaterThan(5);
    expect(Math.max(...sizes)).toBeLessThan(30);
    // Shard I of N with N groups is exactly group I; every target in one shard.
    const shards = shardsByGroup(names, groups, groups);
    expect(shards.flat().sort()).toEqual([...names].sort());
    shards.forEach((shard, i) => expect(shard.every((name) => before.get(name) === i + 1)).toBe(true));
    expect(namesOfShard(names, { index: 7, count: groups }, groups)).toEqual(shards[6]);
    expect([concurrencyGroupName(7, 16), concurrencyGroupName(7, 8), concurrencyGroupName(42, 1000)]).toEqual(['erpsync-07', 'erpsync-07', 'erpsync-0042']);
  });
});
