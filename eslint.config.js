// Lint rules that the type checker does not give us. Layering and import cycles are checked by
// dependency-cruiser (.dependency-cruiser.cjs); this file holds the code rules.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'test-results/**', 'src/console/static/**', 'bin/**'] },
  {
    files: ['src/**/*.ts', 'machines/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'examples/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // A promise nobody awaits loses its error (an unhandled rejection ends the process) and its
      // ordering; mark a deliberate fire-and-forget with `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
);
