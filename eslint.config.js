// Lint configuration: TypeScript-aware rules over every source file.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
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
    rules: { 'no-restricted-imports': 'off' },
  },
);
