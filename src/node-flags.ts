/**
 * Node flags every launcher of an engine process passes: `npm start`, `npm run serve` and `npm run
 * demo` (package.json), `npm run cluster` (scripts/cluster.ts), `actorflow` (the bin's shebang) and
 * the test and benchmark helpers that spawn an engine. V8 reads them only when the process starts,
 * so they cannot be set from inside it; to start an engine some other way, pass them to node or in
 * NODE_OPTIONS.
 *
 * `--max-semi-space-size=64`: a young generation of 64 MB semi-spaces instead of V8's 16 MB. An
 * engine allocates about 1.6 MB per order workflow (a sampling heap profile), nearly all of it dead
 * within the workflow's life; with the default a scavenge ran about every 10 workflows and copied
 * the live objects of every workflow in flight each time. Measured at 200 in flight
 * (`npm run bench`'s workload, three alternating pairs): minor-GC pause per workflow 0.66–0.76 →
 * 0.38–0.42 ms, engine CPU per workflow 0.81–0.97×, resident memory under that load 260 → 350 MB.
 */
export const ENGINE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
