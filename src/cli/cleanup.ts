/**
 * `cloud-agent-run cleanup`: what runs after a command that may have been killed hard, in any CI
 * (a GitLab job's `after_script`, a Jenkins pipeline's `post { always }`). The shell executor does not always
 * signal a cancelled job's script, and the docker executor removes its container, so the command
 * may end without cancelling what it started. `after_script` runs for a cancelled job too (GitLab
 * 17.0+), in a fresh shell: this reads what the script's command saved (`state.json` in
 * CLOUD_AGENT_RUN_DIR) and cancels every run it left going, finding a create never answered by
 * its tag, unless a newer pipeline of the merge request steers the run now (handed over).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { InputSource } from '../step-io.ts'
import { run as runPostStep } from '../step/post.ts'
import { readSavedRun } from '../state.ts'
import { errorMessage } from '../text/plain.ts'
import { EXIT } from './answer.ts'
import { flagOf, KEY_FILE_VARIABLE, KEY_VARIABLE, UsageError } from './flags.ts'
import type { CommandIo } from './io.ts'
import { JOB_DIR_VARIABLE, JobFiles, jobDirOf, type SavedJob } from './job-files.ts'
import { readKey } from './key.ts'
import { MergeRequestJob } from './merge-request.ts'
import { CommandStepIo } from './step-io.ts'
import { commandWorld } from './world.ts'

/** How long the hand-over's question to GitLab may take: after_script's time is short. */
const HAND_OVER_ASK_MS = 10_000

const HELP = `Usage: cloud-agent-run cleanup

Cancels every run a cloud-agent-run command started and left going: the command cancels its
runs itself on SIGINT or SIGTERM, but a hard kill (SIGKILL, a removed container, a runner lost)
gives it no time. Give the command a folder in ${JOB_DIR_VARIABLE}: it saves there what it
starts (state.json); run cleanup afterwards with the same ${JOB_DIR_VARIABLE} and
${KEY_VARIABLE} (or ${KEY_FILE_VARIABLE}), whatever ended the command: GitLab's
after_script, a Jenkins pipeline's post { always }, a shell's trap. It finds a create never
answered by its tag, and hands a steered run over to a newer pipeline rather than cancel it.

Exit codes: 0 nothing is left going (or nothing was saved); 1 a run could not be cancelled;
2 ${JOB_DIR_VARIABLE} or the key is missing, or an argument was given.

  --help      this text
`

/** Runs `cloud-agent-run cleanup`; resolves with its exit code (0 once nothing is left going). */
export async function runCleanup(args: readonly string[], io: CommandIo): Promise<number> {
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    io.stdout(HELP)
    return EXIT.passed
  }
  const say = (line: string) => io.stderr(`cloud-agent-run cleanup: ${line}\n`)
  let key: string
  let saved: SavedJob | undefined
  let dir: string | undefined
  try {
    if (args.length > 0) {
      throw new UsageError(`cleanup takes no arguments; it reads ${JOB_DIR_VARIABLE}.`)
    }
    dir = jobDirOf(io.env, io.cwd)
    if (!dir) {
      throw new UsageError(
        `${JOB_DIR_VARIABLE} is not set: it names the folder where the job's command saved what it started.`,
      )
    }
    saved = readSaved(join(dir, 'state.json'))
    if (!saved) {
      say('the job saved no run: nothing to clean up.')
      return EXIT.passed
    }
    key = readKey(io.env, io.cwd)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    say(error.message)
    return EXIT.badInput
  }
  const secrets = new Set<string>([key])
  if (io.env.GITLAB_TOKEN) secrets.add(io.env.GITLAB_TOKEN.trim())
  const port = new CommandStepIo(io.stderr, secrets, io.process, () => undefined)
  port.restoreState(saved.state)
  const left = readSavedRun(port).runs.filter((record) => !record.settled)
  if (left.length === 0) {
    say('the job left no run going: nothing to clean up.')
    return EXIT.passed
  }
  if (saved.steer && (await handedOver(io, saved, say))) return EXIT.passed
  const inputs: InputSource = {
    get: (name) =>
      name === 'api_key'
        ? key
        : name === 'base_url'
          ? saved.baseUrl
          : name === 'name'
            ? saved.name
            : '',
    mask: (secret) => secrets.add(secret),
    world: commandWorld(io.env, io.cwd, undefined),
    nameOf: (input, value) => (value === undefined ? flagOf(input) : `${flagOf(input)} ${value}`),
  }
  await runPostStep(port, inputs)
  if (port.failure) return EXIT.notPassed
  // Done: a retried after_script finds nothing left to cancel.
  new JobFiles(dir, saved, io.stderr).cleaned()
  return EXIT.passed
}

/** `state.json`, or undefined when the script saved none (it started nothing). */
function readSaved(path: string): SavedJob | undefined {
  if (!existsSync(path)) return undefined
  try {
    const saved = JSON.parse(readFileSync(path, 'utf8')) as Partial<SavedJob>
    if (typeof saved.state !== 'object' || saved.state === null) return undefined
    return {
      baseUrl: typeof saved.baseUrl === 'string' ? saved.baseUrl : '',
      name: typeof saved.name === 'string' ? saved.name : '',
      steer: saved.steer === true,
      state: saved.state,
    }
  } catch (error) {
    throw new UsageError(`${path} cannot be read: ${errorMessage(error)}`)
  }
}

/**
 * Whether a newer pipeline of the merge request steers the run now: then the run is its, and
 * nothing is cancelled. GitLab not answering in time is no hand-over: the run is cancelled.
 */
async function handedOver(
  io: CommandIo,
  saved: SavedJob,
  say: (line: string) => void,
): Promise<boolean> {
  const job = MergeRequestJob.open(io.env, {
    key: saved.name,
    steer: true,
    say: (line) => io.stderr(line),
  })
  try {
    const newer = await job?.steering?.newerStep(Date.now() + HAND_OVER_ASK_MS)
    if (!newer) return false
    say(`${newer}: it steers the run now; handing it over, cancelling nothing.`)
    return true
  } catch (error) {
    say(
      `could not tell whether a newer pipeline steers the run (${errorMessage(error)}); cancelling it.`,
    )
    return false
  }
}
