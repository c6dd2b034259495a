import fc from 'fast-check';
import { INTRINSIC_ARITY } from '../../src/sfn/asl/intrinsics.js';

/**
 * fast-check arbitraries of Step Functions definitions (Pass, Choice, Wait, Succeed, Fail, Parallel,
 * Map; random paths, Parameters with intrinsics, Retry/Catch) and of inputs (deep and wide JSON
 * among them). Most definitions are valid, some are not: a property either sees InvalidDefinition
 * or a run that ends.
 */

export interface DefinitionOptions {
  /** Most seconds a Wait state waits (a real engine waits them for real). */
  maxWaitSeconds: number;
  /** Most states per graph. */
  maxStates: number;
}

/** Paths that match something in most inputs executionInput() makes… */
const PRESENT = [
  '$', '$.a', '$.b', '$.n', '$.s', '$.list', '$.list[*]', '$.list[0:2]', '$.list[::2]', '$.list[?(@.n > 1)]', '$.list[?(@.n)]',
  "$['a']", '$.*', '$..n', '$.deep', '$.wide', '$.wide[*]', '$$.Execution.Name', '$$.State.Name',
];
/** …and paths that often match nothing, or too much. */
const RISKY = ['$.a.b', '$.list[0]', '$.list[-1]', '$..*', '$..*..*', '$..*..*..*..*', '$.deep..*', '$.wide[?(@ == 1)]', '$.missing', '$$.Map.Item.Value'];
const PATHS = [...PRESENT, ...RISKY];
const BAD_PATHS = ['$[', 'a.b', '$.', '$..', '$[?(@.a ==)]', '', '$.list[0:1:0]'];
const REFERENCE_PATHS = ['$', '$.a', '$.r', '$.a.r', '$.list[0]', '$.n'];
const ERRORS = ['States.Runtime', 'States.IntrinsicFailure', 'States.ParameterPathFailure', 'States.TaskFailed', 'Custom'];

// Now and then a bad path, so that some definitions are refused.
const path = fc.oneof(
  { weight: 60, arbitrary: fc.constantFrom(...PRESENT) }, { weight: 12, arbitrary: fc.constantFrom(...RISKY) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_PATHS) },
);
const optionalPath = fc.option(path, { nil: undefined, freq: 8 });

const literal = fc.oneof(
  fc.integer({ min: -3, max: 12 }).map(String),
  fc.constantFrom("'x'", "'a,b'", "','", "'{}-{}'", "'{\"k\": [1, 2]}'", "'[[[]]]'", 'true', 'null', "'SHA-256'", "'MD5'",
    '3000000000', '-2147483648', '2147483647', '1.5', "'RGF0YQ=='", "''"),
);

/** An intrinsic call, nested up to `depth` more calls. */
function intrinsic(depth: number): fc.Arbitrary<string> {
  const arg: fc.Arbitrary<string> = depth > 0
    ? fc.oneof({ weight: 3, arbitrary: literal }, { weight: 3, arbitrary: fc.constantFrom(...PATHS) }, { weight: 1, arbitrary: fc.constantFrom('').chain(() => intrinsic(depth - 1)) })
    : fc.oneof(literal, fc.constantFrom(...PATHS));
  const names = Object.keys(INTRINSIC_ARITY) as (keyof typeof INTRINSIC_ARITY)[];
  return fc.constantFrom(...names).chain((name) => {
    const [min, max] = INTRINSIC_ARITY[name];
    return fc.integer({ min, max: Math.min(max, min + 3) }).chain((k) => fc.array(arg, { minLength: k, maxLength: k }))
      .map((args) => `${name}(${args.join(', ')})`);
  });
}

const dynamicValue = fc.oneof({ weight: 2, arbitrary: path }, { weight: 3, arbitrary: intrinsic(2) });

/** A payload template: static members, `key.$` members, a nested object. */
function template(depth = 1): fc.Arbitrary<Record<string, unknown>> {
  const member = fc.tuple(fc.constantFrom('k', 'v', 'w', 'list'), fc.oneof(
    dynamicValue.map((v) => ({ dynamic: v })),
    fc.jsonValue({ maxDepth: 2 }).map((v) => ({ fixed: v })),
    ...(depth > 0 ? [fc.constantFrom('').chain(() => template(depth - 1)).map((v) => ({ fixed: v as unknown }))] : []),
  ));
  return fc.array(member, { minLength: 1, maxLength: 4 }).map((members) => {
    const out: Record<string, unknown> = {};
    members.forEach(([key, m], i) => {
      if ('dynamic' in m) out[`${key}${i}.$`] = m.dynamic;
      else out[`${key}${i}`] = m.fixed;
    });
    return out;
  });
}

