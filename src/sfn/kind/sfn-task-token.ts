import { Fault } from '../../protocol/faults.js';
import type { TaskTokens } from '../../engine/task-token.js';

/** What a Step Functions task token names: one scheduling attempt of one Task state of one execution. */
export interface SfnTaskRef {
  executionArn: string;
  partition: number;
  /** The task key (`<actorId>#<n>`). */
  key: string;
}

/** Opaque to workers: sealed with the cluster's key like the SWF task token (domain/task-token.ts). */
export function encodeSfnTaskToken(tokens: TaskTokens, t: SfnTaskRef): string {
  return tokens.seal('sfn', [1, t.executionArn, t.partition, t.key]);
}

/** Reads a token; anything this cluster did not issue (garbage, rebuilt, altered) is InvalidToken. */
export function decodeSfnTaskToken(tokens: TaskTokens, token: string): SfnTaskRef {
  const o = tokens.open('sfn', token);
  const v = 'fields' in o ? o.fields : undefined;
  if (!v || v.length !== 4 || v[0] !== 1 || typeof v[1] !== 'string' || !Number.isInteger(v[2]) || typeof v[3] !== 'string') {
    throw new Fault('InvalidToken', 'Invalid Token');
  }
  return { executionArn: v[1], partition: v[2] as number, key: v[3] };
}
