/*
 * JSONata and variable definitions: the mistakes CreateStateMachine refuses (with the AWS code,
 * path and message: AWS's wording where it is recorded, ours where it is not) and the definitions
 * it accepts (the examples of AWS's "Transforming data with JSONata" and "Passing data between
 * states with variables" pages among them).
 */

export const ACT = 'arn:aws:states:us-east-1:123456789012:activity:work';
type State = Record<string, unknown>;
type States = Record<string, State>;

const J = { QueryLanguage: 'JSONata' };
const def = (states: States, top: object = {}): object => ({ ...top, StartAt: Object.keys(states)[0], States: states });
/** A JSONata machine of one state `S` (plus `Done` to transition to). */
const jone = (state: State, top: object = J): object => def({ S: state, Done: { Type: 'Succeed' } }, top);
/** The same in a JSONPath machine. */
const pone = (state: State): object => jone(state, {});
const jtask = (extra: State = {}): object => jone({ Type: 'Task', Resource: ACT, Next: 'Done', ...extra });
const jpass = (extra: State = {}): object => jone({ Type: 'Pass', Next: 'Done', ...extra });
const branch = (states: States): object => ({ StartAt: Object.keys(states)[0], States: states });
const item = branch({ P: { Type: 'Pass', End: true } });

const DOWNGRADE = "'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine";
const inJsonata = (field: string): string => `The QueryLanguage is set to 'JSONata', but field '${field}' is only supported for the 'JSONPath' QueryLanguage`;
const inJsonPath = (field: string): string => `The QueryLanguage is set to 'JSONPath', but field '${field}' is only supported for the 'JSONata' QueryLanguage`;
const SCHEMA = 'SCHEMA_VALIDATION_FAILED';
const INVALID = 'INVALID_JSONATA_EXPRESSION';
const UNSUPPORTED = 'UNSUPPORTED_JSONATA_EXPRESSION';
const NOT_AN_EXPRESSION = 'JSONata string must start with {% and end with %}';
const badName = (name: string): string =>
  `The variable name '${name}' is not valid: it must start with a Unicode ID_Start character, continue with ID_Continue characters and be at most 80 characters long`;
const outerName = (name: string): string =>
  `The variable '${name}' is assigned in an enclosing scope; a Parallel branch or Map iteration may not assign a variable of the same name`;

