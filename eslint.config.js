// Lint configuration: TypeScript-aware rules over every source file.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/'] },
  ...tseslint.configs.recommended,
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
      'no-restricted-imports': 'off',
      'no-await-in-loop': 'off',
      'no-console': 'off',
    },
  },
);
