import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'runners/.venv/**', 'runners/.venv-bench/**', 'test/fixtures/**', 'shared/src/trace/gen/**', '**/*.svelte'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  { files: ['test/**', '**/bin/**', '**/cli/**', 'runners/src/**'], rules: { 'no-console': 'off' } },
);