/** [what, definition, code, path, message]. */
export const BAD_JSONATA: [string, object, string, string, string][] = [
  // QueryLanguage: the value set and the mixing rules.
  ['a JSONPath state in a JSONata machine', jpass({ QueryLanguage: 'JSONPath' }), SCHEMA, '/States/S', DOWNGRADE],
  ['a JSONPath state inside a Map of a JSONata machine', jone({ Type: 'Map', Next: 'Done', ItemProcessor: branch({ P: { Type: 'Pass', QueryLanguage: 'JSONPath', End: true } }) }), SCHEMA, '/States/S/ItemProcessor/States/P', DOWNGRADE],
  ['a QueryLanguage outside the enum on a state', jpass({ QueryLanguage: 'jsonata' }), SCHEMA, '/States/S/QueryLanguage', 'Value should be one of the following: [JSONPath, JSONata]'],
  ['a QueryLanguage on a Parallel branch', pone({ Type: 'Parallel', Next: 'Done', Branches: [{ ...item, QueryLanguage: 'JSONata' }] }), SCHEMA, '/States/S/Branches[0]', "Field 'QueryLanguage' is not supported"],
  ['Output in a JSONPath machine, inside a Map that is JSONata itself', pone({ Type: 'Map', QueryLanguage: 'JSONata', Items: [1], Next: 'Done', ItemProcessor: branch({ P: { Type: 'Pass', Output: 1, End: true } }) }), SCHEMA, '/States/S/ItemProcessor/States/P', inJsonPath('Output')],
  // JSONPath-only fields in JSONata states (reported at the state).
  ['InputPath in a JSONata Pass', jpass({ InputPath: '$.a' }), SCHEMA, '/States/S', inJsonata('InputPath')],
  ['OutputPath in a JSONata Succeed', jone({ Type: 'Succeed', OutputPath: '$.a' }), SCHEMA, '/States/S', inJsonata('OutputPath')],
  ['Parameters in a JSONata Task', jtask({ Parameters: { a: 1 } }), SCHEMA, '/States/S', inJsonata('Parameters')],
  ['ResultSelector in a JSONata Task', jtask({ ResultSelector: { 'a.$': '$.a' } }), SCHEMA, '/States/S', inJsonata('ResultSelector')],
  ['ResultPath in a JSONata Parallel', jone({ Type: 'Parallel', Next: 'Done', ResultPath: '$.r', Branches: [item] }), SCHEMA, '/States/S', inJsonata('ResultPath')],
  ['Result in a JSONata Pass', jpass({ Result: { a: 1 } }), SCHEMA, '/States/S', inJsonata('Result')],
  ['ItemsPath in a JSONata Map', jone({ Type: 'Map', Next: 'Done', ItemsPath: '$.items', ItemProcessor: item }), SCHEMA, '/States/S', inJsonata('ItemsPath')],
  ['MaxConcurrencyPath in a JSONata Map', jone({ Type: 'Map', Next: 'Done', MaxConcurrencyPath: '$.n', ItemProcessor: item }), SCHEMA, '/States/S', inJsonata('MaxConcurrencyPath')],
  ['TimeoutSecondsPath in a JSONata Task', jtask({ TimeoutSecondsPath: '$.t' }), SCHEMA, '/States/S', inJsonata('TimeoutSecondsPath')],
  ['HeartbeatSecondsPath in a JSONata Task', jtask({ HeartbeatSecondsPath: '$.h' }), SCHEMA, '/States/S', inJsonata('HeartbeatSecondsPath')],
  ['SecondsPath in a JSONata Wait', jone({ Type: 'Wait', Next: 'Done', SecondsPath: '$.s' }), SCHEMA, '/States/S', inJsonata('SecondsPath')],
  ['TimestampPath in a JSONata Wait', jone({ Type: 'Wait', Next: 'Done', TimestampPath: '$.t' }), SCHEMA, '/States/S', inJsonata('TimestampPath')],
  ['ErrorPath in a JSONata Fail', def({ F: { Type: 'Fail', ErrorPath: '$.e' } }, J), SCHEMA, '/States/F', inJsonata('ErrorPath')],
  ['CausePath in a JSONata Fail', def({ F: { Type: 'Fail', CausePath: '$.c' } }, J), SCHEMA, '/States/F', inJsonata('CausePath')],
  ['ResultPath in a JSONata catcher', jtask({ Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Done', ResultPath: '$.e' }] }), SCHEMA, '/States/S/Catch[0]', inJsonata('ResultPath')],
  ['a Variable comparison in a JSONata Choice', jone({ Type: 'Choice', Choices: [{ Variable: '$.x', Next: 'Done' }] }), SCHEMA, '/States/S/Choices[0]', inJsonata('Variable')],
  ['a comparison operator in a JSONata Choice rule', jone({ Type: 'Choice', Choices: [{ Condition: '{% true %}', StringEquals: 'a', Next: 'Done' }] }), SCHEMA, '/States/S/Choices[0]', inJsonata('StringEquals')],
  ['a .$ key in JSONata Arguments', jtask({ Arguments: { 'id.$': '$.id' } }), SCHEMA, '/States/S/Arguments/id.$', inJsonata('id.$')],
  // JSONata-only fields in JSONPath states.
  ['Arguments in a JSONPath Task', pone({ Type: 'Task', Resource: ACT, Next: 'Done', Arguments: { a: 1 } }), SCHEMA, '/States/S', inJsonPath('Arguments')],
  ['Output in a JSONPath Pass', pone({ Type: 'Pass', Next: 'Done', Output: { a: 1 } }), SCHEMA, '/States/S', inJsonPath('Output')],
  ['Items in a JSONPath Map', pone({ Type: 'Map', Next: 'Done', Items: [1, 2], ItemProcessor: item }), SCHEMA, '/States/S', inJsonPath('Items')],
  ['a Condition in a JSONPath Choice rule', pone({ Type: 'Choice', Choices: [{ Condition: '{% true %}', Next: 'Done' }] }), SCHEMA, '/States/S/Choices[0]', inJsonPath('Condition')],
  ['Output in a JSONPath catcher', pone({ Type: 'Task', Resource: ACT, Next: 'Done', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Done', Output: 1 }] }), SCHEMA, '/States/S/Catch[0]', inJsonPath('Output')],
  // {% %} expressions.
  ['an expression that does not parse', jpass({ Output: '{% a[1,2) %}' }), INVALID, '/States/S/Output', 'Expected "]", got ","'],
  ['an unterminated string literal in Arguments', jtask({ Arguments: { a: '{% "unterminated %}' } }), INVALID, '/States/S/Arguments/a', 'String literal must be terminated by a matching quote'],
  ['an empty Condition expression', jone({ Type: 'Choice', Choices: [{ Condition: '{%  %}', Next: 'Done' }] }), INVALID, '/States/S/Choices[0]/Condition', 'Unexpected end of expression'],
  ['an unterminated regular expression in Assign', jpass({ Assign: { m: '{% $match("a", /abc %}' } }), INVALID, '/States/S/Assign/m', 'No terminating / in regular expression'],
  ['a bad expression in TimeoutSeconds', jtask({ TimeoutSeconds: '{% 1 + %}' }), INVALID, '/States/S/TimeoutSeconds', 'Unexpected end of expression'],
  ['an expression opened and not closed', jpass({ Output: { v: '{% $states.input' } }), SCHEMA, '/States/S/Output/v', NOT_AN_EXPRESSION],
  ['an expression with a space before {%', jpass({ Output: [' {% 1 %}'] }), SCHEMA, '/States/S/Output[0]', NOT_AN_EXPRESSION],
  ['a name read at the top level (no context item)', jpass({ Output: { v: '{% phone %}' } }), UNSUPPORTED, '/States/S/Output/v', "Reference to 'phone' at the top level is not supported."],
  ['$$', jpass({ Output: '{% $$ %}' }), UNSUPPORTED, '/States/S/Output', "Reference to '$$' is not supported."],
  ['$states.result in a Pass', jpass({ Output: '{% $states.result %}' }), UNSUPPORTED, '/States/S/Output', "Field '$states.result' does not exist."],
  ['$states.result in Task Arguments', jtask({ Arguments: '{% $states.result %}' }), UNSUPPORTED, '/States/S/Arguments', "Field '$states.result' does not exist."],
  ['$states.errorOutput outside a catcher', jtask({ Output: { e: '{% $states.errorOutput.Cause %}' } }), UNSUPPORTED, '/States/S/Output/e', "Field '$states.errorOutput' does not exist."],
  // Where an expression is allowed, and the values the other fields take.
  ['TimeoutSeconds a plain string', jtask({ TimeoutSeconds: 'ten' }), SCHEMA, '/States/S/TimeoutSeconds', "The value for the field 'TimeoutSeconds' must be an INTEGER"],
  ['a negative Wait Seconds', jone({ Type: 'Wait', Next: 'Done', Seconds: -1 }), SCHEMA, '/States/S/Seconds', 'Minimum value is 0'],
  ['Items a plain string', jone({ Type: 'Map', Next: 'Done', Items: 'items', ItemProcessor: item }), SCHEMA, '/States/S/Items', "The value for the field 'Items' must be an ARRAY, an OBJECT or a JSONata expression"],
  ['a Condition that is a plain string', jone({ Type: 'Choice', Choices: [{ Condition: 'true', Next: 'Done' }] }), SCHEMA, '/States/S/Choices[0]/Condition', "The value for the field 'Condition' must be a JSONata expression or a BOOLEAN"],
  ['a JSONata Choice rule without Condition', jone({ Type: 'Choice', Choices: [{ Next: 'Done' }] }), SCHEMA, '/States/S/Choices[0]', 'These fields are required: [Condition]'],
  ['an expression in Resource', jtask({ Resource: '{% $arn %}' }), SCHEMA, '/States/S/Resource', 'The resource provided {% $arn %} is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.'],
  // Variables: where Assign may be, names, size, scope, references.
  ['Assign on a Succeed', jone({ Type: 'Succeed', Assign: { a: 1 } }), SCHEMA, '/States/S', "Field 'Assign' is not supported"],
  ['Assign on a Fail', def({ F: { Type: 'Fail', Assign: { a: 1 } } }), SCHEMA, '/States/F', "Field 'Assign' is not supported"],
  ['Assign inside an And rule', pone({ Type: 'Choice', Choices: [{ And: [{ Variable: '$.x', IsNull: true, Assign: { a: 1 } }], Next: 'Done' }] }), SCHEMA, '/States/S/Choices[0]/And[0]', "Field 'Assign' is not supported"],
  ['Assign not an object', jpass({ Assign: [1] }), SCHEMA, '/States/S/Assign', "The value for the field 'Assign' must be an OBJECT"],
  ['a variable name with a space', jpass({ Assign: { 'a b': 1 } }), SCHEMA, '/States/S/Assign/a b', badName('a b')],
  ['a variable name starting with a digit', pone({ Type: 'Pass', Next: 'Done', Assign: { '1st': 1 } }), SCHEMA, '/States/S/Assign/1st', badName('1st')],
  ['a variable name of 81 characters', jpass({ Assign: { ['v'.repeat(81)]: 1 } }), SCHEMA, `/States/S/Assign/${'v'.repeat(81)}`, badName('v'.repeat(81))],
  ['an assignment to part of a variable', jpass({ Assign: { 'x.y': 42 } }), SCHEMA, '/States/S/Assign/x.y', badName('x.y')],
  ['an assignment to the reserved name states', jpass({ Assign: { states: 1 } }), SCHEMA, '/States/S/Assign/states', "The variable name 'states' is reserved"],
  ['a reserved name in a JSONPath Assign', pone({ Type: 'Pass', Next: 'Done', Assign: { 'states.$': '$' } }), SCHEMA, '/States/S/Assign/states.$', "The variable name 'states' is reserved"],
  ['a JSONPath Assign .$ value that is not a path', pone({ Type: 'Pass', Next: 'Done', Assign: { 'x.$': 'x' } }), SCHEMA, '/States/S/Assign/x.$', "The value for the field 'x.$' must be a valid JSONPath or a valid intrinsic function call"],
  ['an Assign over 256 KiB', jpass({ Assign: { big: 'x'.repeat(262_144) } }), SCHEMA, '/States/S/Assign', 'The Assign field is 262154 bytes of JSON; the variables of one Assign may hold at most 262144 bytes (256 KiB)'],
  ['a Parallel branch assigning an outer variable', def({ A: { Type: 'Pass', Assign: { x: 1 }, Next: 'P' }, P: { Type: 'Parallel', End: true, Branches: [branch({ B: { Type: 'Pass', Assign: { x: 2 }, End: true } })] } }, J), SCHEMA, '/States/P/Branches[0]/States/B/Assign/x', outerName('x')],
  ['a Map iteration assigning a variable the Map\'s catcher assigns', pone({ Type: 'Map', Next: 'Done', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Done', Assign: { 'failed.$': '$.Error' } }], ItemProcessor: branch({ P: { Type: 'Pass', Assign: { failed: false }, End: true } }) }), SCHEMA, '/States/S/ItemProcessor/States/P/Assign/failed', outerName('failed')],
  ['a variable in ResultPath', pone({ Type: 'Pass', Next: 'Done', ResultPath: '$x' }), SCHEMA, '/States/S/ResultPath', 'Value is not a Reference Path'],
  ['a variable reference with a broken tail', pone({ Type: 'Pass', Next: 'Done', InputPath: '$order.items[' }), SCHEMA, '/States/S/InputPath', 'Value must be a valid JSONPath.'],
  ['a variable argument with a broken tail in an intrinsic', pone({ Type: 'Pass', Next: 'Done', Parameters: { 'm.$': "States.Format('{}', $order[)" } }), SCHEMA, '/States/S/Parameters/m.$', "The value for the field 'm.$' must be a valid intrinsic function call (a known States.* function with the right number of valid arguments)"],
];

/** [what, definition]: accepted as they are. */
export const VALID_JSONATA: [string, object][] = [
  // AWS, "Transforming data with JSONata": Example: Input and Output.
  ['AWS: Input and Output example using JSONata', {
    Comment: 'Input and Output example using JSONata', QueryLanguage: 'JSONata', StartAt: 'Basic Input and Output',
    States: {
      'Basic Input and Output': {
        QueryLanguage: 'JSONata', Type: 'Succeed',
        Output: { lastName: "{% 'Last=>' & $states.input.customer.lastName %}", orderValue: '{% $states.input.order.total %}' },
      },
    },
  }],
  // AWS, "Transforming data with JSONata": Example: Filtering with JSONata.
  ['AWS: Filter products using JSONata', {
    Comment: 'Filter products using JSONata', QueryLanguage: 'JSONata', StartAt: 'FilterDietProducts',
    States: { FilterDietProducts: { Type: 'Pass', Output: { dietProducts: '{% $states.input.products[calories=0] %}' }, End: true } },
  }],
  ['AWS: a JSONPath Task and its conversion to JSONata (Arguments, a variable, a literal that looks like one)', def({
    Name: { Type: 'Pass', Assign: { customerName: 'María' }, Next: 'JSONPath' },
    JSONPath: {
      QueryLanguage: 'JSONPath', Type: 'Task', Resource: ACT, Next: 'JSONata',
      Parameters: { static: 'Hello', 'title.$': '$.title', 'name.$': '$customerName', 'not-evaluated': '$customerName' },
    },
    JSONata: {
      QueryLanguage: 'JSONata', Type: 'Task', Resource: ACT, End: true,
      Arguments: { static: 'Hello', title: '{% $states.input.title %}', name: '{% $customerName %}', 'not-evaluated': '$customerName' },
    },
  })],
  ['AWS: a Choice Condition (Check Price)', def({
    'Check Price': { Type: 'Choice', Default: 'Pause', Choices: [{ Condition: '{% $current_price <= $states.input.desired_priced %}', Next: 'Send Notification' }] },
    Pause: { Type: 'Wait', Seconds: 1, Next: 'Check Price' },
    'Send Notification': { Type: 'Succeed' },
  }, J)],
  ['AWS: expressions in TimeoutSeconds, Arguments and Map Items', def({
    Work: { Type: 'Task', Resource: ACT, TimeoutSeconds: '{% $timeout %}', Arguments: { field1: '{% $name %}' }, Next: 'Each' },
    Each: { Type: 'Map', Items: [1, '{% $two %}', 3], ItemProcessor: item, End: true },
  }, J)],
  ['AWS: the JSONata functions Step Functions adds', jpass({
    Assign: {
      arrayPartition: '{% $partition([1,2,3,4], $states.input.chunkSize) %}', arrayRange: '{% $range(0, 10, 2) %}',
      myHash: '{% $hash($states.input.content, $hashAlgorithmName) %}', randNoSeed: '{% $random() %}',
      randSeeded: '{% $random($states.input.seed) %}', uniqueId: '{% $uuid() %}', deserializedPayload: '{% $parse($states.input.json_string) %}',
    },
  })],
  // AWS, "Passing data between states with variables".
  ['AWS: Store inputs, then Get Current Price assigning from its result', def({
    'Store inputs': {
      Type: 'Pass', Next: 'Get Current Price', Comment: 'Store the input desired price into a variable: $desiredPrice',
      Assign: { desiredPrice: '{% $states.input.desired_price %}', maximumWait: '{% $states.input.max_days %}' },
    },
    'Get Current Price': {
      Type: 'Task', Resource: ACT, Next: 'Done',
      Assign: { product: '{% $states.input.order.product %}', currentPrice: '{% $states.result.Payload.current_price %}' },
    },
    Done: { Type: 'Succeed' },
  }, J)],
  ['AWS: evaluation order (x and nextX from the values on entry)', def({
    Init: { Type: 'Pass', Assign: { x: 3, a: 6 }, Next: 'Swap' },
    Swap: { Type: 'Pass', Assign: { x: '{% $a %}', nextX: '{% $x %}' }, End: true },
  }, J)],
  ['AWS: JSONPath Assign (paths, a template, an intrinsic with a variable, the context object)', def({
    Order: { Type: 'Task', Resource: ACT, Next: 'Details', Assign: { 'products.$': '$.order..product', 'orderTotal.$': '$.order.total' } },
    Details: {
      Type: 'Task', Resource: ACT, End: true,
      Assign: {
        details: { status: 'SUCCESS', 'lineItems.$': '$.order.items' }, 'resultCode.$': '$.result.code',
        'message.$': "States.Format('Hello {}', $customer.name)", 'startTime.$': '$$.Execution.StartTime',
      },
    },
  })],
  ['AWS: variables in JSONPath paths (InputPath, Choice Variable and …Path, SecondsPath, intrinsics)', def({
    Setup: { Type: 'Pass', Assign: { guess: 'the_guess', answer: 'the_answer', waitTime: 0, theAnswer: 42 }, Next: 'CheckAnswer' },
    CheckAnswer: { Type: 'Choice', Choices: [{ Variable: '$guess', StringEqualsPath: '$answer', Next: 'Nap' }], Default: 'WrongAnswer' },
    WrongAnswer: { Type: 'Pass', Assign: { 'guess.$': '$answer' }, Result: { state: 'WRONG' }, Next: 'CheckAnswer' },
    Nap: { Type: 'Wait', SecondsPath: '$waitTime', Next: 'Read' },
    Read: { Type: 'Pass', InputPath: '$theAnswer', Parameters: { 'sum.$': 'States.MathAdd($theAnswer, $waitTime)' }, End: true },
  })],
  ['an empty Assign', jpass({ Assign: {} })],
  ['a variable argument beside a quoted $ in an intrinsic', pone({ Type: 'Pass', Next: 'Done', Parameters: { 'm.$': "States.Format('price $price is {}', $price.amount)" } })],
  ['Assign in Choice rules and on the Choice state', def({
    Decide: {
      Type: 'Choice', Assign: { decided: true }, Default: 'No',
      Choices: [{ Condition: '{% $states.input.condition %}', Next: 'Yes', Assign: { branch: 'yes' }, Output: { why: '{% $states.input.reason %}' } }],
    },
    Yes: { Type: 'Pass', End: true },
    No: { Type: 'Fail', Error: 'Declined', Cause: "{% 'Condition was ' & $string($states.input.condition) %}" },
  }, J)],
  ['a JSONPath Choice rule with Assign', pone({ Type: 'Choice', Choices: [{ Variable: '$.x', IsPresent: true, Assign: { 'seen.$': '$.x' }, Next: 'Done' }] })],
  ['a catcher reading $states.errorOutput in its Output and Assign', jtask({
    Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Done', Output: '{% $states.errorOutput %}', Assign: { lastError: '{% $states.errorOutput.Cause %}' } }],
  })],
  ['a JSONata Map (Items, ItemSelector with the context, MaxConcurrency, Output of its result)', jone({
    Type: 'Map', Next: 'Done', Items: '{% $states.input.items %}', MaxConcurrency: '{% $states.input.limit %}',
    ItemSelector: { value: '{% $states.context.Map.Item.Value %}', index: '{% $states.context.Map.Item.Index %}' },
    ItemProcessor: branch({ P: { Type: 'Pass', Output: { doubled: '{% $states.input.value * 2 %}' }, End: true } }),
    Output: { count: '{% $count($states.result) %}' },
  })],
  ['a JSONata Parallel (Arguments, Output of its result)', jone({
    Type: 'Parallel', Next: 'Done', Arguments: { n: '{% $states.input.n %}' }, Output: '{% $states.result[0] %}',
    Branches: [branch({ B1: { Type: 'Pass', End: true } }), branch({ B2: { Type: 'Pass', Output: '{% $states.input.n %}', End: true } })],
  })],
  ['JSONata Wait by expression, Timestamp literal and expression', def({
    W1: { Type: 'Wait', Seconds: '{% $states.input.delay %}', Next: 'W2' },
    W2: { Type: 'Wait', Timestamp: '2030-01-01T00:00:00Z', Next: 'W3' },
    W3: { Type: 'Wait', Timestamp: '{% $states.input.until %}', End: true },
  }, J)],
  ['a JSONPath machine with one JSONata state', def({
    First: { Type: 'Pass', Result: { n: 1 }, Next: 'Second' },
    Second: { Type: 'Pass', QueryLanguage: 'JSONata', Output: '{% $states.input.n + 1 %}', End: true },
  })],
  ['a Map iteration reading outer variables, assigning its own', def({
    Input: { Type: 'Pass', Result: [[9, 44, 6], [82, 25, 76]], Assign: { bias: 4.3 }, Next: 'IterateLevels' },
    IterateLevels: {
      Type: 'Map', MaxConcurrency: 1, End: true,
      ItemProcessor: {
        ProcessorConfig: { Mode: 'INLINE' }, StartAt: 'AssignCurrentVector',
        States: {
          AssignCurrentVector: { Type: 'Pass', Assign: { 'xCurrent.$': '$[0]', 'yCurrent.$': '$[1]' }, Next: 'Summate' },
          Summate: { Type: 'Pass', Assign: { 'Sum.$': 'States.MathAdd(States.MathAdd($yCurrent, $xCurrent), $bias)' }, End: true },
        },
      },
    },
  })],
  ['two Parallel branches assigning the same name (sibling scopes)', jone({
    Type: 'Parallel', Next: 'Done',
    Branches: [branch({ L: { Type: 'Pass', Assign: { side: 'left' }, End: true } }), branch({ R: { Type: 'Pass', Assign: { side: 'right' }, End: true } })],
  })],
  ['a variable no state assigns (AWS fails it when it runs, not here)', jpass({ Assign: { result: '{% $doesNotExist %}' } })],
  ['Unicode variable names', jpass({ Assign: { prénom: 'María', 变量: 1, x_1: true, ['v'.repeat(80)]: 0 } })],
  ['literals that only look like expressions, and % signs', jpass({ Output: { pct: '50%}', text: 'a {% b', literal: '$.not.a.path' } })],
  ['names read below the top level: later path steps, predicates, object keys in a path', jpass({
    Output: '{% $states.input.items[value > 3].{ "name": name } %}', Assign: { first: '{% $states.input.customer.name %}' },
  })],
];
