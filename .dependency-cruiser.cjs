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

/** Consumers of the engine: nothing in the engine imports them. */
const CONSUMERS = '^src/(console|cli|demo)/';

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
      comment: 'The console, CLI and demo use the engine; the engine never imports them.',
      from: { path: '^src/', pathNot: [CONSUMERS, '^src/(node|serve|main|server)\\.ts$'] },
      to: { path: CONSUMERS },
    },
    layer('nats', '^src/(history|matching|runtime|engine|service|sfn|swf|transport|cluster|sdk|observability|registry|visibility)/',
      'NATS plumbing knows nothing of what is stored through it.'),
    layer('history', '^src/(matching|runtime|engine|service|sfn|swf|transport|cluster|sdk)/',
      'History storage sits below the engine.'),
    layer('runtime', '^src/(service|transport|sdk)/',
      'The runtime is driven by operations and transports; it never calls them.'),
    layer('transport', '^src/(service|sdk)/',
      'Transports are generic: the composition root hands them the operations. They know the operation contract (service/context.ts: Operation, ServiceContext) and nothing else of the service.',
      '^src/service/context\\.ts$'),
    layer('sdk', '^src/(runtime|engine|service|transport|cluster|observability|history|matching|registry|visibility|console|cli)/',
      'The SDK is what users install for their workers: it imports nothing of the server.'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.json'] },
  },
};
