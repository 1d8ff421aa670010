import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/** The peers and the steps: what no lower module may import. */
const UPPER_LAYERS = [
  'run/*',
  'summary/*',
  'step/*',
  'cli/*',
  'github/*',
  'gitlab/*',
  'service.ts',
  'runner.ts',
  'entries/*',
  'reconcile/*',
]

/**
 * The runner's library: only the Action's door (src/runner.ts) speaks to the runner; every
 * other module writes through the StepIo port its door hands down (src/step-io.ts).
 */
const RUNNER_LIBRARY = {
  name: '@actions/core',
  message:
    'Only src/runner.ts speaks to the runner: write the log, outputs, summary and state through the StepIo its door hands down (src/step-io.ts).',
}

/**
 * The process as a module: `import { env } from 'node:process'` reads what the global `process`
 * does, so below the entries it is refused the same way (CONTRIBUTING.md, "Layers").
 */
const PROCESS_MODULES = ['node:process', 'process'].map((name) => ({
  name,
  message:
    'Only an entry (src/entries/) reads the process: take what you need from the World or the port its door hands down (src/world.ts, src/step-io.ts).',
}))

/** One override per peer folder: it may not import its peers, nor the steps above it. */
function peers(folders) {
  return folders.map((folder) => ({
    files: [`src/${folder}/**`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [RUNNER_LIBRARY, ...PROCESS_MODULES],
          patterns: [
            {
              group: [
                ...folders.filter((other) => other !== folder).map((other) => `../${other}/*`),
                '../step/*',
                '../cli/*',
                '../service.ts',
                '../runner.ts',
                '../entries/*',
                '../reconcile/*',
              ],
              message: `${folder}/ may not import its peers (run/, summary/, github/, gitlab/) or the steps: move what they share down, into model/, text/, api/ or log.ts.`,
            },
          ],
        },
      ],
    },
  }))
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='getInput']",
          message:
            "Only src/runner.ts reads the runner's inputs; src/inputs/ reads them from an InputSource.",
        },
      ],
    },
  },
  {
    files: ['src/**'],
    ignores: ['src/runner.ts', 'src/entries/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [RUNNER_LIBRARY, ...PROCESS_MODULES] }] },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable' },
    },
    // A CommonJS module whose whole point is a deferred require().
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/runner.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  // The engine reads nothing of the process (CONTRIBUTING.md, "Layers"): only an entry
  // (src/entries/) names `process`, and hands it to its door (src/runner.ts, src/cli/door.ts), which
  // reads the world once and hands it down. test/engine.test.ts says the same of runner
  // variables and NodeJS.ProcessEnv, naming each file.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/entries/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        {
          name: 'process',
          message:
            'Only an entry (src/entries/) reads the process: take what you need from the World or the port its door hands down (src/world.ts, src/step-io.ts).',
        },
      ],
    },
  },
  // The layers (CONTRIBUTING.md, "Layout"): run/, summary/ and github/ are peers that never
  // import each other; what two of them share lives below them, and nothing below imports up.
  ...peers(['run', 'summary', 'github', 'gitlab']),
  {
    files: [
      'src/model/**',
      'src/agent/**',
      'src/api/**',
      'src/text/**',
      'src/log.ts',
      'src/inputs/**',
      'src/input-error.ts',
      'src/state.ts',
      'src/step-io.ts',
      'src/timing.ts',
      'src/version.ts',
      'src/world.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [RUNNER_LIBRARY, ...PROCESS_MODULES],
          patterns: [
            {
              group: UPPER_LAYERS.flatMap((name) => [`./${name}`, `../${name}`]),
              message:
                'A lower module (model/, agent/, api/, text/, log, inputs, state, world) never imports run/, summary/, github/, the steps or the runner.',
            },
          ],
        },
      ],
    },
  },
)
