import { choiceBudget, evaluateChoiceRule } from '../asl/choice-rules.js';
import { applyInputPath, applyOutputPath } from '../asl/data-flow.js';
import { AslError } from '../asl/errors.js';
import type { ChoiceState } from '../asl/types.js';
import { goTo } from './graph-context.js';
import { exitState } from './state-flow.js';
import type { Step } from './step.js';

/** Choice: InputPath, the first rule that matches (else Default, else States.NoChoiceMatched), OutputPath. */
export function runChoice(s: Step, def: ChoiceState): void {
  const r = s.attempt(() => {
    const co = s.co();
    const effective = applyInputPath(s.ctx.input, def.InputPath, co);
    const budget = choiceBudget();
    const rule = def.Choices.find((c) => evaluateChoiceRule(c, effective, co, budget));
    const next = rule?.Next ?? def.Default;
    if (next === undefined) {
      throw new AslError('States.NoChoiceMatched', `No Matches! (state '${s.ctx.state!.Name}')`);
    }
    return { next, output: applyOutputPath(effective, def.OutputPath, co) };
  });
  if (!r.ok) {
    s.fail(r.fault);
    return;
  }
  if (exitState(s, def, r.value.output)) s.ctx.go = goTo(r.value.next);
}

/** Every state a Choice may go to. */
export function choiceTargets(def: ChoiceState): string[] {
  const targets = def.Choices.map((c) => c.Next).filter((n): n is string => n !== undefined);
  if (def.Default !== undefined) targets.push(def.Default);
  return targets;
}
