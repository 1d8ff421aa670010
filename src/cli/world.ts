import { tmpdir } from 'node:os'
import { readRunnerWorld } from '../runner.ts'
import { jobDirOf } from './job-files.ts'
import type { Forge, World } from '../world.ts'

/**
 * The command's world, read once from its environment: a GitHub Actions workflow's (the
 * runner's variables), a GitLab CI job's (its predefined variables), or neither, where
 * `--project` names the project its runs belong to. Budgets, `--previous-run` and
 * `--cancel-only` scope by the forge, project and thread read here.
 */
export function commandWorld(
  env: NodeJS.ProcessEnv,
  cwd: string,
  named: string | undefined,
): World {
  const { project, forge: projectForge } = projectNamed(named)
  const onGitHub = env.GITHUB_ACTIONS === 'true'
  const runner = readRunnerWorld(onGitHub ? env : {}, cwd)
  const outside = {
    // Downloads go where a person finds them after the command ends, not into its own files.
    runnerTemp: tmpdir(),
    workspace: onGitHub && env.GITHUB_WORKSPACE ? env.GITHUB_WORKSPACE : cwd,
    // Where a campaign's pull requests are read and closed with GITHUB_TOKEN (GHES's API, or
    // a test's), from any CI: the variable GitHub's runner sets, api.github.com without it.
    apiUrl: env.GITHUB_API_URL || undefined,
  }
  if (onGitHub) {
    return { ...runner, ...outside, project: project ?? runner.project }
  }
  if (env.GITLAB_CI === 'true') {
    const iid = env.CI_MERGE_REQUEST_IID ?? ''
    // The job's folder (the component's, under CI_PROJECT_DIR): downloads kept as artifacts.
    const jobDir = jobDirOf(env, cwd)
    return {
      ...runner,
      ...outside,
      ...(jobDir ? { runnerTemp: jobDir } : {}),
      forge: 'gitlab',
      project: project ?? (env.CI_PROJECT_PATH || undefined),
      // The forge's web address, where its merge requests' pages are.
      serverUrl: env.CI_SERVER_URL || undefined,
      ...(/^[1-9]\d{0,15}$/.test(iid) ? { thread: Number(iid) } : {}),
      // The pipeline and the job that started the run, as a sweep asks GitLab about them.
      runId: env.CI_PIPELINE_ID || undefined,
      // With the job's name, the default key (`name` left out), as the merge request's note has it.
      workflow: 'cloud-agent-run',
      job: env.CI_JOB_NAME || 'job',
      action: env.CI_JOB_ID || undefined,
      sha: env.CI_COMMIT_SHA || undefined,
    }
  }
  return {
    ...runner,
    ...outside,
    forge: undefined,
    project,
    ...(projectForge ? { projectForge } : {}),
    // Outside a CI, the default key (`name` left out) says where the run came from.
    workflow: 'cloud-agent-run',
    job: env.CI_JOB_NAME ?? 'command',
  }
}

/**
 * `--project`: a path, or a path with its forge (`github:owner/repo`, `gitlab:group/app`). A bare
 * path names no forge: its runs count with every forge's runs of the same path (one number per
 * project, whichever door made them).
 */
export function projectNamed(named: string | undefined): {
  project: string | undefined
  forge: Forge | undefined
} {
  const match = /^(github|gitlab):(.+)$/.exec(named ?? '')
  if (!match) return { project: named, forge: undefined }
  return { project: match[2], forge: match[1] === 'gitlab' ? 'gitlab' : 'github' }
}
