/** What the step brings back of the agent's work: on_blocked, max_credits, downloads, progress. */
import { resolve } from 'node:path'
import { parseArtifactPatterns } from '../agent/artifacts.ts'
import { ON_BLOCKED, type OnBlocked } from '../model/blocked.ts'
import type { Amount } from '../model/money.ts'
import type { InputSource } from '../step-io.ts'
import { errorMessage } from '../text/plain.ts'
import { InputError } from '../input-error.ts'
import { parseBoolean, readAmount } from './values.ts'

/** What the step brings back of the agent's work, and how it watches the run (v1.1). */
export interface AgentWorkSettings {
  readonly onBlocked: OnBlocked
  /** The soft cap on what the run may spend, in credits or US dollars; undefined for none. */
  readonly maxCredits: Amount | undefined
  /** `download_artifacts`; empty when nothing is to be downloaded. */
  readonly downloadPatterns: readonly string[]
  /** An absolute path; '' for the default, `$RUNNER_TEMP/cloud-agent-artifacts/<run_id>`. */
  readonly artifactsDir: string
  readonly showProgress: boolean
}

export function readAgentWork(source: InputSource, wait: boolean): AgentWorkSettings {
  const onBlocked = source.get('on_blocked') || 'wait'
  if (!(ON_BLOCKED as readonly string[]).includes(onBlocked)) {
    throw new InputError('on_blocked', `must be wait, fail or pass; got "${onBlocked}".`)
  }
  const maxCredits = readAmount('max_credits', source.get('max_credits'))
  let downloadPatterns: string[]
  try {
    downloadPatterns = parseArtifactPatterns(source.get('download_artifacts'))
  } catch (error) {
    throw new InputError('download_artifacts', errorMessage(error))
  }
  // Both act while or after the step waits; without waiting they would silently do nothing.
  if (!wait && maxCredits !== undefined) {
    throw new InputError(
      'max_credits',
      'needs wait: true: the cap is checked while the step waits.',
    )
  }
  if (!wait && downloadPatterns.length > 0) {
    throw new InputError(
      'download_artifacts',
      'needs wait: true: files are downloaded once the run has ended.',
    )
  }
  return {
    onBlocked: onBlocked as OnBlocked,
    maxCredits,
    downloadPatterns,
    artifactsDir: readArtifactsDir(source),
    showProgress: parseBoolean('show_progress', source.get('show_progress') || 'false'),
  }
}

function readArtifactsDir(source: InputSource): string {
  const dir = source.get('artifacts_dir')
  if (!dir) return ''
  if (dir.includes('\0')) throw new InputError('artifacts_dir', 'must not hold a NUL character.')
  return resolve(source.world.workspace, dir)
}
