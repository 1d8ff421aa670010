/**
 * The fake GitLab's projects beyond their notes: each project's path (GitLab takes a project's
 * numeric ID or its URL-encoded path as `:id`), its jobs, its merge requests' pipelines, and a
 * commit graph for compare and merge_base. State only; server.ts routes to it.
 */
export interface FakeJob {
  id: number
  status: string
  pipeline: { id: number }
  name: string
}

export interface FakePipeline {
  id: number
  iid: number
  sha: string
  status: string
  source: string
  /** The merge request it runs for. */
  mergeRequestIid: number
  created_at: string
}

export interface FakeCommit {
  sha: string
  /** Its parent's SHA; undefined for a root commit. */
  parent?: string
  title: string
}

/** What a route answers: a status and a JSON value. */
export interface ProjectReply {
  status: number
  value: unknown
}

export class FakeProjects {
  readonly #paths = new Map<string, number>([['group/app', 42]])
  readonly #jobs = new Map<string, FakeJob>()
  readonly #pipelines: Array<FakePipeline & { projectId: number }> = []
  readonly #commits = new Map<string, FakeCommit & { projectId: number }>()
  #nextPipeline = 7001

  /** Names a project's path: `:id` may then be either. `group/app` is project 42 already. */
  addProject(id: number, path: string): void {
    this.#paths.set(path, id)
  }

  /** A project's numeric ID from `:id` as a request gives it (decoded), or undefined. */
  projectId(segment: string): number | undefined {
    if (/^[1-9]\d*$/.test(segment)) return Number(segment)
    return this.#paths.get(segment)
  }

  /** Sets a job's status (creating the job): `running`, `success`, `canceled`, … */
  setJob(projectId: number, jobId: number, status: string, pipelineId = 0): void {
    this.#jobs.set(`${projectId}:${jobId}`, {
      id: jobId,
      status,
      pipeline: { id: pipelineId },
      name: 'cloud-agent-run',
    })
  }

  job(projectId: number, jobId: number): FakeJob | undefined {
    return this.#jobs.get(`${projectId}:${jobId}`)
  }

  /** A merge request pipeline for a commit; newest last. Returns it. */
  addPipeline(
    projectId: number,
    mergeRequestIid: number,
    sha: string,
    status = 'running',
  ): FakePipeline {
    const id = this.#nextPipeline++
    const pipeline = {
      projectId,
      id,
      iid: id - 7000,
      sha,
      status,
      source: 'merge_request_event',
      mergeRequestIid,
      created_at: new Date().toISOString(),
    }
    this.#pipelines.push(pipeline)
    return pipeline
  }

  /** Sets a pipeline's status (`canceled`, `success`, …). */
  setPipeline(id: number, status: string): void {
    const pipeline = this.#pipelines.find((p) => p.id === id)
    if (pipeline) pipeline.status = status
  }

  /** A merge request's pipelines, newest first, as GitLab lists them. */
  pipelines(projectId: number, mergeRequestIid: number): FakePipeline[] {
    return this.#pipelines
      .filter((p) => p.projectId === projectId && p.mergeRequestIid === mergeRequestIid)
      .map((p) => ({
        id: p.id,
        iid: p.iid,
        sha: p.sha,
        status: p.status,
        source: p.source,
        mergeRequestIid: p.mergeRequestIid,
        created_at: p.created_at,
      }))
      .reverse()
  }

  /** Commits, each after its parent: a history compare and merge_base read. */
  addCommits(projectId: number, commits: readonly FakeCommit[]): void {
    for (const commit of commits) this.#commits.set(commit.sha, { ...commit, projectId })
  }

  /** The ancestors of a commit, itself first; undefined for an unknown commit. */
  #history(projectId: number, sha: string): string[] | undefined {
    const line: string[] = []
    let at = this.#commits.get(sha)
    if (!at || at.projectId !== projectId) return undefined
    while (at && line.length < 10_000) {
      line.push(at.sha)
      at = at.parent ? this.#commits.get(at.parent) : undefined
    }
    return line
  }

  /** `GET repository/compare?from&to`: the commits of `to` not in `from`, oldest first. */
  compare(projectId: number, from: string, to: string): ProjectReply {
    const fromLine = this.#history(projectId, from)
    const toLine = this.#history(projectId, to)
    if (!fromLine || !toLine) return { status: 404, value: { message: '404 Commit Not Found' } }
    const before = new Set(fromLine)
    const commits = toLine
      .filter((sha) => !before.has(sha))
      .reverse()
      .map((sha) => ({ id: sha, short_id: sha.slice(0, 8), title: this.#commits.get(sha)?.title }))
    return {
      status: 200,
      value: { commit: commits.at(-1) ?? null, commits, diffs: [], compare_same_ref: from === to },
    }
  }

  /** `GET repository/merge_base?refs[]=A&refs[]=B`: their nearest common ancestor. */
  mergeBase(projectId: number, refs: readonly string[]): ProjectReply {
    const [a, b] = refs
    const aLine = a ? this.#history(projectId, a) : undefined
    const bLine = b ? this.#history(projectId, b) : undefined
    if (!aLine || !bLine) return { status: 404, value: { message: '404 Commit Not Found' } }
    const inA = new Set(aLine)
    const base = bLine.find((sha) => inA.has(sha))
    if (!base) return { status: 404, value: { message: '404 Not Found' } }
    return { status: 200, value: { id: base, short_id: base.slice(0, 8) } }
  }
}
