import type { RunItem } from '../api/types.ts'
import { safeHttpUrl } from '../text/markdown.ts'
import { meaningOf } from './states.ts'

/** The run's own explanation of a failure, when there is one. */
export function statusMessageOf(run: RunItem): string | undefined {
  if (meaningOf(run.state) === 'succeeded') return undefined
  const message = run.status_message?.message?.trim()
  return message ? message : undefined
}

/** The pull request the run opened, from its artifacts, if it is an http(s) URL. */
export function pullRequestUrlOf(run: RunItem): string | undefined {
  for (const artifact of run.artifacts ?? []) {
    const url = artifact.artifact_type === 'PULL_REQUEST' ? artifact.data?.url : undefined
    if (typeof url === 'string' && safeHttpUrl(url)) return url
  }
  return undefined
}

/** `PT2M30S` and the like, in milliseconds; undefined for anything else. */
export function parseIsoDuration(text: string): number | undefined {
  const match =
    /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      text,
    )
  if (!match || text === 'P' || text === 'PT') return undefined
  const [, days, hours, minutes, seconds] = match.map((part) => Number(part ?? 0))
  return Math.round(
    (((days ?? 0) * 24 + (hours ?? 0)) * 3600 + (minutes ?? 0) * 60 + (seconds ?? 0)) * 1000,
  )
}
