/**
 * `npm run fake-api`, as a person starts it to try the command by hand: its --help, a bad flag,
 * and a start that prints the address and stops on SIGTERM. Run as the npm script runs it.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url))

function fakeApiCommand(...args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  )
  const listening = new Promise<string>((resolve) => {
    child.stdout.on('data', () => {
      const url = /FAKE_API_URL=(\S+)/.exec(stdout)?.[1]
      if (url) resolve(url)
    })
  })
  return { child, done, listening }
}

describe('npm run fake-api', () => {
  it('--help says how to start it, the plays a prompt picks, and how to point the command at it', async () => {
    const result = await fakeApiCommand('--help').done
    expect(result.code).toBe(0)
    for (const word of ['long:', 'fail:', 'block:', 'costly:', 'pr:', 'json:', '--poll-interval']) {
      expect(result.stdout).toContain(word)
    }
  })

  it('refuses an unknown flag with exit 2 and the help', async () => {
    const result = await fakeApiCommand('--prot', '1').done
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--prot')
    expect(result.stderr).toContain('Usage:')
  })

  it('prints its address once listening, answers, and stops on SIGTERM', async () => {
    const fake = fakeApiCommand('--api-key', 'k-1')
    const url = await fake.listening
    const answer = await fetch(`${url}/agent/runs`, { headers: { authorization: 'Bearer k-1' } })
    expect(answer.status).toBe(200)
    fake.child.kill('SIGTERM')
    expect((await fake.done).code).toBe(0)
  })
})
