/** A repeat of the stop signal sooner than this is the same request twice (see untilStopSignal). */
export const REPEAT_WINDOW_MS = 1000;

/**
 * Resolves on the first SIGINT or SIGTERM, which it reports on stderr: the program's graceful stop begins. The handlers stay
 * installed while it runs, because a signal with no handler kills a Node process outright, and then
 * no `exit` handler runs: an embedded nats-server (a process group of its own, see embedded-nats.ts)
 * was left running and holding its port. Call it first, before the program starts anything: a
 * signal while it starts then waits for the start to finish and stops it, where Node's default
 * would leave what was started so far behind.
 *
 * - Ctrl-C again, a second or more after the first, means "now": the process exits with 130 and its
 *   `exit` handlers stop what it started. Sooner, it is the same Ctrl-C twice: a terminal signals the
 *   whole foreground group and tsx also relays the signal to its child when the child is slow to say
 *   it got it (30 ms), so one keypress can arrive twice.
 * - SIGTERM while stopping (a supervisor after a Ctrl-C, npm run cluster signalling an engine that
 *   got the Ctrl-C too) leaves the graceful stop to finish.
 */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  const write = (line: string) => { process.stderr.write(`${line}\n`); };
  return new Promise((resolve) => {
    let since: number | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      if (since === undefined) {
        since = Date.now();
        // At once, even while the program still starts (its stop waits for that): silence read as ignored.
        write(`${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping gracefully (Ctrl-C again to exit at once)`);
        resolve(signal);
        return;
      }
      if (Date.now() - since < REPEAT_WINDOW_MS) return;
      if (signal !== 'SIGINT') {
        write(`${signal} while stopping: the graceful stop goes on (Ctrl-C again to exit at once)`);
        return;
      }
      write('Ctrl-C again: exiting now, without waiting for the graceful stop');
      process.exit(130);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
