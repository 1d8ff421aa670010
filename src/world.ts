import { safeHttpUrl } from './text/markdown.ts'

/**
 * What a step knows of the world it runs in: the repository, the workflow run
 * and the step in it, the event that started it, and where files may go. A
 * door reads it once (the Action's steps from the runner: src/runner.ts) and
 * hands it down; nothing below a door reads the process itself, so the same
 * engine runs behind another door, or in a test, given another world.
 * Each field is as the runner gives it: undefined where it gives none.
 */
export interface World {
  /**
   * The forge the door runs on: `github` (an Action's step, or the command in a workflow),
   * `gitlab` (the command in a GitLab CI job), undefined elsewhere.
   */
  readonly forge: Forge | undefined
  /**
   * Where the door's runs belong (the contract's "one identity"): GitHub's `owner/repo`, GitLab's
   * project path (CI_PROJECT_PATH), or the command's `--project`; undefined when none is named.
   */
  readonly project: string | undefined
  /**
   * The forge `--project` names outside any forge's CI (`github:owner/repo`, `gitlab:group/app`):
   * the command's runs are tagged and counted as that forge's project. Undefined where the door
   * runs on a forge (`forge` says it) or the project names none (a bare path, every forge's).
   */
  readonly projectForge?: Forge
  /**
   * The thread a door outside GitHub names from its own world: a GitLab merge request's IID. On
   * GitHub the event names it, and GitHubContext reads it from there.
   */
  readonly thread?: number
  /** `owner/repo` (GITHUB_REPOSITORY); undefined outside GitHub. */
  readonly repository: string | undefined
  /**
   * The forge's web address: GitHub's (GITHUB_SERVER_URL; github.com when undefined), or a GitLab
   * job's (CI_SERVER_URL).
   */
  readonly serverUrl: string | undefined
  /** GitHub's REST API (GITHUB_API_URL); api.github.com when undefined. */
  readonly apiUrl: string | undefined
  /** The workflow's name (GITHUB_WORKFLOW). */
  readonly workflow: string | undefined
  /** The workflow run (GITHUB_RUN_ID) and its attempt (GITHUB_RUN_ATTEMPT). */
  readonly runId: string | undefined
  readonly runAttempt: string | undefined
  /** The job's ID (GITHUB_JOB) and the step's (GITHUB_ACTION). */
  readonly job: string | undefined
  readonly action: string | undefined
  /** The commit the workflow runs on (GITHUB_SHA). */
  readonly sha: string | undefined
  /** What started the workflow (GITHUB_EVENT_NAME), and its payload, read once. */
  readonly eventName: string | undefined
  readonly event: EventPayload | undefined
  /** The checkout (GITHUB_WORKSPACE), else the working directory: where inputs' paths start. */
  readonly workspace: string
  /** The runner's scratch directory (RUNNER_TEMP), else the system's. */
  readonly runnerTemp: string
}

/** A forge whose threads and jobs the action knows. */
export type Forge = 'github' | 'gitlab'

/** The parts of the event's payload the action reads. Every field may be missing. */
export interface EventPayload {
  /** What happened: `opened`, `synchronize`, `created`, `edited`, `submitted`, … */
  action?: string
  pull_request?: {
    number?: number
    head?: { sha?: string; repo?: { full_name?: string } }
    base?: { repo?: { full_name?: string } }
  }
  issue?: {
    number?: number
    pull_request?: unknown
    user?: EventUser
    title?: string
    body?: string | null
  }
  comment?: {
    id?: number
    user?: EventUser
    body?: string
    created_at?: string
    updated_at?: string
  }
  review?: { user?: EventUser }
  /** A discussion's (discussion, discussion_comment events). */
  discussion?: { number?: number; user?: EventUser }
  sender?: EventUser
  /** The repository the workflow runs in: its name and whether anyone may read it. */
  repository?: { full_name?: string; private?: boolean; visibility?: string }
  /** A workflow_run event's run: the commit it ran on, and the pull requests of its head branch. */
  workflow_run?: {
    head_sha?: string
    pull_requests?: ListedPullRequest[]
    head_repository?: { full_name?: string } | null
  }
  /** A check_suite event's suite: its commit, and the pull requests of its head. */
  check_suite?: {
    head_sha?: string
    pull_requests?: ListedPullRequest[]
    head_repository?: { full_name?: string } | null
  }
  /** A check_run event's run: its commit, and the pull requests of its head. */
  check_run?: { head_sha?: string; pull_requests?: ListedPullRequest[] }
}

/** A pull request as a check's event lists it: its number, and its base's API address. */
interface ListedPullRequest {
  number?: number
  base?: { repo?: { url?: string } }
}

interface EventUser {
  login?: string
  type?: string
}

/** A workflow run, as a step's tag or a hand-over names it. */
export type WorkflowRunRef = Pick<World, 'serverUrl' | 'repository' | 'runId' | 'runAttempt'>

/** The workflow run's page (its attempt's, when known); undefined without a run. */
export function workflowRunUrl(run: WorkflowRunRef): string | undefined {
  const { serverUrl, repository, runId } = run
  if (!repository || !runId || !/^\d+$/.test(runId)) return undefined
  const attempt = /^\d+$/.test(run.runAttempt ?? '') ? run.runAttempt : undefined
  const base = `${(serverUrl || 'https://github.com').replace(/\/+$/, '')}/${repository}/actions/runs/${runId}`
  return safeHttpUrl(attempt ? `${base}/attempts/${attempt}` : base)
}
