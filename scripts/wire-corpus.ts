/**
 * Turns answers recorded with AF_WIRE_RECORD (test/helpers/wire-recorder.ts) into the corpus that
 * test/integration/wire-shapes.test.ts checks against the AWS model: it keeps, smallest first, each
 * answer that shows a new shape fact (member path, type, event type), so the file stays small.
 *
 *   rm -f /tmp/wire.jsonl
 *   AF_WIRE_RECORD=/tmp/wire.jsonl npx vitest run test/integration/<suites>.test.ts
 *   npx tsx scripts/wire-corpus.ts /tmp/wire.jsonl [more.jsonl…] > test/fixtures/wire-corpus.jsonl
 */
import { readFileSync } from 'node:fs';
import { shapeFacts } from '../test/helpers/wire-shapes.js';
import type { WireAnswer } from '../test/helpers/wire-recorder.js';

const answers = process.argv.slice(2)
  .flatMap((file) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as WireAnswer))
  // Smallest first: a short answer that shows a fact is kept rather than a long one showing it too.
  .sort((a, b) => a.body.length - b.body.length);
const seen = new Set<string>();
const out: string[] = [];
for (const a of answers) {
  const facts = [...shapeFacts(`${a.api}:${a.action}`, JSON.parse(a.body) as unknown)].filter((f) => !seen.has(f));
  if (facts.length === 0) continue;
  for (const f of facts) seen.add(f);
  out.push(JSON.stringify(a));
}
process.stdout.write(out.length ? `${out.join('\n')}\n` : '');
process.stderr.write(`${out.length} answers, ${seen.size} shape facts\n`);
