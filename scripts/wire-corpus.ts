/**
 * Turns answers recorded with AF_WIRE_RECORD (test/helpers/wire-recorder.ts) into the corpus that
 * test/integration/wire-shapes.test.ts checks against the AWS model: of every answer it keeps the
 * first one that shows a new shape fact (member path, type, event type), so the file stays small.
 *
 *   rm -f /tmp/wire.jsonl
 *   AF_WIRE_RECORD=/tmp/wire.jsonl npx vitest run test/integration/<suites>.test.ts
 *   npx tsx scripts/wire-corpus.ts /tmp/wire.jsonl [more.jsonl…] > test/fixtures/wire-corpus.jsonl
 */
import { readFileSync } from 'node:fs';
import { shapeFacts } from '../test/helpers/wire-shapes.js';
import type { WireAnswer } from '../test/helpers/wire-recorder.js';

const seen = new Set<string>();
const out: string[] = [];
for (const file of process.argv.slice(2)) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const a = JSON.parse(line) as WireAnswer;
    const facts = [...shapeFacts(`${a.api}:${a.action}`, JSON.parse(a.body) as unknown)].filter((f) => !seen.has(f));
    if (facts.length === 0) continue;
    for (const f of facts) seen.add(f);
    out.push(JSON.stringify(a));
  }
}
process.stdout.write(out.length ? `${out.join('\n')}\n` : '');
process.stderr.write(`${out.length} answers, ${seen.size} shape facts\n`);
