import { NotFoundError, UnprocessableEntityError } from '../api/errors.ts'
import type { RunItem } from '../api/types.ts'
import {
  defaultArtifactsDir,
  parseArtifacts,
  planDownloads,
  type ArtifactEntry,
} from './artifacts.ts'
import { finalAnswer, parseConversation, type Conversation } from './conversation.ts'
import { downloadArtifacts } from './download.ts'
import { errorMessage } from '../text/plain.ts'
import type { Log } from '../log.ts'

/** What the step brings back of the agent's work once the run has ended or been handed off. */
export interface AgentWork {
  /** The agent's final message; undefined when the service has none. */
  answer: string | undefined
  artifacts: ArtifactEntry[]
  downloadedTo: Map<ArtifactEntry, string>
  /** Where matching files were to go, when any were asked for. */
  downloadDir: string | undefined
}

export interface AgentWorkSources {
  /** The run's conversation body as the service sent it; throws the client's errors. */
  /** `deadline` (epoch ms), when given, bounds the read with its retries. */
  getConversation: (runId: string, signal: AbortSignal, deadline?: number) => Promise<unknown>
  /** A file artifact's bytes: getArtifact, then its signed URL, fetched without the key. */
  fetchFile: (artifact: ArtifactEntry, signal: AbortSignal) => Promise<Uint8Array>
}

/**
 * The run's conversation, or undefined when the service has none (404) or
 * cannot give it in its normalized form (422): neither is a failure of the
 * run, so it is one info line. Any other failure is a warning, never thrown.
 */
export async function readConversation(
  runId: string,
  sources: Pick<AgentWorkSources, 'getConversation'>,
  log: Log,
  signal: AbortSignal,
  deadline?: number,
): Promise<Conversation | undefined> {
  try {
    return parseConversation(await sources.getConversation(runId, signal, deadline))
  } catch (error) {
    if (error instanceof NotFoundError) {
      log.info(`Run ${runId} has no conversation to read (404); the result output stays empty.`)
    } else if (error instanceof UnprocessableEntityError) {
      log.info(
        `The service cannot give run ${runId}'s conversation in its normalized form yet (422); the result output stays empty.`,
      )
    } else {
      const reason = errorMessage(error)
      log.warning(
        `Could not read run ${runId}'s conversation: ${reason}. The outcome is unchanged.`,
      )
    }
    return undefined
  }
}

/**
 * The agent's final message, read from the run's conversation unless one was read already: the
 * one reading of the answer, for one run, each task of a set and a reconcile pass.
 */
export async function readAnswer(
  runId: string,
  sources: Pick<AgentWorkSources, 'getConversation'>,
  log: Log,
  signal: AbortSignal,
  read?: Conversation,
): Promise<string | undefined> {
  const conversation = read ?? (await readConversation(runId, sources, log, signal))
  const answer = conversation && finalAnswer(conversation)
  if (conversation && answer === undefined) {
    log.info(`Run ${runId}'s conversation has no message from the agent.`)
  }
  return answer
}

export interface CollectOptions {
  downloadPatterns: readonly string[]
  /** '' for the default under RUNNER_TEMP. */
  artifactsDir: string
  runnerTemp: string
  /** The workspace: with RUNNER_TEMP, the only places files may be written. */
  workspace: string
  /** A conversation already read while waiting (at BLOCKED), to save a request. */
  conversation?: Conversation
  /** Its lines on reading the answer are debug lines (each task's of a set: not one per task). */
  quietAnswer?: boolean
}

export async function collectAgentWork(
  run: RunItem,
  options: CollectOptions,
  sources: AgentWorkSources,
  log: Log & { safeForLog: (value: unknown) => string },
  signal: AbortSignal,
): Promise<AgentWork> {
  const readLog = options.quietAnswer ? { ...log, info: log.debug } : log
  const answer = await readAnswer(run.run_id, sources, readLog, signal, options.conversation)
  const artifacts = parseArtifacts(run.artifacts)
  if (options.downloadPatterns.length === 0) {
    return { answer, artifacts, downloadedTo: new Map(), downloadDir: undefined }
  }
  const downloadDir = options.artifactsDir || defaultArtifactsDir(options.runnerTemp, run.run_id)
  const files = await downloadRunFiles(artifacts, downloadDir, options, sources, log, signal)
  return { answer, artifacts, ...files }
}

/**
 * `download_artifacts`: the run's FILE artifacts that match, written into `downloadDir`, which
 * must lie in the workspace or RUNNER_TEMP. One run's files, or one task's of a set. Nothing
 * here throws: a file or a folder that cannot be written is a warning.
 */
export async function downloadRunFiles(
  artifacts: readonly ArtifactEntry[],
  downloadDir: string,
  options: Pick<CollectOptions, 'downloadPatterns' | 'runnerTemp' | 'workspace'>,
  sources: Pick<AgentWorkSources, 'fetchFile'>,
  log: Log & { safeForLog: (value: unknown) => string },
  signal: AbortSignal,
): Promise<Pick<AgentWork, 'downloadedTo' | 'downloadDir'>> {
  const { artifactsToDownload } = await import('./artifact-match.ts')
  const wanted = artifactsToDownload(artifacts, options.downloadPatterns)
  if (wanted.length === 0) {
    log.info('No file artifact of the run matches download_artifacts; nothing to download.')
  }
  try {
    const downloadedTo = await downloadArtifacts(downloadDir, planDownloads(downloadDir, wanted), {
      fetchFile: sources.fetchFile,
      warning: (message) => log.warning(message),
      info: (message) => log.info(message),
      safeForLog: log.safeForLog,
      signal,
      roots: [options.workspace, options.runnerTemp],
    })
    return { downloadedTo, downloadDir }
  } catch (error) {
    // The directory itself could not be made (permissions, a file in the way): still a warning.
    const reason = log.safeForLog(errorMessage(error))
    log.warning(
      `Could not download artifacts into ${downloadDir}: ${reason}. The outcome is unchanged.`,
    )
    return { downloadedTo: new Map(), downloadDir }
  }
}
