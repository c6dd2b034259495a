import { processIO, runCli } from './cli.js';

/** The `actorflow` command (bin/actorflow.js loads this file through tsx). */
// A closed pipe (`actorflow history … | head`) ends the output quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
const code = await runCli(process.argv.slice(2), processIO());
// Let stdout flush, then exit: serve and demo leave handles (timers, sockets) that need not linger.
process.stdout.write('', () => process.exit(code));
