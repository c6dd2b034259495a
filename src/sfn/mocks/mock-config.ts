import { readFile } from 'node:fs/promises';
import type { IntegrationResult } from '../integrations/integration.js';
import { duplicateKeys } from '../asl/json-duplicate-keys.js';
import { MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH, payloadDepth, utf8Bytes } from '../compile/payload-limit.js';

/**
 * AWS Step Functions Local's mock configuration (`MockConfigFile.json`, SFN_MOCK_CONFIG):
 * `StateMachines.<name>.TestCases.<case>.<state>` names a mocked response, and
 * `MockedResponses.<response>.<"n" | "n-m">` holds one `Return` (the Task's result) or one `Throw`
 * (`{ Error, Cause }`) per invocation of the state. Read once at start-up and checked whole, so a
 * bad file stops the node with a message naming the problem, never an execution later.
 */

/** One entry of a mocked response: the invocations `from`–`to` (inclusive) answer `result`. */
interface MockEntry { from: number; to: number; result: IntegrationResult }

/** The checked configuration: state machine → test case → state → mocked response name. */
export interface MockConfig {
  readonly stateMachines: ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, string>>>;
  readonly responses: ReadonlyMap<string, readonly MockEntry[]>;
}

/** A mock configuration file that cannot be used; the message names the file and the member. */
export class MockConfigError extends Error {
  override readonly name = 'MockConfigError';
}

/** The limits of TaskFailed's error and cause (as SendTaskFailure's). */
const MAX_ERROR = 256;
const MAX_CAUSE = 32_768;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);
const member = (path: string, key: string): string => `${path}.${/^[A-Za-z_][\w]*$/.test(key) ? key : JSON.stringify(key)}`;

/** An invocation key: `"0"`, `"3"`, or an inclusive range `"1-2"`. */
const INVOCATIONS = /^(\d{1,9})(?:-(\d{1,9}))?$/;

/** Reads and checks the file at `path`; MockConfigError names what is wrong. */
export async function loadMockConfig(path: string): Promise<MockConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new MockConfigError(`mock configuration ${path}: cannot be read (${(e as Error).message})`);
  }
  return parseMockConfig(text, path);
}

/** Checks a mock configuration's text; `source` names it in messages. */
export function parseMockConfig(text: string, source = 'mock configuration'): MockConfig {
  const fail: (msg: string) => never = (msg) => { throw new MockConfigError(`mock configuration ${source}: ${msg}`); };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return fail(`is not JSON (${(e as Error).message})`);
  }
  // JSON.parse keeps the last of two equal names: a test case or response given twice is an error.
  const dup = duplicateKeys(text)[0];
  if (dup) fail(`"${dup.key}" appears twice in ${dup.path === '' ? 'the top-level object' : dup.path}`);
  if (!isObject(raw)) return fail(`must be a JSON object with StateMachines and MockedResponses, got ${kind(raw)}`);
  for (const k of Object.keys(raw)) if (k !== 'StateMachines' && k !== 'MockedResponses') fail(`unknown top-level field "${k}" (expected StateMachines and MockedResponses)`);
  const responses = readResponses(raw.MockedResponses, fail);
  return { stateMachines: readStateMachines(raw.StateMachines, responses, fail), responses };
}

function readStateMachines(v: unknown, responses: ReadonlyMap<string, unknown>, fail: (m: string) => never): MockConfig['stateMachines'] {
  if (!isObject(v)) return fail(`StateMachines must be an object, got ${v === undefined ? 'nothing' : kind(v)}`);
  const out = new Map<string, Map<string, Map<string, string>>>();
  for (const [smName, sm] of Object.entries(v)) {
    const at = member('StateMachines', smName);
    if (!isObject(sm)) fail(`${at} must be an object with TestCases, got ${kind(sm)}`);
    for (const k of Object.keys(sm)) if (k !== 'TestCases') fail(`${at}: unknown field "${k}" (a state machine holds only TestCases)`);
    if (!isObject(sm.TestCases)) fail(`${at}.TestCases must be an object, got ${sm.TestCases === undefined ? 'nothing' : kind(sm.TestCases)}`);
    const cases = new Map<string, Map<string, string>>();
    for (const [caseName, tc] of Object.entries(sm.TestCases)) {
      const cat = member(`${at}.TestCases`, caseName);
      if (caseName === '') fail(`${at}.TestCases: a test case needs a name`);
      if (!isObject(tc)) fail(`${cat} must be an object of state name to mocked response name, got ${kind(tc)}`);
      const states = new Map<string, string>();
      for (const [state, resp] of Object.entries(tc)) {
        if (typeof resp !== 'string') fail(`${member(cat, state)} must name a mocked response (a string), got ${kind(resp)}`);
        if (!responses.has(resp)) fail(`${member(cat, state)} names the mocked response "${resp}", which MockedResponses does not define`);
        states.set(state, resp);
      }
      cases.set(caseName, states);
    }
    out.set(smName, cases);
  }
  return out;
}

