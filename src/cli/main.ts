import { processIO, runCli } from './cli.js';

/** The `actorflow` command (bin/actorflow.js runs this file, compiled from dist/ or through tsx in a checkout). */
// A closed pipe (`actorflow history … | head`) ends the output quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
const code = await runCli(process.argv.slice(2), processIO());
// Let stdout flush, then exit: serve and demo leave handles (timers, sockets) that need not linger.
process.stdout.write('', () => process.exit(code));
