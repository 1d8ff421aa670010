/**
 * Where the bundle's start goes: runs `node --cpu-prof dist/main.js` with no inputs, so the
 * process loads and evaluates the whole bundle, fails on the missing api_key before any request,
 * and exits. The profile's samples are grouped by what they were doing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUNDLE } from '../../test/e2e/harness.ts'
import { prepareStep, spawnPrepared } from './step.ts'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string }
}

interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

export interface StartProfile {
  /** Profiled time, from the profiler's start (early in bootstrap) to exit, in ms. */
  totalMs: number
  /** Self time by group, in ms, largest first. */
  groups: Record<string, number>
}

function groupOf(node: ProfileNode, bundleUrl: string): string {
  const { functionName, url } = node.callFrame
  if (functionName === 'compileSourceTextModule') return 'compile (parse) the bundle'
  if (url === bundleUrl) return 'evaluate the bundle (module factories, main step)'
  if (functionName === 'compileForInternalLoader' || functionName === 'internalBinding') {
    return "load Node's built-in modules"
  }
  if (functionName === '(garbage collector)') return 'garbage collection'
  if (functionName === '(idle)') return 'idle (waiting on I/O)'
  if (functionName === '(program)') return 'native (V8/Node, unattributed)'
  return 'other Node internals (module loader, bootstrap, I/O)'
}

/** Profiles `runs` starts and returns the median of each group. */
export async function profileStart(runs = 3): Promise<StartProfile> {
  const bundleUrl = new URL(`file://${BUNDLE}`).href
  const perRun: StartProfile[] = []
  for (let i = 0; i < runs; i += 1) {
    const profDir = mkdtempSync(join(tmpdir(), 'agent-run-prof-'))
    const step = prepareStep({ api_key: '', base_url: '' })
    const spawned = spawnPrepared(step, {
      nodeArgs: ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', profDir],
    })
    await spawned.done
    const file = readdirSync(profDir).find((name) => name.endsWith('.cpuprofile'))
    if (!file) throw new Error('node --cpu-prof wrote no profile')
    const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile
    rmSync(profDir, { recursive: true, force: true })
    const byId = new Map(profile.nodes.map((node) => [node.id, node]))
    const groups: Record<string, number> = {}
    profile.samples.forEach((id, index) => {
      const node = byId.get(id)
      if (!node) return
      const group = groupOf(node, bundleUrl)
      groups[group] = (groups[group] ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000
    })
    perRun.push({ totalMs: (profile.endTime - profile.startTime) / 1000, groups })
  }
  const names = new Set(perRun.flatMap((run) => Object.keys(run.groups)))
  const med = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)] ?? 0
  }
  const groups = Object.fromEntries(
    [...names]
      .map((name) => [name, med(perRun.map((run) => run.groups[name] ?? 0))] as const)
      .sort((a, b) => b[1] - a[1]),
  )
  return { totalMs: med(perRun.map((run) => run.totalMs)), groups }
}