function readResponses(v: unknown, fail: (m: string) => never): Map<string, MockEntry[]> {
  if (!isObject(v)) return fail(`MockedResponses must be an object, got ${v === undefined ? 'nothing' : kind(v)}`);
  const out = new Map<string, MockEntry[]>();
  for (const [name, resp] of Object.entries(v)) {
    const at = member('MockedResponses', name);
    if (!isObject(resp)) fail(`${at} must be an object of invocation numbers ("0", "1-2") to Return or Throw, got ${kind(resp)}`);
    const entries: MockEntry[] = [];
    for (const [key, entry] of Object.entries(resp)) {
      const eat = member(at, key);
      const m = INVOCATIONS.exec(key);
      if (!m) fail(`${eat}: "${key}" is not an invocation number ("0") or an inclusive range ("1-2")`);
      const from = Number(m![1]);
      const to = m![2] === undefined ? from : Number(m![2]);
      if (to < from) fail(`${eat}: the range ends before it starts`);
      const clash = entries.find((e) => e.from <= to && from <= e.to);
      if (clash) fail(`${eat} overlaps "${clash.from === clash.to ? clash.from : `${clash.from}-${clash.to}`}": each invocation has one response`);
      entries.push({ from, to, result: readEntry(entry, eat, fail) });
    }
    // An entry with no invocations is allowed (as Step Functions Local allows it): a state using it fails when it runs.
    out.set(name, entries.sort((a, b) => a.from - b.from));
  }
  return out;
}

function readEntry(v: unknown, at: string, fail: (m: string) => never): IntegrationResult {
  if (!isObject(v)) return fail(`${at} must be an object holding Return or Throw, got ${kind(v)}`);
  const keys = Object.keys(v);
  if (keys.length !== 1 || (keys[0] !== 'Return' && keys[0] !== 'Throw')) {
    return fail(`${at} must hold exactly one field, Return or Throw, got ${keys.length ? keys.map((k) => `"${k}"`).join(', ') : 'none'}`);
  }
  if (keys[0] === 'Return') {
    const text = JSON.stringify(v.Return);
    if (utf8Bytes(text) > MAX_PAYLOAD_BYTES) fail(`${at}.Return exceeds the maximum size of ${MAX_PAYLOAD_BYTES} bytes (UTF-8)`);
    if (payloadDepth(v.Return) > MAX_PAYLOAD_DEPTH) fail(`${at}.Return is nested deeper than ${MAX_PAYLOAD_DEPTH} levels`);
    return { ok: true, output: v.Return };
  }
  const t = v.Throw;
  if (!isObject(t)) return fail(`${at}.Throw must be an object with Error and Cause, got ${kind(t)}`);
  for (const k of Object.keys(t)) if (k !== 'Error' && k !== 'Cause') fail(`${at}.Throw: unknown field "${k}" (expected Error and Cause)`);
  if (typeof t.Error !== 'string' || t.Error === '') fail(`${at}.Throw.Error must be a non-empty string, got ${t.Error === '' ? 'an empty string' : t.Error === undefined ? 'nothing' : kind(t.Error)}`);
  if (typeof t.Cause !== 'string') fail(`${at}.Throw.Cause must be a string, got ${t.Cause === undefined ? 'nothing' : kind(t.Cause)}`);
  if ((t.Error as string).length > MAX_ERROR) fail(`${at}.Throw.Error is longer than ${MAX_ERROR} characters`);
  if ((t.Cause as string).length > MAX_CAUSE) fail(`${at}.Throw.Cause is longer than ${MAX_CAUSE} characters`);
  return { ok: false, error: t.Error as string, cause: t.Cause as string };
}

/** Whether `stateMachineName` has the test case `testCase`. */
export function hasTestCase(config: MockConfig, stateMachineName: string, testCase: string): boolean {
  return config.stateMachines.get(stateMachineName)?.has(testCase) ?? false;
}

/** What one scheduling of a Task state is asked to mock. */
export interface MockLookup {
  stateMachineName: string;
  testCase: string;
  stateName: string;
  /** Earlier schedules of this state in the execution (0 for the first). */
  attempt: number;
}

/**
 * The mocked result of one Task invocation: the entry whose invocations hold `attempt`. A state the
 * test case does not name is not mocked (undefined: the Task calls its service). A mocked state with
 * no entry for this invocation fails the execution with States.Runtime, as Step Functions Local does
 * ("you must specify a mocked response for every invocation").
 */
export function mockedResult(config: MockConfig, q: MockLookup): IntegrationResult | undefined {
  const response = config.stateMachines.get(q.stateMachineName)?.get(q.testCase)?.get(q.stateName);
  if (response === undefined) return undefined;
  const entry = config.responses.get(response)?.find((e) => e.from <= q.attempt && q.attempt <= e.to);
  // A copy: whoever applies the result may not change the configuration's.
  if (entry) return structuredClone(entry.result);
  return {
    ok: false, error: 'States.Runtime',
    cause: `The mocked response '${response}' of state '${q.stateName}' in test case '${q.testCase}' has no entry for invocation ${q.attempt}.`,
  };
}
