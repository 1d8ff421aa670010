/**
 * docs/cli.md's "Try it locally", line by line: each `try-run` line it shows, run against the
 * fake as `npm run fake-api` starts it (its runs played by the prompt's first word), exits with
 * the code its comment promises. A line a person ends with Ctrl-C needs a process: the signal
 * tests of cli.test.ts hold it.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { playedScript } from '../fake-api/plays.ts'
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

/** The `try-run` lines of docs/cli.md's shell block, with the exit and outcome each promises. */
function tryRunLines(): DocLine[] {
  const page = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')
  const lines: DocLine[] = []
  for (const line of page.split('\n')) {
    const match = /^try-run (.*?)\s+# exit (\d+), (\w+)/.exec(line)
    if (!match) continue
    const args = [...(match[1] ?? '').matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '')
    lines.push({ args, exit: Number(match[2]), outcome: match[3] ?? '' })
  }
  return lines
}

describe("docs/cli.md's Try it locally", () => {
  const lines = tryRunLines()

  it('shows a line for each play of the fake', () => {
    expect(lines.map((line) => line.outcome).sort()).toEqual(
      ['blocked', 'failed', 'over', 'succeeded', 'timed_out', 'timed_out'].sort(),
    )
  })

  it.each(lines.map((line) => [line.args.join(' '), line] as const))(
    'try-run %s',
    async (_, line) => {
      const api = await fakeApi({ script: playedScript })
      const result = await command(against(api, ...line.args, '--json'), {
        WARP_API_KEY: KEY,
      }).done

      expect(result.code, result.stderr).toBe(line.exit)
      const outcome = (JSON.parse(result.stdout) as { outcome: string }).outcome
      expect(outcome.startsWith(line.outcome)).toBe(true)
      // Nothing is left working, whatever the play.
      expect(api.allRuns().every((run) => run.state !== 'INPROGRESS')).toBe(true)
    },
  )
})
