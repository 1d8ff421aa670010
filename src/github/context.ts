import { workflowRunUrl, type EventPayload, type World } from '../world.ts'
import { eventHeadSha, eventThread, type EventThread } from './event.ts'
import { loadOctokit, type Octokit } from './octokit.ts'
import { threadOf, type ThreadLookup } from './thread.ts'

/** `owner/repo`, split once. */
export interface Repository {
  owner: string
  repo: string
}

/**
 * What a step knows of GitHub, from the world its door read once: the repository, the event
 * and its thread, the workflow run, and one client for the token, built the first time it is
 * needed (most steps never need it). Every GitHub surface of the step is handed this.
 */
export class GitHubContext {
  readonly repository: Repository | undefined
  readonly eventName: string
  readonly event: EventPayload | undefined
  /** The pull request or issue the event is about, for the comment. */
  readonly thread: ThreadLookup
  /** The pull request or issue the event names (a check's pull request too): where runs belong. */
  readonly named: EventThread | undefined
  /** The pull request's number, when the event names one. */
  readonly pullRequest: number | undefined
  /** The head the event delivered (a pull request's, a check's commit), or the one approved. */
  readonly eventHeadSha: string | undefined
  /** GITHUB_SHA, when it is a commit's. */
  readonly sha: string | undefined
  readonly workflowRun: string | undefined
  /** GitHub's web address, as the world gives it: the links to other workflow runs start there. */
  readonly serverUrl: string | undefined
  /** `<job>/<step>`, written into the comment's marker. */
  readonly step: string
  /** Whether there is a token: without one, no GitHub surface is written. */
  readonly hasToken: boolean
  readonly #client: () => Promise<Octokit>
  #octokit: Promise<Octokit> | undefined

  /**
   * The world's GitHub, for the step's token. `approvedHead`: the head an approval pinned the
   * run to (approval), which it works on in place of the event's.
   */
  constructor(token: string, world: World, approvedHead?: string) {
    const [owner, repo] = (world.repository ?? '').split('/')
    this.repository = owner && repo ? { owner, repo } : undefined
    this.eventName = world.eventName ?? ''
    this.event = world.event
    this.thread = threadOf(this.eventName, this.event, this.repository)
    this.named = eventThread(this.event, world.repository)
    this.pullRequest = this.named?.pullRequest ? this.named.number : undefined
    this.eventHeadSha = approvedHead ?? eventHeadSha(this.event)
    this.sha = SHA.test(world.sha ?? '') ? world.sha : undefined
    this.workflowRun = workflowRunUrl(world)
    this.serverUrl = world.serverUrl
    this.step = `${world.job ?? 'job'}/${world.action ?? 'step'}`
    this.hasToken = token !== ''
    this.#client = () => loadOctokit(token, world.apiUrl)
  }

  /** The one GitHub client of the step. */
  client(): Promise<Octokit> {
    this.#octokit ??= this.#client()
    return this.#octokit
  }
}

const SHA = /^[0-9a-f]{40}$/
