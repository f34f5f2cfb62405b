// Loaded into a measured CLI process with `node --import`: when the process exits, writes its CPU
// time and peak memory to the file named by ERPSYNC_BENCH_USAGE, for the benchmark to read.
import { writeFileSync } from 'node:fs';

const target = process.env.ERPSYNC_BENCH_USAGE;
if (target) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    const usage = process.resourceUsage();
    writeFileSync(target, JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, maxRssKb: usage.maxRSS }));
  });
}
