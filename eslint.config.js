// Lint for what the compiler does not catch: unused code and over-long
// functions (a function past MAX_FUNCTION_LINES is split into named steps).
// Formatting is prettier's (npm run format:check), not eslint's.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const MAX_FUNCTION_LINES = 80;

const RULES = {
  '@typescript-eslint/no-unused-vars': [
    'error',
    { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
  ],
  'no-unreachable': 'error',
  'no-unused-labels': 'error',
  'no-unused-private-class-members': 'error',
  'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES, skipBlankLines: true, skipComments: true, IIFEs: true }],
};

export default defineConfig(
  // Only fixtures/servers/ holds code among the fixtures (the rest is YAML and data).
  { ignores: ['dist/', 'reports/', 'node_modules/', 'spec/', 'schemas/', 'coverage/', 'fixtures/*', '!fixtures/servers/'] },
  {
    files: ['{model,harness,suites,engine,render,cli,lib,test}/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 2022, sourceType: 'module' } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: RULES,
  },
  {
    // The plain-JS rooms (fixture servers, bench, bin): the same rules, read with the same
    // parser (it reads JS too, so JSDoc-typed code and the TS files are judged alike).
    files: ['fixtures/servers/**/*.js', 'bench/**/*.js', 'bin/**/*.js', 'eslint.config.js'],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 2022, sourceType: 'module' } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: RULES,
  },
  {
    // A test file's describe() callback holds its cases: its length is the file's, not a function's.
    files: ['test/**/*.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
);
