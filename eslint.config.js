// Lint for what the compiler does not catch: unused code and over-long
// functions (a function past MAX_FUNCTION_LINES is split into named steps).
// Formatting is prettier's (npm run format:check), not eslint's.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const MAX_FUNCTION_LINES = 80;

export default defineConfig(
  { ignores: ['dist/', 'reports/', 'node_modules/', 'spec/', 'schemas/', 'fixtures/', 'bench/', 'bin/'] },
  {
    files: ['{model,harness,suites,engine,render,cli,lib,test}/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 2022, sourceType: 'module' } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      'no-unreachable': 'error',
      'no-unused-labels': 'error',
      'no-unused-private-class-members': 'error',
      'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // A test file's describe() callback holds its cases: its length is the file's, not a function's.
    files: ['test/**/*.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
);
