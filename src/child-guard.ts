import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Sends `child` SIGTERM if this process dies with no exit handler run (SIGKILL, the OOM killer).
 * A child of its own process group (a nats-server that must outlive the engine's graceful stop)
 * was left running then, holding its port and store, and the next start failed. A `sh` guard, in
 * a group of its own too, waits on a pipe whose only writer is this process: EOF with no word first
 * means we died, and it signals the child (for nats-server a graceful stop that flushes JetStream).
 *
 * `afterSeconds` waits that long before the signal: `npm run cluster` gives its engines, signalled
 * at once, time to hand their partitions over through the servers before those stop.
 *
 * Returns `dismiss`, which sends the word: call it on every orderly path before this process exits.
 * The child's own exit dismisses the guard, so it never signals a pid that another process reuses.
 * Neither nats-server nor Node can follow a parent's death on their own; a second Node as the guard
 * would cost tens of MB. Without `sh` the child outlives a killed parent, as before.
 */
export function stopsWhenWeDie(child: ChildProcess, opts: { afterSeconds?: number } = {}): () => void {
  if (child.pid === undefined) return () => undefined;
  let guard: ChildProcess;
  try {
    const wait = Math.max(0, Math.floor(opts.afterSeconds ?? 0));
    const script = `read -r _ || { ${wait > 0 ? `sleep ${wait}; ` : ''}kill -TERM "$1" 2>/dev/null; }`;
    guard = spawn('sh', ['-c', script, 'actorflow-guard', String(child.pid)],
      { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  } catch {
    return () => undefined;
  }
  guard.on('error', () => undefined);
  guard.stdin!.on('error', () => undefined);
  // Neither the guard nor its pipe keeps this process alive.
  guard.unref();
  (guard.stdin as unknown as { unref?: () => void }).unref?.();
  let dismissed = false;
  const dismiss = () => {
    if (dismissed) return;
    dismissed = true;
    // A pipe write this small completes at once, even from an 'exit' handler.
    if (guard.exitCode === null && guard.stdin!.writable) guard.stdin!.end('stop\n');
  };
  child.once('exit', dismiss);
  return dismiss;
}
