/**
 * docs/cli.md's "Try it locally", line by line: each `try-run` line it shows, run against the
 * fake as `npm run fake-api` starts it (its runs played by the prompt's first word), exits with
 * the code its comment promises. A block that exports variables first (a merge request
 * pipeline's, for `--continue-from`) runs its lines in order, on one fake, with them. A line a
 * person ends with Ctrl-C needs a process: the signal tests of cli.test.ts hold it.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { PLAYS, playedScript } from '../fake-api/plays.ts'
import { against, command } from './command.ts'
import { ROOT } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-try-locally-51c0'
const { fakeApi } = e2eServers(KEY)

interface DocLine {
  args: string[]
  exit: number
  outcome: string
}

/** A shell block of the page: the variables it exports (the key aside) and its `try-run` lines. */
interface DocBlock {
  env: Record<string, string>
  lines: DocLine[]
}

/** The shell blocks of docs/cli.md that show `try-run` lines, with the exit and outcome each promises. */
function tryRunBlocks(): DocBlock[] {
  const page = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')
  const blocks: DocBlock[] = []
  for (const block of page.split(/^```sh\n/m).slice(1)) {
    const found: DocBlock = { env: {}, lines: [] }
    for (const line of (block.split(/^```$/m)[0] ?? '').split('\n')) {
      const exported = /^export ((?:\w+=\S+\s*)+?)(?:\s+#.*)?$/.exec(line)?.[1]
      for (const pair of exported?.trim().split(/\s+/) ?? []) {
        const [name = '', value = ''] = pair.split('=')
        if (name !== 'WARP_API_KEY') found.env[name] = value
      }
      const match = /^try-run (.*?)\s+# exit (\d+), (\w+)/.exec(line)
      if (!match) continue
      const args = [...(match[1] ?? '').matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map(
        (m) => m[1] ?? m[2] ?? m[3] ?? '',
      )
      found.lines.push({ args, exit: Number(match[2]), outcome: match[3] ?? '' })
    }
    if (found.lines.length > 0) blocks.push(found)
  }
  return blocks
}

interface Outputs {
  outcome: string
  run_id?: string
  pull_request_url?: string
  structured_output?: unknown
}

async function tryRun(
  api: { baseUrl: string },
  line: DocLine,
  env: Record<string, string>,
): Promise<Outputs> {
  const result = await command(against(api as never, ...line.args, '--json'), {
    WARP_API_KEY: KEY,
    ...env,
  }).done
  expect(result.code, result.stderr).toBe(line.exit)
  const outputs = JSON.parse(result.stdout) as Outputs
  expect(outputs.outcome.startsWith(line.outcome), outputs.outcome).toBe(true)
  return outputs
}

describe("docs/cli.md's Try it locally", () => {
  const blocks = tryRunBlocks()
  const [first, ...more] = blocks
  const lines = first?.lines ?? []

  it('shows a line for each play of the fake, and one of a prompt that picks none', () => {
    expect(first?.env).toEqual({})
    const words = lines.map((line) => /^(\w+):/.exec(line.args[1] ?? '')?.[1])
    expect(new Set(words)).toEqual(new Set([...Object.keys(PLAYS), undefined]))
  })

  it.each(lines.map((line) => [line.args.join(' '), line] as const))(
    'try-run %s',
    async (_, line) => {
      const api = await fakeApi({ script: playedScript })
      const outputs = await tryRun(api, line, {})
      // What the line is there to show: the pull request a run opened, the document it answered.
      const word = /^(\w+):/.exec(line.args[1] ?? '')?.[1]
      if (word === 'pr') expect(outputs.pull_request_url).toMatch(/\/pull\/1$/)
      if (word === 'json') expect(outputs.structured_output).toEqual({ outdated: ['x'] })
      // Nothing is left working, whatever the play.
      expect(api.allRuns().every((run) => run.state !== 'INPROGRESS')).toBe(true)
    },
  )

  it('--continue-from pull_request: the next line goes to the run that opened the merge request', async () => {
    const block = more.find((one) =>
      one.lines.some((line) => line.args.includes('--continue-from')),
    )
    expect(block?.env).toMatchObject({ GITLAB_CI: 'true' })
    const api = await fakeApi({ script: playedScript })
    const outputs: Outputs[] = []
    for (const line of block?.lines ?? []) outputs.push(await tryRun(api, line, block?.env ?? {}))
    const [opened, continued] = outputs
    expect(opened?.pull_request_url).toMatch(/\/-\/merge_requests\/\d+$/)
    expect(continued?.run_id).toBe(opened?.run_id)
    expect(api.allRuns()).toHaveLength(1)
    expect(api.followups(opened?.run_id ?? '')).toHaveLength(1)
  })
})
