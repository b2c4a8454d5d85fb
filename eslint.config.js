// Lint configuration: TypeScript-aware rules over every source file.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/'] },
  ...tseslint.configs.recommended,
  {
    // Type-aware rules: the test build's tsconfig holds every .ts file.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { project: ['./tsconfig.test.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits or handles can end as an unhandled
      // rejection, and a turn's failure must stay that turn's: every
      // promise is awaited, returned, or given a handler (void is allowed
      // only where a comment says why nothing can reject).
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
    },
  },
  {
    rules: {
      // Daemon round trips are the cost here: independent calls go out
      // together. A loop that must be sequential says why, in a comment.
      'no-await-in-loop': 'error',
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'ses',
              message:
                'Caplet modules run in an already locked-down realm; never import ses.',
            },
            {
              name: '@endo/init',
              message:
                'Caplet modules run in an already locked-down realm; never import @endo/init.',
            },
          ],
        },
      ],
    },
  },
  {
    // The test harness is the one place that sets up the realm.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // A test's `void` marks a promise it lets run on purpose.
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      'no-restricted-imports': 'off',
      'no-await-in-loop': 'off',
      'no-console': 'off',
    },
  },
);
