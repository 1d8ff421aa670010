import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import { forbiddenFrom, placedRooms } from './scripts/layers/table.ts'

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

/**
 * The layers' import rules, made from the one table (scripts/layers/table.ts): one override per
 * room, refusing every room beside it or above it. Each also refuses the runner's library
 * (but to src/runner.ts) and the process as a module (but to an entry), since an override's
 * rule replaces the one above it.
 */
function layerRules() {
  const rooms = placedRooms()
  return rooms.map((room) => {
    const group = forbiddenFrom(room, rooms)
    const message = `src/${room.path} (${room.layer}) imports its own room or a lower floor only: see the table in scripts/layers/table.ts (CONTRIBUTING.md, "Layers"). What two rooms share moves down.`
    return {
      files: [room.path.endsWith('/') ? `src/${room.path}**` : `src/${room.path}`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: [
              ...(room.path === 'runner.ts' ? [] : [RUNNER_LIBRARY]),
              ...(room.path === 'entries/' ? [] : PROCESS_MODULES),
            ],
            patterns: group.length > 0 ? [{ group, message }] : [],
          },
        ],
      },
    }
  })
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
  // The layers (CONTRIBUTING.md, "Layers"), from the one table: a file imports its own room
  // or a lower floor.
  ...layerRules(),
)
