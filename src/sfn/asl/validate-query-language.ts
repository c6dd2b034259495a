import { at, type Problems } from './definition-problems.js';
import type { Obj } from './validate-values.js';

/**
 * `QueryLanguage` at the top level and per state, and which fields belong to which language.
 * AWS's rules, as ValidateStateMachineDefinition reports them:
 * - a value outside the enum is reported at the field; the language it resolves to is JSONPath
 *   only for the exact string `JSONPath` (absent: inherited), anything else is JSONata;
 * - a state without its own QueryLanguage inherits the state machine's, not the enclosing
 *   Parallel's or Map's (a branch or ItemProcessor carries no QueryLanguage of its own);
 * - a JSONPath state may not sit in a JSONata machine (`'QueryLanguage' can not be 'JSONPath' …`),
 *   and that is the whole answer for the state: its fields are not checked against a language;
 * - a field of the other language is refused at the state, not at the field.
 */

export type QueryLanguage = 'JSONPath' | 'JSONata';

const LANGUAGES: readonly QueryLanguage[] = ['JSONPath', 'JSONata'];

/** The language a `QueryLanguage` member selects; `inherited` when it is absent. */
export function resolveQueryLanguage(value: unknown, inherited: QueryLanguage): QueryLanguage {
  if (value === undefined) return inherited;
  return value === 'JSONPath' ? 'JSONPath' : 'JSONata';
}

/** The language of the whole machine (a definition's top level). */
export function machineQueryLanguage(definition: Obj): QueryLanguage {
  return resolveQueryLanguage(definition.QueryLanguage, 'JSONPath');
}

/** The language one state runs in, given the machine's. */
export function stateQueryLanguage(machine: QueryLanguage, state: Obj): QueryLanguage {
  return resolveQueryLanguage(state.QueryLanguage, machine);
}

/** The value of a `QueryLanguage` member at `path` (the top level or a state). */
export function queryLanguageValue(p: Problems, path: string, obj: Obj): void {
  const v = obj.QueryLanguage;
  if (v === undefined || (LANGUAGES as readonly unknown[]).includes(v)) return;
  p.schema(at(path, 'QueryLanguage'), typeof v === 'string' ? 'Value should be one of the following: [JSONPath, JSONata]' : 'Expected value of type [STRING]');
}

export const DOWNGRADE = "'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine";

/** `The QueryLanguage is set to 'JSONata', but field 'InputPath' is only supported for the 'JSONPath' QueryLanguage`. */
export function otherLanguageField(language: QueryLanguage, field: string): string {
  const other = language === 'JSONata' ? 'JSONPath' : 'JSONata';
  return `The QueryLanguage is set to '${language}', but field '${field}' is only supported for the '${other}' QueryLanguage`;
}

/** The fields of each language on one object (a state, a catcher, a Choice rule). */
export interface LanguageFields {
  JSONPath: ReadonlySet<string>;
  JSONata: ReadonlySet<string>;
}

/**
 * Refuses the fields of `obj` that belong to the language it does not run in, at `path`.
 * Returns false when `obj` is a state downgraded to JSONPath in a JSONata machine (reported
 * here, once): its fields are then not checked against a language.
 */
export function languageFields(p: Problems, path: string, obj: Obj, language: QueryLanguage, fields: LanguageFields, machine?: QueryLanguage): boolean {
  if (machine === 'JSONata' && obj.QueryLanguage === 'JSONPath') {
    p.schema(path, DOWNGRADE);
    return false;
  }
  const other = fields[language === 'JSONata' ? 'JSONPath' : 'JSONata'];
  for (const key of Object.keys(obj)) {
    if (other.has(key)) p.schema(path, otherLanguageField(language, key));
  }
  return true;
}
