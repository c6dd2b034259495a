/**
 * What is wrong with a States Language definition, in the form CreateStateMachine reports it:
 * `<CODE>: <message> at <JSON-pointer-like path>` (arrays as `Catch[0]`), several joined with `, `.
 */

/** One problem; `path` is `/`-rooted (`/States/P/Branches[0]/States/X/Next`), `''` when there is none. */
export interface DefinitionProblem {
  code: string;
  path: string;
  message: string;
}

/**
 * The error codes ValidateStateMachineDefinition documents that a definition can earn. AWS reports
 * an unreachable state as MISSING_TRANSITION_TARGET (`State "X" is not reachable.`).
 */
export type ProblemCode =
  | 'INVALID_JSON_DESCRIPTION' | 'MISSING_DESCRIPTION' | 'SCHEMA_VALIDATION_FAILED' | 'INVALID_RESOURCE'
  | 'MISSING_END_STATE' | 'DUPLICATE_STATE_NAME' | 'INVALID_STATE_NAME' | 'MISSING_TRANSITION_TARGET' | 'TOO_DEEPLY_NESTED'
  // JSONata states (not in the documented list; as ValidateStateMachineDefinition reports them).
  | 'INVALID_JSONATA_EXPRESSION' | 'UNSUPPORTED_JSONATA_EXPRESSION';

export function formatProblem(p: DefinitionProblem): string {
  return p.path === '' ? `${p.code}: ${p.message}` : `${p.code}: ${p.message} at ${p.path}`;
}

/** Thrown by parseDefinition; the service turns it into the `InvalidDefinition` wire fault. */
export class InvalidDefinitionError extends Error {
  override readonly name = 'InvalidDefinitionError';
  constructor(readonly problems: readonly DefinitionProblem[]) {
    super(`Invalid State Machine Definition: '${problems.map(formatProblem).join(', ')}'`);
  }
}

export function isInvalidDefinition(e: unknown): e is InvalidDefinitionError {
  return e instanceof InvalidDefinitionError;
}

/** Collects every problem found in one pass over a definition. */
export class Problems {
  readonly list: DefinitionProblem[] = [];

  add(code: ProblemCode, path: string, message: string): void {
    this.list.push({ code, path: path === '' ? '/' : path, message });
  }

  schema(path: string, message: string): void {
    this.add('SCHEMA_VALIDATION_FAILED', path, message);
  }

  get count(): number {
    return this.list.length;
  }
}

/** `/States/X` + `Next` → `/States/X/Next`; the root is `''`. */
export function at(path: string, key: string): string {
  return `${path}/${key}`;
}

/** `/States/X/Catch` + 0 → `/States/X/Catch[0]`. */
export function atIndex(path: string, i: number): string {
  return `${path}[${i}]`;
}
