/**
 * The cases of linear-text.test.ts, run in a worker thread so that a transform gone
 * quadratic (synchronous: no timer can interrupt it) is ended by `terminate()`, and
 * fails its test, instead of holding the test run for hours. Each group feeds every
 * hostile text to its functions and posts the checks that did not hold, and the CPU time
 * the thread spent on them.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { describeProgress } from '../../src/agent/progress.ts'
import { safeArtifactPath } from '../../src/agent/artifacts.ts'
import { isRunId } from '../../src/api/answers.ts'
import { errorForStatus, excerpt } from '../../src/api/errors.ts'
import { retryAfterMs } from '../../src/api/retry.ts'
import { spliceComment } from '../../src/github/comment.ts'
import { approveCommandOf, looksLikeApprove } from '../../src/model/approval.ts'
import { historyLine } from '../../src/model/key-history.ts'
import { parseMarker } from '../../src/github/run-marker.ts'
import { oneLine } from '../../src/github/status.ts'
import { parseIsoDuration } from '../../src/model/run-item.ts'
import { safeForLog } from '../../src/text/log.ts'
import {
  agentDetails,
  agentMarkdown,
  escapeMarkdown,
  inlineText,
  safeHttpUrl,
} from '../../src/text/markdown.ts'

/**
 * Big enough that quadratic takes far longer than the test's CPU bound (a 400 KB page took 113 s:
 * about 16 s at this size), small enough to be cheap: the slowest group, linear, takes under a
 * second of CPU (about 0.9 s; 1.6 s at 300 KB).
 */
const SIZE = 150_000
const many = (piece: string, total = SIZE) => piece.repeat(Math.ceil(total / piece.length))

/** Each shaped against one kind of expression or loop that rescans. */
const HOSTILE: Record<string, string> = {
  unclosedTags: many('<'),
  unclosedTagsWithText: many('<a '),
  spaces: `${many(' ')}x`,
  linesOfSpaces: `${many(' \t')}x\n`,
  colons: many(':'),
  backticksThenSeparator: `${many('`')}\u2028`,
  tildesThenSeparator: `${many('~')}\u2028`,
  indentedFence: `${many(' ')}\`\`\``,
  backslashes: many('\\'),
  backtickPairs: many('`a'),
  mentions: many('@'),
  commentOpeners: many('<!--'),
  dotsInUrl: `https://a${many('.')}x`,
  parensInUrl: `https://a${many(')')}`,
  urls: many('https://a.b/ '),
  digits: `${many('1')}x`,
}

type Check = (text: string) => boolean

/** The groups the test names; each check also says the result is sane, not just that it ended. */
export const GROUPS: Record<string, Record<string, Check>> = {
  'error excerpts and messages': {
    // 200 characters and the ellipsis, each `::` made `: :` for the log.
    excerpt: (text) => excerpt(text).length <= 301,
    errorForStatus: (text) =>
      errorForStatus({ method: 'GET', path: '/r' }, 502, {}, text).message.startsWith('GET /r'),
  },
  'the log': { safeForLog: (text) => safeForLog(text).length <= 4_001 },
  'agent Markdown': {
    agentMarkdown: (text) => !agentMarkdown(text).includes('<!--'),
    agentDetails: (text) => agentDetails(text, text).startsWith('<details><summary>'),
  },
  'service text in Markdown': {
    inlineText: (text) => !inlineText(text).includes('<!'),
    escapeMarkdown: (text) => !escapeMarkdown(text).replaceAll('<br>', '').includes('<'),
    safeHttpUrl: (text) => !(safeHttpUrl(text) ?? '').includes('<'),
  },
  'progress, status, IDs, durations, headers and file names': {
    describeProgress: (text) => describeProgress({ kind: 'step', summary: text }).length < 600,
    oneLine: (text) => oneLine(text).length <= 140,
    isRunId: (text) => !isRunId(text),
    parseIsoDuration: (text) =>
      parseIsoDuration(`P${text}`) === undefined && parseIsoDuration(`PT${text}`) === undefined,
    retryAfterMs: (text) =>
      retryAfterMs({ 'retry-after': text, 'retry-after-ms': text }, 0) === undefined,
    safeArtifactPath: (text) => typeof safeArtifactPath('/tmp/a', `con${text}`).ok === 'boolean',
  },
  'an /approve comment': {
    approveCommandOf: (text) =>
      approveCommandOf(`/approve ${text}`) === undefined &&
      approveCommandOf(`/approve${text}x`) === undefined,
    looksLikeApprove: (text) => looksLikeApprove(`${text}/approve`) === (text.trim() === ''),
  },
  'a comment body: its marker, its history and its start times': {
    parseMarker: (text) => parseMarker(`<!-- cloud-agent-run: {${text}}`) === undefined,
    spliceComment: (text) =>
      spliceComment(`${many('\n\n<details><summary>Earlier runs (1)</summary>\n')}${text}`, {
        runId: 'r',
        step: 's',
        runs: [],
      }).length > SIZE,
    historyLine: (text) =>
      historyLine({ runId: 'r', state: 'SUCCEEDED', startedAt: `${many('T00:00')}${text}` })
        .length > 0,
  },
}

/** What the worker posts: a group begun, then its checks that did not hold and its CPU time. */
export type GroupMessage =
  { group: string; started: true } | { group: string; failed: string[]; cpuMs: number }

// One thread runs the groups it is given in turn (one thread's start and module loading, not
// one per group), posting when each begins and what each found.
if (parentPort && Array.isArray(workerData)) {
  for (const group of workerData as string[]) {
    parentPort.postMessage({ group, started: true } satisfies GroupMessage)
    const failed: string[] = []
    // This thread's own CPU time: what the checks cost, whatever else the machine is doing.
    const before = process.threadCpuUsage()
    for (const [name, check] of Object.entries(GROUPS[group] ?? {})) {
      for (const [shape, text] of Object.entries(HOSTILE)) {
        if (!check(text)) failed.push(`${name} on ${shape}`)
      }
    }
    const used = process.threadCpuUsage(before)
    parentPort.postMessage({
      group,
      failed,
      cpuMs: (used.user + used.system) / 1000,
    } satisfies GroupMessage)
  }
}
