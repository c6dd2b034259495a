/**
 * Workflow variables as JSONPath states name them: `$name` or `$name.field[0]` wherever a path is
 * accepted (except ResultPath), and as arguments of intrinsic functions. A variable reference is
 * well formed when its name is a variable name and the rest is a JSONPath tail, so checking it is
 * checking `$` + tail.
 */

/** AWS's limit on a variable name's length (in characters). */
export const MAX_VARIABLE_NAME = 80;

/** The one name no Assign may use (`$states` is the reserved variable of JSONata states). */
export const RESERVED_VARIABLE = 'states';

const NAME = /^[\p{ID_Start}][\p{ID_Continue}]*$/u;
const REFERENCE = /^\$([\p{ID_Start}][\p{ID_Continue}]*)/u;

/** A Unicode identifier (UAX #31: ID_Start, then ID_Continue) of at most 80 characters. */
export function isVariableName(name: string): boolean {
  return NAME.test(name) && [...name].length <= MAX_VARIABLE_NAME;
}

/** What is wrong with an assigned variable name, or undefined. */
export function variableNameProblem(name: string): string | undefined {
  if (name === RESERVED_VARIABLE) return `The variable name '${name}' is reserved`;
  if (isVariableName(name)) return undefined;
  return `The variable name '${name}' is not valid: it must start with a Unicode ID_Start character, continue with ID_Continue characters and be at most ${MAX_VARIABLE_NAME} characters long`;
}

/** `$order.items[0]` → `$.items[0]`; a path that does not start with a variable comes back unchanged. */
export function withoutVariableRoot(path: string): string {
  const m = REFERENCE.exec(path);
  return m === null ? path : `$${path.slice(m[0].length)}`;
}

/** The variable a path starts with (`$order.items` → `order`), or undefined. */
export function variableOf(path: string): string | undefined {
  return REFERENCE.exec(path)?.[1];
}

/**
 * An intrinsic call with every variable argument rewritten to a `$` path
 * (`States.Format('{}', $x.a)` → `States.Format('{}', $.a)`), quoted strings left alone, so the
 * intrinsic parser can judge its shape.
 */
export function intrinsicWithoutVariables(expr: string): string {
  let out = '';
  for (let i = 0; i < expr.length; i += 1) {
    const ch = expr[i]!;
    if (ch === "'") {
      const end = closingQuote(expr, i);
      out += expr.slice(i, end + 1);
      i = end;
    } else if (ch === '$') {
      const m = REFERENCE.exec(expr.slice(i));
      out += '$';
      if (m !== null) i += m[0].length - 1;
    } else {
      out += ch;
    }
  }
  return out;
}

/** The index of the quote closing the string that opens at `start` (or the last index when it is unclosed). */
function closingQuote(s: string, start: number): number {
  for (let i = start + 1; i < s.length; i += 1) {
    if (s[i] === '\\') i += 1;
    else if (s[i] === "'") return i;
  }
  return s.length - 1;
}
