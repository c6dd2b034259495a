import { choiceBudget, evaluateChoiceRule } from '../asl/choice-rules.js';
import { applyInputPath, applyOutputPath } from '../asl/data-flow.js';
import { AslError } from '../asl/errors.js';
import { unexpectedType } from '../asl/jsonata.js';
import type { ChoiceRule, ChoiceState } from '../asl/types.js';
import { goTo } from './graph-context.js';
import { evalField, isJsonata } from './query.js';
import { exitState, finishJsonata } from './state-flow.js';
import type { Step } from './step.js';
import { evaluateAssign } from './variables.js';

function noMatch(s: Step): never {
  throw new AslError('States.NoChoiceMatched', `No Matches! (state '${s.ctx.state!.Name}')`);
}

/** JSONata: the first rule whose Condition is true; the taken rule's Assign and Output (Default: the state's). */
function runJsonataChoice(s: Step, def: ChoiceState): void {
  const r = s.attempt(() => def.Choices.findIndex((c, i) => {
    const field = `Choices[${i}].Condition`;
    const v = evalField(s, c.Condition, field);
    if (typeof v !== 'boolean') throw unexpectedType(field, c.Condition, 'boolean', v);
    return v;
  }));
  if (!r.ok) {
    s.fail(r.fault);
    return;
  }
  const rule: ChoiceRule | undefined = r.value >= 0 ? def.Choices[r.value] : undefined;
  const next = rule?.Next ?? def.Default;
  if (next === undefined) {
    const f = s.attempt(() => noMatch(s));
    if (!f.ok) s.fail(f.fault);
    return;
  }
  if (finishJsonata(s, def, s.ctx.input, {}, rule ?? def)) s.ctx.go = goTo(next);
}

/**
 * Choice: InputPath, the first rule that matches (else Default, else States.NoChoiceMatched),
 * OutputPath; the taken rule's Assign (Default: the state's) reads the effective input as `$`.
 */
export function runChoice(s: Step, def: ChoiceState): void {
  if (isJsonata(def)) {
    runJsonataChoice(s, def);
    return;
  }
  const r = s.attempt(() => {
    const co = s.co();
    const effective = applyInputPath(s.ctx.input, def.InputPath, co);
    const budget = choiceBudget();
    const rule = def.Choices.find((c) => evaluateChoiceRule(c, effective, co, budget));
    const next = rule?.Next ?? def.Default;
    if (next === undefined) noMatch(s);
    const assigned = evaluateAssign(s, def, (rule ?? def).Assign, 'Assign', {}, effective);
    return { next, output: applyOutputPath(effective, def.OutputPath, co), assigned };
  });
  if (!r.ok) {
    s.fail(r.fault);
    return;
  }
  if (exitState(s, def, r.value.output, r.value.assigned)) s.ctx.go = goTo(r.value.next);
}

/** Every state a Choice may go to. */
export function choiceTargets(def: ChoiceState): string[] {
  const targets = def.Choices.map((c) => c.Next).filter((n): n is string => n !== undefined);
  if (def.Default !== undefined) targets.push(def.Default);
  return targets;
}
