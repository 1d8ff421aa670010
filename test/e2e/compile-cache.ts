/**
 * npm test's globalSetup, for steps run as processes of the sources (ACTION_UNDER_TEST=sources):
 * fills Node's compile cache (see harness.ts) with the sources and the packages a step loads,
 * once, before the first test. On a fresh clone the cache is empty, and the dozens of steps that
 * start at once would each compile it all.
 */
import { execFileSync } from 'node:child_process'

const EVERYTHING_A_STEP_LOADS = [
  "await import('./src/index.ts')",
  // The GitHub client, loaded lazily by a step that talks to GitHub.
  "await import('./src/github/client.ts')",
].join('; ')

export default async function fillCompileCache(): Promise<void> {
  // In-process steps (npm test's) start no Node of their own; and the harness (YAML, the
  // sources' door), loaded here before any worker starts, would hold up every test by 0.4 s.
  if ((process.env.ACTION_UNDER_TEST ?? 'in-process') === 'in-process') return
  const { COMPILE_CACHE, defaultTarget, ROOT } = await import('./harness.ts')
  if (defaultTarget() === 'in-process') return
  execFileSync(process.execPath, ['--input-type=module', '-e', EVERYTHING_A_STEP_LOADS], {
    cwd: ROOT,
    env: { ...process.env, NODE_COMPILE_CACHE: COMPILE_CACHE },
    stdio: 'inherit',
    timeout: 60_000,
  })
}
