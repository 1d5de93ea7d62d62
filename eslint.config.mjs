import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { architecture } from './eslint/architecture-plugin.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      // Deliberately bad files; test/lint lints them under the paths they pretend to have.
      'test/lint/fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { architecture },
    rules: {
      'architecture/boundaries': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through @app/config only.' },
      ],
    },
  },
  {
    files: [
      'libs/config/**/*.ts',
      'test/**/*.ts',
      'libs/*/test/**/*.ts',
      'apps/*/test/**/*.ts',
      'libs/testing/**/*.ts',
      'vitest.config.ts',
      'scripts/**/*.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
);
