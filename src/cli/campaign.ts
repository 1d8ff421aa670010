/**
 * `cloud-agent-run campaign status|cancel|close NAME` (v1.5, "Verbs"): a campaign's tracking,
 * its stop and its close, from any CI or a laptop. `status` is the report with `--campaign`;
 * `cancel` is the command with `--cancel-only --campaign`; `close` closes the campaign's open
 * pull requests with a comment. Each says what it did, and `--json` prints it.
 */
import { run as runCloseStep } from '../report/close.ts'
import { run as runReportStep } from '../report/main.ts'
import { EXIT } from './answer.ts'
import { inputLines, KEY_VARIABLE, type DeclaredInput } from './flags.ts'
import type { CommandIo } from './io.ts'
import { refuse } from './preflight.ts'
import { runReadingCommand, withoutToken } from './report.ts'

const HELP = `Usage: cloud-agent-run campaign status|cancel|close NAME [flags]

One instruction over many repositories, as one campaign (the main command's --campaign with
--tasks-file starts it). The key is read from ${KEY_VARIABLE}.

  status NAME   per repository: its newest run's outcome, session and cost, the pull request
                its runs opened, and (with GITHUB_TOKEN) that pull request's state, checks and
                review; the totals and a burndown chart. The report's flags (--period,
                --report-dir, --summary FILE, --unit); the period is 90d unless given.
  cancel NAME   cancels every working run of the campaign, whichever repository it is of
                (the main command with --cancel-only --campaign NAME).
  close NAME --comment TEXT
                closes the campaign's open and draft pull requests, each with TEXT as a
                comment; needs GITHUB_TOKEN with pull requests write on those repositories.

Each says what it did; --json prints it as one JSON object. Exit codes: 0 done; 1 something
could not be done (a pull request not closed); 2 bad input (nothing asked); 3 the service could
not be reached or refused the key; 130/143 interrupted.
`

/** Runs `campaign …`; `startCommand` runs the main command (for `cancel`). */
export async function runCampaign(
  args: readonly string[],
  report: Readonly<Record<string, DeclaredInput>>,
  io: CommandIo,
  startCommand: (args: readonly string[]) => Promise<number>,
): Promise<number> {
  const [verb, name, ...flags] = args
  if (verb === undefined || verb === '--help' || verb === '-h') {
    io.stdout(HELP)
    return EXIT.passed
  }
  const json = args.includes('--json')
  if (verb !== 'status' && verb !== 'cancel' && verb !== 'close') {
    return refuse(
      io,
      json,
      `campaign takes status, cancel or close; got "${verb}". See cloud-agent-run campaign --help.`,
    )
  }
  if (name === '--help' || name === '-h') {
    io.stdout(HELP)
    return EXIT.passed
  }
  if (name === undefined || name.startsWith('--')) {
    return refuse(
      io,
      json,
      `campaign ${verb} needs the campaign's name: cloud-agent-run campaign ${verb} NAME.`,
    )
  }
  const named = ['--campaign', name, ...flags]
  if (verb === 'cancel') return startCommand(['--cancel-only', ...named])
  if (verb === 'status') {
    return runReadingCommand(named, report, io, {
      name: 'campaign status',
      usage: () => HELP,
      step: runReportStep,
    })
  }
  const closeInputs: Record<string, DeclaredInput> = {
    ...pick(report, ['base_url', 'campaign', 'period', 'github_token']),
    comment: { description: 'The comment each pull request is closed with.', default: '' },
  }
  return runReadingCommand(named, closeInputs, io, {
    name: 'campaign close',
    usage: () => `${HELP}\nFlags of close:\n${inputLines(withoutToken(closeInputs)).join('\n')}\n`,
    step: runCloseStep,
    needsGitHubToken:
      "close writes a comment on each open pull request and closes it: export a token with pull requests write on the campaign's repositories.",
  })
}

function pick(
  declared: Readonly<Record<string, DeclaredInput>>,
  names: readonly string[],
): Record<string, DeclaredInput> {
  return Object.fromEntries(Object.entries(declared).filter(([name]) => names.includes(name)))
}