const comparison = fc.oneof(
  fc.record({ Variable: path, StringEquals: fc.constantFrom('x', 'a,b', '') }),
  fc.record({ Variable: path, StringMatches: fc.constantFrom('*', 'a*', '*a*b*', '\\*', `${'*a'.repeat(20)}*`) }),
  fc.record({ Variable: path, NumericGreaterThan: fc.integer({ min: -2, max: 5 }) }),
  fc.record({ Variable: path, NumericLessThanEqualsPath: path }),
  fc.record({ Variable: path, BooleanEquals: fc.boolean() }),
  fc.record({ Variable: path, TimestampLessThan: fc.constant('2024-01-01T00:00:00Z') }),
  fc.record({ Variable: path, IsPresent: fc.boolean() }),
  fc.record({ Variable: path, IsNull: fc.boolean() }),
  fc.record({ Variable: path, IsNumeric: fc.boolean() }),
);

function rule(depth: number): fc.Arbitrary<Record<string, unknown>> {
  if (depth === 0) return comparison;
  const sub = fc.constantFrom('').chain(() => rule(depth - 1));
  return fc.oneof(
    { weight: 3, arbitrary: comparison },
    { weight: 1, arbitrary: fc.array(sub, { minLength: 1, maxLength: 3 }).map((And) => ({ And })) },
    { weight: 1, arbitrary: fc.array(sub, { minLength: 1, maxLength: 3 }).map((Or) => ({ Or })) },
    { weight: 1, arbitrary: sub.map((Not) => ({ Not })) },
  );
}

/** Retriers or catchers: named errors, then maybe one for States.ALL (which must come alone and last). */
function handlers<T extends object>(one: fc.Arbitrary<T>): fc.Arbitrary<(T & { ErrorEquals: string[] })[]> {
  const named = fc.array(fc.tuple(fc.subarray(ERRORS, { minLength: 1, maxLength: 2 }), one).map(([ErrorEquals, h]) => ({ ...h, ErrorEquals })), { maxLength: 2 });
  return fc.tuple(named, fc.option(one, { nil: undefined })).map(([list, all]) => (all === undefined ? list : [...list, { ...all, ErrorEquals: ['States.ALL'] }]));
}

const retry = handlers(fc.record({
  MaxAttempts: fc.integer({ min: 0, max: 2 }),
  IntervalSeconds: fc.integer({ min: 1, max: 2 }),
  BackoffRate: fc.constantFrom(1, 1.5, 2),
}));

type State = Record<string, unknown>;

/** The fields every state may carry (InputPath, OutputPath) and the ResultPath of those that have one. */
const io = fc.record({ InputPath: optionalPath, OutputPath: optionalPath }, { requiredKeys: [] });
const resultPath = fc.option(fc.oneof(fc.constantFrom(...REFERENCE_PATHS), fc.constant(null)), { nil: undefined, freq: 2 });

/**
 * One graph with states `${prefix}0…`: state i goes on to i+1 (the last ends), Choice rules, Catch
 * and Default may jump anywhere in the graph (loops included); Parallel and Map nest `depth` more.
 */
export function graph(opts: DefinitionOptions, prefix = 'S', depth = 2): fc.Arbitrary<{ StartAt: string; States: Record<string, State> }> {
  return fc.integer({ min: 1, max: opts.maxStates }).chain((n) => {
    const names = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const anyName = fc.constantFrom(...names);
    const states = names.map((name, i) => stateAt(opts, name, i === n - 1 ? undefined : names[i + 1]!, anyName, depth));
    return fc.tuple(...states).map((list) => ({ StartAt: names[0]!, States: Object.fromEntries(list.map((s, i) => [names[i]!, s])) }));
  });
}

function flow(next: string | undefined): State {
  return next === undefined ? { End: true } : { Next: next };
}

function clean(s: State): State {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined));
}

