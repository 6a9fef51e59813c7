// Lint with type information (typescript-eslint), for the mistakes the compiler lets through: a promise nobody
// awaits or catches (an error that vanishes, a write that may not be done when the next line runs), a promise
// passed where a callback's result is ignored, and awaiting what is not a promise. `npm run lint`, in CI.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/cdktf.out/**',
      'test-output/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  {
    files: ['service/src/**/*.ts', 'provider/*/src/**/*.ts', 'test/**/*.ts', 'examples/**/*.ts', 'bench/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        project: [
          './tsconfig.json',
          './tsconfig.browser-tests.json',
          './service/tsconfig.json',
          './service/tsconfig.ui.json',
          './provider/*/tsconfig.json',
        ],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
    },
  },
  {
    // No `any` in what the packages and the service export and run; tests may read loose JSON.
    files: ['service/src/**/*.ts', 'provider/*/src/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
);
