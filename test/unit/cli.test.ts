import { describe, expect, it } from 'vitest'
import { githubOnlyGiven, parseCommandLine, UsageError } from '../../src/cli/flags.ts'
import { outputsAsJson, plainSummary } from '../../src/cli/outputs.ts'
import { CommandStepIo } from '../../src/cli/step-io.ts'
import type { StepIo } from '../../src/step-io.ts'

const DECLARED = {
  prompt: { default: '' },
  environment_id: { default: '' },
  wait: { default: 'true' },
  comment: { default: 'false' },
  timeout: { default: '60m' },
}

describe('the command line flags', () => {
  it('takes every input by its name with - for _, as --flag value or --flag=value', () => {
    const line = parseCommandLine(
      ['--prompt', 'Fix it', '--environment-id=env_1', '--no-wait', '--json', '--summary', 's.md'],
      DECLARED,
    )
    expect(Object.fromEntries(line.inputs)).toEqual({
      prompt: 'Fix it',
      environment_id: 'env_1',
      wait: 'false',
    })
    expect(line).toMatchObject({ json: true, summaryFile: 's.md', help: false })
  })

  it('reads a boolean as --flag, --no-flag, --flag false or --flag=true', () => {
    const read = (...args: string[]) => parseCommandLine(args, DECLARED).inputs.get('wait')
    expect(read('--wait')).toBe('true')
    expect(read('--no-wait')).toBe('false')
    expect(read('--wait', 'false')).toBe('false')
    expect(read('--wait=true')).toBe('true')
    // A boolean flag does not swallow the next flag.
    expect(parseCommandLine(['--wait', '--prompt', 'p'], DECLARED).inputs.get('prompt')).toBe('p')
  })

  it('refuses the key as a flag, an unknown flag, a missing value and a stray word', () => {
    for (const [args, says] of [
      [['--api-key', 'sk-1'], /never a flag/],
      [['--promt', 'x'], /Unknown flag --promt/],
      [['--prompt'], /--prompt needs a value/],
      [['fix', 'it'], /Unexpected argument "fix"/],
      [['--tasks', '[a]', '--tasks-file', 't.yml'], /not both/],
      [['--json=yes'], /takes no value/],
    ] as const) {
      expect(() => parseCommandLine([...args], { ...DECLARED, tasks: { default: '' } })).toThrow(
        UsageError,
      )
      expect(() => parseCommandLine([...args], { ...DECLARED, tasks: { default: '' } })).toThrow(
        says,
      )
    }
  })

  it('names the GitHub-only inputs that were given, not those left at false', () => {
    const line = parseCommandLine(['--comment', '--prompt', 'p'], DECLARED)
    expect(githubOnlyGiven(line.inputs)).toEqual(['comment'])
    expect(githubOnlyGiven(parseCommandLine(['--no-comment'], DECLARED).inputs)).toEqual([])
  })
})

describe("the command's output", () => {
  it('keeps the outputs the engine sets, the last value winning, and gives JSON and numbers as such', () => {
    const port = new CommandStepIo(
      () => undefined,
      new Set(),
      process,
      () => undefined,
    )
    port.setOutput('outcome', 'succeeded')
    port.setOutput('result', 'line one\n\nline three')
    port.setOutput('credits', '12.5')
    port.setOutput('runs', '[{"task":0}]')
    port.setOutput('outcome', 'failed')
    const { outputs } = port
    expect(outputs).toEqual({
      outcome: 'failed',
      result: 'line one\n\nline three',
      credits: '12.5',
      runs: '[{"task":0}]',
    })
    expect(outputsAsJson(outputs)).toEqual({
      outcome: 'failed',
      result: 'line one\n\nline three',
      credits: 12.5,
      runs: [{ task: 0 }],
    })
  })

  it('shows the summary as plain text: no tags, no table rules, links as text (url)', () => {
    const markdown = [
      '### ✅ Fix &#60;it&#62; succeeded',
      '',
      '| **Run** | <code>run_1</code> |',
      '|---|---|',
      '| **Session** | [Open the session transcript](https://app.example.test/s/1) |',
      '',
      "<details open><summary>The agent's answer</summary>",
      '',
      'Done &amp; dusted.',
      '',
      '</details>',
    ].join('\n')
    expect(plainSummary(markdown)).toBe(
      [
        '✅ Fix <it> succeeded',
        '',
        'Run: run_1',
        'Session: Open the session transcript (https://app.example.test/s/1)',
        '',
        "The agent's answer",
        '',
        'Done & dusted.',
        '',
      ].join('\n'),
    )
  })

  it('leaves a Mermaid chart out of the plain text: only a Markdown viewer draws it', () => {
    const markdown = [
      '### Credits',
      '',
      '```mermaid',
      'xychart-beta',
      '    bar [1, 2]',
      '```',
      '',
      '```sh',
      'kept',
      '```',
      'After the chart.',
    ].join('\n')
    expect(plainSummary(markdown)).toBe('Credits\n\n```sh\nkept\n```\nAfter the chart.\n')
  })

  it("writes the engine's log as plain lines for a person, and masks every secret", () => {
    const lines: string[] = []
    const port = new CommandStepIo(
      (text) => lines.push(text),
      new Set(['sk-1']),
      process,
      () => undefined,
    )
    // As the engine sees it.
    const step: StepIo = port
    step.warning('Poll 1 of 5 failed: 502')
    step.setFailed('Run r ended FAILED\nsecond line')
    step.notice('Run r succeeded.', { title: 'Cloud agent run' })
    step.setSecret('ghs_token')
    step.info('token ghs_token and key sk-1')
    step.debug('inner detail')
    // The engine hands a log's methods on alone, as @actions/core's free functions.
    const { warning } = step
    warning('on its own')
    expect(lines).toEqual([
      'warning: Poll 1 of 5 failed: 502\n',
      'error: Run r ended FAILED\nsecond line\n',
      'notice: Run r succeeded.\n',
      'token *** and key ***\n',
      'warning: on its own\n',
    ])
    expect(port.failed).toBe(true)
  })
})