function stateAt(opts: DefinitionOptions, name: string, next: string | undefined, anyName: fc.Arbitrary<string>, depth: number): fc.Arbitrary<State> {
  const catchers = handlers(fc.record({ Next: anyName, ResultPath: resultPath }, { requiredKeys: ['Next'] }));
  const kinds: fc.Arbitrary<State>[] = [
    fc.record({ io, Parameters: fc.option(template(), { nil: undefined }), Result: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined, freq: 4 }), ResultPath: resultPath })
      .map(({ io: x, ...rest }) => clean({ Type: 'Pass', ...x, ...rest, ...flow(next) })),
    fc.record({ io, wait: fc.oneof(
      fc.integer({ min: 0, max: opts.maxWaitSeconds }).map((Seconds) => ({ Seconds })),
      fc.constantFrom('$.n', '$.missing', '$.s').map((SecondsPath) => ({ SecondsPath })),
      fc.constantFrom('2023-12-31T23:59:59Z', '2024-01-01T00:00:01Z').map((Timestamp) => ({ Timestamp })),
    ) }).map(({ io: x, wait }) => clean({ Type: 'Wait', ...x, ...wait, ...flow(next) })),
  ];
  if (next !== undefined) {
    kinds.push(fc.record({ rules: fc.array(fc.tuple(rule(2), anyName), { minLength: 1, maxLength: 3 }), io })
      .map(({ rules, io: x }) => clean({ Type: 'Choice', ...x, Choices: rules.map(([r, to]) => ({ ...r, Next: to })), Default: next })));
  } else {
    kinds.push(
      fc.record({ io }).map(({ io: x }) => clean({ Type: 'Succeed', ...x })),
      fc.record({ Error: fc.option(fc.constantFrom('Boom', 'States.Custom'), { nil: undefined }), CausePath: fc.option(fc.constantFrom('$.s', '$.missing'), { nil: undefined }) })
        .map((f) => clean({ Type: 'Fail', ...f })),
    );
  }
  // Succeed and Fail only last (a state after them would be unreachable), Choice never last (it does not end).
  if (depth > 0) {
    kinds.push(fc.record({
      Branches: fc.array(fc.constantFrom('').chain(() => graph(opts, `${name}b`, depth - 1)), { minLength: 1, maxLength: 3 }),
      Parameters: fc.option(template(), { nil: undefined }), ResultSelector: fc.option(template(0), { nil: undefined, freq: 3 }),
      ResultPath: resultPath, Retry: retry, Catch: catchers, io,
    }).map(({ Branches, io: x, ...rest }) => clean({
      Type: 'Parallel', ...x, ...rest, ...flow(next),
      // Each branch's names must be unique machine-wide: suffix them by branch index.
      Branches: Branches.map((b, i) => rename(b, `${name}b`, `${name}b${i}_`)),
    })));
    kinds.push(fc.record({
      ItemProcessor: graph(opts, `${name}m`, depth - 1), ItemsPath: fc.option(fc.constantFrom('$.list', '$.list', '$.wide', '$.b', '$.missing', '$.deep', '$.n'), { nil: undefined, freq: 8 }),
      ItemSelector: fc.option(template(0), { nil: undefined }), MaxConcurrency: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      ResultPath: resultPath, Retry: retry, Catch: catchers, io,
    }).map(({ io: x, ...rest }) => clean({ Type: 'Map', ...x, ...rest, ...flow(next) })));
  }
  return fc.oneof(...kinds);
}

/** The graph `g` with every state name starting `from` renamed to start `to` (names, StartAt, Next, Default, Catch). */
function rename<T>(g: T, from: string, to: string): T {
  const text = JSON.stringify(g).replaceAll(`"${from}`, `"${to}`);
  return JSON.parse(text) as T;
}

/** `{"a":{"a":…}}` or `[[…]]`, `depth` levels. */
export function nested(depth: number, arrays: boolean): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i += 1) v = arrays ? [v] : { a: v };
  return v;
}

/** Execution inputs: ordinary objects with the fields the paths read, deep (to 1,000) and wide (to 20,000) values. */
export function executionInput(maxWide = 20_000): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 4, arbitrary: fc.record({
      a: fc.jsonValue({ maxDepth: 2 }),
      b: fc.array(fc.integer(), { maxLength: 3 }),
      n: fc.integer({ min: -1, max: 3 }),
      s: fc.constantFrom('a,b', 'x', '2024-01-01T00:00:00Z', ''),
      list: fc.array(fc.record({ n: fc.integer({ min: 0, max: 3 }) }), { maxLength: 4 }),
      deep: fc.tuple(fc.constantFrom(1, 10, 200, 1000), fc.boolean()).map(([d, arrays]) => nested(d, arrays)),
      wide: fc.constantFrom(0, 3, 1000, maxWide).map((len) => Array.from({ length: len }, (_, i) => i % 3)),
    }) },
  );
}

/** A whole definition (`Comment` names the case) with its input. */
export function definitionCase(opts: DefinitionOptions, maxWide?: number): fc.Arbitrary<{ definition: unknown; input: unknown }> {
  return fc.record({ definition: graph(opts), input: executionInput(maxWide) });
}
