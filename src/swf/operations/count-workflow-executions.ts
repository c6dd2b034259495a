import { InputReader } from '../../protocol/validate.js';
import type { ServiceContext } from '../../service/context.js';
import { visibilityQuery } from './list-workflow-executions.js';

/** Count{Open,Closed}WorkflowExecutions: the same filters as the List calls; counts are exact. */
async function countExecutions(ctx: ServiceContext, input: unknown, open: boolean): Promise<object> {
  const q = await visibilityQuery(ctx, InputReader.of(input), open);
  return { count: ctx.visibility.count(q), truncated: false };
}

export const countOpenWorkflowExecutions = (ctx: ServiceContext, input: unknown) => countExecutions(ctx, input, true);
export const countClosedWorkflowExecutions = (ctx: ServiceContext, input: unknown) => countExecutions(ctx, input, false);
