import { parentPort } from 'node:worker_threads';
import { InvalidDefinitionError, parseDefinition } from '../asl/validate-definition.js';
import type { ParseReply, ParseRequest } from './definition-parser.js';

/* The thread that parses large definitions for definition-parser.ts (see there). */
parentPort!.on('message', ({ id, text }: ParseRequest) => {
  let reply: ParseReply;
  try {
    parseDefinition(text);
    reply = { id, valid: true };
  } catch (e) {
    reply = e instanceof InvalidDefinitionError ? { id, problems: e.problems } : { id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply);
});
