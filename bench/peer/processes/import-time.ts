/**
 * Import time in a fresh process: imports one package (`youyou-agent`, the built package's root
 * entry, or `openai`) and prints `{ wallMs, cpuMs, resolved }` (the file imported) as one JSON line. Nothing else is loaded
 * before it, so the figure is what an app pays at start-up.
 *
 * Run: `node bench/.build/processes/import-time.js youyou-agent`
 * @module
 */
export {};

const specifier = process.argv[2];
if (!specifier) throw new Error('usage: import-time.js <package>');
const wall = performance.now();
const cpu = process.cpuUsage();
await import(specifier);
const used = process.cpuUsage(cpu);
const result = {
  wallMs: performance.now() - wall,
  cpuMs: (used.user + used.system) / 1000,
  resolved: import.meta.resolve(specifier),
};
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
