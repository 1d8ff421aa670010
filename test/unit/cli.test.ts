import { describe, expect, it } from 'vitest'
import { logLine } from '../../src/cli.ts'
import { githubOnlyGiven, parseCommandLine, UsageError } from '../../src/cli/flags.ts'
import { outputsAsJson, parseOutputFile, plainSummary } from '../../src/cli/outputs.ts'

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
  it('reads the output file as @actions/core writes it, the last value winning', () => {
    const file = [
      'outcome<<ghadelimiter_1',
      'succeeded',
      'ghadelimiter_1',
      'result<<ghadelimiter_2',
      'line one',
      '',
      'line three',
      'ghadelimiter_2',
      'credits<<ghadelimiter_3',
      '12.5',
      'ghadelimiter_3',
      'runs<<ghadelimiter_4',
      '[{"task":0}]',
      'ghadelimiter_4',
      'outcome<<ghadelimiter_5',
      'failed',
      'ghadelimiter_5',
      '',
    ].join('\n')
    const outputs = parseOutputFile(file)
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

  it("turns the engine's workflow commands into plain log lines, and masks every secret", () => {
    const secrets = new Set(['sk-1'])
    expect(logLine('::warning::Poll 1 of 5 failed%3A 502', secrets)).toBe(
      'warning: Poll 1 of 5 failed: 502',
    )
    expect(logLine('::error title=Run::Run r ended FAILED%0Asecond line', secrets)).toBe(
      'error: Run r ended FAILED\nsecond line',
    )
    expect(logLine('::add-mask::ghs_token', secrets)).toBeUndefined()
    expect(logLine('token ghs_token and key sk-1', secrets)).toBe('token *** and key ***')
    expect(logLine('::debug::inner detail', secrets)).toBeUndefined()
  })
})
