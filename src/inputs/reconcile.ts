/**
 * The reconcile pass's inputs: the `reconcile` action's (GitHub) and `cloud-agent-run reconcile`'s
 * (GitLab).
 */
import type { InputSource } from '../step-io.ts'
import { readConnection, type Connection } from './connection.ts'
import { readGitHubToken } from './github.ts'
import { InputError } from '../input-error.ts'
import { parseBoolean, parsePositiveDuration } from './values.ts'

/** What a pass reads of its own on either forge: `lookback`, `sweep` and `dry_run`. */
interface PassOptions {
  readonly lookbackMs: number
  readonly sweep: boolean
  readonly dryRun: boolean
}

const DEFAULT_LOOKBACK = '24h'

function readPassOptions(source: InputSource): PassOptions {
  const lookbackMs = parsePositiveDuration('lookback', source.get('lookback') || DEFAULT_LOOKBACK)
  const sweep = parseBoolean('sweep', source.get('sweep') || 'true')
  const dryRun = parseBoolean('dry_run', source.get('dry_run') || 'false')
  return { lookbackMs, sweep, dryRun }
}

/** What the `reconcile` action reads (reconcile/action.yml). */
export interface ReconcileSettings extends Connection, PassOptions {
  readonly githubToken: string
  /** `owner/repo`, from the runner: a pass touches only runs tagged with it. */
  readonly repository: string
}

/** Reads and checks every input of the `reconcile` action. Throws InputError before any request. */
export function readReconcileSettings(source: InputSource): ReconcileSettings {
  const connection = readConnection(source)
  const githubToken = readGitHubToken(source)
  const pass = readPassOptions(source)
  if (!githubToken) {
    throw new InputError(
      'github_token',
      'is required by reconcile: it reads workflow runs and writes comments and commit statuses. Give it ${{ github.token }} (the default), with the permissions docs/reconcile.md lists.',
    )
  }
  const repository = source.world.repository ?? ''
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository)) {
    throw new Error(
      `reconcile runs in a workflow: GITHUB_REPOSITORY must name the repository (owner/repo); got "${repository}".`,
    )
  }
  return { ...connection, githubToken, repository, ...pass }
}

/** What `cloud-agent-run reconcile` reads: the connection, the project, the pass's settings. */
export interface GitLabReconcileSettings extends Connection, PassOptions {
  /** The GitLab project's path: the pass touches only runs tagged with it. */
  readonly project: string
}

/**
 * Reads and checks the inputs of `cloud-agent-run reconcile`, a pass over a GitLab project's
 * runs. Throws InputError before any request.
 */
export function readGitLabReconcileSettings(source: InputSource): GitLabReconcileSettings {
  const connection = readConnection(source)
  const pass = readPassOptions(source)
  const project = source.world.project ?? ''
  if (source.world.forge !== 'gitlab' || !project) {
    throw new InputError(
      'project',
      'is needed: reconcile runs in a GitLab CI job (a scheduled pipeline), where GitLab CI names the project (GITLAB_CI, CI_PROJECT_PATH).',
    )
  }
  return { ...connection, project, ...pass }
}
