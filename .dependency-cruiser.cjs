/**
 * The layering of the code base, checked on every `npm run lint` (and so in CI).
 * A layer may import the layers below it, never above; nothing may form an import cycle; machines/
 * stay pure (xstate and each other only). The layers, bottom up, are in README "Architecture".
 */
const layer = (name, mayNotImport, comment, except) => ({
  name: `no-upward-from-${name}`,
  severity: 'error',
  comment,
  from: { path: `^src/${name}/` },
  to: except ? { path: mayNotImport, pathNot: except } : { path: mayNotImport },
});

const ABOVE_STORES = 'engine|swf|sfn|service|cluster|transport|observability|sdk';
const ABOVE_HISTORY = `matching|registry|visibility|${ABOVE_STORES}`;
const ABOVE_NATS = `history|${ABOVE_HISTORY}`;

/** Consumers of the engine: nothing in the engine imports them. */
const CONSUMERS = '^src/(console|cli|demo|testing)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle makes the load order matter and the layers meaningless: break it.',
      from: { path: '^(src|machines)/' },
      to: { circular: true },
    },
    {
      name: 'machines-are-pure',
      severity: 'error',
      comment: 'machines/ imports xstate and its own files only (ARCHITECTURE decision 4).',
      from: { path: '^machines/' },
      to: { pathNot: ['^machines/', '^node_modules/xstate/', '^xstate$'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: { path: '^(src|machines)/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'consumers-are-not-imported',
      severity: 'error',
      comment: 'The console, CLI, demo and test environment use the engine; the engine never imports them.',
      from: { path: '^src/', pathNot: [CONSUMERS, '^src/(serve|main|server)\\.ts$'] },
      to: { path: CONSUMERS },
    },
    // Bottom up: protocol → nats → history → matching, registry, visibility → engine → swf, sfn →
    // service (the operation contract) → cluster, transport, observability → server and consumers.
    layer('protocol', '^(src/(?!protocol/)|machines/)',
      'The protocol (faults, wire envelope, codec, validation, retry) is what SDK and server share: it imports nothing of either.'),
    layer('nats', `^src/(${ABOVE_NATS})/`,
      'NATS plumbing knows nothing of what is stored through it.'),
    layer('history', `^src/(${ABOVE_HISTORY})/`,
      'History storage sits below the engine.'),
    ...['matching', 'registry', 'visibility'].map((name) => layer(name, `^src/(${ABOVE_STORES})/`,
      'Task queues, the registry and the visibility store are the engine\'s parts: they never call it or a product.')),
    layer('engine', '^src/(swf|sfn|service|cluster|transport|observability|sdk)/',
      'The engine runs every execution kind through its interface: it never imports a kind, an operation or a transport.'),
    layer('swf', '^src/(sfn|service|cluster|transport|observability|sdk)/',
      'A product is a kind on the engine plus its operations; it knows the operation contract (service/context.ts) and no other product.',
      '^src/service/context\\.ts$'),
    layer('sfn', '^src/(swf|service|cluster|transport|observability|sdk)/',
      'A product is a kind on the engine plus its operations; it knows the operation contract (service/context.ts) and no other product.',
      '^src/service/context\\.ts$'),
    layer('cluster', '^src/(swf|sfn|service|transport|observability|sdk)/',
      'Partition leases drive the engine\'s hosts; they know no product.'),
    layer('transport', '^src/(engine|swf|sfn|service|sdk)/',
      'Transports are generic: the composition root hands them the operations. They know the operation contract (service/context.ts: Operation, ServiceContext) and nothing else of the service.',
      '^src/service/context\\.ts$'),
    layer('sdk', '^(src/(?!(sdk|protocol)/)(?!nats/(connect-options|request-fast-path|error-causes)\\.ts$)|machines/)',
      'The SDK is what users install for their workers: it imports the protocol (and how to connect), nothing of the server.'),
    {
      name: 'sdk-entry-is-the-sdk',
      severity: 'error',
      comment: 'src/index.ts is the package entry users import: the SDK, workflows as code, the protocol and how to connect; never the server (no prom-client, no XState inspector, no HTTP gateway).',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^(src/(?!(sdk|protocol|workflow)/)(?!nats/(connect-options|request-fast-path|error-causes)\\.ts$)|machines/)|(^|/)node_modules/(xstate|prom-client|@statelyai)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.json'] },
  },
};
